"""One real Airflow api-server for every operate integration test (they share the xdist group "airflow-api")."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .harness import AirflowServer, cluster_xml


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AirflowServer]:
    airflow = AirflowServer.prepare(tmp_path_factory.mktemp("operate-airflow"))
    for name in ("east", "west"):
        (airflow.store / "clusters").mkdir(exist_ok=True)
        (airflow.store / "clusters" / f"{name}.xml").write_text(
            cluster_xml(name, airflow.storage / name), encoding="utf-8")
    airflow.start()
    try:
        yield airflow
    finally:
        airflow.stop()
