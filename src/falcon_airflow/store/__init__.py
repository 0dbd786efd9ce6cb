"""Falcon's configuration store in a SQL database: the tables (:mod:`.tables`) and the store on them
(:mod:`.database`).

The server writes it; the dag-processor reads it through a DAG bundle that lays the store out as files
(:mod:`falcon_airflow.dags.store_bundle`). Nothing here imports Airflow: whoever uses the store hands it an
SQLAlchemy engine (Airflow's own, in the api-server and the dag-processor). The tables are created and upgraded by
the provider's database manager (:mod:`falcon_airflow.provider.store_database`), as ``airflow db migrate`` does for
Airflow's own.
"""
