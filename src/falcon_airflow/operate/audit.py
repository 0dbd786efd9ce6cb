"""The audit trail: JSON lines appended to ``audit.log`` in the store's state folder, written before a command acts.

A command that may run leaves two lines sharing one ``id``: an attempt (``result`` ``STARTED``) written before it
changes anything - when that line cannot be written the command is refused, so nothing happens that the trail does
not show - and its result after it (``SUCCEEDED``, ``PARTIAL``, ``FAILED``, ``REFUSED`` with the reason). A command
refused by the authorization check (``DENIED``) changes nothing and leaves its result line alone. Each line says
when, who (the Airflow user the command authenticated as, and the ``-doAs`` user) and what (command, action, entity
or instances). :func:`commands` pairs the lines again: one entry per command, ``STARTED`` for one that never
recorded its end (killed half-way).

The file is only ever appended to (``O_APPEND``: concurrent commands never interleave a line) and, like the state
folder that holds it, readable by its owner only. Lines never carry a secret: the recorded values are names,
options and messages, and a message that quotes a secret is masked before it is written.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

AUDIT_LOG = "audit.log"
MASK = "********"
STARTED = "STARTED"
"""The result of an attempt line: the command was allowed and is about to act."""


def protect(folder: Path) -> None:
    """Make the state folder its owner's alone (0700); files written there are created 0600."""
    folder.mkdir(parents=True, exist_ok=True)
    # Not ours (a shared mount): the files below stay 0600 anyway.
    with contextlib.suppress(OSError):
        os.chmod(folder, 0o700)


MIN_MASKED = 8
"""Shorter values (a sandbox's ``admin``/``admin``) are not masked: they would blank out ordinary words; the
guarantee is that no message quotes a secret, masking only backs it up."""


def mask(text: str, secrets: Iterable[str | None]) -> str:
    for secret in secrets:
        if secret and len(secret) >= MIN_MASKED:
            text = text.replace(secret, MASK)
    return text


@dataclass(frozen=True)
class Entry:
    time: datetime
    user: str
    do_as: str | None
    command: str
    action: str
    target: dict[str, Any]
    result: str
    reason: str | None = None
    id: str | None = None
    """One command's lines share it: its attempt and its result."""

    def as_json(self) -> dict[str, Any]:
        document: dict[str, Any] = {
            "time": self.time.astimezone(UTC).isoformat(timespec="seconds").replace("+00:00", "Z"),
            "user": self.user, "doAs": self.do_as, "command": self.command, "action": self.action,
            **self.target, "result": self.result}
        if self.reason:
            document["reason"] = self.reason
        if self.id:
            document["id"] = self.id
        return document


def append(folder: Path, entry: Entry, secrets: Iterable[str | None] = ()) -> None:
    """Append the entry's line; :class:`OSError` when the whole line did not reach the file."""
    protect(folder)
    data = (mask(json.dumps(entry.as_json(), sort_keys=True, default=str), secrets) + "\n").encode()
    descriptor = os.open(folder / AUDIT_LOG, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        # one write: O_APPEND places it whole at the end; a short write (a full disk) is a failure, not a line
        written = os.write(descriptor, data)
        if written != len(data):
            raise OSError(28, f"only {written} of {len(data)} bytes were written")
    finally:
        os.close(descriptor)


def _parse_time(value: object) -> datetime | None:
    try:
        return datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        return None


def read(folder: Path, *, start: datetime | None = None, end: datetime | None = None,
         user: str | None = None) -> Iterator[dict[str, Any]]:
    """The lines from ``start`` (inclusive) to ``end`` (exclusive) by ``user`` (as user or as -doAs), as written."""
    path = folder / AUDIT_LOG
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        return
    for line in lines:
        try:
            document = json.loads(line)
        except ValueError:
            continue  # a line cut by a crash
        if not isinstance(document, dict):
            continue
        if _selected(document, start, end, user):
            yield document


def _selected(document: dict[str, Any], start: datetime | None, end: datetime | None, user: str | None) -> bool:
    moment = _parse_time(document.get("time"))
    if moment is None or (start is not None and moment < start) or (end is not None and moment >= end):
        return False
    return user is None or user in (document.get("user"), document.get("doAs"))


def commands(folder: Path, *, start: datetime | None = None, end: datetime | None = None,
             user: str | None = None) -> list[dict[str, Any]]:
    """One entry per command, in the order they started: its attempt line completed by its result line (``time``
    when it started, ``ended`` when its result was written, ``None`` when it never was: ``result`` stays
    ``STARTED``). ``start``, ``end`` and ``user`` select by when the command started and who ran it."""
    merged: dict[str, dict[str, Any]] = {}
    entries: list[dict[str, Any]] = []
    for document in read(folder):
        key = document.get("id")
        first = merged.get(key) if isinstance(key, str) else None
        if first is None:
            entry = {**document, "ended": None if document.get("result") == STARTED else document.get("time")}
            entries.append(entry)
            if isinstance(key, str):
                merged[key] = entry
            continue
        first.update({name: value for name, value in document.items() if name not in ("time", "id")})
        first["ended"] = document.get("time")
    return [entry for entry in entries if _selected(entry, start, end, user)]
