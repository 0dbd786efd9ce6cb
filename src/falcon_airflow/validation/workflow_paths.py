"""Where a process's workflow files are, seen from the machine that validates: the runtime's own order.

A relative path is looked for in the entities folder first (the folders given to validate, else the folders
above the process's file), then on the cluster's storage; only storage on the local file system can be looked at.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

from falcon_airflow.entities import Cluster, InterfaceType, Process
from falcon_airflow.validation.registry import RuleContext


def local_path(cluster: Cluster, path: str) -> Path | None:
    """Where a cluster path lies on this machine, when its storage is the local file system."""
    parts = urlsplit(path)
    if parts.scheme == "file":
        return Path(parts.path)
    if parts.scheme:
        return None
    write = cluster.interface(InterfaceType.WRITE)
    if write is None or urlsplit(write.endpoint.strip()).scheme != "file":
        return None
    base = urlsplit(write.endpoint.strip()).path or "/"
    return Path(base) / path.lstrip("/")


def in_entities_folder(context: RuleContext, process: Process, path: str) -> Path | None:
    """Where the runtime finds a workflow file before looking on the cluster: a relative path in the entities
    folder (the folders given to validate, else the folders above the process's file), an absolute path on this
    machine. ``None`` when it is in neither."""
    if "://" in path or not path.strip():
        return None
    if path.startswith("/"):
        return Path(path) if Path(path).exists() else None
    source = Path(process.source.file).resolve().parent
    for folder in (*context.entities_dirs, source, source.parent):
        candidate = folder / path
        if candidate.exists():
            return candidate
    return None
