"""Small file-system operations the Airflow side needs between Spark jobs: does an instance exist, clear an
output instance before a (re)run, write an availability flag, measure an input for late data.

``file://`` URIs and plain paths use the local file system; ``hdfs://`` goes through the namenode's WebHDFS
(:mod:`falcon_airflow.instances.webhdfs`), a table feed's partition marker ``thrift://…`` asks the metastore
(:mod:`falcon_airflow.instances.metastore`), ``s3a://`` (``s3://``, ``s3n://``) goes through s3fs configured by the
cluster's S3A settings (:mod:`falcon_airflow.instances.s3`: ``settings`` below, which a feed's binding carries);
other schemes go through fsspec when a driver for them is installed, else raise :class:`StorageError` saying what to
install. Bulk work
(retention, replication) never happens here: it runs as Spark jobs on the Hadoop FileSystem API.

Anything that deletes proves first that the path is an instance of the feed: it must be exactly what the feed's
location template gives for the instance, and, read as storage reads it (percent-decoded, ``//`` and ``/./``
collapsed, see :func:`falcon_airflow.core.paths.read_path`), lie strictly under the template's base folder with no
``..`` and no second reading; no folder between the base and the instance, nor the instance itself, may be a
symbolic link (checked on the way down, one component at a time, and on the local file system through
``O_NOFOLLOW`` directory handles so a link swapped in meanwhile is refused too). What is deleted is that
normalised path, never the raw text.
"""

from __future__ import annotations

import contextlib
import errno
import glob as globbing
import os
import shutil
import stat
from collections.abc import Callable, Mapping
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote, urlsplit

from falcon_airflow.core.locations import is_table
from falcon_airflow.core.paths import Template, read_path
from falcon_airflow.core.tables import PARTITION_MARKER_SCHEME
from falcon_airflow.errors import FalconAirflowError
from falcon_airflow.instances.s3 import S3_SCHEMES, s3_filesystem

Settings = Mapping[str, str] | None
"""The client settings of the location's cluster (Hadoop names, e.g. ``fs.s3a.endpoint``), or none."""


class StorageError(FalconAirflowError):
    """A location that cannot be reached, or an operation refused to protect data."""


def local_path(location: str) -> Path | None:
    """The local path of a ``file:`` URI or a plain path; ``None`` for other schemes."""
    parts = urlsplit(location)
    if parts.scheme in ("", "file"):
        return Path(unquote(parts.path if parts.scheme else location))
    return None


def remote_location(location: str, settings: Settings = None) -> tuple[Any, str]:
    parts = urlsplit(location)
    if parts.scheme == "hdfs":  # no Hadoop client here: the namenode's WebHDFS (see instances.webhdfs)
        return _webhdfs(parts.netloc), unquote(parts.path) or "/"
    if parts.scheme in S3_SCHEMES:
        if not parts.netloc:
            raise StorageError(f"cannot reach {location}: it names no bucket")
        return s3_filesystem(settings, parts.netloc), f"{parts.netloc}{unquote(parts.path)}".rstrip("/")
    try:
        from fsspec.core import url_to_fs
    except ImportError:  # pragma: no cover - fsspec comes with Airflow
        raise StorageError(f"cannot reach {location}: fsspec is not installed") from None
    try:
        return url_to_fs(location)  # type: ignore[no-any-return]
    except (ImportError, ValueError) as problem:
        scheme = urlsplit(location).scheme
        raise StorageError(f"cannot reach {location}: no file-system driver for '{scheme}://' is installed "
                           f"({problem}); install the fsspec driver for it (e.g. s3fs, pyarrow for hdfs)") from None


def _webhdfs(authority: str) -> Any:
    from fsspec import filesystem

    from falcon_airflow.instances.kerberos import kerberized, service_login, spnego_auth
    from falcon_airflow.instances.webhdfs import hadoop_settings, http_address, webhdfs_user

    settings = hadoop_settings()
    host, port = http_address(authority, settings)
    if not kerberized(settings):
        return filesystem("webhdfs", host=host, port=port, user=webhdfs_user())
    # A Kerberized namenode refuses user.name=...: the Airflow service principal authenticates with SPNEGO and
    # acts as itself, or for the entity's user of the task (acting_for) else HADOOP_PROXY_USER, as Hadoop's own
    # clients do (doas=; the namenode allows that only to a principal its hadoop.proxyuser.* settings name).
    auth = spnego_auth(service_login(), host)
    from falcon_airflow.instances.acting_user import acting_user

    webhdfs = filesystem("webhdfs", host=host, port=port, proxy_to=acting_user())
    webhdfs.session.auth = auth
    return webhdfs


def remote_exists(fs: Any, remote: str, location: str) -> bool:
    """Whether a remote path exists. fsspec's ``exists`` answers False to every error; here only "not found" is
    False, and a storage that cannot answer (refused connection, denied access, a server error) is a
    :class:`StorageError`: a sensor's wait fails saying so (and is tried again as the task's retries say) instead
    of waiting until its timeout for an instance it cannot see, and an output is never taken for cleared."""
    try:
        fs.info(remote)
    except FileNotFoundError:
        return False
    except Exception as problem:  # connection refused, HTTP 403/500 ...: whatever the driver raises
        raise _unanswered(problem, location) from None
    return True


def _unanswered(problem: Exception, location: str) -> StorageError:
    """A storage that could not say whether ``location`` exists, naming the address tried."""
    where, parts = "", urlsplit(location)
    if parts.scheme == "hdfs":
        from falcon_airflow.instances.webhdfs import describe_address

        where = f" through {describe_address(parts.netloc)}"
    reason = str(problem).splitlines()[0][:300] if str(problem) else type(problem).__name__
    return StorageError(f"cannot tell whether {location} exists{where}: {reason}")


def exists(location: str, settings: Settings = None) -> bool:
    """Whether a folder, a file or (``thrift://…``, a table feed's marker) a partition in a metastore exists."""
    if location.startswith(f"{PARTITION_MARKER_SCHEME}://"):
        from falcon_airflow.instances.metastore import partition_exists

        return partition_exists(location)
    if is_table(location):
        raise StorageError(f"cannot check {location}: the table feed's cluster has no registry interface naming its "
                           "metastore (thrift://host:port)")
    path = local_path(location)
    if path is not None:
        return path.exists()
    fs, remote = remote_location(location, settings)
    return remote_exists(fs, remote, location)


def exists_by_bucket(settings_by_bucket: Mapping[str, Mapping[str, str]]) -> Callable[[str], bool]:
    """``exists`` for locations on several storages: an S3 location is asked with the client settings its bucket
    is known by (an endpoint, a region ...), any other storage as it is."""

    def check(location: str) -> bool:
        parts = urlsplit(location)
        return exists(location, settings_by_bucket.get(parts.netloc) if parts.scheme in S3_SCHEMES else None)

    return check


def _storage_parts(uri: str) -> tuple[str, str, str]:
    """(scheme, authority, path) as the storage functions split a location: a plain path is all path."""
    parts = urlsplit(uri)
    if not parts.scheme:
        return "", "", uri
    if parts.query or parts.fragment or uri.endswith(("?", "#")):
        raise StorageError(f"refusing to touch {uri}: a '?' or '#' in it ends the path that storage reads")
    return parts.scheme, parts.netloc, parts.path


def _checked_instance_path(location: str, template: str, instance: datetime, zone: Any) -> tuple[str, ...]:
    """The components of ``location`` as storage reads it, after proving it is ``template`` resolved at
    ``instance`` and lies strictly below the template's base folder, read the same way; the base's are the first
    ones (see :func:`_base_depth`)."""
    expected = Template(template)
    if not expected.is_dated:
        raise StorageError(f"refusing to touch {location}: the feed location '{template}' has no date variable, "
                           "so it is not an instance")
    if expected.resolve(instance, zone) != location:
        raise StorageError(f"refusing to touch {location}: it is not the instance path of '{template}'")
    _, _, path = _storage_parts(location)
    _, _, base = _storage_parts(expected.base_folder)
    path_reading, base_reading = read_path(path), read_path(base)
    for text, reading in ((location, path_reading), (expected.base_folder, base_reading)):
        if reading.problem is not None:
            raise StorageError(f"refusing to touch {location}: '{text}' {reading.problem}")
    components, fixed = path_reading.components, base_reading.components
    if not fixed:  # rule FA010 refuses such a location; an instance is never a folder of the root
        raise StorageError(f"refusing to touch {location}: the feed's folder is the file system's root")
    if len(components) <= len(fixed) or components[:len(fixed)] != fixed:
        raise StorageError(f"refusing to touch {location}: read as storage reads it ({path_reading.path}), it is "
                           f"not below the feed's folder {base_reading.path}")
    return components


def _base_depth(template: str) -> int:
    return len(read_path(_storage_parts(Template(template).base_folder)[2]).components)


def _symlink_refusal(location: str, shown: str) -> StorageError:
    return StorageError(f"refusing to remove {location}: {shown} is a symbolic link (it may lead to another feed's "
                        "data); nothing was removed")


def _clear_local(location: str, components: tuple[str, ...], depth: int) -> bool:
    """Walk down from the feed's base folder with ``O_NOFOLLOW`` handles, refuse a link at any level, and remove the
    instance through its parent's handle (``rmtree`` with ``dir_fd`` does not follow links inside it either)."""
    base = "/" + "/".join(components[:depth])
    try:
        handle = os.open(base, os.O_RDONLY | os.O_DIRECTORY)
    except FileNotFoundError:
        return False
    handles = [handle]
    try:
        for level in range(depth, len(components)):
            name, shown = components[level], "/" + "/".join(components[:level + 1])
            try:
                status = os.lstat(name, dir_fd=handles[-1])
            except FileNotFoundError:
                return False
            if stat.S_ISLNK(status.st_mode):
                raise _symlink_refusal(location, shown)
            if level == len(components) - 1:
                if stat.S_ISDIR(status.st_mode):
                    shutil.rmtree(name, dir_fd=handles[-1])
                else:
                    os.unlink(name, dir_fd=handles[-1])
                return True
            try:
                handles.append(os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=handles[-1]))
            except OSError as problem:
                if problem.errno in (errno.ELOOP, errno.ENOTDIR):  # a link swapped in since lstat, or a file
                    raise _symlink_refusal(location, shown) if problem.errno == errno.ELOOP else StorageError(
                        f"refusing to remove {location}: {shown} is not a folder") from None
                if problem.errno == errno.ENOENT:
                    return False
                raise
        return False
    finally:
        for opened in handles:
            with contextlib.suppress(OSError):
                os.close(opened)


def _remote_fs(scheme: str, authority: str, path: str, settings: Settings) -> tuple[Any, str]:
    """The file system and its path for a normalised remote path (quoted again: ``remote_location`` decodes)."""
    if scheme == "hdfs":
        return _webhdfs(authority), path
    return remote_location(f"{scheme}://{authority}{quote(path)}", settings)


def _entries(fs: Any, folder: str, uri: str) -> list[dict[str, Any]]:
    try:
        return list(fs.ls(folder, detail=True))
    except FileNotFoundError:
        return []
    except Exception as problem:  # whatever the driver raises: the storage did not answer
        raise _unanswered(problem, uri) from None


def _clear_remote(location: str, scheme: str, authority: str, components: tuple[str, ...], depth: int,
                  settings: Settings) -> bool:
    """Each level below the feed's base is looked up in its parent's listing, where links are listed as links
    (WebHDFS's ``GETFILESTATUS`` follows a link; ``LISTSTATUS`` does not)."""
    for level in range(depth, len(components)):
        parent = "/" + "/".join(components[:level])
        shown = f"{scheme}://{authority}/" + "/".join(components[:level + 1])
        fs, remote = _remote_fs(scheme, authority, parent, settings)
        name = components[level]
        entry = next((item for item in _entries(fs, remote, shown)
                      if str(item.get("name", "")).rstrip("/").rsplit("/", 1)[-1] == name), None)
        if entry is None:
            return False
        if str(entry.get("type", "")).lower() == "symlink" or entry.get("islink"):
            raise _symlink_refusal(location, shown)
    fs, remote = _remote_fs(scheme, authority, "/" + "/".join(components), settings)
    fs.rm(remote, recursive=True)
    return True


def clear_instance(location: str, template: str, instance: datetime, zone: Any, settings: Settings = None) -> bool:
    """Remove an output instance folder before its workflow runs (Falcon's prepare-delete), so a rerun does not
    mix old and new files. Returns whether something was removed; refuses (:class:`StorageError`, nothing removed)
    a path that is not provably the instance, or that passes through a symbolic link below the feed's folder."""
    components = _checked_instance_path(location, template, instance, zone)
    depth = _base_depth(template)
    scheme, authority, _ = _storage_parts(location)
    if scheme in ("", "file"):
        return _clear_local(location, components, depth)
    return _clear_remote(location, scheme, authority, components, depth, settings)


def write_flag(folder: str, flag: str, settings: Settings = None) -> str:
    """Create the availability flag file in an instance folder (the folder must exist: it holds the data)."""
    target = f"{folder.rstrip('/')}/{flag}"
    path = local_path(target)
    if path is not None:
        if not path.parent.is_dir():
            raise StorageError(f"cannot mark {folder} available: the folder does not exist (the job wrote nothing)")
        path.touch()
        return target
    fs, remote = remote_location(target, settings)
    folder_fs, folder_remote = remote_location(folder, settings)
    if not remote_exists(folder_fs, folder_remote, folder):  # on S3: no object under the instance's prefix
        raise StorageError(f"cannot mark {folder} available: the folder does not exist (the job wrote nothing)")
    fs.touch(remote)
    return target


def total_bytes(pattern: str, settings: Settings = None) -> int:
    """Falcon's late-data metric: the size of every file under every match of ``pattern`` (globs allowed)."""
    path = local_path(pattern)
    if path is not None:
        size = 0
        for match in globbing.glob(str(path)):
            if os.path.isfile(match):
                size += os.path.getsize(match)
            for root, _, files in os.walk(match):
                size += sum(os.path.getsize(os.path.join(root, name)) for name in files
                            if not os.path.islink(os.path.join(root, name)))
        return size
    fs, remote = remote_location(pattern, settings)
    return sum(int(fs.du(match)) for match in fs.glob(remote))


def report_file(dag_id: str, run_id: str, task_id: str) -> Path:
    """Where a job run by a task writes its JSON report: ``$AIRFLOW_HOME/falcon/reports/<dag>/<run>/<task>.json``."""
    home = Path(os.environ.get("AIRFLOW_HOME", str(Path.home() / "airflow")))
    safe = [part.replace("/", "_").replace(":", "-") for part in (dag_id, run_id, task_id)]
    folder = home / "falcon" / "reports" / safe[0] / safe[1]
    folder.mkdir(parents=True, exist_ok=True)
    return folder / f"{safe[2]}.json"


def lineage_file(dag_id: str, run_id: str, task_id: str) -> Path:
    """Where the lineage driver of a task writes its OpenLineage events (JSON lines), beside the task's report:
    ``$AIRFLOW_HOME/falcon/reports/<dag>/<run>/<task>.lineage.jsonl``."""
    report = report_file(dag_id, run_id, task_id)
    return report.with_name(f"{report.stem}.lineage.jsonl")
