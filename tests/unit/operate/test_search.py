"""instance -search: instances across entities by name pattern, tags, state and window."""

from __future__ import annotations

from datetime import UTC, datetime

from tests.builders import ops_process

from .helpers import Kit

T3 = datetime(2026, 5, 1, 3, tzinfo=UTC)
T4 = datetime(2026, 5, 1, 4, tzinfo=UTC)
WINDOW = ("-start", "2026-05-01T00:00Z", "-end", "2026-05-01T10:00Z")


def test_search_finds_instances_of_every_matching_entity(pipeline: Kit) -> None:
    pipeline.write("processes/recount.xml", ops_process("recount", "counts", "logs").replace(
        "<clusters>", "<tags>team=ops</tags>\n  <clusters>"))
    pipeline.airflow.add_dag("falcon.process.recount.east")
    done = pipeline.airflow.add_run("falcon.process.count.east", T3, state="success")
    pipeline.airflow.set_tis(done, wait_for_input="success", clear_outputs="success", workflow="success",
                             mark_outputs_available="success")
    pipeline.airflow.add_run("falcon.process.count.east", T4)
    pipeline.airflow.add_run("falcon.process.recount.east", T4)

    code, document = pipeline.json("instance", "-search", "-type", "process", *WINDOW)
    assert code == 0
    assert [(item["entityName"], item["instance"], item["status"]) for item in document["instances"]] == [
        ("count", "2026-05-01T03:00Z", "SUCCEEDED"), ("count", "2026-05-01T04:00Z", "WAITING"),
        ("recount", "2026-05-01T04:00Z", "WAITING")]

    code, document = pipeline.json("instance", "-search", "-type", "process", "-instanceStatus", "waiting", *WINDOW)
    assert [item["entityName"] for item in document["instances"]] == ["count", "recount"]
    code, document = pipeline.json("instance", "-search", "-nameseq", "rcnt", *WINDOW)
    assert [item["entityName"] for item in document["instances"]] == ["recount"]
    code, document = pipeline.json("instance", "-search", "-tagkeys", "ops", *WINDOW)
    assert [item["entityName"] for item in document["instances"]] == ["recount"]

    code, out, _ = pipeline.run("instance", "-search", "-type", "process", "-orderBy", "status", *WINDOW)
    lines = out.splitlines()
    assert lines[0].split() == ["Entity", "Instance", "Cluster", "Status", "Start", "End"]
    assert set(lines[1]) == {"-"}
    assert [line.split()[1] for line in lines[2:]] == ["count", "count", "recount"]
    assert [line.split()[4] for line in lines[2:]] == ["SUCCEEDED", "WAITING", "WAITING"]


def test_search_with_nothing_matching_and_bad_options(pipeline: Kit) -> None:
    code, out, _ = pipeline.run("instance", "-search", "-nameseq", "zzz", *WINDOW)
    assert (code, out.strip()) == (0, "No instances matched")
    code, _, err = pipeline.run("instance", "-search", "-instanceStatus", "SLEEPING", *WINDOW)
    assert code == 2 and "SLEEPING" in err
    code, _, err = pipeline.run("instance", "-search", "-type", "cluster")
    assert code == 2
