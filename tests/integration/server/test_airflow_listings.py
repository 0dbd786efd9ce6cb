"""The server's own reads of runs and task instances give what Airflow's REST API gives for them: real runs made by
``dag.test()`` in a migrated SQLite database, Airflow's core API served in-process by its own app."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from falcon_airflow.server import airflow_listings

FIRST = datetime(2026, 3, 1, tzinfo=UTC)
DAG_ID = "listing_probe"


@pytest.fixture(scope="module")
def runs() -> list[datetime]:
    """Three runs of a DAG of three tasks: two that succeed, one whose second task fails (its third never runs);
    the second run carries a note."""
    airflow = Path(sys.executable).parent / "airflow"
    reset = subprocess.run([str(airflow), "db", "reset", "--yes"], capture_output=True, text=True, timeout=300,
                           env=os.environ.copy())
    assert reset.returncode == 0, reset.stderr[-3000:]

    from airflow.dag_processing.bundles.manager import DagBundlesManager
    from airflow.dag_processing.collection import update_dag_parsing_results_in_db
    from airflow.models.dagrun import DagRun
    from airflow.providers.standard.operators.python import PythonOperator
    from airflow.sdk import DAG
    from airflow.serialization.serialized_objects import LazyDeserializedDAG
    from airflow.utils.session import create_session

    def work(logical_date: Any) -> None:
        if logical_date.hour == 2:
            raise RuntimeError("the third run fails")

    with DAG(DAG_ID, schedule=None, start_date=FIRST, catchup=False) as dag:
        first = PythonOperator(task_id="first", python_callable=lambda: None)
        second = PythonOperator(task_id="second", python_callable=work)
        third = PythonOperator(task_id="third", python_callable=lambda: None)
        first >> second >> third
    with create_session() as session:  # as the dag-processor writes a DAG it parsed
        DagBundlesManager().sync_bundles_to_db(session=session)
    with create_session() as session:
        update_dag_parsing_results_in_db("dags-folder", None, [LazyDeserializedDAG.from_dag(dag)], {}, None, set(),
                                         session=session)
    moments = [FIRST + timedelta(hours=hour) for hour in range(3)]
    for moment in moments:
        dag.test(logical_date=moment)
    with create_session() as session:
        run = session.query(DagRun).filter(DagRun.dag_id == DAG_ID, DagRun.logical_date == moments[1]).one()
        run.note = "looked at\nby the operator"
    return moments


@pytest.fixture(scope="module")
def core_api(runs: list[datetime]) -> Iterator[TestClient]:
    from airflow.api_fastapi.app import create_app
    from airflow.api_fastapi.auth.managers.simple.user import SimpleAuthManagerUser
    from airflow.api_fastapi.core_api.security import get_user

    app = create_app("core")
    app.dependency_overrides[get_user] = lambda: SimpleAuthManagerUser(username="admin", role="admin")
    with TestClient(app) as client:
        yield client


def rest(client: TestClient, path: str, **params: Any) -> dict[str, Any]:
    response = client.get(f"/api/v2/dags/{DAG_ID}/{path}", params={"limit": 1000, **params})
    assert response.status_code == 200, response.text
    return dict(response.json())


def falcon_time(moment: datetime) -> str:
    return moment.isoformat().replace("+00:00", "Z")


def test_runs_are_read_as_the_rest_api_lists_them(core_api: TestClient, runs: list[datetime]) -> None:
    listed = rest(core_api, "dagRuns", order_by="logical_date", logical_date_gte=falcon_time(runs[1]))["dag_runs"]
    read = airflow_listings.dag_runs(DAG_ID, first=runs[1], last=None, states=None)
    assert [run["dag_run_id"] for run in read] == [run["dag_run_id"] for run in listed] and len(read) == 2
    for ours, theirs in zip(read, listed, strict=True):
        assert ours == {key: theirs[key] for key in ours}
    assert read[0]["note"] == "looked at\nby the operator" and read[1]["state"] == "failed"

    failed = airflow_listings.dag_runs(DAG_ID, first=None, last=runs[2], states=["failed"])
    assert [run["logical_date"] for run in failed] == [falcon_time(runs[2])]
    assert airflow_listings.dag_runs("no_such_dag", first=None, last=None, states=None) == []


def test_task_instances_are_read_as_the_rest_api_lists_them(core_api: TestClient, runs: list[datetime]) -> None:
    listed = rest(core_api, "dagRuns/~/taskInstances", order_by="id", logical_date_gte=falcon_time(runs[0]),
                  logical_date_lte=falcon_time(runs[2]))["task_instances"]
    read = airflow_listings.runs_task_instances(DAG_ID, first=runs[0], last=runs[2])
    assert len(read) == len(listed) == 9
    for ours, theirs in zip(read, listed, strict=True):
        assert ours == {key: theirs[key] for key in ours}
    states = {(ti["dag_run_id"], ti["task_id"]): ti["state"] for ti in read}
    failing = next(run for run, task in states if task == "second" and states[(run, task)] == "failed")
    assert states[(failing, "third")] == "upstream_failed"
    only_last = airflow_listings.runs_task_instances(DAG_ID, first=runs[2], last=runs[2])
    assert {ti["dag_run_id"] for ti in only_last} == {failing}


def test_dags_are_read_as_the_rest_api_lists_them(core_api: TestClient, runs: list[datetime]) -> None:
    response = core_api.get("/api/v2/dags", params={"dag_id_prefix_pattern": "listing_", "exclude_stale": "false",
                                                    "limit": 100})
    assert response.status_code == 200, response.text
    listed = response.json()["dags"]
    read = airflow_listings.dags("listing_")
    assert [dag["dag_id"] for dag in read] == [dag["dag_id"] for dag in listed] == [DAG_ID]
    assert read[0] == {key: listed[0][key] for key in read[0]}
    assert airflow_listings.dags("listing%") == []  # a prefix, not a pattern
