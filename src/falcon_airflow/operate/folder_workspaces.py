"""The entities folder's workspace, read once per process and content of the folder.

Every request of the server opens the store anew; reading and parsing a folder of 10,000 definitions takes
seconds, and nothing in it changed since the last request most of the time. A workspace is kept under the folder's
files as they are now - each file's path, inode, size and modification time - so a file written, replaced (the
store writes by renaming a new file into place: a new inode), added or removed makes another one, read anew.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

from falcon_airflow.workspace import Workspace

Stamps = tuple[tuple[str, int, int, int], ...]

_kept: dict[tuple[str, Stamps], Workspace] = {}
_lock = threading.Lock()
FOLDERS_KEPT = 4


def stamps(root: Path) -> Stamps:
    """Each definition file under the folder (``*.xml``, as the workspace collects them; links to folders followed
    too, so nothing the workspace reads is left out), as the folder holds it now. ``os.scandir`` directly: a folder
    of 10,000 files is stamped in tens of milliseconds."""
    found: list[tuple[str, int, int, int]] = []
    pending = [os.fspath(root)]
    while pending:
        folder = pending.pop()
        try:
            with os.scandir(folder) as listing:
                entries = list(listing)
        except OSError:
            continue
        for entry in entries:
            if entry.name.startswith("."):
                continue
            try:
                if entry.is_dir():
                    pending.append(entry.path)
                elif entry.name.endswith(".xml"):
                    status = entry.stat()
                    found.append((entry.path, status.st_ino, status.st_size, status.st_mtime_ns))
            except OSError:
                continue  # removed meanwhile: the workspace read next says so
    return tuple(sorted(found))


def folder_workspace(root: Path) -> Workspace:
    """The workspace of the definition files under ``root`` (read again when any of them changed)."""
    if not root.is_dir():
        return Workspace.of([])
    key = (str(root), stamps(root))  # taken before the read: a change during the read makes the next key differ
    with _lock:
        known = _kept.get(key)
    if known is not None:
        return known
    made = Workspace.load([str(root)])
    with _lock:
        while len(_kept) >= FOLDERS_KEPT:
            _kept.pop(next(iter(_kept)))
        _kept[key] = made
    return made
