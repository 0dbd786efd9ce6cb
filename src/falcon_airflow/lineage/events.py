"""Where OpenLineage events are read from: JSON-lines event logs and a Marquez-compatible HTTP API.

* An event log is what the ``file`` transport writes with ``append: true``: one event per line. Unreadable lines
  are skipped and counted, never fatal (a log being appended to may end in half a line).
* A Marquez-compatible server serves the raw events it received at ``GET /api/v1/events/lineage`` (parameters
  ``limit``, ``offset``, ``sortDirection``, ``before``, ``after``; answer ``{"events": [...]}``); the queries read
  them page by page, up to a bound.

Also here: :func:`enrich`, which adds the feed facets (``symlinks``, ``subset``) of the instances a task knows to
the datasets of the Spark events it forwards (a file read under an input instance's folder belongs to that
instance). Standard library only.
"""

from __future__ import annotations

import copy
import json
import logging
import os
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlencode
from urllib.request import Request, urlopen

from falcon_airflow.core.naming import DatasetId, event_dataset, under

log = logging.getLogger(__name__)

Event = dict[str, Any]
DEFAULT_EVENT_LOGS = ("airflow-home/lineage/events.jsonl",)
"""Where ``make run`` writes events, relative to the working folder; ``$AIRFLOW_HOME/lineage/events.jsonl`` too."""


@dataclass
class EventLog:
    events: list[Event] = field(default_factory=list)
    skipped: int = 0
    sources: list[str] = field(default_factory=list)


def default_event_logs() -> list[Path]:
    """The default event logs that exist: ``airflow-home/lineage/events.jsonl``, ``$AIRFLOW_HOME/lineage/...``."""
    candidates = [Path(item) for item in DEFAULT_EVENT_LOGS]
    if os.environ.get("AIRFLOW_HOME"):
        candidates.append(Path(os.environ["AIRFLOW_HOME"]) / "lineage" / "events.jsonl")
    found: list[Path] = []
    for candidate in candidates:
        if candidate.is_file() and all(candidate.resolve() != item.resolve() for item in found):
            found.append(candidate)
    return found


def read_jsonl(path: Path, log_: EventLog) -> None:
    """Append the events of one file (JSON lines; a ``.json`` file may hold one event or a list) to ``log_``."""
    text = path.read_text(encoding="utf-8", errors="replace")
    if path.suffix == ".json":
        try:
            document = json.loads(text)
        except ValueError:
            log_.skipped += 1
            return
        for item in document if isinstance(document, list) else [document]:
            if isinstance(item, dict):
                log_.events.append(item)
            else:
                log_.skipped += 1
        return
    for line in text.splitlines():
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except ValueError:
            log_.skipped += 1
            continue
        if isinstance(item, dict):
            log_.events.append(item)
        else:
            log_.skipped += 1


def load_event_logs(paths: Iterable[Path]) -> EventLog:
    """Events of files and folders (``*.jsonl``, ``*.ndjson``, ``*.json`` inside, recursively)."""
    result = EventLog()
    for path in paths:
        files = sorted(item for item in path.rglob("*") if item.suffix in (".jsonl", ".ndjson", ".json")) \
            if path.is_dir() else [path]
        for file in files:
            read_jsonl(file, result)
            result.sources.append(str(file))
    return result


class MarquezError(Exception):
    """The Marquez-compatible server did not answer as expected."""


@dataclass
class Marquez:
    """A client of a Marquez-compatible API, for the raw events it stores."""

    url: str
    timeout: float = 30.0
    page: int = 500
    limit: int = 100_000

    def _get(self, path: str, parameters: Mapping[str, Any]) -> Any:
        address = f"{self.url.rstrip('/')}/{path.lstrip('/')}?{urlencode(parameters)}"
        request = Request(address, headers={"Accept": "application/json"})
        try:
            with urlopen(request, timeout=self.timeout) as response:
                return json.loads(response.read().decode("utf-8"))
        except (OSError, ValueError) as problem:
            raise MarquezError(f"{address}: {problem}") from problem

    def events(self, *, after: str | None = None, before: str | None = None) -> EventLog:
        """Every stored event (oldest first), up to :attr:`limit`, in pages of :attr:`page`."""
        result = EventLog(sources=[self.url])
        offset = 0
        while offset < self.limit:
            parameters: dict[str, Any] = {"limit": min(self.page, self.limit - offset), "offset": offset,
                                          "sortDirection": "asc"}
            if after:
                parameters["after"] = after
            if before:
                parameters["before"] = before
            answer = self._get("api/v1/events/lineage", parameters)
            items = answer.get("events") if isinstance(answer, dict) else None
            if not isinstance(items, list):
                raise MarquezError(f"{self.url}: /api/v1/events/lineage gave no 'events' list")
            result.events.extend(item for item in items if isinstance(item, dict))
            if len(items) < parameters["limit"]:
                break
            offset += len(items)
        return result


# -- enriching the Spark events a task forwards ----------------------------------------------------------------------


@dataclass(frozen=True)
class KnownDataset:
    """A feed instance the task knows, with the facets (JSON) that tell which feed and instance it is."""

    dataset: DatasetId
    facets: Mapping[str, Any]
    side_facets: Mapping[str, Any]
    """``inputFacets`` for an input, ``outputFacets`` for an output (the ``subset``)."""


def _match(dataset: DatasetId, known: Iterable[KnownDataset]) -> KnownDataset | None:
    best = None
    for item in known:
        if under(dataset, item.dataset) and (best is None or len(item.dataset.name) > len(best.dataset.name)):
            best = item
    return best


def _dataset_id(dataset: Mapping[str, Any]) -> DatasetId | None:
    namespace, name = dataset.get("namespace"), dataset.get("name")
    if not isinstance(namespace, str) or not isinstance(name, str):
        return None
    return event_dataset(namespace, name)


def enrich(event: Event, inputs: Iterable[KnownDataset], outputs: Iterable[KnownDataset]) -> Event:
    """A copy of ``event`` whose datasets under a known instance carry its feed facets (facets already there are
    kept; the feed joins the identifiers of a ``symlinks`` facet already there); everything else is unchanged."""
    result = copy.deepcopy(event)
    for side, known, key in (("inputs", list(inputs), "inputFacets"), ("outputs", list(outputs), "outputFacets")):
        for dataset in result.get(side) or []:
            if not isinstance(dataset, dict):
                continue
            identity = _dataset_id(dataset)
            match = _match(identity, known) if identity is not None else None
            if match is None:
                continue
            facets = dataset.setdefault("facets", {})
            for name, facet in match.facets.items():
                if name == "symlinks" and isinstance(facets.get(name), dict):  # a table's, say: add the feed
                    identifiers = facets[name].setdefault("identifiers", [])
                    identifiers += [item for item in facet.get("identifiers", []) if item not in identifiers]
                else:
                    facets.setdefault(name, copy.deepcopy(facet))
            side_facets = dataset.setdefault(key, {})
            for name, facet in match.side_facets.items():
                side_facets.setdefault(name, copy.deepcopy(facet))
    return result


def iter_lines(path: Path) -> Iterator[Event]:
    """The events of one JSON-lines file, skipping (and logging) lines that are not JSON objects."""
    if not path.is_file():
        return
    for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except ValueError:
            log.warning("%s:%d is not a JSON event; left out", path, number)
            continue
        if isinstance(item, dict):
            yield item
