"""Date functions in non-UTC zones: DST changes, month ends, leap years and snapping to a zoned feed grid.

Falcon computed with ``java.util.Calendar``: truncation in the zone, ``add(DAY/MONTH/YEAR)`` on the calendar (the
wall-clock time is kept), ``add(HOUR/MINUTE)`` as elapsed time. Results are printed in UTC.

America/New_York 2024: spring forward 2024-03-10 02:00 EST -> 03:00 EDT, fall back 2024-11-03 02:00 EDT -> 01:00 EST.
Europe/London 2024: spring forward 2024-03-31 01:00 GMT -> 02:00 BST, fall back 2024-10-27 02:00 BST -> 01:00 GMT.
"""

from __future__ import annotations

from datetime import datetime, tzinfo
from itertools import pairwise

import pendulum
import pytest

from falcon_airflow.el import ELContext
from falcon_airflow.el.evaluate import evaluate, render
from falcon_airflow.timekeeping import Frequency, parse_falcon_date
from falcon_airflow.timekeeping.grid import InstanceGrid

NEW_YORK = pendulum.timezone("America/New_York")
LONDON = pendulum.timezone("Europe/London")
UTC = pendulum.UTC


def at(text: str) -> datetime:
    return parse_falcon_date(text)


def run(expression: str, instance: str, zone: tzinfo = UTC, dataset: InstanceGrid | None = None) -> str:
    return render(evaluate(expression, ELContext(instance_time=at(instance), zone=zone, dataset=dataset)))


# -- truncation to the local day across DST ----------------------------------------------------------------------


@pytest.mark.parametrize(("zone", "instance", "expected"), [
    # New York: 12:00 local on the day before, the day of and the day after each change
    (NEW_YORK, "2024-03-09T17:00Z", "2024-03-09T05:00Z"),
    (NEW_YORK, "2024-03-10T16:00Z", "2024-03-10T05:00Z"),   # the change happens after midnight: EST midnight
    (NEW_YORK, "2024-03-11T16:00Z", "2024-03-11T04:00Z"),
    (NEW_YORK, "2024-11-02T16:00Z", "2024-11-02T04:00Z"),
    (NEW_YORK, "2024-11-03T17:00Z", "2024-11-03T04:00Z"),   # midnight was still EDT
    (NEW_YORK, "2024-11-04T17:00Z", "2024-11-04T05:00Z"),
    # instance times just around the change: local day is what counts
    (NEW_YORK, "2024-03-10T06:59Z", "2024-03-10T05:00Z"),   # 01:59 EST
    (NEW_YORK, "2024-03-10T07:00Z", "2024-03-10T05:00Z"),   # 03:00 EDT
    (NEW_YORK, "2024-03-10T04:59Z", "2024-03-09T05:00Z"),   # 23:59 EST the day before
    (NEW_YORK, "2024-11-03T05:30Z", "2024-11-03T04:00Z"),   # first 01:30 (EDT)
    (NEW_YORK, "2024-11-03T06:30Z", "2024-11-03T04:00Z"),   # second 01:30 (EST)
    # London
    (LONDON, "2024-03-30T12:00Z", "2024-03-30T00:00Z"),
    (LONDON, "2024-03-31T11:00Z", "2024-03-31T00:00Z"),
    (LONDON, "2024-04-01T11:00Z", "2024-03-31T23:00Z"),
    (LONDON, "2024-10-26T11:00Z", "2024-10-25T23:00Z"),
    (LONDON, "2024-10-27T12:00Z", "2024-10-26T23:00Z"),
    (LONDON, "2024-10-28T12:00Z", "2024-10-28T00:00Z"),
    (LONDON, "2024-03-30T23:30Z", "2024-03-30T00:00Z"),     # 23:30 GMT, still the 30th
    (LONDON, "2024-10-26T23:30Z", "2024-10-26T23:00Z"),     # 00:30 BST on the 27th
])
def test_today_truncates_in_the_local_zone(zone: tzinfo, instance: str, expected: str) -> None:
    assert run("today(0,0)", instance, zone) == expected


def test_utc_zone_would_truncate_differently() -> None:
    assert run("today(0,0)", "2024-03-10T16:00Z", UTC) == "2024-03-10T00:00Z"
    assert run("today(0,0)", "2024-03-10T02:00Z", NEW_YORK) == "2024-03-09T05:00Z"  # 21:00 EST on the 9th


# -- zones whose DST changes at midnight ------------------------------------------------------------------------------
# Java's Calendar reads a wall-clock time the zone skips or repeats as standard time: a skipped midnight becomes
# 01:00 of the same day, a repeated midnight the later one. Truncation must never land on the previous day.

SAO_PAULO = pendulum.timezone("America/Sao_Paulo")  # 2018-11-04 00:00 -03 -> 01:00 -02
ASUNCION = pendulum.timezone("America/Asuncion")    # 2017-10-01 00:00 -04 -> 01:00 -03
HAVANA = pendulum.timezone("America/Havana")        # 2024-11-03 01:00 CDT -> 00:00 CST


@pytest.mark.parametrize(("zone", "expression", "instance", "expected"), [
    (SAO_PAULO, "today(0,0)", "2018-11-04T15:00Z", "2018-11-04T03:00Z"),          # 01:00 -02, not 23:00 on the 3rd
    (SAO_PAULO, "today(1,0)", "2018-11-04T15:00Z", "2018-11-04T04:00Z"),
    (SAO_PAULO, "today(0,0)", "2018-11-04T03:00Z", "2018-11-04T03:00Z"),          # the first instant of the day
    (SAO_PAULO, "yesterday(0,0)", "2018-11-05T15:00Z", "2018-11-04T03:00Z"),
    (SAO_PAULO, "currentWeek('SUN',0,0)", "2018-11-07T15:00Z", "2018-11-04T03:00Z"),
    (SAO_PAULO, "currentMonth(3,0,0)", "2018-11-20T15:00Z", "2018-11-04T03:00Z"),
    (ASUNCION, "currentMonth(0,0,0)", "2017-10-15T12:00Z", "2017-10-01T04:00Z"),  # 01:00 -03, not 30 September
    (ASUNCION, "lastMonth(0,0,0)", "2017-11-15T12:00Z", "2017-10-01T04:00Z"),
    (ASUNCION, "currentMonth(0,0,0)", "2017-10-01T04:00Z", "2017-10-01T04:00Z"),
    (HAVANA, "today(0,0)", "2024-11-03T05:30Z", "2024-11-03T05:00Z"),              # 00:30 CST -> 00:00 CST
    (HAVANA, "today(0,0)", "2024-11-03T04:30Z", "2024-11-03T05:00Z"),              # 00:30 CDT -> 00:00 CST too
])
def test_midnight_transitions_read_as_java_does(zone: tzinfo, expression: str, instance: str, expected: str) -> None:
    assert run(expression, instance, zone) == expected


def test_skipped_midnight_is_the_same_day_start_whichever_function_reaches_it() -> None:
    starts = {run("today(0,0)", "2018-11-04T15:00Z", SAO_PAULO),
              run("yesterday(0,0)", "2018-11-05T15:00Z", SAO_PAULO),
              run("currentMonth(3,0,0)", "2018-11-20T15:00Z", SAO_PAULO),
              render(InstanceGrid.of(at("2018-11-01T03:00Z"), Frequency.parse("days(1)"), SAO_PAULO).instance(3))}
    assert starts == {"2018-11-04T03:00Z"}


# -- hours and minutes are elapsed time -----------------------------------------------------------------------------


@pytest.mark.parametrize(("zone", "expression", "instance", "expected"), [
    (NEW_YORK, "now(1,0)", "2024-03-10T06:30Z", "2024-03-10T07:30Z"),    # 01:30 EST -> 03:30 EDT
    (NEW_YORK, "now(1,0)", "2024-11-03T05:30Z", "2024-11-03T06:30Z"),    # 01:30 EDT -> 01:30 EST
    (NEW_YORK, "now(-1,0)", "2024-11-03T06:30Z", "2024-11-03T05:30Z"),
    (NEW_YORK, "now(0,90)", "2024-03-10T06:00Z", "2024-03-10T07:30Z"),
    (LONDON, "now(1,0)", "2024-03-31T00:30Z", "2024-03-31T01:30Z"),      # 00:30 GMT -> 02:30 BST
    (LONDON, "now(1,0)", "2024-10-27T00:30Z", "2024-10-27T01:30Z"),      # 01:30 BST -> 01:30 GMT
    (LONDON, "now(24,0)", "2024-03-30T12:00Z", "2024-03-31T12:00Z"),     # 12:00 GMT -> 13:00 BST
    # today(h, m) adds elapsed hours to local midnight: the short day ends at 23 h, the long one at 25 h
    (NEW_YORK, "today(24,0)", "2024-03-10T16:00Z", "2024-03-11T05:00Z"),  # = 01:00 EDT on the 11th
    (NEW_YORK, "today(23,0)", "2024-03-10T16:00Z", "2024-03-11T04:00Z"),  # = next local midnight
    (NEW_YORK, "today(3,0)", "2024-03-10T16:00Z", "2024-03-10T08:00Z"),   # = 04:00 EDT
    (NEW_YORK, "today(25,0)", "2024-11-03T17:00Z", "2024-11-04T05:00Z"),  # = next local midnight
    (NEW_YORK, "today(2,0)", "2024-11-03T17:00Z", "2024-11-03T06:00Z"),   # = 01:00 EST, the second 01:00
    (LONDON, "today(24,0)", "2024-03-31T11:00Z", "2024-04-01T00:00Z"),    # = 01:00 BST on 1 April
    (LONDON, "today(2,0)", "2024-03-31T11:00Z", "2024-03-31T02:00Z"),     # = 03:00 BST
    (LONDON, "today(24,0)", "2024-10-27T12:00Z", "2024-10-27T23:00Z"),    # = 23:00 GMT, still the 27th
    (NEW_YORK, "yesterday(1,30)", "2024-11-03T17:00Z", "2024-11-02T05:30Z"),
    (NEW_YORK, "yesterday(0,0)", "2024-03-11T16:00Z", "2024-03-10T05:00Z"),
])
def test_hours_are_elapsed_time(zone: tzinfo, expression: str, instance: str, expected: str) -> None:
    assert run(expression, instance, zone) == expected


# -- days and months keep the wall-clock time -------------------------------------------------------------------------


@pytest.mark.parametrize(("zone", "expression", "instance", "expected"), [
    # March 1 is EST, March 11 is EDT: both at local midnight
    (NEW_YORK, "currentMonth(0,0,0)", "2024-03-20T12:00Z", "2024-03-01T05:00Z"),
    (NEW_YORK, "currentMonth(10,0,0)", "2024-03-20T12:00Z", "2024-03-11T04:00Z"),
    (NEW_YORK, "currentMonth(9,0,0)", "2024-03-20T12:00Z", "2024-03-10T05:00Z"),
    (NEW_YORK, "currentMonth(0,0,0)", "2024-04-15T12:00Z", "2024-04-01T04:00Z"),
    (NEW_YORK, "currentMonth(2,0,0)", "2024-11-20T12:00Z", "2024-11-03T04:00Z"),
    (NEW_YORK, "currentMonth(3,0,0)", "2024-11-20T12:00Z", "2024-11-04T05:00Z"),
    (NEW_YORK, "lastMonth(0,0,0)", "2024-04-15T12:00Z", "2024-03-01T05:00Z"),
    (NEW_YORK, "currentMonth(-1,0,0)", "2024-03-01T05:00Z", "2024-02-29T05:00Z"),
    (NEW_YORK, "yesterday(0,0)", "2024-11-04T17:00Z", "2024-11-03T04:00Z"),
    (NEW_YORK, "currentWeek('SUN',0,0)", "2024-03-13T16:00Z", "2024-03-10T05:00Z"),
    (NEW_YORK, "lastWeek('MON',0,0)", "2024-03-13T16:00Z", "2024-03-04T05:00Z"),
    (NEW_YORK, "currentYear(2,10,0,0)", "2024-06-01T12:00Z", "2024-03-11T04:00Z"),
    (NEW_YORK, "currentYear(0,0,0,0)", "2024-06-01T12:00Z", "2024-01-01T05:00Z"),
    (NEW_YORK, "lastYear(10,3,0,0)", "2025-06-01T12:00Z", "2024-11-04T05:00Z"),
    (LONDON, "currentMonth(0,0,0)", "2024-04-15T12:00Z", "2024-03-31T23:00Z"),   # 1 April 00:00 BST
    (LONDON, "currentMonth(30,0,0)", "2024-03-15T12:00Z", "2024-03-31T00:00Z"),  # 31 March 00:00 GMT
    (LONDON, "lastMonth(0,0,0)", "2024-11-15T12:00Z", "2024-09-30T23:00Z"),      # 1 October 00:00 BST
    (LONDON, "currentMonth(26,1,30)", "2024-10-15T12:00Z", "2024-10-27T00:30Z"),  # 00:00 BST + 1.5 h elapsed
])
def test_days_and_months_keep_wall_clock_time(zone: tzinfo, expression: str, instance: str, expected: str) -> None:
    assert run(expression, instance, zone) == expected


@pytest.mark.parametrize(("zone", "start", "expected"), [
    # 00:00 local every day across spring forward and fall back
    (NEW_YORK, "2024-03-09T05:00Z", ["2024-03-09T05:00Z", "2024-03-10T05:00Z", "2024-03-11T04:00Z",
                                     "2024-03-12T04:00Z"]),
    (NEW_YORK, "2024-11-02T04:00Z", ["2024-11-02T04:00Z", "2024-11-03T04:00Z", "2024-11-04T05:00Z",
                                     "2024-11-05T05:00Z"]),
    # 12:00 local
    (LONDON, "2024-03-30T12:00Z", ["2024-03-30T12:00Z", "2024-03-31T11:00Z", "2024-04-01T11:00Z",
                                   "2024-04-02T11:00Z"]),
    (LONDON, "2024-10-26T11:00Z", ["2024-10-26T11:00Z", "2024-10-27T12:00Z", "2024-10-28T12:00Z",
                                   "2024-10-29T12:00Z"]),
])
def test_daily_grid_keeps_wall_clock_time(zone: tzinfo, start: str, expected: list[str]) -> None:
    grid = InstanceGrid.of(at(start), Frequency.parse("days(1)"), zone)
    assert [render(grid.instance(k)) for k in range(4)] == expected
    step = Frequency.parse("days(1)")
    moment = pendulum.instance(at(start)).in_timezone(zone)
    assert [render(step.step(moment, k)) for k in range(4)] == expected


def test_daily_step_into_the_spring_gap_moves_forward() -> None:
    """01:30 does not exist in London on 2024-03-31; Java's lenient calendar reads it as 02:30 BST."""
    moment = pendulum.datetime(2024, 3, 30, 1, 30, tz=LONDON)
    assert render(Frequency.parse("days(1)").step(moment)) == "2024-03-31T01:30Z"


def test_daily_step_into_the_fall_back_overlap_takes_standard_time() -> None:
    """01:30 happens twice in New York on 2024-11-03; Java's calendar reads the wall time as standard time (EST)."""
    moment = pendulum.datetime(2024, 11, 2, 1, 30, tz=NEW_YORK)
    assert render(Frequency.parse("days(1)").step(moment)) == "2024-11-03T06:30Z"


@pytest.mark.parametrize(("zone", "start", "first", "last", "count"), [
    (NEW_YORK, "2024-03-10T05:00Z", "2024-03-10T05:00Z", "2024-03-11T04:00Z", 23),   # short local day
    (NEW_YORK, "2024-11-03T04:00Z", "2024-11-03T04:00Z", "2024-11-04T05:00Z", 25),   # long local day
    (LONDON, "2024-03-31T00:00Z", "2024-03-31T00:00Z", "2024-03-31T23:00Z", 23),
    (LONDON, "2024-10-26T23:00Z", "2024-10-26T23:00Z", "2024-10-28T00:00Z", 25),
])
def test_hourly_grid_is_elapsed_time(zone: tzinfo, start: str, first: str, last: str, count: int) -> None:
    grid = InstanceGrid.of(at(start), Frequency.parse("hours(1)"), zone)
    assert grid.count_between(at(first), at(last)) == count
    instances = list(grid.between(at(first), at(last)))
    assert all(later - earlier == pendulum.duration(hours=1) for earlier, later in pairwise(instances))


def test_hourly_step_over_the_gap() -> None:
    start = pendulum.datetime(2024, 3, 10, 0, 0, tz=NEW_YORK)
    hours = Frequency.parse("hours(1)")
    assert [hours.step(start, k).in_timezone(NEW_YORK).hour for k in range(5)] == [0, 1, 3, 4, 5]
    fall = pendulum.datetime(2024, 11, 3, 0, 0, tz=NEW_YORK)
    assert [hours.step(fall, k).in_timezone(NEW_YORK).hour for k in range(5)] == [0, 1, 1, 2, 3]


# -- month ends and leap years --------------------------------------------------------------------------------------


@pytest.mark.parametrize(("expression", "instance", "expected"), [
    ("currentMonth(30,0,0)", "2015-02-10T00:00Z", "2015-03-03T00:00Z"),   # 28-day February
    ("currentMonth(30,0,0)", "2016-02-10T00:00Z", "2016-03-02T00:00Z"),   # 29-day February
    ("currentMonth(28,0,0)", "2016-02-10T00:00Z", "2016-02-29T00:00Z"),
    ("currentMonth(28,0,0)", "2015-02-10T00:00Z", "2015-03-01T00:00Z"),
    ("currentMonth(31,0,0)", "2015-04-10T00:00Z", "2015-05-02T00:00Z"),
    ("lastMonth(0,0,0)", "2015-03-31T00:00Z", "2015-02-01T00:00Z"),       # truncate first: no Feb 31
    ("lastMonth(0,0,0)", "2015-03-31T23:59Z", "2015-02-01T00:00Z"),
    ("lastMonth(27,0,0)", "2015-03-31T00:00Z", "2015-02-28T00:00Z"),
    ("lastMonth(30,0,0)", "2015-03-31T00:00Z", "2015-03-03T00:00Z"),
    ("lastMonth(30,0,0)", "2016-03-31T00:00Z", "2016-03-02T00:00Z"),
    ("lastMonth(0,0,0)", "2015-01-31T00:00Z", "2014-12-01T00:00Z"),       # over the year boundary
    ("currentMonth(-1,0,0)", "2016-03-31T00:00Z", "2016-02-29T00:00Z"),
    ("currentMonth(-1,0,0)", "2015-03-31T00:00Z", "2015-02-28T00:00Z"),
    ("currentYear(1,28,0,0)", "2016-07-01T00:00Z", "2016-02-29T00:00Z"),
    ("currentYear(1,28,0,0)", "2015-07-01T00:00Z", "2015-03-01T00:00Z"),
    ("currentYear(1,30,0,0)", "2015-07-01T00:00Z", "2015-03-03T00:00Z"),  # month first, then days
    ("lastYear(1,28,0,0)", "2017-01-15T00:00Z", "2016-02-29T00:00Z"),
    ("lastYear(0,365,0,0)", "2017-01-15T00:00Z", "2016-12-31T00:00Z"),    # 2016 has 366 days
    ("lastYear(0,365,0,0)", "2016-01-15T00:00Z", "2016-01-01T00:00Z"),
    ("yesterday(0,0)", "2016-03-01T12:00Z", "2016-02-29T00:00Z"),
    ("yesterday(0,0)", "2015-03-01T12:00Z", "2015-02-28T00:00Z"),
    ("yesterday(0,0)", "2000-03-01T12:00Z", "2000-02-29T00:00Z"),         # divisible by 400: leap
    ("yesterday(0,0)", "2100-03-01T12:00Z", "2100-02-28T00:00Z"),         # divisible by 100: not leap
    ("today(24,0)", "2016-02-28T12:00Z", "2016-02-29T00:00Z"),
    ("now(24,0)", "2016-02-29T06:00Z", "2016-03-01T06:00Z"),
    ("currentWeek('MON',0,0)", "2016-03-01T12:00Z", "2016-02-29T00:00Z"),
    ("dateOffset('2016-02-29T00:00Z', 1, 'YEAR')", "2016-01-01T00:00Z", "2017-02-28T00:00Z"),
    ("dateOffset('2016-02-29T00:00Z', 4, 'YEAR')", "2016-01-01T00:00Z", "2020-02-29T00:00Z"),
    ("dateOffset('2016-01-31T00:00Z', 1, 'MONTH')", "2016-01-01T00:00Z", "2016-02-29T00:00Z"),
    ("dateOffset('2015-01-31T00:00Z', 1, 'MONTH')", "2016-01-01T00:00Z", "2015-02-28T00:00Z"),
    ("dateOffset('2015-03-31T10:00Z', -1, 'MONTH')", "2016-01-01T00:00Z", "2015-02-28T10:00Z"),
    ("dateOffset('2016-02-28T23:30Z', 60, 'MINUTE')", "2016-01-01T00:00Z", "2016-02-29T00:30Z"),
])
def test_month_ends_and_leap_years(expression: str, instance: str, expected: str) -> None:
    assert run(expression, instance) == expected


@pytest.mark.parametrize(("start", "expected"), [
    ("2015-01-31T00:00Z", ["2015-01-31T00:00Z", "2015-02-28T00:00Z", "2015-03-31T00:00Z", "2015-04-30T00:00Z",
                           "2015-05-31T00:00Z"]),
    ("2016-01-31T00:00Z", ["2016-01-31T00:00Z", "2016-02-29T00:00Z", "2016-03-31T00:00Z", "2016-04-30T00:00Z",
                           "2016-05-31T00:00Z"]),
    ("2016-01-30T06:00Z", ["2016-01-30T06:00Z", "2016-02-29T06:00Z", "2016-03-30T06:00Z", "2016-04-30T06:00Z",
                           "2016-05-30T06:00Z"]),
])
def test_monthly_grid_from_month_end_does_not_drift(start: str, expected: list[str]) -> None:
    grid = InstanceGrid.of(at(start), Frequency.parse("months(1)"), UTC)
    assert [render(grid.instance(k)) for k in range(5)] == expected
    assert [render(moment) for moment in grid.between(at(expected[0]), at(expected[-1]))] == expected


def test_monthly_feed_snaps_to_month_end_instances() -> None:
    grid = InstanceGrid.of(at("2016-01-31T00:00Z"), Frequency.parse("months(1)"), UTC)
    assert run("now(0,0)", "2016-03-30T12:00Z", dataset=grid) == "2016-02-29T00:00Z"
    assert run("now(0,0)", "2016-03-31T00:00Z", dataset=grid) == "2016-03-31T00:00Z"
    assert run("lastMonth(0,0,0)", "2016-04-15T00:00Z", dataset=grid) == "2016-02-29T00:00Z"


# -- snapping to a feed grid in a non-UTC zone ------------------------------------------------------------------------


def test_daily_feed_in_new_york_snaps_to_local_midnight_across_spring_forward() -> None:
    feed = InstanceGrid.of(at("2024-03-01T05:00Z"), Frequency.parse("days(1)"), NEW_YORK)  # 00:00 EST
    assert run("now(0,0)", "2024-03-12T16:00Z", NEW_YORK, feed) == "2024-03-12T04:00Z"     # 00:00 EDT
    assert run("now(0,0)", "2024-03-10T16:00Z", NEW_YORK, feed) == "2024-03-10T05:00Z"     # 00:00 EST
    assert run("now(0,0)", "2024-03-11T04:30Z", NEW_YORK, feed) == "2024-03-11T04:00Z"     # 00:30 EDT
    assert run("now(0,0)", "2024-03-11T03:59Z", NEW_YORK, feed) == "2024-03-10T05:00Z"     # 23:59 EDT on the 10th
    assert run("yesterday(12,0)", "2024-03-12T16:00Z", NEW_YORK, feed) == "2024-03-11T04:00Z"
    assert run("now(-48,0)", "2024-03-12T16:00Z", NEW_YORK, feed) == "2024-03-10T05:00Z"
    assert run("lastWeek('SUN',0,0)", "2024-03-12T16:00Z", NEW_YORK, feed) == "2024-03-03T05:00Z"


def test_daily_feed_in_new_york_across_fall_back() -> None:
    feed = InstanceGrid.of(at("2024-10-01T04:00Z"), Frequency.parse("days(1)"), NEW_YORK)  # 00:00 EDT
    assert run("now(0,0)", "2024-11-03T04:00Z", NEW_YORK, feed) == "2024-11-03T04:00Z"
    assert run("now(0,0)", "2024-11-04T04:30Z", NEW_YORK, feed) == "2024-11-03T04:00Z"    # 23:30 EST on the 3rd
    assert run("now(0,0)", "2024-11-04T05:00Z", NEW_YORK, feed) == "2024-11-04T05:00Z"
    assert run("today(25,0)", "2024-11-03T17:00Z", NEW_YORK, feed) == "2024-11-04T05:00Z"
    assert run("today(24,59)", "2024-11-03T17:00Z", NEW_YORK, feed) == "2024-11-03T04:00Z"


def test_six_hourly_feed_in_london_across_spring_forward() -> None:
    # hours are elapsed: 00:00 GMT, 06:00 GMT, 13:00 BST (12:00 GMT) ... the grid stays at 6 h in UTC
    feed = InstanceGrid.of(at("2024-03-30T00:00Z"), Frequency.parse("hours(6)"), LONDON)
    assert run("today(0,0)", "2024-03-31T15:00Z", LONDON, feed) == "2024-03-31T00:00Z"
    assert run("now(0,0)", "2024-03-31T15:00Z", LONDON, feed) == "2024-03-31T12:00Z"
    assert run("today(12,0)", "2024-04-01T15:00Z", LONDON, feed) == "2024-04-01T06:00Z"  # 11:00Z snaps down


def test_monthly_feed_in_london_snaps_to_local_month_starts() -> None:
    feed = InstanceGrid.of(at("2024-01-01T00:00Z"), Frequency.parse("months(1)"), LONDON)
    assert run("now(0,0)", "2024-04-15T12:00Z", LONDON, feed) == "2024-03-31T23:00Z"      # 1 April 00:00 BST
    assert run("now(0,0)", "2024-03-31T22:59Z", LONDON, feed) == "2024-03-01T00:00Z"
    assert run("currentMonth(0,0,0)", "2024-11-15T12:00Z", LONDON, feed) == "2024-11-01T00:00Z"
    assert run("lastMonth(0,0,0)", "2024-11-15T12:00Z", LONDON, feed) == "2024-09-30T23:00Z"


# -- before the first feed instance -----------------------------------------------------------------------------------


@pytest.mark.parametrize(("expression", "instance"), [
    ("now(-1,0)", "2024-03-01T05:30Z"),
    ("today(0,-1)", "2024-03-01T12:00Z"),
    ("yesterday(0,0)", "2024-03-01T12:00Z"),
    ("lastMonth(0,0,0)", "2024-03-20T12:00Z"),
    ("currentMonth(-1,23,59)", "2024-03-20T12:00Z"),
    ("lastWeek('FRI',0,0)", "2024-03-05T12:00Z"),
    ("lastYear(11,30,0,0)", "2024-06-01T12:00Z"),
    ("latest(0)", "2024-03-01T04:59Z"),
])
def test_results_before_the_first_feed_instance_are_nothing(expression: str, instance: str) -> None:
    feed = InstanceGrid.of(at("2024-03-01T05:00Z"), Frequency.parse("days(1)"), NEW_YORK)
    context = ELContext(instance_time=at(instance), zone=NEW_YORK, dataset=feed)
    assert evaluate(expression, context) is None
    assert render(evaluate(expression, context)) == ""


def test_first_feed_instance_itself_resolves() -> None:
    feed = InstanceGrid.of(at("2024-03-01T05:00Z"), Frequency.parse("days(1)"), NEW_YORK)
    assert run("today(0,0)", "2024-03-01T12:00Z", NEW_YORK, feed) == "2024-03-01T05:00Z"
    assert run("currentMonth(0,0,0)", "2024-03-20T12:00Z", NEW_YORK, feed) == "2024-03-01T05:00Z"
    assert run("now(-1,0)", "2024-03-01T06:00Z", NEW_YORK, feed) == "2024-03-01T05:00Z"
