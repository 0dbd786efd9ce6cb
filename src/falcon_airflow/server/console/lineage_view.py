"""The console's lineage view of an entity: its entity graph, the graph of its recent instances, a feed's column
lineage and an Oozie process's workflow.

``GET /console/api/lineage/<type>/<name>?instance=`` answers, once ``entity -definition`` says the caller may
read the entity (the same authorization and audit as the REST API):

* ``entities``: the feeds and processes the entity's data flows through (inputs and outputs, both ways), the
  clusters they are stored in or run on, replication (``replicated-to``, from the source clusters) and retention
  (the limit and action on each ``stored-in`` edge), from the store's definitions
  (:func:`falcon_airflow.lineage.graph.add_workspace`'s vocabulary);
* ``instances``: the instances of the entity the OpenLineage events know (the newest :data:`RECENT`, or the one
  ``instance`` names) with the feed and process instances they read and wrote, the replica a replication made and
  the instances a retention run dropped;
* ``columns`` (a feed): each column of the feed's datasets with its upstream columns across jobs
  (:func:`falcon_airflow.lineage.query.column_lineage`: the transformation type, DIRECT or INDIRECT, and subtype)
  and its history (:func:`~falcon_airflow.lineage.query.field_history`: written, read, copied, dropped);
* ``workflow`` (an Oozie process): the workflow's nodes and transitions (:mod:`falcon_airflow.oozie.graph`).

Both graphs come with a layout (each node's box), computed here as ``falcon-airflow lineage graph --format svg``
lays it out; the page draws them as SVG, every label as text. The events are those ``[openlineage] transport``
writes to a file (``make run``: ``airflow-home/lineage/events.jsonl``), else the default event logs.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response

from falcon_airflow.compiler.common import resolve_application
from falcon_airflow.compiler.oozie import workflow_file
from falcon_airflow.core.naming import parse_job_name
from falcon_airflow.core.times import format_instant
from falcon_airflow.entities import EntityType, Process
from falcon_airflow.entities.process import WorkflowEngine
from falcon_airflow.lineage.events import default_event_logs, load_event_logs
from falcon_airflow.lineage.graph import NODE_HEIGHT, Graph, add_events, layout
from falcon_airflow.lineage.query import LineageIndex, QueryError, column_lineage, field_history, parse_time
from falcon_airflow.oozie import parse_workflow_file
from falcon_airflow.oozie.graph import columns_of, graph_of
from falcon_airflow.server.configuration import ServerContext
from falcon_airflow.server.console.acting import failed, off_loop, run_action
from falcon_airflow.server.console.routes import PREFIX, ConsoleError
from falcon_airflow.workspace import Workspace

router = APIRouter(prefix=PREFIX)

RECENT = 3
"""Instances the instance graph shows when none is asked for."""
MAX_STEPS = 60
"""Upstream steps and history rows a column shows (newest first)."""
DEPTH = 6
"""How far upstream a column's lineage is followed."""
FLOW_STEPS = 4
"""How many feed or process steps from the entity its entity graph reaches."""
FLOW_LABELS = ("input", "output")
"""The edge labels the layout orders columns by (the data flow)."""


# -- the events --------------------------------------------------------------------------------------------------

def event_logs(context: ServerContext) -> list[Path]:
    """Where the OpenLineage events are: the file ``[openlineage] transport`` writes, else the default logs."""
    text = (context.config.get("openlineage", "transport") or "").strip()
    try:
        transport = json.loads(text) if text else {}
    except ValueError:
        transport = {}
    if isinstance(transport, dict) and transport.get("type") == "file" and transport.get("log_file_path"):
        path = Path(str(transport["log_file_path"]))
        return [path] if path.exists() else []
    return default_event_logs()


_cache_lock = threading.Lock()
_cache: dict[tuple[tuple[str, int, int], ...], LineageIndex] = {}


def lineage_index(paths: Sequence[Path]) -> LineageIndex:
    """The index of the events, read again only when a log changed (a page load reads it once)."""
    key = tuple((str(path), path.stat().st_mtime_ns, path.stat().st_size) for path in paths if path.exists())
    with _cache_lock:
        found = _cache.get(key)
    if found is None:
        found = LineageIndex(load_event_logs([Path(item[0]) for item in key]).events)
        with _cache_lock:
            _cache.clear()  # only the newest state of the logs is worth keeping
            _cache[key] = found
    return found


# -- graphs ------------------------------------------------------------------------------------------------------

def drawn(graph: Graph, labels: Mapping[tuple[str, str], str] | None = None) -> dict[str, Any]:
    """The graph with each node's box and each edge's label as the page shows it."""
    boxes, width, height = layout(graph)
    shown = labels or {}
    return {"width": width, "height": height, "nodeHeight": NODE_HEIGHT,
            "nodes": [{"id": node.id, "type": node.type, "name": node.name,
                       "attributes": {key: str(value) for key, value in node.attributes.items()},
                       "x": boxes[node.id][0], "y": boxes[node.id][1], "width": boxes[node.id][2]}
                      for node in graph.nodes.values() if node.id in boxes],
            "edges": [{"from": source, "to": target, "label": shown.get((source, target), label)}
                      for source, target, label in graph.edges if source in boxes and target in boxes]}


def _flow(workspace: Workspace, kind: EntityType, name: str) -> tuple[set[str], set[str]]:
    """The feeds and processes connected to the entity through inputs and outputs (both ways), up to
    :data:`FLOW_STEPS` steps away: a feed read by hundreds of processes does not draw the whole store."""
    readers: dict[str, set[str]] = {}
    writers: dict[str, set[str]] = {}
    for process in workspace.processes.values():
        for item in process.inputs:
            readers.setdefault(item.feed, set()).add(process.name)
        for output in process.outputs:
            writers.setdefault(output.feed, set()).add(process.name)
    feeds: set[str] = set()
    processes: set[str] = set()
    frontier: list[tuple[str, str]] = [(kind.value, name)]
    for _ in range(FLOW_STEPS + 1):
        following: list[tuple[str, str]] = []
        for what, which in frontier:
            if what == "feed" and which not in feeds:
                feeds.add(which)
                following += [("process", item) for item in readers.get(which, set()) | writers.get(which, set())]
            elif what == "process" and which not in processes and which in workspace.processes:
                processes.add(which)
                found = workspace.processes[which]
                following += [("feed", item.feed) for item in found.inputs]
                following += [("feed", item.feed) for item in found.outputs]
        frontier = following
    return feeds, processes


def entity_graph(workspace: Workspace, kind: EntityType, name: str) -> dict[str, Any]:
    graph = Graph()
    labels: dict[tuple[str, str], str] = {}
    if kind is EntityType.CLUSTER:
        cluster = graph.node("cluster", name)
        for feed in workspace.feeds.values():
            if any(placement.name == name for placement in feed.clusters):
                graph.edge(graph.node("feed", feed.name), cluster, "stored-in")
        for process in workspace.processes.values():
            if process.cluster(name) is not None:
                graph.edge(graph.node("process", process.name), cluster, "runs-on")
        return drawn(graph)
    feeds, processes = _flow(workspace, kind, name) if kind in (EntityType.FEED, EntityType.PROCESS) else (set(), set())
    for feed_name in sorted(feeds):
        defined = workspace.feeds.get(feed_name)
        node = graph.node("feed", feed_name, frequency=str(defined.frequency) if defined else None,
                          selected="yes" if (kind, feed_name) == (EntityType.FEED, name) else None)
        if defined is None:
            continue
        sources = [placement.name for placement in defined.clusters if placement.is_source]
        for placement in defined.clusters:
            cluster = graph.node("cluster", placement.name)
            retention = placement.retention
            kept = f"retention {retention.limit} {retention.action}" if retention is not None else ""
            if placement.is_target and sources:
                graph.edge(node, cluster, "replicated-to")
                labels[(node, cluster)] = " ".join(
                    part for part in (f"replicated from {', '.join(sources)}", kept) if part)
            else:
                graph.edge(node, cluster, "stored-in")
                labels[(node, cluster)] = " ".join(part for part in ("stored in", kept) if part)
    for process_name in sorted(processes):
        process = workspace.processes[process_name]
        node = graph.node("process", process_name, frequency=str(process.frequency),
                          selected="yes" if (kind, process_name) == (EntityType.PROCESS, name) else None)
        for item in process.inputs:
            graph.edge(graph.node("feed", item.feed), node, "input")
        for output in process.outputs:
            graph.edge(node, graph.node("feed", output.feed), "output")
        for runs_on in process.clusters:
            graph.edge(node, graph.node("cluster", runs_on.name), "runs-on")
    if kind is EntityType.DATASOURCE:
        graph.node("datasource", name)
    return drawn(graph, labels)


def _instance_id(node_id: str) -> tuple[str, str] | None:
    """(entity, instance time) of an instance node id (``feed-instance:F@C/T``, ``process-instance:P/T``)."""
    kind, _, rest = node_id.partition(":")
    if kind not in ("feed-instance", "process-instance") or "/" not in rest:
        return None
    entity, _, moment = rest.rpartition("/")
    return entity.split("@", 1)[0], moment


def instance_graph(index: LineageIndex, kind: EntityType, name: str, instance: str | None) -> dict[str, Any]:
    full = add_events(Graph(), index, instances=True)
    labels: dict[tuple[str, str], str] = {}
    _add_lifecycle_runs(full, index, labels)
    flow = {(source, target): label for source, target, label in full.edges
            if label in FLOW_LABELS or (source, target) in labels}
    own = sorted({_instance_id(key)[1] for key in full.nodes  # type: ignore[index]
                  if _instance_id(key) is not None and _instance_id(key)[0] == name  # type: ignore[index]
                  and full.nodes[key].type == f"{kind.value}-instance"})
    chosen = [instance] if instance else own[-RECENT:]
    centre = {key for key in full.nodes if (found := _instance_id(key)) is not None and found[0] == name
              and found[1] in chosen and full.nodes[key].type == f"{kind.value}-instance"}
    keep = set(centre)
    for source, target in flow:  # the instances next to the chosen ones, and the jobs next to those
        if source in centre or target in centre:
            keep |= {source, target}
    for source, target in flow:
        if (source in keep or target in keep) and (full.nodes[source].type == "process-instance"
                                                   or full.nodes[target].type == "process-instance"):
            keep |= {source, target}
    graph = Graph()
    for key in keep:
        node = full.nodes[key]
        graph.node(node.type, node.name, **node.attributes)
    for (source, target), label in flow.items():
        if source in keep and target in keep:
            graph.edge(source, target, label if label in FLOW_LABELS else "output")
    answer = drawn(graph, labels)
    answer["instances"] = own
    answer["shown"] = chosen
    return answer


def _add_lifecycle_runs(graph: Graph, index: LineageIndex, labels: dict[tuple[str, str], str]) -> None:
    """Replication and retention runs as job instances: a replication reads an instance on its source cluster and
    writes the replica; a retention run drops (or moves) the instances it evicted."""
    dropped: dict[str, list[Any]] = {}
    for change in index.lifecycle:
        dropped.setdefault(change.run_id, []).append(change)
    for run in index.runs.values():
        name = parse_job_name(run.job_name)
        when = run.nominal_start or run.first_time  # a job without a nominal time: when it ran
        if name is None or name.kind not in ("replication", "retention") or not when:
            continue
        moment = _falcon_time(when)
        job = graph.node("process-instance", f"{name.kind} {name.entity} {'→'.join(name.clusters)}/{moment}",
                         job=name.kind, feed=name.entity)
        if name.kind == "replication":
            for uses, label in ((run.inputs, "input"), (run.outputs, "output")):
                for dataset in uses:
                    for item in index.instances_of(dataset):
                        if item.instance is None:
                            continue
                        node = graph.node("feed-instance", f"{item.feed}@{item.cluster}/{item.instance}",
                                          path=dataset.uri)
                        graph.edge(node, job, label) if label == "input" else graph.edge(job, node, label)
                        labels[(node, job) if label == "input" else (job, node)] = (
                            "read" if label == "input" else "replicated to")
            continue
        for change in dropped.get(run.run_id, []):
            subject = change.previous if change.previous is not None else change.dataset
            for item in index.instances_of(subject):
                if item.instance is None:
                    continue
                node = graph.node("feed-instance", f"{item.feed}@{item.cluster}/{item.instance}",
                                  path=subject.uri, evicted=change.state)
                graph.edge(node, job, "input")
                labels[(node, job)] = f"evicted ({change.state.lower()})"


def _falcon_time(moment: str) -> str:
    """An event's time (ISO 8601) as a Falcon time, as the instance nodes name instances."""
    return format_instant(parse_time(moment))


# -- columns -----------------------------------------------------------------------------------------------------

def _where(described: Mapping[str, Any]) -> str:
    feeds = described.get("feed") or []
    return ", ".join(feeds) if feeds else str(described.get("dataset") or "")


def _kinds(transformations: Iterable[Mapping[str, Any]]) -> list[str]:
    return list(dict.fromkeys(
        f"{item.get('type', '?')}/{item.get('subtype', '?')}" + (" (masking)" if item.get("masking") else "")
        for item in transformations))


def _column_names(index: LineageIndex, feed: str) -> list[str]:
    datasets = index.resolve(feed)
    names: dict[str, None] = {}
    for dataset in datasets:
        names.update(dict.fromkeys(index.schemas.get(dataset, [])))
    for edge in index.edges:
        if edge.output in datasets and not edge.dataset_level:
            names[edge.output_field] = None
    return list(names)


def _upstream(index: LineageIndex, feed: str, column: str) -> list[dict[str, Any]]:
    answer = column_lineage(index, feed, column, direction="upstream", depth=DEPTH)
    steps: dict[tuple[Any, ...], dict[str, Any]] = {}
    for origin in answer["instances"]:
        for step in origin.get("upstream", []):
            kinds = _kinds(step.get("transformations") or [])
            # one row per edge whatever instance or starting cluster reached it, at its shortest depth
            key = (_where(step["from"]), step["from"]["field"], _where(step["to"]), step["to"]["field"],
                   tuple(kinds), step["run"].get("job"), step.get("datasetLevel"))
            row = steps.setdefault(key, {
                "depth": step["depth"], "from": {"where": key[0], "field": key[1]},
                "to": {"where": key[2], "field": key[3]}, "transformations": kinds,
                "datasetLevel": bool(step.get("datasetLevel")), "job": step["run"].get("job"), "instances": []})
            row["depth"] = min(row["depth"], step["depth"])
            row["instances"] = sorted(set(row["instances"]) | set(step["to"].get("instances") or []))
    return sorted(steps.values(), key=lambda row: (row["depth"], row["from"]["where"], row["from"]["field"]))[
        :MAX_STEPS]


def _history(index: LineageIndex, feed: str, column: str) -> list[dict[str, Any]]:
    rows = []
    for row in field_history(index, feed, column)["operations"]:
        rows.append({"operation": row["operation"], "where": _where(row["dataset"]),
                     "instances": row["dataset"].get("instances") or [], "job": row["run"].get("job"),
                     "at": row["run"].get("eventTime"), "state": row["run"].get("state"),
                     "to": ({"where": _where(row["to"]), "field": row["to"].get("field")} if row.get("to") else None),
                     "from": [{"where": _where(item), "field": item.get("field"),
                               "transformations": _kinds(item.get("transformations") or [])}
                              for item in row.get("from") or []]})
    return list(reversed(rows))[:MAX_STEPS]


def column_view(index: LineageIndex, feed: str) -> list[dict[str, Any]]:
    try:
        return [{"name": column, "upstream": _upstream(index, feed, column), "history": _history(index, feed, column)}
                for column in _column_names(index, feed)]
    except QueryError:
        return []  # no event names the feed yet


# -- an Oozie workflow -------------------------------------------------------------------------------------------

def workflow_view(workspace: Workspace, process: Process, entities: Path) -> dict[str, Any]:
    """The workflow's graph, read where its DAG builder reads it (the entities folder, or a file:// storage)."""
    cluster = workspace.clusters.get(process.clusters[0].name) if process.clusters else None
    location = resolve_application(process.workflow.path.strip(), entities, cluster)
    if "://" in location and not location.startswith("file://"):
        return {"error": f"the workflow is at {location}, which is not readable here"}
    definition = workflow_file(location)
    if not definition.is_file():
        return {"error": f"no workflow at {definition}"}
    parsed = parse_workflow_file(definition)
    if parsed.workflow is None:
        first = next((issue.message for issue in parsed.issues if issue.is_error), "not a workflow")
        return {"error": f"{definition}: {first}"}
    graph = graph_of(parsed.workflow)
    columns = columns_of(parsed.workflow)
    rows: dict[int, int] = {}
    for node in graph["nodes"]:
        column = columns[node["name"]]
        node.update(column=column, row=rows.get(column, 0))
        rows[column] = rows.get(column, 0) + 1
    return {"name": parsed.workflow.name, **graph}


# -- the route ---------------------------------------------------------------------------------------------------

def lineage(context: ServerContext, kind: EntityType, name: str, instance: str | None) -> dict[str, Any]:
    workspace = context.open_store().workspace()
    answer: dict[str, Any] = {"type": kind.value, "name": name, "entities": entity_graph(workspace, kind, name)}
    logs = event_logs(context)
    index = lineage_index(logs)
    if kind in (EntityType.FEED, EntityType.PROCESS):
        answer["instances"] = instance_graph(index, kind, name, instance)
    if kind is EntityType.FEED:
        answer["columns"] = column_view(index, name)
    stored = workspace.get(kind, name)
    if isinstance(stored, Process) and stored.workflow.engine is WorkflowEngine.OOZIE:
        answer["workflow"] = workflow_view(workspace, stored, context.entities)
    return answer


@router.get("/api/lineage/{entity_type}/{name}")
async def entity_lineage(request: Request, entity_type: str, name: str) -> Response:
    try:
        kind = EntityType(entity_type.lower())
    except ValueError:
        return JSONResponse({"error": f"unknown entity type: {entity_type}"}, status_code=400)
    instance = (request.query_params.get("instance") or "").strip() or None
    try:
        # the definition first: it is the action that says whether the caller may read the entity at all
        await run_action(request, "entity", "definition", {"type": kind.value, "name": name})
    except ConsoleError as problem:
        return failed(problem)
    context: ServerContext = request.app.state.falcon
    return JSONResponse(await off_loop(lambda: lineage(context, kind, name, instance)))
