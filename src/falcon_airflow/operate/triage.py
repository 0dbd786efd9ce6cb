"""Why an instance waits: Falcon's ``instance -triage``, an upstream walk down to the root cause.

For a process instance: every input feed instance that is not available (its availability flag, else its folder),
with its path; for each, the process instance that produces it, with its state and, when that one did not
succeed, its own missing inputs, recursively; a feed instance nothing produces is expected from outside. A missing
instance whose producer SUCCEEDED was written and is gone since (evicted by retention when it is older than the
feed's retention limit, else deleted by hand or by another job): the walk says so, as it says of a succeeded
instance under triage whose own output is gone. Late-data re-runs still pending are said too. For a feed instance:
whether it is available and, if not, its producers.

The same walk gives ``instance -status`` its Details for WAITING instances (:func:`waiting_details`), and Falcon's
own answer shape, a graph per cluster (:func:`triage_graphs`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import urlsplit

from falcon_airflow.entities import Feed, Process
from falcon_airflow.errors import FalconAirflowError
from falcon_airflow.instances.feeds import FeedOnCluster
from falcon_airflow.instances.process import ProcessOnCluster, check_instance
from falcon_airflow.instances.s3 import S3_SCHEMES, client_settings
from falcon_airflow.instances.storage import StorageError, exists_by_bucket
from falcon_airflow.operate.airflow_api import AirflowClient, AirflowError
from falcon_airflow.operate.lifecycles import DagRef, Lifecycle, entity_dags
from falcon_airflow.operate.runs import assess, latest
from falcon_airflow.operate.states import InstanceStatus
from falcon_airflow.timekeeping import format_falcon_date
from falcon_airflow.workspace import Workspace

MAX_DEPTH = 8
NO_RUN = "NOT_STARTED"
"""A producer instance Airflow has no run for yet (its time has not come, or its DAG is paused or missing)."""
_LATE_PENDING = {"deferred", "up_for_reschedule", "running", "queued", "scheduled", "up_for_retry", None}

Exists = Callable[[str], bool]


@dataclass
class ProcessNode:
    """A process instance: its state in Airflow and what it still misses."""

    process: str
    cluster: str
    instance: datetime
    status: str
    dag_id: str
    run_id: str | None = None
    missing: list[MissingInput] = field(default_factory=list)
    late: str | None = None
    note: str | None = None
    lost: list[LostOutput] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        return {"type": "process", "name": self.process, "cluster": self.cluster,
                "instance": format_falcon_date(self.instance), "status": self.status, "dagId": self.dag_id,
                "dagRunId": self.run_id, "missingInputs": [item.as_json() for item in self.missing],
                "lateData": self.late, "note": self.note, "missingOutputs": [item.as_json() for item in self.lost]}


@dataclass
class LostOutput:
    """An output instance of a succeeded process instance that is not there (any more)."""

    feed: str
    cluster: str
    instance: datetime
    path: str
    cause: str

    def as_json(self) -> dict[str, Any]:
        return {"feed": self.feed, "cluster": self.cluster, "instance": format_falcon_date(self.instance),
                "path": self.path, "cause": self.cause}


@dataclass
class MissingInput:
    """A feed instance a process instance waits for, and who should produce it."""

    input: str | None
    feed: str
    cluster: str
    instance: datetime
    path: str
    producers: list[ProcessNode] = field(default_factory=list)
    gone: str | None = None
    """Set when a producer of the instance SUCCEEDED: it was written and is gone since; why (retention or not)."""

    @property
    def succeeded_producer(self) -> ProcessNode | None:
        return next((item for item in self.producers if item.status == InstanceStatus.SUCCEEDED.value), None)

    def gone_text(self) -> str | None:
        """One sentence: the instance is missing although its producer succeeded, and why it may be gone."""
        done = self.succeeded_producer
        if self.gone is None or done is None:
            return None
        return (f"missing although its producer (process) {done.process} {format_falcon_date(done.instance)} "
                f"SUCCEEDED: {self.gone}; a rerun of the producer writes it again")

    def as_json(self) -> dict[str, Any]:
        return {"input": self.input, "feed": self.feed, "cluster": self.cluster,
                "instance": format_falcon_date(self.instance), "path": self.path,
                "producers": [item.as_json() for item in self.producers], "gone": self.gone_text()}


def storage_check(workspace: Workspace) -> Exists:
    """Whether a location exists, asked of S3 with the client settings of the cluster whose storage it is on (the
    bucket of a cluster's interfaces), of any other storage as it is."""
    settings: dict[str, dict[str, str]] = {}
    for cluster in workspace.clusters.values():
        chosen = client_settings(cluster.property_map)
        for interface in cluster.interfaces:
            parts = urlsplit(interface.endpoint.strip())
            if chosen and parts.scheme in S3_SCHEMES:
                settings.setdefault(parts.netloc, chosen)
    return exists_by_bucket(settings)


class Walk:
    """One triage walk: the store's workspace, Airflow, a file-system check, the time it is (what retention has
    evicted by now), and what was already visited."""

    def __init__(self, workspace: Workspace, client: AirflowClient, check: Exists | None = None,
                 now: datetime | None = None) -> None:
        self.workspace = workspace
        self.client = client
        self.check = check if check is not None else storage_check(workspace)
        self.now = now if now is not None else datetime.now(UTC)
        self.visited: set[tuple[str, str, datetime]] = set()

    def _available(self, marker: str) -> bool:
        try:
            return self.check(marker)
        except StorageError:
            return False

    # -- processes --------------------------------------------------------------------------------------------------

    def _run(self, process: Process, cluster: str, moment: datetime) -> tuple[DagRef | None, Any]:
        ref = next((item for item in entity_dags(process, frozenset({Lifecycle.EXECUTION}))
                    if item.cluster == cluster), None)
        if ref is None:
            return None, None
        try:
            runs = self.client.runs(ref.dag_id, first=moment, last=moment)
        except AirflowError:
            return ref, None
        if not runs:
            return ref, None
        return ref, assess(self.client, ref, latest(runs))

    def process(self, process: Process, cluster: str, moment: datetime, depth: int = 0) -> ProcessNode:
        runner = ProcessOnCluster.of(self.workspace, process, cluster)
        instance = runner.check_instance(moment)
        ref, record = self._run(process, cluster, instance)
        status = record.status.value if record is not None else NO_RUN
        node = ProcessNode(process.name, cluster, instance, status,
                           ref.dag_id if ref is not None else "-", record.run_id if record is not None else None)
        key = ("process", f"{process.name}@{cluster}", instance)
        if key in self.visited:
            node.note = "already shown above"
            return node
        self.visited.add(key)
        if record is not None and record.details:
            node.note = record.details
        if status in (InstanceStatus.SUCCEEDED.value, InstanceStatus.RUNNING.value):
            # its work is done or under way: what may still come is a late-data re-run
            node.late = self._late(process, runner, instance, record)
        if status == InstanceStatus.SUCCEEDED.value:
            if depth == 0:  # the instance under triage: is what it wrote still there?
                node.lost = self._lost_outputs(runner, instance)
            return node
        if depth >= MAX_DEPTH:
            node.note = "the walk stops here (too deep)"
            return node
        node.missing = self._missing_inputs(runner, instance, depth)
        return node

    def _missing_inputs(self, runner: ProcessOnCluster, instance: datetime, depth: int) -> list[MissingInput]:
        found: list[MissingInput] = []
        for item in runner.resolve_inputs(instance, self._available):
            if item.optional:
                continue  # an optional input never holds an instance back
            feed_on = runner.feed(item.feed)
            for moment in item.instances:
                marker = feed_on.availability_marker(moment)
                if marker is None or self._available(marker):
                    continue  # a table without a metastore cannot be checked; an available instance is no cause
                found.append(self._missing(item.name, feed_on, moment, depth))
        return found

    def _lost_outputs(self, runner: ProcessOnCluster, instance: datetime) -> list[LostOutput]:
        lost: list[LostOutput] = []
        for output in runner.resolve_outputs(instance):
            if output.instance is None:
                continue
            feed_on = runner.feed(output.feed)
            marker = feed_on.availability_marker(output.instance)
            if marker is None or self._available(marker):
                continue
            lost.append(LostOutput(feed_on.name, feed_on.cluster_name, output.instance, feed_on.path(output.instance),
                                   self._removal(feed_on, output.instance)))
        return lost

    def _removal(self, feed_on: FeedOnCluster, moment: datetime) -> str:
        """Why a feed instance that was written is not there: retention (older than the cluster's retention limit)
        or someone else."""
        limit = feed_on.placement.retention.limit
        if moment < self.now - limit.as_timedelta():
            return (f"it is older than the retention limit {limit} of feed {feed_on.name} on {feed_on.cluster_name}: "
                    "retention evicted it")
        return (f"it is within the retention limit {limit} of feed {feed_on.name} on {feed_on.cluster_name}: it was "
                "deleted by hand or by another job")

    def _missing(self, input_name: str | None, feed_on: FeedOnCluster, moment: datetime,
                 depth: int) -> MissingInput:
        entry = MissingInput(input_name, feed_on.name, feed_on.cluster_name, moment, feed_on.path(moment))
        for process in self.workspace.processes.values():
            if feed_on.name not in (item.feed for item in process.outputs) or process.cluster(
                    feed_on.cluster_name) is None:
                continue
            try:
                producer = ProcessOnCluster.of(self.workspace, process, feed_on.cluster_name).producer_of(
                    feed_on.name, moment)
            except FalconAirflowError:
                continue
            if producer is not None:
                entry.producers.append(self.process(process, feed_on.cluster_name, producer, depth + 1))
        if entry.succeeded_producer is not None:
            entry.gone = self._removal(feed_on, moment)
        return entry

    def _late(self, process: Process, runner: ProcessOnCluster, instance: datetime, record: Any) -> str | None:
        late = process.late_process
        if late is None or record is None:
            return None
        cut_offs = []
        for item in late.late_inputs:
            source = next((each for each in process.inputs if each.name == item.input), None)
            feed = self.workspace.feeds.get(source.feed) if source is not None else None
            if feed is not None and feed.late_arrival is not None:
                cut_offs.append(feed.late_arrival.cut_off.millis)
        task = record.task("late_data")
        if not cut_offs or task is None:
            return None
        state = task.get("state")
        until = format_falcon_date(instance + timedelta(milliseconds=max(cut_offs)))
        if state in _LATE_PENDING:
            return f"late-data re-runs pending: inputs are checked for late data until {until} ({late.policy.value}, " \
                   f"every {late.delay})"
        return f"late-data checks ended ({state}) at the cut-off {until}"

    # -- feeds ------------------------------------------------------------------------------------------------------

    def feed(self, feed: Feed, cluster: str, moment: datetime) -> MissingInput | None:
        """``None`` when the feed instance is available; else who should produce it."""
        placement = feed.cluster(cluster)
        if placement is None:
            raise FalconAirflowError(f"feed '{feed.name}' is not defined on cluster '{cluster}'")
        feed_on = FeedOnCluster(feed, placement, self.workspace.clusters.get(cluster))
        instance = check_instance(feed_on.grid, moment, f"feed '{feed.name}' on cluster '{cluster}'")
        marker = feed_on.availability_marker(instance)
        if marker is None or self._available(marker):
            return None
        return self._missing(None, feed_on, instance, 0)


# -- text -----------------------------------------------------------------------------------------------------------

def _process_lines(node: ProcessNode, indent: int) -> list[str]:
    pad = "  " * indent
    lines = [f"{pad}(process) {node.process} {format_falcon_date(node.instance)} on {node.cluster}: {node.status}"
             + (f"  [{node.note}]" if node.note else "")]
    for item in node.missing:
        lines += _missing_lines(item, indent + 1)
    for output in node.lost:
        lines.append(f"{pad}  output (feed) {output.feed} {format_falcon_date(output.instance)} at {output.path} is "
                     f"missing although this instance SUCCEEDED: {output.cause}; a rerun writes it again")
    if not node.missing and not node.note:
        if node.status in (InstanceStatus.RUNNING.value, InstanceStatus.READY.value):
            lines.append(f"{pad}  its inputs are there and it is {node.status.lower()}: its output comes when it "
                         "finishes")
        elif node.status not in (InstanceStatus.SUCCEEDED.value, InstanceStatus.WAITING.value, NO_RUN):
            lines.append(f"{pad}  every input is available; the cause is this instance itself ({node.status}): "
                         "instance -logs shows why")
    if node.late:
        lines.append(f"{pad}  {node.late}")
    return lines


def _missing_lines(item: MissingInput, indent: int) -> list[str]:
    pad = "  " * indent
    what = f"input {item.input}: " if item.input else ""
    lines = [f"{pad}missing {what}(feed) {item.feed} {format_falcon_date(item.instance)} at {item.path}"]
    gone = item.gone_text()
    if gone:
        lines.append(f"{pad}  {gone}")
    if not item.producers:
        lines.append(f"{pad}  no process produces it on {item.cluster}: it is expected from outside")
    for producer in item.producers:
        lines += [f"{pad}  produced by", *_process_lines(producer, indent + 2)]
    return lines


def triage_text(nodes: list[ProcessNode | MissingInput], available: list[str]) -> str:
    lines: list[str] = []
    for node in nodes:
        lines += _process_lines(node, 0) if isinstance(node, ProcessNode) else _missing_lines(node, 0)
    lines += available
    return "\n".join(lines)


# -- Falcon's graph -------------------------------------------------------------------------------------------------

def _vertex(kind: str, name: str, cluster: str, instance: datetime) -> str:
    """An instance as Falcon's triage names it (its schedulable-instance text)."""
    return f"name: {name}, type: {kind}, cluster: {cluster}, instanceTime: {format_falcon_date(instance)}, tags: "


def _process_status(node: ProcessNode) -> str:
    return "[ Not Available ]" if node.status == NO_RUN else f"[{node.status}]"


def triage_graphs(nodes: list[ProcessNode | MissingInput], available: list[tuple[str, str, datetime]]
                  ) -> list[dict[str, Any]]:
    """Falcon's ``triageGraphs``: per walked instance, vertices labelled with their status and edges ``produces``
    (producer process instance -> feed instance) and ``consumed by`` (feed instance -> consumer).

    Falcon's walk also lists the available inputs of a process instance as ``[AVAILABLE]`` vertices; this one
    visits only what is missing, so a graph holds the chain to the causes and nothing that is already there."""
    graphs: list[dict[str, Any]] = []

    def add_process(node: ProcessNode, vertices: dict[str, None], edges: list[dict[str, str]]) -> str:
        label = _vertex("PROCESS", node.process, node.cluster, node.instance) + _process_status(node)
        vertices[label] = None
        for item in node.missing:
            feed = add_feed(item, vertices, edges)
            edges.append({"from": feed, "to": label, "label": "consumed by"})
        return label

    def add_feed(item: MissingInput, vertices: dict[str, None], edges: list[dict[str, str]]) -> str:
        label = _vertex("FEED", item.feed, item.cluster, item.instance) + "[MISSING]"
        vertices[label] = None
        for producer in item.producers:
            edges.append({"from": add_process(producer, vertices, edges), "to": label, "label": "produces"})
        return label

    for node in nodes:
        vertices: dict[str, None] = {}
        edges: list[dict[str, str]] = []
        if isinstance(node, ProcessNode):
            add_process(node, vertices, edges)
        else:
            add_feed(node, vertices, edges)
        graphs.append({"vertices": list(vertices), "edges": list({tuple(edge.items()): edge for edge in edges}
                                                                 .values())})
    for feed, cluster, instance in available:
        graphs.append({"vertices": [_vertex("FEED", feed, cluster, instance) + "[AVAILABLE]"], "edges": []})
    return graphs


def root_causes(node: ProcessNode) -> list[str]:
    """The deepest problems under a process instance, one line each (for -status Details)."""
    causes: list[str] = []
    for item in node.missing:
        where = f"(feed) {item.feed} {format_falcon_date(item.instance)} at {item.path}"
        if not item.producers:
            causes.append(f"{where}, expected from outside")
            continue
        done = item.succeeded_producer
        if item.gone and done is not None:
            causes.append(f"{where}, gone although its producer (process) {done.process} "
                          f"{format_falcon_date(done.instance)} SUCCEEDED")
            continue
        for producer in item.producers:
            deeper = root_causes(producer)
            state = f"(process) {producer.process} {format_falcon_date(producer.instance)} {producer.status}"
            causes += deeper if deeper else [f"{where}, producer {state}"]
    return causes


def waiting_details(node: ProcessNode) -> str:
    """One line: how many input instances are missing and the first root causes."""
    if not node.missing:
        return ""
    causes = list(dict.fromkeys(root_causes(node)))
    shown = "; ".join(causes[:2]) + (f"; and {len(causes) - 2} more" if len(causes) > 2 else "")
    return f"waiting for {len(node.missing)} input instance(s): {shown} (instance -triage shows the chain)"
