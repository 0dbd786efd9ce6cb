"""``falcon-airflow explain``: what one instance of a process or feed reads, writes, keeps and copies.

Built on the instance arithmetic of :mod:`falcon_airflow.instances`; returns plain dicts (the JSON the command
prints) so that the text form and the JSON form cannot disagree.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import pendulum

from falcon_airflow.core.eviction import FeedGrid, last_instance, span_of
from falcon_airflow.core.times import parse_duration
from falcon_airflow.entities import Feed, Process, StorageKind
from falcon_airflow.errors import InstanceError
from falcon_airflow.instances.feeds import FeedOnCluster
from falcon_airflow.instances.process import ProcessOnCluster, check_instance
from falcon_airflow.instances.replication import replication_paths
from falcon_airflow.timekeeping import format_falcon_date
from falcon_airflow.workspace import Workspace


def _date(moment: datetime | None) -> str | None:
    return format_falcon_date(moment) if moment is not None else None


def explain_process(workspace: Workspace, process: Process, at: datetime, cluster: str | None) -> dict[str, Any]:
    runner = ProcessOnCluster.of(workspace, process, cluster)
    instance = runner.check_instance(at)
    inputs = [{"name": item.name, "feed": item.feed, "start": _date(item.start), "end": _date(item.end),
               "optional": item.optional, "partition": item.partition,
               "instances": [format_falcon_date(moment) for moment in item.instances], "paths": list(item.paths)}
              for item in runner.resolve_inputs(instance)]
    outputs = [{"name": item.name, "feed": item.feed, "instance": _date(item.instance), "path": item.path}
               for item in runner.resolve_outputs(instance)]
    return {"entity": {"type": "process", "name": process.name}, "cluster": runner.cluster_name,
            "instance": format_falcon_date(instance), "inputs": inputs, "outputs": outputs}


def _users(workspace: Workspace, feed: Feed, cluster: str,
           moment: datetime) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Which process instances on ``cluster`` read this feed instance, and which one writes it."""
    consumers: list[dict[str, Any]] = []
    producers: list[dict[str, Any]] = []
    for process in workspace.processes.values():
        placement = process.cluster(cluster)
        if placement is None or feed.name not in process.feed_names:
            continue
        runner = ProcessOnCluster(workspace, process, placement)
        try:
            if any(item.feed == feed.name for item in process.inputs):
                found = runner.consumers_of(feed.name, moment)
                if found:
                    consumers.append({"process": process.name, "instances": [format_falcon_date(m) for m in found]})
            if any(item.feed == feed.name for item in process.outputs):
                producer = runner.producer_of(feed.name, moment)
                if producer is not None:
                    producers.append({"process": process.name, "instance": format_falcon_date(producer)})
        except InstanceError:
            continue  # a process that cannot resolve this feed on this cluster uses none of its instances
    return consumers, producers


def _last_in_folder(on_cluster: FeedOnCluster, moment: datetime) -> datetime | None:
    """The last instance of the feed's grid in the folder (or partition) holding the instance ``moment``, which
    retention waits for (:mod:`falcon_airflow.core.eviction`); ``None`` when the storage names no dated folder."""
    zone = on_cluster.feed.zone.zone
    if on_cluster.storage is StorageKind.TABLE:
        table = on_cluster.table
        template = table.dated_template() if table is not None else None
    else:
        template = on_cluster.template()
    if template is None or not template.is_dated:
        return None
    path = template.resolve(moment, zone)
    span = span_of(template, path, zone)
    if span is None:
        return None
    grid = FeedGrid(parse_duration(str(on_cluster.feed.frequency)), zone, on_cluster.placement.validity.start)
    return last_instance(template, path, span, grid)


def explain_feed(workspace: Workspace, feed: Feed, at: datetime, cluster: str | None) -> dict[str, Any]:
    placements = feed.clusters if cluster is None else tuple(item for item in feed.clusters if item.name == cluster)
    if not placements:
        raise InstanceError(f"feed '{feed.name}' is not defined on cluster '{cluster}'")
    moment = pendulum.instance(at)
    clusters = []
    for placement in placements:
        on_cluster = FeedOnCluster(feed, placement, workspace.clusters.get(placement.name))
        entry: dict[str, Any] = {"cluster": placement.name,
                                 "type": placement.type.value if placement.type else None}
        try:
            check_instance(on_cluster.grid, moment, f"feed '{feed.name}' on cluster '{placement.name}'")
            entry["path"] = on_cluster.path(moment)
        except InstanceError as problem:
            entry["path"] = None
            entry["note"] = problem.message
        limit = placement.retention.limit
        entry["retention"] = {"limit": str(limit), "action": placement.retention.action,
                              "cut_off": format_falcon_date(moment.subtract(minutes=limit.minutes)),
                              "rule": "a folder goes when the last instance it holds is older than the cut-off"}
        try:
            last = _last_in_folder(on_cluster, moment) if entry["path"] is not None else None
        except (ValueError, OverflowError):  # a table URI that does not parse, a time past year 9999
            last = None
        if last is not None:
            entry["retention"]["folder_last_instance"] = format_falcon_date(last)
            entry["retention"]["evicted_after"] = format_falcon_date(last + timedelta(minutes=limit.minutes))
        if entry["path"] is not None:
            entry["consumers"], entry["producers"] = _users(workspace, feed, placement.name, moment)
        clusters.append(entry)
    replication: list[dict[str, Any]] = []
    for source, target in ((s, t) for t in feed.targets for s in feed.sources):
        if cluster is not None and cluster not in (source.name, target.name):
            continue
        source_side = FeedOnCluster(feed, source, workspace.clusters.get(source.name))
        target_side = FeedOnCluster(feed, target, workspace.clusters.get(target.name))
        try:
            copies = replication_paths(source_side, target_side, moment)
        except InstanceError as problem:
            replication.append({"source": source.name, "target": target.name, "note": problem.message})
            continue
        replication.append({"source": source.name, "target": target.name,
                            "copies": [{"from": origin, "to": destination} for origin, destination in copies]})
    return {"entity": {"type": "feed", "name": feed.name}, "instance": format_falcon_date(moment),
            "clusters": clusters, "replication": replication}


def explain(workspace: Workspace, name: str, at: datetime, *, cluster: str | None = None,
            entity_type: str | None = None) -> dict[str, Any]:
    """Explain the instance ``at`` of the process or feed called ``name`` (a process wins when both exist)."""
    process = workspace.processes.get(name) if entity_type in (None, "process") else None
    if process is not None:
        return explain_process(workspace, process, at, cluster)
    feed = workspace.feeds.get(name) if entity_type in (None, "feed") else None
    if feed is not None:
        return explain_feed(workspace, feed, at, cluster)
    kind = entity_type or "process or feed"
    raise InstanceError(f"no {kind} named '{name}' in the workspace")


def as_text(report: dict[str, Any]) -> str:
    entity = report["entity"]
    lines = [f"{entity['type']} {entity['name']} instance {report['instance']}"
             + (f" on cluster {report['cluster']}" if "cluster" in report else "")]
    for item in report.get("inputs", []):
        flags = " (optional)" if item["optional"] else ""
        lines.append(f"  input {item['name']} <- feed {item['feed']}{flags}: {item['start'] or '-'} .. "
                     f"{item['end'] or '-'}, {len(item['instances'])} instance(s)")
        lines.extend(f"    {moment}  {path}" for moment, path in zip(item["instances"], item["paths"], strict=True))
    for item in report.get("outputs", []):
        lines.append(f"  output {item['name']} -> feed {item['feed']}: {item['instance'] or '-'}  "
                     f"{item['path'] or '(no instance)'}")
    for item in report.get("clusters", []):
        kind = f" ({item['type']})" if item["type"] else ""
        retention = item["retention"]
        lines.append(f"  cluster {item['cluster']}{kind}: {item['path'] or item.get('note')}")
        lines.append(f"    retention {retention['limit']} ({retention['action']}): instances before "
                     f"{retention['cut_off']} are evicted")
        if retention.get("evicted_after"):
            shared = (f", when its folder's last instance {retention['folder_last_instance']} has expired"
                      if retention["folder_last_instance"] != report["instance"] else "")
            lines.append(f"    this instance is evicted by the first retention run after "
                         f"{retention['evicted_after']}{shared}")
        for consumer in item.get("consumers", []):
            lines.append(f"    read by process {consumer['process']} instance(s) {', '.join(consumer['instances'])}")
        for producer in item.get("producers", []):
            lines.append(f"    written by process {producer['process']} instance {producer['instance']}")
    for item in report.get("replication", []):
        lines.append(f"  replication {item['source']} -> {item['target']}" + (f": {item['note']}" if "note" in item
                                                                                else ""))
        lines.extend(f"    {copy['from']} -> {copy['to']}" for copy in item.get("copies", []))
    return "\n".join(lines)


__all__ = ["as_text", "explain", "explain_feed", "explain_process"]
