"""What retention may evict (``falcon_airflow.core.eviction``): a folder or partition goes only when the last instance
of the feed's grid it holds is older than the cut-off; a partition is an instance only when its values are exactly
the table URI's at one time; a partition's files are deleted only inside the table's folder."""

from __future__ import annotations

from datetime import datetime, timedelta

import pendulum
import pytest

from falcon_airflow.core.eviction import FeedGrid, judge_partition, judge_path, location_outside
from falcon_airflow.core.paths import Template
from falcon_airflow.core.tables import TableUri
from falcon_airflow.core.times import format_instant, parse_duration, parse_instant, parse_zone
from falcon_airflow.timekeeping import Frequency
from falcon_airflow.timekeeping.grid import InstanceGrid
from falcon_airflow.timekeeping.zones import resolve_zone


def grid(frequency: str, start: str | None = None, zone: str = "UTC") -> FeedGrid:
    return FeedGrid(parse_duration(frequency), parse_zone(zone), parse_instant(start) if start else None)


MONTHS = "/d/${YEAR}/${MONTH}"
DAYS = "/d/${YEAR}/${MONTH}/${DAY}"
HOURS = "/d/${YEAR}/${MONTH}/${DAY}/${HOUR}"

# (template, path, frequency, grid start, zone, cut-off, evicted?, the last instance the folder holds)
FOLDERS = [
    pytest.param(MONTHS, "/d/2026/03", "hours(1)", "2026-01-01T00:00Z", "UTC", "2026-03-15T10:00Z", False,
                 "2026-03-31T23:00Z", id="hourly-under-month-this-month-stays"),
    pytest.param(MONTHS, "/d/2026/02", "hours(1)", "2026-01-01T00:00Z", "UTC", "2026-03-15T10:00Z", True,
                 "2026-02-28T23:00Z", id="hourly-under-month-last-month-goes"),
    pytest.param(MONTHS, "/d/2026/02", "hours(1)", "2026-01-01T00:00Z", "UTC", "2026-02-28T23:00Z", False,
                 "2026-02-28T23:00Z", id="cutoff-exactly-at-the-last-instance"),
    pytest.param(MONTHS, "/d/2026/02", "hours(1)", "2026-01-01T00:00Z", "UTC", "2026-02-28T23:01Z", True,
                 "2026-02-28T23:00Z", id="cutoff-a-minute-after-the-last-instance"),
    pytest.param(MONTHS, "/d/2026/03", "hours(1)", None, "UTC", "2026-03-01T03:00Z", False, "2026-03-31T23:00Z",
                 id="hourly-under-month-without-a-start"),
    pytest.param(MONTHS, "/d/2024/02", "days(1)", "2024-01-01T00:00Z", "UTC", "2024-02-29T00:00Z", False,
                 "2024-02-29T00:00Z", id="daily-under-month-leap-february"),
    pytest.param(MONTHS, "/d/2026/02", "days(1)", "2026-01-01T00:00Z", "UTC", "2026-02-28T00:01Z", True,
                 "2026-02-28T00:00Z", id="daily-under-month-past"),
    pytest.param(MONTHS, "/d/2026/03", "days(7)", "2026-01-01T00:00Z", "UTC", "2026-03-26T00:00Z", False,
                 "2026-03-26T00:00Z", id="weekly-under-month"),
    pytest.param(HOURS, "/d/2026/03/01/04", "minutes(15)", "2026-01-01T00:00Z", "UTC", "2026-03-01T04:40Z", False,
                 "2026-03-01T04:45Z", id="quarter-hours-under-hour"),
    pytest.param(HOURS, "/d/2026/03/01/03", "minutes(15)", "2026-01-01T00:00Z", "UTC", "2026-03-01T04:40Z", True,
                 "2026-03-01T03:45Z", id="quarter-hours-under-hour-past"),
    pytest.param("/d/${YEAR}", "/d/2025", "months(1)", "2024-01-31T00:00Z", "UTC", "2025-12-15T00:00Z", False,
                 "2025-12-31T00:00Z", id="monthly-under-year-from-a-31st"),
    pytest.param("/d/${YEAR}", "/d/2024", "months(1)", "2024-01-31T00:00Z", "UTC", "2025-12-15T00:00Z", True,
                 "2024-12-31T00:00Z", id="monthly-under-year-past"),
    pytest.param(DAYS, "/d/2026/03/01", "hours(1)", None, "Asia/Kolkata", "2026-03-01T17:00Z", False,
                 "2026-03-01T17:30Z", id="hourly-under-day-in-kolkata"),
    pytest.param(DAYS, "/d/2026/03/01", "hours(1)", None, "Asia/Kolkata", "2026-03-01T17:31Z", True,
                 "2026-03-01T17:30Z", id="hourly-under-day-in-kolkata-past"),
    pytest.param(DAYS, "/d/2015/11/01", "hours(1)", "2015-01-01T05:00Z", "America/New_York", "2015-11-02T04:00Z",
                 False, "2015-11-02T04:00Z", id="hourly-under-the-25-hour-day"),
    pytest.param(DAYS, "/d/2015/03/08", "hours(1)", "2015-01-01T05:00Z", "America/New_York", "2015-03-09T03:01Z",
                 True, "2015-03-09T03:00Z", id="hourly-under-the-23-hour-day"),
    pytest.param("/d/${YEAR}/${HOUR}", "/d/2026/07", "hours(1)", "2026-01-01T00:00Z", "UTC", "2026-12-31T06:00Z",
                 False, "2026-12-31T07:00Z", id="a-gap-in-the-variables"),
    # as fine as the frequency: Falcon's rule, the instance goes as soon as it is older than the cut-off
    pytest.param(HOURS, "/d/2026/03/01/09", "hours(1)", "2026-01-01T00:00Z", "UTC", "2026-03-01T09:01Z", True,
                 "2026-03-01T09:00Z", id="one-instance-per-folder"),
    pytest.param(HOURS, "/d/2026/03/01/09", "hours(1)", "2026-01-01T00:00Z", "UTC", "2026-03-01T09:00Z", False,
                 "2026-03-01T09:00Z", id="one-instance-per-folder-at-the-cutoff"),
    pytest.param(HOURS, "/d/2026/03/01/00", "days(1)", "2026-01-01T00:00Z", "UTC", "2026-03-01T00:01Z", True,
                 "2026-03-01T00:00Z", id="daily-feed-in-hour-folders"),
    pytest.param(HOURS, "/d/2026/03/01/09", "hours(1)", "2026-01-01T00:30Z", "UTC", "2026-03-01T09:15Z", False,
                 "2026-03-01T09:30Z", id="half-past-instances-anchored-by-the-start"),
    pytest.param(HOURS, "/d/2026/03/01/09", "hours(1)", None, "UTC", "2026-03-01T09:15Z", True,
                 "2026-03-01T09:00Z", id="without-a-start-the-folder-start-is-the-instance"),
]


@pytest.mark.parametrize(("template", "path", "frequency", "start", "zone", "cutoff", "evicted", "last"), FOLDERS)
def test_a_folder_goes_only_when_its_last_instance_is_older_than_the_cutoff(
        template: str, path: str, frequency: str, start: str | None, zone: str, cutoff: str, evicted: bool,
        last: str) -> None:
    verdict = judge_path(Template(template), path, grid(frequency, start, zone), parse_instant(cutoff))

    assert verdict.reason is None
    assert verdict.last is not None and format_instant(verdict.last) == last
    assert verdict.evict is evicted
    # the instance reported is the folder's own time, as Falcon reported it
    assert verdict.moment == Template(template).instance_time(path, parse_zone(zone))


@pytest.mark.parametrize(("template", "path", "frequency", "start", "reason"), [
    (HOURS, "/d/2026/03/01/07", "days(1)", "2026-01-01T00:00Z", "holds no instance of the feed (every days(1)"),
    ("/d/${YEAR}/${MINUTE}", "/d/2026/07", "hours(1)", "2026-01-01T00:00Z", "holds no instance"),
    (DAYS, "/d/2026/02/30", "days(1)", None, "(instance 2026-03-02T00:00Z is at /d/2026/03/02)"),
    (HOURS, "/d/2026/03/01/24", "hours(1)", None, "is at /d/2026/03/02/00"),
    (DAYS, "/d/2026/03/xx", "days(1)", None, "no readable date"),
    (DAYS, "/d/2026/03/01.bak", "days(1)", None, "no readable date"),
    (DAYS, "/d/0000/01/01", "days(1)", None, "no readable date"),
    ("/d/${YEAR}", "/d/9999", "months(1)", None, "no readable date"),
    (DAYS, "/d/２０２６/03/01", "days(1)", None, "is at /d/2026/03/01"),  # other digits than ASCII
])
def test_paths_that_hold_no_instance_are_left_alone(template: str, path: str, frequency: str, start: str | None,
                                                    reason: str) -> None:
    verdict = judge_path(Template(template), path, grid(frequency, start), parse_instant("2099-01-01T00:00Z"))

    assert verdict.evict is False and not verdict.is_instance
    assert reason in (verdict.reason or "")


@pytest.mark.parametrize(("template", "frequency", "zone"), [
    (HOURS, "hours(1)", "UTC"), (DAYS, "days(1)", "America/Los_Angeles"), (MONTHS, "months(1)", "Asia/Kolkata"),
    ("/d/${YEAR}-${MONTH}-${DAY}-${HOUR}-${MINUTE}", "minutes(1)", "Australia/Lord_Howe"),
])
def test_as_fine_as_the_frequency_it_is_falcons_rule(template: str, frequency: str, zone: str) -> None:
    tz = parse_zone(zone)
    feed_grid = grid(frequency, None, zone)
    steps = {"minutes(1)": timedelta(minutes=1), "hours(1)": timedelta(hours=1), "days(1)": timedelta(days=1)}
    for index in range(40):
        if frequency == "months(1)":
            instance = datetime(2015 + (2 + index) // 12, (2 + index) % 12 + 1, 1, tzinfo=tz)
        else:  # wall-clock steps from 1 March 2015, across the changes of clocks of the zone
            instance = datetime(2015, 3, 1, tzinfo=tz) + steps[frequency] * index * 37
        path = Template(template).resolve(instance, tz)
        for cutoff in (instance - timedelta(minutes=1), instance, instance + timedelta(minutes=1)):
            verdict = judge_path(Template(template), path, feed_grid, cutoff)
            assert verdict.evict is (Template(template).instance_time(path, tz) < cutoff), (path, cutoff)


# -- the job's grid is the Airflow side's ---------------------------------------------------------------------------

@pytest.mark.parametrize("zone", ["UTC", "America/New_York", "Australia/Lord_Howe", "GMT+05:30"])
@pytest.mark.parametrize("frequency", ["minutes(7)", "hours(5)", "days(1)", "days(3)", "months(1)", "months(5)"])
@pytest.mark.parametrize("start", ["2015-01-31T05:30Z", "2015-03-08T06:30Z", "2015-11-01T05:30Z"])
def test_the_grid_is_the_instance_grid_of_the_dags(zone: str, frequency: str, start: str) -> None:
    feed_grid = grid(frequency, start, zone)
    reference = InstanceGrid.of(parse_instant(start), Frequency.parse(frequency), resolve_zone(zone).zone)
    for index in range(-30, 200):
        assert feed_grid.instance(index) == reference.instance(index).astimezone(pendulum.UTC), index
    for minutes in range(-50_000, 200 * 44_640, 99_991):
        probe = parse_instant(start) + timedelta(minutes=minutes)
        index = feed_grid.index_before(probe)
        assert feed_grid.instance(index) < probe <= feed_grid.instance(index + 1)


# -- table partitions ------------------------------------------------------------------------------------------------

DAILY_TABLE = TableUri.parse("catalog:db:t#ds=${YEAR}${MONTH}${DAY};region=us")
CUTOFF = parse_instant("2026-03-01T00:00Z")


@pytest.mark.parametrize(("partition", "reason"), [
    ({"ds": "2019_restore", "region": "us"}, "not a value the table URI gives"),
    ({"ds": "1", "region": "us"}, "not a value the table URI gives"),
    ({"ds": "2026-12-31", "region": "us"}, "not a value the table URI gives"),
    ({"ds": "202601011", "region": "us"}, "not a value the table URI gives"),  # one digit too many
    ({"ds": "2026011", "region": "us"}, "not a value the table URI gives"),  # one too few
    ({"ds": "", "region": "us"}, "not a value the table URI gives"),
    ({"ds": "20260230", "region": "us"}, "is at ds=20260302"),
    ({"ds": "２０２６０１０１", "region": "us"}, "not a value the table URI gives"),  # other digits than ASCII
    ({"ds": "20260101", "region": "eu"}, "another slice of the table"),
    ({"ds": "20260101"}, "partition keys ds are not the feed's"),
    ({"ds": "20260101", "region": "us", "hr": "01"}, "partition keys ds, region, hr are not the feed's"),
    ({"ds": "20260101", "area": "us"}, "are not the feed's"),
])
def test_a_partition_that_is_not_exactly_an_instance_is_left_alone(partition: dict[str, str], reason: str) -> None:
    verdict = judge_partition(DAILY_TABLE, partition, grid("days(1)", "2026-01-01T00:00Z"), CUTOFF)

    assert verdict.evict is False
    assert reason in (verdict.reason or "")


@pytest.mark.parametrize(("uri", "frequency", "partition", "cutoff", "evicted"), [
    pytest.param(DAILY_TABLE.partition_spec, "days(1)", {"ds": "20260228", "region": "us"}, "2026-03-01T00:00Z",
                 True, id="an-old-instance"),
    pytest.param(DAILY_TABLE.partition_spec, "days(1)", {"ds": "20260301", "region": "us"}, "2026-03-01T00:00Z",
                 False, id="at-the-cutoff"),
    pytest.param(DAILY_TABLE.partition_spec, "hours(1)", {"ds": "20260228", "region": "us"}, "2026-02-28T12:00Z",
                 False, id="an-hourly-feed-in-day-partitions-keeps-today"),
    pytest.param(DAILY_TABLE.partition_spec, "hours(1)", {"ds": "20260228", "region": "us"}, "2026-02-28T23:01Z",
                 True, id="an-hourly-feed-in-day-partitions-past"),
    # times, not strings: lexicographically "31-12-2025" > "01-03-2026" and "01-01-2027" < "01-03-2026"
    pytest.param("ds=${DAY}-${MONTH}-${YEAR}", "days(1)", {"ds": "31-12-2025"}, "2026-03-01T00:00Z", True,
                 id="day-first-values-older"),
    pytest.param("ds=${DAY}-${MONTH}-${YEAR}", "days(1)", {"ds": "01-01-2027"}, "2026-03-01T00:00Z", False,
                 id="day-first-values-in-the-future"),
    pytest.param("ds=${YEAR}${MONTH}${DAY};hr=${HOUR}", "hours(1)", {"ds": "20260228", "hr": "23"},
                 "2026-03-01T00:00Z", True, id="two-dated-keys"),
    pytest.param("ds=${YEAR}${MONTH}${DAY};hr=${HOUR}", "hours(1)", {"ds": "20260301", "hr": "00"},
                 "2026-03-01T00:00Z", False, id="two-dated-keys-at-the-cutoff"),
])
def test_partitions_are_judged_by_their_instance_times(uri: str, frequency: str, partition: dict[str, str],
                                                       cutoff: str, evicted: bool) -> None:
    table = TableUri.parse(f"catalog:db:t#{uri}")
    verdict = judge_partition(table, partition, grid(frequency, "2026-01-01T00:00Z"), parse_instant(cutoff))

    assert verdict.reason is None
    assert verdict.evict is evicted


@pytest.mark.parametrize("partition", [
    {"ds": "20260228", "hr": "7"}, {"ds": "20260228", "hr": "24"}, {"ds": "20260228/hr=01", "hr": "01"},
    {"ds": "2026022", "hr": "801"},
])
def test_each_dated_key_must_hold_its_own_value(partition: dict[str, str]) -> None:
    table = TableUri.parse("catalog:db:t#ds=${YEAR}${MONTH}${DAY};hr=${HOUR}")
    verdict = judge_partition(table, partition, grid("hours(1)", "2026-01-01T00:00Z"), CUTOFF)

    assert verdict.evict is False and verdict.reason is not None


# -- where a partition's files may be deleted -----------------------------------------------------------------------

@pytest.mark.parametrize(("folder", "location"), [
    ("file:/w/t", "file:/w/t/ds=1"),
    ("file:/w/t/", "file:///w/t/ds=1/region=us"),
    ("file:/w/t", "file://localhost/w/t/ds=1"),
    ("hdfs://nn:8020/w/t", "hdfs://NN/w/t/ds=1"),  # the default port, the host in another case
    ("hdfs://nn/w/t", "hdfs://nn:8020/w/t//ds=1"),
    ("hdfs://nn:8020/w/t", "hdfs://nn:8020/w/t/ds=2015%3A01"),  # Hive's escaping of a value, still inside
    ("file:/w/t", "file:/w/t/a/../ds=1"),
])
def test_a_location_inside_the_table_folder(folder: str, location: str) -> None:
    assert location_outside(folder, location) is None


@pytest.mark.parametrize(("folder", "location", "reason"), [
    ("file:/w/t", "file:/w/other/ds=1", "not inside"),
    ("file:/w/t", "file:/w/tx/ds=1", "not inside"),  # a sibling sharing the prefix
    ("file:/w/t", "file:/w/t", "not inside"),  # the table's folder itself
    ("file:/w/t", "file:/w/t/../x", "not inside"),
    ("file:/w/t", "file:/w/t/ds=1/../../x", "not inside"),
    ("file:/w/t", "file:/w/t/%2e%2e/x", "not inside"),  # inside as Hadoop reads the text, outside decoded
    ("file:/w/t", "file:/w/t/%2E%2E/%2E%2E/x", "not inside"),
    ("file:/w/t", "file:/w/t/..%2fx", "not inside"),
    ("file:/w/t", "file:/../../w/t/x", "climbs above the root"),
    ("hdfs://nn:8020/w/t", "hdfs://nn:8021/w/t/ds=1", "another file system"),
    ("hdfs://nn:8020/w/t", "hdfs://other:8020/w/t/ds=1", "another file system"),
    ("hdfs://nn:8020/w/t", "file:/w/t/ds=1", "another file system"),
    ("hdfs://nn:8020/w/t", "s3a://nn/w/t/ds=1", "another file system"),
    ("file:/w/t", "w/t/ds=1", "not an absolute URI"),
    ("file:/w/t", "/w/t/ds=1", "not an absolute URI"),  # no scheme: which file system is not said
])
def test_a_location_elsewhere_is_never_the_tables(folder: str, location: str, reason: str) -> None:
    assert reason in (location_outside(folder, location) or "")
