"""``metadata``: Falcon's discovery and lineage queries over the entity graph of the store, with the routes of
Falcon's ``api/metadata/discovery/`` and ``api/metadata/lineage/`` resources that run them (JSON only).

Routes are matched in the order they are declared: ``vertices/all`` (``-vertices``) comes before ``vertices/{id}``
(``-vertex``), ``edges/all`` before ``edges/{id}``.
"""

from __future__ import annotations

from falcon_airflow.operate.declarations import JSON, Action, CommandDeclaration, Option, Route

ACTIONS_MODULE = "falcon_airflow.operate.metadata"
GRAPH_MODULE = "falcon_airflow.operate.graph_queries"
DISCOVERY = "/api/metadata/discovery"
LINEAGE = "/api/metadata/lineage"

OPTIONS = (
    Option("type", "type", "the dimension: feed, process, cluster, datasource, user, colo, tags, groups, pipelines",
           "TYPE", audit="type"),
    Option("name", "name", "-relations: the vertex's name", "NAME", audit="name"),
    Option("cluster", "cluster", "-list: only what is on this cluster", "CLUSTER", audit="cluster"),
    Option("pipeline", "pipeline", "-lineage: the pipeline", "PIPELINE"),
    Option("id", "id", "-vertex, -edges, -edge: a vertex's or an edge's id (process:count-clicks ...)", "ID",
           audit="id"),
    Option("key", "key", "-vertices: a vertex property (name, type, frequency, colo ...)", "KEY"),
    Option("value", "value", "-vertices: the property's value", "VALUE"),
    Option("direction", "direction", "-edges: in, out, both, inE, outE, bothE, inCount ..., inIds ...",
           "DIRECTION"),
)


def _get(path: str) -> Route:
    return Route("GET", path, produces=JSON)


ACTIONS = (
    Action("metadata", "list", "the names of one dimension (-type feed|process|cluster|datasource|user|colo|tags|"
           "groups|pipelines, or Falcon's FEED_ENTITY ...; -cluster: only what is on it)",
           f"{ACTIONS_MODULE}:list_dimension", "read", required=("type",), optional=("cluster",),
           routes=(_get(DISCOVERY + "/{type}/list"),)),
    Action("metadata", "relations", "a vertex's relations, each with its edge label (-type, -name)",
           f"{ACTIONS_MODULE}:relations", "read", required=("type", "name"),
           routes=(_get(DISCOVERY + "/{type}/{name}/relations"),)),
    Action("metadata", "lineage", "the processes of a pipeline and their feeds, as Graphviz DOT (-pipeline)",
           f"{ACTIONS_MODULE}:lineage", "read", required=("pipeline",), routes=(_get(LINEAGE + "/entities"),)),
    Action("metadata", "dimensions", "every dimension with how many vertices it has", f"{ACTIONS_MODULE}:dimensions",
           "read"),
    Action("metadata", "vertices", "the vertices whose property -key is -value (neither: every vertex)",
           f"{GRAPH_MODULE}:vertices", "read", optional=("key", "value"),
           routes=(_get(LINEAGE + "/vertices/all"), _get(LINEAGE + "/vertices"))),
    Action("metadata", "vertex", "one vertex of the lineage graph (-id)", f"{GRAPH_MODULE}:vertex", "read",
           required=("id",), routes=(_get(LINEAGE + "/vertices/{id}"),)),
    Action("metadata", "edges", "a vertex's neighbours, edges, their number or ids (-id, -direction)",
           f"{GRAPH_MODULE}:vertex_edges", "read", required=("id", "direction"),
           routes=(_get(LINEAGE + "/vertices/{id}/{direction}"),)),
    Action("metadata", "edge", "one edge of the lineage graph (-id; none: every edge)", f"{GRAPH_MODULE}:edge",
           "read", optional=("id",), routes=(_get(LINEAGE + "/edges/all"), _get(LINEAGE + "/edges/{id}"))),
)

COMMAND = CommandDeclaration("metadata", ACTIONS, OPTIONS)
