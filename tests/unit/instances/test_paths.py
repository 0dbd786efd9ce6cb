"""Feed path templates: instance time from a path (Falcon's FeedHelperTest P1-P16) and the value rules."""

from __future__ import annotations

import pendulum
import pytest

from falcon_airflow.instances.paths import PathTemplate, accepts_value, join_storage
from falcon_airflow.timekeeping import format_falcon_date
from falcon_airflow.timekeeping.zones import resolve_zone

FULL = "/data/${YEAR}/${MONTH}/${DAY}/${HOUR}/${MINUTE}"
CASES = [
    ("P1", FULL, "/data/2015/01/01/00/30", "UTC", "2015-01-01T00:30Z"),
    ("P2", "/data/${YEAR}-${MONTH}-${DAY}-${HOUR}-${MINUTE}", "/data/2015-01-01-01-00", "UTC", "2015-01-01T01:00Z"),
    ("P3", "/data/${YEAR}/${MONTH}/${DAY}", "/data/2015/01/01", "UTC", "2015-01-01T00:00Z"),
    ("P4", "/data/${YEAR}/${MONTH}/${DAY}/data", "/data/2015/01/01/data", "UTC", "2015-01-01T00:00Z"),
    ("P5", FULL, "/data/2015-01-01/00/30", "UTC", None),
    ("P6", FULL + "/data", "/data/2015-01-01/00/30", "UTC", None),
    ("P7", "/d/${YEAR}/${MONTH}/${DAY}/${HOUR}/data", "/d/2015/05/25/00/data/{p1}/p2", "UTC", "2015-05-25T00:00Z"),
    ("P8", FULL + "/data", "/data/2015/05/25/00/00/{p1}/p2", "UTC", None),
    ("P9", "/d/${YEAR}/${MONTH}/M", "/d/2015/11/M", "UTC", "2015-11-01T00:00Z"),
    ("P10", "/d/${YEAR}/${MONTH}/${DAY}/M", "/d/2015/11/02/M", "UTC", "2015-11-02T00:00Z"),
    ("P11", "/d/${YEAR}/${MONTH}/${DAY}/${HOUR}/M", "/d/2015/11/01/04/M", "UTC", "2015-11-01T04:00Z"),
    ("P12", "/d/${YEAR}/${MONTH}/${DAY}/${HOUR}/${MINUTE}/M", "/d/2015/11/01/04/15/M", "UTC", "2015-11-01T04:15Z"),
    ("P13", "/d/${YEAR}/${MONTH}/M", "/d/2015/11/M", "America/Los_Angeles", "2015-11-01T07:00Z"),
    ("P14", "/d/${YEAR}/${MONTH}/${DAY}/M", "/d/2015/11/02/M", "America/Los_Angeles", "2015-11-02T08:00Z"),
    ("P15", "/d/${YEAR}/${MONTH}/${DAY}/${HOUR}/M", "/d/2015/11/01/04/M", "America/Los_Angeles",
     "2015-11-01T12:00Z"),
    ("P16", "/d/${YEAR}/${MONTH}/${DAY}/${HOUR}/${MINUTE}/M", "/d/2015/11/01/04/15/M", "IST", "2015-10-31T22:45Z"),
]


@pytest.mark.parametrize(("case", "template", "path", "zone", "expected"), CASES, ids=[row[0] for row in CASES])
def test_instance_time_from_path(case: str, template: str, path: str, zone: str, expected: str | None) -> None:
    moment = PathTemplate(template).instance_time(path, resolve_zone(zone).zone)
    assert (format_falcon_date(moment) if moment is not None else None) == expected


@pytest.mark.parametrize(("variable", "accepted", "refused"), [
    ("MINUTE", ["00", "01", "60"], ["0", "1", "61", "010", " 1"]),
    ("HOUR", ["00", "01", "10", "12", "19", "24"], ["0", "1", "2", "25", "29"]),
    ("DAY", ["01", "10", "29", "30", "31"], ["00", "32"]),
    ("MONTH", ["01", "02", "10", "12"], ["00", "13", "19"]),
    ("YEAR", ["0001", "2014"], ["14", "20145"]),
])
def test_value_rules(variable: str, accepted: list[str], refused: list[str]) -> None:
    assert all(accepts_value(variable, text) for text in accepted)
    assert not any(accepts_value(variable, text) for text in refused)


def test_hour_24_and_minute_60_roll_over_like_a_lenient_calendar() -> None:
    template = PathTemplate("/d/${YEAR}/${MONTH}/${DAY}/${HOUR}/${MINUTE}")
    assert format_falcon_date(template.instance_time("/d/2015/01/31/24/00", pendulum.UTC)) == "2015-02-01T00:00Z"
    assert format_falcon_date(template.instance_time("/d/2015/01/31/23/60", pendulum.UTC)) == "2015-02-01T00:00Z"


def test_resolve_is_the_inverse_in_the_feed_zone() -> None:
    template = PathTemplate("/d/${YEAR}/${MONTH}/${DAY}/${HOUR}")
    zone = pendulum.timezone("Europe/London")
    moment = pendulum.datetime(2024, 7, 1, 9, tz="UTC")
    path = template.resolve(moment, zone)
    assert path == "/d/2024/07/01/10"
    assert template.matches_exactly(path, zone) == moment
    assert template.matches_exactly(path + "/extra", zone) is None


def test_glob_base_folder_and_storage_join() -> None:
    template = PathTemplate("/data/in/x${YEAR}/[a]/${MONTH}")
    assert template.glob() == "/data/in/x[0-9][0-9][0-9][0-9]/[[]a[]]/[0-9][0-9]"
    assert template.base_folder == "/data/in"
    assert PathTemplate("/static/path").base_folder == "/static/path"
    assert join_storage("file:///srv/c1/", "/data/x") == "file:///srv/c1/data/x"
    assert join_storage("hdfs://nn:8020", "s3a://bucket/x") == "s3a://bucket/x"
