"""Falcon's mirroring extensions as one PySpark job with a subcommand per extension; the copying is replication's
(``jobs/replication/``: verified copy tasks, staging and rename).

Command line (``spark-submit --py-files <jobs zip> entry/mirroring.py SUBCOMMAND ARGS``)::

    hdfs      --job NAME --source-cluster C --target-cluster C --instance T
              --source-dir URI (repeatable) --target-dir URI [--max-maps N] [--map-bandwidth MB] [--report PATH]
    snapshot  --job NAME --source-cluster C --target-cluster C --instance T --source-dir URI --target-dir URI
              --source-keep N --source-age-seconds S --target-keep N --target-age-seconds S
              [--max-maps N] [--map-bandwidth MB] [--length-only] [--now T] [--report PATH]
    hive      --job NAME --source-cluster C --target-cluster C --instance T
              --source-metastore thrift://H:P --target-metastore thrift://H:P --target-storage URI
              --database DB (repeatable) [--table T (repeatable)] [--max-maps N] [--map-bandwidth MB]
              [--report PATH]

``hdfs`` (hdfs-mirroring): each source folder is mirrored as replication publishes a feed instance: copied into a
staging folder beside the target, verified file by file (CRC32 of what was read and of the copy read back), and
swapped in by rename; files the source no longer has are dropped. One source folder is mirrored onto the target
folder; several each onto ``<target>/<its name>``, as DistCp copies several sources. Nothing is skipped or added:
a ``_SUCCESS`` of the source is copied, none is written.

``snapshot`` (hdfs-snapshot-mirroring): both folders must be snapshottable (``hdfs dfsadmin -allowSnapshot``).
A run creates snapshot ``falcon-snapshot-<job>-<yyyyMMddHHmm>`` (its instance) of the source; when an earlier
snapshot of the job exists on both sides and the target has not changed since it, only the paths HDFS's snapshot
diff report names (created, modified, renamed, deleted) are applied to the target, as ``distcp -diff`` does; else
the whole snapshot is synchronised (files missing or different copied, files the source lacks removed). Either way
the target tree must then equal the source snapshot (paths and lengths; every file copied verified) before the
target gets the same snapshot: the target snapshot is the consistent mirror a reader uses. Then each side's
retention: snapshots of the job older than the age limit are deleted, except the newest ``keep``.

``hive`` (hive-mirroring): for each database (and its listed tables, else all of them), read from the source
cluster's metastore (thrift, Hive's own client in the driver's JVM): the database is created in the target's
metastore when missing (its location moved onto the target storage), each table created there as an external
table of the same shape at the same path on the target storage, and its data mirrored folder by folder - the
table's folder, or each partition's - with the same verified staging and rename as ``hdfs``; partitions missing
in the target are added, those pointing elsewhere re-pointed. Drops are replayed, as Falcon's Hive DR replayed the
source's events, but only of what this job made: every table it creates and every partition it adds carries its
mark (the parameter ``falcon.mirror.job`` = the job's name); a marked table the source no longer has (in a
database mirrored whole, or a listed table) is dropped from the target, and a marked partition the source no longer
has is dropped from its table, each one's folder deleted after the metadata (a crash in between leaves a folder no
table names) and only once the folder passed the same checks as a folder the mirror replaces. A table or partition
the job did not make is never dropped.

Every folder a run replaces (the target, each source's folder under it, each table's or partition's folder of a
Hive mirror) is checked first, before anything is copied or deleted, by the rules of
:mod:`falcon_airflow.core.mirror_targets`: never the file system's root, ``/user``, ``/home``, ``/tmp``, ``/apps``,
a user's home, the storage root (``--storage-root``) or anything above them, never at, in or above a Hive warehouse
(for a folder mirror) or a folder given with ``--protected-zone URI WHAT`` (the compiler passes the clusters'
staging, working and temp folders and every feed location), never at or above a ``--protected-root URI WHAT``,
and at least ``--min-depth`` folders deep. A folder of the local file system is checked as written and with its
symbolic links resolved.

Output: a one-line JSON summary on stdout; ``--report`` the same with the per-folder details.
Exit 0 done, 1 failure (a refused target too), 2 bad arguments.
"""

from __future__ import annotations

import argparse
import os
import re
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from falcon_airflow.core.mirror_targets import DEFAULT_MIN_DEPTH, Protected, refusals, shared_folders
from falcon_airflow.core.tables import TableUri
from falcon_airflow.core.times import format_instant, parse_instant
from falcon_airflow.jobs.catalog import check_identifier
from falcon_airflow.jobs.filesystem import HadoopFs
from falcon_airflow.jobs.frame import (
    ArgumentParser,
    JobError,
    JobResult,
    UsageError,
    first_line,
    run_job,
    spark_session,
)
from falcon_airflow.jobs.replication.metastore import ThriftMetastore
from falcon_airflow.jobs.replication.options import Options, parse_options
from falcon_airflow.jobs.replication.options import build_parser as build_replication_parser
from falcon_airflow.jobs.replication.replicator import Replicator
from falcon_airflow.jobs.uris import checked_path, name_of, parent_of, parse_location, split_uri

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

SNAPSHOT_PREFIX = "falcon-snapshot-"
_STAMP = "%Y%m%d%H%M"


def build_parser() -> argparse.ArgumentParser:
    parser = ArgumentParser(prog="mirroring", description="Run a mirroring extension job.")
    commands = parser.add_subparsers(dest="extension", required=True)
    for name in ("hdfs", "snapshot", "hive"):
        sub = commands.add_parser(name)
        sub.add_argument("--job", required=True)
        sub.add_argument("--source-cluster", required=True)
        sub.add_argument("--target-cluster", required=True)
        sub.add_argument("--instance", required=True, metavar="yyyy-MM-ddTHH:mmZ")
        sub.add_argument("--max-maps", type=int, default=1)
        sub.add_argument("--map-bandwidth", type=float, default=0.0, metavar="MB")
        sub.add_argument("--executor-jvm", choices=("auto", "driver", "launch"), default="auto")
        sub.add_argument("--report", metavar="PATH")
        sub.add_argument("--storage-root", metavar="URI", help="the target cluster's storage")
        sub.add_argument("--min-depth", type=int, default=DEFAULT_MIN_DEPTH)
        sub.add_argument("--protected-zone", nargs=2, action="append", default=[], metavar=("URI", "WHAT"),
                         help="no target at, inside or above this folder")
        sub.add_argument("--protected-root", nargs=2, action="append", default=[], metavar=("URI", "WHAT"),
                         help="no target at or above this folder")
        if name in ("hdfs", "snapshot"):
            sub.add_argument("--source-dir", action="append", required=True, metavar="URI")
            sub.add_argument("--target-dir", required=True, metavar="URI")
        if name == "snapshot":
            for side in ("source", "target"):
                sub.add_argument(f"--{side}-keep", type=int, required=True)
                sub.add_argument(f"--{side}-age-seconds", type=int, required=True)
            sub.add_argument("--length-only", action="store_true")
            sub.add_argument("--now", metavar="yyyy-MM-ddTHH:mmZ")
        if name == "hive":
            sub.add_argument("--source-metastore", required=True, metavar="THRIFT_URI")
            sub.add_argument("--target-metastore", required=True, metavar="THRIFT_URI")
            sub.add_argument("--target-storage", required=True, metavar="URI")
            sub.add_argument("--database", action="append", required=True)
            sub.add_argument("--table", action="append", default=[])
    return parser


def _protected(args: argparse.Namespace) -> list[Protected]:
    found = shared_folders(args.storage_root, warehouses_inside=args.extension != "hive",
                           storage=f"cluster {args.target_cluster}")
    found += [Protected(where, what, inside=True) for where, what in args.protected_zone]
    found += [Protected(where, what, inside=False) for where, what in args.protected_root]
    return found


def check_target(args: argparse.Namespace, target: str) -> None:
    """Refuse (:class:`JobError`) a folder this run may not replace: a mirror deletes what its source does
    not hold. Called for every folder before anything is copied or deleted."""
    texts = [target]
    split = split_uri(target)
    if (split.scheme or "file").lower() == "file" and split.path.startswith("/"):
        real = os.path.realpath(split.path)  # a symbolic link on the way leads the mirror elsewhere
        if real != split.path.rstrip("/"):
            texts.append(f"file://{real}")
    messages: list[str] = []
    for text in texts:
        messages += [refusal.message for refusal in refusals(text, _protected(args), base=args.storage_root,
                                                             min_depth=args.min_depth)]
    if messages:
        shown = f"{target} (really {texts[1]})" if len(texts) > 1 else target
        raise JobError(f"refused to mirror onto {shown}: it " + "; it ".join(messages[:3])
                       + (f" (and {len(messages) - 3} more)" if len(messages) > 3 else "")
                       + "; a mirror replaces its target, deleting what the source does not hold: nothing "
                         "was copied or deleted")


def _check(args: argparse.Namespace) -> None:
    if args.max_maps < 1:
        raise UsageError("--max-maps must be at least 1")
    if args.min_depth < 1:
        raise UsageError("--min-depth must be at least 1")
    args.instance = format_instant(parse_instant(args.instance))
    if not re.fullmatch(r"[A-Za-z][\w-]*", args.job):
        raise UsageError(f"--job {args.job!r} is not a job name")
    if args.extension == "hive":
        for uri in (args.source_metastore, args.target_metastore):
            if not re.fullmatch(r"thrift://[^/\s]+:\d+/?", uri):
                raise UsageError(f"{uri!r} is not thrift://host:port")
        if args.source_metastore.rstrip("/") == args.target_metastore.rstrip("/"):
            raise UsageError("the source and target metastores are one: the tables would mirror onto "
                             "themselves")
        for name in [*args.database, *args.table]:
            check_identifier(name)
        if args.table and len(args.database) != 1:
            raise UsageError("--table needs exactly one --database")
    if args.extension == "snapshot":
        for side in ("source", "target"):
            if getattr(args, f"{side}_keep") < 1 or getattr(args, f"{side}_age_seconds") < 0:
                raise UsageError(f"--{side}-keep must be at least 1 and --{side}-age-seconds not negative")
        if len(args.source_dir) != 1:
            raise UsageError("snapshot mirroring has one --source-dir")
    if args.extension in ("hdfs", "snapshot"):
        target = str(parse_location(args.target_dir, "--target-dir"))
        check_target(args, target)
        if len(args.source_dir) > 1:  # each source lands in a folder of its name under the target
            for text in args.source_dir:
                name = name_of(parse_location(text, "--source-dir").path)
                check_target(args, f"{target.rstrip('/')}/{name}")


def _replication_options(args: argparse.Namespace, source: str, target: str) -> Options:
    """Replication's options for one folder of a mirror: no availability flag, deleted files removed."""
    argv = ["--feed", args.job, "--source-cluster", args.source_cluster, "--target-cluster", args.target_cluster,
            "--instance", args.instance, "--source-path", source, "--target-path", target,
            "--max-maps", str(args.max_maps), "--map-bandwidth", str(args.map_bandwidth),
            "--no-availability-flag", "--remove-deleted-files",
            "--executor-jvm", args.executor_jvm]
    return parse_options(build_replication_parser().parse_args(argv))


def _mirror_folder(spark: SparkSession, args: argparse.Namespace, source: str, target: str) -> dict[str, Any]:
    replicator = Replicator(spark, _replication_options(args, source, target))
    try:
        report = replicator.run()
    finally:
        replicator.fs.close()
    report.pop("manifest", None)
    for key in ("job", "feed", "source_cluster", "target_cluster", "instance", "include", "availability_flag"):
        report.pop(key, None)
    return report


def _totals(copies: list[dict[str, Any]]) -> dict[str, int]:
    return {key: sum(int(copy.get(key) or 0) for copy in copies)
            for key in ("files", "bytes", "copied", "copied_bytes", "removed")}


# -- hdfs-mirroring --------------------------------------------------------------------------------------------------

def mirror_hdfs(spark: SparkSession, args: argparse.Namespace) -> dict[str, Any]:
    target = parse_location(args.target_dir, "--target-dir")
    sources = [parse_location(text, "--source-dir") for text in args.source_dir]
    names = [name_of(source.path) for source in sources]
    if len(sources) > 1 and len(set(names)) != len(names):
        raise UsageError(f"source folders {', '.join(map(str, sources))} share a name: their mirrors under "
                         f"{target} would collide")
    pairs = [(str(sources[0]), str(target))] if len(sources) == 1 else [
        (str(source), target.with_path(target.path.rstrip("/") + "/" + name)) for source, name in zip(sources, names,
                                                                                                      strict=True)]
    copies = [_mirror_folder(spark, args, source, folder) for source, folder in pairs]
    return {"extension": "hdfs-mirroring", "sources": [source for source, _ in pairs],
            "targets": [folder for _, folder in pairs], **_totals(copies), "copies": copies}


# -- hdfs-snapshot-mirroring -----------------------------------------------------------------------------------------

class SnapshotFolder:
    """A snapshottable HDFS folder and the job's snapshots in it."""

    def __init__(self, fs: HadoopFs, uri: str, job: str, what: str) -> None:
        self.fs = fs
        self.uri = uri.rstrip("/")
        self.what = what
        self.prefix = f"{SNAPSHOT_PREFIX}{job}-"
        self.hdfs = fs.filesystem(uri)
        status = fs.status(uri)
        if status is None or not status.is_dir:
            raise JobError(f"{what} folder {uri} does not exist")
        java_status = self.hdfs.getFileStatus(fs.path(uri))
        if not hasattr(self.hdfs, "createSnapshot") or not bool(java_status.isSnapshotEnabled()):
            raise JobError(f"{what} folder {uri} is not snapshottable: an HDFS administrator enables it "
                           f"with `hdfs dfsadmin -allowSnapshot {split_uri(uri).path}`")

    def snapshots(self) -> list[str]:
        """The job's snapshots, oldest first (their names end in the instance time)."""
        entries = self.fs.list_dir(f"{self.uri}/.snapshot")
        names = [name_of(split_uri(entry.path).path) for entry in entries]
        return sorted(name for name in names if name.startswith(self.prefix) and _snapshot_time(name, self.prefix))

    def create(self, name: str) -> None:
        if name not in self.snapshots():
            self.hdfs.createSnapshot(self.fs.path(self.uri), name)

    def delete(self, name: str) -> None:
        self.hdfs.deleteSnapshot(self.fs.path(self.uri), name)

    def diff(self, older: str, newer: str) -> list[tuple[str, str, str | None]]:
        """HDFS's snapshot diff report from ``older`` to ``newer`` ("" is the folder as it is now): (type,
        relative path, relative target of a rename)."""
        report = self.hdfs.getSnapshotDiffReport(self.fs.path(self.uri), older, newer)
        entries = []
        for entry in report.getDiffList():
            source = _relative(entry.getSourcePath())
            renamed = entry.getTargetPath()
            entries.append((str(entry.getType().toString()), source, _relative(renamed) if renamed is not None
                            else None))
        return entries


def _relative(raw: Any) -> str:
    text = bytes(raw).decode("utf-8") if isinstance(raw, (bytes, bytearray)) else str(raw)
    return checked_path("/" + text.strip("/")).lstrip("/") if text.strip("/") else ""


def _snapshot_time(name: str, prefix: str) -> datetime | None:
    try:
        return datetime.strptime(name[len(prefix):], _STAMP).replace(tzinfo=UTC)
    except ValueError:
        return None


def _tree(fs: HadoopFs, root: str) -> tuple[dict[str, int], set[str]]:
    """(relative file → length, relative folders) below ``root``."""
    files: dict[str, int] = {}
    folders: set[str] = set()
    base = split_uri(root).path.rstrip("/")
    for entry in fs.list_files(root):
        rel = split_uri(entry.path).path[len(base):].lstrip("/")
        files[rel] = entry.length
        parts = rel.split("/")[:-1]
        folders.update("/".join(parts[:index]) for index in range(1, len(parts) + 1))
    return files, folders


class SnapshotMirror:
    def __init__(self, spark: SparkSession, args: argparse.Namespace) -> None:
        self.args = args
        self.source_uri = str(parse_location(args.source_dir[0], "--source-dir"))
        self.target_uri = str(parse_location(args.target_dir, "--target-dir"))
        self.replicator = Replicator(spark, _replication_options(args, self.source_uri, self.target_uri))
        self.fs = self.replicator.fs
        self.source = SnapshotFolder(self.fs, self.source_uri, args.job, "source")
        self.target = SnapshotFolder(self.fs, self.target_uri, args.job, "target")
        self.name = f"{self.source.prefix}{parse_instant(args.instance).strftime(_STAMP)}"

    def _target_path(self, rel: str) -> str:
        return f"{self.target_uri}/{rel}" if rel else self.target_uri

    def _snapshot_path(self, rel: str) -> str:
        return f"{self.source_uri}/.snapshot/{self.name}/{rel}".rstrip("/")

    def run(self) -> dict[str, Any]:
        report: dict[str, Any] = {"extension": "hdfs-snapshot-mirroring", "sources": [self.source_uri],
                                  "targets": [self.target_uri], "snapshot": self.name}
        self.source.create(self.name)
        if self.name in self.target.snapshots():  # this instance was mirrored already
            report.update(mode="done", copied=0, copied_bytes=0, removed=0)
        else:
            common_snapshots = [name for name in self.source.snapshots()
                                if name < self.name and name in set(self.target.snapshots())]
            base = common_snapshots[-1] if common_snapshots else None
            if base is not None and not self.target.diff(base, ""):
                report.update(mode="diff", since=base, **self.apply_diff(self.source.diff(base, self.name)))
            else:
                report.update(mode="full", since=None, **self.synchronise(None))
            files, size = self.check_equal()
            self.target.create(self.name)
            report.update(files=files, bytes=size)
        report["deleted_snapshots"] = {"source": self.retain(self.source, "source"),
                                       "target": self.retain(self.target, "target")}
        return report

    def apply_diff(self, entries: list[tuple[str, str, str | None]]) -> dict[str, int]:
        """Renames and deletions first (as they happened), then every path created or modified is brought in line
        with the new snapshot."""
        removed = 0
        touched: set[str] = set()
        for kind, rel, renamed in entries:
            if kind == "RENAME" and renamed is not None:
                source, target = self._target_path(rel), self._target_path(renamed)
                if self.fs.exists(source) and not self.fs.exists(target):
                    self.fs.mkdirs(self._target_path(parent_of("/" + renamed).lstrip("/")))
                    if not self.fs.rename(source, target):
                        raise JobError(f"cannot rename {source} to {target}")
                touched.add(renamed)
            elif kind == "DELETE" and rel:
                if self.fs.delete(self._target_path(rel), True):
                    removed += 1
            elif kind in ("CREATE", "MODIFY"):
                touched.add(rel)
        result = self.synchronise(sorted(touched))
        result["removed"] += removed
        return result

    def synchronise(self, only: list[str] | None) -> dict[str, int]:
        """Bring the target in line with the new snapshot, everywhere (``only`` None) or below those paths."""
        files, folders = _tree(self.fs, self._snapshot_path(""))
        present, present_folders = _tree(self.fs, self.target_uri)

        def within(rel: str) -> bool:
            return only is None or any(rel == item or rel.startswith(f"{item}/") or item == "" for item in only)

        removed = 0
        for rel in sorted(set(present) - set(files)):
            if within(rel) and self.fs.delete(self._target_path(rel), False):
                removed += 1
        for rel in sorted(present_folders - folders, key=len):
            if within(rel) and self.fs.exists(self._target_path(rel)) and self.fs.delete(self._target_path(rel), True):
                removed += 1
        candidates = [rel for rel in files if within(rel)]
        compare = [{"rel": rel, "src": self._snapshot_path(rel), "dst": self._target_path(rel),
                    "length": files[rel], "origin": "compare"}
                   for rel in candidates if present.get(rel) == files[rel]]
        same = set()
        if self.args.length_only:
            same = {item["rel"] for item in compare}
        else:
            for result in self.replicator.run_tasks("compare", compare):
                if result["src_crc"] == result["dst_crc"] and result["bytes"] == result["read"] == result["length"]:
                    same.add(result["rel"])
        items: list[dict[str, Any]] = [
            {"rel": rel, "src": self._snapshot_path(rel), "dst": self._target_path(rel), "length": files[rel],
             "origin": "source"} for rel in candidates if rel not in same]
        for folder in sorted(rel for rel in folders if within(rel)):
            self.fs.mkdirs(self._target_path(folder))
        results = self.replicator.run_tasks("copy", items)
        bad = [result["rel"] for result in results if not (result["bytes"] == result["read"] == result["length"]
                                                           and result["src_crc"] == result["dst_crc"])]
        if bad or len(results) != len(items):
            raise JobError(f"verification failed for {', '.join(bad[:3]) or 'missing results'}")
        return {"copied": len(items), "copied_bytes": sum(int(item["length"]) for item in items), "removed": removed}

    def check_equal(self) -> tuple[int, int]:
        """The target tree equals the new source snapshot (paths and lengths), else nothing is snapshotted."""
        files, folders = _tree(self.fs, self._snapshot_path(""))
        present, present_folders = _tree(self.fs, self.target_uri)
        if files != present or folders != present_folders:
            differing = sorted(set(files.items()) ^ set(present.items()))[:3]
            raise JobError(f"the target {self.target_uri} does not match snapshot {self.name} after the "
                           f"copy (e.g. {differing}); no target snapshot was taken")
        return len(files), sum(files.values())

    def retain(self, folder: SnapshotFolder, side: str) -> list[str]:
        keep = int(getattr(self.args, f"{side}_keep"))
        age = int(getattr(self.args, f"{side}_age_seconds"))
        now = parse_instant(self.args.now) if self.args.now else datetime.now(UTC)
        names = folder.snapshots()
        deleted = []
        for name in names[:max(0, len(names) - keep)]:
            taken = _snapshot_time(name, folder.prefix)
            if taken is not None and (now - taken).total_seconds() > age and name != self.name:
                folder.delete(name)
                deleted.append(name)
        return deleted


# -- hive-mirroring --------------------------------------------------------------------------------------------------

MIRROR_MARK = "falcon.mirror.job"
"""The table and partition parameter that says which mirroring job made a target table or partition."""

class HiveMirror:
    def __init__(self, spark: SparkSession, args: argparse.Namespace) -> None:
        self.spark = spark
        self.args = args
        self.storage = parse_location(args.target_storage, "--target-storage")
        self.source = ThriftMetastore(spark, args.source_metastore)
        self.target = ThriftMetastore(spark, args.target_metastore)
        self._fs: HadoopFs | None = None  # opened by the first drop that removes a folder, closed with the job

    def close(self) -> None:
        self.source.close()
        self.target.close()
        if self._fs is not None:
            self._fs.close()

    def on_target(self, location: str) -> str:
        """The same path, on the target cluster's storage."""
        return self.storage.with_path(split_uri(location).path)

    def ensure_database(self, name: str) -> bool:
        try:
            self.target.client.getDatabase(name)
            return False
        except Exception as error:
            if "NoSuchObjectException" not in str(error):
                raise JobError(f"database {name} cannot be read from {self.target.uri}: "
                               f"{first_line(error)}") from None
        database = self.source.client.getDatabase(name).deepCopy()
        database.setLocationUri(self.on_target(str(database.getLocationUri())))
        try:
            self.target.client.createDatabase(database)
        except Exception as error:
            if "AlreadyExistsException" not in str(error):
                raise JobError(f"database {name} cannot be created in {self.target.uri}: "
                               f"{first_line(error)}") from None
        return True

    def plan_table(self, database: str, name: str) -> tuple[Any, list[Any]]:
        """The source table and its partitions, every folder the mirror would replace checked first."""
        table = self.source.client.getTable(database, name)
        if str(table.getTableType()) == "VIRTUAL_VIEW":
            raise JobError(f"{database}.{name} is a view: Hive mirroring copies tables")
        keys = list(table.getPartitionKeys())
        partitions = list(self.source.client.listPartitions(database, name, -1)) if keys else []
        folders = [str(partition.getSd().getLocation()) for partition in partitions] or [
            str(table.getSd().getLocation())]
        for folder in folders:
            check_target(self.args, self.on_target(folder))
        return table, partitions

    def mirror_table(self, database: str, name: str, planned: tuple[Any, list[Any]]) -> dict[str, Any]:
        table, partitions = planned
        location = str(table.getSd().getLocation())
        keys = [column.getName() for column in table.getPartitionKeys()]
        created = False
        try:
            self.target.client.getTable(database, name)
        except Exception as error:
            if "NoSuchObjectException" not in str(error):
                raise JobError(f"table {database}.{name} cannot be read from {self.target.uri}: "
                               f"{first_line(error)}") from None
            self.target.create_like(table, TableUri(database, name, ()), self.on_target(location),
                                    marks={MIRROR_MARK: self.args.job})
            created = True
        copies: list[dict[str, Any]] = []
        added = 0
        if not keys:
            copies.append(_mirror_folder(self.spark, self.args, location, self.on_target(location)))
        else:
            for partition in partitions:
                source_location = str(partition.getSd().getLocation())
                target_location = self.on_target(source_location)
                copies.append(_mirror_folder(self.spark, self.args, source_location, target_location))
                added += self.register(database, name, partition, target_location)
        return {"table": f"{database}.{name}", "source": location, "target": self.on_target(location),
                "created": created, "partition_keys": keys, "partitions": len(copies) if keys else 0,
                "added_partitions": added, **_totals(copies)}

    def register(self, database: str, name: str, partition: Any, location: str) -> int:
        values = list(partition.getValues())
        try:
            existing = self.target.client.getPartition(database, name, values)
        except Exception as error:
            if "NoSuchObjectException" not in str(error):
                raise
            copy = partition.deepCopy()
            copy.getSd().setLocation(location)
            if copy.getParameters() is None:
                copy.setParameters(self.target.jvm.java.util.HashMap())
            copy.getParameters().put(MIRROR_MARK, self.args.job)
            self.target.client.add_partition(copy)
            return 1
        if split_uri(str(existing.getSd().getLocation())).path != split_uri(location).path:
            existing.getSd().setLocation(location)
            self.target.client.alter_partition(database, name, existing)
        return 0

    # -- drops replayed: only of what this job made ---------------------------------------------------------------

    def marked(self, item: Any) -> bool:
        parameters = item.getParameters()
        return parameters is not None and str(parameters.get(MIRROR_MARK) or "") == self.args.job

    def target_table(self, database: str, name: str) -> Any | None:
        try:
            return self.target.client.getTable(database, name)
        except Exception as error:
            if "NoSuchObjectException" in str(error):
                return None
            raise JobError(f"table {database}.{name} cannot be read from {self.target.uri}: "
                           f"{first_line(error)}") from None

    def dropped_tables(self, database: str, kept: list[str]) -> list[tuple[str, str]]:
        """The target's tables of ``database`` this job made that the source no longer has, with their folders
        (checked already): the listed tables the source lacks, or, for a database mirrored whole, every marked one
        not among the source's tables."""
        try:
            candidates = list(self.args.table) or sorted(str(item) for item in
                                                         self.target.client.getAllTables(database))
        except Exception as error:
            if "NoSuchObjectException" in str(error):
                return []
            raise JobError(f"database {database} cannot be read from {self.target.uri}: "
                           f"{first_line(error)}") from None
        found = []
        for name in candidates:
            if name in kept:
                continue
            table = self.target_table(database, name)
            if table is None or not self.marked(table):
                continue
            folder = str(table.getSd().getLocation())
            check_target(self.args, folder)
            found.append((name, folder))
        return found

    def dropped_partitions(self, database: str, name: str, source_partitions: list[Any]) -> list[tuple[Any, str]]:
        """The target partitions of a mirrored table this job added that the source no longer has, with their
        folders (checked already)."""
        table = self.target_table(database, name)
        if table is None or not list(table.getPartitionKeys()):
            return []
        present = {tuple(str(value) for value in partition.getValues()) for partition in source_partitions}
        found = []
        for partition in self.target.client.listPartitions(database, name, -1):
            if self.marked(partition) and tuple(str(value) for value in partition.getValues()) not in present:
                folder = str(partition.getSd().getLocation())
                check_target(self.args, folder)
                found.append((partition, folder))
        return found

    def delete_folder(self, folder: str) -> None:
        if self._fs is None:
            self._fs = HadoopFs(self.spark)
        self._fs.delete(folder, True)

    def run(self) -> dict[str, Any]:
        tables: list[dict[str, Any]] = []
        created = []
        plans: dict[str, list[tuple[str, tuple[Any, list[Any]]]]] = {}
        gone_tables: dict[str, list[tuple[str, str]]] = {}
        for database in self.args.database:
            try:
                listed = sorted(str(item) for item in self.source.client.getAllTables(database))
            except Exception as error:
                raise JobError(f"database {database} cannot be read from {self.source.uri}: "
                               f"{first_line(error)}") from None
            names = [name for name in self.args.table if name in listed] if self.args.table else listed
            # every folder the run replaces or deletes is checked before anything is created, replaced or dropped
            plans[database] = [(name, self.plan_table(database, name)) for name in names]
            gone_tables[database] = self.dropped_tables(database, names)
        gone_partitions = {(database, name): self.dropped_partitions(database, name, plan[1])
                           for database, planned in plans.items() for name, plan in planned}
        dropped: list[str] = []
        for database, planned in plans.items():
            if self.ensure_database(database):
                created.append(database)
            tables += [self.mirror_table(database, name, plan) for name, plan in planned]
        # metadata first, then the folder: a crash in between leaves a folder no table names
        for (database, name), partitions in gone_partitions.items():
            for partition, folder in partitions:
                self.target.client.dropPartition(database, name, partition.getValues(), False)
                self.delete_folder(folder)
                dropped.append(f"{database}.{name}/{'/'.join(str(value) for value in partition.getValues())}")
        for database, gone in gone_tables.items():
            for name, folder in gone:
                self.target.client.dropTable(database, name, False, True)
                self.delete_folder(folder)
                dropped.append(f"{database}.{name}")
        return {"extension": "hive-mirroring", "source_metastore": self.args.source_metastore,
                "target_metastore": self.args.target_metastore, "created_databases": created, "tables": tables,
                "dropped": dropped,
                "sources": [table["source"] for table in tables], "targets": [table["target"] for table in tables],
                **_totals(tables)}


def main(argv: Sequence[str] | None = None, spark: SparkSession | None = None) -> int:
    def body(args: argparse.Namespace) -> JobResult:
        _check(args)
        with spark_session(f"falcon-{args.extension}-mirroring-{args.job}", spark) as session:
            if args.extension == "hdfs":
                details = mirror_hdfs(session, args)
            elif args.extension == "snapshot":
                mirror = SnapshotMirror(session, args)
                try:
                    details = mirror.run()
                finally:
                    mirror.fs.close()
            else:
                hive = HiveMirror(session, args)
                try:
                    details = hive.run()
                finally:
                    hive.close()
        report = {"job": "mirroring", "name": args.job, "source_cluster": args.source_cluster,
                  "target_cluster": args.target_cluster, "instance": args.instance, **details}
        summary = {key: value for key, value in report.items() if key not in ("copies", "tables")}
        return JobResult(summary, report)

    return run_job("mirroring", build_parser(), argv, body)

