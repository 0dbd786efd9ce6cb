"""Falcon's date strings: ``yyyy-MM-ddTHH:mmZ``, always UTC, minute precision.

Falcon's XSD lets a few odd forms through its pattern (``/`` or ``.`` as separators, impossible days) and then its
Java date parser refuses them. We apply both layers here so that a date is accepted exactly when Falcon accepts it,
including its leap-year quirk: every year divisible by 4 counts as a leap year (``2100-02-29`` is accepted and,
like Java's lenient calendar, means 2100-03-01).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from functools import lru_cache

from falcon_airflow.core.times import format_instant
from falcon_airflow.errors import DateFormatError

_FALCON_DATE = re.compile(
    r"(?P<year>19\d\d|2\d\d\d)-(?P<month>0[1-9]|1[0-2])-(?P<day>0[1-9]|[12]\d|3[01])"
    r"T(?P<hour>[01]\d|2[0-3]):(?P<minute>[0-5]\d)Z"
)
_THIRTY_DAY_MONTHS = {4, 6, 9, 11}
_MONTH_NAMES = (
    "January", "February", "March", "April", "May", "June",
    "July", "August", "September", "October", "November", "December",
)


@lru_cache(maxsize=4096)  # an estate repeats a few validity dates; a datetime is immutable, so one serves all
def parse_falcon_date(text: str) -> datetime:
    """Parse a Falcon date into an aware UTC :class:`datetime`, or raise :class:`DateFormatError` saying why."""
    match = _FALCON_DATE.fullmatch(text.strip() if text else "")
    if match is None:
        raise DateFormatError(f"'{text}' is not a valid UTC date; expected yyyy-MM-ddTHH:mmZ, e.g. 2024-01-31T00:00Z")
    year, month, day = int(match["year"]), int(match["month"]), int(match["day"])
    if day == 31 and month in _THIRTY_DAY_MONTHS:
        raise DateFormatError(f"'{text}' is not a valid UTC date: {_MONTH_NAMES[month - 1]} has 30 days")
    if month == 2 and (day > 29 or (day == 29 and year % 4 != 0)):
        raise DateFormatError(f"'{text}' is not a valid UTC date: February {year} has no day {day}")
    hour, minute = int(match["hour"]), int(match["minute"])
    if month == 2 and day == 29 and not _is_gregorian_leap(year):
        # Falcon's validator calls every fourth year a leap year; its lenient calendar rolls the day over.
        return datetime(year, 3, 1, hour, minute, tzinfo=UTC)
    return datetime(year, month, day, hour, minute, tzinfo=UTC)


def format_falcon_date(moment: datetime) -> str:
    """Format an aware datetime as Falcon does: in UTC, ``yyyy-MM-ddTHH:mmZ``."""
    return format_instant(moment)


def _is_gregorian_leap(year: int) -> bool:
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def minutes_between(start: datetime, end: datetime) -> int:
    """Whole minutes from ``start`` to ``end`` (negative when ``end`` is earlier)."""
    return (end - start) // timedelta(minutes=1)
