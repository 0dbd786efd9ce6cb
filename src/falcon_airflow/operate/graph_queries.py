"""``metadata -vertex``, ``-vertices``, ``-edges``, ``-edge``: Falcon's lineage graph queries over the entity graph
of the store.

The graph is :func:`falcon_airflow.operate.metadata.graph_of`'s (:mod:`falcon_airflow.lineage.graph`), with Falcon's
vocabulary on the way out: a vertex's ``type`` is Falcon's ``RelationshipType`` name (``process-entity``,
``feed-entity``, ``cluster-entity``, ``data-center``, ``user``, ``classification`` for a tag, ``group``,
``pipelines``), its edges carry Falcon's labels (``input``, ``output``, ``stored-in`` ...). Elements are written as
Falcon's metadata resources wrote them (GraphSON, "normal" mode): a vertex ``{"name", "type", "_id", "_type":
"vertex"}``, an edge ``{"_id", "_type": "edge", "_outV", "_inV", "_label"}``.

Ids: a vertex's id is ``<type>:<name>`` as the graph keys it (``process:count-clicks``); an edge's is
``<from id>~<label>~<to id>``. Falcon's graph database numbered its elements instead; its clients take ids only
from earlier answers, as they do here.

=========  =============================================================================================
-vertex    ``-id``: one vertex (``results``)
-vertices  ``-key``, ``-value``: the vertices whose property ``key`` is ``value`` (``name``, ``type``, or an
           attribute such as ``frequency`` or ``colo``); ``-key`` and ``-value`` absent: every vertex
-edges     ``-id``, ``-direction``: a vertex's neighbours (``in``, ``out``, ``both``), edges (``inE``, ``outE``,
           ``bothE``), their number (``inCount`` ...) or their ids (``inIds`` ...)
-edge      ``-id``: one edge; absent: every edge
=========  =============================================================================================

A vertex or edge that does not exist is :class:`NotFound` (Falcon's metadata resource answered 404), a direction
Falcon did not know :class:`InvalidSegment` (400); Falcon's server sent both messages as a quoted JSON string.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from falcon_airflow.lineage.graph import Graph, Node
from falcon_airflow.operate.context import Context
from falcon_airflow.operate.metadata import graph_of
from falcon_airflow.operate.options import Options
from falcon_airflow.operate.outcomes import Outcome, Refused, succeeded

VERTEX_TYPES = {"cluster": "cluster-entity", "feed": "feed-entity", "process": "process-entity",
                "datasource": "datasource-entity", "feed-instance": "feed-instance",
                "process-instance": "process-instance", "user": "user", "data-center": "data-center",
                "tag": "classification", "group": "group", "pipeline": "pipelines"}
"""The graph's vertex types as Falcon's ``RelationshipType`` names them."""

EDGE_SEPARATOR = "~"

DIRECTIONS: dict[str, tuple[str, str]] = {
    "out": ("out", "vertices"), "in": ("in", "vertices"), "both": ("both", "vertices"),
    "outE": ("out", "edges"), "inE": ("in", "edges"), "bothE": ("both", "edges"),
    "outCount": ("out", "count"), "inCount": ("in", "count"), "bothCount": ("both", "count"),
    "outIds": ("out", "ids"), "inIds": ("in", "ids"), "bothIds": ("both", "ids"),
}
"""Falcon's direction segments: which way from the vertex, and what is returned."""


class NotFound(Refused):
    """A vertex or edge the graph does not have."""


class InvalidSegment(Refused):
    """A ``-direction`` that is none of :data:`DIRECTIONS`."""


def vertex_json(node: Node) -> dict[str, Any]:
    return {"name": node.name, "type": VERTEX_TYPES.get(node.type, node.type), "_id": node.id, "_type": "vertex"}


def edge_id(source: str, target: str, label: str) -> str:
    return EDGE_SEPARATOR.join((source, label, target))


def edge_json(source: str, target: str, label: str) -> dict[str, Any]:
    return {"_id": edge_id(source, target, label), "_type": "edge", "_outV": source, "_inV": target,
            "_label": label}


def _properties(node: Node) -> dict[str, str]:
    """Every property of a vertex: its name, its type (Falcon's name) and its attributes."""
    found = {"name": node.name, "type": VERTEX_TYPES.get(node.type, node.type)}
    found.update({key: str(value) for key, value in node.attributes.items()})
    return found


def _node(graph: Graph, vertex_id: str) -> Node:
    node = graph.nodes.get(vertex_id)
    if node is None:
        raise NotFound(f"Vertex with [{vertex_id}] cannot be found.")
    return node


def _listing(items: Iterable[dict[str, Any]], what: str) -> Outcome:
    results = list(items)
    text = "\n".join(json.dumps(item, ensure_ascii=False) for item in results) or f"no {what}"
    return succeeded(f"{len(results)} {what}", text=text, results=results, totalSize=len(results))


def vertex(context: Context, options: Options) -> Outcome:
    """``-vertex -id ID``."""
    wanted = options.required("id", "id")
    found = vertex_json(_node(graph_of(context), wanted))
    return succeeded(f"vertex {wanted}", text=json.dumps(found, ensure_ascii=False), results=found)


def vertices(context: Context, options: Options) -> Outcome:
    """``-vertices -key K -value V``: the vertices whose property K is V; neither given: every vertex."""
    key, value = options.text("key"), options.text("value")
    graph = graph_of(context)
    if key is None and value is None:
        chosen = list(graph.nodes.values())
    else:
        if not (key or "").strip() or not (value or "").strip():
            raise Refused("Invalid argument: key or value passed is null or empty.", usage=True)
        chosen = [node for node in graph.nodes.values() if _properties(node).get(key or "") == value]
    return _listing((vertex_json(node) for node in sorted(chosen, key=lambda item: item.id)), "vertices")


def vertex_properties(context: Context, options: Options) -> Outcome:
    """A vertex's properties by name (Falcon's ``vertices/properties/{id}``)."""
    wanted = options.required("id", "id")
    properties = _properties(_node(graph_of(context), wanted))
    return succeeded(f"properties of vertex {wanted}", text=json.dumps(properties, ensure_ascii=False),
                     results=properties, totalSize=len(properties))


def vertex_edges(context: Context, options: Options) -> Outcome:
    """``-edges -id ID -direction D``."""
    wanted = options.required("id", "id")
    direction = options.required("direction", "direction")
    if direction not in DIRECTIONS:
        raise InvalidSegment(f"{direction} segment was invalid.", usage=True)
    graph = graph_of(context)
    _node(graph, wanted)
    way, returned = DIRECTIONS[direction]
    edges = [(source, target, label) for source, target, label in sorted(graph.edges)
             if (way in ("out", "both") and source == wanted) or (way in ("in", "both") and target == wanted)]
    if returned == "count":
        return succeeded(f"{len(edges)} edges {direction} of {wanted}", text=str(len(edges)), totalSize=len(edges))
    if returned == "edges":
        return _listing((edge_json(*edge) for edge in edges), "edges")
    others = [target if source == wanted else source for source, target, _ in edges]
    if returned == "ids":
        results: list[Any] = others
        return succeeded(f"{len(results)} vertex ids", text="\n".join(others), results=results,
                         totalSize=len(results))
    return _listing((vertex_json(graph.nodes[other]) for other in others), "vertices")


def edge(context: Context, options: Options) -> Outcome:
    """``-edge -id ID``; no id: every edge."""
    wanted = options.text("id")
    graph = graph_of(context)
    if wanted is None:
        return _listing((edge_json(*item) for item in sorted(graph.edges)), "edges")
    source, _, rest = wanted.partition(EDGE_SEPARATOR)
    label, _, target = rest.partition(EDGE_SEPARATOR)
    if (source, target, label) not in graph.edges:
        raise NotFound(f"Edge with [{wanted}] cannot be found.")
    found = edge_json(source, target, label)
    return succeeded(f"edge {wanted}", text=json.dumps(found, ensure_ascii=False), results=found)
