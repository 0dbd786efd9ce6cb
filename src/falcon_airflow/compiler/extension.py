"""An extension job becomes a DAG ``falcon.extension.<jobName>``: one run per job instance (``jobFrequency`` from
``jobValidityStart`` until ``jobValidityEnd`` in ``jobTimezone``), running ``jobs/mirroring.py`` on the Spark of
``jobClusterName`` with the clusters' settings (see docs/extensions.md)."""

from __future__ import annotations

from collections.abc import Mapping

from falcon_airflow.compiler.cluster_conf import cluster_spark_conf
from falcon_airflow.compiler.common import catalogs_of, job_file, job_py_files, seconds, spark_master
from falcon_airflow.compiler.specs import (
    EntitySource,
    ExtensionDagSpec,
    LineageSpec,
    RetrySpec,
    Schedule,
    SparkJob,
)
from falcon_airflow.compiler.templating import jinja, literal, template_conf, template_values
from falcon_airflow.core.mirror_targets import on_storage, readings, shared_folders
from falcon_airflow.core.paths import join_storage
from falcon_airflow.entities import Cluster, Feed
from falcon_airflow.entities.cluster import InterfaceType
from falcon_airflow.entities.extension import ENTITY_TYPE, ExtensionJob, ExtensionName, SnapshotRetention
from falcon_airflow.errors import FalconAirflowError
from falcon_airflow.timekeeping import Frequency
from falcon_airflow.validation.extensions import mirror_protections

INSTANCE = jinja("{{ macros.falcon.instance(dag_run).strftime('%Y-%m-%dT%H:%MZ') }}")
REPORT_PATH = jinja("{{ macros.falcon.report_path(dag_run, task.task_id) }}")
SUBCOMMANDS = {ExtensionName.HDFS_MIRRORING: "hdfs", ExtensionName.HDFS_SNAPSHOT_MIRRORING: "snapshot",
               ExtensionName.HIVE_MIRRORING: "hive"}


def extension_dag_id(job_name: str) -> str:
    return f"falcon.extension.{job_name}"


def _endpoint(cluster: Cluster, *kinds: InterfaceType) -> str:
    for kind in kinds:
        interface = cluster.interface(kind)
        if interface is not None and interface.endpoint.strip():
            return interface.endpoint.strip()
    raise FalconAirflowError(f"cluster '{cluster.name}' has no {' or '.join(kind.value for kind in kinds)} "
                             "interface")


def _on(base: str, path: str) -> str:
    """A path of the job on a cluster's storage (a full URI as it is)."""
    return path if "://" in path else join_storage(base, path)


def _retention_arguments(side: str, retention: SnapshotRetention | None) -> list[str]:
    assert retention is not None
    return [f"--{side}-keep", str(retention.number),
            f"--{side}-age-seconds", str(seconds(Frequency.parse(retention.age_limit)))]


def _guard_arguments(job: ExtensionJob, clusters: Mapping[str, Cluster], feeds: Mapping[str, Feed],
                     storage: str) -> list[str]:
    """What the job checks every folder it is about to replace against, before it deletes anything (validation
    checked a folder mirror's target already; a table mirror's folders are known only at run time): the target
    cluster's storage root and minimum depth, and the protected folders on that file system beyond the shared ones
    the job knows itself (cluster folders, Hive warehouses, feed locations)."""
    protected, _, depth = mirror_protections(job, clusters, feeds)
    known = set(shared_folders(storage, warehouses_inside=job.extension is not ExtensionName.HIVE_MIRRORING,
                               storage=f"cluster {job.target_cluster}"))
    on_target = readings(storage)
    arguments = ["--storage-root", storage, "--min-depth", str(depth)]
    for item in dict.fromkeys(protected):
        if item in known:
            continue
        where = on_storage(item.base, item.where)
        if any(place.same_file_system(root) for place in readings(where) for root in on_target):
            arguments += ["--protected-zone" if item.inside else "--protected-root", where, item.what]
    return arguments


def compile_extension(clusters: Mapping[str, Cluster], job: ExtensionJob,
                      feeds: Mapping[str, Feed] | None = None) -> ExtensionDagSpec:
    source, target, runner = (clusters.get(job.source_cluster), clusters.get(job.target_cluster),
                              clusters.get(job.cluster))
    if source is None or target is None or runner is None:
        raise FalconAirflowError(f"extension job '{job.name}' names a cluster that is not submitted")
    read_base = _endpoint(source, InterfaceType.READONLY, InterfaceType.WRITE)
    write_base = _endpoint(target, InterfaceType.WRITE)
    arguments = [SUBCOMMANDS[job.extension], "--job", job.name, "--source-cluster", source.name,
                 "--target-cluster", target.name, "--instance", INSTANCE, "--max-maps", str(job.max_maps),
                 "--report", REPORT_PATH]
    if job.map_bandwidth_mb:
        arguments += ["--map-bandwidth", str(job.map_bandwidth_mb)]
    arguments += _guard_arguments(job, clusters, feeds or {}, write_base)
    sources: tuple[str, ...] = ()
    mirror: str | None = None
    if job.extension is ExtensionName.HIVE_MIRRORING:
        source_metastore = _endpoint(source, InterfaceType.REGISTRY)
        mirror = _endpoint(target, InterfaceType.REGISTRY)
        sources = job.databases
        arguments += ["--source-metastore", source_metastore, "--target-metastore", mirror,
                      "--target-storage", write_base]
        for database in job.databases:
            arguments += ["--database", database]
        for table in job.tables:
            arguments += ["--table", table]
        what = (f"tables {', '.join(job.tables)} of database {job.databases[0]}" if job.tables
                else f"database(s) {', '.join(job.databases)}")
        doc = (f"Mirrors {what} from the metastore of `{source.name}` ({source_metastore}) into that of "
               f"`{target.name}` ({mirror}): definitions, partitions and data (onto `{write_base}`).")
    else:
        assert job.target_dir is not None
        sources = tuple(_on(read_base, folder) for folder in job.source_dirs)
        mirror = _on(write_base, job.target_dir)
        for folder in sources:
            arguments += ["--source-dir", folder]
        arguments += ["--target-dir", mirror]
        if job.extension is ExtensionName.HDFS_SNAPSHOT_MIRRORING:
            arguments += [*_retention_arguments("source", job.source_retention),
                          *_retention_arguments("target", job.target_retention),
                          "--now", jinja("{{ macros.falcon.run_time(dag_run) }}")]
            if job.encrypted:
                arguments.append("--length-only")
            doc = (f"Snapshots `{sources[0]}`, applies what changed since the last replicated snapshot to "
                   f"`{mirror}`, snapshots it, and keeps each side's snapshots within their retention.")
        else:
            doc = (f"Mirrors {', '.join(f'`{folder}`' for folder in sources)} onto `{mirror}` (verified, published "
                   "by rename; files the source no longer has are removed).")
    master, deploy_mode = spark_master(runner, None)
    # Folders, databases, tables, endpoints and the clusters' properties are entity text: escaped into the
    # templated fields.
    spark_job = SparkJob(connection=runner.name, master=master, deploy_mode=deploy_mode,
                         application=literal(job_file("mirroring.py")),
                         py_files=literal(job_py_files()),
                         conf=template_conf(cluster_spark_conf(source, target, runner)),
                         name=literal(f"falcon-extension-{job.name}"), arguments=template_values(arguments))
    where = f"{job.file}:{job.line}" if job.line else job.file
    doc_md = "\n".join([f"### Falcon extension `{job.extension.value}` job `{job.name}`", "",
                        f"Defined in `{where}`. Every {job.frequency} from {job.start} until {job.end} "
                        f"({job.timezone}), on the Spark of cluster `{runner.name}`.", "", doc])
    tags = (*(f"{key}={value}" for key, value in job.tag_pairs), "extension", job.extension.value)
    return ExtensionDagSpec(
        dag_id=extension_dag_id(job.name),
        source=EntitySource(type=ENTITY_TYPE, name=job.name, file=job.file, line=job.line),
        schedule=Schedule(start=job.start, end=job.end, frequency=job.frequency, timezone=job.timezone,
                          catchup=True),
        owner=job.owner or "falcon", tags=tags, doc_md=doc_md, emails=job.emails, extension=job.extension.value,
        job_name=job.name, cluster=runner.name, source_cluster=source.name, target_cluster=target.name,
        sources=sources, target=mirror, tables=job.tables, job=spark_job,
        retry=RetrySpec(policy=job.retry_policy, delay_seconds=seconds(Frequency.parse(job.retry_delay)),
                        attempts=job.retry_attempts, on_timeout=job.retry_on_timeout),
        lineage=LineageSpec(owner=job.owner, tags=job.tag_pairs, catalogs=catalogs_of(source, target)))
