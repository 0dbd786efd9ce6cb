"""Rules against losing data to a neighbour (the project's FA008-FA010).

Falcon let two processes write the same feed instance and two feeds share a folder; on Airflow each process run
clears its output instance before writing and each feed's retention deletes what its template matches, so either
sharing silently destroys the other entity's data. FA010 refuses locations whose instances would be the file
system's root, a top-level folder, or reach outside their base with ``..``.

FA009 compares every location of a feed (data, stats, meta, tmp, or its catalog table) with every other feed's,
as storage reads them (default ports, case, percent-encoding, ``//`` and ``..`` normalised). Two feeds with one
location are allowed when they keep it alike (same frequency, zone and retention): two names for the same data, as
when a second feed replicates what another describes; so are two undated locations that are not both data.

FA008 and FA009 are errors unless every entity involved accepts the case deliberately with the property
``airflow.accept-rules`` listing the rule id (e.g. ``FA008`` on both processes of a pair). FA010 cannot be
accepted.
"""

from __future__ import annotations

import functools
import re
import weakref
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from urllib.parse import urlsplit

from falcon_airflow.core.errors import RuleError
from falcon_airflow.core.mirror_targets import file_system
from falcon_airflow.core.paths import lexical_components, read_path
from falcon_airflow.core.tables import TableUri
from falcon_airflow.el import reference_time
from falcon_airflow.entities import (
    EntityType,
    Feed,
    FeedCluster,
    FeedLocation,
    InterfaceType,
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


@functools.lru_cache(maxsize=8192)  # processes share their output expressions and validity bounds
def _instance(expression: str, moment: datetime) -> datetime | None:
    try:
        return reference_time(expression, moment)
    except ELError:  # FA006 reports it
        return None


@dataclass(frozen=True)
class _WriterIndex:
    writers: dict[tuple[str, str], list[_Writer]]
    # Processes whose outputs could not be placed, with why: their own FA008 finding says so, and the index goes
    # on without them, so that one process's failure never becomes every process's.
    failures: dict[str, tuple[str, int | None]]


def _writers(workspace: Workspace) -> _WriterIndex:
    """Every (cluster, feed) a process writes, with the range of instances each output writes over its validity."""
    writers: dict[tuple[str, str], list[_Writer]] = {}
    failures: dict[str, tuple[str, int | None]] = {}
    for process in workspace.processes.values():
        found: list[tuple[tuple[str, str], _Writer]] = []
        output_line: int | None = None
        output_name = ""
        try:
            clusters = {cluster.name: cluster for cluster in reversed(process.clusters)}  # P2: the first counts
            for cluster in clusters.values():
                for output in process.outputs:
                    output_line, output_name = output.line, output.name
                    feed = workspace.feeds.get(output.feed)
                    if feed is None or feed.cluster(cluster.name) is None:
                        continue
                    first = _instance(output.instance, cluster.validity.start)
                    end = _instance(output.instance, cluster.validity.end)
                    if first is None or end is None:
                        continue
                    # An expression that floors (today(0,0)) can map a short validity onto one instance.
                    end = max(end, first + timedelta(microseconds=1))
                    found.append(((cluster.name, feed.name), _Writer(process, output.name, output.line, first, end)))
        except Exception as problem:  # the index is shared: a failure here is this process's alone
            failures[process.name] = (f"output '{output_name}': {type(problem).__name__}: {problem}", output_line)
            continue
        for key, writer in found:
            writers.setdefault(key, []).append(writer)
    return _WriterIndex(writers, failures)


_writer_cache: tuple[weakref.ref[Workspace], _WriterIndex] | None = None


def _cached_writers(workspace: Workspace) -> _WriterIndex:
    """Computed once per workspace: every process's check asks for the same index."""
    global _writer_cache
    if _writer_cache is None or _writer_cache[0]() is not workspace:
        _writer_cache = (weakref.ref(workspace), _writers(workspace))
    return _writer_cache[1]


@rule("FA008", EntityType.PROCESS, "no two process outputs write overlapping instances of one feed on one cluster",
      workspace_index=True)
def two_writers(context: RuleContext, process: Process) -> Iterator[Finding]:
    if "FA008" in accepted_rules(process.properties):
        return
    written = _cached_writers(context.workspace)
    failure = written.failures.get(process.name)
    if failure is not None:
        yield error(f"the instances process '{process.name}' writes cannot be worked out, so whether another process "
                    f"writes them too cannot be checked: {failure[0]}", failure[1])
        return
    index = written.writers
    keys = dict.fromkeys((cluster.name, output.feed) for cluster in process.clusters for output in process.outputs)
    for cluster, feed in keys:
        writers = index.get((cluster, feed), [])
        for writer in (w for w in writers if w.process is process):
            for other in writers:
                if other is writer or (other.process is process and other.output == writer.output) \
                        or not writer.overlaps(other):
                    continue
                standing = _standing(context, process, other.process)
                if standing is None:
                    continue  # this process runs already; the newcomer's own check names it
                who = ("its output" if other.process is process else f"process '{other.process.name}' (output")
                closing = "" if other.process is process else ")"
                yield error(
                    f"output '{writer.output}' writes instances of feed '{feed}' on cluster '{cluster}' "
                    f"({format_falcon_date(writer.first)} up to {format_falcon_date(writer.end)}) that "
                    f"{who} '{other.output}'{closing} also writes ({format_falcon_date(other.first)} up to "
                    f"{format_falcon_date(other.end)}): each run clears its output instance first, so one "
                    f"writer deletes the other's data; {standing}give each writer its own feed or validity, "
                    f"or accept it with the property {ACCEPT_PROPERTY}=FA008 on every writer", writer.line)


def _standing(context: RuleContext, mine: Feed | Process, other: Feed | Process) -> str | None:
    """Who a pairwise finding blames (:mod:`falcon_airflow.validation.incumbents`): ``None`` when ``mine`` was
    there first (the finding belongs to ``other``), else what to say of ``other`` in ``mine``'s finding: that it
    runs already, naming its type, name and file, or ``""`` when neither came first (both are reported)."""
    if other is mine:
        return ""
    one, two = (mine.entity_type.value, mine.name), (other.entity_type.value, other.name)
    if context.incumbents.outranks(one, two):
        return None
    if not context.incumbents.outranks(two, one):
        return ""
    return (f"{two[0]} '{other.name}' ({other.source.file}) is running already ({context.incumbents.standing(two)}) "
            f"and keeps running, so {one[0]} '{mine.name}' is the one left out until it changes; ")


# -- FA009: feeds sharing a folder ----------------------------------------------------------------------------------

_URI = re.compile(r"^(?P<scheme>[A-Za-z][A-Za-z0-9+.\-]*)://(?P<authority>[^/]*)(?P<path>.*)$", re.S)
_OOZIE_SPELLING = re.compile(r"\?\{(YEAR|MONTH|DAY|HOUR|MINUTE)\}")


@dataclass(frozen=True)
class _Place:
    """One location of a feed on a cluster: a folder template on a file system, or a slice of a catalog table."""

    feed: Feed
    cluster: str
    kind: str  # data, stats, meta, tmp; "table" for a catalog table
    text: str  # as written in the definition
    line: int | None
    root: tuple[str, str]  # the file system (scheme, authority) or ("catalog", "db:table")
    segments: tuple[str, ...]  # folders; for a table its partition specs, ``key=value`` sorted by key
    placement: FeedCluster

    @property
    def keeping(self) -> tuple[str, ...]:
        """What decides which instances exist and when they are evicted (asked only of equal locations)."""
        return _keeping(self.feed, self.placement)

    @property
    def is_table(self) -> bool:
        return self.kind == "table"

    @property
    def dated(self) -> bool:
        return any(_VARIABLE.search(segment) for segment in self.segments)


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


def _file_place(feed: Feed, cluster: FeedCluster, location: FeedLocation, storage: str | None) -> _Place | None:
    text = location.path.strip()
    if not text:
        return None
    if "?{" in text:  # Oozie's spelling of a variable, read as Falcon's
        text = _OOZIE_SPELLING.sub(lambda match: "${" + match[1] + "}", text)
    joined = _on_storage(storage, text)
    match = _URI.match(joined)
    root, path = (file_system(match["scheme"], match["authority"]), match["path"]) if match else (("", ""), joined)
    return _Place(feed, cluster.name, location.type.value, location.path, location.line, root,
                  lexical_components(path), cluster)


def _table_place(feed: Feed, cluster: FeedCluster) -> _Place | None:
    table = feed.table_for(cluster)
    if table is None:
        return None
    try:
        parsed = TableUri.parse(table.uri)
    except RuleError:  # the schema and the catalog rules report it
        return None
    # Hive folds database, table and partition key names to lower case; values are compared as written.
    specs = tuple(sorted(f"{key.lower()}={value}" for key, value in parsed.partitions))
    root = ("catalog", f"{parsed.database.lower()}:{parsed.table.lower()}")
    return _Place(feed, cluster.name, "table", table.uri, table.line, root, specs, cluster)


def _places_of(workspace: Workspace, feed: Feed, storages: dict[str, str | None]) -> list[_Place]:
    """Every location of the feed on each of its clusters (data, stats, meta and tmp, or its table)."""
    places = []
    for cluster in feed.clusters:
        if feed.storage_for(cluster) is StorageKind.TABLE:
            place = _table_place(feed, cluster)
            places += [place] if place is not None else []
            continue
        if cluster.name not in storages:
            storages[cluster.name] = _storage_of(workspace, cluster.name)
        for location in feed.locations_for(cluster):
            place = _file_place(feed, cluster, location, storages[cluster.name])
            places += [place] if place is not None else []
    return places


@functools.lru_cache(maxsize=65536)  # every location's folders are looked at by the index and by each neighbour
def _dated(segment: str) -> bool:
    """Whether a folder name holds a date variable."""
    return _VARIABLE.search(segment) is not None


@functools.lru_cache(maxsize=65536)
def _shape(segment: str) -> str:
    """What a folder name can look like: each variable and each literal digit stands for a digit."""
    digits = _VARIABLE.sub(lambda match: "0" * _WIDTH[match[1]], segment)
    return re.sub(r"[0-9]", "0", digits)


def _same_folder(one: str, other: str) -> bool:
    """Whether two template segments can name the same folder for some instances."""
    if one == other:
        return True
    if not _dated(one) and not _dated(other):
        return False
    return _shape(one) == _shape(other)


def _within(inner: tuple[str, ...], outer: tuple[str, ...]) -> bool:
    """True when ``outer`` equals ``inner`` or is a folder above it."""
    return len(outer) <= len(inner) and all(_same_folder(a, b) for a, b in zip(outer, inner, strict=False))


def _partitions_within(inner: tuple[str, ...], outer: tuple[str, ...]) -> bool:
    """True when every partition ``inner`` names can be one of ``outer``'s: each key ``outer`` fixes, ``inner``
    fixes to a value that can match (a spec naming fewer keys holds more partitions)."""
    mine = dict(spec.split("=", 1) for spec in inner)
    return all(key in mine and _same_folder(mine[key], value)
               for key, value in (spec.split("=", 1) for spec in outer))


def _shared_partitions(one: tuple[str, ...], other: tuple[str, ...]) -> bool:
    first, second = dict(spec.split("=", 1) for spec in one), dict(spec.split("=", 1) for spec in other)
    return all(_same_folder(value, second[key]) for key, value in first.items() if key in second)


def _relation(mine: _Place, other: _Place) -> str | None:
    """How ``other``'s location stands to ``mine``, or ``None`` when they cannot hold the same data."""
    inside, around = ((_partitions_within, _partitions_within) if mine.is_table else (_within, _within))
    if inside(mine.segments, other.segments) and around(other.segments, mine.segments):
        return "the same location as"
    if inside(mine.segments, other.segments):
        return "a location inside that of"
    if around(other.segments, mine.segments):
        return "a location that contains that of"
    if mine.is_table and _shared_partitions(mine.segments, other.segments):
        return "partitions in common with"
    return None


class _Node:
    """A folder level of every location: children by literal name and, for dated names, by their shape."""

    __slots__ = ("dated", "literal", "literal_by_shape", "places")

    def __init__(self) -> None:
        self.literal: dict[str, _Node] = {}
        self.literal_by_shape: dict[str, list[str]] = {}
        self.dated: dict[str, _Node] = {}
        self.places: list[_Place] = []

    def child(self, segment: str) -> _Node:
        if _dated(segment):
            return self.dated.setdefault(_shape(segment), _Node())
        if segment not in self.literal:
            self.literal[segment] = _Node()
            self.literal_by_shape.setdefault(_shape(segment), []).append(segment)
        return self.literal[segment]

    def matching(self, segment: str) -> list[_Node]:
        """Children that can name the same folder as ``segment`` (candidates; :func:`_within` decides)."""
        if not self.dated and not _dated(segment):  # a literal name under literal names: only itself
            found_literal = self.literal.get(segment)
            return [found_literal] if found_literal is not None else []
        shape = _shape(segment)
        found = [self.dated[shape]] if shape in self.dated else []
        if _dated(segment):
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
    tables: dict[tuple[str, str], list[_Place]]
    by_feed: dict[str, list[_Place]]


def _index(workspace: Workspace) -> _Index:
    """Every feed's locations in a tree per file system (scheme, authority), and its tables by name."""
    roots: dict[tuple[str, str], _Node] = {}
    tables: dict[tuple[str, str], list[_Place]] = {}
    by_feed: dict[str, list[_Place]] = {}
    storages: dict[str, str | None] = {}
    for feed in workspace.feeds.values():
        by_feed[feed.name] = places = _places_of(workspace, feed, storages)
        for place in places:
            if place.is_table:
                tables.setdefault(place.root, []).append(place)
                continue
            node = roots.setdefault(place.root, _Node())
            for segment in place.segments:
                node = node.child(segment)
            node.places.append(place)
    return _Index(roots, tables, by_feed)


def _neighbours(index: _Index, place: _Place) -> Iterator[_Place]:
    """Places whose location can be above, equal to or below ``place``'s (for a table: the same table's)."""
    if place.is_table:
        yield from index.tables.get(place.root, ())
        return
    level = [index.roots[place.root]] if place.root in index.roots else []
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


def _harmless(mine: _Place, other: _Place) -> bool:
    """Pairs that lose nothing: two names for the same data kept alike, or two undated locations that are not
    both data (nothing evicts or clears an undated location; Falcon's examples share one stats or meta folder)."""
    if mine.root == other.root and mine.segments == other.segments and mine.keeping == other.keeping:
        return True
    return not mine.dated and not other.dated and "data" not in (mine.kind, other.kind) and not mine.is_table


def _shown(place: _Place) -> str:
    return f"table '{place.text.strip()}'" if place.is_table else f"{place.kind} location '{place.text}'"


@rule("FA009", EntityType.FEED, "no two feeds keep their data, stats, meta, tmp or table partitions in the same "
      "place or one inside the other", workspace_index=True)
def overlapping_locations(context: RuleContext, feed: Feed) -> Iterator[Finding]:
    if "FA009" in accepted_rules(feed.properties):
        return
    index = _cached_index(context.workspace)
    for mine in index.by_feed.get(feed.name, []):
        seen: set[int] = set()
        for other in _neighbours(index, mine):
            if other.feed is feed or id(other) in seen:
                continue
            seen.add(id(other))
            if _harmless(mine, other):
                continue
            relation = _relation(mine, other)
            standing = _standing(context, feed, other.feed) if relation is not None else None
            if relation is None or standing is None:
                continue  # apart, or this feed runs already and the newcomer's own check names it
            yield error(
                f"feed '{feed.name}' on cluster '{mine.cluster}' has {relation} feed '{other.feed.name}' on cluster "
                f"'{other.cluster}' ({_shown(mine)} and {_shown(other)}): retention and re-runs of one feed delete "
                f"the other's data; {standing}give each feed a place of its own, or accept it with the property "
                f"{ACCEPT_PROPERTY}=FA009 on both feeds", mine.line)


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
