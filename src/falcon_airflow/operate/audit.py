"""The audit trail: JSON lines kept by the store (``audit.log`` in its state folder, or the ``falcon_audit`` table),
written before a command acts.

A command that may run leaves two lines sharing one ``id``: an attempt (``result`` ``STARTED``) written before it
changes anything - when that line cannot be written the command is refused, so nothing happens that the trail does
not show - and its result after it (``SUCCEEDED``, ``PARTIAL``, ``FAILED``, ``REFUSED`` with the reason). A command
refused by the authorization check (``DENIED``) changes nothing and leaves its result line alone. Each line says
when, who (the Airflow user the command authenticated as, and the ``-doAs`` user) and what (command, action, entity
or instances). :func:`commands` pairs the lines again: one entry per command, ``STARTED`` for one that never
recorded its end (killed half-way).

The trail is only ever appended to (the folder's file with ``O_APPEND``, so concurrent commands never interleave a
line, and readable by its owner only; the table by inserts). Lines never carry a secret: the recorded values are names,
options and messages, and a message that quotes a secret is masked before it is written.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from falcon_airflow.core.times import format_timestamp

MASK = "********"
STARTED = "STARTED"
"""The result of an attempt line: the command was allowed and is about to act."""


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
            "time": format_timestamp(self.time),
            "user": self.user, "doAs": self.do_as, "command": self.command, "action": self.action,
            **self.target, "result": self.result}
        if self.reason:
            document["reason"] = self.reason
        if self.id:
            document["id"] = self.id
        return document


class AuditTrail(Protocol):
    """Where the lines go: the store (its state folder's ``audit.log``, or the ``falcon_audit`` table)."""

    def append_audit(self, line: str) -> None: ...
    def audit_lines(self) -> Iterator[str]: ...


def line(entry: Entry, secrets: Iterable[str | None] = ()) -> str:
    """The entry as it is written: one line of JSON, any secret it quotes masked."""
    return mask(json.dumps(entry.as_json(), sort_keys=True, default=str), secrets)


def append(trail: AuditTrail, entry: Entry, secrets: Iterable[str | None] = ()) -> None:
    """Append the entry's line; :class:`OSError` when the whole line was not written."""
    trail.append_audit(line(entry, secrets))


def _parse_time(value: object) -> datetime | None:
    try:
        return datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        return None


def read(trail: AuditTrail, *, start: datetime | None = None, end: datetime | None = None,
         user: str | None = None) -> Iterator[dict[str, Any]]:
    """The lines from ``start`` (inclusive) to ``end`` (exclusive) by ``user`` (as user or as -doAs), as written."""
    for text in trail.audit_lines():
        try:
            document = json.loads(text)
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


def commands(trail: AuditTrail, *, start: datetime | None = None, end: datetime | None = None,
             user: str | None = None) -> list[dict[str, Any]]:
    """One entry per command, in the order they started: its attempt line completed by its result line (``time``
    when it started, ``ended`` when its result was written, ``None`` when it never was: ``result`` stays
    ``STARTED``). ``start``, ``end`` and ``user`` select by when the command started and who ran it."""
    merged: dict[str, dict[str, Any]] = {}
    entries: list[dict[str, Any]] = []
    for document in read(trail):
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
