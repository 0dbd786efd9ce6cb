"""Falcon UTC dates, ``yyyy-MM-ddTHH:mmZ``: accepted exactly when Falcon's DateValidator accepts them."""

from __future__ import annotations

from datetime import UTC, datetime

import pendulum
import pytest

from falcon_airflow.errors import DateFormatError
from falcon_airflow.timekeeping import format_falcon_date, parse_falcon_date
from falcon_airflow.timekeeping.dates import minutes_between

# DateValidatorTest (falcon-el.md, end): valid dates
VALID = ["2008-02-29T00:00Z", "2010-04-30T23:59Z", "1999-01-30T01:00Z", "2999-12-31T00:00Z"]

# DateValidatorTest: invalid dates, plus single-digit months/days and null/empty/blank
INVALID = [
    "2010-12-31T00:60Z", "2010-12-31T24:00Z", "2010-01-32T00:00Z", "2010-13-1T00:00Z", "1820-01-01T00:00Z",
    "2007-02-29T00:00Z", "2008-02-31T00:00Z", "2010-04-31T00:00Z", "2010-11-31T00:00Z",
    "2010-1-01T00:00Z", "2010-01-1T00:00Z", "2010-1-1T00:00Z",
    None, "", " ", "\t\n",
]

# the XSD pattern lets these separators through; Falcon's Java parser refuses them
OTHER_FORMS = ["2010/01/01T00:00Z", "2010.01.01T00:00Z", "2010 01 01T00:00Z", "2010-01-01 00:00Z",
               "2010-01-01T00:00", "2010-01-01T00:00:00Z", "2010-01-01T00:00+00:00", "2010-01-01t00:00z",
               "1899-12-31T00:00Z", "3000-01-01T00:00Z"]


@pytest.mark.parametrize("text", VALID)
def test_valid_dates(text: str) -> None:
    moment = parse_falcon_date(text)

    assert moment.tzinfo is UTC
    assert format_falcon_date(moment) == text


@pytest.mark.parametrize("text", INVALID + OTHER_FORMS)
def test_invalid_dates(text: str | None) -> None:
    with pytest.raises(DateFormatError, match="is not a valid UTC date"):
        parse_falcon_date(text)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("2011-02-30T00:00Z", "February 2011 has no day 30"),
        ("2008-02-31T00:00Z", "February 2008 has no day 31"),
        ("2007-02-29T00:00Z", "February 2007 has no day 29"),
        ("2010-04-31T00:00Z", "April has 30 days"),
        ("2010-06-31T00:00Z", "June has 30 days"),
        ("2010-09-31T00:00Z", "September has 30 days"),
        ("2010-11-31T00:00Z", "November has 30 days"),
    ],
)
def test_impossible_days_say_why(text: str, reason: str) -> None:
    with pytest.raises(DateFormatError) as raised:
        parse_falcon_date(text)

    assert reason in raised.value.message


def test_every_multiple_of_four_is_a_leap_year_as_in_falcon() -> None:
    """Falcon's validator calls 2100 a leap year and its lenient calendar rolls Feb 29 over to Mar 1."""
    assert parse_falcon_date("2100-02-29T10:30Z") == datetime(2100, 3, 1, 10, 30, tzinfo=UTC)
    assert parse_falcon_date("2000-02-29T00:00Z") == datetime(2000, 2, 29, tzinfo=UTC)
    with pytest.raises(DateFormatError):
        parse_falcon_date("2101-02-29T00:00Z")


def test_format_converts_to_utc() -> None:
    paris = pendulum.datetime(2024, 7, 1, 2, 15, tz="Europe/Paris")

    assert format_falcon_date(paris) == "2024-07-01T00:15Z"


def test_minutes_between() -> None:
    start = parse_falcon_date("2024-01-01T00:00Z")

    assert minutes_between(start, parse_falcon_date("2024-01-02T01:30Z")) == 1530
    assert minutes_between(parse_falcon_date("2024-01-02T01:30Z"), start) == -1530
