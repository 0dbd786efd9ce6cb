"""Which folders and partitions retention may evict: the pure decisions of the retention job.

A folder the location template names (``/d/${YEAR}/${MONTH}``) or a partition the table URI names
(``ds=${YEAR}${MONTH}${DAY}``) stands for a span of time, a month or a day. When the template is as fine as the
feed's frequency the span holds one instance; when it is coarser (an hourly feed under ``${YEAR}/${MONTH}``) it
holds every instance of the month, and deleting it deletes them all. Falcon compared the span's *start* with the
cut-off and so deleted the current month's folder, this hour's data with it. Here a folder or partition is evicted
only when the *last* instance of the feed's grid it holds is strictly older than the cut-off; for a template as fine
as the frequency that is Falcon's rule unchanged.

The instance grid is the feed's on the cluster: every frequency from the validity start, stepped as the Airflow
side steps it (:mod:`falcon_airflow.timekeeping.grid`: minutes and hours on the time line, days and months on the
calendar of the feed's zone; a wall-clock time a DST change makes ambiguous is its later reading, one it skips moves
forward). Without a start the grid is taken to pass through each folder's own start, as Falcon took every folder to
be one instance at its own time.

A table partition is an instance only when its keys are exactly the URI's, its static values are the URI's and its
dated values are exactly what the URI gives at one time (``ds=2019_restore``, ``ds=1``, ``ds=2026-12-31`` under
``ds=${YEAR}${MONTH}${DAY}`` are not); partition times are compared as times, never as strings. A partition's files
are deleted only when its location lies strictly inside the table's own folder: :func:`location_outside` reads both
with default ports, ``.``/``..`` resolved and percent-encoding both kept and decoded.

Standard library only: the retention job imports this module from the core shipped with it.
"""

from __future__ import annotations

import calendar
import posixpath
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, tzinfo
from urllib.parse import unquote

from falcon_airflow.core.paths import Template
from falcon_airflow.core.tables import TableUri
from falcon_airflow.core.times import Duration, format_instant

MAX_WALK = 10_000
"""Grid steps searched back through one span for an instance whose path is the folder's (only a template with a
gap in its variables, ``${YEAR}/${HOUR}``, needs more than one); past that the span's last minute stands in for
its last instance, which can only keep the folder longer."""

_ONE_MINUTE = timedelta(minutes=1)
_ELAPSED = {"minutes": timedelta(minutes=1), "hours": timedelta(hours=1)}
_URI = re.compile(r"^(?P<scheme>[A-Za-z][A-Za-z0-9+.\-]*):(?://(?P<authority>[^/?#]*))?(?P<path>[^?#]*)$")
DEFAULT_PORTS = {"hdfs": "8020", "webhdfs": "9870", "swebhdfs": "9871", "http": "80", "https": "443"}
"""Ports a URI may leave out (Hadoop's NameNode RPC and HTTP defaults): ``hdfs://nn`` is ``hdfs://nn:8020``."""


def localize(naive: datetime, zone: tzinfo) -> datetime:
    """A wall-clock time of ``zone`` as a UTC instant, read as pendulum (and so the Airflow side's grid) reads it:
    an ambiguous time is its later reading, a skipped one moves forward by the gap."""
    later = naive.replace(tzinfo=zone, fold=1)
    chosen = later if later.astimezone(UTC).astimezone(zone).replace(tzinfo=None) == naive else \
        naive.replace(tzinfo=zone, fold=0)
    return chosen.astimezone(UTC).replace(fold=0)


def _add_months(naive: datetime, months: int) -> datetime:
    """Calendar months, the day clamped to the month's last (January 31 + 1 month is February 28 or 29)."""
    year, month = divmod(naive.month - 1 + months, 12)
    year += naive.year
    day = min(naive.day, calendar.monthrange(year, month + 1)[1])
    return naive.replace(year=year, month=month + 1, day=day)


@dataclass(frozen=True)
class FeedGrid:
    """The instances of a feed on a cluster: ``anchor + k * frequency`` for every integer k (data older than the
    validity start is still the feed's to evict). ``anchor`` is ``None`` when unknown: see :meth:`anchored`."""

    frequency: Duration
    zone: tzinfo
    anchor: datetime | None = None

    def anchored(self, first: datetime) -> FeedGrid:
        """This grid, or, without an anchor, the grid through ``first`` (a folder's own start)."""
        return self if self.anchor is not None else FeedGrid(self.frequency, self.zone, first)

    @property
    def _start(self) -> datetime:
        if self.anchor is None:
            raise ValueError("the grid has no anchor: use anchored()")
        return self.anchor.astimezone(UTC)

    def instance(self, index: int) -> datetime:
        """Instance ``index`` (0 is the anchor), in UTC, computed from the anchor (never by chaining steps)."""
        unit, count = self.frequency.unit, self.frequency.count
        if unit in _ELAPSED:
            return self._start + _ELAPSED[unit] * (count * index)
        if index == 0:  # the anchor keeps its own reading of an ambiguous wall-clock time
            return self._start
        local = self._start.astimezone(self.zone).replace(tzinfo=None)
        if unit == "days":
            return localize(local + timedelta(days=count * index), self.zone)
        return localize(_add_months(local, count * index), self.zone)

    def index_before(self, end: datetime) -> int:
        """The largest k whose instance is strictly earlier than ``end``."""
        unit, count = self.frequency.unit, self.frequency.count
        elapsed = end - self._start
        if unit in _ELAPSED:
            step = _ELAPSED[unit] * count
            return -((-elapsed) // step) - 1  # ceil(elapsed / step) - 1
        if unit == "days":
            index = elapsed // timedelta(days=count)
        else:
            start, stop = self._start.astimezone(self.zone), end.astimezone(self.zone)
            index = ((stop.year - start.year) * 12 + stop.month - start.month) // count
        # the estimate is off by at most a step or two (DST days, short months): walk to the exact index
        while self.instance(index) >= end:
            index -= 1
        while self.instance(index + 1) < end:
            index += 1
        return index


@dataclass(frozen=True)
class Span:
    """The times a folder (or partition) names: from ``first`` (its start, the time Falcon read from it) up to
    ``end`` exclusive, both UTC. For a template with a gap (``${YEAR}/${HOUR}``) not every time in between is
    named; :func:`last_instance` checks each candidate against the path."""

    first: datetime
    end: datetime


def span_of(template: Template, path: str, zone: tzinfo) -> Span | None:
    """The span of a path the template gives for some time (``None`` for any other path)."""
    values = template.read_values(path)
    first = template.instance_time(path, zone)
    if values is None or first is None or template.resolve(first, zone) != path:
        return None
    year = values["YEAR"]
    month = values.get("MONTH", 12)
    day = values.get("DAY", calendar.monthrange(year, month)[1])
    latest = datetime(year, month, day, values.get("HOUR", 23), values.get("MINUTE", 59))
    # The end is the first minute after the latest one named, at its earlier reading: an hour folder on the night
    # the clocks go back ends when the hour first ends, a folder before a skipped hour where the clocks jump.
    end = (latest + _ONE_MINUTE).replace(tzinfo=zone, fold=0).astimezone(UTC)
    return Span(first.astimezone(UTC), end)


def last_instance(template: Template, path: str, span: Span, grid: FeedGrid) -> datetime | None:
    """The latest instance of ``grid`` the folder ``path`` holds, or ``None`` when it holds none.

    After :data:`MAX_WALK` grid steps without an answer the span's last minute is returned: every instance the
    folder may hold is at or before it.
    """
    grid = grid.anchored(span.first)
    index = grid.index_before(span.end)
    zone = grid.zone
    for _ in range(MAX_WALK):
        moment = grid.instance(index)
        if moment < span.first:
            return None
        if template.resolve(moment, zone) == path:
            return moment
        index -= 1
    return span.end - _ONE_MINUTE


@dataclass(frozen=True)
class Verdict:
    """What retention does with one folder or partition.

    ``moment`` is the time the path names (its start, what Falcon reported); ``last`` the latest instance it holds.
    ``reason`` says why it is not an instance of the feed and is left alone; otherwise ``evict`` says whether its
    last instance is strictly older than the cut-off.
    """

    moment: datetime | None
    last: datetime | None
    evict: bool
    reason: str | None = None

    @property
    def is_instance(self) -> bool:
        return self.reason is None


def judge_path(template: Template, path: str, grid: FeedGrid, cutoff: datetime) -> Verdict:
    """Evict ``path`` (a match of ``template``) only if every instance it holds is older than ``cutoff``."""
    zone = grid.zone
    try:
        moment = template.instance_time(path, zone)
        span = span_of(template, path, zone) if moment is not None else None
    except (ValueError, OverflowError):  # year 0000, or a span running past year 9999: no time names it
        moment, span = None, None
    if moment is None:
        return Verdict(None, None, False, "not an instance of the template (no readable date): left alone")
    if span is None:
        # Falcon's reading of a path rolls impossible values over (day 30 of February is 2 March), but the feed
        # never writes such a path: only the path the template gives for its time is an instance.
        canonical = template.resolve(moment, zone)
        return Verdict(moment, None, False, f"not an instance of the template (instance "
                                            f"{format_instant(moment)} is at {canonical}): left alone")
    try:
        last = last_instance(template, path, span, grid)
    except (ValueError, OverflowError):  # a grid step past year 9999
        return Verdict(moment, None, False, "its instances cannot be computed (past year 9999): left alone")
    if last is None:
        return Verdict(moment, None, False, f"holds no instance of the feed (every {grid.frequency}"
                                            + (f" from {format_instant(grid.anchor)}" if grid.anchor else "")
                                            + "): left alone")
    return Verdict(moment, last, last < cutoff)


def partition_path(table: TableUri, partition: dict[str, str]) -> str:
    """The dated keys of a partition as :meth:`TableUri.dated_template` lays them out (``ds=20150101/hr=07``)."""
    return "/".join(f"{key}={partition[key]}" for key in table.dated_keys)


def judge_partition(table: TableUri, partition: dict[str, str], grid: FeedGrid, cutoff: datetime) -> Verdict:
    """Evict a partition only if it is an instance of the table feed whose every instance is past ``cutoff``.

    Its keys must be exactly the URI's, its static values the URI's, and each dated value exactly the URI's value
    at one time on the grid (each key checked alone, so a value holding ``/`` cannot borrow from the next key).
    """
    keys = [key for key, _ in table.partitions]
    if sorted(partition) != sorted(keys):
        return Verdict(None, None, False, f"partition keys {', '.join(partition) or '(none)'} are not the feed's "
                                          f"({', '.join(keys)}): not an instance, left alone")
    for key, value in table.static_partitions.items():
        if partition[key] != value:
            return Verdict(None, None, False, f"{key}={partition[key]} is another slice of the table (the feed's is "
                                              f"{key}={value}): left alone")
    template = table.dated_template()
    path = partition_path(table, partition)
    verdict = judge_path(template, path, grid, cutoff)
    if verdict.moment is None:
        return Verdict(None, None, False, f"{path} is not a value the table URI gives "
                                          f"({template.text}): not an instance, left alone")
    if verdict.reason is None:
        values = dict(table.partitions)
        moment = verdict.moment
        for key in table.dated_keys:
            if Template(values[key]).resolve(moment, grid.zone) != partition[key]:
                return Verdict(verdict.moment, None, False, f"{key}={partition[key]} is not a value the table URI "
                                                            f"gives ({key}={values[key]}): left alone")
    return verdict


# -- where a partition's files may be deleted ---------------------------------------------------------------------

@dataclass(frozen=True)
class Place:
    """A location read for comparison: file system (scheme, host, port made explicit) and normalised path."""

    filesystem: tuple[str, str, str]
    path: str


def _place(location: str, decode: bool) -> Place | str:
    """``location`` normalised, or why it cannot be: ``.``/``..`` resolved (climbing above the root is refused),
    repeated ``/`` collapsed; ``decode`` percent-decodes the path first (the URI reading; Hadoop's ``Path`` of a
    string reads it literally, so both readings must stay inside)."""
    match = _URI.match(location.strip())
    if match is None or not match["path"].startswith("/"):
        return f"{location} is not an absolute URI"
    scheme = match["scheme"].lower()
    host_port = (match["authority"] or "").lower().rpartition("@")[2]
    if host_port.startswith("["):  # an IPv6 literal: [::1]:8020
        host, _, rest = host_port.partition("]")
        host, port = host + "]", rest.removeprefix(":")
    else:
        host, _, port = host_port.partition(":")
    if scheme == "file" and host == "localhost":
        host = ""
    port = port or DEFAULT_PORTS.get(scheme, "")
    path = unquote(match["path"]) if decode else match["path"]
    if "\x00" in path:
        return f"{location} holds a NUL character"
    depth = 0
    for part in path.split("/"):
        if part == "..":
            depth -= 1
            if depth < 0:
                return f"{location} climbs above the root"
        elif part not in ("", "."):
            depth += 1
    return Place((scheme, host, port), posixpath.normpath(re.sub("/+", "/", path)))


def location_outside(folder: str, location: str) -> str | None:
    """``None`` when ``location`` lies strictly inside ``folder`` (a table's location) on the same file system in
    every reading, else why not. Symlinks are the job's to check: this is the text alone."""
    for decode in (False, True):
        inner, outer = _place(location, decode), _place(folder, decode)
        if isinstance(outer, str):
            return f"the table's location {outer}"
        if isinstance(inner, str):
            return inner
        if inner.filesystem != outer.filesystem:
            return f"{location} is on another file system than the table's {folder}"
        base = outer.path.rstrip("/")
        if not inner.path.startswith(base + "/") or inner.path == base:
            return f"{location} is not inside the table's folder {folder}"
    return None
