"""One real Airflow api-server for every operate integration test (they share the xdist group "airflow-api"), on
PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from tests.builders import ops_cluster
from tests.integration.airflow_database import airflow_database
from tests.integration.databases.servers import Server

from .harness import AirflowServer


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory, airflow_postgres: Server) -> Iterator[AirflowServer]:
    airflow = AirflowServer.prepare(tmp_path_factory.mktemp("operate-airflow"),
                                    airflow_database(airflow_postgres, "airflow_operate"))
    for name in ("east", "west"):
        (airflow.store / "clusters").mkdir(exist_ok=True)
        (airflow.store / "clusters" / f"{name}.xml").write_text(
            ops_cluster(name, storage=airflow.storage, colo=f"{name}-colo"), encoding="utf-8")
    airflow.start()
    try:
        yield airflow
    finally:
        airflow.stop()
