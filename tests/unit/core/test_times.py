"""Instants, durations (months as 31 days, Falcon's EvictionHelperTest) and time zones
(``falcon_airflow.core.times``)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from falcon_airflow.core.errors import RuleError
from falcon_airflow.core.times import format_instant, format_timestamp, parse_duration, parse_instant, parse_zone


# EvictionHelperTest: limits in exact minutes, months as 31 days
@pytest.mark.parametrize(("text", "minutes"), [
    ("minutes(5)", 5), ("hours(5)", 300), ("days(10)", 14400), ("months(5)", 5 * 31 * 1440), ("${hours(2)}", 120),
])
def test_durations(text: str, minutes: int) -> None:
    assert parse_duration(text).minutes == minutes
    assert parse_duration(text).delta == timedelta(minutes=minutes)


@pytest.mark.parametrize("text", ["weeks(1)", "hours", "hours(-1)", "hours(0)", "5 hours", ""])
def test_bad_durations(text: str) -> None:
    with pytest.raises(RuleError):
        parse_duration(text)


def test_instants_and_zones() -> None:
    assert parse_instant("2015-01-01T10:00Z") == datetime(2015, 1, 1, 10, 0, tzinfo=UTC)
    assert parse_instant("2015-01-01T10:00:30Z").second == 30
    for bad in ("2015-01-01 10:00", "2015-13-01T10:00Z", "yesterday"):
        with pytest.raises(RuleError):
            parse_instant(bad)
    assert parse_zone("GMT+05:30").utcoffset(None) == timedelta(hours=5, minutes=30)
    assert parse_zone("GMT-08:00").utcoffset(None) == timedelta(hours=-8)
    # Java's short IDs, as the compiler passes a feed's <timezone> to the jobs
    assert parse_zone("IST").utcoffset(datetime(2026, 1, 1)) == timedelta(hours=5, minutes=30)
    with pytest.raises(RuleError):
        parse_zone("UTC-08:00")  # not a Java ID: Falcon read it as GMT, a job refuses it
    with pytest.raises(RuleError, match="unknown time zone"):
        parse_zone("Mars/Olympus")
    with pytest.raises(RuleError):
        parse_zone("../etc/passwd")


@pytest.mark.parametrize(("moment", "instant", "timestamp"), [
    (datetime(2026, 3, 1, 5, 7, 9, 123456, tzinfo=UTC), "2026-03-01T05:07Z", "2026-03-01T05:07:09Z"),
    (datetime(2026, 3, 1, 10, 37, 9, tzinfo=timezone(timedelta(hours=5, minutes=30))), "2026-03-01T05:07Z",
     "2026-03-01T05:07:09Z"),
    (datetime(124, 11, 2, 18, 50, tzinfo=UTC), "0124-11-02T18:50Z", "0124-11-02T18:50:00Z"),  # four-digit years
    (datetime(1, 1, 1, tzinfo=UTC), "0001-01-01T00:00Z", "0001-01-01T00:00:00Z"),
])
def test_instants_and_timestamps_are_written_in_utc(moment: datetime, instant: str, timestamp: str) -> None:
    assert format_instant(moment) == instant
    assert format_timestamp(moment) == timestamp
    assert parse_instant(format_instant(moment)) == moment.replace(second=0, microsecond=0)
