"""Airflow reads this file: it turns the Falcon entities folder into DAGs (see falcon_airflow.dags.loader).

The entities folder is FALCON_ENTITIES_DIR, else [falcon] entities_dir, else entities/ beside this folder.
The DAGs are split over this file (shard 0, which also holds the falcon.invalid-entities DAG) and
falcon_entities_1.py ... by a stable hash of each entity's name ([falcon] dag_shards, default 4), so that Airflow
parses the shards in parallel and each parse builds only its part.
"""

from falcon_airflow.dags.loader import load_dags

globals().update(load_dags(__file__))
