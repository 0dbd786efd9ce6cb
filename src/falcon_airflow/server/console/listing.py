"""The entities page's list: filter, sort and page rows on the server, so the browser gets one page whatever the
size of the store. Pure functions over plain rows: no store, no request."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

SortKey = Literal["name", "type", "status", "owner"]
SORT_KEYS: tuple[SortKey, ...] = ("name", "type", "status", "owner")
TYPES = ("cluster", "feed", "process", "datasource")
STATUSES = ("SUBMITTED", "RUNNING", "SUSPENDED", "INVALID")
MAX_PAGE_SIZE = 500
DEFAULT_PAGE_SIZE = 50


@dataclass(frozen=True)
class Row:
    """One entity as the list shows it."""

    type: str
    name: str
    status: str = ""
    rules: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    owner: str = ""
    clusters: tuple[str, ...] = ()

    def as_json(self) -> dict[str, Any]:
        return {"type": self.type, "name": self.name, "status": self.status, "rules": list(self.rules),
                "tags": list(self.tags), "owner": self.owner, "clusters": list(self.clusters)}


@dataclass(frozen=True)
class Query:
    """What the browser asked for; every field optional. ``text`` matches a part of the name, a tag or the owner,
    case-insensitively; ``tag`` is a whole ``key=value`` tag or a tag key."""

    types: frozenset[str] = frozenset()
    statuses: frozenset[str] = frozenset()
    tag: str = ""
    text: str = ""
    sort: SortKey = "name"
    descending: bool = False
    offset: int = 0
    limit: int = DEFAULT_PAGE_SIZE


@dataclass(frozen=True)
class Page:
    total: int
    offset: int
    limit: int
    rows: list[Row] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        return {"total": self.total, "offset": self.offset, "limit": self.limit,
                "entities": [row.as_json() for row in self.rows]}


class BadQuery(ValueError):
    """A parameter the list does not know (answered 400)."""


def _choices(given: str, allowed: Sequence[str], what: str, *, upper: bool = False) -> frozenset[str]:
    chosen = frozenset(item.strip().upper() if upper else item.strip().lower()
                       for item in given.split(",") if item.strip())
    unknown = sorted(chosen - set(allowed))
    if unknown:
        raise BadQuery(f"unknown {what}: {', '.join(unknown)} (one of {', '.join(allowed)})")
    return chosen


def _number(given: str, what: str, default: int) -> int:
    if not given.strip():
        return default
    if not given.strip().isdigit():
        raise BadQuery(f"{what} must be a whole number, not {given!r}")
    return int(given)


def parse_query(params: Mapping[str, str]) -> Query:
    """The :class:`Query` of the request's query parameters (``type``, ``status``, ``tag``, ``q``, ``sort``: a
    key, ``-key`` for descending, ``offset``, ``limit``); :class:`BadQuery` names the first wrong one."""
    sort = params.get("sort", "name").strip() or "name"
    descending = sort.startswith("-")
    key = sort.lstrip("-")
    if key not in SORT_KEYS:
        raise BadQuery(f"unknown sort key: {key} (one of {', '.join(SORT_KEYS)})")
    limit = _number(params.get("limit", ""), "limit", DEFAULT_PAGE_SIZE)
    if not 1 <= limit <= MAX_PAGE_SIZE:
        raise BadQuery(f"limit must be between 1 and {MAX_PAGE_SIZE}")
    return Query(types=_choices(params.get("type", ""), TYPES, "type"),
                 statuses=_choices(params.get("status", ""), STATUSES, "status", upper=True),
                 tag=params.get("tag", "").strip(), text=params.get("q", "").strip(),
                 sort=key,  # checked against SORT_KEYS above: mypy narrows it by the "in"
                 descending=descending, offset=_number(params.get("offset", ""), "offset", 0), limit=limit)


def _has_tag(row: Row, tag: str) -> bool:
    return any(item == tag or item.partition("=")[0] == tag for item in row.tags)


def matches(row: Row, query: Query) -> bool:
    if query.types and row.type not in query.types:
        return False
    if query.statuses and row.status not in query.statuses:
        return False
    if query.tag and not _has_tag(row, query.tag):
        return False
    if query.text:
        needle = query.text.casefold()
        return any(needle in value.casefold() for value in (row.name, row.owner, *row.tags))
    return True


def _sort_value(row: Row, key: SortKey) -> tuple[str, str, str]:
    # ties are broken by type and name, so a page boundary never moves between two requests
    return (str(getattr(row, key)).casefold(), row.type, row.name)


def select(rows: Iterable[Row], query: Query) -> Page:
    """Filter, sort and cut one page: one pass to filter, one sort of what is left."""
    chosen = [row for row in rows if matches(row, query)]
    chosen.sort(key=lambda row: _sort_value(row, query.sort), reverse=query.descending)
    return Page(len(chosen), query.offset, query.limit, chosen[query.offset:query.offset + query.limit])
