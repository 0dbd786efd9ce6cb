"""Instance-grid arithmetic: falcon-el.md §2.7 (Falcon's EntityUtilTest, all UTC) and Frequency.step."""

from __future__ import annotations

from datetime import UTC, datetime

import pendulum
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from falcon_airflow.errors import FrequencyError
from falcon_airflow.timekeeping import Frequency, TimeUnit
from falcon_airflow.timekeeping.grid import InstanceGrid


def t(text: str) -> datetime:
    """``2012-04-03 02:45`` in UTC."""
    return datetime.strptime(text, "%Y-%m-%d %H:%M").replace(tzinfo=UTC)


def grid(start: str, frequency: str, end: str | None = None) -> InstanceGrid:
    return InstanceGrid.of(t(start), Frequency.parse(frequency), pendulum.UTC, t(end) if end else None)


# -- G1-G5: next instance at or after a reference time ----------------------------------------------------------------


@pytest.mark.parametrize(("start", "frequency", "reference", "expected"), [
    pytest.param("2012-04-02 03:00", "hours(1)", "2012-04-03 02:45", "2012-04-03 03:00", id="G1"),
    pytest.param("2012-02-01 03:00", "days(7)", "2012-05-02 02:45", "2012-05-02 03:00", id="G2"),
    pytest.param("2010-02-01 03:00", "days(7)", "2010-05-02 04:45", "2010-05-03 03:00", id="G3"),
    pytest.param("1980-02-01 03:00", "days(7)", "2010-05-02 04:45", "2010-05-07 03:00", id="G4"),
    pytest.param("2012-06-02 10:00", "months(1)", "2136-06-02 10:00", "2136-06-02 10:00", id="G5"),
])
def test_next_at_or_after(start: str, frequency: str, reference: str, expected: str) -> None:
    assert grid(start, frequency).next_at_or_after(t(reference)) == t(expected)


def test_next_at_or_after_before_the_start_is_the_start() -> None:
    assert grid("2012-04-02 03:00", "hours(1)").next_at_or_after(t("2011-01-01 00:00")) == t("2012-04-02 03:00")


# -- G6-G13: 1-based instance sequence --------------------------------------------------------------------------------


@pytest.mark.parametrize(("start", "frequency", "instance", "expected"), [
    pytest.param("2012-05-14 07:40", "hours(1)", "2012-05-22 13:40", 199, id="G6"),
    pytest.param("2012-05-14 07:40", "hours(1)", "2012-05-22 12:40", 198, id="G7"),
    pytest.param("2012-05-14 07:40", "hours(1)", "2012-05-22 12:41", 199, id="G8"),   # rounds up
    pytest.param("2010-01-02 01:00", "minutes(1)", "2010-01-02 01:01", 2, id="G9"),
    pytest.param("2010-01-02 01:01", "minutes(2)", "2010-01-02 01:03", 2, id="G10"),
    pytest.param("2010-01-02 01:01", "hours(1)", "2010-01-02 02:01", 2, id="G11"),
    pytest.param("2010-01-02 01:01", "minutes(3)", "2010-01-02 01:04", 2, id="G12"),
    pytest.param("2010-01-02 01:01", "minutes(1)", "2010-01-02 01:03", 3, id="G13"),
])
def test_sequence(start: str, frequency: str, instance: str, expected: int) -> None:
    assert grid(start, frequency).sequence(t(instance)) == expected


def test_sequence_of_the_start_is_one() -> None:
    assert grid("2010-01-02 01:01", "minutes(1)").sequence(t("2010-01-02 01:01")) == 1


# -- G14-G18, G21: stepping n instances ------------------------------------------------------------------------------


@pytest.mark.parametrize(("frequency", "steps", "expected"), [
    pytest.param("minutes(1)", 1, "2014-01-01 00:01", id="G14-1"),
    pytest.param("minutes(1)", 25, "2014-01-01 00:25", id="G14-25"),
    pytest.param("hours(1)", 1, "2014-01-01 01:00", id="G15-1"),
    pytest.param("hours(1)", 5, "2014-01-01 05:00", id="G15-5"),
    pytest.param("days(1)", 1, "2014-01-02 00:00", id="G16-1"),
    pytest.param("days(1)", 10, "2014-01-11 00:00", id="G16-10"),
    pytest.param("months(1)", 1, "2014-02-01 00:00", id="G17-1"),
    pytest.param("months(1)", 7, "2014-08-01 00:00", id="G17-7"),
])
def test_instance_n(frequency: str, steps: int, expected: str) -> None:
    assert grid("2014-01-01 00:00", frequency).instance(steps) == t(expected)
    assert Frequency.parse(frequency).step(t("2014-01-01 00:00"), steps) == t(expected)


def test_next_instance_with_delay_g18() -> None:
    assert Frequency.parse("hours(2)").step(t("2016-08-10 03:00")) == t("2016-08-10 05:00")


def test_feed_next_instance_g21() -> None:
    feed = grid("2011-02-28 10:00", "minutes(5)")
    assert feed.instance(1) == t("2011-02-28 10:05")
    assert feed.next_at_or_after(t("2011-02-28 10:01")) == t("2011-02-28 10:05")


# -- G19-G20: instances in a range ------------------------------------------------------------------------------------


def test_instances_in_range_g19() -> None:
    entity = grid("2016-09-30 15:24", "minutes(5)", "2016-09-30 17:04")
    first = list(entity.between(t("2016-09-30 15:25"), t("2016-09-30 15:30")))
    second = list(entity.between(t("2016-09-30 15:18"), t("2016-09-30 15:24")))
    assert first == [t("2016-09-30 15:29")]
    assert second == [t("2016-09-30 15:24")]   # starts before the entity: clipped to its start
    assert len(first) + len(second) == 2
    assert list(entity.between(t("2016-09-30 15:24"), t("2016-09-30 15:25"))) == [t("2016-09-30 15:24")]


def test_instances_in_range_g20() -> None:
    entity = grid("2016-09-30 15:24", "minutes(2)", "2016-09-30 17:04")
    assert len(list(entity.between(t("2016-09-30 16:32"), t("2016-09-30 17:02")))) == 16
    every = list(entity.between(t("2016-09-30 15:24"), t("2016-09-30 17:05")))
    assert len(every) == 50
    assert every[0] == t("2016-09-30 15:24") and every[-1] == t("2016-09-30 17:02")  # end 17:04 is exclusive


def test_count_between_excludes_the_last() -> None:
    entity = grid("2016-09-30 15:24", "minutes(2)", "2016-09-30 17:04")
    assert entity.count_between(t("2016-09-30 16:32"), t("2016-09-30 17:02")) == 15
    assert entity.count_between(t("2016-09-30 16:32"), t("2016-09-30 17:03")) == 16
    assert entity.count_between(t("2016-09-30 15:24"), t("2016-09-30 17:05")) == 50
    assert entity.count_between(t("2016-09-30 15:25"), t("2016-09-30 15:26")) == 0
    assert entity.count_between(t("2016-09-30 15:00"), t("2016-09-30 15:24")) == 0
    assert entity.count_between(t("2016-09-30 18:00"), t("2016-09-30 19:00")) == 0


def test_between_without_end_and_outside_the_window() -> None:
    hourly = grid("2016-01-01 00:00", "hours(1)")
    assert list(hourly.between(t("2015-12-31 20:00"), t("2016-01-01 02:30"))) == [
        t("2016-01-01 00:00"), t("2016-01-01 01:00"), t("2016-01-01 02:00")]
    assert list(hourly.between(t("2015-12-31 20:00"), t("2015-12-31 23:59"))) == []
    assert list(hourly.between(t("2016-01-01 05:00"), t("2016-01-01 04:00"))) == []


# -- is_instance, contains, at_or_before -------------------------------------------------------------------------------


def test_is_instance() -> None:
    feed = grid("2011-02-28 10:00", "minutes(5)", "2016-02-28 10:00")
    assert feed.is_instance(t("2011-02-28 10:00"))
    assert feed.is_instance(t("2012-02-28 10:35"))
    assert not feed.is_instance(t("2012-02-28 09:04"))          # off the grid
    assert not feed.is_instance(t("2011-02-28 09:55"))          # before the start
    assert feed.is_instance(t("2016-02-28 10:00"))              # on the grid, though outside validity


def test_contains_is_start_inclusive_end_exclusive() -> None:
    feed = grid("2011-02-28 10:00", "minutes(5)", "2016-02-28 10:00")
    assert feed.contains(t("2011-02-28 10:00"))
    assert feed.contains(t("2016-02-28 09:59"))
    assert not feed.contains(t("2016-02-28 10:00"))
    assert not feed.contains(t("2011-02-27 10:00"))
    assert grid("2011-02-28 10:00", "minutes(5)").contains(t("2999-01-01 00:00"))  # no end


def test_at_or_before() -> None:
    feed = grid("2012-02-27 10:00", "minutes(5)")
    assert feed.at_or_before(t("2012-02-28 10:17")) == t("2012-02-28 10:15")
    assert feed.at_or_before(t("2012-02-28 10:15")) == t("2012-02-28 10:15")
    assert feed.at_or_before(t("2012-02-27 10:00")) == t("2012-02-27 10:00")
    assert feed.at_or_before(t("2012-02-27 09:59")) is None
    assert feed.index_at_or_before(t("2012-02-27 09:59")) == -1
    assert feed.index_at_or_before(t("2012-02-27 09:55")) == -1
    assert feed.index_at_or_before(t("2012-02-27 09:54")) == -2


def test_far_from_the_start() -> None:
    minutely = grid("1980-01-01 00:00", "minutes(1)")
    assert minutely.at_or_before(t("2099-12-31 23:59")) == t("2099-12-31 23:59")
    monthly = grid("1980-01-31 00:00", "months(1)")
    assert monthly.at_or_before(t("2099-12-30 00:00")) == t("2099-11-30 00:00")
    assert monthly.next_at_or_after(t("2100-02-01 00:00")) == t("2100-02-28 00:00")


# -- months(1) does not drift ---------------------------------------------------------------------------------------


def test_monthly_grid_from_january_31_does_not_drift() -> None:
    monthly = grid("2015-01-31 00:00", "months(1)")
    assert [monthly.instance(k) for k in range(5)] == [
        t("2015-01-31 00:00"), t("2015-02-28 00:00"), t("2015-03-31 00:00"), t("2015-04-30 00:00"),
        t("2015-05-31 00:00")]
    assert monthly.instance(13) == t("2016-02-29 00:00")
    assert monthly.is_instance(t("2015-03-31 00:00"))
    assert not monthly.is_instance(t("2015-03-28 00:00"))
    assert monthly.next_at_or_after(t("2015-03-01 00:00")) == t("2015-03-31 00:00")
    assert monthly.sequence(t("2015-04-30 00:00")) == 4
    assert list(monthly.between(t("2015-02-01 00:00"), t("2015-04-30 00:00"))) == [
        t("2015-02-28 00:00"), t("2015-03-31 00:00"), t("2015-04-30 00:00")]


def test_chained_steps_drift_but_the_grid_does_not() -> None:
    months = Frequency.parse("months(1)")
    chained = months.step(months.step(t("2015-01-31 00:00")))
    assert chained == t("2015-03-28 00:00")                      # why the grid never chains
    assert months.step(t("2015-01-31 00:00"), 2) == t("2015-03-31 00:00")


# -- Frequency --------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("frequency", "moment", "times", "expected"), [
    ("minutes(15)", "2016-02-28 23:50", 1, "2016-02-29 00:05"),
    ("minutes(15)", "2016-02-29 00:05", -1, "2016-02-28 23:50"),
    ("hours(6)", "2016-02-28 20:00", 2, "2016-02-29 08:00"),
    ("days(1)", "2016-02-28 10:00", 1, "2016-02-29 10:00"),
    ("days(7)", "2016-02-28 10:00", 1, "2016-03-06 10:00"),
    ("days(1)", "2016-02-28 10:00", 0, "2016-02-28 10:00"),
    ("months(1)", "2016-01-31 10:00", 1, "2016-02-29 10:00"),
    ("months(1)", "2015-01-31 10:00", 1, "2015-02-28 10:00"),
    ("months(3)", "2015-11-30 10:00", 1, "2016-02-29 10:00"),
    ("months(12)", "2016-02-29 10:00", 1, "2017-02-28 10:00"),
    ("months(1)", "2016-03-31 10:00", -1, "2016-02-29 10:00"),
])
def test_frequency_step(frequency: str, moment: str, times: int, expected: str) -> None:
    result = Frequency.parse(frequency).step(t(moment), times)
    assert isinstance(result, pendulum.DateTime)
    assert result == t(expected)


def test_frequency_step_keeps_the_zone_of_the_moment() -> None:
    start = pendulum.datetime(2024, 3, 9, 12, 0, tz="America/New_York")
    assert Frequency.parse("days(1)").step(start).in_timezone("UTC") == t("2024-03-10 16:00")
    assert Frequency.parse("hours(24)").step(start).in_timezone("UTC") == t("2024-03-10 17:00")


@pytest.mark.parametrize(("text", "unit", "count", "minutes"), [
    ("minutes(5)", TimeUnit.MINUTES, 5, 5),
    ("hours(1)", TimeUnit.HOURS, 1, 60),
    (" days(7) ", TimeUnit.DAYS, 7, 7 * 1440),
    ("months(1)", TimeUnit.MONTHS, 1, 31 * 1440),
])
def test_frequency_parse(text: str, unit: TimeUnit, count: int, minutes: int) -> None:
    frequency = Frequency.parse(text)
    assert (frequency.unit, frequency.count, frequency.minutes) == (unit, count, minutes)
    assert frequency.millis == minutes * 60_000
    assert str(frequency) == text.strip()


@pytest.mark.parametrize("text", ["hours(0)", "hours(-1)", "weeks(1)", "hours", "hours(1.5)", "", "Hours(1)"])
def test_frequency_parse_rejects(text: str) -> None:
    with pytest.raises(FrequencyError):
        Frequency.parse(text)


@settings(max_examples=300, deadline=None)
@given(unit=st.sampled_from(list(TimeUnit)), count=st.integers(1, 50),
       zone=st.sampled_from(["UTC", "Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "Asia/Kolkata"]),
       start_minutes=st.integers(0, 60 * 24 * 400), offset_seconds=st.integers(-86_400 * 800, 86_400 * 800),
       micros=st.integers(0, 999_999))
def test_the_index_at_or_before_a_moment_is_the_one_a_search_of_the_grid_finds(
        unit: TimeUnit, count: int, zone: str, start_minutes: int, offset_seconds: int, micros: int) -> None:
    """Minutes and hours are computed from the elapsed time alone, days and months searched on the calendar: both
    agree with the definition, instance(k) <= moment < instance(k + 1), across DST and odd offsets."""
    start = pendulum.datetime(2025, 1, 1, tz="UTC").add(minutes=start_minutes)
    grid = InstanceGrid.of(start, Frequency(unit=unit, count=count), pendulum.timezone(zone))
    moment = grid.start.add(seconds=offset_seconds, microseconds=micros)
    index = grid.index_at_or_before(moment)
    assert grid.instance(index) <= moment < grid.instance(index + 1)
    on_the_grid = grid.instance(index)
    assert grid.index_at_or_before(on_the_grid) == index  # an instance itself is "at"
    assert grid.index_at_or_before(on_the_grid.subtract(microseconds=1)) == index - 1
