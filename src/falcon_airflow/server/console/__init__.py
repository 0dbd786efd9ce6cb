"""Falcon's console inside the Airflow UI: pages served by the Falcon app at ``/falcon/console/`` (the plugin's
``external_views`` entry "Falcon" opens them in Airflow's iframe) and the JSON they read, authenticated and
authorized as Falcon's REST resources are (docs/console.md)."""
