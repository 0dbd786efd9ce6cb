"""Feed retention: evict (delete or archive) feed instances older than a limit — Falcon's ``FeedEvictor``.

Command line (``spark-submit --py-files <jobs zip> entry/retention.py ARGS``)::

    --feed NAME --cluster NAME
    --location TYPE=TEMPLATE   repeatable; TYPE data|stats|meta|tmp; TEMPLATE a URI with ${YEAR}…${MINUTE}
                               (Falcon's ?{YEAR} spelling accepted), e.g. file:///d/in/${YEAR}/${MONTH}/${DAY}
    --table catalog:db:table#k=${YEAR}${MONTH}${DAY};k2=v    a table feed instead of locations
    --timezone TZ              feed time zone (IANA id or GMT+hh:mm), default UTC
    --limit FREQ               minutes(N)|hours(N)|days(N)|months(N) (months = 31 days)
    --frequency FREQ           the feed's frequency: its instances are every FREQ (required)
    --start yyyy-MM-ddTHH:mmZ  the feed's validity start on the cluster, where its instance grid starts (default:
                               each folder's or partition's own start is taken to be an instance)
    --action delete|archive    default delete; archive moves instances under --archive-root URI
    --dry-run                  report what would be evicted, change nothing
    --now yyyy-MM-ddTHH:mmZ    reference time (default: now, UTC)
    --report PATH              also write the JSON report to this local file

Filesystem algorithm (Falcon ``FileSystemStorage#evict``): cut-off = now − limit; every variable of a dated
template becomes ``*`` in a glob; each match's instance time is read back with the template in the feed time zone
(exact digit widths, HOUR 00-24, MINUTE 00-60); only a path the template gives for its time is an instance, and it
is evicted when the last instance of the feed's grid it holds is strictly older than the cut-off
(:mod:`falcon_airflow.core.eviction`): the instance itself when the template is as fine as the frequency, as in
Falcon, the last of its month when an hourly feed lives under ``${YEAR}/${MONTH}``, where Falcon deleted the current
month with this hour's data. Static templates, unreadable matches and folders holding no instance of the grid are
left alone. After deleting, parents that became empty are removed up to, never including, the template's base
folder (the folder before the first variable); empty folders whose whole time range is before the cut-off are
removed too, so a rerun after a crash finishes that clean-up.

Table feeds (``--table``, Falcon ``CatalogStorage#evict``): a partition is an instance only when its keys are the
URI's, its static values the URI's (another feed's slice of the table is never touched) and its dated values
exactly the URI's at one time of the grid; anything else (``ds=2019_restore``, ``ds=1``, ``ds=2026-12-31`` under
``ds=${YEAR}${MONTH}${DAY}``) is left alone and reported. Instances are judged by time as folders are (Falcon
compared the values as strings) and dropped with ``ALTER TABLE … DROP IF EXISTS PARTITION``. A partition's files
are deleted (an external table's by the job, as Falcon did; a managed table's by the catalog) only when its location
lies strictly inside the table's folder, no folder between them a symlink: an external table's partition placed
elsewhere loses its metadata only, a managed table's is not dropped at all (the catalog would delete its folder
wherever it is); both are reported.

Speed: a folder below the base that holds nothing but expired instances (nothing else, no symlink) goes in one
recursive delete; its instances are still reported one by one.

Safety: only normalised matches strictly below the base folder are touched; no component between the base folder
and an instance may be a symlink (``getFileLinkStatus``; ``java.nio`` on ``file:``, see ``HadoopFs``),
checked right before each delete, the deleted path itself afresh; such instances are skipped and reported, their
targets untouched, and recursive deletes never follow links inside an instance. Deletes are per instance (or per
folder of expired instances), so a rerun after a crash completes the job.

Output: stdout ``instances=<yyyyMMddHHmm,…>`` (feed time zone) or ``instances=NULL`` as Falcon printed, then a
one-line JSON summary. Report: ``{"job", "feed", "cluster", "now", "cutoff", "limit", "timezone", "action",
"dry_run", "evicted": [{"instance", "type", "path"[, "archived_to"][, "partition"]}], "kept", "skipped":
[{"path", "reason"[, "partition"]}], "failed": [{"path", "reason"[, "partition"]}], "removed_folders", "instances",
"seconds"}``.
Exit 0 done, 1 failures (reported), 2 bad arguments.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, tzinfo
from typing import TYPE_CHECKING, Any

from falcon_airflow.core.eviction import FeedGrid, judge_partition, judge_path, location_outside
from falcon_airflow.core.paths import Template
from falcon_airflow.core.tables import TableUri
from falcon_airflow.core.times import Duration, format_instant, parse_duration, parse_instant, parse_zone, utc_now
from falcon_airflow.jobs.catalog import (
    list_partitions,
    parse_table_uri,
    partition_detail,
    qualified,
    spec_sql,
    table_detail,
)
from falcon_airflow.jobs.filesystem import HadoopFs
from falcon_airflow.jobs.frame import (
    ArgumentParser,
    JobError,
    JobResult,
    UsageError,
    java_exception_class,
    run_job,
    spark_session,
)
from falcon_airflow.jobs.uris import Uri, checked_path, is_under, name_of, parent_of, parse_location, split_uri

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

LOCATION_TYPES = ("data", "stats", "meta", "tmp")


def build_parser() -> argparse.ArgumentParser:
    parser = ArgumentParser(prog="retention", description="Evict feed instances older than a limit.")
    parser.add_argument("--feed", required=True)
    parser.add_argument("--cluster", required=True)
    parser.add_argument("--location", action="append", default=[], metavar="TYPE=TEMPLATE")
    parser.add_argument("--table", metavar="CATALOG_URI")
    parser.add_argument("--timezone", default="UTC")
    parser.add_argument("--limit", required=True)
    parser.add_argument("--frequency", required=True)
    parser.add_argument("--start", metavar="yyyy-MM-ddTHH:mmZ")
    parser.add_argument("--action", choices=("delete", "archive"), default="delete")
    parser.add_argument("--archive-root", metavar="URI")
    parser.add_argument("--dry-run", action="store_true")
    parser.add_argument("--now", metavar="yyyy-MM-ddTHH:mmZ")
    parser.add_argument("--report", metavar="PATH")
    return parser


@dataclass(frozen=True)
class Location:
    kind: str
    uri: Uri  # scheme and authority of the template; the path part is ``template``
    template: Template


@dataclass(frozen=True)
class Options:
    feed: str
    cluster: str
    locations: tuple[Location, ...]
    table: TableUri | None
    zone: tzinfo
    zone_name: str
    limit: Duration
    grid: FeedGrid
    action: str
    archive_root: Uri | None
    dry_run: bool
    now: datetime

    @property
    def cutoff(self) -> datetime:
        return self.now - self.limit.delta


def parse_options(args: argparse.Namespace) -> Options:
    """Check every argument before Spark starts (UsageError → exit 2)."""
    if bool(args.location) == bool(args.table):
        raise UsageError("give either --location TYPE=TEMPLATE (repeatable) or --table, not both")
    locations = []
    seen = set()
    for text in args.location:
        kind, sep, template = text.partition("=")
        kind = kind.strip().lower()
        if not sep or kind not in LOCATION_TYPES:
            raise UsageError(f"--location {text!r}: expected TYPE=TEMPLATE with TYPE one of "
                             f"{', '.join(LOCATION_TYPES)}")
        if kind in seen:
            raise UsageError(f"--location: type {kind} given twice")
        seen.add(kind)
        uri = split_uri(template.strip())
        if "{" in (uri.scheme or "") + (uri.authority or ""):
            raise UsageError(f"--location {text!r}: variables are allowed in the path only")
        try:
            path = checked_path(uri.path)
        except ValueError as error:
            raise UsageError(f"--location {text!r}: {error}") from None
        locations.append(Location(kind, uri, Template.parse(path)))
    table = parse_table_uri(args.table) if args.table else None
    if table is not None and not table.dated_keys:
        raise UsageError(f"--table {args.table!r}: no partition value has a date variable")
    zone = parse_zone(args.timezone)
    grid = FeedGrid(parse_duration(args.frequency), zone, parse_instant(args.start) if args.start else None)
    archive_root = None
    if args.action == "archive":
        if not args.archive_root:
            raise UsageError("--action archive needs --archive-root URI")
        archive_root = parse_location(args.archive_root, "--archive-root")
        if archive_root.path == "/":
            raise UsageError("--archive-root must not be the file system root")
        for location in locations:
            base = location.template.base_folder
            if archive_root.path == base or is_under(archive_root.path, base):
                raise UsageError(f"--archive-root {args.archive_root} is inside the {location.kind} "
                                 f"location's base folder {base}")
            if location.uri.scheme and archive_root.scheme and not archive_root.same_filesystem(location.uri):
                raise UsageError(f"--archive-root {args.archive_root} is not on the file system of the "
                                 f"{location.kind} location (archiving moves, it does not copy)")
    elif args.archive_root:
        raise UsageError("--archive-root is only for --action archive")
    return Options(
        feed=args.feed, cluster=args.cluster, locations=tuple(locations), table=table,
        zone=zone, zone_name=args.timezone, limit=parse_duration(args.limit), grid=grid,
        action=args.action, archive_root=archive_root, dry_run=args.dry_run,
        now=parse_instant(args.now) if args.now else utc_now())


@dataclass
class Outcome:
    evicted: list[dict[str, Any]] = field(default_factory=list)
    moments: list[datetime] = field(default_factory=list)
    kept: int = 0
    skipped: list[dict[str, str]] = field(default_factory=list)
    failed: list[dict[str, str]] = field(default_factory=list)
    removed_folders: int = 0


class LocationEvictor:
    """Eviction of one location template (one file system, one base folder)."""

    def __init__(self, fs: HadoopFs, options: Options, location: Location, outcome: Outcome) -> None:
        self.fs = fs
        self.options = options
        self.location = location
        self.template = location.template
        self.base = location.template.base_folder
        self.outcome = outcome
        self.root = Uri(None, None, "/")
        self._links: dict[str, bool | None] = {}  # ancestors' symlink checks in this run
        self._collapsed_sizes: dict[str, int] = {}

    def uri(self, path: str) -> str:
        return self.root.with_path(path)

    def run(self) -> None:
        if not self.template.is_dated:
            self.outcome.skipped.append({"path": str(self.location.uri.with_path(self.template.text)),
                                         "reason": "static path (no date variable): ignored"})
            return
        self.root = self.fs.qualify(self.location.uri.with_path(self.base))
        candidates: list[tuple[str, datetime]] = []
        for entry in self.fs.glob(self.uri(self.template.glob())):
            path = self.checked_path(entry.path)
            if path is None:
                continue
            verdict = judge_path(self.template, path, self.options.grid, self.options.cutoff)
            if verdict.reason is not None:
                self.skip(path, verdict.reason)
            elif verdict.evict and verdict.moment is not None:
                candidates.append((path, verdict.moment))
            else:
                self.outcome.kept += 1
        candidates.sort()
        groups = self.collapse_plan(candidates)
        covered = {path for members in groups.values() for path, _ in members}
        work: list[tuple[str, datetime | None]] = [(folder, None) for folder in groups]
        work += [(path, moment) for path, moment in candidates if path not in covered]
        parents = set()
        for path, maybe_moment in sorted(work, key=lambda item: item[0]):
            done = (self.evict(path, maybe_moment) if maybe_moment is not None
                    else self.evict_folder(path, groups[path]))
            if done:
                parents.add(parent_of(path))
        if not self.options.dry_run:
            self.remove_empty_parents(parents)
            self.sweep_expired_empty_folders()

    def checked_path(self, hadoop_path: str) -> str | None:
        """The normalised path of a glob match if it is strictly below the base folder on the same file system."""
        found = split_uri(hadoop_path)
        if not found.same_filesystem(self.root):
            self.skip(hadoop_path, "outside the template's file system")
            return None
        try:
            path = checked_path(found.path)
        except ValueError as error:
            self.skip(hadoop_path, f"unsafe path: {error}")
            return None
        if not is_under(path, self.base):
            self.skip(path, f"not below the base folder {self.base}")
            return None
        return path

    def skip(self, path: str, reason: str) -> None:
        self.outcome.skipped.append({"path": self.uri(path) if path.startswith("/") else path, "reason": reason})

    def unsafe(self, path: str) -> str | None:
        """Why ``path`` must not be touched now, or ``None``: it must still exist and no folder from the base down
        to it (itself included, checked afresh) may be a symlink."""
        current = self.base
        parts = path[len(self.base):].strip("/").split("/")
        for index, part in enumerate(parts):
            current = current.rstrip("/") + "/" + part
            last = index == len(parts) - 1
            if not last and current in self._links:
                link = self._links[current]
            else:
                link = self.fs.is_symlink(self.uri(current))
                if not last:
                    self._links[current] = link
            if link is None:
                return "vanished before it could be evicted"
            if link:
                return f"{self.uri(current)} is a symbolic link: not followed, left alone"
        return None

    def evict(self, path: str, moment: datetime) -> bool:
        reason = self.unsafe(path)
        if reason is not None:
            self.skip(path, reason)
            return False
        record: dict[str, Any] = {"instance": format_instant(moment), "type": self.location.kind,
                                  "path": self.uri(path)}
        if not self.options.dry_run:
            try:
                if self.options.action == "archive":
                    record["archived_to"] = self.archive(path)
                elif not self.fs.delete(self.uri(path), True):
                    if self.fs.exists(self.uri(path)):
                        raise JobError("delete returned false")
                    self.skip(path, "vanished before it could be evicted")
                    return False
            except Exception as error:
                self.outcome.failed.append({"path": self.uri(path), "reason": _reason(error)})
                return False
        self.outcome.evicted.append(record)
        self.outcome.moments.append(moment)
        return True

    def collapse_plan(self, candidates: list[tuple[str, datetime]]) -> dict[str, list[tuple[str, datetime]]]:
        """Folders below the base that hold nothing but expired instances (no symlink anywhere between them and the
        instances, nothing else in them): each is deleted with one recursive delete instead of one per instance,
        which is what makes a large eviction cheap (one py4j call instead of thousands). The instances inside are
        reported one by one as usual. Delete action only; any doubt (a listing fails) means no plan.
        """
        if self.options.dry_run or self.options.action != "delete" or len(candidates) < 2:
            return {}
        expired = dict(candidates)
        levels: dict[int, set[str]] = {}
        for path in expired:
            folder = parent_of(path)
            while is_under(folder, self.base):
                levels.setdefault(folder.count("/"), set()).add(folder)
                folder = parent_of(folder)
        folders = set().union(*levels.values()) if levels else set()
        if not folders:
            return {}
        listed = self.fs.list_many([self.uri(folder) for folder in sorted(folders)])
        if listed is None:
            return {}
        links: dict[str, set[str]] = {folder: set() for folder in folders | {self.base}}
        if self.fs.is_local(self.uri(self.base)):
            depth = len(self.template.text.strip("/").split("/")) - self.base.count("/") + (self.base == "/")
            symlinks = self.fs.symlinks_below(self.uri(self.base), depth)
            if symlinks is None:
                return {}
            for link in symlinks:
                links.setdefault(parent_of(link), set()).add(name_of(link))
        else:  # HDFS lists a link as a link; the base's own children come from one more listing
            base_listing = self.fs.list_many([self.uri(self.base)])
            if base_listing is None:
                return {}
            for folder, children in [*listed.items(), *base_listing.items()]:
                links[folder] = {name_of(entry.path) for entry in children if entry.is_symlink}
        for folder in folders:
            self._links[folder] = name_of(folder) in links[parent_of(folder)]
        collapsible: dict[str, int] = {}  # folder -> folders it holds above the instances (itself included)
        for depth in sorted(levels, reverse=True):
            for folder in levels[depth]:
                children = listed.get(folder) or []
                if self._links[folder] or not children:
                    continue
                held = 1
                for entry in children:
                    found = split_uri(entry.path)
                    child = found.path.rstrip("/")
                    if name_of(child) in links[folder] or not found.same_filesystem(self.root):
                        break
                    if child in collapsible:
                        held += collapsible[child]
                    elif child not in expired:
                        break
                else:
                    collapsible[folder] = held
        groups: dict[str, list[tuple[str, datetime]]] = {}
        self._collapsed_sizes = {}
        for path, moment in candidates:
            top, folder = None, parent_of(path)
            while folder in collapsible:
                top, folder = folder, parent_of(folder)
            if top is not None:
                groups.setdefault(top, []).append((path, moment))
                self._collapsed_sizes[top] = collapsible[top]
        return groups

    def evict_folder(self, folder: str, members: list[tuple[str, datetime]]) -> bool:
        """Delete a folder of expired instances at once (see :meth:`collapse_plan`); checked afresh first."""
        if self.unsafe(folder) is not None:  # changed since the plan: fall back to instance by instance
            results = [self.evict(path, moment) for path, moment in members]
            return any(results)
        try:
            if not self.fs.delete(self.uri(folder), True) and self.fs.exists(self.uri(folder)):
                raise JobError("delete returned false")
        except Exception as error:
            self.outcome.failed.append({"path": self.uri(folder), "reason": _reason(error)})
            return False
        self._links.pop(folder, None)
        self.outcome.removed_folders += self._collapsed_sizes.get(folder, 1)
        for path, moment in members:
            self.outcome.evicted.append({"instance": format_instant(moment), "type": self.location.kind,
                                         "path": self.uri(path)})
            self.outcome.moments.append(moment)
        return True

    def archive(self, path: str) -> str:
        """Move an instance under the archive root, keeping its path below the authority root."""
        assert self.options.archive_root is not None
        archive_root = self.options.archive_root
        root = archive_root if archive_root.scheme else self.root
        target = checked_path(archive_root.path + path)
        candidate, suffix = target, 0
        while self.fs.exists(root.with_path(candidate)):  # archived before (an instance re-made and re-expired)
            suffix += 1
            candidate = f"{target}.{suffix}"
        self.fs.mkdirs(root.with_path(parent_of(candidate)))
        if not self.fs.rename(self.uri(path), root.with_path(candidate)):
            raise JobError(f"rename to {root.with_path(candidate)} returned false")
        return root.with_path(candidate)

    def remove_empty_parents(self, parents: set[str]) -> None:
        """Falcon's clean-up: walk up from each evicted instance while folders are empty, stopping at the base."""
        level = {parent for parent in parents if is_under(parent, self.base)}
        while level:
            depth = max(folder.count("/") for folder in level)
            for folder in sorted(folder for folder in level if folder.count("/") == depth):
                level.discard(folder)
                if self.remove_if_empty(folder):
                    parent = parent_of(folder)
                    if is_under(parent, self.base):
                        level.add(parent)

    def remove_if_empty(self, folder: str) -> bool:
        uri = self.uri(folder)
        if self.fs.is_symlink(uri) is not False or not self.fs.is_empty_dir(uri):
            return False
        self._links.pop(folder, None)
        try:
            removed = self.fs.delete(uri, False)  # not recursive: fails rather than remove anything put there
        except Exception:  # a producer wrote into it meanwhile
            return False
        self.outcome.removed_folders += int(removed)
        return removed

    def sweep_expired_empty_folders(self) -> None:
        """Empty folders between the base and the instances whose whole time range is before the cut-off (left by
        a run that crashed between deleting the last instance and its parents)."""
        components = self.template.text.strip("/").split("/")
        base_depth = len([part for part in self.base.split("/") if part])
        for depth in range(len(components) - 1, base_depth, -1):
            prefix = Template("/" + "/".join(components[:depth]))
            if not prefix.is_dated:
                continue
            for entry in self.fs.glob(self.uri(prefix.glob())):
                if not entry.is_dir:
                    continue
                found = split_uri(entry.path)
                try:
                    path = checked_path(found.path)
                except ValueError:
                    continue
                if not found.same_filesystem(self.root) or not is_under(path, self.base):
                    continue
                end = prefix.span_end(path, self.options.zone)
                if end is None or end > self.options.cutoff or self.unsafe(path) is not None:
                    continue
                self.remove_if_empty(path)


def evict_table(spark: SparkSession, fs: HadoopFs, options: Options, outcome: Outcome) -> None:
    """Falcon ``CatalogStorage#evict``: drop the partitions that are instances of the feed whose every instance is
    older than the cut-off (:func:`falcon_airflow.core.eviction.judge_partition`), deleting their files only
    inside the table's own folder (:meth:`partition_data_problem`)."""
    table = options.table
    assert table is not None
    external = (table_detail(spark, table, "Type") or "").upper() == "EXTERNAL"
    table_location = table_detail(spark, table, "Location")
    for partition in sorted(list_partitions(spark, table), key=lambda spec: sorted(spec.items())):
        name = "/".join(f"{key}={value}" for key, value in partition.items())
        verdict = judge_partition(table, partition, options.grid, options.cutoff)
        if verdict.reason is not None:
            outcome.skipped.append({"path": name, "partition": name, "reason": verdict.reason})
            continue
        if not verdict.evict:
            outcome.kept += 1
            continue
        details = partition_detail(spark, table, partition, check=False) or {}
        location = details.get("Location")
        try:
            problem = partition_data_problem(fs, table_location, location)
        except Exception as error:
            outcome.failed.append({"path": location or name, "partition": name, "reason": _reason(error)})
            continue
        if problem is not None and not external:
            # the catalog deletes a managed table's partition folder wherever it is: not dropped at all
            outcome.skipped.append({"path": location or name, "partition": name,
                                    "reason": f"partition not dropped: {problem}; dropping it would delete that "
                                              f"folder"})
            continue
        record: dict[str, Any] = {"instance": format_instant(verdict.moment) if verdict.moment else None,
                                  "type": "table", "path": location, "partition": name}
        if not options.dry_run:
            try:
                data = location if problem is None and location and fs.exists(location) else None
                if options.action == "archive" and data is not None:
                    record["archived_to"] = _archive_partition(fs, options, data)
                spark.sql(f"ALTER TABLE {qualified(table)} DROP IF EXISTS {spec_sql(table, partition)}")
                if external and options.action == "delete" and data is not None:
                    fs.delete(data, True)  # Falcon deleted the data of external tables too
            except Exception as error:
                outcome.failed.append({"path": location or name, "partition": name, "reason": _reason(error)})
                continue
        if problem is not None:
            outcome.skipped.append({"path": location or name, "partition": name,
                                    "reason": f"partition dropped, its data not {options.action}d: {problem}"})
        outcome.evicted.append(record)
        if verdict.moment is not None:
            outcome.moments.append(verdict.moment)


def partition_data_problem(fs: HadoopFs, table_location: str | None, location: str | None) -> str | None:
    """Why a partition's files must not be deleted, or ``None``: its location must lie strictly inside the table's
    folder (:func:`falcon_airflow.core.eviction.location_outside`: same file system, default ports, ``..`` and
    percent-encoding read both ways), and no folder from the table's down to it (itself included) is a symlink."""
    if not location:
        return "the partition has no location"
    if not table_location:
        return "the table has no location to hold its partitions"
    outside = location_outside(table_location, location)
    if outside is not None:
        return outside
    found = split_uri(location)
    try:  # inside once resolved, but the folders to check for links are the ones named, without . or ..
        table_path, path = checked_path(split_uri(table_location).path), checked_path(found.path)
    except ValueError as error:
        return str(error)
    if not is_under(path, table_path):
        return f"{location} is not inside the table's folder {table_location}"
    current = table_path
    for part in path[len(table_path):].strip("/").split("/"):
        current = f"{current}/{part}" if current != "/" else f"/{part}"
        uri = found.with_path(current)
        if fs.is_symlink(uri):
            return f"{uri} is a symbolic link: not followed"
    return None


def _archive_partition(fs: HadoopFs, options: Options, location: str) -> str:
    assert options.archive_root is not None
    source = split_uri(location)
    root = options.archive_root if options.archive_root.scheme else source
    target = checked_path(options.archive_root.path + checked_path(source.path))
    candidate, suffix = target, 0
    while fs.exists(root.with_path(candidate)):
        suffix += 1
        candidate = f"{target}.{suffix}"
    fs.mkdirs(root.with_path(parent_of(candidate)))
    if not fs.rename(location, root.with_path(candidate)):
        raise JobError(f"rename to {root.with_path(candidate)} returned false")
    return root.with_path(candidate)


def _reason(error: BaseException) -> str:
    java = java_exception_class(error)
    text = str(getattr(error, "java_exception", None) or error).strip().splitlines()
    return (f"{java}: " if java and not (text and text[0].startswith(java)) else "") + (text[0] if text else "")


def evict(spark: SparkSession, options: Options) -> Outcome:
    """Run the eviction for every location (or the table) and return what happened."""
    fs = HadoopFs(spark)
    outcome = Outcome()
    if options.table is not None:
        evict_table(spark, fs, options, outcome)
    for location in options.locations:
        LocationEvictor(fs, options, location, outcome).run()
    return outcome


def instances_line(outcome: Outcome, zone: tzinfo) -> str:
    """Falcon's stdout line: ``instances=<yyyyMMddHHmm,…>`` in the feed time zone, or ``instances=NULL``."""
    stamps = sorted({moment.astimezone(zone).strftime("%Y%m%d%H%M") for moment in outcome.moments})
    return "instances=" + (",".join(stamps) if stamps else "NULL")


def main(argv: Sequence[str] | None = None, spark: SparkSession | None = None) -> int:
    """Run the retention job on ``argv`` (``spark`` defaults to the running session, or a new one)."""

    def body(args: argparse.Namespace) -> JobResult:
        options = parse_options(args)
        with spark_session(f"falcon-retention-{options.feed}", spark, hive=options.table is not None) as session:
            outcome = evict(session, options)
        line = instances_line(outcome, options.zone)
        report = {
            "job": "retention", "feed": options.feed, "cluster": options.cluster,
            "now": format_instant(options.now), "cutoff": format_instant(options.cutoff),
            "limit": str(options.limit), "timezone": options.zone_name, "action": options.action,
            "dry_run": options.dry_run, "evicted": outcome.evicted, "kept": outcome.kept,
            "skipped": outcome.skipped, "failed": outcome.failed, "removed_folders": outcome.removed_folders,
            "instances": line.split("=", 1)[1],
        }
        summary = {key: report[key] for key in ("job", "feed", "cluster", "cutoff", "action", "dry_run", "kept",
                                                "removed_folders")}
        summary.update(evicted=len(outcome.evicted), skipped=len(outcome.skipped), failed=len(outcome.failed))
        return JobResult(summary, report, [line], code=1 if outcome.failed else 0)

    return run_job("retention", build_parser(), argv, body)

