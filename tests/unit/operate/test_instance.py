"""Instance operations against an in-memory Airflow: windows, statuses, kill/suspend/resume/rerun and their
idempotency, logs, params, listing and dependencies."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from tests.builders import ops_cluster, ops_feed, ops_process

from falcon_airflow.operate.airflow_api import AirflowError

from .helpers import FakeRun, Kit

DAG = "falcon.process.count.east"
T3 = datetime(2026, 5, 1, 3, tzinfo=UTC)
T4 = datetime(2026, 5, 1, 4, tzinfo=UTC)
T5 = datetime(2026, 5, 1, 5, tzinfo=UTC)
WINDOW = ("-start", "2026-05-01T00:00Z", "-end", "2026-05-01T10:00Z")


def instance(kit: Kit, action: str, *extra: str, name: str = "count", kind: str = "process") -> dict[str, Any]:
    code, document = kit.json("instance", action, "-type", kind, "-name", name, *extra)
    assert code in (0, 1), document
    return document


def statuses(document: dict[str, Any]) -> list[tuple[str, str]]:
    return [(item["instance"], item["status"]) for item in document["instances"]]


def running_workflow(kit: Kit, moment: datetime) -> FakeRun:
    run = kit.airflow.add_run(DAG, moment, state="running")
    kit.airflow.set_tis(run, wait_for_input="success", clear_outputs="success", workflow="running")
    return run


def failed_workflow(kit: Kit, moment: datetime) -> FakeRun:
    run = kit.airflow.add_run(DAG, moment, state="failed")
    kit.airflow.set_tis(run, wait_for_input="success", clear_outputs="success", workflow="failed",
                        mark_outputs_available="upstream_failed")
    return run


def test_status_maps_each_run_to_falcons_status(pipeline: Kit) -> None:
    done = pipeline.airflow.add_run(DAG, T3, state="success")
    pipeline.airflow.set_tis(done, wait_for_input="success", clear_outputs="success", workflow="success",
                             mark_outputs_available="success")
    running_workflow(pipeline, T4)
    pipeline.airflow.add_run(DAG, T5)

    document = instance(pipeline, "-status", *WINDOW)

    assert document["status"] == "SUCCEEDED"
    assert statuses(document) == [("2026-05-01T03:00Z", "SUCCEEDED"), ("2026-05-01T04:00Z", "RUNNING"),
                                  ("2026-05-01T05:00Z", "WAITING")]
    first = document["instances"][0]
    assert first["cluster"] == "east" and first["dagId"] == DAG and first["lifecycle"] == "EXECUTION"
    assert first["logFile"] == f"http://airflow.test/dags/{DAG}/runs/{done.run_id}"


def test_without_start_the_newest_instances_come_first(pipeline: Kit) -> None:
    for moment in (T3, T4):
        pipeline.airflow.add_run(DAG, moment)
    document = instance(pipeline, "-status", "-end", "2026-05-01T10:00Z")
    assert [item["instance"] for item in document["instances"]] == ["2026-05-01T04:00Z", "2026-05-01T03:00Z"]
    document = instance(pipeline, "-status", "-end", "2026-05-01T04:30Z", "-numResults", "1")
    assert [item["instance"] for item in document["instances"]] == ["2026-05-01T04:00Z"]


def test_the_latest_run_stands_for_an_instance_unless_all_attempts(pipeline: Kit) -> None:
    failed_workflow(pipeline, T3)
    pipeline.airflow.add_run(DAG, T3)
    assert statuses(instance(pipeline, "-status", *WINDOW)) == [("2026-05-01T03:00Z", "WAITING")]
    assert statuses(instance(pipeline, "-list", *WINDOW, "-allAttempts")) == [
        ("2026-05-01T03:00Z", "FAILED"), ("2026-05-01T03:00Z", "WAITING")]


def test_filter_order_and_page(pipeline: Kit) -> None:
    failed_workflow(pipeline, T3)
    running_workflow(pipeline, T4)
    failed_workflow(pipeline, T5)
    assert statuses(instance(pipeline, "-status", *WINDOW, "-filterBy", "STATUS:failed")) == [
        ("2026-05-01T03:00Z", "FAILED"), ("2026-05-01T05:00Z", "FAILED")]
    assert statuses(instance(pipeline, "-status", *WINDOW, "-orderBy", "status", "-sortOrder", "desc",
                             "-offset", "1", "-numResults", "1")) == [("2026-05-01T03:00Z", "FAILED")]


def test_the_window_follows_falcons_rules(pipeline: Kit) -> None:
    code, _, err = pipeline.run("instance", "-status", "-type", "process", "-name", "count", "-start",
                                "2026-05-02T00:00Z", "-end", "2026-05-01T00:00Z")
    assert (code, err.strip()) == (1, "ERROR: Specified End date 2026-05-01T00:00Z is before the entity was "
                                      "scheduled 2026-05-02T00:00Z")
    code, _, err = pipeline.run("instance", "-kill", "-type", "process", "-name", "count", "-end", "2026-05-01T00:00Z")
    assert (code, err.strip()) == (2, "ERROR: Missing argument : start")
    code, _, err = pipeline.run("instance", "-status", "-type", "process", "-name", "nothing")
    assert (code, err.strip()) == (1, "ERROR: nothing (process) not found")


def test_kill_marks_the_run_failed_and_is_idempotent(pipeline: Kit) -> None:
    run = running_workflow(pipeline, T4)
    document = instance(pipeline, "-kill", "-start", "2026-05-01T04:00Z", "-end", "2026-05-01T04:00Z")
    assert statuses(document) == [("2026-05-01T04:00Z", "KILLED")]
    assert document["instances"][0]["details"] == "killed"
    assert pipeline.airflow.states(run)["workflow"] == "failed"  # the running task is stopped
    assert pipeline.airflow.states(run)["mark_outputs_available"] == "skipped"

    calls = len(pipeline.airflow.calls)
    again = instance(pipeline, "-kill", "-start", "2026-05-01T04:00Z", "-end", "2026-05-01T04:00Z")
    assert again["status"] == "SUCCEEDED"
    assert statuses(again) == [("2026-05-01T04:00Z", "KILLED")]
    assert not [call for call in pipeline.airflow.calls[calls:] if call.startswith(("patch_run", "clear"))]


def test_a_kill_airflow_refuses_fails_saying_why_in_its_message(pipeline: Kit,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    running_workflow(pipeline, T4)

    def refused(*args: object, **kwargs: object) -> None:
        raise AirflowError("409 Conflict: the run is being changed by another request", 409)

    monkeypatch.setattr(pipeline.airflow, "patch_run", refused)
    document = instance(pipeline, "-kill", "-start", "2026-05-01T04:00Z", "-end", "2026-05-01T04:00Z")
    assert document["status"] == "FAILED", document
    assert document["message"] == ("kill of (process) count from 2026-05-01T04:00Z to 2026-05-01T04:00Z: kill "
                                   "failed: 409 Conflict: the run is being changed by another request")


def test_kill_leaves_finished_instances_alone(pipeline: Kit) -> None:
    failed_workflow(pipeline, T3)
    document = instance(pipeline, "-kill", *WINDOW)
    assert statuses(document) == [("2026-05-01T03:00Z", "FAILED")]
    assert document["instances"][0]["details"] == "unchanged"


def test_suspend_and_resume_continue_where_the_instance_stopped(pipeline: Kit) -> None:
    run = running_workflow(pipeline, T4)
    run.note = "looked at by ops"
    assert statuses(instance(pipeline, "-suspend", *WINDOW)) == [("2026-05-01T04:00Z", "SUSPENDED")]
    assert statuses(instance(pipeline, "-suspend", *WINDOW)) == [("2026-05-01T04:00Z", "SUSPENDED")]
    assert statuses(instance(pipeline, "-status", *WINDOW)) == [("2026-05-01T04:00Z", "SUSPENDED")]

    document = instance(pipeline, "-resume", *WINDOW)

    assert statuses(document) == [("2026-05-01T04:00Z", "READY")]
    assert document["instances"][0]["details"] == "resumed"
    assert pipeline.airflow.states(run) == {"wait_for_input": "success", "clear_outputs": None, "workflow": None,
                                            "mark_outputs_available": None}
    assert run.note == "looked at by ops"
    again = instance(pipeline, "-resume", *WINDOW)
    assert again["instances"][0]["details"] == "unchanged"


def test_a_suspended_instance_can_be_killed(pipeline: Kit) -> None:
    running_workflow(pipeline, T4)
    instance(pipeline, "-suspend", *WINDOW)
    assert statuses(instance(pipeline, "-kill", *WINDOW)) == [("2026-05-01T04:00Z", "KILLED")]
    assert instance(pipeline, "-resume", *WINDOW)["instances"][0]["details"].startswith("[falcon-airflow] KILLED")


def test_resume_is_refused_in_safemode(pipeline: Kit) -> None:
    pipeline.run("admin", "-setsafemode", "true")
    code, _, err = pipeline.run("instance", "-resume", "-type", "process", "-name", "count", *WINDOW)
    assert (code, err.strip()) == (1, "ERROR: Instance operation RESUME cannot be performed when server is in "
                                      "safemode")
    assert pipeline.run("instance", "-kill", "-type", "process", "-name", "count", *WINDOW)[0] == 0


def test_rerun_resumes_a_failed_instance_from_its_failed_tasks_with_clear_outputs(pipeline: Kit) -> None:
    run = failed_workflow(pipeline, T3)
    document = instance(pipeline, "-rerun", *WINDOW)
    assert statuses(document) == [("2026-05-01T03:00Z", "READY")]
    assert document["instances"][0]["details"] == "rerun (from the failed tasks)"
    assert pipeline.airflow.states(run) == {"wait_for_input": "success", "clear_outputs": None, "workflow": None,
                                            "mark_outputs_available": None}
    again = instance(pipeline, "-rerun", *WINDOW)
    assert again["status"] == "SUCCEEDED"
    assert again["instances"][0]["details"] == "not rerun: READY is not a terminal state (-force reruns it)"


def test_run_id_counts_a_rerun_as_soon_as_it_is_asked_for(pipeline: Kit) -> None:
    """Falcon's RunId: the Oozie workflow's run number, one more per rerun or retry."""
    run = failed_workflow(pipeline, T3)

    def run_ids() -> list[int]:
        return [item["runId"] for item in instance(pipeline, "-status", *WINDOW)["instances"]]

    assert run_ids() == [0]
    assert [item["runId"] for item in instance(pipeline, "-rerun", *WINDOW)["instances"]] == [1]
    assert run_ids() == [1]  # the scheduler has not begun the new try yet
    work = pipeline.airflow.tis[(DAG, run.run_id)]["workflow"]
    work.update(state="running", try_number=2)  # the scheduler begins it: Airflow counts the try now
    assert run_ids() == [1]
    work.update(state="running", try_number=3)  # a retry of that run
    assert run_ids() == [2]
    run.state = "failed"
    pipeline.airflow.set_tis(run, workflow="failed", mark_outputs_available="upstream_failed")
    assert [item["runId"] for item in instance(pipeline, "-rerun", *WINDOW)["instances"]] == [3]
    code, text, _ = pipeline.run("instance", "-status", "-type", "process", "-name", "count", *WINDOW)
    header = next(line for line in text.splitlines() if line.startswith("Instance "))
    row = next(line for line in text.splitlines() if line.startswith("2026-05-01T03:00Z"))
    assert code == 0 and row[header.index("RunId"):].split()[0] == "3"


def test_rerun_of_a_succeeded_instance_runs_it_all_again(pipeline: Kit) -> None:
    run = pipeline.airflow.add_run(DAG, T3, state="success")
    pipeline.airflow.set_tis(run, wait_for_input="success", clear_outputs="success", workflow="success",
                             mark_outputs_available="success")
    assert instance(pipeline, "-rerun", *WINDOW)["instances"][0]["details"] == "rerun (every task)"
    assert set(pipeline.airflow.states(run).values()) == {None}


def test_force_reruns_any_instance_and_every_task(pipeline: Kit) -> None:
    run = running_workflow(pipeline, T4)
    document = instance(pipeline, "-rerun", "-force", *WINDOW)
    assert document["instances"][0]["details"] == "rerun (every task)"
    assert set(pipeline.airflow.states(run).values()) == {None}


def test_rerun_with_properties_is_refused(pipeline: Kit, tmp_path: Path) -> None:
    code, _, err = pipeline.run("instance", "-rerun", "-type", "process", "-name", "count", *WINDOW, "-file",
                                str(tmp_path / "job.properties"))
    assert code == 1 and "not supported on Airflow" in err


def test_a_sensor_that_timed_out_makes_the_instance_timedout(pipeline: Kit) -> None:
    run = pipeline.airflow.add_run(DAG, T3, state="failed")
    pipeline.airflow.set_tis(run, wait_for_input="failed", clear_outputs="upstream_failed",
                             workflow="upstream_failed", mark_outputs_available="upstream_failed")
    pipeline.airflow.logs[(DAG, run.run_id, "wait_for_input", 1)] = [
        {"event": "Task failed with exception", "error_detail": [{"exc_type": "AirflowSensorTimeout",
                                                                  "exc_value": "TIMEDOUT: input input"}]}]
    document = instance(pipeline, "-status", *WINDOW)
    assert statuses(document) == [("2026-05-01T03:00Z", "TIMEDOUT")]
    assert document["instances"][0]["details"] == "wait_for_input timed out"
    assert instance(pipeline, "-rerun", *WINDOW)["instances"][0]["details"] == "rerun (from the failed tasks)"
    assert set(pipeline.airflow.states(run).values()) == {None}


def test_a_run_marked_failed_in_the_ui_is_killed(pipeline: Kit) -> None:
    run = running_workflow(pipeline, T4)
    pipeline.airflow.patch_run(DAG, run.run_id, state="failed")  # "Mark failed" in the UI
    assert statuses(instance(pipeline, "-status", *WINDOW)) == [("2026-05-01T04:00Z", "KILLED")]


def test_last_only_skips_are_skipped(pipeline: Kit) -> None:
    pipeline.airflow.add_dag("falcon.process.latest.east", ("wait_for_input", "last_only", "workflow"))
    pipeline.write("processes/latest.xml", (pipeline.root / "processes" / "count.xml").read_text()
                   .replace('name="count"', 'name="latest"').replace("<name>count", "<name>latest"))
    run = pipeline.airflow.add_run("falcon.process.latest.east", T3, state="success")
    pipeline.airflow.set_tis(run, wait_for_input="success", last_only="skipped", workflow="skipped")
    assert statuses(instance(pipeline, "-status", *WINDOW, name="latest")) == [("2026-05-01T03:00Z", "SKIPPED")]


def test_lifecycles_choose_the_feed_dags(pipeline: Kit) -> None:
    pipeline.airflow.add_run("falcon.feed.counts.replication.east.west", T3)
    retention = pipeline.airflow.add_run("falcon.feed.counts.retention.west", T4, state="success")
    pipeline.airflow.set_tis(retention, retention="success")

    default = instance(pipeline, "-status", *WINDOW, name="counts", kind="feed")
    assert [(item["lifecycle"], item["cluster"], item["sourceCluster"]) for item in default["instances"]] == [
        ("REPLICATION", "west", "east")]
    eviction = instance(pipeline, "-status", *WINDOW, "-lifecycle", "eviction", name="counts", kind="feed")
    assert [(item["lifecycle"], item["cluster"], item["status"]) for item in eviction["instances"]] == [
        ("EVICTION", "west", "SUCCEEDED")]
    both = instance(pipeline, "-status", *WINDOW, "-lifecycle", "EVICTION,REPLICATION", name="counts", kind="feed")
    assert len(both["instances"]) == 2
    _, text, _ = pipeline.run("instance", "-status", "-type", "feed", "-name", "counts", *WINDOW, "-lifecycle",
                              "EVICTION,REPLICATION")
    table = text.splitlines()[3:]
    assert table[0].split()[:3] == ["Instance", "Lifecycle", "Cluster"]
    assert sorted(line.split()[1] for line in table[2:]) == ["EVICTION", "REPLICATION"]
    killed = instance(pipeline, "-kill", *WINDOW, "-sourceClusters", "nowhere", name="counts", kind="feed")
    assert killed["instances"] == []
    by_colo = instance(pipeline, "-status", *WINDOW, "-colo", "there", "-lifecycle", "eviction", name="counts",
                       kind="feed")
    assert [item["cluster"] for item in by_colo["instances"]] == ["west"]


def test_running_lists_running_instances_only(pipeline: Kit) -> None:
    running_workflow(pipeline, T4)
    pipeline.airflow.add_run(DAG, T5)
    assert statuses(instance(pipeline, "-running")) == [("2026-05-01T04:00Z", "RUNNING")]


def test_summary_counts_statuses_per_cluster(pipeline: Kit) -> None:
    failed_workflow(pipeline, T3)
    failed_workflow(pipeline, T4)
    running_workflow(pipeline, T5)
    document = instance(pipeline, "-summary", *WINDOW)
    assert document["instancesSummary"] == [{"cluster": "east", "map": {"FAILED": 2, "RUNNING": 1}}]
    filtered = instance(pipeline, "-summary", *WINDOW, "-filterBy", "STATUS:RUNNING")
    assert filtered["instancesSummary"] == [{"cluster": "east", "map": {"RUNNING": 1}}]


def test_logs_give_links_and_text(pipeline: Kit) -> None:
    run = failed_workflow(pipeline, T3)
    pipeline.airflow.logs[(DAG, run.run_id, "workflow", 1)] = [{"timestamp": "t", "level": "error",
                                                               "event": "spark-submit failed"}]
    document = instance(pipeline, "-logs", *WINDOW, "--text")
    (item,) = document["instances"]
    workflow = next(action for action in item["actions"] if action["action"] == "workflow")
    assert workflow["logFile"] == f"http://airflow.test/dags/{DAG}/runs/{run.run_id}/tasks/workflow?try_number=1"
    assert workflow["log"] == ["t error spark-submit failed"]
    _code, out, _ = pipeline.run("instance", "-logs", "-type", "process", "-name", "count", *WINDOW, "-runid", "5")
    assert "(no log for this run)" in out


def test_params_show_what_the_instance_ran_with(pipeline: Kit) -> None:
    pipeline.airflow.add_run(DAG, T3)
    document = instance(pipeline, "-params", "-start", "2026-05-01T03:00Z")
    (item,) = document["instances"]
    params = item["params"]
    assert params["nominalTime"] == "2026-05-01T03:00Z"
    assert params["falcon"]["inputs"][0]["paths"] == ["file:///tmp/falcon-airflow-unit/east/logs/2026/05/01/03"]
    code, _, err = pipeline.run("instance", "-params", "-type", "process", "-name", "count")
    assert (code, err.strip()) == (2, "ERROR: Missing argument : start")
    code, _, err = pipeline.run("instance", "-params", "-type", "feed", "-name", "counts", "-start",
                                "2026-05-01T03:00Z", "-lifecycle", "EVICTION,REPLICATION")
    assert err.strip() == "ERROR: For displaying wf-params there can't be more than one lifecycle [EVICTION, " \
                          "REPLICATION]"


def test_dependency_of_process_and_feed_instances(pipeline: Kit) -> None:
    document = instance(pipeline, "-dependency", "-instanceTime", "2026-05-01T03:00Z")
    assert [(item["tags"], item["entityName"], item["instanceTime"]) for item in document["dependencies"]] == [
        ("Input", "logs", "2026-05-01T03:00Z"), ("Output", "counts", "2026-05-01T03:00Z")]
    feed = instance(pipeline, "-dependency", "-instanceTime", "2026-05-01T03:00Z", name="counts", kind="feed")
    assert [(item["tags"], item["entityName"]) for item in feed["dependencies"]] == [("Output", "count")]
    code, _, err = pipeline.run("instance", "-dependency", "-type", "process", "-name", "count")
    assert (code, err.strip()) == (2, "ERROR: Missing argument : instanceTime")
    code, _, err = pipeline.run("instance", "-dependency", "-type", "process", "-name", "count", "-instanceTime",
                                "2026-05-01T03:30Z")
    assert code == 1 and "is not an instance of process 'count'" in err


def test_listing_tells_feed_instances_available_partial_missing(kit: Kit, tmp_path: Path) -> None:
    storage = tmp_path / "data"
    kit.write("clusters/east.xml", ops_cluster("east", storage=str(storage)))
    kit.write("feeds/logs.xml", ops_feed("logs"))
    base = storage / "east" / "logs" / "2026" / "05" / "01"
    (base / "03").mkdir(parents=True)
    (base / "03" / "part-0").write_text("data")
    (base / "03" / "_DONE").write_text("")
    (base / "04").mkdir()
    (base / "04" / "part-0").write_text("data")
    kit.airflow.add_dag("falcon.feed.logs.retention.east", ("retention",))
    kit.airflow.add_run("falcon.feed.logs.retention.east", T3, state="success")

    document = instance(kit, "-listing", "-start", "2026-05-01T03:00Z", "-end", "2026-05-01T05:00Z", name="logs",
                        kind="feed")

    assert [(item["instance"], item["status"]) for item in document["instances"]] == [
        ("2026-05-01T03:00Z", "AVAILABLE"), ("2026-05-01T04:00Z", "PARTIAL"), ("2026-05-01T05:00Z", "MISSING")]
    code, text, _ = kit.run("instance", "-listing", "-type", "feed", "-name", "logs", "-start", "2026-05-01T03:00Z",
                            "-end", "2026-05-01T05:00Z")
    lines = text.splitlines()
    assert lines[0].split() == ["Instance", "Cluster", "Status", "Size", "Created", "Path"]
    assert set(lines[1]) == {"-"} and len(lines) == 5
    starts = {line.index(line.split()[2]) for line in lines[2:]}
    assert len(starts) == 1, "the Status column is aligned"
    code, _, _err = kit.run("instance", "-listing", "-type", "process", "-name", "logs")
    assert code == 1


def test_listing_leaves_out_instances_before_the_feed_was_deployed(kit: Kit, tmp_path: Path) -> None:
    """Validity starts 2026-01-01, but nothing ran for the feed before its producer's first run: absent instances
    before it were never expected (as -status shows no run for them), present ones are still listed."""
    storage = tmp_path / "data"
    kit.write("clusters/east.xml", ops_cluster("east", storage=str(storage)))
    kit.write("feeds/raw.xml", ops_feed("raw"))
    kit.write("feeds/logs.xml", ops_feed("logs"))
    # the producer writes the previous hour's instance: its first run (04:00) makes logs 03:00
    kit.write("processes/make.xml", ops_process("make", feed="raw", output="logs").replace(
        'instance="now(0,0)"', 'instance="now(-1,0)"'))
    base = storage / "east" / "logs" / "2026" / "05" / "01"
    (base / "01").mkdir(parents=True)
    (base / "01" / "part-0").write_text("data")  # copied in by hand before the deployment
    (base / "01" / "_DONE").write_text("")
    window = ("-start", "2026-05-01T00:00Z", "-end", "2026-05-01T05:00Z")

    # nothing of the feed has run yet: no instance is expected, only data that is there is listed
    undeployed = instance(kit, "-listing", *window, name="logs", kind="feed")
    assert [(item["instance"], item["status"]) for item in undeployed["instances"]] == [
        ("2026-05-01T01:00Z", "AVAILABLE")]

    kit.airflow.add_dag("falcon.process.make.east")
    kit.airflow.add_run("falcon.process.make.east", T4, state="failed")
    kit.airflow.add_run("falcon.process.make.east", T5, state="running")
    document = instance(kit, "-listing", *window, name="logs", kind="feed")
    assert [(item["instance"], item["status"]) for item in document["instances"]] == [
        ("2026-05-01T01:00Z", "AVAILABLE"), ("2026-05-01T03:00Z", "MISSING"), ("2026-05-01T04:00Z", "MISSING"),
        ("2026-05-01T05:00Z", "MISSING")]
    code, text, _ = kit.run("instance", "-listing", "-type", "feed", "-name", "logs", *window)
    assert code == 0
    assert "east: 2 instance(s) without data before its first instance in Airflow (2026-05-01T03:00Z) are not " \
           "listed" in text

    # a retention run earlier than the producer's first run moves the deployment back
    kit.airflow.add_dag("falcon.feed.logs.retention.east", ("retention",))
    kit.airflow.add_run("falcon.feed.logs.retention.east", datetime(2026, 5, 1, 2, tzinfo=UTC), state="success")
    earlier = instance(kit, "-listing", *window, name="logs", kind="feed")
    assert [item["instance"] for item in earlier["instances"]][:3] == [
        "2026-05-01T01:00Z", "2026-05-01T02:00Z", "2026-05-01T03:00Z"]


@pytest.mark.parametrize("action", ["-kill", "-suspend", "-resume", "-rerun"])
def test_changes_on_an_empty_window_succeed(pipeline: Kit, action: str) -> None:
    code, out, _ = pipeline.run("instance", action, "-type", "process", "-name", "count", *WINDOW)
    assert code == 0
    assert "No instance of (process) count between 2026-05-01T00:00Z and 2026-05-01T10:00Z" in out


def test_a_kill_records_the_airflow_user_who_acted(pipeline: Kit, monkeypatch: pytest.MonkeyPatch) -> None:
    import base64
    import json as json_module

    from falcon_airflow.operate.context import Context, airflow_user
    from falcon_airflow.operate.settings import Settings

    run = running_workflow(pipeline, T4)
    monkeypatch.setenv("FALCON_AIRFLOW_USER", "alice")
    monkeypatch.setenv("FALCON_AIRFLOW_PASSWORD", "secret")
    instance(pipeline, "-kill", "-start", "2026-05-01T04:00Z", "-end", "2026-05-01T04:00Z")
    assert (run.note or "").startswith("[falcon-airflow] KILLED by alice at ")

    claims = base64.urlsafe_b64encode(json_module.dumps({"sub": "bob"}).encode()).decode().rstrip("=")
    settings = Settings(url="http://airflow.test", entities=pipeline.root, token=f"header.{claims}.signature")
    assert airflow_user(settings) == "bob"
    assert Context.create(settings, do_as="carol").user == "carol"
    assert airflow_user(Settings(url="http://airflow.test", entities=pipeline.root, token="opaque")) is None
