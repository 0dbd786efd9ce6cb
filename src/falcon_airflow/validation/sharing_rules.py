"""Rules against losing data to a neighbour (the project's FA008-FA010).

Falcon let two processes write the same feed instance and two feeds share a folder; on Airflow each process run
clears its output instance before writing and each feed's retention deletes what its template matches, so either
sharing silently destroys the other entity's data. FA010 refuses locations whose instances would be the file
system's root, a top-level folder, or reach outside their base with ``..``.

Two feeds with one location are allowed when they keep it alike (same frequency, zone and retention): two
names for the same data, as when a second feed replicates what another describes. FA008 and FA009 are errors
unless every entity involved accepts the case deliberately with the property ``airflow.accept-rules`` listing the
rule id (e.g. ``FA008`` on both processes of a pair). FA010 cannot be accepted.
"""

from __future__ import annotations

import functools
import re
import weakref
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from urllib.parse import urlsplit

from falcon_airflow.core.paths import read_path
from falcon_airflow.el import reference_time
from falcon_airflow.entities import (
    EntityType,
    Feed,
    FeedCluster,
    FeedLocation,
    InterfaceType,
    LocationType,
    Process,
    Property,
    StorageKind,
)
from falcon_airflow.errors import ELError
from falcon_airflow.timekeeping import format_falcon_date
from falcon_airflow.validation.registry import Finding, RuleContext, error, rule
from falcon_airflow.workspace import Workspace

ACCEPT_PROPERTY = "airflow.accept-rules"
ACCEPTABLE_RULES = ("FA008", "FA009")
_VARIABLE = re.compile(r"\$\{(YEAR|MONTH|DAY|HOUR|MINUTE)\}")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*://")
_WIDTH = {"YEAR": 4, "MONTH": 2, "DAY": 2, "HOUR": 2, "MINUTE": 2}


def accepted_rules(properties: tuple[Property, ...]) -> frozenset[str]:
    """The rule ids an entity accepts through ``airflow.accept-rules`` (comma or space separated)."""
    text = next((p.value for p in properties if p.name == ACCEPT_PROPERTY), "")
    return frozenset(part.strip().upper() for part in re.split(r"[,\s]+", text) if part.strip())


# -- FA008: two writers of one feed instance ------------------------------------------------------------------------


@dataclass(frozen=True)
class _Writer:
    process: Process
    output: str
    line: int | None
    first: datetime  # first instance written (inclusive)
    end: datetime  # instances written lie before this (exclusive)

    def overlaps(self, other: _Writer) -> bool:
        return self.first < other.end and other.first < self.end


def _instance(expression: str, moment: datetime) -> datetime | None:
    try:
        return reference_time(expression, moment)
    except ELError:  # FA006 reports it
        return None


def _writers(workspace: Workspace) -> dict[tuple[str, str], list[_Writer]]:
    """Every (cluster, feed) a process writes, with the range of instances each output writes over its validity."""
    writers: dict[tuple[str, str], list[_Writer]] = {}
    for process in workspace.processes.values():
        clusters = {cluster.name: cluster for cluster in reversed(process.clusters)}  # P2: the first counts
        for cluster in clusters.values():
            for output in process.outputs:
                feed = workspace.feeds.get(output.feed)
                if feed is None or feed.cluster(cluster.name) is None:
                    continue
                first = _instance(output.instance, cluster.validity.start)
                end = _instance(output.instance, cluster.validity.end)
                if first is None or end is None:
                    continue
                # An expression that floors (today(0,0)) can map a short validity onto one instance.
                end = max(end, first + timedelta(microseconds=1))
                writers.setdefault((cluster.name, feed.name), []).append(
                    _Writer(process, output.name, output.line, first, end))
    return writers


_writer_cache: tuple[weakref.ref[Workspace], dict[tuple[str, str], list[_Writer]]] | None = None


def _cached_writers(workspace: Workspace) -> dict[tuple[str, str], list[_Writer]]:
    """Computed once per workspace: every process's check asks for the same index."""
    global _writer_cache
    if _writer_cache is None or _writer_cache[0]() is not workspace:
        _writer_cache = (weakref.ref(workspace), _writers(workspace))
    return _writer_cache[1]


@rule("FA008", EntityType.PROCESS, "no two process outputs write overlapping instances of one feed on one cluster")
def two_writers(context: RuleContext, process: Process) -> Iterator[Finding]:
    if "FA008" in accepted_rules(process.properties):
        return
    index = _cached_writers(context.workspace)
    keys = dict.fromkeys((cluster.name, output.feed) for cluster in process.clusters for output in process.outputs)
    for cluster, feed in keys:
        writers = index.get((cluster, feed), [])
        for writer in (w for w in writers if w.process is process):
            for other in writers:
                if other is writer or (other.process is process and other.output == writer.output) \
                        or not writer.overlaps(other):
                    continue
                who = ("its output" if other.process is process else f"process '{other.process.name}' (output")
                closing = "" if other.process is process else ")"
                yield error(
                    f"output '{writer.output}' writes instances of feed '{feed}' on cluster '{cluster}' "
                    f"({format_falcon_date(writer.first)} up to {format_falcon_date(writer.end)}) that "
                    f"{who} '{other.output}'{closing} also writes ({format_falcon_date(other.first)} up to "
                    f"{format_falcon_date(other.end)}): each run clears its output instance first, so one "
                    f"writer deletes the other's data; give each writer its own feed or validity, or accept it "
                    f"with the property {ACCEPT_PROPERTY}=FA008 on every writer", writer.line)


# -- FA009: feeds sharing a folder ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Place:
    feed: Feed
    cluster: str
    location: FeedLocation
    root: tuple[str, str]  # scheme and authority of the resolved location
    segments: tuple[str, ...]
    placement: FeedCluster

    @property
    def keeping(self) -> tuple[str, ...]:
        """What decides which instances exist and when they are evicted (asked only of equal locations)."""
        return _keeping(self.feed, self.placement)


def _on_storage(base: str | None, path: str) -> str:
    """A feed path on a cluster: relative to the cluster's write endpoint unless it has a scheme (as the runtime
    joins them)."""
    if _SCHEME.match(path) or not base:
        return path
    return base.rstrip("/") + "/" + path.lstrip("/")


def _storage_of(workspace: Workspace, cluster_name: str) -> str | None:
    cluster = workspace.clusters.get(cluster_name)
    write = cluster.interface(InterfaceType.WRITE) if cluster is not None else None
    return write.endpoint.strip() if write is not None else None


def _keeping(feed: Feed, cluster: FeedCluster) -> tuple[str, ...]:
    """Frequency, zone and eviction of a feed on a cluster: two feeds alike in these keep one folder alike."""
    stage = feed.retention_stage_for(cluster)
    staged = (stage.effective_policy, *sorted(f"{p.name}={p.value}" for p in stage.properties)) if stage else ()
    return (str(feed.frequency), feed.timezone, str(cluster.retention.limit), cluster.retention.action,
            feed.property_map.get("retention.action", ""), *staged)


def _places_of(workspace: Workspace, feed: Feed, storages: dict[str, str | None]) -> list[_Place]:
    places = []
    for cluster in feed.clusters:
        if feed.storage_for(cluster) is not StorageKind.FILESYSTEM:
            continue
        location = feed.location_for(cluster, LocationType.DATA)
        if location is None or not location.path.strip():
            continue
        if cluster.name not in storages:
            storages[cluster.name] = _storage_of(workspace, cluster.name)
        resolved = urlsplit(_on_storage(storages[cluster.name], location.path.strip()))
        segments = tuple(part for part in resolved.path.split("/") if part)
        places.append(_Place(feed, cluster.name, location, (resolved.scheme, resolved.netloc), segments, cluster))
    return places


@functools.lru_cache(maxsize=65536)
def _shape(segment: str) -> str:
    """What a folder name can look like: each variable and each literal digit stands for a digit."""
    digits = _VARIABLE.sub(lambda match: "0" * _WIDTH[match[1]], segment)
    return re.sub(r"[0-9]", "0", digits)


def _same_folder(one: str, other: str) -> bool:
    """Whether two template segments can name the same folder for some instances."""
    if one == other:
        return True
    if not _VARIABLE.search(one) and not _VARIABLE.search(other):
        return False
    return _shape(one) == _shape(other)


def _within(inner: tuple[str, ...], outer: tuple[str, ...]) -> bool:
    """True when ``outer`` equals ``inner`` or is a folder above it."""
    return len(outer) <= len(inner) and all(_same_folder(a, b) for a, b in zip(outer, inner, strict=False))


class _Node:
    """A folder level of every data location: children by literal name and, for dated names, by their shape."""

    def __init__(self) -> None:
        self.literal: dict[str, _Node] = {}
        self.literal_by_shape: dict[str, list[str]] = {}
        self.dated: dict[str, _Node] = {}
        self.places: list[_Place] = []

    def child(self, segment: str) -> _Node:
        if _VARIABLE.search(segment):
            return self.dated.setdefault(_shape(segment), _Node())
        if segment not in self.literal:
            self.literal[segment] = _Node()
            self.literal_by_shape.setdefault(_shape(segment), []).append(segment)
        return self.literal[segment]

    def matching(self, segment: str) -> list[_Node]:
        """Children that can name the same folder as ``segment`` (candidates; :func:`_within` decides)."""
        shape = _shape(segment)
        found = [self.dated[shape]] if shape in self.dated else []
        if _VARIABLE.search(segment):
            found += [self.literal[name] for name in self.literal_by_shape.get(shape, [])]
        elif segment in self.literal:
            found.append(self.literal[segment])
        return found

    def below(self) -> Iterator[_Place]:
        stack: list[_Node] = [self]
        while stack:
            node = stack.pop()
            yield from node.places
            stack.extend(node.literal.values())
            stack.extend(node.dated.values())


@dataclass(frozen=True)
class _Index:
    roots: dict[tuple[str, str], _Node]
    by_feed: dict[str, list[_Place]]


def _index(workspace: Workspace) -> _Index:
    """Every feed's data location in a tree per file system (scheme, authority)."""
    roots: dict[tuple[str, str], _Node] = {}
    by_feed: dict[str, list[_Place]] = {}
    storages: dict[str, str | None] = {}
    for feed in workspace.feeds.values():
        by_feed[feed.name] = places = _places_of(workspace, feed, storages)
        for place in places:
            node = roots.setdefault(place.root, _Node())
            for segment in place.segments:
                node = node.child(segment)
            node.places.append(place)
    return _Index(roots, by_feed)


def _neighbours(roots: dict[tuple[str, str], _Node], place: _Place) -> Iterator[_Place]:
    """Places whose location can be above, equal to or below ``place``'s."""
    level = [roots[place.root]] if place.root in roots else []
    for segment in place.segments:
        for node in level:
            yield from node.places  # a location above this one
        level = [child for node in level for child in node.matching(segment)]
    for node in level:
        yield from node.below()  # equal, or below


_place_cache: tuple[weakref.ref[Workspace], _Index] | None = None


def _cached_index(workspace: Workspace) -> _Index:
    global _place_cache
    if _place_cache is None or _place_cache[0]() is not workspace:
        _place_cache = (weakref.ref(workspace), _index(workspace))
    return _place_cache[1]


@rule("FA009", EntityType.FEED, "no two feeds keep their data in the same folder or one inside the other")
def overlapping_locations(context: RuleContext, feed: Feed) -> Iterator[Finding]:
    if "FA009" in accepted_rules(feed.properties):
        return
    index = _cached_index(context.workspace)
    for mine in index.by_feed.get(feed.name, []):
        seen: set[int] = set()
        for other in _neighbours(index.roots, mine):
            if other.feed is feed or id(other) in seen:
                continue
            seen.add(id(other))
            if mine.segments == other.segments and mine.keeping == other.keeping:
                continue  # two names for the same data (a second feed replicating it): evicted alike
            if _within(mine.segments, other.segments) and _within(other.segments, mine.segments):
                relation = "the same location as"
            elif _within(mine.segments, other.segments):
                relation = "a location inside that of"
            elif _within(other.segments, mine.segments):
                relation = "a location that contains that of"
            else:
                continue
            yield error(
                f"feed '{feed.name}' on cluster '{mine.cluster}' has {relation} feed '{other.feed.name}' on cluster "
                f"'{other.cluster}' ('{mine.location.path}' and '{other.location.path}'): retention and re-runs of "
                f"one feed delete the other's data; give each feed a folder of its own, or accept it with the "
                f"property {ACCEPT_PROPERTY}=FA009 on both feeds", mine.location.line)


# -- FA010: dangerous locations -------------------------------------------------------------------------------------


def location_danger(path: str) -> str | None:
    """Why a feed location template is unsafe to clear or evict, or ``None`` when it is not.

    The template is judged as storage reads it (:func:`falcon_airflow.core.paths.read_path`): percent-decoded, so
    ``%2e%2e`` is the ``..`` it becomes; every further decoding and ``\\`` as a separator must read the same."""
    if "?" in path or "#" in path:
        return ("it has a '?' or '#', and storage reads a URI's path only up to it (so an instance would be a "
                "folder above the one named; write variables as ${YEAR} ...)")
    reading = read_path(urlsplit(path).path if _SCHEME.match(path) else path)
    if reading.problem is not None:
        return f"it {reading.problem}, so its instances can lie outside the feed's folder"
    if reading.dotted:
        return "it has a '..' or '.' segment, so its instances can lie outside the feed's folder"
    segments = list(reading.components)
    fixed = 0
    for part in segments:
        if _VARIABLE.search(part):
            break
        fixed += 1
    dated = fixed < len(segments)
    if not segments:
        return "it is the file system's root"
    if dated and fixed == 0:
        return "its instances are folders at the file system's root"
    if not dated and len(segments) == 1:
        return f"it is the top-level folder '/{segments[0]}'"
    return None


@rule("FA010", EntityType.FEED, "a feed location, read as storage reads it (percent-decoded), has no '..' and is "
      "not the root or a top-level folder")
def dangerous_locations(context: RuleContext, feed: Feed) -> Iterator[Finding]:
    seen: set[tuple[str, int | None]] = set()
    locations = [*(feed.locations or ()), *(loc for cluster in feed.clusters for loc in cluster.locations or ())]
    for location in locations:
        if (location.path, location.line) in seen:
            continue
        seen.add((location.path, location.line))
        danger = location_danger(location.path.strip())
        if danger is not None:
            yield error(f"{location.type.value} location '{location.path}' of feed '{feed.name}' is refused: "
                        f"{danger}; clearing an output or evicting an instance there would delete data that is not "
                        "the feed's", location.line)
