"""Process rules (Falcon's P-rules that can be judged from the files, plus the project's FA002 and FA006).

Instance checks evaluate EL the way Falcon's server did: in UTC, without snapping to feed instances, with
``latest()``/``future()`` standing for the reference time. P10 uses the time of validation as "now" (so, as in
Falcon, a definition can become invalid as time passes); P11 and P15 use the process validity start.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from functools import lru_cache

from falcon_airflow.el import reference_time
from falcon_airflow.entities import (
    EntityType,
    Feed,
    FeedCluster,
    Input,
    InterfaceType,
    Output,
    Process,
    ProcessCluster,
    ProcessSLA,
    StorageKind,
    WorkflowEngine,
)
from falcon_airflow.errors import ELError
from falcon_airflow.timekeeping import format_falcon_date
from falcon_airflow.validation.cluster_rules import SPARK_MASTER_HELP, is_supported_spark_master
from falcon_airflow.validation.helpers import java_split, property_findings
from falcon_airflow.validation.registry import Finding, RuleContext, error, rule, warning


def _inputs_and_outputs(process: Process) -> tuple[Input | Output, ...]:
    return (*process.inputs, *process.outputs)


@lru_cache(maxsize=8192)
def _evaluated(expression: str, moment: datetime) -> datetime | ELError:
    """The server-side value of an expression at a moment, or the error it raises. Cached: in a large estate most
    processes share a few expressions (``now(-1,0)``) and validity starts, and the value depends on nothing else."""
    try:
        return reference_time(expression, moment)
    except ELError as problem:
        return problem


@lru_cache(maxsize=8192)
def _millis_between(start: datetime, end: datetime) -> float:
    """Milliseconds from ``start`` to ``end``; cached, as the starts come from the cached values above."""
    return (end - start).total_seconds() * 1000


def _at(expression: str, moment: datetime) -> datetime | None:
    """Falcon's server-side value of an expression, or ``None`` when it cannot be evaluated (FA006 says why)."""
    value = _evaluated(expression, moment)
    return None if isinstance(value, ELError) else value


def _feed_on(context: RuleContext, feed_name: str, cluster: ProcessCluster) -> tuple[Feed, FeedCluster] | None:
    feed = context.workspace.feeds.get(feed_name)
    if feed is None:
        return None
    feed_cluster = feed.cluster(cluster.name)
    return (feed, feed_cluster) if feed_cluster is not None else None


# -- clusters and validity (P2-P5) ----------------------------------------------------------------------------------


@rule("P2", EntityType.PROCESS, "a cluster appears once in a process")
def unique_clusters(context: RuleContext, process: Process) -> Iterator[Finding]:
    seen: set[str] = set()
    for cluster in process.clusters:
        if cluster.name in seen:
            yield error(f"cluster '{cluster.name}' is listed more than once in process '{process.name}'",
                        cluster.line)
        seen.add(cluster.name)


@rule("P3", EntityType.PROCESS, "every cluster the process names is defined")
def clusters_defined(context: RuleContext, process: Process) -> Iterator[Finding]:
    for cluster in process.clusters:
        if cluster.name not in context.workspace.clusters:
            yield error(f"process '{process.name}' refers to cluster '{cluster.name}', which is not defined in the "
                        "workspace", cluster.line)


@rule("P4", EntityType.PROCESS, "a process does not name a cluster version that does not exist")
def cluster_versions(context: RuleContext, process: Process) -> Iterator[Finding]:
    for cluster in process.clusters:
        defined = context.workspace.clusters.get(cluster.name)
        if defined is not None and cluster.version > defined.version:
            yield error(f"process '{process.name}' asks for version {cluster.version} of cluster '{cluster.name}', "
                        f"which is at version {defined.version}", cluster.line)


@rule("P5", EntityType.PROCESS, "validity start is before validity end")
def validity_order(context: RuleContext, process: Process) -> Iterator[Finding]:
    for cluster in process.clusters:
        validity = cluster.validity
        if validity.start >= validity.end:
            yield error(f"validity of process '{process.name}' on cluster '{cluster.name}' starts at "
                        f"{format_falcon_date(validity.start)}, which is not before its end "
                        f"{format_falcon_date(validity.end)}; the process would never run", validity.line)


@rule("P7", EntityType.PROCESS, "properties have names and values, each name once")
def process_properties(context: RuleContext, process: Process) -> Iterator[Finding]:
    yield from property_findings(process.properties, f"process '{process.name}'")


# -- feeds (P8, P9, P12-P14, P16, P17) ------------------------------------------------------------------------------


@rule("P8", EntityType.PROCESS, "every input and output feed is defined")
def feeds_defined(context: RuleContext, process: Process) -> Iterator[Finding]:
    for item in _inputs_and_outputs(process):
        if item.feed not in context.workspace.feeds:
            kind = "input" if isinstance(item, Input) else "output"
            yield error(f"{kind} '{item.name}' of process '{process.name}' refers to feed '{item.feed}', which is "
                        "not defined in the workspace", item.line)


@rule("P9", EntityType.PROCESS, "every feed the process uses is defined on the process's clusters")
def feeds_on_clusters(context: RuleContext, process: Process) -> Iterator[Finding]:
    for cluster in process.clusters:
        for item in _inputs_and_outputs(process):
            feed = context.workspace.feeds.get(item.feed)
            if feed is not None and feed.cluster(cluster.name) is None:
                yield error(f"feed '{feed.name}' (used by '{item.name}') is not defined on cluster "
                            f"'{cluster.name}', where process '{process.name}' runs", item.line)


@rule("P12", EntityType.PROCESS, "an input partition fits the feed's partitions")
def input_partition_depth(context: RuleContext, process: Process) -> Iterator[Finding]:
    for item in process.inputs:
        feed = context.workspace.feeds.get(item.feed)
        if item.partition is None or feed is None or feed.default_storage is not StorageKind.FILESYSTEM:
            continue
        parts = len(java_split(item.partition, "/"))
        if not feed.partitions or len(feed.partitions) < parts:
            yield error(f"partition '{item.partition}' of input '{item.name}' has {parts} part(s) but feed "
                        f"'{feed.name}' defines {len(feed.partitions)} partition(s)", item.line)


@rule("P13", EntityType.PROCESS, "inputs from table feeds take no partition")
def table_input_partition(context: RuleContext, process: Process) -> Iterator[Finding]:
    for item in process.inputs:
        feed = context.workspace.feeds.get(item.feed)
        if item.partition is not None and feed is not None and feed.default_storage is StorageKind.TABLE:
            yield error(f"input '{item.name}' reads a catalog table feed, so it cannot select partition "
                        f"'{item.partition}'; filter in the job instead", item.line)


@rule("P14", EntityType.PROCESS, "inputs from table feeds are not optional")
def table_input_optional(context: RuleContext, process: Process) -> Iterator[Finding]:
    for item in process.inputs:
        feed = context.workspace.feeds.get(item.feed)
        if item.optional and feed is not None and feed.default_storage is StorageKind.TABLE:
            yield error(f"input '{item.name}' reads a catalog table feed and cannot be optional", item.line)


@rule("P16", EntityType.PROCESS, "input and output names are unique")
def unique_io_names(context: RuleContext, process: Process) -> Iterator[Finding]:
    seen: set[str] = set()
    for item in _inputs_and_outputs(process):
        if item.name in seen:
            kind = "input" if isinstance(item, Input) else "output"
            yield error(f"{kind} name '{item.name}' is already used in process '{process.name}'; input and output "
                        "names share one namespace", item.line)
        seen.add(item.name)


@rule("P17", EntityType.PROCESS, "late inputs are inputs whose feeds have a late-arrival cut-off")
def late_inputs(context: RuleContext, process: Process) -> Iterator[Finding]:
    if process.late_process is None:
        return
    for late in process.late_process.late_inputs:
        item = process.input(late.input)
        if item is None:
            yield error(f"late-input '{late.input}' of process '{process.name}' is not one of its inputs", late.line)
            continue
        feed = context.workspace.feeds.get(item.feed)
        if feed is not None and feed.late_arrival is None:
            yield error(f"late-input '{late.input}' reads feed '{feed.name}', which has no late-arrival cut-off",
                        late.line)


@rule("FA070", EntityType.PROCESS, "an Oozie process's late re-run runs its own workflow: a late-input's "
      "workflow-path naming another one is not used (warning)")
def oozie_late_workflow(context: RuleContext, process: Process) -> Iterator[Finding]:
    if process.late_process is None or process.workflow.engine is not WorkflowEngine.OOZIE:
        return
    own = process.workflow.path.strip().rstrip("/").removesuffix("/workflow.xml")
    for late in process.late_process.late_inputs:
        named = late.workflow_path.strip().rstrip("/").removesuffix("/workflow.xml")
        if named and named != own:
            yield warning(f"late-input '{late.input}' of Oozie process '{process.name}' names workflow-path "
                          f"'{late.workflow_path.strip()}': when late data arrives the instance runs its own workflow "
                          f"('{process.workflow.path.strip()}') again, as Falcon re-ran it, and this path is not used",
                          late.line)

# -- instances (FA006, P10, P11, P15) -------------------------------------------------------------------------------


@rule("FA006", EntityType.PROCESS, "input and output instance expressions are valid EL that names a time")
def instance_expressions(context: RuleContext, process: Process) -> Iterator[Finding]:
    reference = process.clusters[0].validity.start if process.clusters else context.now
    expressions = [(f"start of input '{i.name}'", i.start, i.line) for i in process.inputs]
    expressions += [(f"end of input '{i.name}'", i.end, i.line) for i in process.inputs]
    expressions += [(f"instance of output '{o.name}'", o.instance, o.line) for o in process.outputs]
    for what, expression, line in expressions:
        value = _evaluated(expression, reference)
        if isinstance(value, ELError):
            yield error(f"{what}: {value}", line)


@rule("P10", EntityType.PROCESS, "input start is within the feed's retention, evaluated now")
def input_within_retention(context: RuleContext, process: Process) -> Iterator[Finding]:
    for cluster in process.clusters:
        for item in process.inputs:
            found = _feed_on(context, item.feed, cluster)
            start = _at(item.start, context.now)
            if found is None or start is None:
                continue
            feed, feed_cluster = found
            limit = feed_cluster.retention.limit
            if _millis_between(start, context.now) > limit.millis:
                yield error(f"start '{item.start}' of input '{item.name}' reaches back further than the retention "
                            f"limit {limit} of feed '{feed.name}' on cluster '{cluster.name}': evaluated now it is "
                            f"{format_falcon_date(start)}, and instances that old are deleted", item.line)


@rule("P11", EntityType.PROCESS, "input ranges lie inside the feed's validity, at the process start")
def input_range_in_feed_validity(context: RuleContext, process: Process) -> Iterator[Finding]:
    for cluster in process.clusters:
        at = cluster.validity.start
        for item in process.inputs:
            found = _feed_on(context, item.feed, cluster)
            start, end = _at(item.start, at), _at(item.end, at)
            if found is None or start is None or end is None:
                continue
            feed, feed_cluster = found
            validity = feed_cluster.validity
            if start < validity.start:
                yield error(f"start '{item.start}' of input '{item.name}' is {format_falcon_date(start)} at the "
                            f"process start, before feed '{feed.name}' starts on cluster '{cluster.name}' "
                            f"({format_falcon_date(validity.start)})", item.line)
            if end < start:
                yield error(f"end '{item.end}' of input '{item.name}' ({format_falcon_date(end)}) is before its "
                            f"start '{item.start}' ({format_falcon_date(start)}) on cluster '{cluster.name}'",
                            item.line)
            if end > validity.end:
                yield error(f"end '{item.end}' of input '{item.name}' is {format_falcon_date(end)} at the process "
                            f"start, after feed '{feed.name}' ends on cluster '{cluster.name}' "
                            f"({format_falcon_date(validity.end)})", item.line)


@rule("P15", EntityType.PROCESS, "output instances lie inside the feed's validity, at the process start")
def output_in_feed_validity(context: RuleContext, process: Process) -> Iterator[Finding]:
    for cluster in process.clusters:
        at = cluster.validity.start
        for item in process.outputs:
            found = _feed_on(context, item.feed, cluster)
            instance = _at(item.instance, at)
            if found is None or instance is None:
                continue
            feed, feed_cluster = found
            validity = feed_cluster.validity
            if instance < validity.start:
                yield error(f"instance '{item.instance}' of output '{item.name}' is {format_falcon_date(instance)} "
                            f"at the process start, before feed '{feed.name}' starts on cluster '{cluster.name}' "
                            f"({format_falcon_date(validity.start)})", item.line)
            if instance > validity.end:
                yield error(f"instance '{item.instance}' of output '{item.name}' is {format_falcon_date(instance)} "
                            f"at the process start, after feed '{feed.name}' ends on cluster '{cluster.name}' "
                            f"({format_falcon_date(validity.end)})", item.line)


# -- SLA, engine, Spark (P18, FA002, P20) ---------------------------------------------------------------------------


def _sla_findings(process: Process, sla: ProcessSLA, where: str) -> Iterator[Finding]:
    start, end = sla.should_start_in, sla.should_end_in
    if start is None:
        return
    if end is not None and start.millis > end.millis:
        yield error(f"shouldStartIn {start} of {where} is longer than shouldEndIn {end}", sla.line)
    if process.timeout is not None and process.timeout.millis < start.millis:
        yield error(f"shouldStartIn {start} of {where} is longer than the timeout {process.timeout}: the instance "
                    "would time out before it is due to start", sla.line)


@rule("P18", EntityType.PROCESS, "SLA: shouldStartIn <= shouldEndIn and shouldStartIn <= timeout")
def sla_bounds(context: RuleContext, process: Process) -> Iterator[Finding]:
    if process.sla is not None:
        yield from _sla_findings(process, process.sla, f"process '{process.name}'")
    for cluster in process.clusters:
        if cluster.sla is not None:
            yield from _sla_findings(process, cluster.sla, f"process '{process.name}' on cluster '{cluster.name}'")


@rule("FA002", EntityType.PROCESS, "the workflow engine can run on falcon-airflow")
def engine_runs_here(context: RuleContext, process: Process) -> Iterator[Finding]:
    engine = process.workflow.engine
    if engine.runs_here:
        return
    yield error(f"workflow engine '{engine.value}' of process '{process.name}' cannot run on falcon-airflow, which "
                "has no Pig; port the script to a Hive script (engine=\"hive\", run by Spark SQL), a Spark "
                "application (engine=\"spark\" with <spark-attributes>) or an Oozie workflow of actions that run "
                "here (see docs/oozie.md)", process.workflow.line)


@rule("P20", EntityType.PROCESS, "a Spark workflow has spark-attributes with a jar or Python file and a master")
def spark_attributes(context: RuleContext, process: Process) -> Iterator[Finding]:
    if process.workflow.engine is not WorkflowEngine.SPARK:
        return
    attributes = process.spark_attributes
    if attributes is None:
        yield error(f"process '{process.name}' uses the spark engine, so it needs <spark-attributes> naming at "
                    "least the application (jar or Python file)", process.workflow.line)
        return
    if not attributes.jar.strip():
        yield error(f"<spark-attributes> of process '{process.name}' name no application: <jar> is empty",
                    attributes.line)
    if attributes.master is not None and attributes.master.strip():
        if not is_supported_spark_master(attributes.master):
            yield error(f"Spark master '{attributes.master}' of process '{process.name}' is not one falcon-airflow "
                        f"can submit to; use {SPARK_MASTER_HELP}", attributes.line)
        return
    for cluster in process.clusters:
        defined = context.workspace.clusters.get(cluster.name)
        if defined is None or defined.interface(InterfaceType.SPARK) is not None:
            continue
        execute = defined.interface(InterfaceType.EXECUTE)
        where = (f"submits it to YARN (the execute interface {execute.endpoint}; the ResourceManager's settings "
                 "come from HADOOP_CONF_DIR)" if execute is not None else "runs it on local[*]")
        yield warning(f"process '{process.name}' names no Spark master and cluster '{cluster.name}' has no spark "
                      f"interface; falcon-airflow {where}", attributes.line)
