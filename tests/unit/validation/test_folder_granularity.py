"""FA055 (warning): a feed location or table partition coarser than the feed's frequency puts several instances in
one folder; writing one instance clears the folder and retention keeps it until its last instance expires."""

from __future__ import annotations

import pytest

from falcon_airflow.issues import Level

CLICKS_DATA = '<location type="data" path="/data/clicks/${YEAR}/${MONTH}/${DAY}/${HOUR}"/>'
CLICKS_FREQUENCY = ("clicks", "<frequency>hours(1)</frequency>\n    <sla", "<frequency>{}</frequency>\n    <sla")
CUSTOMERS_DATA = '<location type="data" path="/data/customers/${YEAR}/${MONTH}/${DAY}"/>'
TABLE_URI = '<table uri="catalog:clicksdb:clicks#ds=${YEAR}-${MONTH}-${DAY}-${HOUR}"/>'
CLICKS_BACKUP_RETENTION = '<retention limit="days(7)" action="delete"/>'


def clicks_path(path: str) -> tuple[str, str, str]:
    return ("clicks", CLICKS_DATA, f'<location type="data" path="{path}"/>')


def clicks_frequency(frequency: str) -> tuple[str, str, str]:
    key, old, new = CLICKS_FREQUENCY
    return key, old, new.format(frequency)


COARSE = [
    pytest.param([clicks_path("/data/clicks/${YEAR}/${MONTH}")], "clicks", "/data/clicks/",
                 "names one folder per month, but the feed has an instance every hours(1)", id="hourly-under-month"),
    pytest.param([clicks_path("/data/clicks/${YEAR}-${MONTH}-${DAY}")], "clicks", "/data/clicks/",
                 "one folder per day", id="hourly-under-day"),
    pytest.param([clicks_path("/data/clicks/${YEAR}/${MONTH}/${HOUR}")], "clicks", "/data/clicks/",
                 "one folder per month", id="a-gap-in-the-variables"),
    pytest.param([clicks_frequency("minutes(30)")], "clicks", "/data/clicks/",
                 "one folder per hour, but the feed has an instance every minutes(30)", id="half-hourly-under-hour"),
    pytest.param([("customers", CUSTOMERS_DATA, '<location type="data" path="/data/customers/${YEAR}/${MONTH}"/>')],
                 "customers", "/data/customers/", "every days(1)", id="daily-under-month"),
    pytest.param([("table", TABLE_URI, '<table uri="catalog:clicksdb:clicks#ds=${YEAR}-${MONTH}-${DAY}"/>')],
                 "table", "<table uri=", "partition ds=${YEAR}-${MONTH}-${DAY}", id="hourly-table-in-day-partitions"),
    pytest.param([clicks_path("/data/clicks/${YEAR}/${MONTH}/${DAY}"),
                  ("clicks", CLICKS_BACKUP_RETENTION, CLICKS_BACKUP_RETENTION
                   + '\n            <locations><location type="data" path="/data/west/${YEAR}/${MONTH}/${DAY}"/>'
                   + "</locations>")],
                 "clicks", "/data/west/", "on cluster 'backup'", id="a-cluster-location"),
]


@pytest.mark.parametrize(("edits", "key", "marker", "fragment"), COARSE)
def test_a_location_coarser_than_the_frequency_is_reported(ws, edits, key, marker, fragment):
    report = ws.apply(edits).validate()

    issue = ws.assert_reported(report, "FA055", key, marker, fragment, level=Level.WARNING)
    assert "until the last instance it holds is older than the retention limit" in issue.message
    assert report.valid  # a warning: the feed still validates


SHARP = [
    pytest.param([], id="hourly-under-hour"),
    pytest.param([clicks_path("/data/clicks/${HOUR}/${DAY}.${MONTH}.${YEAR}")], id="variables-in-any-order"),
    pytest.param([("customers", CUSTOMERS_DATA,
                   '<location type="data" path="/data/customers/${YEAR}/${MONTH}/${DAY}/${HOUR}"/>')],
                 id="daily-under-hour-finer-than-needed"),
    pytest.param([clicks_frequency("minutes(60)")], id="sixty-minutes-under-hour"),
    pytest.param([clicks_frequency("hours(24)"), clicks_path("/data/clicks/${YEAR}/${MONTH}/${DAY}")],
                 id="twenty-four-hours-under-day"),
    pytest.param([clicks_frequency("months(1)"), clicks_path("/data/clicks/${YEAR}/${MONTH}")],
                 id="monthly-under-month"),
    pytest.param([clicks_frequency("months(12)"), clicks_path("/data/clicks/${YEAR}")], id="yearly-under-year"),
    pytest.param([clicks_frequency("days(31)"), clicks_path("/data/clicks/${YEAR}/${MONTH}")],
                 id="thirty-one-days-under-month"),
]


@pytest.mark.parametrize("edits", SHARP)
def test_a_location_as_fine_as_the_frequency_is_not(ws, edits):
    report = ws.apply(edits).validate()

    assert "FA055" not in ws.rules(report), ws.describe(report)
