"""``resolve_zone``: time-zone IDs the way Java's ``TimeZone.getTimeZone`` reads them."""

from __future__ import annotations

from datetime import timedelta

import pendulum
import pytest

from falcon_airflow.timekeeping import ResolvedZone, resolve_zone

WINTER = (2024, 1, 15, 12, 0)
SUMMER = (2024, 7, 15, 12, 0)


def offsets(resolved: ResolvedZone) -> tuple[timedelta | None, timedelta | None]:
    """UTC offsets in January and July."""
    return (pendulum.datetime(*WINTER, tz=resolved.zone).utcoffset(),
            pendulum.datetime(*SUMMER, tz=resolved.zone).utcoffset())


def hours(value: float) -> timedelta:
    return timedelta(hours=value)


@pytest.mark.parametrize(("zone_id", "winter", "summer"), [
    ("UTC", 0, 0),
    ("GMT", 0, 0),
    ("America/New_York", -5, -4),
    ("Europe/London", 0, 1),
    ("Asia/Kolkata", 5.5, 5.5),
    ("Asia/Calcutta", 5.5, 5.5),            # old IANA alias
    ("Australia/Sydney", 11, 10),           # southern hemisphere
    ("America/Los_Angeles", -8, -7),
    ("Etc/GMT+5", -5, -5),                  # POSIX sign
    ("US/Eastern", -5, -4),
])
def test_iana_ids(zone_id: str, winter: float, summer: float) -> None:
    resolved = resolve_zone(zone_id)
    assert resolved.known
    assert resolved.name == zone_id
    assert offsets(resolved) == (hours(winter), hours(summer))


@pytest.mark.parametrize(("zone_id", "iana"), [
    ("IST", "Asia/Kolkata"),
    ("PST", "America/Los_Angeles"),
    ("CST", "America/Chicago"),
    ("JST", "Asia/Tokyo"),
    ("ECT", "Europe/Paris"),
    ("AET", "Australia/Sydney"),
    ("BST", "Asia/Dhaka"),                  # Java's BST is Bangladesh, not British Summer Time
])
def test_java_short_ids_follow_an_iana_zone(zone_id: str, iana: str) -> None:
    resolved = resolve_zone(zone_id)
    assert resolved.known
    assert resolved.name == zone_id
    assert offsets(resolved) == offsets(resolve_zone(iana))


def test_ist_is_india() -> None:
    resolved = resolve_zone("IST")
    assert offsets(resolved) == (hours(5.5), hours(5.5))
    moment = pendulum.datetime(2015, 11, 1, 4, 15, tz=resolved.zone)
    assert moment.in_timezone("UTC") == pendulum.datetime(2015, 10, 31, 22, 45)   # FeedHelperTest P16


def test_pst_has_daylight_saving() -> None:
    assert offsets(resolve_zone("PST")) == (hours(-8), hours(-7))


@pytest.mark.parametrize(("zone_id", "offset"), [("EST", -5), ("MST", -7), ("HST", -10)])
def test_fixed_short_ids_have_no_daylight_saving(zone_id: str, offset: int) -> None:
    resolved = resolve_zone(zone_id)
    assert resolved.known
    assert offsets(resolved) == (hours(offset), hours(offset))


@pytest.mark.parametrize(("zone_id", "offset"), [
    ("GMT+05:30", timedelta(hours=5, minutes=30)),
    ("GMT-05:30", -timedelta(hours=5, minutes=30)),
    ("GMT+5", hours(5)),
    ("GMT-8", hours(-8)),
    ("GMT+0530", timedelta(hours=5, minutes=30)),
    ("GMT-0800", hours(-8)),
    ("GMT+00:00", hours(0)),
    ("GMT+23:59", timedelta(hours=23, minutes=59)),
    ("GMT+123", timedelta(hours=1, minutes=23)),   # Java reads three digits as h + mm
])
def test_custom_offsets(zone_id: str, offset: timedelta) -> None:
    resolved = resolve_zone(zone_id)
    assert resolved.known
    assert resolved.name == zone_id
    assert offsets(resolved) == (offset, offset)


@pytest.mark.parametrize("zone_id", [
    "Mars/Olympus_Mons",
    "America/Nowhere",
    "Not a zone",
    "",
    "GMT+24",            # hours above 23
    "GMT+05:60",         # minutes above 59
    "GMT+1:5",           # minutes need two digits
    "GMT+",
    "+05:30",            # no GMT
    "XYZ",
    "../etc/passwd",
])
def test_unknown_ids_fall_back_to_utc(zone_id: str) -> None:
    resolved = resolve_zone(zone_id)
    assert not resolved.known
    assert resolved.name == zone_id
    assert offsets(resolved) == (hours(0), hours(0))


def test_surrounding_spaces_are_ignored() -> None:
    resolved = resolve_zone(" Asia/Kolkata ")
    assert resolved.known
    assert offsets(resolved) == (hours(5.5), hours(5.5))


def test_results_are_cached_and_stable() -> None:
    assert resolve_zone("IST") is resolve_zone("IST")
    assert resolve_zone("IST") == ResolvedZone(resolve_zone("IST").zone, True, "IST")
