"""Which local files an Oozie action may read or change on the Airflow worker: only those below its roots.

Oozie read an action's ``<file>``, ``<archive>``, ``<script>``, ``<jar>`` and e-mail attachments from HDFS, where
the workflow user's own rights decided. Here a local path (``file://`` or no scheme) is read on the Airflow worker,
whose OS user can read its own ``airflow.cfg`` and much else; a Hadoop proxy user does not change that. So a local
path is used only when it lies below one of the action's roots: the workflow application folders, the local
folders of the process's own feeds and cluster storage, and the folders the deployment lists in ``[falcon]
oozie_file_roots``. Remote paths (``hdfs://``, ``s3a://`` ...) are read by the job as its user, whose rights decide.

A path is judged as the file system reads it: percent-decoded (``file://`` URIs), with a ``..`` segment refused
outright (it has no business in an action's file), every component resolved (a symbolic link anywhere, leading out
of the roots, is refused), and, for the files the worker reads itself, opened one component at a time with
``O_NOFOLLOW`` from the root, so a link swapped in after the check is refused too.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterable, Sequence
from pathlib import PurePosixPath
from urllib.parse import unquote, urlsplit

ROOTS_SETTING = "oozie_file_roots"
"""``[falcon] oozie_file_roots``: comma-separated local folders every Oozie action may also read from and write to."""
MINIMUM_ROOT_DEPTH = 2
"""A root must be at least two folders deep: ``/`` or ``/tmp`` would let an action reach everything below them."""


class OutsideRoots(ValueError):
    """A local path an action may not use; the message says which and why."""


def local_path(uri: str) -> str | None:
    """The local path a ``file:`` URI or a plain path names (percent-decoded for URIs); ``None`` for another scheme
    (read by a job through its own file system and user)."""
    text = uri.strip()
    parts = urlsplit(text)
    if parts.scheme == "file":
        if parts.netloc not in ("", "localhost"):
            raise OutsideRoots(f"'{uri}' names a file on host '{parts.netloc}', not on this worker")
        return unquote(parts.path)
    if parts.scheme and len(parts.scheme) > 1:  # a Windows drive letter is no scheme, but there are none here
        return None
    return text


def has_parent_segment(path: str) -> bool:
    return ".." in PurePosixPath(path).parts


def usable_roots(roots: Iterable[str]) -> tuple[str, ...]:
    """The local roots as absolute, fully resolved folders; remote ones, relative ones and ones shallower than
    :data:`MINIMUM_ROOT_DEPTH` are left out."""
    found: list[str] = []
    for root in roots:
        try:
            path = local_path(root)
        except OutsideRoots:
            continue
        if not path or not path.startswith("/") or has_parent_segment(path):
            continue
        resolved = os.path.realpath(path)
        if len(PurePosixPath(resolved).parts) - 1 >= MINIMUM_ROOT_DEPTH and resolved not in found:
            found.append(resolved)
    return tuple(found)


def configured_roots(text: str | None) -> tuple[str, ...]:
    return tuple(item.strip() for item in (text or "").split(",") if item.strip())


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def checked_path(uri: str, roots: Sequence[str], what: str) -> str | None:
    """The local path ``uri`` names, resolved, when it lies below one of ``roots``; ``None`` for a remote URI.
    Raises :class:`OutsideRoots` for a ``..`` segment, a relative path, or a path (or a link in it) outside them."""
    path = local_path(uri)
    if path is None:
        return None
    if has_parent_segment(path):
        raise OutsideRoots(f"{what} '{uri}' has a '..' segment; an action's files are named without one")
    if not path.startswith("/"):
        raise OutsideRoots(f"{what} '{uri}' is not an absolute path")
    allowed = usable_roots(roots)
    resolved = os.path.realpath(path)
    if not any(_inside(resolved, root) for root in allowed):
        shown = f" (read as {resolved})" if resolved != os.path.normpath(path) else ""
        raise OutsideRoots(f"{what} '{uri}'{shown} is outside the folders an action may use on this worker: "
                           f"{', '.join(allowed) or 'none'} (the workflow application, the process's own "
                           f"storage, and [falcon] {ROOTS_SETTING})")
    return resolved


def open_below(uri: str, roots: Sequence[str], what: str) -> int:
    """A read-only descriptor of the regular file ``uri`` names, opened from the root it lies below one component
    at a time without following links; :class:`OutsideRoots` otherwise (``FileNotFoundError`` when missing)."""
    resolved = checked_path(uri, roots, what)
    if resolved is None:
        raise OutsideRoots(f"{what} '{uri}' is not a file on this worker")
    root = max((item for item in usable_roots(roots) if _inside(resolved, item)), key=len)
    relative = PurePosixPath(resolved).relative_to(root).parts
    handle = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for index, name in enumerate(relative):
            last = index == len(relative) - 1
            flags = os.O_RDONLY | os.O_NOFOLLOW | (0 if last else os.O_DIRECTORY)
            try:
                following = os.open(name, flags, dir_fd=handle)
            except OSError as problem:
                if problem.errno in (errno.ELOOP, errno.ENOTDIR):  # a link swapped in, or a file mid-path
                    raise OutsideRoots(f"{what} '{uri}': {name} became a symbolic link or a file") from None
                raise
            os.close(handle)
            handle = following
        if not stat.S_ISREG(os.fstat(handle).st_mode):
            raise OutsideRoots(f"{what} '{uri}' is not a regular file")
        result, handle = handle, -1
        return result
    finally:
        if handle >= 0:
            os.close(handle)
