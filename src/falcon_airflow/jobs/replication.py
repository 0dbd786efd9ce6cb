"""Feed replication: copy one feed instance from a source cluster to a target cluster — Falcon's ``FeedReplicator``
(DistCp), made atomic.

Command line (``spark-submit --py-files common.py,<core zip> replication.py ARGS``)::

    --feed NAME --source-cluster NAME --target-cluster NAME --instance yyyy-MM-ddTHH:mmZ
    --source-path URI          repeatable: the instance folder(s) on the source's read-only storage
    --target-path URI          the instance folder on the target
    --source-table URI --target-table URI   table feeds: catalog:db:table#k=v;… with resolved values
    --source-metastore thrift://HOST:PORT   table feeds: the source cluster's metastore, when it is not the one the
                               job's session uses (the target's)
    --target-storage URI       table feeds: the target cluster's file system, where a missing target table is created
    --include GLOB             relative include pattern (Falcon's FilteredCopyListing semantics: * crosses /,
                               a file is copied when its path or one of its folders matches); its leading
                               glob-free folders (US/* → US) are the unit copied and swapped, as Falcon appended
                               them to both paths, so partitions from several sources can share one instance
    --availability-flag NAME   default _SUCCESS (NA means the default); never copied, written after publishing
    --no-availability-flag     a mirror of a folder tree: every file is copied (a _SUCCESS too), no flag written
    --max-maps N               copy tasks (default 5)
    --map-bandwidth MB         at most MB megabytes per second written by each copy task (default: unlimited)
    --overwrite                copy every file again (otherwise files already identical at the target are kept)
    --remove-deleted-files     drop target files that the sources no longer have (within the include pattern)
    --preserve-times --preserve-permissions
    --executor-jvm auto|driver|launch    how copy tasks reach a JVM (below); default auto
    --staging-lease-seconds S  how long other runs leave this run's staging alone without renewal (default 600)
    --report PATH

How it copies: the driver lists the sources (bulk listings through the Hadoop FS API), then
``sc.parallelize(file lists, N).mapPartitions(copy)``. Each task compiles (once per Python worker, with Janino, the
compiler Spark uses for its generated code) a small copier class in its JVM and hands it batches of files, one
py4j call per batch of up to 64 files or 8 MiB: for every file the copier streams the source into the target
through ``FileSystem.open``/``create`` with a 128 KiB buffer, computing the CRC32 of the bytes read, then opens the
copy again and computes its CRC32 from what the target file system returns. No file content passes through Python
or the driver. Tasks of a ``local`` master run in the driver's JVM, connect to its py4j gateway and copy its Hadoop
configuration; elsewhere a task starts a private gateway JVM once per worker process
(``pyspark.java_gateway.launch_gateway``, which needs Spark's ``bin/spark-submit`` on the executor host) and gets
the driver's settings that differ from a fresh ``Configuration``. Each task keeps 4 batches in flight (threads,
each with its own py4j connection). A checksummed file system (``file://``) is used through its raw one: no
``.crc`` companions are written or verified, the job checksums every copy itself. On exactly Hadoop's raw local
file system a copy is created as ``FileUtil.createLocalTempFile`` beside its target, given the mode
``RawLocalFileSystem.create`` would give it with ``FileUtil.setPermission``, written through ``append`` and renamed
to its name: ``create`` itself sets that mode by forking ``chmod`` for every file when the native Hadoop library is
absent (as in pyspark), about 7 ms of CPU each, while ``FileUtil`` uses Java primitives whenever the group and
other bits agree. HDFS and S3A files are created with ``create``.

Atomic publish: files go to ``<target parent>/.<target name>.falcon-staging-<run token>``; the count, the total
bytes and every file's CRC32 (source stream vs read-back copy) are verified; then an existing target is renamed
aside (``.<name>.falcon-old-<run token>``), the staging folder renamed to the target with a rename that refuses an
existing target (``FileContext.rename`` without OVERWRITE: a target another run published meanwhile fails this run,
never gets the staging folder nested inside it), the published folder checked against the staged count and bytes,
the old version deleted, and only then the availability flag written. A reader sees the old complete instance, no
instance, or the new complete one. Runs of one instance may overlap (a rerun while the scheduled run copies, a
retry beside a zombie try): each run's siblings carry its own token and its lease
(``.<name>.falcon-lease-<run token>``, renewed while it lives), and a run removes only the siblings of runs that are
over - lease lapsed, or an earlier try of the same Airflow task instance - and puts back an old version such a run
left aside (``common.RunStaging``). A rerun completes idempotently: a target already identical to the sources is
left as it is.

Table feeds: the source partition's location comes from the catalog (``DESCRIBE FORMATTED … PARTITION``, or the
source metastore's thrift API when it is another metastore), the target is ``--target-path`` or the target table's
location plus ``k=v/…``; after publishing, the partition is registered with ``ALTER TABLE … ADD IF NOT EXISTS
PARTITION (…) LOCATION …`` (re-pointed if it existed elsewhere). A missing target table is created first as an
external table shaped like the source (columns, partition keys, storage format; ``CREATE TABLE … LIKE``, or a copy
of the source's metastore definition when the source is another metastore), at ``<target storage><target
database's location path>/<table>`` — the Hive layout, on the target cluster. Its database must exist.

Output: a one-line JSON summary on stdout (the report without ``manifest``). Report: ``{"job", "feed",
"source_cluster", "target_cluster", "instance", "sources", "target", "include", "published_folder",
"availability_flag", "recovered", "files", "bytes", "copied", "copied_bytes", "skipped", "skipped_bytes",
"kept_extra", "removed", "published", "verified", "max_maps", "tasks", "seconds", "manifest": [{"path", "bytes",
"crc32", "origin"}][, "partition"][, "created_table"]}`` — ``files``/``bytes`` describe the published folder after
the run, ``copied`` the files written from the sources, ``skipped`` those already identical at the target (not
rewritten), ``kept_extra`` target files the sources lack that were kept, ``removed`` those dropped, ``published``
whether a new version was swapped in (false for an idempotent rerun).
Exit 0 done, 1 failure (nothing published), 2 bad arguments.
"""

from __future__ import annotations

import argparse
import functools
import os
import re
import sys
import types
import zlib
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import suppress
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if __package__:
    from . import common
else:  # run as a script by spark-submit, common.py beside it or shipped with --py-files
    import common  # type: ignore[import-not-found, no-redef]

from falcon_airflow.core.formats import SCHEMA_FORMATS
from falcon_airflow.core.tables import TableUri
from falcon_airflow.core.times import format_instant, parse_instant

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

BUFFER_BYTES = 1 << 17  # copy buffer: small enough that the JVM's native copies of it stay in the CPU cache
COPY_THREADS = 4  # batches in flight per copy task
BATCH_FILES = 64  # files per py4j call
BATCH_BYTES = 8 << 20  # bytes per py4j call (a larger file is a batch alone)


def build_parser() -> argparse.ArgumentParser:
    parser = common.ArgumentParser(prog="replication", description="Copy a feed instance to a target cluster.")
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
    parser.add_argument("--staging-lease-seconds", type=float, default=common.DEFAULT_LEASE_SECONDS,
                        metavar="S", help="how long another run leaves this run's staging alone without renewal")
    parser.add_argument("--report", metavar="PATH")
    return parser


@dataclass(frozen=True)
class Options:
    feed: str
    source_cluster: str
    target_cluster: str
    instance: str
    sources: tuple[common.Uri, ...]
    target: common.Uri | None
    source_table: TableUri | None
    target_table: TableUri | None
    source_metastore: str | None
    target_storage: common.Uri | None
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
    lease_seconds: float = common.DEFAULT_LEASE_SECONDS
    """How long this run's staging lease lasts without renewal (renewed every quarter of it while the run lives)."""


def _overlap(source: common.Uri, target: common.Uri) -> bool:
    """The same folder, or one inside the other, on the same file system."""
    return source.same_filesystem(target) and (source.path == target.path or common.is_under(target.path, source.path)
                                               or common.is_under(source.path, target.path))


def parse_options(args: argparse.Namespace) -> Options:
    instance = format_instant(parse_instant(args.instance))
    sources = tuple(common.parse_location(text, "--source-path") for text in args.source_path)
    target = common.parse_location(args.target_path, "--target-path") if args.target_path else None
    if bool(args.source_table) != bool(args.target_table):
        raise common.UsageError("--source-table and --target-table go together")
    source_table = common.parse_table_uri(args.source_table) if args.source_table else None
    target_table = common.parse_table_uri(args.target_table) if args.target_table else None
    for table in (source_table, target_table):
        if table is not None and table.dated_keys:
            raise common.UsageError(f"table {table.database}.{table.table}: partition values must be resolved "
                                    f"(no ${{…}} variables left)")
    if source_table is None and not sources:
        raise common.UsageError("give --source-path (repeatable) or --source-table/--target-table")
    source_metastore = (args.source_metastore or "").strip() or None
    if source_metastore is not None and not re.fullmatch(r"thrift://[^/\s]+:\d+/?", source_metastore):
        raise common.UsageError(f"--source-metastore {source_metastore!r} is not thrift://host:port")
    target_storage = common.parse_location(args.target_storage, "--target-storage") if args.target_storage else None
    if source_table is None and target is None:
        raise common.UsageError("--target-path is required for filesystem feeds")
    if target is not None:
        if target.path == "/":
            raise common.UsageError("--target-path must not be a file system root")
        for source in sources:
            if _overlap(source, target):
                raise common.UsageError(f"--target-path {target} and --source-path {source} overlap")
    include = args.include
    if include is not None:
        common.include_pattern(include)
    flag = args.availability_flag.strip()
    if flag in ("", "NA"):
        flag = "_SUCCESS"
    if args.no_availability_flag:
        flag = ""  # no file name is empty: nothing is skipped and nothing written
    elif "/" in flag or flag in (".", ".."):
        raise common.UsageError(f"--availability-flag {flag!r} must be a file name")
    if args.max_maps < 1:
        raise common.UsageError("--max-maps must be at least 1")
    if args.map_bandwidth < 0:
        raise common.UsageError("--map-bandwidth must not be negative")
    if args.staging_lease_seconds <= 0:
        raise common.UsageError("--staging-lease-seconds must be positive")
    return Options(args.feed, args.source_cluster, args.target_cluster, instance, sources, target, source_table,
                   target_table, source_metastore, target_storage, include, flag, args.max_maps,
                   int(args.map_bandwidth * (1 << 20)), args.overwrite,
                   args.remove_deleted_files, args.preserve_times, args.preserve_permissions, args.executor_jvm,
                   args.staging_lease_seconds)


# --------------------------------------------------------------------------------------------------------------
# Executor side. Self-contained (stdlib and pyspark only, nothing from common) so that it pickles by value when
# this file runs as __main__ and needs nothing else on the executors.

_WORKER_STATE = "_falcon_airflow_jobs_worker_state"


def _worker_gateway(access: dict[str, Any]) -> Any:
    """A py4j gateway for this Python worker, kept for the worker's later tasks."""
    state = sys.modules.get(_WORKER_STATE)
    if state is None:
        state = sys.modules[_WORKER_STATE] = types.ModuleType(_WORKER_STATE)
    gateways: dict[str, Any] = state.__dict__.setdefault("gateways", {})
    key = f"{access['mode']}:{access.get('port')}"
    gateway = gateways.get(key)
    if gateway is not None:
        return gateway
    from pyspark.java_gateway import launch_gateway

    names = ("PYSPARK_GATEWAY_PORT", "PYSPARK_GATEWAY_SECRET", "PYSPARK_SUBMIT_ARGS")
    saved = {name: os.environ.get(name) for name in names}
    try:
        for name in names:
            os.environ.pop(name, None)
        if access["mode"] == "driver":  # local master: the executors run in the driver's JVM
            os.environ["PYSPARK_GATEWAY_PORT"] = str(access["port"])
            os.environ["PYSPARK_GATEWAY_SECRET"] = access["secret"]
        else:
            os.environ["PYSPARK_SUBMIT_ARGS"] = access["submit_args"]
        gateway = launch_gateway()  # type: ignore[no-untyped-call]
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
    gateways[key] = gateway
    return gateway


# The copy loops, compiled once per worker JVM connection by Janino (the Java compiler Spark itself uses for its
# generated code, so it is on every Spark classpath). A task then makes one py4j call per batch of files instead of
# about twenty per file, and every byte stays in the JVM. Plain Java 6 syntax: Janino compiles no lambdas.
_COPIER_CLASS = "FalconReplicationCopier"
_COPIER_SOURCE = r"""
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.zip.CRC32;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.ChecksumFileSystem;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.FileUtil;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.hadoop.fs.permission.FsPermission;

public class FalconReplicationCopier {
    private final Map filesystems = new HashMap();
    private final List opened = new ArrayList();
    private final Set folders = new HashSet();
    private Configuration conf;
    private FsPermission fileMode;
    private int buffer;

    /** The driver's Hadoop settings, as key NUL value NUL ... over this JVM's defaults, and the buffer size. */
    public void configure(String settings, int buffer) {
        Configuration fresh = new Configuration();
        String[] parts = settings.split("\u0000", -1);
        for (int i = 0; i + 1 < parts.length; i += 2) {
            fresh.set(parts[i], parts[i + 1]);
        }
        use(fresh, buffer);
    }

    /** At most this many bytes per second written by this copier (one copy task), all its threads together; 0 or
     *  less: unlimited. DistCp's -bandwidth, per map. */
    public void limit(long bytesPerSecond) {
        bandwidth = bytesPerSecond;
    }

    private long bandwidth = 0;
    private long paceStart = 0;
    private long paced = 0;

    private void pace(int count) throws InterruptedException {
        if (bandwidth <= 0) {
            return;
        }
        long wait;
        synchronized (this) {
            if (paceStart == 0) {
                paceStart = System.nanoTime();
            }
            paced += count;
            wait = paceStart + (long) (paced * 1e9 / bandwidth) - System.nanoTime();
        }
        if (wait > 0) {
            Thread.sleep(wait / 1000000L, (int) (wait % 1000000L));
        }
    }

    /** A copy of the driver's own Hadoop configuration (the task runs in the driver's JVM). */
    public void share(Configuration driver, int buffer) {
        use(new Configuration(driver), buffer);
    }

    private void use(Configuration settings, int size) {
        conf = settings;
        buffer = size;
        // the mode Hadoop's local file system gives a new file: the default less the configured umask
        fileMode = FsPermission.getFileDefault().applyUMask(FsPermission.getUMask(conf));
    }

    /** One private instance per scheme and authority. Of a checksummed file system (file://) the raw one: the
     *  copies are checksummed here, so no .crc companions are written and none are read twice. */
    private synchronized FileSystem fs(Path path) throws IOException {
        URI uri = path.toUri();
        String root = uri.getScheme() + "://" + uri.getAuthority();
        FileSystem fs = (FileSystem) filesystems.get(root);
        if (fs == null) {
            FileSystem instance = FileSystem.newInstance(uri, conf);
            opened.add(instance);
            fs = instance instanceof ChecksumFileSystem ? ((ChecksumFileSystem) instance).getRawFileSystem()
                                                       : instance;
            filesystems.put(root, fs);
        }
        return fs;
    }

    /** Stream buffers no larger than the file: a stream allocates (and zeroes) its buffer on opening. */
    private int streamBuffer(long length) {
        return (int) Math.max(4096, Math.min(buffer, length));
    }

    /** Copy every source NUL target NUL length triple (targets overwritten); per file one line "copied crc
     *  read-back crc" or "!error": the first CRC32 is of the bytes read from the source, the second of the copy
     *  read back from the target. */
    public String copy(String triples, boolean times, boolean permissions) {
        String[] parts = triples.split("\u0000", -1);
        byte[] bytes = new byte[buffer];
        StringBuilder lines = new StringBuilder();
        for (int i = 0; i + 2 < parts.length; i += 3) {
            int mark = lines.length();
            try {
                Path source = new Path(parts[i]);
                Path target = new Path(parts[i + 1]);
                int size = streamBuffer(Long.parseLong(parts[i + 2]));
                FileSystem from = fs(source);
                FileSystem to = fs(target);
                CRC32 sent = new CRC32();
                long copied = 0;
                Path written = target;
                InputStream in = from.open(source, size);
                try {
                    OutputStream out;
                    // exactly Hadoop's local file system: a subclass may create files its own way
                    File created = to.getClass() == RawLocalFileSystem.class
                        ? created((RawLocalFileSystem) to, target) : null;
                    if (created == null) {
                        out = to.create(target, true, size);
                    } else {
                        written = new Path(created.toURI());
                        out = to.append(written, size);
                    }
                    try {
                        int count;
                        while ((count = in.read(bytes, 0, bytes.length)) > 0) {
                            sent.update(bytes, 0, count);
                            out.write(bytes, 0, count);
                            copied += count;
                            pace(count);
                        }
                    } finally {
                        out.close();
                    }
                } finally {
                    in.close();
                }
                if (written != target && !to.rename(written, target)) {
                    throw new IOException("cannot rename " + written + " to " + target);
                }
                if (times || permissions) {
                    FileStatus status = from.getFileStatus(source);
                    if (times) {
                        to.setTimes(target, status.getModificationTime(), status.getAccessTime());
                    }
                    if (permissions) {
                        to.setPermission(target, status.getPermission());
                    }
                }
                lines.append(copied).append(' ').append(sent.getValue()).append(' ');
                checksum(to, target, size, bytes, lines);
            } catch (Exception error) {
                lines.setLength(mark);
                failed(error, lines);
            }
            lines.append('\n');
        }
        return lines.toString();
    }

    /** An empty file beside the target, with the mode RawLocalFileSystem.create gives a file, or null when there
     *  is none (the name is too long to take a prefix and suffix). Without its native library Hadoop sets that
     *  mode by forking chmod, about 7 ms of CPU for every file; here the file comes from an exclusive create in
     *  Java (FileUtil.createLocalTempFile) and the mode from FileUtil.setPermission, which uses Java primitives
     *  whenever the group and other bits agree. The copy is written through append and renamed to its name. */
    private File created(RawLocalFileSystem fs, Path target) throws IOException {
        Path parent = target.getParent();
        if (parent != null && !made(parent)) {
            if (!fs.mkdirs(parent)) {
                throw new IOException("cannot create the folder " + parent);
            }
            remember(parent);
        }
        File file;
        try {
            file = FileUtil.createLocalTempFile(fs.pathToFile(target), ".falcon-copy-", false);
        } catch (IOException tooLong) {
            return null;
        }
        FileUtil.setPermission(file, fileMode);
        return file;
    }

    private synchronized boolean made(Path folder) {
        return folders.contains(folder);
    }

    private synchronized void remember(Path folder) {
        folders.add(folder);
    }

    /** Per source NUL target NUL length triple one line "bytes crc bytes crc" (both read), or "!error". */
    public String compare(String triples) {
        String[] parts = triples.split("\u0000", -1);
        byte[] bytes = new byte[buffer];
        StringBuilder lines = new StringBuilder();
        for (int i = 0; i + 2 < parts.length; i += 3) {
            int mark = lines.length();
            try {
                Path source = new Path(parts[i]);
                Path target = new Path(parts[i + 1]);
                int size = streamBuffer(Long.parseLong(parts[i + 2]));
                checksum(fs(source), source, size, bytes, lines);
                lines.append(' ');
                checksum(fs(target), target, size, bytes, lines);
            } catch (Exception error) {
                lines.setLength(mark);
                failed(error, lines);
            }
            lines.append('\n');
        }
        return lines.toString();
    }

    private void checksum(FileSystem fs, Path path, int size, byte[] bytes, StringBuilder lines) throws IOException {
        CRC32 crc = new CRC32();
        long total = 0;
        InputStream in = fs.open(path, size);
        try {
            int count;
            while ((count = in.read(bytes, 0, bytes.length)) > 0) {
                crc.update(bytes, 0, count);
                total += count;
            }
        } finally {
            in.close();
        }
        lines.append(total).append(' ').append(crc.getValue());
    }

    private static void failed(Exception error, StringBuilder lines) {
        String text = String.valueOf(error).trim();
        int end = text.indexOf('\n');
        lines.append('!').append((end < 0 ? text : text.substring(0, end)).trim());
    }

    public void close() {
        for (int i = 0; i < opened.size(); i++) {
            try {
                ((FileSystem) opened.get(i)).close();
            } catch (Exception ignored) {
                // best effort: every copy is closed already
            }
        }
    }
}
"""


def _copier_class(access: dict[str, Any]) -> tuple[Any, Any]:
    """This worker's gateway and the copier class compiled in its JVM (compiled once, kept for later tasks)."""
    gateway = _worker_gateway(access)
    classes: dict[tuple[str, str], Any] = sys.modules[_WORKER_STATE].__dict__.setdefault("copier_classes", {})
    key = (f"{access['mode']}:{access.get('port')}", _COPIER_SOURCE)
    klass = classes.get(key)
    if klass is None:
        # The name carries a hash of the source: py4j caches methods by class name, and another version of this
        # job may have compiled its own copier in the same JVM (tasks of a local master share the driver's).
        name = f"{_COPIER_CLASS}{zlib.crc32(_COPIER_SOURCE.encode()):08x}"
        jvm = gateway.jvm
        compiler = jvm.org.codehaus.janino.SimpleCompiler()
        compiler.setParentClassLoader(jvm.java.lang.Thread.currentThread().getContextClassLoader())
        compiler.cook(_COPIER_SOURCE.replace(f"class {_COPIER_CLASS} ", f"class {name} "))
        klass = classes[key] = compiler.getClassLoader().loadClass(name)
    return gateway, klass


class _Copier:
    """One task's copier object in the JVM, shared by the task's threads (one py4j call per batch each)."""

    def __init__(self, task: dict[str, Any]) -> None:
        gateway, klass = _copier_class(task["jvm"])
        jvm = gateway.jvm
        self.task = task
        self.copier = klass.getConstructor(gateway.new_array(jvm.java.lang.Class, 0)).newInstance(
            gateway.new_array(jvm.java.lang.Object, 0))
        if task["conf"] is None:  # a local master: this JVM is the driver's, its Hadoop configuration is at hand
            self.copier.share(jvm.org.apache.spark.SparkContext.getOrCreate().hadoopConfiguration(), BUFFER_BYTES)
        else:
            self.copier.configure("\0".join(part for pair in task["conf"].items() for part in pair), BUFFER_BYTES)
        if task.get("bandwidth"):
            self.copier.limit(int(task["bandwidth"]))

    def run(self, batch: list[dict[str, Any]]) -> list[dict[str, Any]]:
        triples = "\0".join(f"{item['src']}\0{item['dst']}\0{int(item['length'])}" for item in batch)
        try:
            if self.task["op"] == "compare":
                text = str(self.copier.compare(triples))
            else:
                text = str(self.copier.copy(triples, self.task["preserve_times"], self.task["preserve_permissions"]))
            lines = text.split("\n")[:-1]
            if len(lines) != len(batch):
                lines = [f"!{len(lines)} results for {len(batch)} files"] * len(batch)
        except Exception as error:  # the call itself failed: every file of the batch is reported
            message = str(getattr(error, "java_exception", None) or error).strip().splitlines()
            lines = ["!" + (message[0] if message else type(error).__name__)] * len(batch)
        results = []
        for item, line in zip(batch, lines, strict=True):
            result: dict[str, Any] = {"rel": item["rel"], "length": item["length"], "origin": item["origin"]}
            if line.startswith("!"):
                result["error"] = line[1:] or "failed"
            else:
                copied, source_crc, read, copy_crc = (int(value) for value in line.split())
                result.update({"bytes": copied, "src_crc": source_crc, "read": read, "dst_crc": copy_crc})
            results.append(result)
        return results

    def close(self) -> None:
        with suppress(Exception):  # best effort: the copies are closed already
            self.copier.close()


def _batches(items: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """Consecutive items in batches of at most BATCH_FILES files and BATCH_BYTES bytes (a larger file alone)."""
    batches: list[list[dict[str, Any]]] = []
    size = 0
    for item in items:
        length = int(item["length"])
        if not batches or len(batches[-1]) >= BATCH_FILES or size + length > BATCH_BYTES:
            batches.append([])
            size = 0
        batches[-1].append(item)
        size += length
    return batches


def _ship_by_value() -> None:
    """Pickle this module's task code by value, so executors need neither falcon_airflow.jobs nor common.py."""
    module = sys.modules.get(__name__)
    if __name__ != "__main__" and module is not None:  # as __main__ cloudpickle ships it by value anyway
        from pyspark import cloudpickle

        cloudpickle.register_pickle_by_value(module)  # type: ignore[no-untyped-call]


def _run_partition(task: dict[str, Any], slices: Iterable[list[dict[str, Any]]]) -> Iterator[dict[str, Any]]:
    """``mapPartitions`` body: copy (or compare) every item of this task's slice; one result per item.

    A few threads per task keep several batches in flight: each thread has its own py4j connection, so one batch's
    waits (a network round trip per file on HDFS or S3A, py4j calls) overlap the others' work.
    """
    items = [item for part in slices for item in part]
    batches = _batches(items)
    try:
        copier = _Copier(task)
    except Exception as error:  # no gateway or no copier: every file says why (Spark would say "Python worker")
        message = str(getattr(error, "java_exception", None) or error).strip().splitlines()
        reason = f"no copier in the task's JVM: {message[0] if message else type(error).__name__}"
        return iter([{"rel": item["rel"], "length": item["length"], "origin": item["origin"], "error": reason}
                     for item in items])
    try:
        with ThreadPoolExecutor(max(1, min(COPY_THREADS, len(batches)))) as pool:
            results = [result for done in pool.map(copier.run, batches) for result in done]
    finally:
        copier.close()
    return iter(results)


# --------------------------------------------------------------------------------------------------------------
# Driver side


@dataclass(frozen=True)
class SourceFile:
    rel: str
    uri: str
    length: int


def list_sources(fs: common.HadoopFs, sources: Sequence[common.Uri], include: str | None, flag: str,
                 prefix: str = "") -> dict[str, SourceFile]:
    """Relative path → file of every source (include-filtered, flag files skipped, only below ``prefix``); the
    same relative path in two sources is an error."""
    pattern = common.include_pattern(include) if include else None
    planned: dict[str, SourceFile] = {}
    for source in sources:
        root = fs.qualify(str(source))
        for entry in fs.list_files(root.with_path(root.path.rstrip("/") + "/" + prefix) if prefix else str(root)):
            found = common.split_uri(entry.path)
            path = common.checked_path(found.path)
            rel = path[len(root.path):].lstrip("/") if common.is_under(path, root.path) else common.name_of(path)
            if common.name_of(rel) == flag or (pattern is not None and not pattern.match(rel)):
                continue
            if rel in planned:
                raise common.JobError(f"{rel} is in more than one source ({planned[rel].uri} and {entry.path})")
            planned[rel] = SourceFile(rel, root.with_path(path), entry.length)
    return planned


def balance(items: list[dict[str, Any]], slots: int) -> list[list[dict[str, Any]]]:
    """Spread items over ``slots`` lists of similar total bytes (largest first; a file costs at least 64 KiB)."""
    slices: list[list[dict[str, Any]]] = [[] for _ in range(max(1, min(slots, len(items))))]
    loads = [0] * len(slices)
    for item in sorted(items, key=lambda item: -int(item["length"])):
        index = loads.index(min(loads))
        slices[index].append(item)
        loads[index] += max(int(item["length"]), 1 << 16)
    return slices


def executor_access(spark: SparkSession, mode: str) -> dict[str, Any]:
    """How copy tasks reach a JVM: the driver's gateway (local master) or a private one per worker."""
    context = spark.sparkContext
    local = (context.master or "").startswith("local")
    if mode == "auto":
        mode = "driver" if local else "launch"
    if mode == "driver":
        if not local:
            raise common.UsageError("--executor-jvm driver needs a local master (the executors must be in the "
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
        self.fs = common.HadoopFs(spark)
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
        _ship_by_value()
        context.setJobDescription(f"falcon replication {self.options.feed} {self.options.instance}: {op} "
                                  f"{len(items)} files")
        try:
            results: list[dict[str, Any]] = (context.parallelize(slices, len(slices))
                                             .mapPartitions(functools.partial(_run_partition, task)).collect())
        except Exception as error:
            raise common.JobError(f"{op} tasks failed: {_first_line(error)}") from None
        finally:
            context.setJobDescription(None)  # type: ignore[arg-type]
        failed = [result for result in results if "error" in result]
        if failed:
            shown = "; ".join(f"{result['rel']}: {result['error']}" for result in failed[:3])
            raise common.JobError(f"{len(failed)} file(s) could not be read or written: {shown}")
        return results

    def resolve_paths(self) -> tuple[list[common.Uri], common.Uri]:
        options = self.options
        sources, target = list(options.sources), options.target
        if options.source_table is not None and options.target_table is not None:
            source_catalog = self.source_catalog()
            try:
                if not sources:
                    sources = [self.source_partition_location(source_catalog)]
                if target is None:
                    location = self.target_table_location(source_catalog)
                    target = common.parse_location(
                        location.rstrip("/") + "/" + options.target_table.partition_path(), "target partition location")
            finally:
                if source_catalog is not None:
                    source_catalog.close()
        assert target is not None
        qualified_sources, qualified_target = [self.fs.qualify(str(source)) for source in sources], \
            self.fs.qualify(str(target))
        for source in qualified_sources:  # e.g. a table feed whose two clusters share one metastore and one table
            if _overlap(source, qualified_target):
                raise common.JobError(f"the target {qualified_target} and the source {source} overlap: an instance "
                                      "cannot be replicated onto itself")
        return qualified_sources, qualified_target

    def source_catalog(self) -> ThriftMetastore | None:
        """The source's metastore when it is not the session's (the session is on the target's)."""
        wanted = self.options.source_metastore
        if wanted is None or _same_metastore(wanted, session_metastore(self.spark)):
            return None
        return ThriftMetastore(self.spark, wanted)

    def source_partition_location(self, catalog: ThriftMetastore | None) -> common.Uri:
        table = self.options.source_table
        assert table is not None
        spec = dict(table.partitions)
        if catalog is not None:
            location = catalog.partition_location(table, spec)
        else:
            details = common.partition_detail(self.spark, table, spec)
            location = (details or {}).get("Location")
        if not location:
            raise common.JobError(f"source partition {table.partition_path()} of {table.database}.{table.table} "
                                  f"does not exist")
        return common.parse_location(location, "source partition location")

    def target_table_location(self, catalog: ThriftMetastore | None) -> str:
        """The target table's location, the table created first when missing (Falcon's Hive import did)."""
        source, target = self.options.source_table, self.options.target_table
        assert source is not None and target is not None
        if not self.spark.catalog.tableExists(f"`{target.database}`.`{target.table}`"):
            self.created_table = self.create_target_table(catalog)
        location = common.table_detail(self.spark, target, "Location")
        if not location:
            raise common.JobError(f"target table {target.database}.{target.table} has no location")
        return location

    def create_target_table(self, catalog: ThriftMetastore | None) -> str:
        source, target = self.options.source_table, self.options.target_table
        assert source is not None and target is not None
        if not self.spark.catalog.databaseExists(target.database):
            raise common.JobError(f"target database {target.database} does not exist in the target metastore: "
                                  f"create it before replicating into {target.database}.{target.table}")
        rows = self.spark.sql(f"DESCRIBE DATABASE `{target.database}`").collect()
        database_location = next((str(row[1]) for row in rows if str(row[0]).strip() == "Location"), "")
        if not database_location:
            raise common.JobError(f"target database {target.database} has no location")
        where = common.split_uri(database_location)
        base = self.options.target_storage.root if self.options.target_storage is not None else where.root
        location = f"{base}{common.checked_path(where.path.rstrip('/') + '/' + target.table.lower())}"
        if catalog is None:
            self.spark.sql(f"CREATE TABLE IF NOT EXISTS {common.qualified(target)} LIKE {common.qualified(source)} "
                           f"LOCATION {common.sql_string(location)}")
        else:
            target_metastore = session_metastore(self.spark)
            if target_metastore is None:
                raise common.JobError(f"table {target.database}.{target.table} cannot be created from another "
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
            raise common.JobError("the target resolves to a file system root")
        flag = target.with_path(target.path + "/" + options.flag) if options.flag else None
        # With an include pattern the unit copied and swapped is <target>/<its glob-free folders> (Falcon appended
        # them to both paths): replications of different partitions into one instance do not touch each other.
        prefix = common.include_prefix(options.include) if options.include else ""
        pattern = common.include_pattern(options.include) if options.include else None
        if prefix:
            named = self.fs.status(sources[0].with_path(sources[0].path.rstrip("/") + "/" + prefix))
            if named is not None and not named.is_dir:  # the include names one file: its folder is the unit
                prefix = prefix.rsplit("/", 1)[0] if "/" in prefix else ""
        planned = list_sources(self.fs, sources, options.include, options.flag, prefix)
        instance = target
        if prefix:
            planned = {rel[len(prefix) + 1:]: item for rel, item in planned.items()}
            target = common.Uri(target.scheme, target.authority, target.path + "/" + prefix)
        # every sibling this run makes beside the target carries its token; other runs' are left to their owners
        with common.RunStaging(self.fs, str(target), common.RunOwner.current(options.lease_seconds)) as stage:
            return self.replicate(stage, sources, instance, target, planned, prefix, pattern, flag)

    def replicate(self, stage: common.RunStaging, sources: list[common.Uri], instance: common.Uri,
                  target: common.Uri, planned: dict[str, SourceFile], prefix: str, pattern: re.Pattern[str] | None,
                  flag: str | None) -> dict[str, Any]:
        """Copy ``planned`` into this run's staging folder beside ``target``, verify and publish it."""
        options = self.options
        recovered = stage.recover()
        # exists() first: a missing target (every first run) costs one py4j call, not a converted Java exception
        current = self.fs.status(str(target)) if self.fs.exists(str(target)) else None
        if current is not None and not current.is_dir:
            raise common.JobError(f"target {target} exists and is not a folder")
        existing: dict[str, int] = {}
        if current is not None:
            for entry in self.fs.list_files(str(target)):
                path = common.checked_path(common.split_uri(entry.path).path)
                rel = path[len(target.path):].lstrip("/")
                if common.name_of(rel) != options.flag:
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
        staging_path = common.split_uri(staging).path
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
            raise common.JobError(f"cannot create the staging folder {staging}")
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
            raise common.JobError(f"verification of {staging} failed: " + "; ".join(problems[:3]))

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


def session_metastore(spark: SparkSession) -> str | None:
    """The ``thrift://`` metastore the session's Hive catalog uses, if any."""
    for key in ("spark.hadoop.hive.metastore.uris", "spark.sql.hive.metastore.uris"):
        with suppress(Exception):
            value = spark.conf.get(key, None)
            if value:
                return str(value).split(",")[0].strip()
    value = spark.sparkContext._jsc.hadoopConfiguration().get("hive.metastore.uris")
    return str(value).split(",")[0].strip() if value else None


def _same_metastore(one: str, other: str | None) -> bool:
    return other is not None and one.rstrip("/") == other.rstrip("/")


# Table parameters that describe one table's data, not its shape: a copy starts without them.
_DATA_PARAMETERS = ("numFiles", "numRows", "rawDataSize", "totalSize", "COLUMN_STATS_ACCURATE", "transient_lastDdlTime",
                    "numFilesErasureCoded", "spark.sql.statistics.totalSize", "spark.sql.statistics.numRows")


class ThriftMetastore:
    """A Hive metastore reached through its thrift API from the driver's JVM (Hive's own client, in Spark's jars),
    for a table replication between two metastores (one Spark session has one Hive catalog): the source table and
    partition are read from the source's, and a missing target table is created in the target's from that
    definition."""

    def __init__(self, spark: SparkSession, uri: str) -> None:
        jvm = spark.sparkContext._jvm
        assert jvm is not None
        self.jvm = jvm
        conf = jvm.org.apache.hadoop.hive.conf.HiveConf()
        conf.set("hive.metastore.uris", uri)
        self.uri = uri
        try:
            self.client = jvm.org.apache.hadoop.hive.metastore.HiveMetaStoreClient(conf)
        except Exception as error:
            raise common.JobError(f"metastore {uri} cannot be reached: {_first_line(error)}") from None

    def __enter__(self) -> ThriftMetastore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.client.close()

    def table(self, table: TableUri) -> Any:
        try:
            return self.client.getTable(table.database, table.table)
        except Exception as error:
            raise common.JobError(f"table {table.database}.{table.table} cannot be read from {self.uri}: "
                                  f"{_first_line(error)}") from None

    def partition_location(self, table: TableUri, spec: dict[str, str]) -> str | None:
        keys = [column.getName() for column in self.table(table).getPartitionKeys()]
        if sorted(keys) != sorted(spec):
            raise common.JobError(f"table {table.database}.{table.table} is partitioned by {', '.join(keys)}; the "
                                  f"feed names {', '.join(spec)}")
        try:  # py4j turns the Python list of values into a java.util.List
            partition = self.client.getPartition(table.database, table.table, [spec[key] for key in keys])
        except Exception as error:
            if "NoSuchObjectException" in str(error):
                return None
            raise common.JobError(f"partition {table.partition_path()} of {table.database}.{table.table} cannot be "
                                  f"read from {self.uri}: {_first_line(error)}") from None
        return str(partition.getSd().getLocation())

    def create_like(self, source: Any, target: TableUri, location: str) -> None:
        """Create ``target`` as an external table with ``source``'s columns, partition keys and storage."""
        table = source.deepCopy()
        table.setDbName(target.database)
        table.setTableName(target.table)
        table.setTableType("EXTERNAL_TABLE")
        parameters = table.getParameters()
        if parameters is None:
            table.setParameters(self.jvm.java.util.HashMap())
            parameters = table.getParameters()
        for name in _DATA_PARAMETERS:
            parameters.remove(name)
        parameters.put("EXTERNAL", "TRUE")
        storage = table.getSd()
        storage.setLocation(location)
        serde = storage.getSerdeInfo().getParameters()
        if serde is not None and serde.containsKey("path"):  # a Spark data source table keeps its path here too
            serde.put("path", location)
        try:
            self.client.createTable(table)
        except Exception as error:
            if "AlreadyExistsException" in str(error):
                return  # created meanwhile by another run: the same shape
            raise common.JobError(f"table {target.database}.{target.table} cannot be created in {self.uri}: "
                                  f"{_first_line(error)}") from None


def register_partition(spark: SparkSession, options: Options, target: str) -> str:
    """Add the target partition to the target catalog table (or point it at the replicated folder)."""
    table = options.target_table
    assert table is not None
    spec = common.spec_sql(table)
    spark.sql(f"ALTER TABLE {common.qualified(table)} ADD IF NOT EXISTS {spec} LOCATION {common.sql_string(target)}")
    details = common.partition_detail(spark, table, dict(table.partitions)) or {}
    location = details.get("Location", "")
    if location and common.split_uri(location).path.rstrip("/") != common.split_uri(target).path.rstrip("/"):
        spark.sql(f"ALTER TABLE {common.qualified(table)} {spec} SET LOCATION {common.sql_string(target)}")
    return table.partition_path()


def copied_schema(spark: SparkSession, data_format: str, folder: str) -> list[list[str]] | None:
    """``[[column, type], ...]`` of the published copy, from its files' own metadata; ``None`` when unreadable.

    Only lineage uses it (each column copied unchanged), so a folder Spark cannot read never fails the copy."""
    try:
        schema = spark.read.format(data_format).load(folder).schema
    except Exception as problem:
        print(f"replication: no schema read from {folder} ({_first_line(problem)})", file=sys.stderr)
        return None
    return [[field.name, field.dataType.simpleString()] for field in schema.fields] or None


def _first_line(error: BaseException) -> str:
    java = getattr(error, "java_exception", None)
    text = str(java if java is not None else error).strip()
    return text.splitlines()[0] if text else type(error).__name__


def main(argv: Sequence[str] | None = None, spark: SparkSession | None = None) -> int:
    """Run the replication job on ``argv`` (``spark`` defaults to the running session, or a new one)."""

    def body(args: argparse.Namespace) -> common.JobResult:
        options = parse_options(args)
        tables = options.source_table is not None
        with common.spark_session(f"falcon-replication-{options.feed}", spark, hive=tables) as session:
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
        return common.JobResult(summary, report)

    return common.run_job("replication", build_parser(), argv, body)


if __name__ == "__main__":
    common.script_main(main)
