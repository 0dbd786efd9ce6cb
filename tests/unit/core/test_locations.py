"""The one resolver of a feed instance's location (``falcon_airflow.core.locations``): storage templates and catalog
URIs, as the command line, explain, the macros and the operators all print them."""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from falcon_airflow.core.locations import availability_marker, instance_location, is_table

AT = datetime(2026, 3, 1, 5, 0, tzinfo=UTC)


def test_storage_templates_resolve_in_the_feed_zone() -> None:
    location = "hdfs://nn:8020/data/in/${YEAR}/${MONTH}/${DAY}/${HOUR}"
    assert instance_location(location, AT, UTC) == "hdfs://nn:8020/data/in/2026/03/01/05"
    assert instance_location(location, AT, ZoneInfo("Asia/Kolkata")) == "hdfs://nn:8020/data/in/2026/03/01/10"
    assert instance_location("/static/path", AT, UTC) == "/static/path"


def test_catalog_uris_come_back_in_one_form() -> None:
    assert instance_location("catalog:db:t#ds=${YEAR}${MONTH}${DAY};hr=${HOUR}", AT, UTC) == \
        "catalog:db:t#ds=20260301;hr=05"
    # the spacing and empty specs of a definition do not change the instance's name
    assert instance_location(" catalog: db : t #ds = ${YEAR}${MONTH}${DAY};;hr=${HOUR};", AT, UTC) == \
        "catalog:db:t#ds=20260301;hr=05"
    assert is_table(" catalog:db:t#ds=1") and not is_table("file:///catalog:x")


def test_availability_marker() -> None:
    assert availability_marker("file:///d/2026/03/01/", "_SUCCESS") == "file:///d/2026/03/01/_SUCCESS"
    assert availability_marker("file:///d/2026/03/01", None) == "file:///d/2026/03/01"
