"""What the lifecycle jobs share: argument handling, reports, Falcon's path and time rules, Hadoop FS access.

This one file is shipped beside each job with ``spark-submit --py-files common.py``, so it imports only the
standard library and pyspark (lazily: the pure parts below run without Spark and are unit-tested as such).

Pure pieces (no Spark):

* durations ``minutes(N)|hours(N)|days(N)|months(N)`` (months are 31 days for a cut-off, as Falcon's evaluator);
* instants ``yyyy-MM-ddTHH:mmZ`` and feed time zones (IANA ids, ``GMT+05:30`` offsets);
* :class:`Template`, a feed path template with ``${YEAR}`` … ``${MINUTE}``: its glob, its base folder and the
  instance time of a concrete path (Falcon's ``FeedHelper.getDate`` rules);
* catalog table URIs ``catalog:db:table#k=v;k2=v2`` and Falcon's lexicographic partition cut-off;
* DistCp include globs converted the way Falcon's ``FilteredCopyListing`` did.

Spark pieces: :class:`HadoopFs` does every data-path operation through the Hadoop ``FileSystem`` API of the
Spark JVM (so ``file://``, ``hdfs://`` and ``s3a://`` behave alike) and reads directory listings in bulk, because
each py4j call costs tens of microseconds.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
import xml.etree.ElementTree as ElementTree
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, timezone, tzinfo
from functools import cached_property
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


# --------------------------------------------------------------------------------------------------------------
# Errors and the command-line frame every job uses


class UsageError(Exception):
    """Bad arguments: the job prints the message and exits with 2, never with a traceback."""


class JobError(Exception):
    """A failure the job can explain (missing source, failed verification): exit 1 with the message."""


class ArgumentParser(argparse.ArgumentParser):
    """argparse that raises :class:`UsageError` instead of exiting, so ``main(argv)`` can return a code."""

    def error(self, message: str) -> Any:  # argparse's signature is NoReturn; raising keeps that promise
        raise UsageError(message)


@dataclass
class JobResult:
    """What a job body returns: the stdout summary, the report file content and extra stdout lines."""

    summary: dict[str, Any]
    report: dict[str, Any]
    lines: list[str] = field(default_factory=list)
    code: int = 0


def run_job(name: str, parser: argparse.ArgumentParser, argv: Sequence[str] | None,
            body: Callable[[argparse.Namespace], JobResult]) -> int:
    """Parse ``argv``, run ``body`` and print its result: extra lines, then the one-line JSON summary (last line).

    Exit codes: 0 done, 1 :class:`JobError` (the report, if asked for, says ``error``), 2 bad arguments.
    """
    try:
        args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    except SystemExit as done:  # --help
        return int(done.code or 0)
    except UsageError as error:
        parser.print_usage(sys.stderr)
        print(f"{name}: error: {error}", file=sys.stderr)
        return 2
    started = time.monotonic()
    report_path = getattr(args, "report", None)
    try:
        try:
            result = body(args)
        except Exception as error:
            java = java_exception_class(error)
            if java is None or isinstance(error, (UsageError, JobError)):
                raise
            # a Hadoop/Spark failure (permission denied, unreachable name node): its first line, no py4j trace
            lines = str(getattr(error, "java_exception", None) or error).strip().splitlines()
            raise JobError(lines[0] if lines else java) from error
    except UsageError as error:
        parser.print_usage(sys.stderr)
        print(f"{name}: error: {error}", file=sys.stderr)
        return 2
    except JobError as error:
        seconds = round(time.monotonic() - started, 3)
        failure = {"job": name, "error": str(error), "seconds": seconds}
        print(f"{name}: failed: {error}", file=sys.stderr)
        print(json.dumps(failure), flush=True)
        if report_path:
            write_report(report_path, failure)
        return 1
    seconds = round(time.monotonic() - started, 3)
    result.summary["seconds"] = seconds
    result.report["seconds"] = seconds
    if report_path:
        write_report(report_path, result.report)
        result.summary["report"] = report_path
    for line in result.lines:
        print(line)
    print(json.dumps(result.summary), flush=True)
    return result.code


def write_report(path: str, data: dict[str, Any]) -> None:
    """Write ``data`` as JSON to a local file (written aside, then renamed, so a reader never sees half)."""
    local = path[len("file://"):] if path.startswith("file://") else path
    folder = os.path.dirname(os.path.abspath(local))
    os.makedirs(folder, exist_ok=True)
    temporary = f"{local}.tmp-{os.getpid()}"
    with open(temporary, "w", encoding="utf-8") as handle:
        json.dump(data, handle, indent=1)
        handle.write("\n")
    os.replace(temporary, local)


def script_main(main: Callable[[Sequence[str] | None], int]) -> None:
    """``if __name__ == "__main__"`` of a job file: run ``main`` on ``sys.argv`` and exit with its code."""
    sys.exit(main(sys.argv[1:]))


@contextmanager
def spark_session(app_name: str, spark: SparkSession | None = None, hive: bool = False) -> Iterator[SparkSession]:
    """The session a job runs in: the one given, the one already running, or a new one (stopped at the end).

    Hive support is asked for only when a catalog table is involved (``hive=True``); an existing session is used
    as it is.
    """
    if spark is not None:
        yield spark
        return
    from pyspark import SparkContext
    from pyspark.sql import SparkSession

    if SparkContext._active_spark_context is not None:
        yield SparkSession.builder.getOrCreate()
        return
    builder = SparkSession.builder.appName(app_name)
    if hive:
        builder = builder.enableHiveSupport()
    session = builder.getOrCreate()
    try:
        yield session
    finally:
        session.stop()


# --------------------------------------------------------------------------------------------------------------
# Instants, durations, time zones

INSTANT_FORMAT = "%Y-%m-%dT%H:%MZ"
_INSTANT = re.compile(r"(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?Z")
_DURATION = re.compile(r"\s*(?:\$\{\s*)?(minutes|hours|days|months)\s*\(\s*(\d+)\s*\)\s*\}?\s*")
_UNIT_MINUTES = {"minutes": 1, "hours": 60, "days": 24 * 60, "months": 31 * 24 * 60}
_OFFSET_ZONE = re.compile(r"(?:GMT|UTC)([+-])(\d{1,2})(?::?(\d{2}))?")


def parse_instant(text: str) -> datetime:
    """``yyyy-MM-ddTHH:mmZ`` (seconds optional) as an aware UTC datetime."""
    match = _INSTANT.fullmatch(text.strip())
    if not match:
        raise UsageError(f"{text!r} is not an instant of the form yyyy-MM-ddTHH:mmZ")
    year, month, day, hour, minute, second = (int(group or 0) for group in match.groups())
    try:
        return datetime(year, month, day, hour, minute, second, tzinfo=UTC)
    except ValueError as error:
        raise UsageError(f"{text!r} is not a valid instant: {error}") from None


def format_instant(moment: datetime) -> str:
    """An aware datetime as ``yyyy-MM-ddTHH:mmZ`` (UTC)."""
    return moment.astimezone(UTC).strftime(INSTANT_FORMAT)


def utc_now() -> datetime:
    """The current time, to the minute (the precision of the instants the jobs print)."""
    return datetime.now(UTC).replace(second=0, microsecond=0)


@dataclass(frozen=True)
class Duration:
    """A Falcon frequency or limit such as ``hours(5)``."""

    unit: str
    count: int

    @property
    def minutes(self) -> int:
        """Length in minutes, months counted as 31 days (Falcon's ``EvictionHelper``)."""
        return _UNIT_MINUTES[self.unit] * self.count

    @property
    def delta(self) -> timedelta:
        return timedelta(minutes=self.minutes)

    def __str__(self) -> str:
        return f"{self.unit}({self.count})"


def parse_duration(text: str, *, positive: bool = True) -> Duration:
    """``minutes(N)``, ``hours(N)``, ``days(N)`` or ``months(N)`` (also inside ``${…}``)."""
    match = _DURATION.fullmatch(text)
    if not match:
        raise UsageError(f"{text!r} is not a duration: use minutes(N), hours(N), days(N) or months(N)")
    duration = Duration(match[1], int(match[2]))
    if positive and duration.count <= 0:
        raise UsageError(f"{text!r}: the count must be at least 1")
    return duration


def parse_zone(text: str) -> tzinfo:
    """A feed time zone: an IANA id (``America/Los_Angeles``), ``UTC``/``GMT`` or a Java offset (``GMT+05:30``)."""
    name = text.strip()
    offset = _OFFSET_ZONE.fullmatch(name)
    if offset:
        hours, minutes = int(offset[2]), int(offset[3] or 0)
        if hours > 18 or minutes > 59:
            raise UsageError(f"{text!r} is not a valid offset time zone")
        sign = -1 if offset[1] == "-" else 1
        return timezone(sign * timedelta(hours=hours, minutes=minutes), name)
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise UsageError(f"unknown time zone {text!r} (use an IANA id such as UTC or America/Los_Angeles)") from None


# --------------------------------------------------------------------------------------------------------------
# Feed path templates (Falcon FeedDataPath / FeedHelper.getDate)

VARIABLES = ("YEAR", "MONTH", "DAY", "HOUR", "MINUTE")
WIDTH = {"YEAR": 4, "MONTH": 2, "DAY": 2, "HOUR": 2, "MINUTE": 2}
_VALUE = {
    "YEAR": re.compile(r"\d{4}"),
    "MONTH": re.compile(r"0[1-9]|1[0-2]"),
    "DAY": re.compile(r"0[1-9]|[12]\d|3[01]"),
    "HOUR": re.compile(r"[01]\d|2[0-4]"),  # 24 accepted, as Falcon did
    "MINUTE": re.compile(r"[0-5]\d|60"),  # 60 accepted, as Falcon did
}
_VARIABLE = re.compile(r"[$?]\{(YEAR|MONTH|DAY|HOUR|MINUTE)\}")
_ANY_EXPRESSION = re.compile(r"[$?]\{[^}]*\}?")
_GLOB_SPECIAL = re.compile(r"([\\*?\[\]{}])")


def glob_escape(text: str) -> str:
    """Literal text inside a Hadoop glob (``*?[]{}\\`` escaped with a backslash)."""
    return _GLOB_SPECIAL.sub(r"\\\1", text)


def accepts_value(variable: str, text: str) -> bool:
    """Whether ``text`` is a value Falcon reads for ``variable`` (exact width, HOUR 00-24, MINUTE 00-60)."""
    return len(text) == WIDTH[variable] and bool(_VALUE[variable].fullmatch(text))


def _wall_clock(values: dict[str, int], zone: tzinfo) -> datetime:
    """Fields set the way Java's lenient calendar did (day 31 of a 30-day month, hour 24, minute 60 roll over)."""
    wall = datetime(values["YEAR"], values["MONTH"], 1) + timedelta(
        days=values["DAY"] - 1, hours=values["HOUR"], minutes=values["MINUTE"])
    return wall.replace(tzinfo=zone)


@dataclass(frozen=True)
class Template:
    """A feed path template (the path part of a location URI, or any text) with Falcon date variables."""

    text: str

    @staticmethod
    def parse(text: str) -> Template:
        """Check the variables (``${X}`` or Falcon's Oozie-escaped ``?{X}``) and normalise them to ``${X}``."""
        for expression in _ANY_EXPRESSION.findall(text):
            if not _VARIABLE.fullmatch(expression):
                raise UsageError(f"{expression!r} in {text!r} is not a path variable "
                                 f"(use ${{YEAR}}, ${{MONTH}}, ${{DAY}}, ${{HOUR}}, ${{MINUTE}})")
        return Template(_VARIABLE.sub(lambda match: "${" + match[1] + "}", text))

    @cached_property
    def pieces(self) -> tuple[tuple[str, str | None], ...]:
        """(literal text, variable after it) in order; the last piece is (trailing text, ``None``)."""
        pieces: list[tuple[str, str | None]] = []
        position = 0
        for match in _VARIABLE.finditer(self.text):
            pieces.append((self.text[position:match.start()], match[1]))
            position = match.end()
        pieces.append((self.text[position:], None))
        return tuple(pieces)

    @property
    def variables(self) -> tuple[str, ...]:
        return tuple(variable for _, variable in self.pieces if variable is not None)

    @property
    def is_dated(self) -> bool:
        return bool(self.variables)

    @property
    def base_folder(self) -> str:
        """The deepest whole folder before the first variable (``/data/in/x${YEAR}`` → ``/data/in``).

        Retention never removes it or anything above it. A static template is its own base.
        """
        prefix = self.pieces[0][0]
        if not self.is_dated:
            return prefix.rstrip("/") or "/"
        cut = prefix.rfind("/")
        return prefix[:cut] if cut > 0 else "/"

    def glob(self) -> str:
        """Falcon's glob: every variable becomes ``*``; glob characters in the literal text are escaped."""
        return "".join(glob_escape(text) + ("*" if variable else "") for text, variable in self.pieces)

    def resolve(self, moment: datetime, zone: tzinfo) -> str:
        """The template with each variable replaced by the zero-padded value of ``moment`` in ``zone``."""
        local = moment.astimezone(zone)
        values = {"YEAR": f"{local.year:04d}", "MONTH": f"{local.month:02d}", "DAY": f"{local.day:02d}",
                  "HOUR": f"{local.hour:02d}", "MINUTE": f"{local.minute:02d}"}
        return _VARIABLE.sub(lambda match: values[match[1]], self.text)

    def read_values(self, path: str) -> dict[str, int] | None:
        """The variable values a path holds, or ``None`` if it does not fit (Falcon's ``getDate`` walk).

        The literal text between variables must come next in the path, each value has exactly its width and passes
        its value rule, and the trailing template text must follow (deeper folders may come after it). A variable
        repeated with two different values makes the path unreadable (Falcon silently kept the last one; leaving
        such a path alone is the safe reading).
        """
        values: dict[str, int] = {}
        rest = path
        for literal, variable in self.pieces:
            if not rest.startswith(literal):
                return None
            rest = rest[len(literal):]
            if variable is None:
                # Deeper folders may follow the template (Falcon's P7 case), but not more text in the same
                # component: `/d/${DAY}` does not read `/d/01.bak` as day 01 (Falcon did; deleting it is unsafe).
                if rest and not rest.startswith("/") and not literal.endswith("/"):
                    return None
                break
            text = rest[:WIDTH[variable]]
            if not accepts_value(variable, text):
                return None
            if values.setdefault(variable, int(text)) != int(text):
                return None
            rest = rest[WIDTH[variable]:]
        return values

    def instance_time(self, path: str, zone: tzinfo) -> datetime | None:
        """The instance time ``path`` stands for in ``zone`` (aware), or ``None`` when it is not an instance.

        Variables the template lacks default to January, day 1, 00:00; a template without ``${YEAR}`` names no
        instance.
        """
        values = self.read_values(path)
        if values is None or "YEAR" not in values:
            return None
        return _wall_clock({"MONTH": 1, "DAY": 1, "HOUR": 0, "MINUTE": 0, **values}, zone)

    def span_end(self, path: str, zone: tzinfo) -> datetime | None:
        """For a path matching this (prefix) template: the end of the time range every instance below it lies in.

        Defined only when the template's variables are a leading run of YEAR, MONTH, DAY, HOUR, MINUTE (so that
        the folder bounds its instances); ``None`` otherwise or when the path does not fit.
        """
        values = self.read_values(path)
        if values is None:
            return None
        present = set(values)
        run = [variable for variable in VARIABLES if variable in present]
        if not run or tuple(run) != VARIABLES[:len(run)]:
            return None
        finest = run[-1]
        full = {"MONTH": 1, "DAY": 1, "HOUR": 0, "MINUTE": 0, **values}
        if finest == "YEAR":
            full["YEAR"] += 1
        elif finest == "MONTH":
            full["YEAR"] += full["MONTH"] // 12
            full["MONTH"] = full["MONTH"] % 12 + 1
        else:
            start = _wall_clock(full, zone).replace(tzinfo=None)
            step = {"DAY": timedelta(days=1), "HOUR": timedelta(hours=1), "MINUTE": timedelta(minutes=1)}[finest]
            return (start + step).replace(tzinfo=zone)
        return _wall_clock(full, zone)


# --------------------------------------------------------------------------------------------------------------
# URIs and safe paths

_URI = re.compile(r"^(?P<scheme>[A-Za-z][A-Za-z0-9+.\-]*):(?://(?P<authority>[^/]*))?(?P<path>.*)$")


@dataclass(frozen=True)
class Uri:
    """A split URI: ``file:///a/b`` → (``file``, ``""``, ``/a/b``); a bare ``/a/b`` has no scheme."""

    scheme: str | None
    authority: str | None
    path: str

    @property
    def root(self) -> str:
        """``scheme://authority`` (``file://`` for local paths), or ``""`` for a bare path."""
        if not self.scheme:
            return ""
        return f"{self.scheme}://{self.authority or ''}"

    def with_path(self, path: str) -> str:
        return self.root + path

    def same_filesystem(self, other: Uri) -> bool:
        """Same scheme and (when both name one) the same host: Hadoop prints ``file:/x`` for ``file:///x``."""
        if (self.scheme or "").lower() != (other.scheme or "").lower():
            return False
        if self.authority and other.authority:
            return self.authority.split(":")[0].lower() == other.authority.split(":")[0].lower()
        return True

    def __str__(self) -> str:
        return self.with_path(self.path)


def split_uri(text: str) -> Uri:
    match = _URI.match(text)
    if match and (match["authority"] is not None or match["path"].startswith("/")):
        return Uri(match["scheme"], match["authority"], match["path"] or "/")
    return Uri(None, None, text)


def normalize_path(path: str) -> str:
    """Collapse repeated and trailing ``/``; refuse relative paths and ``.``/``..`` components (ValueError)."""
    if not path.startswith("/"):
        raise ValueError(f"{path!r} is not an absolute path")
    parts = [part for part in path.split("/") if part]
    for part in parts:
        if part in (".", ".."):
            raise ValueError(f"{path!r} has a {part!r} component")
    return "/" + "/".join(parts)


def parse_location(text: str, what: str) -> Uri:
    """A user-given location URI (or absolute path), normalised; UsageError if unsafe or relative."""
    uri = split_uri(text.strip())
    try:
        return Uri(uri.scheme, uri.authority, normalize_path(uri.path))
    except ValueError as error:
        raise UsageError(f"{what} {text!r}: {error}") from None


def is_under(path: str, folder: str) -> bool:
    """Whether ``path`` is strictly below ``folder`` (both normalised)."""
    if folder == "/":
        return path != "/"
    return path.startswith(folder + "/")


def parent_of(path: str) -> str:
    cut = path.rstrip("/").rfind("/")
    return path[:cut] if cut > 0 else "/"


def name_of(path: str) -> str:
    return path.rstrip("/").rsplit("/", 1)[-1]


# --------------------------------------------------------------------------------------------------------------
# Catalog table URIs (Falcon CatalogStorage)

_IDENTIFIER = re.compile(r"[A-Za-z0-9_]+")


@dataclass(frozen=True)
class TableUri:
    """``catalog:db:table#k=v;k2=v2``: database, table and the partition specs in order."""

    database: str
    table: str
    partitions: tuple[tuple[str, str], ...]

    @property
    def qualified(self) -> str:
        return f"`{self.database}`.`{self.table}`"

    @property
    def dated_keys(self) -> tuple[str, ...]:
        return tuple(key for key, value in self.partitions if _VARIABLE.search(value))

    @property
    def static_partitions(self) -> dict[str, str]:
        return {key: value for key, value in self.partitions if not _VARIABLE.search(value)}

    def dated_template(self) -> Template:
        """The dated keys as a path template ``k1=${YEAR}${MONTH}/k2=${DAY}`` (to read partition times)."""
        return Template("/".join(f"{key}={value}" for key, value in self.partitions if key in self.dated_keys))

    def cutoff_values(self, cutoff: datetime, zone: tzinfo) -> tuple[str, ...]:
        """Each dated key's value at the cut-off (Falcon evaluates the partition values at the cut-off time)."""
        values = dict(self.partitions)
        return tuple(Template(values[key]).resolve(cutoff, zone) for key in self.dated_keys)

    def is_older(self, partition: dict[str, str], cutoff_values: tuple[str, ...]) -> bool:
        """Falcon's lexicographic filter over the dated keys: ``(k1<v1) or (k1=v1 and k2<v2) or …``.

        Partitions whose static keys differ from this URI's (another feed's slice of the table) never match.
        """
        for key, value in self.static_partitions.items():
            if partition.get(key) != value:
                return False
        if any(key not in partition for key in self.dated_keys):
            return False
        return tuple(partition[key] for key in self.dated_keys) < cutoff_values

    def spec_sql(self, partition: dict[str, str] | None = None) -> str:
        """``PARTITION (`k`='v', …)`` for ``partition`` (default: this URI's own values, which must be resolved)."""
        values = partition if partition is not None else dict(self.partitions)
        return "PARTITION (" + ", ".join(f"`{check_identifier(key)}`={sql_string(value)}"
                                          for key, value in values.items()) + ")"

    def partition_path(self) -> str:
        """``k=v/k2=v2`` — the Hive layout of this URI's partition below the table location."""
        return "/".join(f"{key}={value}" for key, value in self.partitions)


def check_identifier(name: str) -> str:
    if not _IDENTIFIER.fullmatch(name):
        raise UsageError(f"{name!r} is not a plain identifier (letters, digits, underscore)")
    return name


def sql_string(value: str) -> str:
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def parse_table_uri(text: str) -> TableUri:
    """Falcon's grammar: scheme ``catalog``, ``database:table``, a mandatory ``#`` fragment of ``k=v`` specs."""
    if not text.startswith("catalog:"):
        raise UsageError(f"{text!r}: catalog scheme is missing")
    rest = text[len("catalog:"):]
    if "#" not in rest:
        raise UsageError(f"{text!r}: Partition details are missing")
    name, fragment = rest.split("#", 1)
    parts = name.split(":")
    if len(parts) != 2:
        raise UsageError(f"{text!r}: URI path is not in expected format: database:table")
    database, table = parts
    if not database:
        raise UsageError(f"{text!r}: DB name is missing")
    if not table:
        raise UsageError(f"{text!r}: Table name is missing")
    if not fragment:
        raise UsageError(f"{text!r}: Partition details are missing")
    partitions = []
    for spec in fragment.split(";"):
        if spec.count("=") != 1 or not spec.split("=")[0]:
            raise UsageError(f"{text!r}: Partition key value pair is not specified properly: {spec!r}")
        key, value = spec.split("=")
        partitions.append((check_identifier(key.strip()), Template.parse(value.strip()).text))
    return TableUri(check_identifier(database), check_identifier(table), tuple(partitions))


def parse_partition_name(name: str) -> dict[str, str]:
    """``ds=2015%3A01/region=us`` (SHOW PARTITIONS, Hive path escaping) as a dict."""
    result = {}
    for part in name.split("/"):
        key, _, value = part.partition("=")
        result[unquote(key)] = unquote(value)
    return result


# --------------------------------------------------------------------------------------------------------------
# Include globs (Falcon FilteredCopyListing)


def include_pattern(glob: str) -> re.Pattern[str]:
    """A relative include glob as a regex over relative file paths.

    As Falcon converted it: ``*`` → ``.*`` (it may cross ``/``), ``?`` → ``.``, ``{a,b}`` → alternatives,
    ``[..]`` sets kept (``[!..]`` negated); the pattern matches a file whose relative path, or one of its folders,
    it matches entirely (Falcon's ``(<re>/)|(<re>$)``).
    """
    if not glob or glob.startswith("/"):
        raise UsageError(f"include pattern {glob!r} must be a relative path glob")
    if any(part in (".", "..") for part in glob.split("/")):
        raise UsageError(f"include pattern {glob!r} must not have '.' or '..' components")
    out: list[str] = []
    depth = 0
    index = 0
    while index < len(glob):
        char = glob[index]
        if char == "*":
            out.append(".*")
        elif char == "?":
            out.append(".")
        elif char == "{":
            depth += 1
            out.append("(?:")
        elif char == "}" and depth:
            depth -= 1
            out.append(")")
        elif char == "," and depth:
            out.append("|")
        elif char == "[":
            end = glob.find("]", index + 2 if glob[index + 1:index + 2] in ("!", "^") else index + 1)
            if end < 0:
                raise UsageError(f"include pattern {glob!r} has an unclosed '['")
            body = glob[index + 1:end]
            if body.startswith("!"):
                body = "^" + body[1:]
            out.append("[" + body.replace("\\", "\\\\") + "]")
            index = end
        elif char == "\\" and index + 1 < len(glob):
            index += 1
            out.append(re.escape(glob[index]))
        else:
            out.append(re.escape(char))
        index += 1
    if depth:
        raise UsageError(f"include pattern {glob!r} has an unclosed '{{'")
    return re.compile("(?:" + "".join(out) + ")(?:/|$)")


def include_prefix(glob: str) -> str:
    """The leading glob-free components of an include pattern (``US/*`` → ``US``; ``IN`` → ``IN``; ``*/3/*`` →
    ``""``): Falcon appended this prefix to both the source and the target path."""
    prefix = []
    for part in glob.split("/"):
        if any(char in part for char in "*?[]{}\\"):
            break
        prefix.append(part)
    return "/".join(prefix)


def split_paths(text: str) -> list[str]:
    """A comma-separated list of paths, leaving commas inside glob braces ``{a,b}`` alone."""
    parts: list[str] = []
    current: list[str] = []
    depth = 0
    for char in text:
        if char == "{":
            depth += 1
        elif char == "}" and depth:
            depth -= 1
        if char == "," and not depth:
            parts.append("".join(current))
            current = []
        else:
            current.append(char)
    parts.append("".join(current))
    return [part.strip() for part in parts if part.strip()]


# --------------------------------------------------------------------------------------------------------------
# Hadoop FileSystem through the Spark JVM

_SEPARATOR = "\n"
_STATUS_TEXT = re.compile(
    r"[A-Za-z0-9_$]+\{path=(?P<path>.*?); isDirectory=(?P<dir>true|false)(?:; length=(?P<length>\d+))?"
    r".*?; modification_time=(?P<mtime>-?\d+);.*?; isSymlink=(?P<link>true|false)", re.S)


@dataclass(frozen=True)
class Entry:
    """One file status: the path as Hadoop prints it (``file:/x``, ``hdfs://nn:8020/x``)."""

    path: str
    is_dir: bool
    length: int
    mtime: int
    is_symlink: bool = False  # as listed: HDFS lists links as links; the local file system lists their targets


def java_exception_class(error: BaseException) -> str | None:
    """The Java class name behind a py4j error (``java.io.FileNotFoundException``), if there is one."""
    java = getattr(error, "java_exception", None)
    if java is None:
        return None
    try:
        return str(java.getClass().getName())
    except Exception:  # the JVM may be gone; then there is no class to report
        return None


def _is_not_found(error: BaseException) -> bool:
    return java_exception_class(error) == "java.io.FileNotFoundException"


class HadoopFs:
    """Data-path operations through ``org.apache.hadoop.fs.FileSystem`` in the Spark driver JVM.

    Paths in and out are URI strings. Listings (glob, list) come back in bulk: the JVM joins the statuses'
    ``toString`` into one string that is parsed here, with a per-status fallback when that text is ambiguous.
    Symlink checks use ``getFileLinkStatus`` (``java.nio`` for ``file:``, see :meth:`is_symlink`).

    Without the native Hadoop library (pyspark ships none) the local file system forks a ``chmod`` for every file
    or folder it creates; deletes, renames and listings do not fork.
    """

    def __init__(self, spark: SparkSession) -> None:
        session: Any = spark  # py4j objects are untyped
        self.jvm: Any = session._jvm
        self.gateway: Any = session.sparkContext._gateway
        self.conf: Any = session.sparkContext._jsc.hadoopConfiguration()
        self._Path: Any = self.jvm.org.apache.hadoop.fs.Path
        self._filesystems: dict[str, Any] = {}
        self._local: dict[str, bool] = {}
        self._join_method: Any = None
        self._nio: Any = None
        self._bulk: Any = None
        self._walk: Any = None

    # -- objects
    def path(self, uri: str) -> Any:
        return self._Path(uri)

    def filesystem(self, uri: str) -> Any:
        root = split_uri(uri).root
        fs = self._filesystems.get(root)
        if fs is None:
            fs = self._Path(uri).getFileSystem(self.conf)
            self._filesystems[root] = fs
            self._local[root] = str(fs.getUri().getScheme()) == "file"
        return fs

    def is_local(self, uri: str) -> bool:
        self.filesystem(uri)
        return self._local[split_uri(uri).root]

    def qualify(self, uri: str) -> Uri:
        """The URI with the scheme and authority of the file system it resolves to (default FS for bare paths)."""
        fs = self.filesystem(uri)
        qualified = split_uri(str(fs.makeQualified(self._Path(uri)).toString()))
        given = split_uri(uri)
        return Uri(qualified.scheme, given.authority if given.scheme else qualified.authority, qualified.path)

    # -- single-path operations
    def exists(self, uri: str) -> bool:
        return bool(self.filesystem(uri).exists(self._Path(uri)))

    def status(self, uri: str) -> Entry | None:
        try:
            status = self.filesystem(uri).getFileStatus(self._Path(uri))
        except Exception as error:
            if _is_not_found(error):
                return None
            raise
        return self._entry(status)

    def is_symlink(self, uri: str) -> bool | None:
        """Whether the last component of ``uri`` is a symlink (not followed); ``None`` if it does not exist.

        For ``file:`` URIs the JVM's ``java.nio.file.Files.isSymbolicLink`` answers (a missing path is then
        ``False``): Hadoop's local ``getFileLinkStatus`` gives the same answer but forks ``readlink`` for every
        call when the native Hadoop library is absent (~7 ms each), and needs a scheme-less path to see links.
        """
        if self.is_local(uri):
            if self._nio is None:  # bound once: each attribute lookup on a py4j class is a round trip
                self._nio = (self.jvm.java.nio.file.Files.isSymbolicLink, self.jvm.java.nio.file.Paths.get,
                             self.gateway.new_array(self.jvm.java.lang.String, 0))
            is_symbolic_link, get_path, no_more = self._nio
            return bool(is_symbolic_link(get_path(split_uri(uri).path, no_more)))
        try:
            return bool(self.filesystem(uri).getFileLinkStatus(self._Path(uri)).isSymlink())
        except Exception as error:
            if _is_not_found(error):
                return None
            raise

    def delete(self, uri: str, recursive: bool) -> bool:
        return bool(self.filesystem(uri).delete(self._Path(uri), recursive))

    def rename(self, source: str, target: str) -> bool:
        return bool(self.filesystem(source).rename(self._Path(source), self._Path(target)))

    def mkdirs(self, uri: str) -> bool:
        return bool(self.filesystem(uri).mkdirs(self._Path(uri)))

    def touch(self, uri: str) -> None:
        """Create (or truncate) an empty file, without a ``.crc`` companion on the local file system."""
        self.writer(uri).create(self._Path(uri), True).close()

    def writer(self, uri: str) -> Any:
        """A private FileSystem instance that writes no checksum files (closed by :meth:`close`)."""
        root = "writer:" + split_uri(uri).root
        fs = self._filesystems.get(root)
        if fs is None:
            fs = self.jvm.org.apache.hadoop.fs.FileSystem.newInstance(self._Path(uri).toUri(), self.conf)
            fs.setWriteChecksum(False)
            self._filesystems[root] = fs
        return fs

    def close(self) -> None:
        """Close the private instances (the shared, cached ones belong to Hadoop's cache)."""
        for root, fs in list(self._filesystems.items()):
            if root.startswith("writer:"):
                del self._filesystems[root]
                with suppress(Exception):  # closing is best effort; the data is already written
                    fs.close()

    def is_empty_dir(self, uri: str) -> bool:
        statuses = self.filesystem(uri).listStatus(self._Path(uri))
        return statuses is not None and len(statuses) == 0

    def content_length(self, uri: str) -> int:
        """Total bytes of the files under ``uri``."""
        return self.content_summary(uri)[1]

    def content_summary(self, uri: str) -> tuple[int, int]:
        """(files, bytes) under ``uri``, counted by the file system (one name node call on HDFS)."""
        summary = self.filesystem(uri).getContentSummary(self._Path(uri))
        return int(summary.getFileCount()), int(summary.getLength())

    # -- listings
    def glob(self, pattern: str) -> list[Entry]:
        """``globStatus``: the matches of a Hadoop glob (empty when nothing matches)."""
        return self._describe(self.filesystem(pattern).globStatus(self._Path(pattern)))

    def list_dir(self, uri: str) -> list[Entry]:
        return self._describe(self.filesystem(uri).listStatus(self._Path(uri)))

    def list_files(self, uri: str, max_depth: int = 64) -> list[Entry]:
        """Every file below ``uri`` (a file lists itself); FileNotFoundException → JobError.

        One bulk listing per level of folders (:meth:`list_many`), one listing per folder where that fails.
        """
        top = self.status(uri)
        if top is None:
            raise JobError(f"{uri} does not exist")
        if not top.is_dir:
            return [top]
        files: list[Entry] = []
        level = [uri]
        for _ in range(max_depth):
            if not level:
                return files
            below: list[str] = []
            listed = self.list_many(level) if len(level) > 1 else None
            for children in (listed.values() if listed is not None else map(self.list_dir, level)):
                for entry in children:
                    if entry.is_dir:
                        below.append(entry.path)
                    else:
                        files.append(entry)
            level = below
        raise JobError(f"{uri} is deeper than {max_depth} folders (a symlink loop?)")

    def _entry(self, status: Any) -> Entry:
        return Entry(str(status.getPath().toString()), bool(status.isDirectory()), int(status.getLen()),
                     int(status.getModificationTime()), bool(status.isSymlink()))

    def list_many(self, uris: Sequence[str]) -> dict[str, list[Entry]] | None:
        """The children of many folders of one file system in one ``listStatus(Path[])`` call, by normalised
        folder path; ``None`` if that cannot be done (a folder vanished, a path has a newline, two folders are the
        same path, a child's path does not name one of the folders as its parent)."""
        folders = [normalize_path(split_uri(uri).path) for uri in uris]
        if not uris or any("\n" in uri for uri in uris) or len(set(folders)) != len(folders):
            return None
        try:
            if self._bulk is None:
                self._bulk = (self.jvm.org.apache.commons.lang3.StringUtils.split,
                              self.jvm.org.apache.hadoop.util.StringUtils.stringToPath)
            split, to_paths = self._bulk
            paths = to_paths(split("\n".join(uris), "\n"))
            if len(paths) != len(uris):
                return None
            statuses = self.filesystem(uris[0]).listStatus(paths)
        except Exception:  # a folder vanished meanwhile, or no commons-lang3: the caller goes one by one
            return None
        children: dict[str, list[Entry]] = {folder: [] for folder in folders}
        for entry in self._describe(statuses):
            folder = parent_of(normalize_path(split_uri(entry.path).path))
            if folder not in children:  # never drop an entry silently: the caller lists folder by folder
                return None
            children[folder].append(entry)
        return children

    def symlinks_below(self, uri: str, depth: int) -> set[str] | None:
        """Every symlink at most ``depth`` levels below a local folder, as normalised paths, found by one JVM walk
        that does not follow links (commons-io ``PathUtils.walk`` with ``SymbolicLinkFileFilter``); ``None`` when
        the folder is not local, is itself a symlink, or cannot be walked."""
        if not self.is_local(uri) or self.is_symlink(uri) is not False:
            return None
        try:
            if self._walk is None:
                self._walk = (self.jvm.org.apache.commons.io.file.PathUtils.walk,
                              self.jvm.org.apache.commons.io.filefilter.SymbolicLinkFileFilter.INSTANCE,
                              self.gateway.new_array(self.jvm.java.nio.file.FileVisitOption, 0))
            walk, only_links, no_options = self._walk
            _, get_path, no_more = self._nio
            found = walk(get_path(split_uri(uri).path, no_more), only_links, depth, False, no_options).toArray()
            count = len(found)
            text = self._join(found) if count else ""
        except Exception:  # not walkable (vanished, permissions): the caller checks one path at a time
            return None
        if text is None:
            return None
        paths = text.split(_SEPARATOR) if count else []
        if len(paths) != count:
            return None
        return {normalize_path(path) for path in paths}

    def _describe(self, statuses: Any) -> list[Entry]:
        if statuses is None:
            return []
        count = len(statuses)
        if count == 0:
            return []
        text = self._join(statuses)
        if text is not None and text.count("; isDirectory=") == count:
            parts = text.split(_SEPARATOR)
            if len(parts) == count:
                matches = [_STATUS_TEXT.match(part) for part in parts]
                if all(matches):
                    return [Entry(match["path"], match["dir"] == "true", int(match["length"] or 0), int(match["mtime"]),
                                  match["link"] == "true") for match in matches if match]
        return [self._entry(statuses[index]) for index in range(count)]

    def _join(self, statuses: Any) -> str | None:
        """All statuses' ``toString`` in one py4j call (``StringUtils.join(Object[], String)`` by reflection,
        because py4j does not pass a ``FileStatus[]`` where ``Object[]`` is declared)."""
        try:
            if self._join_method is None:
                klass = self.jvm.java.lang.Class
                parameters = self.gateway.new_array(klass, 2)
                parameters[0] = klass.forName("[Ljava.lang.Object;")
                parameters[1] = klass.forName("java.lang.String")
                self._join_method = klass.forName("org.apache.commons.lang3.StringUtils").getMethod("join", parameters)
            arguments = self.gateway.new_array(self.jvm.java.lang.Object, 2)
            arguments[0] = statuses
            arguments[1] = _SEPARATOR
            return str(self._join_method.invoke(None, arguments))
        except Exception:  # no commons-lang3 on this classpath: read statuses one by one
            return None

    # -- configuration for executors
    def configuration_overrides(self) -> dict[str, str]:
        """The driver's Hadoop settings that differ from a fresh ``Configuration()`` (serialisable for tasks)."""
        effective = _configuration_dict(self.jvm, self.conf)
        defaults = _configuration_dict(self.jvm, self.jvm.org.apache.hadoop.conf.Configuration())
        return {key: value for key, value in effective.items() if defaults.get(key) != value}


def _configuration_dict(jvm: Any, configuration: Any) -> dict[str, str]:
    buffer = jvm.java.io.ByteArrayOutputStream()
    configuration.writeXml(buffer)
    # as text: py4j decodes a byte[] one byte at a time in Python (a third of a second for a Configuration)
    root = ElementTree.fromstring(str(buffer.toString("UTF-8")).encode("utf-8"))
    result = {}
    for prop in root.iter("property"):
        name, value = prop.findtext("name"), prop.findtext("value")
        if name is not None and value is not None:
            result[name] = value
    return result


# --------------------------------------------------------------------------------------------------------------
# Catalog tables through Spark SQL


def describe(spark: SparkSession, statement: str) -> list[tuple[str, str]]:
    """(col_name, data_type) rows of a ``DESCRIBE FORMATTED`` statement."""
    return [(str(row[0] or "").strip(), str(row[1] or "").strip()) for row in spark.sql(statement).collect()]


def _detail(rows: list[tuple[str, str]], name: str, section: str) -> str | None:
    inside = False
    for key, value in rows:
        if key.startswith("# "):
            inside = key == section
            continue
        if inside and key == name:
            return value
    return None


def table_detail(spark: SparkSession, table: TableUri, name: str) -> str | None:
    """A row of the table's detailed information (``Location``, ``Type``)."""
    try:
        rows = describe(spark, f"DESCRIBE FORMATTED {table.qualified}")
    except Exception as error:
        raise JobError(f"table {table.database}.{table.table} cannot be read: {_first_line(error)}") from None
    return _detail(rows, name, "# Detailed Table Information")


def list_partitions(spark: SparkSession, table: TableUri) -> list[dict[str, str]]:
    try:
        rows = spark.sql(f"SHOW PARTITIONS {table.qualified}").collect()
    except Exception as error:
        raise JobError(f"partitions of {table.database}.{table.table} cannot be listed: {_first_line(error)}") from None
    return [parse_partition_name(str(row[0])) for row in rows]


def partition_detail(spark: SparkSession, table: TableUri, partition: dict[str, str],
                     check: bool = True) -> dict[str, str] | None:
    """The detailed information rows of one partition (``Location``, ``Created Time``), ``None`` if absent.

    ``partition`` must name every partition column; ``check=False`` skips the existence check (the caller just
    listed the partition).
    """
    if check and partition not in list_partitions(spark, table):
        return None
    rows = describe(spark, f"DESCRIBE FORMATTED {table.qualified} {table.spec_sql(partition)}")
    details: dict[str, str] = {}
    inside = False
    for key, value in rows:
        if key.startswith("# "):
            inside = key == "# Detailed Partition Information"
            continue
        if inside and key:
            details[key] = value
    return details


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__
