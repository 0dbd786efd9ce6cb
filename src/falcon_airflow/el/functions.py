"""The EL functions Falcon users call, with Falcon's semantics.

Date functions truncate in the context's zone, then add offsets in the order year, month, day, hour, minute:
days and months on the calendar (wall-clock time kept across DST), hours and minutes as elapsed time - the way
Java's ``Calendar.add`` did. In dataset context each date function's result is snapped to the feed grid.

Offsets and counts are Java ``int`` parameters, as in Falcon's ``ExpressionHelper``: a value outside
-2147483648..2147483647 is refused naming the argument, and a time the offsets carry outside the calendar (years
1 to 9999) is refused naming the call - an :class:`ArgumentError`, never an OverflowError or ValueError from the
date arithmetic underneath.
"""

from __future__ import annotations

import contextlib
import functools
import math
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

import pendulum

from falcon_airflow.el.context import ELContext
from falcon_airflow.el.javadate import PatternError, format_java
from falcon_airflow.errors import DateFormatError
from falcon_airflow.timekeeping import format_falcon_date, parse_falcon_date

Value = int | float | str | pendulum.DateTime | None

_WEEKDAYS = {"MON": 0, "TUE": 1, "WED": 2, "THU": 3, "FRI": 4, "SAT": 5, "SUN": 6}
_OFFSET_UNITS = {"MINUTE": "minutes", "HOUR": "hours", "DAY": "days", "WEEK": "weeks", "MONTH": "months",
                 "YEAR": "years"}
_DURATION_MINUTES = {"minutes": 1, "hours": 60, "days": 1440, "months": 31 * 1440, "years": 366 * 1440}
INT_MIN, INT_MAX = -(2**31), 2**31 - 1
_LONG_MAX = 2**63 - 1


class ArgumentError(ValueError):
    """An argument of the wrong type or value; ``index`` says which (0-based)."""

    def __init__(self, message: str, index: int) -> None:
        super().__init__(message)
        self.index = index


def _integer(value: Value, index: int, what: str) -> int:
    if isinstance(value, bool):
        raise ArgumentError(f"{what} must be a number", index)
    number: int | None = None
    if isinstance(value, int):
        number = value
    elif isinstance(value, float):
        # EL coerces like Java's Number.intValue(): truncation toward zero
        number = int(value) if math.isfinite(value) else INT_MAX + 1
    elif isinstance(value, str):
        text = value.strip()
        if len(text.lstrip("+-").lstrip("0")) <= len(str(INT_MAX)):  # int() of a huge text is costly or refused
            with contextlib.suppress(ValueError):
                number = int(text)
        elif text.lstrip("+-").isdigit():
            number = INT_MAX + 1
    if number is None:
        raise ArgumentError(f"{what} must be a number, not {_describe(value)}", index)
    if not INT_MIN <= number <= INT_MAX:
        raise ArgumentError(f"{what} out of range: {_describe(value)[:40]} is not between {INT_MIN} and {INT_MAX}",
                            index)
    return number


def _text(value: Value, index: int, what: str) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, pendulum.DateTime):
        return format_falcon_date(value)
    raise ArgumentError(f"{what} must be a string, not {_describe(value)}", index)


def _moment(value: Value, index: int, what: str) -> pendulum.DateTime:
    if isinstance(value, pendulum.DateTime):
        return value
    if isinstance(value, str):
        try:
            return pendulum.instance(parse_falcon_date(value))
        except DateFormatError as error:
            raise ArgumentError(f"{what}: {error.message}", index) from None
    raise ArgumentError(f"{what} must be a date such as 2024-01-31T00:00Z, not {_describe(value)}", index)


def _describe(value: Value) -> str:
    if value is None:
        return "an empty value"
    if isinstance(value, pendulum.DateTime):
        return f"the time {format_falcon_date(value)}"
    return repr(value)


def _shift(moment: pendulum.DateTime, *, years: int = 0, months: int = 0, days: int = 0, hours: int = 0,
           minutes: int = 0) -> pendulum.DateTime:
    if years or months:
        moment = moment.add(years=years, months=months)
    if days:
        moment = moment.add(days=days)
    if hours or minutes:
        moment = moment.add(hours=hours, minutes=minutes)
    return moment


def _day_start(context: ELContext) -> pendulum.DateTime:
    return _local_start(context, "day")


def _local_start(context: ELContext, unit: str) -> pendulum.DateTime:
    """00:00 starting the instance's day, month or year in the context's zone.

    Built as a new wall-clock time rather than with ``start_of``: a midnight the zone skips (DST starting at 00:00)
    or repeats is read as Java's ``Calendar`` reads it - as standard time, i.e. 01:00 after a skipped midnight and
    the later of two midnights - and never as a time on the previous day.
    """
    local = context.local_instance_time
    month = 1 if unit == "year" else local.month
    day = local.day if unit == "day" else 1
    return pendulum.datetime(local.year, month, day, tz=local.timezone)  # fold=1: Java's reading


def _within_calendar(function: Callable[[ELContext, list[Value]], Value]) -> Callable[[ELContext, list[Value]], Value]:
    """A date function whose time leaves the calendar raises an :class:`ArgumentError` pointing at the call (the
    offsets are each in range; together, or from this instance, they reach past year 1 or 9999)."""

    @functools.wraps(function)
    def checked(context: ELContext, args: list[Value]) -> Value:
        try:
            return function(context, args)
        except ArgumentError:
            raise
        except (OverflowError, ValueError):  # datetime's and pendulum's ways of saying "no such year"
            raise ArgumentError("the time it names is out of range: outside the calendar's years 1 to 9999",
                                len(args)) from None

    return checked


# -- the functions ------------------------------------------------------------------------------------------------


@_within_calendar
def now(context: ELContext, args: list[Value]) -> Value:
    hours, minutes = _integer(args[0], 0, "hours"), _integer(args[1], 1, "minutes")
    return context.snap(_shift(context.local_instance_time, hours=hours, minutes=minutes))


@_within_calendar
def today(context: ELContext, args: list[Value]) -> Value:
    hours, minutes = _integer(args[0], 0, "hours"), _integer(args[1], 1, "minutes")
    return context.snap(_shift(_day_start(context), hours=hours, minutes=minutes))


@_within_calendar
def yesterday(context: ELContext, args: list[Value]) -> Value:
    hours, minutes = _integer(args[0], 0, "hours"), _integer(args[1], 1, "minutes")
    return context.snap(_shift(_day_start(context).subtract(days=1), hours=hours, minutes=minutes))


def _week_start(context: ELContext, day_name: Value) -> pendulum.DateTime:
    name = _text(day_name, 0, "day of week").strip().upper()
    if name not in _WEEKDAYS:
        raise ArgumentError(f"day of week must be one of {', '.join(_WEEKDAYS)}, not '{name}'", 0)
    day = _day_start(context)
    # Sunday-based weeks: go back to the most recent such weekday on or before the instance date.
    back = (day.weekday() - _WEEKDAYS[name]) % 7
    return day.subtract(days=back)


@_within_calendar
def current_week(context: ELContext, args: list[Value]) -> Value:
    hours, minutes = _integer(args[1], 1, "hours"), _integer(args[2], 2, "minutes")
    return context.snap(_shift(_week_start(context, args[0]), hours=hours, minutes=minutes))


@_within_calendar
def last_week(context: ELContext, args: list[Value]) -> Value:
    hours, minutes = _integer(args[1], 1, "hours"), _integer(args[2], 2, "minutes")
    return context.snap(_shift(_week_start(context, args[0]).subtract(days=7), hours=hours, minutes=minutes))


@_within_calendar
def current_month(context: ELContext, args: list[Value]) -> Value:
    days, hours, minutes = (_integer(args[i], i, what) for i, what in enumerate(("days", "hours", "minutes")))
    start = _local_start(context, "month")
    return context.snap(_shift(start, days=days, hours=hours, minutes=minutes))


@_within_calendar
def last_month(context: ELContext, args: list[Value]) -> Value:
    days, hours, minutes = (_integer(args[i], i, what) for i, what in enumerate(("days", "hours", "minutes")))
    start = _local_start(context, "month").subtract(months=1)
    return context.snap(_shift(start, days=days, hours=hours, minutes=minutes))


@_within_calendar
def current_year(context: ELContext, args: list[Value]) -> Value:
    months, days, hours, minutes = (_integer(args[i], i, what)
                                    for i, what in enumerate(("months", "days", "hours", "minutes")))
    start = _local_start(context, "year")
    return context.snap(_shift(start, months=months, days=days, hours=hours, minutes=minutes))


@_within_calendar
def last_year(context: ELContext, args: list[Value]) -> Value:
    months, days, hours, minutes = (_integer(args[i], i, what)
                                    for i, what in enumerate(("months", "days", "hours", "minutes")))
    start = _local_start(context, "year").subtract(years=1)
    return context.snap(_shift(start, months=months, days=days, hours=hours, minutes=minutes))


@_within_calendar
def latest(context: ELContext, args: list[Value]) -> Value:
    offset = _integer(args[0], 0, "instance offset")
    if offset > 0:
        raise ArgumentError("latest(n) takes 0 or a negative offset", 0)
    if context.availability is None:
        return context.snap(context.local_instance_time)
    found = context.availability.latest(offset)
    return pendulum.instance(found) if found is not None else None


@_within_calendar
def future(context: ELContext, args: list[Value]) -> Value:
    offset, limit = _integer(args[0], 0, "instance offset"), _integer(args[1], 1, "look-ahead limit")
    if offset < 0:
        raise ArgumentError("future(n, limit) takes 0 or a positive offset", 0)
    if limit < 0:
        raise ArgumentError("future(n, limit) takes a limit of 0 or more", 1)
    if context.availability is None:
        return context.snap(context.local_instance_time)
    found = context.availability.future(offset, limit)
    return pendulum.instance(found) if found is not None else None


def instance_time(context: ELContext, args: list[Value]) -> Value:
    return format_falcon_date(context.instance_time)


@_within_calendar
def date_offset(context: ELContext, args: list[Value]) -> Value:
    base = _moment(args[0], 0, "base date").in_timezone(pendulum.UTC)
    amount = _integer(args[1], 1, "offset")
    unit = _text(args[2], 2, "unit").strip().upper()
    if unit not in _OFFSET_UNITS:
        raise ArgumentError(f"unit must be one of {', '.join(_OFFSET_UNITS)}, not '{unit}'", 2)
    return format_falcon_date(base.add(**{_OFFSET_UNITS[unit]: amount}))


def format_time(context: ELContext, args: list[Value]) -> Value:
    moment = _moment(args[0], 0, "date").in_timezone(pendulum.UTC)
    pattern = _text(args[1], 1, "pattern")
    try:
        return format_java(moment, pattern)
    except PatternError as error:
        raise ArgumentError(f"{error} (position {error.position + 1} of the pattern)", 1) from None


def data_in(context: ELContext, args: list[Value]) -> Value:
    name = _text(args[0], 0, "input name")
    partition = _text(args[1], 1, "partition") if len(args) > 1 and args[1] is not None else ""
    if context.data_in is None:
        raise ArgumentError("dataIn() resolves input instances and is only available when a process instance runs", 0)
    return context.data_in(name, partition)


def user(context: ELContext, args: list[Value]) -> Value:
    return context.user or "${user.name}"


def _duration(unit: str) -> Callable[[ELContext, list[Value]], Value]:
    def duration(context: ELContext, args: list[Value]) -> Value:
        milliseconds = _integer(args[0], 0, "count") * _DURATION_MINUTES[unit] * 60_000
        if abs(milliseconds) > _LONG_MAX:  # a long of milliseconds, as Falcon computes it
            raise ArgumentError(f"count out of range: {unit}({args[0]}) does not fit in a long of milliseconds", 0)
        return milliseconds

    return duration


@dataclass(frozen=True, slots=True)
class Signature:
    implementation: Callable[[ELContext, list[Value]], Value]
    min_args: int
    max_args: int
    usage: str


FUNCTIONS: dict[str, Signature] = {
    "now": Signature(now, 2, 2, "now(hours, minutes)"),
    "today": Signature(today, 2, 2, "today(hours, minutes)"),
    "yesterday": Signature(yesterday, 2, 2, "yesterday(hours, minutes)"),
    "currentWeek": Signature(current_week, 3, 3, "currentWeek('DAY', hours, minutes)"),
    "lastWeek": Signature(last_week, 3, 3, "lastWeek('DAY', hours, minutes)"),
    "currentMonth": Signature(current_month, 3, 3, "currentMonth(days, hours, minutes)"),
    "lastMonth": Signature(last_month, 3, 3, "lastMonth(days, hours, minutes)"),
    "currentYear": Signature(current_year, 4, 4, "currentYear(months, days, hours, minutes)"),
    "lastYear": Signature(last_year, 4, 4, "lastYear(months, days, hours, minutes)"),
    "latest": Signature(latest, 1, 1, "latest(n)"),
    "future": Signature(future, 2, 2, "future(n, limit)"),
    "instanceTime": Signature(instance_time, 0, 0, "instanceTime()"),
    "dateOffset": Signature(date_offset, 3, 3, "dateOffset(date, offset, 'UNIT')"),
    "formatTime": Signature(format_time, 2, 2, "formatTime(date, 'pattern')"),
    "dataIn": Signature(data_in, 1, 2, "dataIn('input', 'partition')"),
    "user": Signature(user, 0, 0, "user()"),
    "minutes": Signature(_duration("minutes"), 1, 1, "minutes(n)"),
    "hours": Signature(_duration("hours"), 1, 1, "hours(n)"),
    "days": Signature(_duration("days"), 1, 1, "days(n)"),
    "months": Signature(_duration("months"), 1, 1, "months(n)"),
    "years": Signature(_duration("years"), 1, 1, "years(n)"),
}

DATE_FUNCTIONS = frozenset({"now", "today", "yesterday", "currentWeek", "lastWeek", "currentMonth", "lastMonth",
                            "currentYear", "lastYear", "latest", "future"})


def falcon_date(moment: datetime) -> str:
    return format_falcon_date(moment)
