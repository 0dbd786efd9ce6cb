"""The Airflow provider of falcon-airflow: what runs inside Airflow.

``info`` is the provider metadata, ``plugin`` what the plugin registers; ``hooks``, ``operators``, ``sensors`` and
``triggers`` are the task code; ``scheduling`` holds the scheduler's plug-ins (timetable, priority strategies, retry
policy, SLA callbacks); ``listeners`` the task-event listeners; ``macros`` the ``{{ macros.falcon.* }}`` functions;
``openlineage`` what the OpenLineage provider asks our operators. Only this package and ``dags`` import Airflow.
"""
