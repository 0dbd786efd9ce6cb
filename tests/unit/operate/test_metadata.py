"""metadata -list/-relations/-lineage/-dimensions over the entity graph of the store, and admin -stack."""

from __future__ import annotations

from datetime import UTC, datetime

from tests.builders import ops_process

from .helpers import Kit


def test_list_each_dimension(pipeline: Kit) -> None:
    code, document = pipeline.json("metadata", "-list", "-type", "feed")
    assert code == 0
    assert document["results"] == [{"name": "counts", "type": "FEED_ENTITY"}, {"name": "logs", "type": "FEED_ENTITY"}]
    assert document["totalSize"] == 2
    code, out, _ = pipeline.run("metadata", "-list", "-type", "PROCESS_ENTITY")
    assert (code, out.strip()) == (0, "count")
    code, out, _ = pipeline.run("metadata", "-list", "-type", "user")
    assert out.split() == ["analytics", "ops"]
    code, out, _ = pipeline.run("metadata", "-list", "-type", "colo")
    assert out.split() == ["here", "there"]
    # on the west cluster only counts is stored
    code, out, _ = pipeline.run("metadata", "-list", "-type", "feed", "-cluster", "west")
    assert out.split() == ["counts"]


def test_relations_lineage_and_dimensions(pipeline: Kit) -> None:
    pipeline.write("processes/count.xml", ops_process("count").replace(
        "<clusters>", "<tags>team=web</tags>\n  <pipelines>clicks</pipelines>\n  <clusters>"))
    code, document = pipeline.json("metadata", "-relations", "-type", "process", "-name", "count")
    assert code == 0
    assert {(item["label"], item["type"], item["name"]) for item in document["inVertices"]} == {
        ("input", "FEED_ENTITY", "logs")}
    assert {(item["label"], item["type"], item["name"]) for item in document["outVertices"]} == {
        ("output", "FEED_ENTITY", "counts"), ("runs-on", "CLUSTER_ENTITY", "east"), ("owned-by", "USER", "analytics"),
        ("team", "TAGS", "team=web"), ("pipeline", "PIPELINES", "clicks")}
    code, out, _ = pipeline.run("metadata", "-relations", "-type", "process", "-name", "count")
    assert "  <- input: (FEED_ENTITY) logs" in out.splitlines()

    code, out, _ = pipeline.run("metadata", "-lineage", "-pipeline", "clicks")
    assert code == 0 and out.startswith("digraph")
    assert '"feed:logs" -> "process:count" [label="input"];' in out
    assert '"process:count" -> "feed:counts" [label="output"];' in out

    code, document = pipeline.json("metadata", "-dimensions")
    counts = {item["type"]: item["count"] for item in document["dimensions"]}
    assert counts["FEED_ENTITY"] == 2 and counts["CLUSTER_ENTITY"] == 2 and counts["PIPELINES"] == 1


def test_metadata_refusals(pipeline: Kit) -> None:
    code, _, err = pipeline.run("metadata", "-list", "-type", "planets")
    assert code == 2 and "Invalid Dimension type : planets" in err
    code, _, err = pipeline.run("metadata", "-relations", "-type", "feed", "-name", "nothing")
    assert code == 1 and "nothing (FEED_ENTITY) not found" in err
    code, _, err = pipeline.run("metadata", "-list", "-type", "REPLICATION_METRICS")
    assert code == 1 and "not kept" in err
    code, _, err = pipeline.run("metadata")
    assert code == 2 and "list, relations, lineage, dimensions" in err


def test_admin_stack_shows_what_airflow_is_doing(pipeline: Kit) -> None:
    run = pipeline.airflow.add_run("falcon.process.count.east", datetime(2026, 5, 1, 3, tzinfo=UTC), state="running")
    pipeline.airflow.set_tis(run, wait_for_input="success", workflow="running")
    code, out, _ = pipeline.run("admin", "-stack")
    assert code == 0
    lines = out.splitlines()
    assert "Task instances at work: 1" in lines
    (row,) = [line for line in lines if "workflow" in line]
    assert row.split()[:4] == ["running", "falcon.process.count.east", run.run_id, "workflow"]
    code, document = pipeline.json("admin", "-stack")
    assert [ti["task_id"] for ti in document["taskInstances"]] == ["workflow"]
