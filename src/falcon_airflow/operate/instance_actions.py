"""``instance``: Falcon's instance operations on the DAG runs of an entity.

An instance of a process (lifecycle EXECUTION), of a feed's retention (EVICTION) or of its replication
(REPLICATION) is the DAG run whose logical date is the instance time. Statuses: see
:mod:`falcon_airflow.operate.states`.

=========  ===================================================================================================
-kill      the run is marked failed (REST PATCH state=failed) with a KILLED note: running tasks are stopped and
           a running Spark application is killed by the operator's ``on_kill``; deferred sensors are cancelled
-suspend   the same, with a SUSPENDED note: nothing of the instance runs any more and the scheduler leaves it
           alone; its succeeded tasks are kept
-resume    a suspended run's unfinished tasks (and ``clear_outputs`` when the workflow is among them) are
           cleared: the run is queued again and continues where it stopped; sensors start their wait afresh
-rerun     terminal instances only (SUCCEEDED, FAILED, KILLED, TIMEDOUT, SKIPPED): a failed instance resumes
           from its failed tasks (with ``clear_outputs`` before a workflow, as Falcon's prepare-delete), a
           succeeded one runs again as a whole; ``-force`` reruns every task, and also instances that are not
           terminal (their running tasks are stopped and start over)
=========  ===================================================================================================

Every action leaves an instance that is already in the wanted state as it is, so repeating a command changes
nothing more and still succeeds.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any

from falcon_airflow.entities import EntityType, Feed, Process
from falcon_airflow.errors import FalconAirflowError
from falcon_airflow.explain import explain
from falcon_airflow.instances.feeds import FeedOnCluster
from falcon_airflow.instances.process import ProcessOnCluster
from falcon_airflow.instances.storage import StorageError, exists, local_path, total_bytes
from falcon_airflow.operate import options as rules
from falcon_airflow.operate.airflow_api import AirflowClient, AirflowError
from falcon_airflow.operate.config_store import iso
from falcon_airflow.operate.context import Context
from falcon_airflow.operate.lifecycles import DEFAULT_LIFECYCLE, DagRef, Lifecycle, entity_dags
from falcon_airflow.operate.options import Options
from falcon_airflow.operate.outcomes import Outcome, Refused, Status, succeeded, usage_error
from falcon_airflow.operate.runs import (
    InstanceRecord,
    apply_filters,
    assess,
    collect,
    latest,
    page,
    parse_api_time,
    sort_records,
    validity_bounds,
    window,
)
from falcon_airflow.operate.safemode import check_instance_operation
from falcon_airflow.operate.states import (
    ACTIVE,
    TERMINAL,
    InstanceStatus,
    marker_line,
    strip_markers,
    with_marker,
)
from falcon_airflow.operate.triage import (
    MissingInput,
    ProcessNode,
    Walk,
    triage_graphs,
    triage_text,
    waiting_details,
)
from falcon_airflow.timekeeping import format_falcon_date

NO_CLUSTERS = frozenset({"running", "logs", "status", "summary"})


# -- what an instance command acts on ------------------------------------------------------------------------------

class Target:
    """The entity, its DAGs (lifecycles, clusters, colos applied) and the options of one instance command."""

    def __init__(self, context: Context, options: Options, action: str) -> None:
        self.context = context
        self.options = options
        self.action = action
        name = options.required("name", "name")
        given = options.required("type", "type")
        self.entity_type = rules.entity_type(given)
        if options.given("clusters") and action in NO_CLUSTERS:
            raise usage_error("Invalid argument: clusters")
        if options.given("source_clusters") and (action in NO_CLUSTERS or self.entity_type is not EntityType.FEED):
            raise usage_error("Invalid argument: sourceClusters")
        if options.flag("force") and action != "rerun":
            raise usage_error("Force option can be used only with instance rerun")
        if self.entity_type is EntityType.CLUSTER:
            raise Refused("Instance management functions don't apply to Cluster entities")
        if not self.entity_type.schedulable:
            raise Refused(f"Instance management functions don't apply to {self.entity_type.value} entities")
        chosen = rules.lifecycles(options.text("lifecycle"), self.entity_type)
        self.lifecycles = chosen if chosen is not None else frozenset({DEFAULT_LIFECYCLE[self.entity_type]})
        stored = context.store.get(self.entity_type, name)
        if stored is None:
            raise Refused(f"{name} ({self.entity_type.value}) not found")
        entity = stored.entity
        assert isinstance(entity, (Feed, Process))
        self.entity: Feed | Process = entity
        self.name = name

    def refs(self) -> list[DagRef]:
        refs = self.context.entity_dags(self.entity, self.lifecycles)
        colo = (self.options.text("colo") or "*").strip()
        if colo and colo != "*":
            colos = set(rules.names(colo))
            clusters = self.context.store.workspace().clusters
            refs = [ref for ref in refs if ref.cluster in clusters and clusters[ref.cluster].colo in colos]
        wanted = set(rules.names(self.options.text("clusters")))
        if wanted:
            refs = [ref for ref in refs if ref.cluster in wanted]
        sources = set(rules.names(self.options.text("source_clusters")))
        if sources:
            refs = [ref for ref in refs if ref.source_cluster in sources]
        return refs

    def window(self, *, required: bool = False) -> tuple[datetime, datetime]:
        if required:
            self.options.required("start", "start")
            self.options.required("end", "end")
        num_results = self.options.integer("num_results", "numResults", None)
        return window(self.entity, self.options.time("start"), self.options.time("end"), num_results,
                      self.context.now())

    @property
    def client(self) -> AirflowClient:
        return self.context.airflow()


def targeted(act: Callable[[Target], Outcome]) -> Callable[[Context, Options], Outcome]:
    """An action on one entity's instances as a handler: the entity, its DAGs and the options' common rules
    (``-sortOrder``) are checked first."""

    @functools.wraps(act)
    def handler(context: Context, options: Options) -> Outcome:
        rules.sort_order(options.text("sort_order"))
        return act(Target(context, options, options.action()))

    return handler


# -- rendering -----------------------------------------------------------------------------------------------------

def _table(rows: Sequence[Sequence[str]]) -> list[str]:
    widths = [max(len(row[column]) for row in rows) for column in range(len(rows[0]))]
    return ["  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip() for row in rows]


def instances_text(status: Status, documents: Sequence[dict[str, Any]], *, actions: bool = False,
                   note: str | None = None, lifecycle: bool = False) -> str:
    lines = [f"Consolidated Status: {status.value}", ""]
    if not documents:
        lines.append(note or "No instances to display")
        return "\n".join(lines)
    header: tuple[str, ...] = ("Instance", "Cluster", "SourceCluster", "Status", "Start", "End", "RunId", "Details",
                               "Log")
    rows: list[tuple[str, ...]] = [header] + [
        (item["instance"], item["cluster"], item.get("sourceCluster") or "-", item["status"],
         item.get("startTime") or "-", item.get("endTime") or "-", str(item.get("runId", "-")),
         item.get("details") or "-", item.get("logFile") or "-") for item in documents]
    if lifecycle:  # several lifecycles asked for (-lifecycle REPLICATION,EVICTION): say which one each row is
        rows = [(row[0], "Lifecycle" if index == 0 else documents[index - 1].get("lifecycle") or "-", *row[1:])
                for index, row in enumerate(rows)]
    lines.append("Instances:")
    table = _table(rows)
    lines.append(table[0])
    lines.append("-" * len(table[0]))
    for document, line in zip(documents, table[1:], strict=True):
        lines.append(line)
        if actions:
            lines.extend(f"    {action['action']}: {action['status']}  {action['logFile']}"
                         for action in document.get("actions", []))
    if note:
        lines += ["", note]
    return "\n".join(lines)


def _outcome(target: Target, records: Sequence[InstanceRecord], message: str, *, actions: bool = False,
             status: Status = Status.SUCCEEDED, note: str | None = None) -> Outcome:
    documents = [record.as_json(target.client) for record in records]
    return Outcome(status, message, {"instances": documents},
                   instances_text(status, documents, actions=actions, note=note,
                                  lifecycle=len(target.lifecycles) > 1))


# -- read-only actions ---------------------------------------------------------------------------------------------

def _listed(target: Target, records: list[InstanceRecord]) -> list[InstanceRecord]:
    options = target.options
    filters = rules.filter_by(options.text("filter_by"), "instance")
    order = rules.order_by(options.text("order_by"), "instance")
    direction = rules.sort_order(options.text("sort_order"))
    offset = options.integer("offset", "offset", 0) or 0
    num_results = options.integer("num_results", "numResults", None)
    chosen = sort_records(apply_filters(records, filters), order, direction, options.given("start"))
    return page(chosen, offset, num_results if num_results is not None else None)


@targeted
def running(target: Target) -> Outcome:
    rules.filter_by(target.options.text("filter_by"), "instance")
    first, _ = validity_bounds(target.entity)
    records = collect(target.client, target.refs(), first, target.context.now(), states=["queued", "running"])
    records = [record for record in records if record.status is InstanceStatus.RUNNING]
    return _outcome(target, _listed(target, records), "running instances")


def _status(target: Target, *, with_actions: bool = False) -> Outcome:
    rules.filter_by(target.options.text("filter_by"), "instance")
    first, last = target.window()
    records = collect(target.client, target.refs(), first, last, all_attempts=target.options.flag("all_attempts"))
    _explain_waiting(target, records)
    return _outcome(target, _listed(target, records),
                    f"instances of ({target.entity_type.value}) {target.name} from {format_falcon_date(first)} to "
                    f"{format_falcon_date(last)}", actions=with_actions)


@targeted
def status(target: Target) -> Outcome:
    return _status(target)


@targeted
def list_instances(target: Target) -> Outcome:
    """``-list``: ``-status`` with each instance's task states."""
    return _status(target, with_actions=True)


def _explain_waiting(target: Target, records: Sequence[InstanceRecord]) -> None:
    """Details of a WAITING process instance: its missing input instances and their root causes."""
    if not isinstance(target.entity, Process):
        return
    walk = Walk(target.context.store.workspace(), target.client, now=target.context.now())
    for record in records:
        if record.status is InstanceStatus.WAITING and not record.details:
            try:
                record.details = waiting_details(walk.process(target.entity, record.ref.cluster, record.instance))
            except FalconAirflowError:
                continue


@targeted
def triage(target: Target) -> Outcome:
    """Falcon's ``instance -triage``: the upstream walk of one instance on each of its clusters."""
    moment = rules.parse_time(target.options.required("start", "start"))
    clusters = [ref.cluster for ref in target.refs()] if isinstance(target.entity, Process) else [
        placement.name for placement in target.entity.clusters]
    wanted = set(rules.names(target.options.text("clusters")))
    colo = (target.options.text("colo") or "*").strip()
    known = target.context.store.workspace().clusters
    clusters = [name for name in dict.fromkeys(clusters) if (not wanted or name in wanted)
                and (colo in ("", "*") or (name in known and known[name].colo in rules.names(colo)))]
    walk = Walk(target.context.store.workspace(), target.client, now=target.context.now())
    nodes: list[ProcessNode | MissingInput] = []
    available: list[str] = []
    available_instances: list[tuple[str, str, datetime]] = []
    try:
        for cluster in clusters:
            if isinstance(target.entity, Process):
                nodes.append(walk.process(target.entity, cluster, moment))
                continue
            missing_feed = walk.feed(target.entity, cluster, moment)
            if missing_feed is None:
                available.append(f"(feed) {target.name} {format_falcon_date(moment)} on {cluster}: AVAILABLE")
                available_instances.append((target.name, cluster, moment))
            else:
                nodes.append(missing_feed)
    except FalconAirflowError as problem:
        raise Refused(problem.message) from None
    if not clusters:
        raise Refused(f"({target.entity_type.value}) {target.name} has no cluster matching the given "
                      "-colo/-clusters")
    return succeeded(f"triage of ({target.entity_type.value}) {target.name} {format_falcon_date(moment)}",
                     text=triage_text(nodes, available),
                     triage=[node.as_json() for node in nodes],
                     available=[line.split(": ")[0] for line in available],
                     triageGraphs=triage_graphs(nodes, available_instances))


@targeted
def summary(target: Target) -> Outcome:
    options = target.options
    filters = rules.filter_by(options.text("filter_by"), "summary")
    order = rules.order_by(options.text("order_by"), "summary")
    direction = rules.sort_order(options.text("sort_order"))
    first, last = target.window()
    records = collect(target.client, target.refs(), first, last)
    counts: dict[str, dict[str, int]] = {}
    for record in records:
        counts.setdefault(record.ref.cluster, {})
        counts[record.ref.cluster][record.status.value] = counts[record.ref.cluster].get(record.status.value, 0) + 1
    clusters = sorted(counts, reverse=direction == "desc") if order == "cluster" else list(counts)
    if "CLUSTER" in filters:
        clusters = [item for item in clusters if item.lower() in {value.lower() for value in filters["CLUSTER"]}]
    summaries: list[dict[str, Any]] = []
    for cluster in clusters:
        table = counts[cluster]
        if "STATUS" in filters:
            wanted = {value.upper() for value in filters["STATUS"]}
            table = {key: value for key, value in table.items() if key in wanted}
        summaries.append({"cluster": cluster, "map": table})
    lines = ["Consolidated Status: SUCCEEDED", ""]
    for item in summaries:
        lines.append(f"Cluster: {item['cluster']}")
        lines.extend(f"  {key}: {value}" for key, value in sorted(item["map"].items()))
    if not summaries:
        lines.append("No instances to display")
    return succeeded(f"summary of ({target.entity_type.value}) {target.name} from {format_falcon_date(first)} to "
                     f"{format_falcon_date(last)}", text="\n".join(lines), instancesSummary=summaries)


def _log_text(entries: Sequence[Any]) -> list[str]:
    lines = []
    for entry in entries:
        if isinstance(entry, dict):
            parts = [str(entry.get(key)) for key in ("timestamp", "level") if entry.get(key)]
            lines.append(" ".join([*parts, str(entry.get("event", ""))]).rstrip())
        else:
            lines.extend(str(entry).splitlines())
    return lines


@targeted
def logs(target: Target) -> Outcome:
    options = target.options
    rules.filter_by(options.text("filter_by"), "instance")
    run_number = options.integer("runid", "runid", None)
    first, last = target.window()
    records = _listed(target, collect(target.client, target.refs(), first, last))
    documents = []
    text_lines: list[str] = []
    for record in records:
        document = record.as_json(target.client)
        actions = []
        for ti in record.tis:
            task = str(ti.get("task_id"))
            latest = int(ti.get("try_number") or 0)
            try_number = run_number + 1 if run_number is not None else latest
            action: dict[str, Any] = {"action": task, "status": str(ti.get("state") or "none").upper(),
                                      "tryNumber": try_number}
            if try_number >= 1 and try_number <= latest:
                action["logFile"] = target.client.task_url(record.ref.dag_id, record.run_id, task, try_number)
                action["logApi"] = target.client.log_api_url(record.ref.dag_id, record.run_id, task, try_number)
                if options.flag("log_text"):
                    try:
                        action["log"] = _log_text(target.client.task_log(record.ref.dag_id, record.run_id, task,
                                                                         try_number))
                    except AirflowError as problem:
                        action["log"] = [f"(log unavailable: {problem.message})"]
            else:
                action["logFile"] = None
            actions.append(action)
        document["actions"] = actions
        documents.append(document)
        text_lines.append(f"{document['instance']}  {document['cluster']}  {document['status']}  "
                          f"{document['logFile']}")
        for action in actions:
            where = action["logFile"] or "(no log for this run)"
            text_lines.append(f"    {action['action']} (try {action['tryNumber']}, {action['status']}): {where}")
            text_lines.extend(f"      | {line}" for line in action.get("log", []))
    text = "\n".join(["Consolidated Status: SUCCEEDED", "", *(text_lines or ["No instances to display"])])
    return succeeded(f"logs of ({target.entity_type.value}) {target.name}", text=text, instances=documents)


@targeted
def params(target: Target) -> Outcome:
    start = target.options.required("start", "start")
    if len(target.lifecycles) != 1:
        listed = ", ".join(sorted(item.value for item in target.lifecycles))
        raise Refused(f"For displaying wf-params there can't be more than one lifecycle [{listed}]")
    moment = rules.parse_time(start)
    first, _ = validity_bounds(target.entity)
    if moment < first:
        moment = first
    documents: list[dict[str, Any]] = []
    for ref in target.refs():
        runs = target.client.runs(ref.dag_id, first=moment, last=moment)
        if not runs:
            continue
        record = assess(target.client, ref, latest(runs))
        falcon: dict[str, Any] = {}
        if ref.lifecycle is Lifecycle.EXECUTION:
            try:
                falcon = explain(target.context.store.workspace(), target.name, moment, cluster=ref.cluster,
                                 entity_type="process")
            except FalconAirflowError as problem:
                falcon = {"note": problem.message}
        rendered = {str(ti.get("task_id")): ti.get("rendered_fields") or {} for ti in record.tis
                    if ti.get("rendered_fields")}
        documents.append({"instance": format_falcon_date(moment), "cluster": ref.cluster,
                          "sourceCluster": ref.source_cluster, "status": record.status.value,
                          "dagId": ref.dag_id, "dagRunId": record.run_id,
                          "params": {"nominalTime": format_falcon_date(moment), "entityType": target.entity_type.value,
                                     "entityName": target.name, "cluster": ref.cluster,
                                     "conf": record.run.get("conf") or {},
                                     "dataIntervalStart": record.run.get("data_interval_start"),
                                     "dataIntervalEnd": record.run.get("data_interval_end"),
                                     "falcon": falcon, "renderedFields": rendered}})
    if not documents:
        raise Refused(f"no run of instance {format_falcon_date(moment)} of ({target.entity_type.value}) "
                      f"{target.name} in Airflow")
    lines = []
    for document in documents:
        lines.append(f"{document['instance']} on {document['cluster']} ({document['dagRunId']}): "
                     f"{document['status']}")
        parameters: dict[str, Any] = document["params"]
        for key, value in parameters.items():
            lines.append(f"  {key}: {value}")
    return succeeded(f"parameters of ({target.entity_type.value}) {target.name} instance {start}",
                     text="\n".join(lines), instances=documents)


def _availability(on_cluster: FeedOnCluster, moment: datetime) -> dict[str, Any]:
    """Falcon's feed listing status: AVAILABLE, PARTIAL (data, no flag), EMPTY (size 0, no flag) or MISSING."""
    path = on_cluster.path(moment)
    entry: dict[str, Any] = {"instance": format_falcon_date(moment), "cluster": on_cluster.cluster_name, "uri": path}
    flag = on_cluster.feed.availability_flag
    settings = on_cluster.s3_settings(path)
    try:
        present = exists(path, settings)
        size = total_bytes(path, settings) if present else 0
        flagged = exists(f"{path.rstrip('/')}/{flag}", settings) if flag and present else False
    except StorageError as problem:
        entry.update(status="UNKNOWN", details=problem.message)
        return entry
    if not present:
        status = "MISSING"
    elif flag:
        status = "AVAILABLE" if flagged else "PARTIAL"
    else:
        status = "AVAILABLE" if size > 0 else "EMPTY"
    entry.update(status=status, size=size)
    local = local_path(path)
    if present and local is not None:
        entry["creationTime"] = format_falcon_date(datetime.fromtimestamp(local.stat().st_mtime).astimezone())
    return entry


def _deployed_since(target: Target, on_cluster: FeedOnCluster) -> datetime | None:
    """The first feed instance expected on a cluster: the earliest instance a DAG that makes or keeps the feed there
    has a run for (its retention, replication into the cluster and import there; for a process writing the feed on
    the cluster, the output instance of its first run). ``None``: none of them has run yet, nothing is expected.

    With catchup that is the validity start; without it, when the entity was scheduled. Instances before it are,
    as for ``-status``, not instances of the deployment: Falcon's coordinators never materialised them."""
    feed, cluster = on_cluster.feed, on_cluster.cluster_name
    start = on_cluster.placement.validity.start
    workspace = target.context.store.workspace()
    found: list[datetime] = []
    for ref in entity_dags(feed, frozenset({Lifecycle.EVICTION, Lifecycle.REPLICATION, Lifecycle.IMPORT})):
        run = target.client.first_run(ref.dag_id, since=start) if ref.cluster == cluster else None
        moment = parse_api_time(run.get("logical_date")) if run is not None else None
        if moment is not None:
            found.append(moment)
    for process in workspace.processes.values():
        if feed.name not in (item.feed for item in process.outputs) or process.cluster(cluster) is None:
            continue
        for ref in entity_dags(process, frozenset({Lifecycle.EXECUTION})):
            run = target.client.first_run(ref.dag_id) if ref.cluster == cluster else None
            moment = parse_api_time(run.get("logical_date")) if run is not None else None
            if moment is None:
                continue
            try:
                outputs = ProcessOnCluster.of(workspace, process, cluster).resolve_outputs(moment)
            except FalconAirflowError:
                continue
            found += [item.instance for item in outputs if item.feed == feed.name and item.instance is not None]
    return min(found) if found else None


@targeted
def listing(target: Target) -> Outcome:
    """Falcon's feed listing: the availability of each instance of the window on each cluster. An instance before
    the feed's deployment on a cluster (see :func:`_deployed_since`) is listed only when its data is there: nothing
    was to produce it, so it is not MISSING."""
    if not isinstance(target.entity, Feed):
        raise Refused(f"getLocation is not applicable for {target.entity_type.value.upper()}")
    first, last = target.window()
    feed = target.entity
    clusters = target.context.store.workspace().clusters
    entries = []
    notes = []
    colo = (target.options.text("colo") or "*").strip()
    for placement in feed.clusters:
        cluster = clusters.get(placement.name)
        if colo not in ("", "*") and (cluster is None or cluster.colo not in rules.names(colo)):
            continue
        on_cluster = FeedOnCluster(feed, placement, cluster)
        if on_cluster.table is not None:
            entries.append({"cluster": placement.name, "status": "UNKNOWN",
                            "details": "table feeds are listed by their metastore partitions, not here"})
            continue
        try:
            since = _deployed_since(target, on_cluster)
        except AirflowError as problem:
            since = on_cluster.placement.validity.start
            notes.append(f"{placement.name}: every instance of the window is listed (Airflow does not tell since "
                         f"when the feed is deployed: {problem.message})")
        left_out = 0
        for moment in on_cluster.grid.between(first, last):
            entry = _availability(on_cluster, moment)
            if entry["status"] == "MISSING" and (since is None or moment < since):
                left_out += 1
                continue
            entries.append(entry)
        if left_out:
            when = (f"before its first instance in Airflow ({format_falcon_date(since)})" if since is not None
                    else "while nothing of it has run in Airflow")
            notes.append(f"{placement.name}: {left_out} instance(s) without data {when} are not listed: the feed "
                         "was not deployed for them")
    rows = [("Instance", "Cluster", "Status", "Size", "Created", "Path")] + [
        (item.get("instance", "-"), item["cluster"], item["status"], str(item.get("size", "-")),
         item.get("creationTime") or "-", item.get("uri") or item.get("details") or "-") for item in entries]
    lines = _table(rows)
    lines.insert(1, "-" * len(lines[0]))
    text = "\n".join(lines) if entries else "No instances to display"
    return succeeded(f"listing of feed {target.name} from {format_falcon_date(first)} to {format_falcon_date(last)}",
                     text="\n".join([text, *(["", *notes] if notes else [])]), instances=entries)


@targeted
def dependency(target: Target) -> Outcome:
    moment = rules.parse_time(target.options.required("instance_time", "instanceTime"))
    workspace = target.context.store.workspace()
    found: list[dict[str, Any]] = []
    try:
        if isinstance(target.entity, Process):
            for placement in target.entity.clusters:
                runner = ProcessOnCluster.of(workspace, target.entity, placement.name)
                instance = runner.check_instance(moment)
                for item in runner.resolve_inputs(instance):
                    found += [{"entityName": item.feed, "entityType": "feed", "cluster": placement.name,
                               "instanceTime": format_falcon_date(each), "tags": "Input"} for each in item.instances]
                for output in runner.resolve_outputs(instance):
                    if output.instance is not None:
                        found.append({"entityName": output.feed, "entityType": "feed", "cluster": placement.name,
                                      "instanceTime": format_falcon_date(output.instance), "tags": "Output"})
        else:
            for process in workspace.processes.values():
                if target.name not in process.feed_names:
                    continue
                for placement in process.clusters:
                    if target.entity.cluster(placement.name) is None:
                        continue
                    runner = ProcessOnCluster.of(workspace, process, placement.name)
                    producer = runner.producer_of(target.name, moment)
                    if producer is not None:
                        found.append({"entityName": process.name, "entityType": "process",
                                      "cluster": placement.name, "instanceTime": format_falcon_date(producer),
                                      "tags": "Output"})
                    found += [{"entityName": process.name, "entityType": "process", "cluster": placement.name,
                               "instanceTime": format_falcon_date(each), "tags": "Input"}
                              for each in runner.consumers_of(target.name, moment)]
    except FalconAirflowError as problem:
        raise Refused(problem.message) from None
    lines = [dependency_line(item) for item in found]
    return succeeded("Success!", text="\n".join(lines) or "no dependencies", dependencies=found)


def dependency_line(item: Mapping[str, Any]) -> str:
    """One instance dependency as ``instance -dependency`` prints it."""
    return f"{item['tags']}: ({item['entityType']}) {item['entityName']} {item['instanceTime']} on {item['cluster']}"


# -- actions that change runs ----------------------------------------------------------------------------------------

def _marker(context: Context, record: InstanceRecord, kind: str) -> str:
    return marker_line(kind, record.run.get("queued_at"), context.user, iso())


def _unfinished(tis: Sequence[dict[str, Any]]) -> set[str]:
    """Tasks to clear to continue a run where it stopped (with clear_outputs before a workflow that reruns)."""
    todo = {str(ti.get("task_id")) for ti in tis if ti.get("state") != "success"}
    names = {str(ti.get("task_id")) for ti in tis}
    oozie_nodes = {name for name in names if name.startswith("workflow.")}
    if todo & oozie_nodes:  # an Oozie workflow runs again from its start: each node follows what chose it
        todo |= oozie_nodes
    if ("workflow" in todo or todo & oozie_nodes) and "clear_outputs" in names:
        todo.add("clear_outputs")
    return todo


def _refresh(target: Target, record: InstanceRecord) -> InstanceRecord:
    run = target.client.run(record.ref.dag_id, record.run_id)
    return assess(target.client, record.ref, run) if run is not None else record


def _kill(target: Target, record: InstanceRecord) -> str | None:
    if record.status is InstanceStatus.SUSPENDED:
        target.client.patch_run(record.ref.dag_id, record.run_id,
                                note=with_marker(record.run.get("note"), _marker(target.context, record, "KILLED")))
        return "killed (was suspended)"
    if record.status in ACTIVE:
        target.client.patch_run(record.ref.dag_id, record.run_id, state="failed",
                                note=with_marker(record.run.get("note"), _marker(target.context, record, "KILLED")))
        return "killed"
    return None


def _suspend(target: Target, record: InstanceRecord) -> str | None:
    if record.status in ACTIVE:
        target.client.patch_run(record.ref.dag_id, record.run_id, state="failed",
                                note=with_marker(record.run.get("note"), _marker(target.context, record, "SUSPENDED")))
        return "suspended"
    return None


def _resume(target: Target, record: InstanceRecord) -> str | None:
    if record.status is not InstanceStatus.SUSPENDED:
        return None
    todo = _unfinished(record.tis)
    if todo:
        target.client.clear_tasks(record.ref.dag_id, record.run_id, todo)
    else:
        target.client.clear_run(record.ref.dag_id, record.run_id)
    target.client.patch_run(record.ref.dag_id, record.run_id, note=strip_markers(record.run.get("note")))
    return "resumed"


def _rerun(target: Target, record: InstanceRecord) -> str | None:
    force = target.options.flag("force")
    if record.status not in TERMINAL and not force:
        record.details = f"not rerun: {record.status.value} is not a terminal state (-force reruns it)"
        return None
    whole = force or record.status in (InstanceStatus.SUCCEEDED, InstanceStatus.SKIPPED)
    if whole:
        target.client.clear_run(record.ref.dag_id, record.run_id)
    else:
        todo = _unfinished(record.tis)
        if todo:
            target.client.clear_tasks(record.ref.dag_id, record.run_id, todo)
        else:
            target.client.clear_run(record.ref.dag_id, record.run_id)
    if strip_markers(record.run.get("note")) != str(record.run.get("note") or "").strip():
        target.client.patch_run(record.ref.dag_id, record.run_id, note=strip_markers(record.run.get("note")))
    return "rerun" + (" (every task)" if whole else " (from the failed tasks)")


_CHANGES: dict[str, tuple[str, Callable[[Target, InstanceRecord], str | None]]] = {
    "kill": ("KILL", _kill), "suspend": ("SUSPEND", _suspend), "resume": ("RESUME", _resume),
    "rerun": ("RERUN", _rerun),
}


def change(target: Target) -> Outcome:
    operation, act = _CHANGES[target.action]
    check_instance_operation(target.context.store.safemode, operation)
    if target.action == "rerun" and target.options.given("file"):
        raise Refused("-file (properties overrides for a rerun) is not supported on Airflow: a cleared run keeps "
                      "its conf")
    first, last = target.window(required=True)
    records = collect(target.client, target.refs(), first, last)
    done: list[InstanceRecord] = []
    failures = 0
    for record in records:
        try:
            what = act(target, record)
        except AirflowError as problem:
            failures += 1
            record.details = f"{target.action} failed: {problem.message}"
            done.append(record)
            continue
        if what is None:
            if not record.details:
                record.details = "unchanged"
            done.append(record)
            continue
        fresh = _refresh(target, record)
        fresh.details = what
        done.append(fresh)
    status = Status.SUCCEEDED
    if failures:
        status = Status.FAILED if failures == len(records) else Status.PARTIAL
    note = None if records else (f"No instance of ({target.entity_type.value}) {target.name} between "
                                 f"{format_falcon_date(first)} and {format_falcon_date(last)}")
    message = (f"{target.action} of ({target.entity_type.value}) {target.name} from {format_falcon_date(first)} "
               f"to {format_falcon_date(last)}")
    if status is Status.FAILED:  # a refused answer's clients (Falcon's CLI) print its message alone: say why
        message += ": " + "; ".join(dict.fromkeys(record.details for record in done if record.details))
    return _outcome(target, done, message, status=status, note=note)


@targeted
def kill(target: Target) -> Outcome:
    return change(target)


@targeted
def suspend(target: Target) -> Outcome:
    return change(target)


@targeted
def resume(target: Target) -> Outcome:
    return change(target)


@targeted
def rerun(target: Target) -> Outcome:
    return change(target)


def handle(context: Context, options: Options) -> Outcome:
    """Run the instance action ``options`` names (as the declarations dispatch it)."""
    from falcon_airflow.operate.execution import dispatch

    return dispatch(context, options)
