"""``entity`` and ``admin`` against a real Airflow api-server: submit, schedule, suspend, resume, update with its
cascade, delete, their idempotency and refusals, and the journal completing or undoing an interrupted action."""

from __future__ import annotations

import contextlib
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.builders import ops_feed, ops_process

from falcon_airflow.operate import entity_actions as entity
from falcon_airflow.operate.journal import Journal
from falcon_airflow.provider.info import get_provider_info

from .harness import AIRFLOW, AirflowServer

pytestmark = pytest.mark.xdist_group("airflow-api")


def submit(server: AirflowServer, kind: str, name: str, xml: str) -> None:
    code, out, err = server.run("entity", "-submit", "-type", kind, "-file", str(server.draft(f"{name}.xml", xml)))
    assert (code, out.strip()) == (0, f"Submit successful ({kind}) {name}"), err


def paused(server: AirflowServer, dag_id: str) -> bool | None:
    dag = server.client().dag(dag_id)
    return None if dag is None else bool(dag["is_paused"])


def status(server: AirflowServer, kind: str, name: str) -> str:
    code, out, err = server.run("entity", "-status", "-type", kind, "-name", name)
    assert code == 0, err
    return out.strip()


@contextlib.contextmanager
def crash_at(action: str, step: str, error: type[BaseException] = KeyboardInterrupt) -> Iterator[None]:
    """The block's command dies when it reaches ``step`` of ``action`` (as a killed process would)."""

    def boom(context: Any, journal: Journal) -> None:
        raise error(f"killed before {step}")

    with pytest.MonkeyPatch.context() as patch, pytest.raises(error):
        patch.setitem(entity.ACTIONS[action].do, step, boom)  # type: ignore[arg-type]
        yield


def test_submit_schedule_suspend_resume_and_what_is_refused(server: AirflowServer) -> None:
    submit(server, "feed", "a-logs", ops_feed("a-logs"))
    submit(server, "feed", "a-counts", ops_feed("a-counts"))
    submit(server, "process", "a-count", ops_process("a-count", "a-logs", "a-counts", timeout="hours(1)"))
    assert status(server, "process", "a-count") == "SUBMITTED"  # not parsed by Airflow yet
    server.reserialize()
    dag = "falcon.process.a-count.east"
    assert paused(server, dag) is True
    assert status(server, "process", "a-count") == "SUBMITTED"

    for _ in range(2):  # the second time changes nothing and still succeeds
        code, out, _ = server.run("entity", "-schedule", "-type", "process", "-name", "a-count")
        assert (code, out.strip()) == (0, "a-count(process) scheduled successfully")
        assert paused(server, dag) is False
    code, document = server.json("entity", "-status", "-type", "process", "-name", "a-count", "-showScheduler")
    assert document["message"] == "RUNNING (scheduled on airflow)"
    assert document["dags"] == [{"dagId": dag, "lifecycle": "EXECUTION", "cluster": "east", "exists": True,
                                 "paused": False}]

    for _ in range(2):
        code, out, _ = server.run("entity", "-suspend", "-type", "process", "-name", "a-count")
        assert (code, out.strip()) == (0, "a-count(process) suspended successfully")
        assert paused(server, dag) is True
        assert status(server, "process", "a-count") == "SUSPENDED"
    for _ in range(2):
        code, out, _ = server.run("entity", "-resume", "-type", "process", "-name", "a-count")
        assert (code, out.strip()) == (0, "a-count(process) resumed successfully")
        assert paused(server, dag) is False

    code, _, err = server.run("entity", "-suspend", "-type", "feed", "-name", "a-logs")
    assert (code, err.strip()) == (1, "ERROR: a-logs(feed) is not scheduled")
    code, _, err = server.run("entity", "-schedule", "-type", "cluster", "-name", "east")
    assert (code, err.strip()) == (1, "ERROR: Entity type (cluster)  cannot be Scheduled/Suspended/Resumed")
    code, _, err = server.run("entity", "-delete", "-type", "feed", "-name", "a-logs")
    assert (code, err.strip()) == (1, "ERROR: a-logs(FEED) cant be removed as it is referred by (a-count,PROCESS)")
    code, _, err = server.run("entity", "-submit", "-type", "feed", "-file",
                              str(server.draft("a-logs-2.xml", ops_feed("a-logs", days=9))))
    assert code == 1 and "(feed) a-logs already registered with configuration store" in err

    code, out, _ = server.run("entity", "-touch", "-type", "process", "-name", "a-count")
    assert code == 0 and "touched" in out
    code, out, _ = server.run("entity", "-definition", "-type", "feed", "-name", "a-logs")
    assert out.strip() == ops_feed("a-logs").strip()
    code, out, _ = server.run("entity", "-dependency", "-type", "process", "-name", "a-count")
    assert out.splitlines() == ["(cluster) east", "(feed) a-logs - [Input]", "(feed) a-counts - [Output]"]
    code, document = server.json("entity", "-list", "-type", "process", "-fields", "status", "-nameseq", "a-c")
    assert document["entity"] == [{"type": "process", "name": "a-count", "status": "RUNNING"}]
    code, document = server.json("entity", "-summary", "-type", "process", "-cluster", "east", "-nameseq", "x")
    assert code == 0 and "a-count" in [item["name"] for item in document["entitySummary"]]


def test_submit_and_schedule_completes_once_airflow_has_parsed_the_entity(server: AirflowServer) -> None:
    submit(server, "feed", "b-logs", ops_feed("b-logs"))
    code, out, _ = server.run("entity", "-submitAndSchedule", "-type", "process", "-file",
                              str(server.draft("b-count.xml",
                                               ops_process("b-count", "b-logs", "b-logs", timeout="hours(1)"))))
    assert code == 1  # PARTIAL: no dag-processor here, so Airflow cannot have the DAG yet
    assert out.startswith("Submit successful (process) b-count; scheduling pending: Airflow has not registered "
                          "DAG(s) falcon.process.b-count.east yet")

    # the dag-processor parses the store: the recorded RUNNING state makes the new DAG start unpaused
    server.reserialize()
    assert paused(server, "falcon.process.b-count.east") is False
    code, out, err = server.run("entity", "-status", "-type", "process", "-name", "b-count")

    assert "completed the interrupted submitAndSchedule of (process) b-count" in err
    assert (code, out.strip()) == (0, "RUNNING")
    assert paused(server, "falcon.process.b-count.east") is False
    code, out, _ = server.run("entity", "-submitAndSchedule", "-type", "process", "-file",
                              str(server.draft("b-count.xml",
                                               ops_process("b-count", "b-logs", "b-logs", timeout="hours(1)"))))
    assert (code, out.strip()) == (0, "b-count(process) scheduled successfully")


def test_update_archives_cascades_and_follows_the_entitys_state(server: AirflowServer) -> None:
    submit(server, "feed", "c-logs", ops_feed("c-logs"))
    submit(server, "process", "c-count", ops_process("c-count", "c-logs", "c-logs", timeout="hours(1)"))
    server.reserialize()
    assert server.run("entity", "-schedule", "-type", "feed", "-name", "c-logs")[0] == 0
    old = (server.store / "feeds" / "c-logs.xml").read_text()

    code, out, err = server.run("entity", "-update", "-type", "feed", "-name", "c-logs", "-file",
                                str(server.draft("c-logs.xml", ops_feed("c-logs", days=5))))
    assert code == 0, err
    assert out.splitlines() == ["Updated successfully", "re-parsed with it: falcon.process.c-count.east"]
    archived = sorted((server.home.parent / "state" / "archive" / "feed" / "c-logs").glob("*.xml"))
    assert [path.read_text() for path in archived] == [old]
    code, out, _ = server.run("entity", "-update", "-type", "feed", "-name", "c-logs", "-file",
                              str(server.draft("c-logs.xml", ops_feed("c-logs", days=5))))
    assert (code, out.strip()) == (0, "Updated successfully: (feed) c-logs is unchanged")
    code, _, err = server.run("entity", "-update", "-type", "feed", "-name", "c-logs", "-file",
                              str(server.draft("x.xml", ops_feed("c-other"))))
    assert (code, err.strip()) == (1, "ERROR: (feed) c-logs can't be updated with (feed) c-other")

    # a new cluster: new DAGs; the feed runs, so they are unpaused once Airflow has them
    code, out, _ = server.run("entity", "-update", "-type", "feed", "-name", "c-logs", "-file",
                              str(server.draft("c-logs-west.xml", ops_feed("c-logs", days=5, west=True))))
    assert code == 1 and "Airflow has not registered DAG(s) falcon.feed.c-logs.replication.east.west" in out
    server.reserialize()
    _, _, err = server.run("entity", "-list", "-type", "feed")
    assert "completed the interrupted update of (feed) c-logs" in err
    assert paused(server, "falcon.feed.c-logs.retention.west") is False
    assert paused(server, "falcon.feed.c-logs.replication.east.west") is False

    # the cluster goes away again: its DAGs are deleted from Airflow
    code, _, err = server.run("entity", "-update", "-type", "feed", "-name", "c-logs", "-file",
                              str(server.draft("c-logs-east.xml", ops_feed("c-logs", days=4))))
    assert code == 0, err
    assert paused(server, "falcon.feed.c-logs.retention.west") is None
    assert paused(server, "falcon.feed.c-logs.retention.east") is False


def test_delete_and_the_journal_after_a_crash(server: AirflowServer) -> None:
    submit(server, "feed", "d-logs", ops_feed("d-logs"))
    submit(server, "process", "d-count", ops_process("d-count", "d-logs", "d-logs", timeout="hours(1)"))
    submit(server, "feed", "d-counts", ops_feed("d-counts"))  # one writer per feed (FA008)
    submit(server, "process", "d-other", ops_process("d-other", "d-logs", "d-counts", timeout="hours(1)"))
    server.reserialize()
    dag, other = "falcon.process.d-count.east", "falcon.process.d-other.east"
    assert server.run("entity", "-schedule", "-type", "process", "-name", "d-count")[0] == 0
    client = server.client()
    from datetime import UTC, datetime

    run = client.trigger(dag, datetime(2026, 4, 1, 1, tzinfo=UTC))
    server.worker(dag, run["dag_run_id"], run_state="running",
                  tasks={"wait_for_input": ("success", 1), "clear_outputs": ("success", 1),
                         "workflow": ("running", 1)})

    # killed before its commit point (the archive): undone by the next command
    with crash_at("delete", "archive", SystemExit):
        server.run("entity", "-delete", "-type", "process", "-name", "d-count")
    assert paused(server, dag) is True
    _, out, err = server.run("entity", "-status", "-type", "process", "-name", "d-count")
    assert "undid the interrupted delete of (process) d-count" in err
    assert out.strip() == "RUNNING" and paused(server, dag) is False

    # killed after it: completed by the next command
    with crash_at("delete", "kill"):
        server.run("entity", "-delete", "-type", "process", "-name", "d-count")
    assert not (server.store / "processes" / "d-count.xml").exists()
    assert paused(server, dag) is True
    _, _, err = server.run("instance", "-status", "-type", "process", "-name", "d-other")
    assert "completed the interrupted delete of (process) d-count" in err
    assert paused(server, dag) is None
    archived = list((server.home.parent / "state" / "archive" / "process" / "d-count").glob("*.xml"))
    assert len(archived) == 1
    server.reserialize()  # the definition is gone: the DAG does not come back
    assert paused(server, dag) is None

    code, out, _ = server.run("entity", "-delete", "-type", "process", "-name", "d-count")
    assert (code, out.strip()) == (0, "d-count(process) doesn't exist. Nothing to do")
    code, out, _ = server.run("entity", "-delete", "-type", "process", "-name", "d-other")
    assert (code, out.strip()) == (0, "d-other(process) removed successfully (KILLED in WF_ENGINE)")
    assert paused(server, other) is None


def test_safemode_blocks_what_falcons_safemode_blocks(server: AirflowServer) -> None:
    submit(server, "feed", "e-logs", ops_feed("e-logs"))
    code, out, _ = server.run("admin", "-setsafemode", "true")
    assert (code, out.strip()) == (0, "Falcon server safemode set to : true")
    try:
        code, _, err = server.run("entity", "-submit", "-type", "feed", "-file",
                                  str(server.draft("e-more.xml", ops_feed("e-more"))))
        assert (code, err.strip()) == (1, "ERROR: Entity operation SUBMIT not allowed during safemode")
        code, _, err = server.run("entity", "-update", "-type", "feed", "-name", "e-logs", "-file",
                                  str(server.draft("e-logs.xml", ops_feed("e-logs", days=3))))
        assert (code, err.strip()) == (1, "ERROR: Entity operation UPDATE is only allowed on cluster entities "
                                          "during safemode")
        code, _, err = server.run("entity", "-delete", "-type", "feed", "-name", "e-logs")
        assert (code, err.strip()) == (1, "ERROR: Entity operation DELETE not allowed during safemode")
        code, _, err = server.run("instance", "-resume", "-type", "feed", "-name", "e-logs", "-start",
                                  "2026-04-01T00:00Z", "-end", "2026-04-01T01:00Z")
        assert (code, err.strip()) == (1, "ERROR: Instance operation RESUME cannot be performed when server is in "
                                          "safemode")
        code, document = server.json("admin", "-status")
        assert (code, document["safemode"]) == (0, True)
    finally:
        assert server.run("admin", "-setsafemode", "false")[0] == 0
    assert server.run("entity", "-delete", "-type", "feed", "-name", "e-logs")[0] == 0


def test_admin_status_and_version(server: AirflowServer) -> None:
    code, out, _ = server.run("admin", "-status")
    assert code == 0 and out.splitlines()[0] == f"Falcon server is running (on {server.url})"
    code, out, _ = server.run("admin", "-version")
    assert code == 0 and "on Apache Airflow 3.3" in out
    code, _, err = server.run("admin", "-version", env={"FALCON_AIRFLOW_PASSWORD": "not-the-password"})
    assert code == 1 and "HTTP 401" in err and "not-the-password" not in err


def test_the_commands_run_as_a_program(server: AirflowServer) -> None:
    """The installed ``falcon-airflow`` program (the console script), not the in-process parser of ``run``."""
    program = Path(sys.executable).parent / "falcon-airflow"
    result = subprocess.run([str(program), "entity", "-list", "-type", "cluster", "--entities", str(server.store)],
                            env={**server.env, **server.credentials}, capture_output=True, text=True, timeout=120,
                            check=False)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["Total Results: 2", "(cluster) east", "(cluster) west"]


@pytest.mark.skipif("falcon_airflow.cli.airflow.airflow_cli_commands" not in get_provider_info().get("cli", []),
                    reason="the provider info lists no airflow_cli_commands in 'cli' yet")
def test_airflow_falcon_through_the_provider(server: AirflowServer) -> None:
    result = subprocess.run([str(AIRFLOW), "falcon", "entity", "-list", "-type", "cluster"],
                            env={**server.env, **server.credentials}, capture_output=True, text=True, timeout=180,
                            check=False)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "(cluster) east" in result.stdout


def test_sla_alert_lists_the_instance_that_came_late(server: AirflowServer) -> None:
    """The feed's SLA monitor is one of its DAGs (scheduled and suspended with it). Its runs, made by Airflow
    (``airflow dags test``) on the api-server's database, judge one instance on time and one late on purpose (never
    landed); entity -slaAlert lists exactly the late one, through Airflow's REST API."""
    sla = '<frequency>hours(1)</frequency>\n  <sla slaLow="hours(1)" slaHigh="hours(2)"/>'
    submit(server, "feed", "s-logs", ops_feed("s-logs").replace("<frequency>hours(1)</frequency>", sla, 1))
    server.reserialize()
    monitor = "falcon.feed.s-logs.sla.east"
    assert server.run("entity", "-schedule", "-type", "feed", "-name", "s-logs")[0] == 0
    assert paused(server, monitor) is False
    on_time = server.storage / "east" / "s-logs" / "2026" / "04" / "02" / "01"
    on_time.mkdir(parents=True)
    (on_time / "_DONE").touch()
    for instance in ("2026-04-02T01:00:00+00:00", "2026-04-02T02:00:00+00:00"):  # 02:00 never lands
        server.airflow("dags", "test", monitor, instance)
    code, document = server.json("entity", "-slaAlert", "-type", "feed", "-name", "s-logs", "-start",
                                 "2026-04-02T00:00Z", "-end", "2026-04-02T05:00Z")
    assert code == 0, document
    assert document["instances"] == [{"entityName": "s-logs", "entityType": "FEED", "cluster": "east",
                                      "instanceTime": "2026-04-02T02:00Z", "tags": "Missed SLA High"}]
    assert server.run("entity", "-suspend", "-type", "feed", "-name", "s-logs")[0] == 0
    assert paused(server, monitor) is True
