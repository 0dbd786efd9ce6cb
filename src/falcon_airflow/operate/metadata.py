"""``metadata``: Falcon's discovery and lineage queries over the entity graph of the store.

The graph is :mod:`falcon_airflow.lineage.graph`'s (Falcon's vertex types and edge labels), built from the entities
folder, so the answers hold without any run. Falcon's dimension names are accepted (``FEED_ENTITY``, ``USER`` ...)
as well as short ones (``feed``, ``user`` ...).

=============  ==================================================================================================
-list          ``-type T`` (``-cluster C``: only what is on cluster C): the names of one dimension
-relations     ``-type T -name N``: the vertex's incoming and outgoing edges, each with its label
-lineage       ``-pipeline P``: the processes of a pipeline and the feeds they read and write, as Graphviz DOT
-dimensions    every dimension with how many vertices it has
=============  ==================================================================================================

``-vertex``, ``-vertices``, ``-edges`` and ``-edge`` query the same graph: :mod:`falcon_airflow.operate.graph_queries`.
"""

from __future__ import annotations

from typing import Any

from falcon_airflow.lineage.graph import Graph, add_workspace, to_dot
from falcon_airflow.operate.context import Context
from falcon_airflow.operate.options import Options
from falcon_airflow.operate.outcomes import Outcome, Refused, succeeded

# Falcon's RelationshipType names -> the graph's vertex types.
DIMENSIONS = {"CLUSTER_ENTITY": "cluster", "FEED_ENTITY": "feed", "PROCESS_ENTITY": "process",
              "DATASOURCE_ENTITY": "datasource", "USER": "user", "COLO": "data-center", "TAGS": "tag",
              "GROUPS": "group", "PIPELINES": "pipeline"}
_ALIASES = {"cluster": "CLUSTER_ENTITY", "feed": "FEED_ENTITY", "process": "PROCESS_ENTITY",
            "datasource": "DATASOURCE_ENTITY", "user": "USER", "users": "USER", "colo": "COLO", "tag": "TAGS",
            "tags": "TAGS", "group": "GROUPS", "groups": "GROUPS", "pipeline": "PIPELINES", "pipelines": "PIPELINES"}
_PLACED_BY = ("stored-in", "runs-on", "collocated")


def dimension(given: str | None) -> str:
    text = (given or "").strip()
    if not text:
        raise Refused("Missing argument : type", usage=True)
    name = _ALIASES.get(text.lower(), text.upper())
    if name == "REPLICATION_METRICS":
        raise Refused("REPLICATION_METRICS are not kept: replication runs report to Airflow (instance -status "
                      "-lifecycle REPLICATION) and to OpenLineage (falcon-airflow lineage)")
    if name not in DIMENSIONS:
        raise Refused(f"Invalid Dimension type : {text} (use one of {', '.join(DIMENSIONS)})", usage=True)
    return name


def graph_of(context: Context) -> Graph:
    workspace = context.store.workspace()
    graph = add_workspace(Graph(), workspace)
    for datasource in workspace.datasources.values():
        graph.node("datasource", datasource.name, colo=datasource.colo)
    return graph


def _on_cluster(graph: Graph, cluster: str) -> set[str]:
    """Vertices on a cluster: the cluster, what is stored in or runs on it, and their owners, tags, groups..."""
    key = f"cluster:{cluster}"
    placed = {source for source, target, label in graph.edges if target == key and label in _PLACED_BY}
    around = {target for source, target, _ in graph.edges if source in placed}
    return {key} | placed | around


def list_dimension(context: Context, options: Options) -> Outcome:
    name = dimension(options.text("type"))
    graph = graph_of(context)
    kind = DIMENSIONS[name]
    cluster = (options.text("cluster") or "").strip()
    if cluster and f"cluster:{cluster}" not in graph.nodes:
        raise Refused(f"{cluster} (cluster) not found")
    allowed = _on_cluster(graph, cluster) if cluster else None
    results = [{"name": node.name, "type": name} for node in sorted(graph.nodes.values(), key=lambda item: item.name)
               if node.type == kind and (allowed is None or node.id in allowed)]
    return succeeded(f"{len(results)} {name}", text="\n".join(item["name"] for item in results) or
                     f"No {name} found", results=results, totalSize=len(results))


def _vertex(graph: Graph, key: str, label: str) -> dict[str, Any]:
    node = graph.nodes[key]
    type_name = next((name for name, kind in DIMENSIONS.items() if kind == node.type), node.type.upper())
    return {"name": node.name, "type": type_name, "label": label}


def relations(context: Context, options: Options) -> Outcome:
    name = dimension(options.text("type"))
    wanted = options.required("name", "name")
    graph = graph_of(context)
    key = f"{DIMENSIONS[name]}:{wanted}"
    if key not in graph.nodes:
        raise Refused(f"{wanted} ({name}) not found")
    incoming = [_vertex(graph, source, label) for source, target, label in sorted(graph.edges) if target == key]
    outgoing = [_vertex(graph, target, label) for source, target, label in sorted(graph.edges) if source == key]
    node = graph.nodes[key]
    lines = [f"{name} {wanted}" + "".join(f"  {attr}={value}" for attr, value in sorted(node.attributes.items()))]
    lines += [f"  <- {item['label']}: ({item['type']}) {item['name']}" for item in incoming]
    lines += [f"  -> {item['label']}: ({item['type']}) {item['name']}" for item in outgoing]
    return succeeded(f"relations of ({name}) {wanted}", text="\n".join(lines), name=wanted, type=name,
                     inVertices=incoming, outVertices=outgoing, **node.attributes)


def lineage(context: Context, options: Options) -> Outcome:
    pipeline = options.required("pipeline", "pipeline")
    full = graph_of(context)
    key = f"pipeline:{pipeline}"
    processes = {source for source, target, label in full.edges if target == key and label == "pipeline"}
    if not processes:  # Falcon's words
        raise Refused(f"No processes belonging to pipeline {pipeline}")
    chosen = Graph()
    for source, target, label in full.edges:
        if label in ("input", "output") and (source in processes or target in processes):
            for end in (source, target):
                node = full.nodes[end]
                chosen.node(node.type, node.name, **node.attributes)
            chosen.edge(source, target, label)
    for process in processes:
        node = full.nodes[process]
        chosen.node(node.type, node.name, **node.attributes)
    return succeeded(f"lineage of pipeline {pipeline}", text=to_dot(chosen), **chosen.as_json())


def dimensions(context: Context, options: Options) -> Outcome:
    graph = graph_of(context)
    counts = {name: sum(1 for node in graph.nodes.values() if node.type == kind) for name, kind in DIMENSIONS.items()}
    width = max(len(name) for name in counts)
    lines = [f"{name.ljust(width)}  {count}" for name, count in counts.items()]
    return succeeded("dimensions", text="\n".join(lines),
                     dimensions=[{"type": name, "count": count} for name, count in counts.items()])


def handle(context: Context, options: Options) -> Outcome:
    """Run the metadata action ``options`` names (as the declarations dispatch it)."""
    from falcon_airflow.operate.execution import dispatch

    return dispatch(context, options)
