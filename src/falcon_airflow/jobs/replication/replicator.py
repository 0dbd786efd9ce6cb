"""The replication run: resolve the paths (of tables, through the catalogs), list and compare, copy into this
run's staging, verify, publish, register the partition; :func:`main` runs it as a job."""

from __future__ import annotations

import argparse
import functools
import re
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from falcon_airflow.jobs.catalog import partition_detail, qualified, spec_sql, sql_string, table_detail
from falcon_airflow.jobs.filesystem import HadoopFs
from falcon_airflow.jobs.frame import JobError, JobResult, UsageError, first_line, run_job, spark_session
from falcon_airflow.jobs.replication.copier import run_partition, ship_by_value
from falcon_airflow.jobs.replication.listing import SourceFile, balance, list_sources
from falcon_airflow.jobs.replication.metastore import ThriftMetastore, same_metastore, session_metastore
from falcon_airflow.jobs.replication.options import Options, build_parser, overlap, parse_options
from falcon_airflow.jobs.staging import RunOwner, RunStaging
from falcon_airflow.jobs.uris import (
    Uri,
    checked_path,
    include_pattern,
    include_prefix,
    name_of,
    parse_location,
    split_uri,
)

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


def executor_access(spark: SparkSession, mode: str) -> dict[str, Any]:
    """How copy tasks reach a JVM: the driver's gateway (local master) or a private one per worker."""
    context = spark.sparkContext
    local = (context.master or "").startswith("local")
    if mode == "auto":
        mode = "driver" if local else "launch"
    if mode == "driver":
        if not local:
            raise UsageError("--executor-jvm driver needs a local master (the executors must be in the "
                             "driver's JVM)")
        gateway: Any = context._gateway
        parameters = getattr(gateway, "java_parameters", None) or gateway.gateway_parameters
        return {"mode": "driver", "port": parameters.port, "secret": parameters.auth_token}
    conf = context.getConf()
    arguments = ["--driver-memory", "512m"]
    jars = conf.get("spark.jars", "")
    classpath = ":".join(part for part in (conf.get("spark.executor.extraClassPath", ""),) if part)
    if jars:
        arguments += ["--jars", jars]
    if classpath:
        arguments += ["--driver-class-path", classpath]
    return {"mode": "launch", "submit_args": " ".join([*arguments, "pyspark-shell"])}


class Replicator:
    def __init__(self, spark: SparkSession, options: Options) -> None:
        self.spark = spark
        self.options = options
        self.fs = HadoopFs(spark)
        self.access = executor_access(spark, options.executor_jvm)
        # Tasks of a local master run in the driver's JVM and copy its configuration there; others get the
        # settings that differ from a fresh Configuration (two writeXml of about a thousand properties).
        self.conf = self.fs.configuration_overrides() if self.access["mode"] == "launch" else None
        self.tasks = 0
        self.created_table: str | None = None  # the location of a target table this run created

    def run_tasks(self, op: str, items: list[dict[str, Any]]) -> list[dict[str, Any]]:
        if not items:
            return []
        slices = balance(items, self.options.max_maps)
        self.tasks += len(slices)
        task = {"op": op, "conf": self.conf, "jvm": self.access, "bandwidth": self.options.bandwidth,
                "preserve_times": self.options.preserve_times,
                "preserve_permissions": self.options.preserve_permissions}
        context = self.spark.sparkContext
        ship_by_value()
        context.setJobDescription(f"falcon replication {self.options.feed} {self.options.instance}: {op} "
                                  f"{len(items)} files")
        try:
            results: list[dict[str, Any]] = (context.parallelize(slices, len(slices))
                                             .mapPartitions(functools.partial(run_partition, task)).collect())
        except Exception as error:
            raise JobError(f"{op} tasks failed: {first_line(error)}") from None
        finally:
            context.setJobDescription(None)  # type: ignore[arg-type]
        failed = [result for result in results if "error" in result]
        if failed:
            shown = "; ".join(f"{result['rel']}: {result['error']}" for result in failed[:3])
            raise JobError(f"{len(failed)} file(s) could not be read or written: {shown}")
        return results

    def resolve_paths(self) -> tuple[list[Uri], Uri]:
        options = self.options
        sources, target = list(options.sources), options.target
        if options.source_table is not None and options.target_table is not None:
            source_catalog = self.source_catalog()
            try:
                if not sources:
                    sources = [self.source_partition_location(source_catalog)]
                if target is None:
                    location = self.target_table_location(source_catalog)
                    target = parse_location(
                        location.rstrip("/") + "/" + options.target_table.partition_path(), "target partition location")
            finally:
                if source_catalog is not None:
                    source_catalog.close()
        assert target is not None
        qualified_sources, qualified_target = [self.fs.qualify(str(source)) for source in sources], \
            self.fs.qualify(str(target))
        for source in qualified_sources:  # e.g. a table feed whose two clusters share one metastore and one table
            if overlap(source, qualified_target):
                raise JobError(f"the target {qualified_target} and the source {source} overlap: an instance "
                               "cannot be replicated onto itself")
        return qualified_sources, qualified_target

    def source_catalog(self) -> ThriftMetastore | None:
        """The source's metastore when it is not the session's (the session is on the target's)."""
        wanted = self.options.source_metastore
        if wanted is None or same_metastore(wanted, session_metastore(self.spark)):
            return None
        return ThriftMetastore(self.spark, wanted)

    def source_partition_location(self, catalog: ThriftMetastore | None) -> Uri:
        table = self.options.source_table
        assert table is not None
        spec = dict(table.partitions)
        if catalog is not None:
            location = catalog.partition_location(table, spec)
        else:
            details = partition_detail(self.spark, table, spec)
            location = (details or {}).get("Location")
        if not location:
            raise JobError(f"source partition {table.partition_path()} of {table.database}.{table.table} "
                           f"does not exist")
        return parse_location(location, "source partition location")

    def target_table_location(self, catalog: ThriftMetastore | None) -> str:
        """The target table's location, the table created first when missing (Falcon's Hive import did)."""
        source, target = self.options.source_table, self.options.target_table
        assert source is not None and target is not None
        if not self.spark.catalog.tableExists(f"`{target.database}`.`{target.table}`"):
            self.created_table = self.create_target_table(catalog)
        location = table_detail(self.spark, target, "Location")
        if not location:
            raise JobError(f"target table {target.database}.{target.table} has no location")
        return location

    def create_target_table(self, catalog: ThriftMetastore | None) -> str:
        source, target = self.options.source_table, self.options.target_table
        assert source is not None and target is not None
        if not self.spark.catalog.databaseExists(target.database):
            raise JobError(f"target database {target.database} does not exist in the target metastore: "
                           f"create it before replicating into {target.database}.{target.table}")
        rows = self.spark.sql(f"DESCRIBE DATABASE `{target.database}`").collect()
        database_location = next((str(row[1]) for row in rows if str(row[0]).strip() == "Location"), "")
        if not database_location:
            raise JobError(f"target database {target.database} has no location")
        where = split_uri(database_location)
        base = self.options.target_storage.root if self.options.target_storage is not None else where.root
        location = f"{base}{checked_path(where.path.rstrip('/') + '/' + target.table.lower())}"
        if catalog is None:
            self.spark.sql(f"CREATE TABLE IF NOT EXISTS {qualified(target)} LIKE {qualified(source)} "
                           f"LOCATION {sql_string(location)}")
        else:
            target_metastore = session_metastore(self.spark)
            if target_metastore is None:
                raise JobError(f"table {target.database}.{target.table} cannot be created from another "
                               "metastore's definition: the job's session names no hive.metastore.uris")
            with ThriftMetastore(self.spark, target_metastore) as target_catalog:
                target_catalog.create_like(catalog.table(source), target, location)
        self.spark.catalog.refreshTable(f"`{target.database}`.`{target.table}`")
        print(f"replication: created table {target.database}.{target.table} at {location}", file=sys.stderr)
        return location

    def run(self) -> dict[str, Any]:
        options = self.options
        sources, target = self.resolve_paths()
        if target.path == "/":
            raise JobError("the target resolves to a file system root")
        flag = target.with_path(target.path + "/" + options.flag) if options.flag else None
        # With an include pattern the unit copied and swapped is <target>/<its glob-free folders> (Falcon appended
        # them to both paths): replications of different partitions into one instance do not touch each other.
        prefix = include_prefix(options.include) if options.include else ""
        pattern = include_pattern(options.include) if options.include else None
        if prefix:
            named = self.fs.status(sources[0].with_path(sources[0].path.rstrip("/") + "/" + prefix))
            if named is not None and not named.is_dir:  # the include names one file: its folder is the unit
                prefix = prefix.rsplit("/", 1)[0] if "/" in prefix else ""
        planned = list_sources(self.fs, sources, options.include, options.flag, prefix)
        instance = target
        if prefix:
            planned = {rel[len(prefix) + 1:]: item for rel, item in planned.items()}
            target = Uri(target.scheme, target.authority, target.path + "/" + prefix)
        # every sibling this run makes beside the target carries its token; other runs' are left to their owners
        with RunStaging(self.fs, str(target), RunOwner.current(options.lease_seconds)) as stage:
            return self.replicate(stage, sources, instance, target, planned, prefix, pattern, flag)

    def replicate(self, stage: RunStaging, sources: list[Uri], instance: Uri,
                  target: Uri, planned: dict[str, SourceFile], prefix: str, pattern: re.Pattern[str] | None,
                  flag: str | None) -> dict[str, Any]:
        """Copy ``planned`` into this run's staging folder beside ``target``, verify and publish it."""
        options = self.options
        recovered = stage.recover()
        # exists() first: a missing target (every first run) costs one py4j call, not a converted Java exception
        current = self.fs.status(str(target)) if self.fs.exists(str(target)) else None
        if current is not None and not current.is_dir:
            raise JobError(f"target {target} exists and is not a folder")
        existing: dict[str, int] = {}
        if current is not None:
            for entry in self.fs.list_files(str(target)):
                path = checked_path(split_uri(entry.path).path)
                rel = path[len(target.path):].lstrip("/")
                if name_of(rel) != options.flag:
                    existing[rel] = entry.length
        extras = sorted(set(existing) - set(planned))
        # --remove-deleted-files drops only what the include pattern covers
        removable = [rel for rel in extras if pattern is None or pattern.match(f"{prefix}/{rel}" if prefix else rel)]
        identical: set[str] = set()
        crcs: dict[str, int] = {}
        if current is not None and not options.overwrite:
            pairs = [{"rel": rel, "src": item.uri, "dst": target.with_path(target.path + "/" + rel),
                      "length": item.length, "origin": "compare"}
                     for rel, item in planned.items() if existing.get(rel) == item.length]
            for result in self.run_tasks("compare", pairs):
                if result["src_crc"] == result["dst_crc"] and result["bytes"] == result["read"] == result["length"]:
                    identical.add(result["rel"])
                    crcs[result["rel"]] = result["dst_crc"]
        report: dict[str, Any] = {
            "job": "replication", "feed": options.feed, "source_cluster": options.source_cluster,
            "target_cluster": options.target_cluster, "instance": options.instance,
            "sources": [str(source) for source in sources], "target": str(instance), "include": options.include,
            "published_folder": str(target), "availability_flag": flag, "recovered": recovered,
        }
        if current is not None and len(identical) == len(planned) and not (removable and options.remove_deleted):
            # Already complete: leave the instance as it is (an idempotent rerun), make sure the flag is there.
            if flag is not None:
                self.fs.touch(flag)
            kept = {rel: existing[rel] for rel in extras}
            report.update(self.counters(planned, identical, kept, [], published=False))
            manifest = [{"path": rel, "bytes": planned[rel].length, "crc32": f"{crcs[rel]:08x}", "origin": "target"}
                        for rel in planned]
            manifest += [{"path": rel, "bytes": size, "origin": "target"} for rel, size in kept.items()]
            report["manifest"] = sorted(manifest, key=lambda item: item["path"])
            return report
        staging = stage.staging
        staging_path = split_uri(staging).path
        items: list[dict[str, Any]] = []
        for rel, item in planned.items():
            origin = "target" if rel in identical else "source"
            source = item.uri if origin == "source" else target.with_path(target.path + "/" + rel)
            items.append({"rel": rel, "src": source, "dst": target.with_path(staging_path + "/" + rel),
                          "length": item.length, "origin": origin})
        removed = removable if options.remove_deleted else []
        kept = {rel: existing[rel] for rel in extras if rel not in removed}
        for rel, size in kept.items():
            items.append({"rel": rel, "src": target.with_path(target.path + "/" + rel),
                          "dst": target.with_path(staging_path + "/" + rel), "length": size, "origin": "target"})
        if not self.fs.mkdirs(staging):
            raise JobError(f"cannot create the staging folder {staging}")
        results = self.run_tasks("copy", items)  # a failure leaves the staging folder to the stage's exit
        self.verify(staging, items, results)
        stage.publish(expected=(len(items), sum(int(item["length"]) for item in items)))
        if flag is not None:  # only after a verified publish: a refused one raised above
            self.fs.touch(flag)
        report.update(self.counters(planned, identical, kept, removed, published=True))
        report["manifest"] = sorted(({"path": result["rel"], "bytes": result["bytes"],
                                      "crc32": f"{result['dst_crc']:08x}", "origin": result["origin"]}
                                     for result in results), key=lambda item: item["path"])
        return report

    def verify(self, staging: str, items: list[dict[str, Any]], results: list[dict[str, Any]]) -> None:
        """Per file: the bytes copied, the bytes read back from the staging copy and the listed length agree, and
        so do the CRC32 of the source stream and of the read-back copy. Then the staging folder must hold exactly
        those files: every one was read back by name, so the file system's own count and byte total (a content
        summary, no listing to transfer) rule out anything missing or extra."""
        problems = [f"{result['rel']}: {result['bytes']} bytes copied of {result['length']}, {result['read']} read "
                    f"back, crc {result['src_crc']:08x} vs {result['dst_crc']:08x}"
                    for result in results
                    if not (result["bytes"] == result["read"] == result["length"]
                            and result["src_crc"] == result["dst_crc"])]
        expected = {item["rel"]: int(item["length"]) for item in items}
        if len(results) != len(items) or {result["rel"] for result in results} != set(expected):
            problems.append(f"{len(results)} results for {len(items)} files")
        files, size = self.fs.content_summary(staging)
        if (files, size) != (len(expected), sum(expected.values())):
            problems.append(f"staging holds {files} files, {size} bytes; expected {len(expected)} files, "
                            f"{sum(expected.values())} bytes")
        if problems:
            raise JobError(f"verification of {staging} failed: " + "; ".join(problems[:3]))

    def counters(self, planned: dict[str, SourceFile], identical: set[str], kept: dict[str, int],
                 removed: list[str], published: bool) -> dict[str, Any]:
        copied = [item for rel, item in planned.items() if rel not in identical]
        skipped = [item for rel, item in planned.items() if rel in identical]
        return {
            "files": len(planned) + len(kept),
            "bytes": sum(item.length for item in planned.values()) + sum(kept.values()),
            "copied": len(copied), "copied_bytes": sum(item.length for item in copied),
            "skipped": len(skipped), "skipped_bytes": sum(item.length for item in skipped),
            "kept_extra": len(kept), "removed": len(removed), "published": published, "verified": True,
            "max_maps": self.options.max_maps, "tasks": self.tasks,
        }


def register_partition(spark: SparkSession, options: Options, target: str) -> str:
    """Add the target partition to the target catalog table (or point it at the replicated folder)."""
    table = options.target_table
    assert table is not None
    spec = spec_sql(table)
    spark.sql(f"ALTER TABLE {qualified(table)} ADD IF NOT EXISTS {spec} LOCATION {sql_string(target)}")
    details = partition_detail(spark, table, dict(table.partitions)) or {}
    location = details.get("Location", "")
    if location and split_uri(location).path.rstrip("/") != split_uri(target).path.rstrip("/"):
        spark.sql(f"ALTER TABLE {qualified(table)} {spec} SET LOCATION {sql_string(target)}")
    return table.partition_path()


def copied_schema(spark: SparkSession, data_format: str, folder: str) -> list[list[str]] | None:
    """``[[column, type], ...]`` of the published copy, from its files' own metadata; ``None`` when unreadable.

    Only lineage uses it (each column copied unchanged), so a folder Spark cannot read never fails the copy."""
    try:
        schema = spark.read.format(data_format).load(folder).schema
    except Exception as problem:
        print(f"replication: no schema read from {folder} ({first_line(problem)})", file=sys.stderr)
        return None
    return [[field.name, field.dataType.simpleString()] for field in schema.fields] or None


def main(argv: Sequence[str] | None = None, spark: SparkSession | None = None) -> int:
    """Run the replication job on ``argv`` (``spark`` defaults to the running session, or a new one)."""

    def body(args: argparse.Namespace) -> JobResult:
        options = parse_options(args)
        tables = options.source_table is not None
        with spark_session(f"falcon-replication-{options.feed}", spark, hive=tables) as session:
            replicator = Replicator(session, options)
            try:
                report = replicator.run()
                if tables:
                    report["partition"] = register_partition(session, options, report["target"])
                    if replicator.created_table is not None:
                        report["created_table"] = replicator.created_table
                elif args.schema_format:
                    report["schema"] = copied_schema(session, args.schema_format, report["published_folder"])
            finally:
                replicator.fs.close()
        summary = {key: value for key, value in report.items() if key != "manifest"}
        return JobResult(summary, report)

    return run_job("replication", build_parser(), argv, body)
