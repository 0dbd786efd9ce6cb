"""What the lifecycle jobs share: argument handling, reports, safe paths, include globs, Hadoop FS access.

This file is shipped beside each job with ``spark-submit --py-files common.py,<the core archive>``, so it imports
only the standard library, :mod:`falcon_airflow.core` (Falcon's path, table and time rules, shared with the Airflow
side) and pyspark (lazily: the pure parts below run without Spark and are unit-tested as such).

Pure pieces (no Spark):

* the job frame: arguments, exit codes, the one-line JSON summary and the report file;
* URIs and safe paths: a job refuses ``.`` and ``..`` in a path it may delete or overwrite;
* SQL for catalog table URIs (plain identifiers, quoted values);
* DistCp include globs converted the way Falcon's ``FilteredCopyListing`` did;
* which staging siblings of a published folder belong to runs that are over (:func:`plan_cleanup`).

Spark pieces: :class:`HadoopFs` does every data-path operation through the Hadoop ``FileSystem`` API of the
Spark JVM (so ``file://``, ``hdfs://`` and ``s3a://`` behave alike) and reads directory listings in bulk, because
each py4j call costs tens of microseconds.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import socket
import sys
import threading
import time
import uuid
import xml.etree.ElementTree as ElementTree
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

from falcon_airflow.core.errors import RuleError
from falcon_airflow.core.paths import Template
from falcon_airflow.core.tables import TableUri

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


# --------------------------------------------------------------------------------------------------------------
# Errors and the command-line frame every job uses


class UsageError(Exception):
    """Bad arguments: the job prints the message and exits with 2, never with a traceback."""


class JobError(Exception):
    """A failure the job can explain (missing source, failed verification): exit 1 with the message."""


class ArgumentParser(argparse.ArgumentParser):
    """argparse that raises :class:`UsageError` instead of exiting, so ``main(argv)`` can return a code."""

    def error(self, message: str) -> Any:  # argparse's signature is NoReturn; raising keeps that promise
        raise UsageError(message)


@dataclass
class JobResult:
    """What a job body returns: the stdout summary, the report file content and extra stdout lines."""

    summary: dict[str, Any]
    report: dict[str, Any]
    lines: list[str] = field(default_factory=list)
    code: int = 0


def run_job(name: str, parser: argparse.ArgumentParser, argv: Sequence[str] | None,
            body: Callable[[argparse.Namespace], JobResult]) -> int:
    """Parse ``argv``, run ``body`` and print its result: extra lines, then the one-line JSON summary (last line).

    Exit codes: 0 done, 1 :class:`JobError` (the report, if asked for, says ``error``), 2 bad arguments.
    """
    try:
        args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    except SystemExit as done:  # --help
        return int(done.code or 0)
    except UsageError as error:
        parser.print_usage(sys.stderr)
        print(f"{name}: error: {error}", file=sys.stderr)
        return 2
    started = time.monotonic()
    report_path = getattr(args, "report", None)
    try:
        try:
            result = body(args)
        except Exception as error:
            java = java_exception_class(error)
            if java is None or isinstance(error, (UsageError, RuleError, JobError)):
                raise
            # a Hadoop/Spark failure (permission denied, unreachable name node): its first line, no py4j trace
            lines = str(getattr(error, "java_exception", None) or error).strip().splitlines()
            raise JobError(lines[0] if lines else java) from error
    except (UsageError, RuleError) as error:
        parser.print_usage(sys.stderr)
        print(f"{name}: error: {error}", file=sys.stderr)
        return 2
    except JobError as error:
        seconds = round(time.monotonic() - started, 3)
        failure = {"job": name, "error": str(error), "seconds": seconds}
        print(f"{name}: failed: {error}", file=sys.stderr)
        print(json.dumps(failure), flush=True)
        if report_path:
            write_report(report_path, failure)
        return 1
    seconds = round(time.monotonic() - started, 3)
    result.summary["seconds"] = seconds
    result.report["seconds"] = seconds
    if report_path:
        write_report(report_path, result.report)
        result.summary["report"] = report_path
    for line in result.lines:
        print(line)
    print(json.dumps(result.summary), flush=True)
    return result.code


def write_report(path: str, data: dict[str, Any]) -> None:
    """Write ``data`` as JSON to a local file (written aside, then renamed, so a reader never sees half)."""
    local = path[len("file://"):] if path.startswith("file://") else path
    folder = os.path.dirname(os.path.abspath(local))
    os.makedirs(folder, exist_ok=True)
    temporary = f"{local}.tmp-{os.getpid()}"
    with open(temporary, "w", encoding="utf-8") as handle:
        json.dump(data, handle, indent=1)
        handle.write("\n")
    os.replace(temporary, local)


def script_main(main: Callable[[Sequence[str] | None], int]) -> None:
    """``if __name__ == "__main__"`` of a job file: run ``main`` on ``sys.argv`` and exit with its code."""
    sys.exit(main(sys.argv[1:]))


@contextmanager
def spark_session(app_name: str, spark: SparkSession | None = None, hive: bool = False) -> Iterator[SparkSession]:
    """The session a job runs in: the one given, the one already running, or a new one (stopped at the end).

    Hive support is asked for only when a catalog table is involved (``hive=True``); an existing session is used
    as it is.
    """
    if spark is not None:
        yield spark
        return
    from pyspark import SparkContext
    from pyspark.sql import SparkSession

    if SparkContext._active_spark_context is not None:
        yield SparkSession.builder.getOrCreate()
        return
    builder = SparkSession.builder.appName(app_name)
    if hive:
        builder = builder.enableHiveSupport()
    session = builder.getOrCreate()
    try:
        yield session
    finally:
        session.stop()


# --------------------------------------------------------------------------------------------------------------
# URIs and safe paths

_URI = re.compile(r"^(?P<scheme>[A-Za-z][A-Za-z0-9+.\-]*):(?://(?P<authority>[^/]*))?(?P<path>.*)$")


@dataclass(frozen=True)
class Uri:
    """A split URI: ``file:///a/b`` → (``file``, ``""``, ``/a/b``); a bare ``/a/b`` has no scheme."""

    scheme: str | None
    authority: str | None
    path: str

    @property
    def root(self) -> str:
        """``scheme://authority`` (``file://`` for local paths), or ``""`` for a bare path."""
        if not self.scheme:
            return ""
        return f"{self.scheme}://{self.authority or ''}"

    def with_path(self, path: str) -> str:
        return self.root + path

    def same_filesystem(self, other: Uri) -> bool:
        """Same scheme and (when both name one) the same host, and the same port when both name one: two
        namenodes of one host are two file systems. Hadoop prints ``file:/x`` for ``file:///x``, and a missing
        port may be the default one, so a missing part counts as the same."""
        if (self.scheme or "").lower() != (other.scheme or "").lower():
            return False
        if self.authority and other.authority:
            host, _, port = self.authority.lower().partition(":")
            other_host, _, other_port = other.authority.lower().partition(":")
            return host == other_host and (not port or not other_port or port == other_port)
        return True

    def __str__(self) -> str:
        return self.with_path(self.path)


def split_uri(text: str) -> Uri:
    match = _URI.match(text)
    if match and (match["authority"] is not None or match["path"].startswith("/")):
        return Uri(match["scheme"], match["authority"], match["path"] or "/")
    return Uri(None, None, text)


def checked_path(path: str) -> str:
    """Collapse repeated and trailing ``/``; refuse relative paths and ``.``/``..`` components (ValueError): a job
    never resolves ``..`` in a path it may delete or overwrite (lineage names resolve it: ``core.naming``)."""
    if not path.startswith("/"):
        raise ValueError(f"{path!r} is not an absolute path")
    parts = [part for part in path.split("/") if part]
    for part in parts:
        if part in (".", ".."):
            raise ValueError(f"{path!r} has a {part!r} component")
    return "/" + "/".join(parts)


def parse_location(text: str, what: str) -> Uri:
    """A user-given location URI (or absolute path), normalised; UsageError if unsafe or relative."""
    uri = split_uri(text.strip())
    try:
        return Uri(uri.scheme, uri.authority, checked_path(uri.path))
    except ValueError as error:
        raise UsageError(f"{what} {text!r}: {error}") from None


def is_under(path: str, folder: str) -> bool:
    """Whether ``path`` is strictly below ``folder`` (both normalised)."""
    if folder == "/":
        return path != "/"
    return path.startswith(folder + "/")


def parent_of(path: str) -> str:
    cut = path.rstrip("/").rfind("/")
    return path[:cut] if cut > 0 else "/"


def name_of(path: str) -> str:
    return path.rstrip("/").rsplit("/", 1)[-1]


# --------------------------------------------------------------------------------------------------------------
# Catalog table URIs (Falcon CatalogStorage)

_IDENTIFIER = re.compile(r"[A-Za-z0-9_]+")


def check_identifier(name: str) -> str:
    if not _IDENTIFIER.fullmatch(name):
        raise UsageError(f"{name!r} is not a plain identifier (letters, digits, underscore)")
    return name


def sql_string(value: str) -> str:
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def parse_table_uri(text: str) -> TableUri:
    """Falcon's table URI (:class:`falcon_airflow.core.tables.TableUri`), with plain identifiers only (they go into
    SQL) and the partition values' variables in the ``${X}`` spelling."""
    try:
        table = TableUri.parse(text)
        partitions = tuple((check_identifier(key), Template.parse(value).text) for key, value in table.partitions)
    except RuleError as error:
        raise UsageError(str(error)) from None
    return TableUri(check_identifier(table.database), check_identifier(table.table), partitions)


def qualified(table: TableUri) -> str:
    return f"`{table.database}`.`{table.table}`"


def spec_sql(table: TableUri, partition: dict[str, str] | None = None) -> str:
    """``PARTITION (`k`='v', …)`` for ``partition`` (default: the URI's own values, which must be resolved)."""
    values = partition if partition is not None else dict(table.partitions)
    return "PARTITION (" + ", ".join(f"`{check_identifier(key)}`={sql_string(value)}"
                                      for key, value in values.items()) + ")"


def parse_partition_name(name: str) -> dict[str, str]:
    """``ds=2015%3A01/region=us`` (SHOW PARTITIONS, Hive path escaping) as a dict."""
    result = {}
    for part in name.split("/"):
        key, _, value = part.partition("=")
        result[unquote(key)] = unquote(value)
    return result


# --------------------------------------------------------------------------------------------------------------
# Include globs (Falcon FilteredCopyListing)


def include_pattern(glob: str) -> re.Pattern[str]:
    """A relative include glob as a regex over relative file paths.

    As Falcon converted it: ``*`` → ``.*`` (it may cross ``/``), ``?`` → ``.``, ``{a,b}`` → alternatives,
    ``[..]`` sets kept (``[!..]`` negated); the pattern matches a file whose relative path, or one of its folders,
    it matches entirely (Falcon's ``(<re>/)|(<re>$)``).
    """
    if not glob or glob.startswith("/"):
        raise UsageError(f"include pattern {glob!r} must be a relative path glob")
    if any(part in (".", "..") for part in glob.split("/")):
        raise UsageError(f"include pattern {glob!r} must not have '.' or '..' components")
    out: list[str] = []
    depth = 0
    index = 0
    while index < len(glob):
        char = glob[index]
        if char == "*":
            out.append(".*")
        elif char == "?":
            out.append(".")
        elif char == "{":
            depth += 1
            out.append("(?:")
        elif char == "}" and depth:
            depth -= 1
            out.append(")")
        elif char == "," and depth:
            out.append("|")
        elif char == "[":
            end = glob.find("]", index + 2 if glob[index + 1:index + 2] in ("!", "^") else index + 1)
            if end < 0:
                raise UsageError(f"include pattern {glob!r} has an unclosed '['")
            body = glob[index + 1:end]
            if body.startswith("!"):
                body = "^" + body[1:]
            out.append("[" + body.replace("\\", "\\\\") + "]")
            index = end
        elif char == "\\" and index + 1 < len(glob):
            index += 1
            out.append(re.escape(glob[index]))
        else:
            out.append(re.escape(char))
        index += 1
    if depth:
        raise UsageError(f"include pattern {glob!r} has an unclosed '{{'")
    return re.compile("(?:" + "".join(out) + ")(?:/|$)")


def include_prefix(glob: str) -> str:
    """The leading glob-free components of an include pattern (``US/*`` → ``US``; ``IN`` → ``IN``; ``*/3/*`` →
    ``""``): Falcon appended this prefix to both the source and the target path."""
    prefix = []
    for part in glob.split("/"):
        if any(char in part for char in "*?[]{}\\"):
            break
        prefix.append(part)
    return "/".join(prefix)


def split_paths(text: str) -> list[str]:
    """A comma-separated list of paths, leaving commas inside glob braces ``{a,b}`` alone."""
    parts: list[str] = []
    current: list[str] = []
    depth = 0
    for char in text:
        if char == "{":
            depth += 1
        elif char == "}" and depth:
            depth -= 1
        if char == "," and not depth:
            parts.append("".join(current))
            current = []
        else:
            current.append(char)
    parts.append("".join(current))
    return [part.strip() for part in parts if part.strip()]


# --------------------------------------------------------------------------------------------------------------
# Hadoop FileSystem through the Spark JVM

_SEPARATOR = "\n"
_STATUS_TEXT = re.compile(
    r"[A-Za-z0-9_$]+\{path=(?P<path>.*?); isDirectory=(?P<dir>true|false)(?:; length=(?P<length>\d+))?"
    r".*?; modification_time=(?P<mtime>-?\d+);.*?; isSymlink=(?P<link>true|false)", re.S)


@dataclass(frozen=True)
class Entry:
    """One file status: the path as Hadoop prints it (``file:/x``, ``hdfs://nn:8020/x``)."""

    path: str
    is_dir: bool
    length: int
    mtime: int
    is_symlink: bool = False  # as listed: HDFS lists links as links; the local file system lists their targets


def java_exception_class(error: BaseException) -> str | None:
    """The Java class name behind a py4j error (``java.io.FileNotFoundException``), if there is one."""
    java = getattr(error, "java_exception", None)
    if java is None:
        return None
    try:
        return str(java.getClass().getName())
    except Exception:  # the JVM may be gone; then there is no class to report
        return None


def _is_not_found(error: BaseException) -> bool:
    return java_exception_class(error) == "java.io.FileNotFoundException"


class HadoopFs:
    """Data-path operations through ``org.apache.hadoop.fs.FileSystem`` in the Spark driver JVM.

    Paths in and out are URI strings. Listings (glob, list) come back in bulk: the JVM joins the statuses'
    ``toString`` into one string that is parsed here, with a per-status fallback when that text is ambiguous.
    Symlink checks use ``getFileLinkStatus`` (``java.nio`` for ``file:``, see :meth:`is_symlink`).

    Without the native Hadoop library (pyspark ships none) the local file system forks a ``chmod`` for every file
    or folder it creates; deletes, renames and listings do not fork.
    """

    def __init__(self, spark: SparkSession) -> None:
        session: Any = spark  # py4j objects are untyped
        self.jvm: Any = session._jvm
        self.gateway: Any = session.sparkContext._gateway
        self.conf: Any = session.sparkContext._jsc.hadoopConfiguration()
        self._Path: Any = self.jvm.org.apache.hadoop.fs.Path
        self._filesystems: dict[str, Any] = {}
        self._local: dict[str, bool] = {}
        self._join_method: Any = None
        self._nio: Any = None
        self._bulk: Any = None
        self._walk: Any = None

    # -- objects
    def path(self, uri: str) -> Any:
        return self._Path(uri)

    def filesystem(self, uri: str) -> Any:
        root = split_uri(uri).root
        fs = self._filesystems.get(root)
        if fs is None:
            fs = self._Path(uri).getFileSystem(self.conf)
            self._filesystems[root] = fs
            self._local[root] = str(fs.getUri().getScheme()) == "file"
        return fs

    def is_local(self, uri: str) -> bool:
        self.filesystem(uri)
        return self._local[split_uri(uri).root]

    def qualify(self, uri: str) -> Uri:
        """The URI with the scheme and authority of the file system it resolves to (default FS for bare paths)."""
        fs = self.filesystem(uri)
        qualified = split_uri(str(fs.makeQualified(self._Path(uri)).toString()))
        given = split_uri(uri)
        return Uri(qualified.scheme, given.authority if given.scheme else qualified.authority, qualified.path)

    # -- single-path operations
    def exists(self, uri: str) -> bool:
        return bool(self.filesystem(uri).exists(self._Path(uri)))

    def status(self, uri: str) -> Entry | None:
        try:
            status = self.filesystem(uri).getFileStatus(self._Path(uri))
        except Exception as error:
            if _is_not_found(error):
                return None
            raise
        return self._entry(status)

    def is_symlink(self, uri: str) -> bool | None:
        """Whether the last component of ``uri`` is a symlink (not followed); ``None`` if it does not exist.

        For ``file:`` URIs the JVM's ``java.nio.file.Files.isSymbolicLink`` answers (a missing path is then
        ``False``): Hadoop's local ``getFileLinkStatus`` gives the same answer but forks ``readlink`` for every
        call when the native Hadoop library is absent (~7 ms each), and needs a scheme-less path to see links.
        """
        if self.is_local(uri):
            if self._nio is None:  # bound once: each attribute lookup on a py4j class is a round trip
                self._nio = (self.jvm.java.nio.file.Files.isSymbolicLink, self.jvm.java.nio.file.Paths.get,
                             self.gateway.new_array(self.jvm.java.lang.String, 0))
            is_symbolic_link, get_path, no_more = self._nio
            return bool(is_symbolic_link(get_path(split_uri(uri).path, no_more)))
        try:
            return bool(self.filesystem(uri).getFileLinkStatus(self._Path(uri)).isSymlink())
        except Exception as error:
            if _is_not_found(error):
                return None
            raise

    def delete(self, uri: str, recursive: bool) -> bool:
        return bool(self.filesystem(uri).delete(self._Path(uri), recursive))

    def rename(self, source: str, target: str) -> bool:
        return bool(self.filesystem(source).rename(self._Path(source), self._Path(target)))

    def rename_new(self, source: str, target: str) -> bool:
        """Rename ``source`` to ``target`` only if ``target`` does not exist: ``False``, nothing moved, if it does.

        ``FileSystem.rename`` moves a folder *into* an existing folder; this never does. ``FileContext.rename`` with
        ``Options.Rename.NONE`` refuses an existing target: one name node operation on HDFS. Other file systems
        check, then rename; the local one falls back to a copy into ``target/<name>`` when ``target`` appeared in
        between - that is seen afterwards and the copy moved back to ``source``."""
        key = "context:" + split_uri(source).root
        context = self._filesystems.get(key)
        if context is None:
            context = self.jvm.org.apache.hadoop.fs.FileContext.getFileContext(
                self.filesystem(source).getUri(), self.conf)
            self._filesystems[key] = context
        rename = getattr(self.jvm.org.apache.hadoop.fs, "Options$Rename")
        options = self.gateway.new_array(rename, 1)
        options[0] = rename.NONE
        try:
            context.rename(self._Path(source), self._Path(target), options)
        except Exception as error:
            if java_exception_class(error) == "org.apache.hadoop.fs.FileAlreadyExistsException":
                return False
            raise
        nested = f"{target.rstrip('/')}/{name_of(source)}"
        if self.exists(nested):
            if not self.exists(source):
                self.rename(nested, source)
            return False
        return not self.exists(source)

    def write_text(self, uri: str, text: str) -> None:
        """Create (or replace) a small file holding ``text``."""
        stream = self.writer(uri).create(self._Path(uri), True)
        try:
            stream.write(bytearray(text.encode("utf-8")))
        finally:
            stream.close()

    def read_text(self, uri: str) -> str:
        """A small file's content (``""`` when it vanished meanwhile)."""
        try:
            stream = self.filesystem(uri).open(self._Path(uri))
        except Exception as error:
            if _is_not_found(error):
                return ""
            raise
        try:
            return str(self.jvm.org.apache.commons.io.IOUtils.toString(stream, "UTF-8"))
        finally:
            stream.close()

    def mkdirs(self, uri: str) -> bool:
        return bool(self.filesystem(uri).mkdirs(self._Path(uri)))

    def touch(self, uri: str) -> None:
        """Create (or truncate) an empty file, without a ``.crc`` companion on the local file system."""
        self.writer(uri).create(self._Path(uri), True).close()

    def writer(self, uri: str) -> Any:
        """A private FileSystem instance that writes no checksum files (closed by :meth:`close`)."""
        root = "writer:" + split_uri(uri).root
        fs = self._filesystems.get(root)
        if fs is None:
            fs = self.jvm.org.apache.hadoop.fs.FileSystem.newInstance(self._Path(uri).toUri(), self.conf)
            fs.setWriteChecksum(False)
            self._filesystems[root] = fs
        return fs

    def close(self) -> None:
        """Close the private instances (the shared, cached ones belong to Hadoop's cache)."""
        for root, fs in list(self._filesystems.items()):
            if root.startswith("writer:"):
                del self._filesystems[root]
                with suppress(Exception):  # closing is best effort; the data is already written
                    fs.close()

    def is_empty_dir(self, uri: str) -> bool:
        statuses = self.filesystem(uri).listStatus(self._Path(uri))
        return statuses is not None and len(statuses) == 0

    def content_length(self, uri: str) -> int:
        """Total bytes of the files under ``uri``."""
        return self.content_summary(uri)[1]

    def content_summary(self, uri: str) -> tuple[int, int]:
        """(files, bytes) under ``uri``, counted by the file system (one name node call on HDFS)."""
        summary = self.filesystem(uri).getContentSummary(self._Path(uri))
        return int(summary.getFileCount()), int(summary.getLength())

    # -- listings
    def glob(self, pattern: str) -> list[Entry]:
        """``globStatus``: the matches of a Hadoop glob (empty when nothing matches)."""
        return self._describe(self.filesystem(pattern).globStatus(self._Path(pattern)))

    def list_dir(self, uri: str) -> list[Entry]:
        return self._describe(self.filesystem(uri).listStatus(self._Path(uri)))

    def list_files(self, uri: str, max_depth: int = 64) -> list[Entry]:
        """Every file below ``uri`` (a file lists itself); FileNotFoundException → JobError.

        One bulk listing per level of folders (:meth:`list_many`), one listing per folder where that fails.
        """
        top = self.status(uri)
        if top is None:
            raise JobError(f"{uri} does not exist")
        if not top.is_dir:
            return [top]
        files: list[Entry] = []
        level = [uri]
        for _ in range(max_depth):
            if not level:
                return files
            below: list[str] = []
            listed = self.list_many(level) if len(level) > 1 else None
            for children in (listed.values() if listed is not None else map(self.list_dir, level)):
                for entry in children:
                    if entry.is_dir:
                        below.append(entry.path)
                    else:
                        files.append(entry)
            level = below
        raise JobError(f"{uri} is deeper than {max_depth} folders (a symlink loop?)")

    def _entry(self, status: Any) -> Entry:
        return Entry(str(status.getPath().toString()), bool(status.isDirectory()), int(status.getLen()),
                     int(status.getModificationTime()), bool(status.isSymlink()))

    def list_many(self, uris: Sequence[str]) -> dict[str, list[Entry]] | None:
        """The children of many folders of one file system in one ``listStatus(Path[])`` call, by normalised
        folder path; ``None`` if that cannot be done (a folder vanished, a path has a newline, two folders are the
        same path, a child's path does not name one of the folders as its parent)."""
        folders = [checked_path(split_uri(uri).path) for uri in uris]
        if not uris or any("\n" in uri for uri in uris) or len(set(folders)) != len(folders):
            return None
        try:
            if self._bulk is None:
                self._bulk = (self.jvm.org.apache.commons.lang3.StringUtils.split,
                              self.jvm.org.apache.hadoop.util.StringUtils.stringToPath)
            split, to_paths = self._bulk
            paths = to_paths(split("\n".join(uris), "\n"))
            if len(paths) != len(uris):
                return None
            statuses = self.filesystem(uris[0]).listStatus(paths)
        except Exception:  # a folder vanished meanwhile, or no commons-lang3: the caller goes one by one
            return None
        children: dict[str, list[Entry]] = {folder: [] for folder in folders}
        for entry in self._describe(statuses):
            folder = parent_of(checked_path(split_uri(entry.path).path))
            if folder not in children:  # never drop an entry silently: the caller lists folder by folder
                return None
            children[folder].append(entry)
        return children

    def symlinks_below(self, uri: str, depth: int) -> set[str] | None:
        """Every symlink at most ``depth`` levels below a local folder, as normalised paths, found by one JVM walk
        that does not follow links (commons-io ``PathUtils.walk`` with ``SymbolicLinkFileFilter``); ``None`` when
        the folder is not local, is itself a symlink, or cannot be walked."""
        if not self.is_local(uri) or self.is_symlink(uri) is not False:
            return None
        try:
            if self._walk is None:
                self._walk = (self.jvm.org.apache.commons.io.file.PathUtils.walk,
                              self.jvm.org.apache.commons.io.filefilter.SymbolicLinkFileFilter.INSTANCE,
                              self.gateway.new_array(self.jvm.java.nio.file.FileVisitOption, 0))
            walk, only_links, no_options = self._walk
            _, get_path, no_more = self._nio
            found = walk(get_path(split_uri(uri).path, no_more), only_links, depth, False, no_options).toArray()
            count = len(found)
            text = self._join(found) if count else ""
        except Exception:  # not walkable (vanished, permissions): the caller checks one path at a time
            return None
        if text is None:
            return None
        paths = text.split(_SEPARATOR) if count else []
        if len(paths) != count:
            return None
        return {checked_path(path) for path in paths}

    def _describe(self, statuses: Any) -> list[Entry]:
        if statuses is None:
            return []
        count = len(statuses)
        if count == 0:
            return []
        text = self._join(statuses)
        if text is not None and text.count("; isDirectory=") == count:
            parts = text.split(_SEPARATOR)
            if len(parts) == count:
                matches = [_STATUS_TEXT.match(part) for part in parts]
                if all(matches):
                    return [Entry(match["path"], match["dir"] == "true", int(match["length"] or 0), int(match["mtime"]),
                                  match["link"] == "true") for match in matches if match]
        return [self._entry(statuses[index]) for index in range(count)]

    def _join(self, statuses: Any) -> str | None:
        """All statuses' ``toString`` in one py4j call (``StringUtils.join(Object[], String)`` by reflection,
        because py4j does not pass a ``FileStatus[]`` where ``Object[]`` is declared)."""
        try:
            if self._join_method is None:
                klass = self.jvm.java.lang.Class
                parameters = self.gateway.new_array(klass, 2)
                parameters[0] = klass.forName("[Ljava.lang.Object;")
                parameters[1] = klass.forName("java.lang.String")
                self._join_method = klass.forName("org.apache.commons.lang3.StringUtils").getMethod("join", parameters)
            arguments = self.gateway.new_array(self.jvm.java.lang.Object, 2)
            arguments[0] = statuses
            arguments[1] = _SEPARATOR
            return str(self._join_method.invoke(None, arguments))
        except Exception:  # no commons-lang3 on this classpath: read statuses one by one
            return None

    # -- configuration for executors
    def configuration_overrides(self) -> dict[str, str]:
        """The driver's Hadoop settings that differ from a fresh ``Configuration()`` (serialisable for tasks)."""
        effective = _configuration_dict(self.jvm, self.conf)
        defaults = _configuration_dict(self.jvm, self.jvm.org.apache.hadoop.conf.Configuration())
        return {key: value for key, value in effective.items() if defaults.get(key) != value}


def _configuration_dict(jvm: Any, configuration: Any) -> dict[str, str]:
    buffer = jvm.java.io.ByteArrayOutputStream()
    configuration.writeXml(buffer)
    # as text: py4j decodes a byte[] one byte at a time in Python (a third of a second for a Configuration)
    root = ElementTree.fromstring(str(buffer.toString("UTF-8")).encode("utf-8"))
    result = {}
    for prop in root.iter("property"):
        name, value = prop.findtext("name"), prop.findtext("value")
        if name is not None and value is not None:
            result[name] = value
    return result


# --------------------------------------------------------------------------------------------------------------
# Catalog tables through Spark SQL


def describe(spark: SparkSession, statement: str) -> list[tuple[str, str]]:
    """(col_name, data_type) rows of a ``DESCRIBE FORMATTED`` statement."""
    return [(str(row[0] or "").strip(), str(row[1] or "").strip()) for row in spark.sql(statement).collect()]


def _detail(rows: list[tuple[str, str]], name: str, section: str) -> str | None:
    inside = False
    for key, value in rows:
        if key.startswith("# "):
            inside = key == section
            continue
        if inside and key == name:
            return value
    return None


def table_detail(spark: SparkSession, table: TableUri, name: str) -> str | None:
    """A row of the table's detailed information (``Location``, ``Type``)."""
    try:
        rows = describe(spark, f"DESCRIBE FORMATTED {qualified(table)}")
    except Exception as error:
        raise JobError(f"table {table.database}.{table.table} cannot be read: {_first_line(error)}") from None
    return _detail(rows, name, "# Detailed Table Information")


def list_partitions(spark: SparkSession, table: TableUri) -> list[dict[str, str]]:
    try:
        rows = spark.sql(f"SHOW PARTITIONS {qualified(table)}").collect()
    except Exception as error:
        raise JobError(f"partitions of {table.database}.{table.table} cannot be listed: {_first_line(error)}") from None
    return [parse_partition_name(str(row[0])) for row in rows]


def partition_detail(spark: SparkSession, table: TableUri, partition: dict[str, str],
                     check: bool = True) -> dict[str, str] | None:
    """The detailed information rows of one partition (``Location``, ``Created Time``), ``None`` if absent.

    ``partition`` must name every partition column; ``check=False`` skips the existence check (the caller just
    listed the partition).
    """
    if check and partition not in list_partitions(spark, table):
        return None
    rows = describe(spark, f"DESCRIBE FORMATTED {qualified(table)} {spec_sql(table, partition)}")
    details: dict[str, str] = {}
    inside = False
    for key, value in rows:
        if key.startswith("# "):
            inside = key == "# Detailed Partition Information"
            continue
        if inside and key:
            details[key] = value
    return details


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


# --------------------------------------------------------------------------------------------------------------
# Staging that belongs to one run
#
# A job that publishes a folder (replication, mirroring, import) writes the new version into a staging folder beside
# it, then swaps it in. Two runs of one instance can overlap - a manual rerun while the scheduled run still copies,
# a retry while a zombie try lives on, two source clusters replicating into one instance - so every sibling a run
# creates carries the run's own random token: ``.<name>.falcon-staging-<token>`` (the new version),
# ``.<name>.falcon-old-<token>`` (the previous version while it is swapped) and ``.<name>.falcon-lease-<token>``, a
# small file naming the run (its Airflow task try, host, process, lease length) that the run rewrites every quarter
# of its lease while it lives. The lease is written before any other sibling and removed after them, so a sibling
# listed without a lease belongs to no live run (or to a run of an earlier version, which wrote none).
#
# A run removes a sibling only when its owner's run is over: its lease was not rewritten for a whole lease (ages
# compared on the file system's clock: the lease's age against the age of this run's own, just written), or it is
# an earlier try of this very Airflow task instance (Airflow runs one try of a task instance at a time). A stale
# "old" folder is put back when the instance is missing (a run died between its two renames); a live run's never is.

STAGING_KIND = "staging"
OLD_KIND = "old"
LEASE_KIND = "lease"
DEFAULT_LEASE_SECONDS = 600.0
_SIBLING = re.compile(r"\.(?P<name>.+)\.falcon-(?P<kind>staging|old|lease)-(?P<token>[A-Za-z0-9_-]+)")
_TASK_VARIABLES = ("AIRFLOW_CTX_DAG_ID", "AIRFLOW_CTX_DAG_RUN_ID", "AIRFLOW_CTX_TASK_ID")


@dataclass(frozen=True)
class RunOwner:
    """Who owns a run's staging: its token, how long its lease lasts, and (when Airflow started it) its task try."""

    token: str
    lease_seconds: float = DEFAULT_LEASE_SECONDS
    task: str | None = None
    """``dag_id/run_id/task_id`` of the Airflow task instance whose try runs the job."""
    try_number: int | None = None
    host: str = ""
    pid: int = 0

    @classmethod
    def current(cls, lease_seconds: float = DEFAULT_LEASE_SECONDS,
                environ: dict[str, str] | None = None) -> RunOwner:
        """This run: a new random token; the task try from the variables Airflow sets for a task's processes."""
        env = dict(os.environ) if environ is None else environ
        parts = [env.get(variable, "") for variable in _TASK_VARIABLES]
        task = "/".join(parts) if all(parts) else None
        number = env.get("AIRFLOW_CTX_TRY_NUMBER", "")
        return cls(uuid.uuid4().hex, float(lease_seconds), task,
                   int(number) if task is not None and number.isdigit() else None, socket.gethostname(), os.getpid())

    def to_text(self) -> str:
        return json.dumps({"token": self.token, "lease_seconds": self.lease_seconds, "task": self.task,
                           "try_number": self.try_number, "host": self.host, "pid": self.pid})

    @classmethod
    def from_text(cls, text: str) -> RunOwner | None:
        """A lease file's owner; ``None`` when it does not read (a lease being rewritten at that moment)."""
        try:
            data = json.loads(text)
            return cls(str(data["token"]), float(data["lease_seconds"]), data.get("task"), data.get("try_number"),
                       str(data.get("host", "")), int(data.get("pid", 0)))
        except (ValueError, KeyError, TypeError):
            return None

    def supersedes(self, other: RunOwner) -> bool:
        """Whether ``other`` is an earlier try of this run's Airflow task instance."""
        return (self.task is not None and other.task == self.task and self.try_number is not None
                and isinstance(other.try_number, int) and other.try_number < self.try_number)


def sibling_name(name: str, kind: str, token: str) -> str:
    """The name of a run's ``staging``/``old``/``lease`` sibling of the folder ``name``."""
    return f".{name}.falcon-{kind}-{token}"


def parse_sibling(name: str, child: str) -> tuple[str, str] | None:
    """(kind, token) when ``child`` is a run's sibling of the folder ``name``, else ``None``."""
    match = _SIBLING.fullmatch(child)
    if match is None or match["name"] != name:
        return None
    return match["kind"], match["token"]


@dataclass(frozen=True)
class Cleanup:
    """What a run may remove beside its folder: the siblings of runs that are over (their lease last), the stale
    "old" folder to put back first (the instance is missing), and the tokens of live runs left alone."""

    restore: str | None
    remove: tuple[str, ...]
    live: tuple[str, ...]


def plan_cleanup(name: str, me: RunOwner, children: Sequence[Entry], owners: dict[str, RunOwner | None],
                 now: int, target_exists: bool) -> Cleanup:
    """Decide which siblings of the folder ``name`` belong to no live run. ``children``: the listing of its parent;
    ``owners``: the lease content per token (``None``: unreadable); ``now``: the file system's time in
    milliseconds (the modification time of this run's own lease, just written)."""
    siblings: dict[str, dict[str, Entry]] = {}
    for entry in children:
        parsed = parse_sibling(name, name_of(entry.path))
        if parsed is not None and parsed[1] != me.token:
            siblings.setdefault(parsed[1], {})[parsed[0]] = entry
    stale: list[str] = []
    live: list[str] = []
    for token, kinds in sorted(siblings.items()):
        lease = kinds.get(LEASE_KIND)
        owner = owners.get(token)
        if lease is None or (owner is not None and me.supersedes(owner)):
            stale.append(token)
            continue
        seconds = owner.lease_seconds if owner is not None else DEFAULT_LEASE_SECONDS
        (stale if now - lease.mtime > seconds * 1000 else live).append(token)
    olds = sorted((siblings[token][OLD_KIND] for token in stale if OLD_KIND in siblings[token]),
                  key=lambda entry: entry.mtime)
    restore = olds[-1].path if olds and not target_exists else None
    remove = [siblings[token][kind].path for token in stale for kind in (STAGING_KIND, OLD_KIND)
              if kind in siblings[token] and siblings[token][kind].path != restore]
    remove += [siblings[token][LEASE_KIND].path for token in stale if LEASE_KIND in siblings[token]]
    return Cleanup(restore, tuple(remove), tuple(live))


class RunStaging:
    """One run's staging folder for one published folder (``target``), its lease, and the swap.

    Use as a context manager: entering writes the lease and starts rewriting it (a daemon thread); leaving stops
    that and removes this run's staging folder and lease. :meth:`recover` clears what runs that are over left
    beside the target; :meth:`publish` swaps the verified staging folder in without ever nesting it in a target
    that appeared meanwhile.
    """

    def __init__(self, fs: HadoopFs, target: str, owner: RunOwner) -> None:
        self.fs = fs
        self.target = target.rstrip("/")
        self.owner = owner
        parent, name = parent_of(self.target), name_of(self.target)
        self.parent, self.name = parent, name
        self.staging = f"{parent.rstrip('/')}/{sibling_name(name, STAGING_KIND, owner.token)}"
        self.old = f"{parent.rstrip('/')}/{sibling_name(name, OLD_KIND, owner.token)}"
        self.lease = f"{parent.rstrip('/')}/{sibling_name(name, LEASE_KIND, owner.token)}"
        self._stop = threading.Event()
        self._beat: threading.Thread | None = None
        self._renewed = 0.0

    def __enter__(self) -> RunStaging:
        self.fs.mkdirs(self.parent)
        self.fs.write_text(self.lease, self.owner.to_text())
        self._renewed = time.monotonic()
        self._beat = threading.Thread(target=self._renew, name="falcon-staging-lease", daemon=True)
        self._beat.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._beat is not None:
            self._beat.join(timeout=30)
        with suppress(Exception):  # best effort: what stays is a sibling without a live lease, removed later
            if self.fs.exists(self.staging):
                self.fs.delete(self.staging, True)
            self.fs.delete(self.lease, False)

    def _renew(self) -> None:
        interval = max(0.05, self.owner.lease_seconds / 4)
        while not self._stop.wait(interval):
            try:
                self.fs.write_text(self.lease, self.owner.to_text())
                self._renewed = time.monotonic()
            except Exception:  # the next beat tries again; publish refuses once the lease has lapsed
                continue

    def recover(self) -> dict[str, int]:
        """Remove the siblings of runs that are over, putting back the instance a run left aside; leave every live
        run's alone. Counts of what was done, for the report."""
        status = self.fs.status(self.lease)
        if status is None:
            raise JobError(f"this run's lease {self.lease} vanished: another run removed it")
        children = self.fs.list_dir(self.parent)
        owners: dict[str, RunOwner | None] = {}
        for entry in children:
            parsed = parse_sibling(self.name, name_of(entry.path))
            if parsed is not None and parsed[0] == LEASE_KIND and parsed[1] != self.owner.token:
                owners[parsed[1]] = RunOwner.from_text(self.fs.read_text(entry.path))
        plan = plan_cleanup(self.name, self.owner, children, owners, status.mtime, self.fs.exists(self.target))
        counts = {"staging_removed": 0, "old_removed": 0, "old_restored": 0, "left_to_live_runs": len(plan.live)}
        revived: dict[str, bool] = {}

        def over(path: str) -> tuple[str, bool]:
            kind, token = parse_sibling(self.name, name_of(path)) or ("", "")
            if token not in revived:
                revived[token] = self._lease_revived(token, status.mtime)
            return kind, not revived[token]

        if plan.restore is not None and over(plan.restore)[1]:
            if not self.fs.rename_new(plan.restore, self.target):
                raise JobError(f"cannot put back {plan.restore} as {self.target}")
            counts["old_restored"] = 1
        for path in plan.remove:
            kind, removable = over(path)
            if removable and self.fs.delete(path, True) and kind != LEASE_KIND:
                counts["staging_removed" if kind == STAGING_KIND else "old_removed"] += 1
        return counts

    def _lease_revived(self, token: str, now: int) -> bool:
        """A second look just before removing: a lease written since the listing means a live run after all."""
        lease = self.fs.status(f"{self.parent.rstrip('/')}/{sibling_name(self.name, LEASE_KIND, token)}")
        if lease is None:
            return False
        owner = RunOwner.from_text(self.fs.read_text(lease.path))
        if owner is not None and self.owner.supersedes(owner):
            return False
        seconds = owner.lease_seconds if owner is not None else DEFAULT_LEASE_SECONDS
        return now - lease.mtime <= seconds * 1000

    def publish(self, expected: tuple[int, int] | None = None) -> None:
        """Swap the staging folder in: the current version aside (renamed to this run's ``old``), the staging
        folder renamed to the target - a rename that refuses an existing target, never one that nests into it -,
        the result checked against ``expected`` (files, bytes), then the old version deleted. A target that
        appeared meanwhile (another run published first) fails the run with nothing of it published; the caller
        writes the availability flag only after this returns."""
        if time.monotonic() - self._renewed > self.owner.lease_seconds:
            raise JobError(f"this run's lease {self.lease} lapsed (not renewed for {self.owner.lease_seconds:g} s): "
                           "another run may have removed its staging folder; nothing was published")
        fs = self.fs
        moved = False
        if fs.exists(self.target):
            if not fs.rename_new(self.target, self.old):
                raise JobError(f"cannot move the current {self.target} aside")
            moved = True
        try:
            published = fs.rename_new(self.staging, self.target)
        except BaseException:
            if moved and not fs.exists(self.target):
                fs.rename_new(self.old, self.target)
            raise
        if not published:
            if moved and not fs.rename_new(self.old, self.target):
                fs.delete(self.old, True)  # another run's complete version is in place of the one set aside
            raise JobError(f"{self.target} appeared while this run was publishing it (another run of the instance "
                           "published first); nothing of this run was published")
        if expected is not None:
            found = fs.content_summary(self.target)
            if found != expected:
                raise JobError(f"{self.target} holds {found[0]} files, {found[1]} bytes after publishing, not the "
                               f"{expected[0]} files, {expected[1]} bytes staged: another run changed it meanwhile")
        if moved:
            fs.delete(self.old, True)
