"""Airflow's metadata database on the tests' PostgreSQL server (fixture ``airflow_postgres``)."""

from __future__ import annotations

from tests.integration.databases.servers import Server


def airflow_database(server: Server, name: str) -> str:
    """A new, empty database ``name`` on ``server``; its SQLAlchemy URL for ``[database] sql_alchemy_conn``."""
    server.sql(f"CREATE DATABASE {name}", database="postgres")
    return f"postgresql+psycopg2://{server.user}:{server.password}@127.0.0.1:{server.port}/{name}"
