"""Frequencies within the calendar (the project's FA060).

Every time falcon-airflow computes from an entity lies in the calendar Python can hold, years 1 to 9999: Falcon's
Java calendar went further, so a frequency Falcon accepted can still make a timetable, a sensor or a retention run
fail with an OverflowError - in the scheduler or the DAG processor, where one entity's failure is every entity's.
The rule refuses such an entity up front, naming the element:

* the entity's frequency, stepped once past each validity end (the schedule computes the instance after the last);
* every duration added to an instance (timeout, SLA, late-arrival cut-off, late-process and retry delays,
  replication delay, lifecycle frequency), added to each validity end;
* a retention limit, taken back from now (the cut-off a retention run computes).
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from enum import Enum
from functools import cache, lru_cache
from typing import Literal, get_args, get_origin

import pendulum
from pydantic import BaseModel

from falcon_airflow.entities import EntityType, Feed, Process
from falcon_airflow.entities.feed import Retention
from falcon_airflow.timekeeping import Frequency, format_falcon_date
from falcon_airflow.validation.registry import Finding, RuleContext, error, rule

RULE = "FA060"


_LEAVES = (str, int, float, bool, type(None), datetime, Enum)


def _annotation_reaches(annotation: object) -> bool:
    """Whether a field of this annotation can hold a frequency, directly or inside a model or tuple."""
    if isinstance(annotation, type):
        if issubclass(annotation, Frequency):
            return True
        if issubclass(annotation, BaseModel):
            return _reaches_frequency(annotation)
        if issubclass(annotation, _LEAVES):
            return False
    arguments = get_args(annotation)
    if not arguments or get_origin(annotation) is Literal:
        return get_origin(annotation) is not Literal  # Any, a TypeVar, ...: look to be sure
    return any(_annotation_reaches(item) for item in arguments if item is not Ellipsis)


@cache
def _reaches_frequency(model: type[BaseModel]) -> bool:
    return bool(_walked_fields(model))


@cache
def _walked_fields(model: type[BaseModel]) -> tuple[str, ...]:
    """The fields of a model class worth walking for frequencies, in declaration order (computed once per class:
    walking every field of every model of 10,000 entities was most of this rule's time)."""
    return tuple(name for name, field in model.model_fields.items() if _annotation_reaches(field.annotation))


def _frequencies(model: BaseModel, path: str, line: int | None) -> Iterator[tuple[str, Frequency, int | None, bool]]:
    """Every frequency in an entity: (where, value, line, whether it is a retention limit)."""
    own_line = getattr(model, "line", None) or line
    for name in _walked_fields(type(model)):
        value = getattr(model, name)
        where = f"{path}.{name}" if path else name
        items = value if isinstance(value, tuple) else (value,)
        for index, item in enumerate(items):
            shown = f"{where}[{index}]" if isinstance(value, tuple) and len(value) > 1 else where
            if isinstance(item, Frequency):
                yield shown, item, own_line, isinstance(model, Retention) and name == "limit"
            elif isinstance(item, BaseModel):
                yield from _frequencies(item, shown, own_line)


@lru_cache(maxsize=4096)  # entities share their frequencies and validity ends: each pair is stepped once
def _outside(step: Frequency, moment: datetime, times: int) -> bool:
    try:
        step.step(pendulum.instance(moment), times)
        step.as_timedelta()
    except (OverflowError, ValueError):  # datetime's and pendulum's ways of saying "no such year"
        return True
    return False


_LATEST = datetime(9999, 12, 30, tzinfo=UTC)
_EARLIEST = datetime(1, 1, 2, tzinfo=UTC)


def _values(model: BaseModel, found: list[tuple[Frequency, bool]]) -> None:
    """Every frequency in a model with whether it is a retention limit: what :func:`_frequencies` finds, without
    saying where (only needed when there is something to say)."""
    for name in _walked_fields(type(model)):
        value = getattr(model, name)
        for item in value if isinstance(value, tuple) else (value,):
            if isinstance(item, Frequency):
                found.append((item, name == "limit" and isinstance(model, Retention)))
            elif isinstance(item, BaseModel):
                _values(item, found)


def _surely_inside(millis: int, moment: datetime, times: int) -> bool:
    """True when ``times`` (1 or -1) steps of at most ``millis`` from ``moment`` cannot leave the calendar: a
    step's fixed length (a month counted as 31 days, the longest) keeping a day clear of either end, which also
    bounds its timedelta. False means "maybe": :func:`_outside` then steps each frequency on the calendar."""
    try:
        reach = timedelta(milliseconds=millis)
        return moment + reach <= _LATEST if times > 0 else moment - reach >= _EARLIEST
    except (OverflowError, TypeError):
        return False


def _findings(entity: Feed | Process, now: datetime) -> Iterator[Finding]:
    ends = sorted({cluster.validity.end for cluster in entity.clusters})
    values: list[tuple[Frequency, bool]] = []
    _values(entity, values)
    # The longest step from the latest end, and the longest retention back from now, are the ones that reach
    # furthest: when they stay inside, every other does too.
    forward = max((value.millis for value, is_retention in values if not is_retention), default=0)
    backward = max((value.millis for value, is_retention in values if is_retention), default=0)
    if (not ends or _surely_inside(forward, ends[-1], 1)) and _surely_inside(backward, now, -1):
        return  # the usual case, settled without stepping a calendar or naming where each frequency is
    for where, value, line, is_retention in _frequencies(entity, "", entity.source.line):
        if is_retention:
            if _outside(value, now, -1):
                yield error(f"retention limit {value} reaches back from now ({format_falcon_date(now)}) before the "
                            "calendar's year 1, so no retention run could compute its cut-off; keep it shorter",
                            line)
            continue
        beyond = next((end for end in ends if _outside(value, end, 1)), None)
        if beyond is None:
            continue
        if where == "frequency":
            yield error(f"frequency {value} added to the validity end {format_falcon_date(beyond)} is past the "
                        "calendar's year 9999, so the instance after the last one cannot be computed; keep it "
                        "shorter or end the validity earlier", entity.source.line)
        else:
            yield error(f"{where.replace('_', '-')} {value} added to an instance at the validity end "
                        f"{format_falcon_date(beyond)} is past the calendar's year 9999, so its deadline cannot be "
                        "computed; keep it shorter or end the validity earlier", line)


@rule(RULE, EntityType.FEED, "every frequency, duration and retention limit of a feed stays within the calendar")
def feed_within_calendar(context: RuleContext, feed: Feed) -> Iterator[Finding]:
    yield from _findings(feed, context.now)


@rule(RULE, EntityType.PROCESS, "every frequency and duration of a process stays within the calendar")
def process_within_calendar(context: RuleContext, process: Process) -> Iterator[Finding]:
    yield from _findings(process, context.now)
