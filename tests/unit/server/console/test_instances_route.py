"""The console's process instances: state, run number, duration, each task's try with its log link in Airflow's UI,
read for the caller through instance -status and -logs (Airflow in memory)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from tests.unit.server.served import serve


def test_a_process_s_instances_with_their_tries_durations_and_log_links(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    served = serve(tmp_path, monkeypatch)
    monkeypatch.setattr("falcon_airflow.server.console.instances.airflow_client", lambda request: served.airflow)
    airflow = served.airflow
    done = airflow.add_run("falcon.process.count.east", datetime(2026, 3, 1, 5, tzinfo=UTC), state="success",
                           task_states={"wait_for_input": "success", "clear_outputs": "success",
                                        "workflow": "success", "mark_outputs_available": "success"})
    done.start_date, done.end_date = "2026-03-01T05:01:00Z", "2026-03-01T05:03:30Z"
    for task in airflow.tis[(done.dag_id, done.run_id)].values():
        task["try_number"] = 1
    client = served.client()
    client.cookies.set("_token", "ops")
    answer = client.get("/console/api/instances/process/count",
                        params={"start": "2026-03-01T00:00Z", "end": "2026-03-01T10:00Z"})
    assert answer.status_code == 200, answer.text
    (row,) = answer.json()["instances"]
    assert (row["instance"], row["cluster"], row["status"], row["duration"]) == (
        "2026-03-01T05:00Z", "east", "SUCCEEDED", 150.0)
    assert row["url"] == f"/dags/falcon.process.count.east/runs/{done.run_id}"  # Airflow's UI, on the page's origin
    tasks = {task["task"]: task for task in row["tasks"]}
    assert tasks["workflow"]["try"] == 1 and tasks["workflow"]["log"].startswith(
        f"/dags/falcon.process.count.east/runs/{done.run_id}/tasks/workflow")
    wrong = client.get("/console/api/instances/process/count", params={"start": "yesterday"})
    assert wrong.status_code == 400 and "yesterday" in wrong.json()["error"]
    assert client.get("/console/api/instances/cluster/east").status_code == 400
