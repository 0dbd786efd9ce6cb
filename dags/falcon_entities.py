"""Airflow reads this file: it turns the Falcon entities folder into DAGs (see falcon_airflow.dags.loader).

The entities folder is FALCON_ENTITIES_DIR, else [falcon] entities_dir, else entities/ beside this folder.
"""

from falcon_airflow.dags.loader import load_dags

globals().update(load_dags(__file__))
