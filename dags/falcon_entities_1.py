"""Shard 1 of the Falcon entities' DAGs (see falcon_entities.py and falcon_airflow.dags.shards)."""

from falcon_airflow.dags.loader import load_dags

globals().update(load_dags(__file__))
