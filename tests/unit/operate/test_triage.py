"""instance -triage and the Details of WAITING instances: an upstream walk through missing feed instances and the
process instances that should produce them, down to the root cause (three levels here)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from tests.builders import ops_cluster, ops_feed, ops_process

from .helpers import Kit

T = datetime(2026, 5, 1, 3, tzinfo=UTC)
AT = "2026-05-01T03:00Z"
TASKS = ("wait_for_input", "clear_outputs", "workflow", "mark_outputs_available")


@pytest.fixture
def chain(kit: Kit, tmp_path: Path) -> Kit:
    """raw (from outside) -> clean -> (clean) -> join -> (joined) -> report -> (reports)."""
    kit.write("clusters/east.xml", ops_cluster("east", storage=str(tmp_path / "storage")))
    for name in ("raw", "cleaned", "joined", "reports"):
        kit.write(f"feeds/{name}.xml", ops_feed(name))
    kit.write("processes/clean.xml", ops_process("clean", "raw", "cleaned"))
    kit.write("processes/join.xml", ops_process("join", "cleaned", "joined"))
    kit.write("processes/report.xml", ops_process("report", "joined", "reports"))
    for name in ("clean", "join", "report"):
        kit.airflow.add_dag(f"falcon.process.{name}.east", TASKS, paused=False)
    return kit


def storage(kit: Kit) -> Path:
    return kit.root.parent / "storage" / "east"


def land(kit: Kit, feed: str) -> None:
    folder = storage(kit) / feed / "2026" / "05" / "01" / "03"
    folder.mkdir(parents=True)
    (folder / "_DONE").write_text("")


def waiting(kit: Kit, process: str) -> None:
    run = kit.airflow.add_run(f"falcon.process.{process}.east", T, state="running")
    kit.airflow.set_tis(run, wait_for_input="deferred")


def triage(kit: Kit, *extra: str, kind: str = "process", name: str = "report") -> tuple[int, dict[str, Any]]:
    return kit.json("instance", "-triage", "-type", kind, "-name", name, "-start", AT, *extra)


def test_triage_walks_three_levels_down_to_the_feed_expected_from_outside(chain: Kit) -> None:
    waiting(chain, "report")
    waiting(chain, "join")  # clean has no run yet

    code, document = triage(chain)
    assert code == 0, document
    (report,) = document["triage"]
    assert (report["name"], report["status"], report["instance"]) == ("report", "WAITING", AT)
    (joined,) = report["missingInputs"]
    assert (joined["feed"], joined["input"]) == ("joined", "input")
    assert joined["path"] == f"file://{storage(chain)}/joined/2026/05/01/03"
    (join,) = joined["producers"]
    assert (join["name"], join["status"]) == ("join", "WAITING")
    (cleaned,) = join["missingInputs"]
    (clean,) = cleaned["producers"]
    assert (clean["name"], clean["status"]) == ("clean", "NOT_STARTED")
    (raw,) = clean["missingInputs"]
    assert (raw["feed"], raw["producers"]) == ("raw", [])

    # Falcon's shape: one graph, instances labelled with their status, "produces" and "consumed by" edges.
    (graph,) = document["triageGraphs"]

    def vertex(kind: str, name: str, status: str) -> str:
        return f"name: {name}, type: {kind}, cluster: east, instanceTime: {AT}, tags: [{status}]"

    assert sorted(graph["vertices"]) == sorted([
        vertex("PROCESS", "report", "WAITING"), vertex("FEED", "joined", "MISSING"),
        vertex("PROCESS", "join", "WAITING"), vertex("FEED", "cleaned", "MISSING"),
        vertex("PROCESS", "clean", " Not Available "), vertex("FEED", "raw", "MISSING")])
    edges = {(edge["from"].split(",")[0], edge["label"], edge["to"].split(",")[0]) for edge in graph["edges"]}
    assert edges == {("name: joined", "consumed by", "name: report"), ("name: join", "produces", "name: joined"),
                     ("name: cleaned", "consumed by", "name: join"), ("name: clean", "produces", "name: cleaned"),
                     ("name: raw", "consumed by", "name: clean")}

    code, text = chain.run("instance", "-triage", "-type", "process", "-name", "report", "-start", AT)[:2]
    lines = text.splitlines()
    assert lines[0] == f"(process) report {AT} on east: WAITING"
    assert lines[1] == f"  missing input input: (feed) joined {AT} at file://{storage(chain)}/joined/2026/05/01/03"
    assert lines[2:4] == ["    produced by", f"      (process) join {AT} on east: WAITING"]
    assert f"            (process) clean {AT} on east: NOT_STARTED" in lines
    assert lines[-1] == "                no process produces it on east: it is expected from outside"


def test_the_walk_stops_where_data_is_there_and_names_a_failed_producer(chain: Kit) -> None:
    land(chain, "raw")
    land(chain, "cleaned")
    waiting(chain, "report")
    failed = chain.airflow.add_run("falcon.process.join.east", T, state="failed")
    chain.airflow.set_tis(failed, wait_for_input="success", clear_outputs="success", workflow="failed",
                          mark_outputs_available="upstream_failed")

    _, document = triage(chain)
    (join,) = document["triage"][0]["missingInputs"][0]["producers"]
    assert (join["name"], join["status"], join["missingInputs"]) == ("join", "FAILED", [])

    _, status = chain.json("instance", "-status", "-type", "process", "-name", "report", "-start", AT, "-end", AT)
    (row,) = status["instances"]
    assert row["status"] == "WAITING"
    assert row["details"] == (f"waiting for 1 input instance(s): (feed) joined {AT} at file://{storage(chain)}/"
                              f"joined/2026/05/01/03, producer (process) join {AT} FAILED (instance -triage "
                              "shows the chain)")


def test_status_details_name_the_root_cause_three_levels_up(chain: Kit) -> None:
    waiting(chain, "report")
    waiting(chain, "join")
    waiting(chain, "clean")
    _, status = chain.json("instance", "-status", "-type", "process", "-name", "report", "-start", AT, "-end", AT)
    assert status["instances"][0]["details"].startswith(
        f"waiting for 1 input instance(s): (feed) raw {AT} at file://{storage(chain)}/raw/2026/05/01/03, expected "
        "from outside")


def test_a_succeeded_instance_and_an_available_feed_have_nothing_to_triage(chain: Kit) -> None:
    land(chain, "joined")
    done = chain.airflow.add_run("falcon.process.report.east", T, state="success")
    chain.airflow.set_tis(done, **dict.fromkeys(TASKS, "success"))
    _, document = triage(chain)
    assert document["triage"][0]["status"] == "SUCCEEDED" and document["triage"][0]["missingInputs"] == []

    code, text, _ = chain.run("instance", "-triage", "-type", "feed", "-name", "joined", "-start", AT)
    assert (code, text.strip()) == (0, f"(feed) joined {AT} on east: AVAILABLE")
    code, document = triage(chain, kind="feed", name="reports")
    assert code == 0
    (missing,) = document["triage"]
    assert [producer["name"] for producer in missing["producers"]] == ["report"]


def test_triage_needs_an_instance_time_on_the_grid(chain: Kit) -> None:
    code, _, err = chain.run("instance", "-triage", "-type", "process", "-name", "report")
    assert code == 2 and "start" in err
    code, _, err = chain.run("instance", "-triage", "-type", "process", "-name", "report", "-start",
                             "2026-05-01T03:30Z")
    assert code != 0 and "2026-05-01T03:30Z" in err


def succeeded(kit: Kit, process: str) -> None:
    done = kit.airflow.add_run(f"falcon.process.{process}.east", T, state="success")
    kit.airflow.set_tis(done, **dict.fromkeys(TASKS, "success"))


def test_an_output_gone_although_its_producer_succeeded_is_named(chain: Kit,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    from falcon_airflow.operate.context import Context

    monkeypatch.setattr(Context, "now", staticmethod(lambda: datetime(2026, 5, 1, 6, tzinfo=UTC)))
    waiting(chain, "report")
    succeeded(chain, "join")  # it wrote joined 03:00, which someone deleted since
    path = f"file://{storage(chain)}/joined/2026/05/01/03"

    _, document = triage(chain)
    (joined,) = document["triage"][0]["missingInputs"]
    assert [(item["name"], item["status"]) for item in joined["producers"]] == [("join", "SUCCEEDED")]
    assert joined["gone"] == (f"missing although its producer (process) join {AT} SUCCEEDED: it is within the "
                              "retention limit days(2) of feed joined on east: it was deleted by hand or by another "
                              "job; a rerun of the producer writes it again")
    code, text, _ = chain.run("instance", "-triage", "-type", "process", "-name", "report", "-start", AT)
    lines = text.splitlines()
    assert code == 0 and lines[1:3] == [f"  missing input input: (feed) joined {AT} at {path}",
                                        f"    {joined['gone']}"]
    _, status = chain.json("instance", "-status", "-type", "process", "-name", "report", "-start", AT, "-end", AT)
    assert status["instances"][0]["details"] == (
        f"waiting for 1 input instance(s): (feed) joined {AT} at {path}, gone although its producer (process) join "
        f"{AT} SUCCEEDED (instance -triage shows the chain)")

    # the succeeded producer itself under triage: its own output is gone; days later retention is the cause
    monkeypatch.setattr(Context, "now", staticmethod(lambda: datetime(2026, 5, 10, tzinfo=UTC)))
    _, document = triage(chain, name="join")
    (join,) = document["triage"]
    assert join["status"] == "SUCCEEDED"
    assert join["missingOutputs"] == [{"feed": "joined", "cluster": "east", "instance": AT, "path": path,
                                       "cause": "it is older than the retention limit days(2) of feed joined on "
                                                "east: retention evicted it"}]
    text = chain.run("instance", "-triage", "-type", "process", "-name", "join", "-start", AT)[1]
    assert f"  output (feed) joined {AT} at {path} is missing although this instance SUCCEEDED: it is older than " \
           "the retention limit days(2) of feed joined on east: retention evicted it; a rerun writes it again" in text

    land(chain, "joined")  # written again: nothing is gone any more
    _, document = triage(chain, name="join")
    assert document["triage"][0]["missingOutputs"] == []
    _, document = triage(chain)
    assert document["triage"][0]["missingInputs"] == []


def test_a_missing_input_whose_producer_did_not_succeed_is_not_called_gone(chain: Kit) -> None:
    waiting(chain, "report")
    waiting(chain, "join")
    _, document = triage(chain)
    assert document["triage"][0]["missingInputs"][0]["gone"] is None
