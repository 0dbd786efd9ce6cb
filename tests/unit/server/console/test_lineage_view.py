"""The console's lineage view: the entity graph from the store, the instance graph and a feed's columns from
OpenLineage events shaped as our tasks and the lineage driver write them, an Oozie process's workflow from the
example's own, and the route for a caller who may or may not read the entity."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from tests.unit.lineage.conftest import pipeline_events
from tests.unit.server.served import SECRET, Served, serve, tokens

from falcon_airflow.entities import EntityType
from falcon_airflow.lineage.query import LineageIndex
from falcon_airflow.server.app import create_app
from falcon_airflow.server.configuration import MappingConfig
from falcon_airflow.server.console.lineage_view import column_view, entity_graph, instance_graph, workflow_view
from falcon_airflow.workspace import Workspace

REPOSITORY = Path(__file__).resolve().parents[4]


@pytest.fixture
def index() -> LineageIndex:
    return LineageIndex(pipeline_events())


def edges(graph: dict[str, Any]) -> set[tuple[str, str, str]]:
    return {(edge["from"], edge["to"], edge["label"]) for edge in graph["edges"]}


def test_the_instance_graph_of_a_feed_shows_its_producers_its_replica_and_what_retention_dropped(
        index: LineageIndex) -> None:
    agg = instance_graph(index, EntityType.FEED, "agg", None)
    assert agg["instances"] == ["2026-03-01T05:00Z", "2026-03-01T06:00Z"] == agg["shown"]
    found = edges(agg)
    assert ("process-instance:agg/2026-03-01T05:00Z", "feed-instance:agg@c1/2026-03-01T05:00Z", "output") in found
    assert ("feed-instance:raw@c1/2026-03-01T05:00Z", "process-instance:agg/2026-03-01T05:00Z", "input") in found
    replica = [edge for edge in found if edge[1] == "feed-instance:agg@c2/2026-03-01T05:00Z"]
    assert [edge[2] for edge in replica] == ["replicated to"]
    assert all(node["width"] > 0 and node["y"] >= 0 for node in agg["nodes"])
    one = instance_graph(index, EntityType.FEED, "agg", "2026-03-01T06:00Z")
    assert not any("05:00" in node["id"] for node in one["nodes"] if node["type"] == "feed-instance"
                   and node["name"].startswith("agg@"))
    raw = instance_graph(index, EntityType.FEED, "raw", "2026-03-01T05:00Z")
    assert any(edge[2] == "evicted (drop)" for edge in edges(raw))


def test_a_feed_s_columns_name_their_upstream_columns_and_their_history(index: LineageIndex) -> None:
    columns = {column["name"]: column for column in column_view(index, "agg")}
    assert set(columns) >= {"total", "user"}
    upstream = {(step["from"]["where"], step["from"]["field"], tuple(step["transformations"]))
                for step in columns["total"]["upstream"]}
    assert ("raw@c1", "amount", ("DIRECT/AGGREGATION",)) in upstream
    assert ("raw@c1", "country", ("INDIRECT/FILTER",)) in upstream
    operations = [row["operation"] for row in columns["total"]["history"]]
    assert {"write", "read", "copy"} <= set(operations)
    assert column_view(index, "nothing") == []


def test_the_entity_graph_follows_the_flow_and_says_replication_and_retention() -> None:
    workspace = Workspace.load([str(REPOSITORY / "entities")])
    graph = entity_graph(workspace, EntityType.FEED, "click-counts")
    found = edges(graph)
    assert ("process:count-clicks", "feed:click-counts", "output") in found
    assert ("feed:raw-clicks", "process:count-clicks", "input") in found
    assert ("feed:click-counts", "cluster:backup", "replicated from primary retention days(30) delete") in found
    assert ("feed:click-counts", "cluster:primary", "stored in retention days(7) delete") in found
    assert [node["attributes"].get("selected") for node in graph["nodes"] if node["id"] == "feed:click-counts"] == [
        "yes"]


def test_an_oozie_process_shows_its_workflow() -> None:
    workspace = Workspace.load([str(REPOSITORY / "entities")])
    process = workspace.processes["report-clicks"]
    workflow = workflow_view(workspace, process, REPOSITORY / "entities")
    assert workflow["nodes"][0]["name"] == workflow["start"] and workflow["nodes"][0]["column"] == 0
    kinds = {edge["kind"] for edge in workflow["edges"]}
    assert {"start", "ok", "error"} <= kinds
    assert any(node["type"].startswith("action:") for node in workflow["nodes"])


def console(served: Served, events: Path, **falcon: str) -> TestClient:
    values = {"authentication": "simple", "authentication_secret": SECRET, "entities_dir": str(served.kit.root),
              **falcon}
    config = MappingConfig({"falcon": values, "api": {"base_url": served.airflow.base},
                            "openlineage": {"transport": json.dumps({"type": "file",
                                                                     "log_file_path": str(events)})}})
    return TestClient(create_app(config=config, verify_token=tokens))


def test_the_route_reads_the_events_airflow_writes_for_a_caller_who_may_read(tmp_path: Path,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    served = serve(tmp_path, monkeypatch)
    events = tmp_path / "events.jsonl"
    events.write_text("".join(json.dumps(item) + "\n" for item in pipeline_events()), encoding="utf-8")
    client = console(served, events)
    answer = client.get("/console/api/lineage/feed/counts", headers={"Authorization": "Bearer ops"})
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert ("process:count", "feed:counts", "output") in edges(body["entities"])
    assert body["columns"] == [] and body["instances"]["nodes"] == []  # the events are of another pipeline
    assert "workflow" not in body
    assert client.get("/console/api/lineage/table/x", headers={"Authorization": "Bearer ops"}).status_code == 400
    assert client.get("/console/api/lineage/feed/nothing",
                      headers={"Authorization": "Bearer ops"}).status_code in (400, 404)
    secured = console(served, events, authorization_enabled="true")
    for path in ("/console/api/lineage/feed/counts", "/console/api/instances/feed/counts",
                 "/console/api/instances/process/count"):
        refused = secured.get(path, headers={"Authorization": "Bearer mallory"})
        assert refused.status_code == 403, (path, refused.text)
        assert "error" in refused.json()
