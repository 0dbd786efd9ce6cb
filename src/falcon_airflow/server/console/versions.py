"""The console's versions of an entity: every version the configuration store keeps (who submitted it and when, who
retired it, when and why) and a line diff of any two of them, computed here.

``GET /console/api/versions/<type>/<name>`` lists the versions, oldest first, numbered from 1; the last is the one
in force. ``GET /console/api/versions/<type>/<name>/diff?from=N&to=M`` answers the diff of version N to version M
as rows (a hunk header, a context line, a removed or an added line, each with its line numbers); the page sets each
row's text as text. Both answer once ``entity -definition`` says the caller may read the entity (the same
authorization and audit as the REST API), and every version is shown without its secrets, as that action shows the
one in force.

The store in the database records each version's submitter and time with it. The entities folder's archive keeps a
description beside each retired version (who replaced or deleted it, when, why); a version's submission there is the
retirement of the version before it, which the folder records and nothing else does.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response

from falcon_airflow.core.times import format_timestamp
from falcon_airflow.entities import EntityType
from falcon_airflow.operate.config_store import ConfigStore
from falcon_airflow.operate.table_store import TableStore
from falcon_airflow.parsing.redaction import redact_definition
from falcon_airflow.server.configuration import ServerContext
from falcon_airflow.server.console.acting import failed, off_loop, run_action
from falcon_airflow.server.console.routes import PREFIX, ConsoleError

router = APIRouter(prefix=PREFIX)

CONTEXT_LINES = 3
"""Unchanged lines shown around each change of a diff."""


@dataclass(frozen=True)
class Version:
    """One version of an entity's definition, as the page lists it (``text`` without secrets)."""

    number: int
    text: str
    current: bool
    submitted_by: str = ""
    submitted_at: str = ""
    retired_by: str = ""
    retired_at: str = ""
    retired_because: str = ""

    def as_json(self) -> dict[str, Any]:
        return {"number": self.number, "current": self.current, "submittedBy": self.submitted_by,
                "submittedAt": self.submitted_at, "retiredBy": self.retired_by, "retiredAt": self.retired_at,
                "retiredBecause": self.retired_because, "lines": len(self.text.splitlines())}


DiffKind = Literal["hunk", "context", "removed", "added"]


@dataclass(frozen=True)
class DiffLine:
    """One row of a unified diff: ``old``/``new`` are the line's numbers in each version (``None`` where it is not
    in that version, and for a hunk header)."""

    kind: DiffKind
    text: str
    old: int | None = None
    new: int | None = None

    def as_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "text": self.text, "old": self.old, "new": self.new}


def _moment(value: datetime | str | None) -> str:
    if value is None or value == "":
        return ""
    if isinstance(value, str):
        return value
    return format_timestamp(value)  # as the folder's archive writes its times


def _database_versions(store: TableStore, kind: EntityType, name: str) -> list[tuple[bytes, dict[str, str]]]:
    found = [(item.content, {"submitted_by": item.submitted_by, "submitted_at": _moment(item.submitted_at),
                             "retired_by": item.retired_by or "", "retired_at": _moment(item.retired_at),
                             "retired_because": item.retired_because or ""})
             for item in store.database.history(kind.value, name)]
    present = store.database.current(kind.value, name)
    if present is not None:
        found.append((present.content, {"submitted_by": present.submitted_by,
                                        "submitted_at": _moment(present.submitted_at)}))
    else:
        # an entity of the entities folder: changed where it is defined, so only its present version is known
        stored = store.get(kind, name)
        if stored is not None:
            found.append((stored.read_bytes(), {}))
    return found


def _description(archived: Path) -> dict[str, Any]:
    """The archive's description of a retired version; an unreadable one says nothing rather than failing the
    page (the version itself is still shown)."""
    try:
        found = json.loads(archived.with_suffix(".json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return found if isinstance(found, dict) else {}


def _folder_versions(store: ConfigStore, kind: EntityType, name: str) -> list[tuple[bytes, dict[str, str]]]:
    found: list[tuple[bytes, dict[str, str]]] = []
    previous: dict[str, str] = {}
    for archived in store.history(kind, name):
        data = store.archived(archived)
        if data is None:
            continue
        about = _description(archived)
        facts = {"retired_by": str(about.get("user") or ""), "retired_at": str(about.get("archived") or ""),
                 "retired_because": str(about.get("reason") or "")}
        found.append((data, {**_submitted_after(previous), **facts}))
        previous = facts
    stored = store.get(kind, name)
    if stored is not None:
        found.append((stored.read_bytes(), _submitted_after(previous)))
    return found


def _submitted_after(previous: dict[str, str]) -> dict[str, str]:
    """A version of the folder came in when the one before it was replaced (not when it was deleted: the next one
    was then submitted anew, at a time the folder does not record)."""
    if previous.get("retired_because") == "delete":
        return {}
    return {"submitted_by": previous.get("retired_by", ""), "submitted_at": previous.get("retired_at", "")}


def versions_of(store: ConfigStore, kind: EntityType, name: str) -> list[Version]:
    """Every version of the entity the store keeps, oldest first; the last is in force when the entity exists."""
    found = (_database_versions(store, kind, name) if isinstance(store, TableStore)
             else _folder_versions(store, kind, name))
    in_force = store.get(kind, name) is not None
    return [Version(number=index, text=redact_definition(data), current=in_force and index == len(found),
                    **facts)
            for index, (data, facts) in enumerate(found, start=1)]


def line_diff(old: str, new: str, context: int = CONTEXT_LINES) -> list[DiffLine]:
    """The unified diff of ``old`` to ``new``, line by line, with ``context`` unchanged lines around each change;
    no row when they are the same."""
    before, after = old.splitlines(), new.splitlines()
    rows: list[DiffLine] = []
    matcher = difflib.SequenceMatcher(None, before, after, autojunk=False)
    for group in matcher.get_grouped_opcodes(context):
        first, last = group[0], group[-1]
        rows.append(DiffLine("hunk", f"@@ -{_span(first[1], last[2])} +{_span(first[3], last[4])} @@"))
        for tag, old_start, old_end, new_start, new_end in group:
            if tag == "equal":
                rows.extend(DiffLine("context", before[index], index + 1, new_start + offset + 1)
                            for offset, index in enumerate(range(old_start, old_end)))
                continue
            rows.extend(DiffLine("removed", before[index], index + 1) for index in range(old_start, old_end))
            rows.extend(DiffLine("added", after[index], None, index + 1) for index in range(new_start, new_end))
    return rows


def _span(start: int, end: int) -> str:
    """A hunk's range as unified diffs write it: the first line (1-based) and the count."""
    count = end - start
    return f"{start + (1 if count else 0)},{count}"


class BadVersion(ValueError):
    """A version number the entity does not have (answered 400)."""


def chosen(versions: Sequence[Version], given: str, what: str) -> Version:
    text = given.strip()
    if not text.isdigit() or not 1 <= int(text) <= len(versions):
        raise BadVersion(f"{what} must be a version number between 1 and {len(versions)}, not {given!r}")
    return versions[int(text) - 1]


async def _readable(request: Request, entity_type: str, name: str) -> EntityType:
    try:
        kind = EntityType(entity_type.lower())
    except ValueError:
        raise ConsoleError(f"unknown entity type: {entity_type}", 400) from None
    # the definition first: it is the action that says whether the caller may read the entity at all
    await run_action(request, "entity", "definition", {"type": kind.value, "name": name})
    return kind


def _versions(request: Request, kind: EntityType, name: str) -> list[Version]:
    context: ServerContext = request.app.state.falcon
    return versions_of(context.open_store(), kind, name)


@router.get("/api/versions/{entity_type}/{name}")
async def entity_versions(request: Request, entity_type: str, name: str) -> Response:
    try:
        kind = await _readable(request, entity_type, name)
    except ConsoleError as problem:
        return failed(problem)
    versions = await off_loop(lambda: _versions(request, kind, name))
    return JSONResponse({"type": kind.value, "name": name, "versions": [item.as_json() for item in versions]})


@router.get("/api/versions/{entity_type}/{name}/diff")
async def entity_diff(request: Request, entity_type: str, name: str) -> Response:
    try:
        kind = await _readable(request, entity_type, name)
    except ConsoleError as problem:
        return failed(problem)
    versions = await off_loop(lambda: _versions(request, kind, name))
    try:
        old = chosen(versions, request.query_params.get("from", ""), "from")
        new = chosen(versions, request.query_params.get("to", ""), "to")
    except BadVersion as wrong:
        return JSONResponse({"error": str(wrong)}, status_code=400)
    rows = line_diff(old.text, new.text)
    return JSONResponse({"type": kind.value, "name": name, "from": old.number, "to": new.number,
                         "identical": not rows, "lines": [row.as_json() for row in rows]})
