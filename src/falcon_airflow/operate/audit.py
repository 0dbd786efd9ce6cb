"""The audit trail: one JSON line per command, appended to ``audit.log`` in the store's state folder.

Each line says when, who (the Airflow user the command authenticated as, and the ``-doAs`` user), what (command,
action, entity or instances) and how it ended (``SUCCEEDED``, ``PARTIAL``, ``FAILED``, ``REFUSED`` with the reason).
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

    def as_json(self) -> dict[str, Any]:
        document: dict[str, Any] = {
            "time": self.time.astimezone(UTC).isoformat(timespec="seconds").replace("+00:00", "Z"),
            "user": self.user, "doAs": self.do_as, "command": self.command, "action": self.action,
            **self.target, "result": self.result}
        if self.reason:
            document["reason"] = self.reason
        return document


def append(folder: Path, entry: Entry, secrets: Iterable[str | None] = ()) -> None:
    protect(folder)
    line = mask(json.dumps(entry.as_json(), sort_keys=True, default=str), secrets) + "\n"
    descriptor = os.open(folder / AUDIT_LOG, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        os.write(descriptor, line.encode())
    finally:
        os.close(descriptor)


def _parse_time(value: object) -> datetime | None:
    try:
        return datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        return None


def read(folder: Path, *, start: datetime | None = None, end: datetime | None = None,
         user: str | None = None) -> Iterator[dict[str, Any]]:
    """The entries from ``start`` (inclusive) to ``end`` (exclusive) by ``user`` (as user or as -doAs)."""
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
        moment = _parse_time(document.get("time"))
        if moment is None or (start is not None and moment < start) or (end is not None and moment >= end):
            continue
        if user is not None and user not in (document.get("user"), document.get("doAs")):
            continue
        yield document
