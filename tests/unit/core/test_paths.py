"""Feed path templates (``falcon_airflow.core.paths``), the one rule the Airflow side and the jobs share: instance
time from a path (Falcon's FeedHelperTest P1-P16), value rules, globs, base folders, resolving."""

from __future__ import annotations

from datetime import datetime

import pendulum
import pytest

from falcon_airflow.core.errors import RuleError
from falcon_airflow.core.paths import Template, accepts_value, join_storage
from falcon_airflow.core.times import format_instant, parse_instant, parse_zone
from falcon_airflow.timekeeping.zones import resolve_zone

LA = "America/Los_Angeles"


def utc(text: str) -> datetime:
    return parse_instant(text)


# FeedHelperTest#testGetDateFromPath (falcon-el §2.6, rows P1-P16)
GET_DATE_CASES = [
    ("P1", "/data/${YEAR}/${MONTH}/${DAY}/${HOUR}/${MINUTE}", "/data/2015/01/01/00/30", "UTC", "2015-01-01T00:30Z"),
    ("P2", "/data/${YEAR}-${MONTH}-${DAY}-${HOUR}-${MINUTE}", "/data/2015-01-01-01-00", "UTC", "2015-01-01T01:00Z"),
    ("P3", "/data/${YEAR}/${MONTH}/${DAY}", "/data/2015/01/01", "UTC", "2015-01-01T00:00Z"),
    ("P4", "/data/${YEAR}/${MONTH}/${DAY}/data", "/data/2015/01/01/data", "UTC", "2015-01-01T00:00Z"),
    ("P5", "/data/${YEAR}/${MONTH}/${DAY}/${HOUR}/${MINUTE}", "/data/2015-01-01/00/30", "UTC", None),
    ("P6", "/data/${YEAR}/${MONTH}/${DAY}/${HOUR}/${MINUTE}/data", "/data/2015-01-01/00/30", "UTC", None),
    ("P7", "/d/${YEAR}/${MONTH}/${DAY}/${HOUR}/data", "/d/2015/05/25/00/data/{p1}/p2", "UTC", "2015-05-25T00:00Z"),
    ("P8", "/data/${YEAR}/${MONTH}/${DAY}/${HOUR}/${MINUTE}/data", "/data/2015/05/25/00/00/{p1}/p2", "UTC", None),
    ("P9", "/d/${YEAR}/${MONTH}/M", "/d/2015/11/M", "UTC", "2015-11-01T00:00Z"),
    ("P10", "/d/${YEAR}/${MONTH}/${DAY}/M", "/d/2015/11/02/M", "UTC", "2015-11-02T00:00Z"),
    ("P11", "/d/${YEAR}/${MONTH}/${DAY}/${HOUR}/M", "/d/2015/11/01/04/M", "UTC", "2015-11-01T04:00Z"),
    ("P12", "/d/${YEAR}/${MONTH}/${DAY}/${HOUR}/${MINUTE}/M", "/d/2015/11/01/04/15/M", "UTC", "2015-11-01T04:15Z"),
    ("P13", "/d/${YEAR}/${MONTH}/M", "/d/2015/11/M", LA, "2015-11-01T07:00Z"),
    ("P14", "/d/${YEAR}/${MONTH}/${DAY}/M", "/d/2015/11/02/M", LA, "2015-11-02T08:00Z"),
    ("P15", "/d/${YEAR}/${MONTH}/${DAY}/${HOUR}/M", "/d/2015/11/01/04/M", LA, "2015-11-01T12:00Z"),
    ("P16", "/d/${YEAR}/${MONTH}/${DAY}/${HOUR}/${MINUTE}/M", "/d/2015/11/01/04/15/M", "Asia/Kolkata",
     "2015-10-31T22:45Z"),
]


@pytest.mark.parametrize(("case", "template", "path", "zone", "expected"), GET_DATE_CASES,
                         ids=[case[0] for case in GET_DATE_CASES])
def test_instance_time_from_path(case: str, template: str, path: str, zone: str, expected: str | None) -> None:
    moment = Template.parse(template).instance_time(path, parse_zone(zone))
    assert (format_instant(moment) if moment else None) == expected


# FeedDataPathTest: the value rules per variable
@pytest.mark.parametrize(("variable", "accepted", "rejected"), [
    ("MINUTE", ["00", "01", "60"], ["0", "1", "61", "010", " 1", "1 "]),
    ("HOUR", ["00", "01", "10", "12", "19", "24"], ["0", "1", "2", "25", "29"]),
    ("DAY", ["01", "10", "29", "30", "31"], ["00", "32"]),
    ("MONTH", ["01", "02", "10", "12"], ["00", "13", "19"]),
    ("YEAR", ["0001", "2014"], ["201", "20145", "2O14"]),
])
def test_variable_values(variable: str, accepted: list[str], rejected: list[str]) -> None:
    assert all(accepts_value(variable, text) for text in accepted)
    assert not any(accepts_value(variable, text) for text in rejected)


def test_lenient_calendar_rolls_hour_24_and_minute_60_over() -> None:
    template = Template.parse("/d/${YEAR}/${MONTH}/${DAY}/${HOUR}${MINUTE}")
    zone = parse_zone("UTC")
    assert format_instant(template.instance_time("/d/2015/01/31/2400", zone)) == "2015-02-01T00:00Z"
    assert format_instant(template.instance_time("/d/2015/02/28/2360", zone)) == "2015-03-01T00:00Z"
    assert format_instant(template.instance_time("/d/2015/02/31/0000", zone)) == "2015-03-03T00:00Z"


def test_unreadable_paths_are_not_instances() -> None:
    template = Template.parse("/data/${YEAR}/${MONTH}/${DAY}")
    zone = parse_zone("UTC")
    for path in ("/data/bad-va-lue/01/01", "/data/2015/01/bad-va-lue", "/data/2015/13/01", "/data/2015/01/1",
                 "/data/20155/01/01", "/data/2015/01/01.bak", "/other/2015/01/01"):
        assert template.instance_time(path, zone) is None, path
    assert Template.parse("/data/${MONTH}/${DAY}").instance_time("/data/01/02", zone) is None  # no year


def test_repeated_variables_must_agree() -> None:
    template = Template.parse("/data/YYYY/feed1/mmHH/dd/MM/${YEAR}-${MONTH}-${DAY}/more/${YEAR}")
    zone = parse_zone("UTC")
    assert format_instant(template.instance_time(
        "/data/YYYY/feed1/mmHH/dd/MM/2015-03-04/more/2015", zone)) == "2015-03-04T00:00Z"
    assert template.instance_time("/data/YYYY/feed1/mmHH/dd/MM/2015-03-04/more/2016", zone) is None


def test_template_glob_base_folder_and_oozie_spelling() -> None:
    template = Template.parse("/data/in/x?{YEAR}/${MONTH}/a[b]/${DAY}")
    assert template.text == "/data/in/x${YEAR}/${MONTH}/a[b]/${DAY}"
    assert template.glob() == "/data/in/x*/*/a\\[b\\]/*"
    assert template.base_folder == "/data/in"
    assert Template.parse("/${YEAR}").base_folder == "/"
    assert Template.parse("/data/static").base_folder == "/data/static"
    assert not Template.parse("/data/static").is_dated
    with pytest.raises(RuleError, match="not a path variable"):
        Template.parse("/data/${YEARS}/x")


def test_resolve_is_the_inverse_of_instance_time() -> None:
    template = Template.parse("/d/${YEAR}/${MONTH}/${DAY}/${HOUR}/${MINUTE}")
    zone = parse_zone("Asia/Kolkata")
    moment = utc("2015-10-31T22:45Z")
    assert template.resolve(moment, zone) == "/d/2015/11/01/04/15"
    assert template.instance_time(template.resolve(moment, zone), zone) == moment


def test_span_end_bounds_the_instances_of_a_folder() -> None:
    zone = parse_zone("UTC")
    assert Template("/b/${YEAR}").span_end("/b/2015", zone) == utc("2016-01-01T00:00Z")
    assert Template("/b/${YEAR}/${MONTH}").span_end("/b/2015/12", zone) == utc("2016-01-01T00:00Z")
    assert Template("/b/${YEAR}/${MONTH}").span_end("/b/2015/02", zone) == utc("2015-03-01T00:00Z")
    assert Template("/b/${YEAR}-${MONTH}-${DAY}").span_end("/b/2015-02-28", zone) == utc("2015-03-01T00:00Z")
    assert Template("/b/${MONTH}").span_end("/b/02", zone) is None  # does not bound its instances
    assert Template("/b/${YEAR}/${DAY}").span_end("/b/2015/02", zone) is None
    la = parse_zone(LA)
    assert Template("/b/${YEAR}/${MONTH}/${DAY}").span_end("/b/2015/11/01", la) == utc("2015-11-02T08:00Z")


def test_the_airflow_sides_zones_read_paths_alike() -> None:
    """The Airflow side passes pendulum zones (``IST`` as Falcon's Java read it): the same instants."""
    template = Template("/d/${YEAR}/${MONTH}/${DAY}/${HOUR}/${MINUTE}/M")
    moment = template.instance_time("/d/2015/11/01/04/15/M", resolve_zone("IST").zone)
    assert moment is not None and format_instant(moment) == "2015-10-31T22:45Z"


def test_resolve_in_the_feed_zone_and_exact_matches() -> None:
    template = Template("/d/${YEAR}/${MONTH}/${DAY}/${HOUR}")
    zone = pendulum.timezone("Europe/London")
    moment = pendulum.datetime(2024, 7, 1, 9, tz="UTC")
    path = template.resolve(moment, zone)
    assert path == "/d/2024/07/01/10"
    assert template.resolve(datetime(2024, 7, 1, 9), zone) == path  # a naive time is UTC
    assert template.matches_exactly(path, zone) == moment
    assert template.matches_exactly(path + "/extra", zone) is None


def test_storage_join() -> None:
    assert join_storage("file:///srv/c1/", "/data/x") == "file:///srv/c1/data/x"
    assert join_storage("hdfs://nn:8020", "s3a://bucket/x") == "s3a://bucket/x"
    assert join_storage(None, "/data/x") == "/data/x"
