"""Small file-system operations the Airflow side needs between Spark jobs: does an instance exist, clear an
output instance before a (re)run, write an availability flag, measure an input for late data.

``file://`` URIs and plain paths use the local file system; ``hdfs://`` goes through the namenode's WebHDFS
(:mod:`falcon_airflow.instances.webhdfs`), a table feed's partition marker ``thrift://…`` asks the metastore
(:mod:`falcon_airflow.instances.metastore`); other schemes (``s3a://`` ...) go through fsspec when a driver for them
is installed, else raise :class:`StorageError` saying what to install. Bulk work
(retention, replication) never happens here: it runs as Spark jobs on the Hadoop FileSystem API.

Anything that deletes proves first that the path is an instance of the feed: it must be exactly what the feed's
location template gives for the instance, under the template's base folder, with no ``..`` in it.
"""

from __future__ import annotations

import glob as globbing
import os
import shutil
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from falcon_airflow.core.locations import is_table
from falcon_airflow.core.paths import Template
from falcon_airflow.core.tables import PARTITION_MARKER_SCHEME
from falcon_airflow.errors import FalconAirflowError


class StorageError(FalconAirflowError):
    """A location that cannot be reached, or an operation refused to protect data."""


def local_path(location: str) -> Path | None:
    """The local path of a ``file:`` URI or a plain path; ``None`` for other schemes."""
    parts = urlsplit(location)
    if parts.scheme in ("", "file"):
        return Path(unquote(parts.path if parts.scheme else location))
    return None


def remote_location(location: str) -> tuple[Any, str]:
    parts = urlsplit(location)
    if parts.scheme == "hdfs":  # no Hadoop client here: the namenode's WebHDFS (see instances.webhdfs)
        return _webhdfs(parts.netloc), unquote(parts.path) or "/"
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

    from falcon_airflow.instances.webhdfs import http_address, webhdfs_user

    host, port = http_address(authority)
    return filesystem("webhdfs", host=host, port=port, user=webhdfs_user())


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
        where, parts = "", urlsplit(location)
        if parts.scheme == "hdfs":
            from falcon_airflow.instances.webhdfs import describe_address

            where = f" through {describe_address(parts.netloc)}"
        reason = str(problem).splitlines()[0][:300] if str(problem) else type(problem).__name__
        raise StorageError(f"cannot tell whether {location} exists{where}: {reason}") from None
    return True


def exists(location: str) -> bool:
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
    fs, remote = remote_location(location)
    return remote_exists(fs, remote, location)


def _checked_instance_path(location: str, template: str, instance: datetime, zone: Any) -> str:
    """``location`` after proving it is exactly ``template`` resolved at ``instance`` (and not its base)."""
    expected = Template(template)
    if not expected.is_dated:
        raise StorageError(f"refusing to touch {location}: the feed location '{template}' has no date variable, "
                           "so it is not an instance")
    if expected.resolve(instance, zone) != location:
        raise StorageError(f"refusing to touch {location}: it is not the instance path of '{template}'")
    if ".." in location.split("/"):
        raise StorageError(f"refusing to touch {location}: it contains '..'")
    return location


def clear_instance(location: str, template: str, instance: datetime, zone: Any) -> bool:
    """Remove an output instance folder before its workflow runs (Falcon's prepare-delete), so a rerun does not
    mix old and new files. Returns whether something was removed."""
    _checked_instance_path(location, template, instance, zone)
    path = local_path(location)
    if path is not None:
        if path.is_symlink():
            raise StorageError(f"refusing to remove {location}: it is a symbolic link")
        if not path.exists():
            return False
        if path.is_dir():
            shutil.rmtree(path)
        else:
            path.unlink()
        return True
    fs, remote = remote_location(location)
    if not remote_exists(fs, remote, location):
        return False
    fs.rm(remote, recursive=True)
    return True


def write_flag(folder: str, flag: str) -> str:
    """Create the availability flag file in an instance folder (the folder must exist: it holds the data)."""
    target = f"{folder.rstrip('/')}/{flag}"
    path = local_path(target)
    if path is not None:
        if not path.parent.is_dir():
            raise StorageError(f"cannot mark {folder} available: the folder does not exist (the job wrote nothing)")
        path.touch()
        return target
    fs, remote = remote_location(target)
    fs.touch(remote)
    return target


def total_bytes(pattern: str) -> int:
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
    fs, remote = remote_location(pattern)
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
