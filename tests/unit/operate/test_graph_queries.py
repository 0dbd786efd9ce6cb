"""metadata -vertex/-vertices/-edges/-edge: Falcon's lineage graph queries over the entity graph of the store, its
elements written as Falcon's GraphSON (vertex types and edge labels in Falcon's words)."""

from __future__ import annotations

from .helpers import Kit


def test_a_vertex_and_the_vertices_with_a_property(pipeline: Kit) -> None:
    code, document = pipeline.json("metadata", "-vertex", "-id", "process:count")
    assert code == 0
    assert document["results"] == {"name": "count", "type": "process-entity", "_id": "process:count",
                                   "_type": "vertex"}
    code, document = pipeline.json("metadata", "-vertices", "-key", "type", "-value", "feed-entity")
    assert [item["_id"] for item in document["results"]] == ["feed:counts", "feed:logs"]
    assert document["totalSize"] == 2
    code, document = pipeline.json("metadata", "-vertices", "-key", "colo", "-value", "there")
    assert [item["name"] for item in document["results"]] == ["west"]
    code, document = pipeline.json("metadata", "-vertices")  # neither key nor value: every vertex
    kinds = {item["type"] for item in document["results"]}
    assert {"cluster-entity", "data-center", "feed-entity", "process-entity", "user"} <= kinds
    assert document["totalSize"] == len(document["results"])


def test_a_vertex_edges_in_every_direction(pipeline: Kit) -> None:
    code, document = pipeline.json("metadata", "-edges", "-id", "process:count", "-direction", "inE")
    assert code == 0
    assert document["results"] == [{"_id": "feed:logs~input~process:count", "_type": "edge",
                                    "_outV": "feed:logs", "_inV": "process:count", "_label": "input"}]
    code, document = pipeline.json("metadata", "-edges", "-id", "process:count", "-direction", "out")
    assert {item["_id"] for item in document["results"]} == {"feed:counts", "cluster:east", "user:analytics"}
    code, document = pipeline.json("metadata", "-edges", "-id", "process:count", "-direction", "bothIds")
    assert set(document["results"]) == {"feed:logs", "feed:counts", "cluster:east", "user:analytics"}
    code, document = pipeline.json("metadata", "-edges", "-id", "process:count", "-direction", "bothCount")
    assert document["totalSize"] == 4 and "results" not in document

    code, document = pipeline.json("metadata", "-edge", "-id", "feed:logs~input~process:count")
    assert document["results"]["_label"] == "input"
    code, document = pipeline.json("metadata", "-edge")  # no id: every edge
    assert "feed:counts~replicated-to~cluster:west" in {item["_id"] for item in document["results"]}


def test_graph_refusals(pipeline: Kit) -> None:
    code, _, err = pipeline.run("metadata", "-vertex", "-id", "process:nothing")
    assert code == 1 and "Vertex with [process:nothing] cannot be found." in err
    code, _, err = pipeline.run("metadata", "-edge", "-id", "feed:logs~output~process:count")
    assert code == 1 and "Edge with [feed:logs~output~process:count] cannot be found." in err
    code, _, err = pipeline.run("metadata", "-edges", "-id", "process:count", "-direction", "sideways")
    assert code == 2 and "sideways segment was invalid." in err
    code, _, err = pipeline.run("metadata", "-vertices", "-key", "name")
    assert code == 2 and "key or value passed is null or empty" in err
    code, _, err = pipeline.run("metadata", "-lineage", "-pipeline", "nothing")
    assert code == 1 and "No processes belonging to pipeline nothing" in err
