"""``instance`` against a real Airflow api-server: runs created through the REST API, their states mapped to
Falcon's, and kill, suspend, resume, rerun with their idempotency, logs, params, summary, listing, dependency."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from tests.builders import ops_feed, ops_process

from .harness import AirflowServer

pytestmark = pytest.mark.xdist_group("airflow-api")

DAG = "falcon.process.i-count.east"
LATEST = "falcon.process.i-latest.east"
TIMEOUT_LOG = [{"timestamp": "2026-04-02T03:00:00Z", "level": "error", "event": "Task failed with exception",
                "error_detail": [{"exc_type": "AirflowSensorTimeout",
                                  "exc_value": "TIMEDOUT: input input (feed i-logs) still misses 1 instance(s)"}]}]


def at(day: int, hour: int) -> datetime:
    return datetime(2026, 4, day, hour, tzinfo=UTC)


def window(day: int) -> tuple[str, ...]:
    return ("-start", f"2026-04-{day:02d}T00:00Z", "-end", f"2026-04-{day:02d}T23:00Z")


@pytest.fixture(scope="module")
def pipeline(server: AirflowServer) -> AirflowServer:
    for kind, name, xml in (("feed", "i-logs", ops_feed("i-logs")), ("feed", "i-counts", ops_feed("i-counts")),
                            ("process", "i-count", ops_process("i-count", "i-logs", "i-counts", timeout="hours(1)")),
                            ("process", "i-latest", ops_process("i-latest", "i-logs", "i-logs", order="LAST_ONLY",
                                                                timeout="hours(1)"))):
        code, _, err = server.run("entity", "-submit", "-type", kind, "-file",
                                  str(server.draft(f"{name}.xml", xml)))
        assert code == 0, err
    server.reserialize()
    return server


def trigger(server: AirflowServer, dag_id: str, moment: datetime) -> str:
    return str(server.client().trigger(dag_id, moment)["dag_run_id"])


def statuses(document: dict[str, Any]) -> list[tuple[str, str]]:
    return [(item["instance"], item["status"]) for item in document["instances"]]


def instance(server: AirflowServer, *argv: str, name: str = "i-count", kind: str = "process") -> dict[str, Any]:
    code, document = server.json("instance", *argv, "-type", kind, "-name", name)
    assert code == 0, document
    return document


def tasks(server: AirflowServer, run_id: str, dag_id: str = DAG) -> dict[str, str | None]:
    return {ti["task_id"]: ti["state"] for ti in server.client().task_instances(dag_id, run_id)}


def test_airflow_states_map_to_falcons(pipeline: AirflowServer) -> None:
    server, client = pipeline, pipeline.client()
    trigger(server, DAG, at(2, 1))  # queued, nothing started: WAITING
    ready = trigger(server, DAG, at(2, 2))
    client.set_task_state(DAG, ready, "wait_for_input", "success")  # input there, workflow not started: READY
    running = trigger(server, DAG, at(2, 3))
    server.worker(DAG, running, run_state="running", tasks={"wait_for_input": ("success", 1),
                                                             "clear_outputs": ("success", 1),
                                                             "workflow": ("running", 1)})
    done = trigger(server, DAG, at(2, 4))
    client.patch_run(DAG, done, state="success")
    failed = trigger(server, DAG, at(2, 5))
    server.worker(DAG, failed, run_state="failed", tasks={
        "wait_for_input": ("success", 1), "clear_outputs": ("success", 1), "workflow": ("failed", 2),
        "mark_outputs_available": ("upstream_failed", 0)})
    timed_out = trigger(server, DAG, at(2, 6))
    server.worker(DAG, timed_out, run_state="failed", tasks={
        "wait_for_input": ("failed", 1), "clear_outputs": ("upstream_failed", 0), "workflow": ("upstream_failed", 0),
        "mark_outputs_available": ("upstream_failed", 0)})
    server.write_log(DAG, timed_out, "wait_for_input", 1, TIMEOUT_LOG)
    marked = trigger(server, DAG, at(2, 7))
    client.patch_run(DAG, marked, state="failed")  # "Mark failed" in the UI
    skipped = trigger(server, LATEST, at(2, 1))
    client.set_task_state(LATEST, skipped, "last_only", "skipped")
    client.patch_run(LATEST, skipped, state="success")

    document = instance(server, "-status", *window(2))

    assert statuses(document) == [
        ("2026-04-02T01:00Z", "WAITING"), ("2026-04-02T02:00Z", "READY"), ("2026-04-02T03:00Z", "RUNNING"),
        ("2026-04-02T04:00Z", "SUCCEEDED"), ("2026-04-02T05:00Z", "FAILED"), ("2026-04-02T06:00Z", "TIMEDOUT"),
        ("2026-04-02T07:00Z", "KILLED")]
    by_time = {item["instance"]: item for item in document["instances"]}
    assert by_time["2026-04-02T05:00Z"]["runId"] == 1  # the workflow's second try
    assert by_time["2026-04-02T06:00Z"]["details"] == "wait_for_input timed out"
    assert statuses(instance(server, "-status", *window(2), name="i-latest")) == [("2026-04-02T01:00Z", "SKIPPED")]
    assert statuses(instance(server, "-running")) == [("2026-04-02T03:00Z", "RUNNING")]
    assert statuses(instance(server, "-status", *window(2), "-filterBy", "STATUS:FAILED,STATUS:KILLED")) == [
        ("2026-04-02T05:00Z", "FAILED"), ("2026-04-02T07:00Z", "KILLED")]

    summary = instance(server, "-summary", *window(2))
    assert summary["instancesSummary"] == [{"cluster": "east", "map": {
        "FAILED": 1, "KILLED": 1, "READY": 1, "RUNNING": 1, "SUCCEEDED": 1, "TIMEDOUT": 1, "WAITING": 1}}]

    listed = instance(server, "-list", "-start", "2026-04-02T05:00Z", "-end", "2026-04-02T05:00Z")
    assert [(action["action"], action["status"]) for action in listed["instances"][0]["actions"]] == [
        ("wait_for_input", "SUCCESS"), ("clear_outputs", "SUCCESS"), ("workflow", "FAILED"),
        ("mark_outputs_available", "UPSTREAM_FAILED")]

    logs = instance(server, "-logs", "-start", "2026-04-02T06:00Z", "-end", "2026-04-02T06:00Z", "--text")
    sensor = next(action for action in logs["instances"][0]["actions"] if action["action"] == "wait_for_input")
    assert sensor["logFile"].endswith("/tasks/wait_for_input?try_number=1")
    assert any("AirflowSensorTimeout" in line or "Task failed with exception" in line for line in sensor["log"])
    code, out, _ = server.run("instance", "-logs", "-type", "process", "-name", "i-count", "-start",
                              "2026-04-02T06:00Z", "-end", "2026-04-02T06:00Z")
    assert code == 0 and "wait_for_input (try 1, FAILED): http://127.0.0.1:" in out


def test_kill_suspend_resume_rerun_and_doing_them_again(pipeline: AirflowServer) -> None:
    server = pipeline
    running = trigger(server, DAG, at(3, 1))
    server.worker(DAG, running, run_state="running", tasks={"wait_for_input": ("success", 1),
                                                             "clear_outputs": ("success", 1),
                                                             "workflow": ("running", 1)})
    one = ("-start", "2026-04-03T01:00Z", "-end", "2026-04-03T01:00Z")
    killed = instance(server, "-kill", *one)
    assert statuses(killed) == [("2026-04-03T01:00Z", "KILLED")]
    assert killed["instances"][0]["runId"] == 0
    assert tasks(server, running)["workflow"] == "failed"  # the running task is stopped
    again = instance(server, "-kill", *one)
    assert (again["status"], statuses(again)) == ("SUCCEEDED", [("2026-04-03T01:00Z", "KILLED")])
    run = server.client().run(DAG, running)
    assert run is not None and run["note"].startswith("[falcon-airflow] KILLED by admin ")  # the Airflow user

    waiting = trigger(server, DAG, at(3, 2))
    two = ("-start", "2026-04-03T02:00Z", "-end", "2026-04-03T02:00Z")
    for _ in range(2):
        assert statuses(instance(server, "-suspend", *two)) == [("2026-04-03T02:00Z", "SUSPENDED")]
    resumed = instance(server, "-resume", *two)
    assert statuses(resumed) == [("2026-04-03T02:00Z", "WAITING")]
    assert resumed["instances"][0]["details"] == "resumed"
    assert set(tasks(server, waiting).values()) == {None}
    run = server.client().run(DAG, waiting)
    assert run is not None and run["state"] == "queued" and not run["note"]
    assert instance(server, "-resume", *two)["instances"][0]["details"] == "unchanged"

    rerun = instance(server, "-rerun", *one)  # the killed one: from its unfinished tasks
    assert statuses(rerun) == [("2026-04-03T01:00Z", "READY")]
    assert rerun["instances"][0]["details"] == "rerun (from the failed tasks)"
    assert rerun["instances"][0]["runId"] == 1  # Falcon's run number counts the rerun before the scheduler runs it
    assert tasks(server, running) == {"wait_for_input": "success", "clear_outputs": None, "workflow": None,
                                      "mark_outputs_available": None}
    again = instance(server, "-rerun", *one)
    assert again["status"] == "SUCCEEDED"
    assert again["instances"][0]["details"] == "not rerun: READY is not a terminal state (-force reruns it)"
    forced = instance(server, "-rerun", "-force", *one)
    assert forced["instances"][0]["details"] == "rerun (every task)"
    assert set(tasks(server, running).values()) == {None}


def test_rerun_of_a_timed_out_instance_waits_for_its_input_again(pipeline: AirflowServer) -> None:
    server = pipeline
    timed_out = trigger(server, DAG, at(4, 1))
    server.worker(DAG, timed_out, run_state="failed", tasks={
        "wait_for_input": ("failed", 1), "clear_outputs": ("upstream_failed", 0), "workflow": ("upstream_failed", 0),
        "mark_outputs_available": ("upstream_failed", 0)})
    server.write_log(DAG, timed_out, "wait_for_input", 1, TIMEOUT_LOG)
    assert statuses(instance(server, "-status", *window(4))) == [("2026-04-04T01:00Z", "TIMEDOUT")]
    document = instance(server, "-rerun", *window(4))
    assert statuses(document) == [("2026-04-04T01:00Z", "WAITING")]
    assert document["instances"][0]["runId"] == 0  # its workflow never ran: the first run is still to come
    assert set(tasks(server, timed_out).values()) == {None}


def test_params_dependency_and_listing(pipeline: AirflowServer) -> None:
    server = pipeline
    trigger(server, DAG, at(5, 1))
    params = instance(server, "-params", "-start", "2026-04-05T01:00Z")["instances"][0]
    assert params["params"]["nominalTime"] == "2026-04-05T01:00Z"
    assert params["params"]["falcon"]["outputs"][0]["path"].endswith("/east/i-counts/2026/04/05/01")
    assert params["dagId"] == DAG

    dependencies = instance(server, "-dependency", "-instanceTime", "2026-04-05T01:00Z")["dependencies"]
    assert [(item["tags"], item["entityName"]) for item in dependencies] == [("Input", "i-logs"),
                                                                             ("Output", "i-counts")]
    feed = instance(server, "-dependency", "-instanceTime", "2026-04-05T01:00Z", name="i-logs", kind="feed")
    assert sorted((item["tags"], item["entityName"]) for item in feed["dependencies"]) == [
        ("Input", "i-count"), ("Input", "i-latest"), ("Output", "i-latest")]

    folder = server.storage / "east" / "i-logs" / "2026" / "04" / "05" / "01"
    folder.mkdir(parents=True)
    (folder / "part-0").write_text("x")
    retention = trigger(server, "falcon.feed.i-logs.retention.east", at(5, 0))  # the feed is deployed: instances
    server.client().patch_run("falcon.feed.i-logs.retention.east", retention, state="success")  # from it on count
    listing = instance(server, "-listing", "-start", "2026-04-05T01:00Z", "-end", "2026-04-05T02:00Z",
                       name="i-logs", kind="feed")
    assert [(item["instance"], item["status"]) for item in listing["instances"]] == [
        ("2026-04-05T01:00Z", "PARTIAL"), ("2026-04-05T02:00Z", "MISSING")]
    (folder / "_DONE").write_text("")
    listing = instance(server, "-listing", "-start", "2026-04-05T01:00Z", "-end", "2026-04-05T01:00Z",
                       name="i-logs", kind="feed")
    assert listing["instances"][0]["status"] == "AVAILABLE"


def test_feed_lifecycles_select_retention_or_replication(pipeline: AirflowServer) -> None:
    server = pipeline
    retention = trigger(server, "falcon.feed.i-logs.retention.east", at(6, 0))
    server.client().patch_run("falcon.feed.i-logs.retention.east", retention, state="success")
    assert instance(server, "-status", *window(6), name="i-logs", kind="feed")["instances"] == []  # REPLICATION
    eviction = instance(server, "-status", *window(6), "-lifecycle", "EVICTION", name="i-logs", kind="feed")
    assert [(item["lifecycle"], item["status"]) for item in eviction["instances"]] == [("EVICTION", "SUCCEEDED")]
    code, _, err = server.run("instance", "-status", "-type", "feed", "-name", "i-logs", "-lifecycle", "EXECUTION")
    assert (code, err.strip()) == (1, "ERROR: Incorrect lifecycle: EXECUTION for given type: feed")
