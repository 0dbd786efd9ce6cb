"""Hadoop ``FileSystem`` access through the Spark JVM: :class:`HadoopFs` does every data-path operation through
the Hadoop ``FileSystem`` API of the Spark driver (so ``file://``, ``hdfs://`` and ``s3a://`` behave alike)
and reads directory listings in bulk, because each py4j call costs tens of microseconds.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ElementTree
from collections.abc import Sequence
from contextlib import suppress
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from falcon_airflow.jobs.frame import JobError, java_exception_class
from falcon_airflow.jobs.uris import Uri, checked_path, name_of, parent_of, split_uri

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


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
