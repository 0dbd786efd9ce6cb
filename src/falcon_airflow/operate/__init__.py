"""Operating Falcon entities on Airflow: Falcon's ``entity``, ``instance`` and ``admin`` commands.

The entities folder is Falcon's configuration store (:mod:`~falcon_airflow.operate.config_store`, with an archive and a
journal for atomic multi-step actions); Airflow is reached through its REST API v2
(:mod:`~falcon_airflow.operate.airflow_api`), so the commands work against a remote Airflow. The command-line
glue is :mod:`~falcon_airflow.operate.commands`; docs/operate.md describes the commands and the state mapping.
"""
