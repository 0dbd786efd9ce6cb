"""Falcon's metadata resources on the server (``api/metadata/discovery/...``, ``api/metadata/lineage/...``): the
entity graph of the server's store as Falcon's discovery and lineage resources answered, their errors as they sent
them (text, not an ``APIResult``), every call in the audit trail."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.builders import ops_process

from .served import JSON, TEXT, XML, Served, refused, serve


@pytest.fixture
def served(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Served:
    served = serve(tmp_path, monkeypatch)
    served.kit.write("processes/count.xml", ops_process("count").replace(
        "<clusters>", "<tags>team=web</tags>\n  <pipelines>clicks</pipelines>\n  <clusters>"))
    return served


def test_discovery_lists_a_dimension(served: Served) -> None:
    answer = served.call("GET", "/api/metadata/discovery/feed_entity/list")
    assert answer.status_code == 200 and answer.headers["content-type"].startswith(JSON)
    assert answer.content == b'{"results":["counts","logs"],"totalSize":2}'  # Jettison's JSONObject
    on_west = served.call("GET", "/api/metadata/discovery/FEED_ENTITY/list", params={"cluster": "west"})
    assert on_west.json() == {"results": ["counts"], "totalSize": 1}
    assert served.call("GET", "/api/metadata/discovery/data-center/list").status_code == 400
    assert served.call("GET", "/api/metadata/discovery/colo/list").json() == {"results": ["here", "there"],
                                                                              "totalSize": 2}
    # an invalid dimension: 400 with the message as text (Falcon's metadata resources answered so)
    bad = served.call("GET", "/api/metadata/discovery/planets/list")
    assert bad.status_code == 400 and bad.headers["content-type"].startswith(TEXT)
    assert bad.text.startswith("Invalid Dimension type : planets")
    # JSON only
    assert served.call("GET", "/api/metadata/discovery/feed_entity/list", accept=XML).status_code == 406


def test_discovery_relations(served: Served) -> None:
    answer = served.call("GET", "/api/metadata/discovery/process_entity/count/relations")
    assert answer.status_code == 200
    body = answer.json()
    assert (body["name"], body["type"]) == ("count", "PROCESS_ENTITY")
    assert {(item["label"], item["type"], item["name"]) for item in body["inVertices"]} == {
        ("input", "FEED_ENTITY", "logs")}
    assert ("pipeline", "PIPELINES", "clicks") in {(item["label"], item["type"], item["name"])
                                                   for item in body["outVertices"]}
    # a vertex the graph does not have: an empty object, as Falcon answered
    missing = served.call("GET", "/api/metadata/discovery/process_entity/nothing/relations")
    assert (missing.status_code, missing.content) == (200, b"{}")


def test_lineage_of_a_pipeline(served: Served) -> None:
    served.kit.write("processes/report.xml", ops_process("report", "counts", "logs").replace(
        "<clusters>", "<pipelines>clicks</pipelines>\n  <clusters>"))
    answer = served.call("GET", "/api/metadata/lineage/entities", params={"pipeline": "clicks"})
    assert answer.status_code == 200, answer.text
    body = answer.json()  # LineageGraphResult, mapped JSON
    assert sorted(body["vertices"]) == ["count", "report"]
    edges = body["edges"] if isinstance(body["edges"], list) else [body["edges"]]
    assert {(edge["from"], edge["to"], edge["label"]) for edge in edges} == {
        ("count", "report", "counts"), ("report", "count", "logs")}
    # a pipeline without processes: Falcon's APIResult and words
    assert refused(served.call("GET", "/api/metadata/lineage/entities", params={"pipeline": "nothing"})) == (
        "No processes belonging to pipeline nothing")


def test_lineage_vertices_and_edges(served: Served) -> None:
    everything = served.call("GET", "/api/metadata/lineage/vertices/all").json()
    assert everything["totalSize"] == len(everything["results"]) > 5
    found = served.call("GET", "/api/metadata/lineage/vertices", params={"key": "name", "value": "logs"}).json()
    assert found == {"results": [{"name": "logs", "type": "feed-entity", "_id": "feed:logs", "_type": "vertex"}],
                     "totalSize": 1}
    one = served.call("GET", "/api/metadata/lineage/vertices/process:count")
    assert one.content == (b'{"results":{"name":"count","type":"process-entity","_id":"process:count",'
                           b'"_type":"vertex"}}')
    edges = served.call("GET", "/api/metadata/lineage/vertices/process:count/inE").json()
    assert edges["results"] == [{"_id": "feed:logs~input~process:count", "_type": "edge", "_outV": "feed:logs",
                                 "_inV": "process:count", "_label": "input"}]
    assert served.call("GET", "/api/metadata/lineage/vertices/process:count/outCount").json() == {"totalSize": 5}
    edge = served.call("GET", "/api/metadata/lineage/edges/feed:logs~input~process:count").json()
    assert edge["results"]["_label"] == "input"
    assert served.call("GET", "/api/metadata/lineage/edges/all").json()["totalSize"] > 5


def test_lineage_errors_as_falcon_sent_them(served: Served) -> None:
    missing = served.call("GET", "/api/metadata/lineage/vertices/process:nothing")
    assert (missing.status_code, missing.text) == (404, '"Vertex with [process:nothing] cannot be found."')
    assert missing.headers["content-type"].startswith(TEXT)
    gone = served.call("GET", "/api/metadata/lineage/edges/a~b~c")
    assert (gone.status_code, gone.text) == (404, '"Edge with [a~b~c] cannot be found."')
    sideways = served.call("GET", "/api/metadata/lineage/vertices/process:count/sideways")
    assert (sideways.status_code, sideways.text) == (400, '"sideways segment was invalid."')
    half = served.call("GET", "/api/metadata/lineage/vertices", params={"key": "name"})
    assert (half.status_code, half.text) == (400, "Invalid argument: key or value passed is null or empty.")


def test_every_call_is_audited_and_open_to_every_user(served: Served) -> None:
    on = {"authorization_enabled": "true"}
    assert served.call("GET", "/api/metadata/discovery/user/list", user="mallory", settings=on).status_code == 200
    served.call("GET", "/api/metadata/lineage/vertices/process:nothing", user="mallory", settings=on)
    lines = [(line["user"], line["command"], line["action"], line["result"]) for line in served.audit()]
    assert ("mallory", "metadata", "list", "SUCCEEDED") in lines
    assert ("mallory", "metadata", "vertex", "REFUSED") in lines
