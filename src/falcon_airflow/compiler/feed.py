"""A feed becomes a retention DAG per cluster and a replication DAG per (source, target) pair."""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path

from falcon_airflow.compiler.cluster_conf import cluster_spark_conf
from falcon_airflow.compiler.common import (
    CLUSTER_INTERFACES_NOTE,
    FEED_RETRY,
    catalogs_of,
    default_timeout_seconds,
    doc_header,
    feed_facts,
    group_access_of,
    job_file,
    job_py_files,
    owner_of,
    replication_dag_id,
    retention_dag_id,
    seconds,
    source_of,
    spark_master,
    tags_of,
    throttle,
)
from falcon_airflow.compiler.messaging import messaging_of
from falcon_airflow.compiler.specs import (
    LateDataSpec,
    LineageSpec,
    ReplicationDagSpec,
    RetentionDagSpec,
    Schedule,
    SparkJob,
)
from falcon_airflow.compiler.templating import jinja, literal, template_conf, template_values
from falcon_airflow.core.formats import SCHEMA_FORMATS
from falcon_airflow.core.paths import join_storage
from falcon_airflow.entities import (
    AGE_BASED_DELETE_LIMIT,
    Cluster,
    ClusterLocationName,
    Feed,
    FeedCluster,
    StorageKind,
)
from falcon_airflow.errors import FalconAirflowError
from falcon_airflow.instances.bindings import InputBinding
from falcon_airflow.instances.feeds import FeedOnCluster
from falcon_airflow.instances.replication import Replication
from falcon_airflow.timekeeping import Frequency, TimeUnit, format_falcon_date

RUN_TIME = jinja("{{ macros.falcon.run_time(dag_run) }}")
REPORT_PATH = jinja("{{ macros.falcon.report_path(dag_run, task.task_id) }}")
SIX_HOURS = Frequency(unit=TimeUnit.HOURS, count=6)
ONE_DAY = Frequency(unit=TimeUnit.DAYS, count=1)
LATE_REPLICATION_POLICY = "exp-backoff"
LATE_REPLICATION_DELAY_SECONDS = 3 * 3600
"""Falcon's runtime defaults for late data of feeds (feed.late.policy, feed.late.frequency = hours(3))."""
ARCHIVE_PROPERTY = "retention.action"
"""Feed property: ``archive`` moves expired instances under ``<staging>/archive`` instead of deleting them."""


def retention_frequency(feed: Feed, placement: FeedCluster) -> Frequency:
    """Legacy retention runs every 6 hours for feeds under a day, else daily; a lifecycle stage says otherwise."""
    lifecycle = feed.lifecycle_retention_frequency(placement)
    if lifecycle is not None:
        return lifecycle
    return SIX_HOURS if feed.frequency.millis < ONE_DAY.millis else ONE_DAY


def retention_limit(feed: Feed, placement: FeedCluster) -> str:
    stage = feed.retention_stage_for(placement)
    if stage is not None:
        declared = next((p.value for p in stage.properties if p.name == AGE_BASED_DELETE_LIMIT), None)
        if declared:
            return declared.strip()
    return str(placement.retention.limit)


def _feed_tags(feed: Feed, *extra: str) -> tuple[str, ...]:
    return tags_of(feed.tag_pairs, "feed", *extra, *(f"group={group}" for group in feed.groups))


def _lineage(feed: Feed, entities_dir: Path | None, *clusters: Cluster | None) -> LineageSpec:
    return LineageSpec(owner=feed.acl.owner or None, tags=feed.tag_pairs, groups=feed.groups,
                       feeds={feed.name: feed_facts(feed, entities_dir, clusters[0])}, catalogs=catalogs_of(*clusters))


def compile_retention(workspace_clusters: Mapping[str, Cluster], feed: Feed, placement: FeedCluster, *,
                      entities_dir: Path | None = None) -> RetentionDagSpec:
    cluster = workspace_clusters.get(placement.name)
    on_cluster = FeedOnCluster(feed, placement, cluster)
    frequency = retention_frequency(feed, placement)
    limit = retention_limit(feed, placement)
    base = on_cluster.storage_base
    locations: dict[str, str] = {}
    table = None
    if on_cluster.storage is StorageKind.TABLE:
        declared = feed.table_for(placement)
        table = declared.uri.strip() if declared else None
    else:
        locations = {kind.value: join_storage(base, template.text)
                     for kind, template in on_cluster.templates().items()}
    action = "archive" if feed.property_map.get(ARCHIVE_PROPERTY, "").strip().lower() == "archive" else "delete"
    archive_root = None
    if action == "archive" and cluster is not None:
        staging = cluster.location(ClusterLocationName.STAGING)
        if staging is None:
            raise FalconAirflowError(f"feed '{feed.name}' archives expired instances, but cluster "
                                     f"'{placement.name}' has no staging location to archive under")
        archive_root = join_storage(base, f"{staging.path.rstrip('/')}/archive")
    master, deploy_mode = spark_master(cluster, None)
    stage = feed.retention_stage_for(placement)
    arguments = ["--feed", feed.name, "--cluster", placement.name, "--timezone", feed.zone.name,
                 "--limit", limit, "--frequency", str(feed.frequency),
                 # where the feed's instances on this cluster start: the job finds the last instance of a folder
                 "--start", format_falcon_date(placement.validity.start), "--action", action,
                 "--now", RUN_TIME, "--report", REPORT_PATH]
    for kind, template in locations.items():
        arguments += ["--location", f"{kind}={template}"]
    if table:
        arguments += ["--table", table]
    if archive_root:
        arguments += ["--archive-root", archive_root]
    # Paths, the table and the cluster's properties are entity text: escaped into the templated fields.
    job = SparkJob(connection=placement.name, master=master, deploy_mode=deploy_mode,
                   application=literal(job_file("retention.py")), py_files=literal(job_py_files()),
                   conf=template_conf(cluster_spark_conf(cluster, metastore=table is not None)),
                   name=literal(f"falcon-retention-{feed.name}-{placement.name}"),
                   arguments=template_values(arguments),
                   queue=stage.queue if stage is not None and stage.queue else feed.property_map.get("queueName"))
    doc = "\n".join([doc_header(feed, f"retention on cluster `{placement.name}`"),
                     f"Every {frequency}: instances older than {limit} are {action}d "
                     f"({feed.timezone} instance times); static paths are never touched.", "",
                     *(f"- {kind}: `{template}`" for kind, template in locations.items()),
                     *([f"- table: `{table}`"] if table else []), "", CLUSTER_INTERFACES_NOTE])
    return RetentionDagSpec(
        dag_id=retention_dag_id(feed.name, placement.name), source=source_of(feed), feed=feed.name,
        cluster=placement.name,
        schedule=Schedule(start=format_falcon_date(placement.validity.start),
                          end=format_falcon_date(placement.validity.end), frequency=str(frequency),
                          timezone=feed.timezone, catchup=False),
        locations=locations, table=table, timezone=feed.timezone, limit=limit, frequency=str(feed.frequency),
        action=action, archive_root=archive_root, job=job, retry=FEED_RETRY, owner=owner_of(feed.acl),
        group_access=group_access_of(feed.acl),
        tags=_feed_tags(feed, "retention"), doc_md=doc, lineage=_lineage(feed, entities_dir, cluster),
        messaging=messaging_of(cluster, feed.property_map),
        emails=feed.notification.recipients if feed.notification is not None else ())


def _int_property(feed: Feed, name: str, default: int) -> int:
    text = feed.property_map.get(name)
    try:
        return int(text) if text is not None else default
    except ValueError:
        raise FalconAirflowError(f"feed '{feed.name}' property {name} is '{text}', not a number") from None


def compile_replication(workspace_clusters: Mapping[str, Cluster], feed: Feed, source: FeedCluster,
                        target: FeedCluster, *, catchup_default: bool,
                        entities_dir: Path | None = None) -> ReplicationDagSpec:
    source_side = FeedOnCluster(feed, source, workspace_clusters.get(source.name))
    target_side = FeedOnCluster(feed, target, workspace_clusters.get(target.name))
    replication = Replication(source_side, target_side)
    start, end = replication.window
    properties = feed.property_map
    timeout_text = properties.get("timeout")
    timeout = seconds(Frequency.parse(timeout_text)) if timeout_text else default_timeout_seconds(feed.frequency)
    parallel = _int_property(feed, "parallel", 1)
    order = properties.get("order", "FIFO").strip().upper()
    if order not in ("FIFO", "LIFO", "LAST_ONLY"):
        raise FalconAirflowError(f"feed '{feed.name}' property order is '{order}'; use FIFO, LIFO or LAST_ONLY")
    source_template = source_side.template() if source_side.storage is StorageKind.FILESYSTEM else None
    source_binding = source_side.binding().model_copy(
        update={"location": join_storage(source_side.read_base, source_template.text)}
        if source_template is not None else {})
    target_binding = target_side.binding()
    master, deploy_mode = spark_master(target_side.cluster, None)
    delay = replication.delay.minutes if replication.delay else 0
    instance = f"macros.falcon.replicated_instance(falcon.source, dag_run, {delay})"
    side = "table" if source_side.storage is StorageKind.TABLE else "path"  # a catalog partition or a folder
    arguments = ["--feed", feed.name, "--source-cluster", source.name, "--target-cluster", target.name,
                 "--instance", jinja(f"{{{{ {instance} }}}}"),
                 f"--source-{side}", jinja(f"{{{{ macros.falcon.feed_path(falcon.source, {instance}) }}}}"),
                 f"--target-{side}", jinja(f"{{{{ macros.falcon.feed_path(falcon.target, {instance}) }}}}"),
                 "--max-maps", str(_int_property(feed, "maxMaps", 5)), "--report", REPORT_PATH]
    if side == "table":  # a partition's source may be in another metastore; a missing target table is created
        if source_side.metastore:
            arguments += ["--source-metastore", source_side.metastore]
        if target_side.storage_base:
            arguments += ["--target-storage", target_side.storage_base]
    bandwidth = _int_property(feed, "mapBandwidth", 0)
    if bandwidth > 0:  # MB/s per copy task, as Falcon passed it to DistCp
        arguments += ["--map-bandwidth", str(bandwidth)]
    if replication.include_pattern:
        arguments += ["--include", replication.include_pattern]
    if feed.availability_flag:
        arguments += ["--availability-flag", feed.availability_flag]
    schema_format = feed.data_schema.provider.strip().lower()
    if side == "path" and schema_format in SCHEMA_FORMATS:
        arguments += ["--schema-format", schema_format]  # the job reports the copy's columns for lineage
    for switch, flag in (("overwrite", "--overwrite"), ("removeDeletedFiles", "--remove-deleted-files"),
                         ("preserveTimes", "--preserve-times"), ("preservePermission", "--preserve-permissions")):
        if properties.get(switch, "").strip().lower() == "true":
            arguments.append(flag)
    job = SparkJob(connection=target.name, master=master, deploy_mode=deploy_mode,
                   application=literal(job_file("replication.py")), py_files=literal(job_py_files()),
                   conf=template_conf(cluster_spark_conf(source_side.cluster, target_side.cluster,
                                                         metastore=side == "table")),
                   name=literal(f"falcon-replication-{feed.name}-{source.name}-{target.name}"),
                   arguments=template_values(arguments),
                   queue=properties.get("queueName"))
    doc = "\n".join([doc_header(feed, f"replication `{source.name}` → `{target.name}`"),
                     f"Every {feed.frequency} from {format_falcon_date(start)} until {format_falcon_date(end)}: "
                     f"copies instance now(0,-{delay}) from `{source_binding.location}` to "
                     f"`{target_binding.location}`" + (f", files matching `{replication.include_pattern}`"
                                                       if replication.include_pattern else "") + ".",
                     "Data lands in a staging folder and is published by rename; the availability flag is "
                     "written after the copy is verified.", "", CLUSTER_INTERFACES_NOTE])
    late = None
    if feed.late_arrival is not None:  # Falcon re-replicated an instance that changed until the cut-off
        watched = InputBinding(name="source", feed=source_binding, start=f"now(0,-{delay})", end=f"now(0,-{delay})")
        late = LateDataSpec(policy=LATE_REPLICATION_POLICY, delay_seconds=LATE_REPLICATION_DELAY_SECONDS,
                            inputs=(watched,), cut_off_seconds=(seconds(feed.late_arrival.cut_off),), rerun=job)
    # Late-data watches keep a run open until the cut-off, beside the instances waiting for their source.
    late_window = math.ceil(late.cut_off_seconds[0] / seconds(feed.frequency)) if late is not None else 0
    catchup_text = properties.get("airflow.catchup")
    return ReplicationDagSpec(
        dag_id=replication_dag_id(feed.name, source.name, target.name), source=source_of(feed), feed=feed.name,
        source_cluster=source.name, target_cluster=target.name,
        schedule=Schedule(start=format_falcon_date(start), end=format_falcon_date(end),
                          frequency=str(feed.frequency), timezone=feed.timezone,
                          catchup=catchup_default if catchup_text is None else catchup_text.lower() == "true"),
        delay_minutes=delay, source_feed=source_binding, target_feed=target_binding,
        include=replication.include_pattern, parallel=parallel,
        max_active_runs=max(parallel, throttle(timeout, feed.frequency)) + late_window,
        order=order, wait_timeout_seconds=timeout, job=job, late=late, retry=FEED_RETRY, owner=owner_of(feed.acl),
        group_access=group_access_of(feed.acl),
        tags=_feed_tags(feed, "replication"), doc_md=doc,
        lineage=_lineage(feed, entities_dir, source_side.cluster, target_side.cluster),
        messaging=messaging_of(target_side.cluster, feed.property_map),
        emails=feed.notification.recipients if feed.notification is not None else ())

