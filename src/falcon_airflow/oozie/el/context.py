"""What an Oozie EL expression can see: a plain object the runtime fills before it evaluates.

:class:`WorkflowContext` holds the workflow job (id, name, app path, user, group, run, configuration), the
results of the actions that ran so far (:class:`ActionResult`, by node name), the last node that failed and the
file system ``fs:`` functions look at (any object with the five methods of :class:`OozieFileSystem`;
:class:`LocalFileSystem` serves plain and ``file://`` paths).
"""

from __future__ import annotations

import glob
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Protocol
from urllib.parse import urlparse


class OozieFileSystem(Protocol):
    """The file system behind ``fs:exists``, ``fs:isDir``, ``fs:dirSize``, ``fs:fileSize``, ``fs:blockSize``.

    Paths are given as written in the workflow (``hdfs://nn/a/b``, ``/a/b``, ``file:///a/b``). Sizes follow
    Oozie: ``-1`` when the path is missing (or, for ``dir_size``, not a folder; for ``file_size`` and
    ``block_size`` a folder has its own length, usually 0). ``exists`` accepts glob patterns (``/data/*/_SUCCESS``).
    """

    def exists(self, path: str) -> bool: ...

    def is_dir(self, path: str) -> bool: ...

    def dir_size(self, path: str) -> int: ...

    def file_size(self, path: str) -> int: ...

    def block_size(self, path: str) -> int: ...


class LocalFileSystem:
    """:class:`OozieFileSystem` on this machine's disk, for plain paths and ``file://`` URIs."""

    # Hadoop's local file system reports 32 MiB blocks (fs.local.block.size)
    BLOCK_SIZE = 32 * 1024 * 1024

    @staticmethod
    def local_path(path: str) -> str:
        parsed = urlparse(path)
        if parsed.scheme in ("", "file"):
            return parsed.path if parsed.scheme else path
        raise ValueError(f"'{path}' is not on the local file system (scheme '{parsed.scheme}')")

    def exists(self, path: str) -> bool:
        local = self.local_path(path)
        if glob.has_magic(local):
            return bool(glob.glob(local))
        return os.path.lexists(local)

    def is_dir(self, path: str) -> bool:
        return os.path.isdir(self.local_path(path))

    def dir_size(self, path: str) -> int:
        local = self.local_path(path)
        if not os.path.isdir(local):
            return -1
        with os.scandir(local) as entries:
            return sum(entry.stat().st_size for entry in entries if entry.is_file())

    def file_size(self, path: str) -> int:
        local = self.local_path(path)
        if not os.path.exists(local):
            return -1
        return 0 if os.path.isdir(local) else os.path.getsize(local)

    def block_size(self, path: str) -> int:
        local = self.local_path(path)
        if not os.path.exists(local):
            return -1
        return 0 if os.path.isdir(local) else self.BLOCK_SIZE


@dataclass(frozen=True)
class ActionResult:
    """What a finished (or failed) action left for the nodes after it.

    ``transition`` is the node it went to (``wf:transition``); ``data`` the properties its ``<capture-output/>``
    printed (``wf:actionData``); ``error_code``/``error_message`` why it failed.
    """

    transition: str | None = None
    external_id: str | None = None
    tracker_uri: str | None = None
    external_status: str | None = None
    error_code: str | None = None
    error_message: str | None = None
    data: Mapping[str, str] = field(default_factory=dict)


def _utc_now() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True)
class WorkflowContext:
    """The workflow job an expression is evaluated in.

    ``conf`` is the job configuration (``wf:conf``); its entries are also the variables an expression may name
    directly (``${nameNode}``), together with ``variables`` (which win). ``fs`` is needed only by ``fs:``
    functions; ``clock`` gives ``timestamp()`` its time.
    """

    id: str = ""
    name: str = ""
    app_path: str = ""
    user: str = ""
    group: str = ""
    run: int = 0
    conf: Mapping[str, str] = field(default_factory=dict)
    variables: Mapping[str, object] = field(default_factory=dict)
    actions: Mapping[str, ActionResult] = field(default_factory=dict)
    last_error_node: str | None = None
    fs: OozieFileSystem | None = None
    clock: Callable[[], datetime] = _utc_now

    def action(self, name: str) -> ActionResult:
        return self.actions.get(name, _NO_RESULT)


_NO_RESULT = ActionResult()
