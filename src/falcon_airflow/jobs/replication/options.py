"""The replication job's command line: its arguments and the checked :class:`Options` of one run."""

from __future__ import annotations

import argparse
import re
from dataclasses import dataclass

from falcon_airflow.core.formats import SCHEMA_FORMATS
from falcon_airflow.core.tables import TableUri
from falcon_airflow.core.times import format_instant, parse_instant
from falcon_airflow.jobs.catalog import parse_table_uri
from falcon_airflow.jobs.frame import ArgumentParser, UsageError
from falcon_airflow.jobs.staging import DEFAULT_LEASE_SECONDS
from falcon_airflow.jobs.uris import Uri, include_pattern, is_under, parse_location


def build_parser() -> argparse.ArgumentParser:
    parser = ArgumentParser(prog="replication", description="Copy a feed instance to a target cluster.")
    parser.add_argument("--feed", required=True)
    parser.add_argument("--source-cluster", required=True)
    parser.add_argument("--target-cluster", required=True)
    parser.add_argument("--instance", required=True, metavar="yyyy-MM-ddTHH:mmZ")
    parser.add_argument("--source-path", action="append", default=[], metavar="URI")
    parser.add_argument("--target-path", metavar="URI")
    parser.add_argument("--source-table", metavar="CATALOG_URI")
    parser.add_argument("--target-table", metavar="CATALOG_URI")
    parser.add_argument("--source-metastore", metavar="THRIFT_URI")
    parser.add_argument("--target-storage", metavar="URI")
    parser.add_argument("--include", metavar="GLOB")
    parser.add_argument("--availability-flag", default="_SUCCESS", metavar="NAME")
    parser.add_argument("--map-bandwidth", type=float, default=0.0, metavar="MB")
    parser.add_argument("--no-availability-flag", action="store_true")
    parser.add_argument("--max-maps", type=int, default=5, metavar="N")
    parser.add_argument("--overwrite", action="store_true")
    parser.add_argument("--remove-deleted-files", action="store_true")
    parser.add_argument("--preserve-times", action="store_true")
    parser.add_argument("--preserve-permissions", action="store_true")
    parser.add_argument("--executor-jvm", choices=("auto", "driver", "launch"), default="auto")
    parser.add_argument("--schema-format", choices=SCHEMA_FORMATS,
                        help="the feed's files describe their own columns: report them (for lineage)")
    parser.add_argument("--staging-lease-seconds", type=float, default=DEFAULT_LEASE_SECONDS,
                        metavar="S", help="how long another run leaves this run's staging alone without renewal")
    parser.add_argument("--report", metavar="PATH")
    return parser


@dataclass(frozen=True)
class Options:
    feed: str
    source_cluster: str
    target_cluster: str
    instance: str
    sources: tuple[Uri, ...]
    target: Uri | None
    source_table: TableUri | None
    target_table: TableUri | None
    source_metastore: str | None
    target_storage: Uri | None
    include: str | None
    flag: str
    max_maps: int
    bandwidth: int
    """Bytes per second per copy task; 0: unlimited."""
    overwrite: bool
    remove_deleted: bool
    preserve_times: bool
    preserve_permissions: bool
    executor_jvm: str
    lease_seconds: float = DEFAULT_LEASE_SECONDS
    """How long this run's staging lease lasts without renewal (renewed every quarter of it while the run lives)."""


def overlap(source: Uri, target: Uri) -> bool:
    """The same folder, or one inside the other, on the same file system."""
    return source.same_filesystem(target) and (source.path == target.path or is_under(target.path, source.path)
                                               or is_under(source.path, target.path))


def parse_options(args: argparse.Namespace) -> Options:
    instance = format_instant(parse_instant(args.instance))
    sources = tuple(parse_location(text, "--source-path") for text in args.source_path)
    target = parse_location(args.target_path, "--target-path") if args.target_path else None
    if bool(args.source_table) != bool(args.target_table):
        raise UsageError("--source-table and --target-table go together")
    source_table = parse_table_uri(args.source_table) if args.source_table else None
    target_table = parse_table_uri(args.target_table) if args.target_table else None
    for table in (source_table, target_table):
        if table is not None and table.dated_keys:
            raise UsageError(f"table {table.database}.{table.table}: partition values must be resolved "
                             f"(no ${{…}} variables left)")
    if source_table is None and not sources:
        raise UsageError("give --source-path (repeatable) or --source-table/--target-table")
    source_metastore = (args.source_metastore or "").strip() or None
    if source_metastore is not None and not re.fullmatch(r"thrift://[^/\s]+:\d+/?", source_metastore):
        raise UsageError(f"--source-metastore {source_metastore!r} is not thrift://host:port")
    target_storage = parse_location(args.target_storage, "--target-storage") if args.target_storage else None
    if source_table is None and target is None:
        raise UsageError("--target-path is required for filesystem feeds")
    if target is not None:
        if target.path == "/":
            raise UsageError("--target-path must not be a file system root")
        for source in sources:
            if overlap(source, target):
                raise UsageError(f"--target-path {target} and --source-path {source} overlap")
    include = args.include
    if include is not None:
        include_pattern(include)
    flag = args.availability_flag.strip()
    if flag in ("", "NA"):
        flag = "_SUCCESS"
    if args.no_availability_flag:
        flag = ""  # no file name is empty: nothing is skipped and nothing written
    elif "/" in flag or flag in (".", ".."):
        raise UsageError(f"--availability-flag {flag!r} must be a file name")
    if args.max_maps < 1:
        raise UsageError("--max-maps must be at least 1")
    if args.map_bandwidth < 0:
        raise UsageError("--map-bandwidth must not be negative")
    if args.staging_lease_seconds <= 0:
        raise UsageError("--staging-lease-seconds must be positive")
    return Options(args.feed, args.source_cluster, args.target_cluster, instance, sources, target, source_table,
                   target_table, source_metastore, target_storage, include, flag, args.max_maps,
                   int(args.map_bandwidth * (1 << 20)), args.overwrite,
                   args.remove_deleted_files, args.preserve_times, args.preserve_permissions, args.executor_jvm,
                   args.staging_lease_seconds)
