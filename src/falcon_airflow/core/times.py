"""Instants, durations and time zones as the lifecycle jobs read them from their command line.

* instants ``yyyy-MM-ddTHH:mmZ`` (seconds optional), always UTC;
* durations ``minutes(N)|hours(N)|days(N)|months(N)`` (also inside ``${…}``); a month is 31 days for a retention
  cut-off, as Falcon's ``EvictionHelper`` counted it;
* feed time zones, read as Falcon's Java did (:mod:`falcon_airflow.core.zones`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, tzinfo

from falcon_airflow.core.errors import RuleError
from falcon_airflow.core.zones import zone_of

_INSTANT = re.compile(r"(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?Z")
_DURATION = re.compile(r"\s*(?:\$\{\s*)?(minutes|hours|days|months)\s*\(\s*(\d+)\s*\)\s*\}?\s*")
_UNIT_MINUTES = {"minutes": 1, "hours": 60, "days": 24 * 60, "months": 31 * 24 * 60}


def parse_instant(text: str) -> datetime:
    """``yyyy-MM-ddTHH:mmZ`` (seconds optional) as an aware UTC datetime."""
    match = _INSTANT.fullmatch(text.strip())
    if not match:
        raise RuleError(f"{text!r} is not an instant of the form yyyy-MM-ddTHH:mmZ")
    year, month, day, hour, minute, second = (int(group or 0) for group in match.groups())
    try:
        return datetime(year, month, day, hour, minute, second, tzinfo=UTC)
    except ValueError as error:
        raise RuleError(f"{text!r} is not a valid instant: {error}") from None


def format_instant(moment: datetime) -> str:
    """An aware datetime as ``yyyy-MM-ddTHH:mmZ`` (UTC): a Falcon date, as every part of the project writes one.

    The year has four digits, as Java's ``yyyy`` writes it; ``strftime("%Y")`` drops the zeros of a year before 1000,
    a date that neither :func:`parse_instant` nor Falcon reads back."""
    utc = moment.astimezone(UTC)
    return f"{utc.year:04d}-{utc.month:02d}-{utc.day:02d}T{utc.hour:02d}:{utc.minute:02d}Z"


def format_timestamp(moment: datetime) -> str:
    """An aware datetime as ISO 8601 in UTC to the second with a ``Z``: ``2026-03-01T05:00:00Z``."""
    utc = moment.astimezone(UTC)
    return f"{utc.year:04d}-{utc.month:02d}-{utc.day:02d}T{utc.hour:02d}:{utc.minute:02d}:{utc.second:02d}Z"


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
        raise RuleError(f"{text!r} is not a duration: use minutes(N), hours(N), days(N) or months(N)")
    duration = Duration(match[1], int(match[2]))
    if positive and duration.count <= 0:
        raise RuleError(f"{text!r}: the count must be at least 1")
    return duration


def parse_zone(text: str) -> tzinfo:
    """A feed time zone as Falcon read it (:mod:`falcon_airflow.core.zones`: IANA ids, Java's short IDs such as
    ``IST``, offsets such as ``GMT+05:30``); an ID Java did not know is refused."""
    zone, known = zone_of(text)
    if not known:
        raise RuleError(f"unknown time zone {text!r} (use an IANA id such as UTC or America/Los_Angeles)")
    return zone
