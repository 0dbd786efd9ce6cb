"""Falcon frequencies: ``unit(N)`` text, fixed-length durations (month = 31 days) and the EL duration values."""

from __future__ import annotations

from datetime import timedelta

import pytest
from pydantic import ValidationError

from falcon_airflow.el import ELContext, evaluate
from falcon_airflow.errors import FrequencyError
from falcon_airflow.timekeeping import Frequency, TimeUnit, parse_falcon_date

MINUTE = 60_000
HOUR = 60 * MINUTE
DAY = 24 * HOUR


@pytest.mark.parametrize(
    ("text", "unit", "count"),
    [
        ("minutes(5)", TimeUnit.MINUTES, 5),
        ("hours(1)", TimeUnit.HOURS, 1),
        ("days(7)", TimeUnit.DAYS, 7),
        ("months(12)", TimeUnit.MONTHS, 12),
        ("minutes(1440)", TimeUnit.MINUTES, 1440),
        ("  hours(2)\n", TimeUnit.HOURS, 2),
    ],
)
def test_parse_and_str(text: str, unit: TimeUnit, count: int) -> None:
    frequency = Frequency.parse(text)

    assert (frequency.unit, frequency.count) == (unit, count)
    assert str(frequency) == text.strip()
    assert Frequency.parse(str(frequency)) == frequency


@pytest.mark.parametrize(
    "text",
    ["hours(0)", "hours(01)", "hours(-1)", "hours(1.5)", "hours()", "hours(1", "hours (1)", "Hours(1)",
     "HOURS(1)", "years(1)", "weeks(1)", "seconds(30)", "1h", "", "   "],
)
def test_parse_refuses(text: str) -> None:
    with pytest.raises(FrequencyError, match="is not a frequency"):
        Frequency.parse(text)


def test_model_validation_reads_text_and_serialises_to_text() -> None:
    assert Frequency.model_validate("days(2)") == Frequency(unit=TimeUnit.DAYS, count=2)
    assert Frequency(unit=TimeUnit.DAYS, count=2).model_dump() == "days(2)"
    assert Frequency.parse("hours(3)").model_dump_json() == '"hours(3)"'
    with pytest.raises(ValidationError):
        Frequency(unit=TimeUnit.HOURS, count=0)
    with pytest.raises(ValidationError):
        Frequency.model_validate("hours(0)")


@pytest.mark.parametrize(
    ("text", "millis"),
    [
        ("minutes(1)", MINUTE),
        ("hours(1)", HOUR),
        ("days(1)", DAY),
        ("months(1)", 31 * DAY),
        ("months(2)", 62 * DAY),
        ("months(12)", 372 * DAY),
    ],
)
def test_millis_counts_a_month_as_31_days(text: str, millis: int) -> None:
    frequency = Frequency.parse(text)

    assert frequency.millis == millis
    assert frequency.as_timedelta() == timedelta(milliseconds=millis)
    assert frequency.minutes == millis // MINUTE


# falcon-entities.md §1.8: the durations Falcon's EL tests expect, in milliseconds
EL_DURATIONS = [
    ("days(3)", 259_200_000),
    ("days(1)", 86_400_000),
    ("hours(5)", 18_000_000),
    ("minutes(5)", 300_000),
    ("minutes(1)", 60_000),
    ("minutes(15)", 900_000),
    ("hours(2)", 7_200_000),
]


@pytest.mark.parametrize(("text", "millis"), EL_DURATIONS)
def test_el_durations_match_frequency_millis(text: str, millis: int) -> None:
    context = ELContext(instance_time=parse_falcon_date("2012-02-28T10:00Z"))

    assert Frequency.parse(text).millis == millis
    assert int(evaluate(text, context)) == millis  # type: ignore[arg-type]


def test_el_months_is_31_days() -> None:
    context = ELContext(instance_time=parse_falcon_date("2012-02-28T10:00Z"))

    assert int(evaluate("months(1)", context)) == Frequency.parse("months(1)").millis  # type: ignore[arg-type]


def test_ordering_by_millis() -> None:
    texts = ["months(1)", "days(30)", "hours(1)", "minutes(59)", "days(31)", "hours(745)", "minutes(61)"]

    ordered = sorted((Frequency.parse(text) for text in texts), key=lambda frequency: frequency.millis)

    assert [str(frequency) for frequency in ordered] == [
        "minutes(59)", "hours(1)", "minutes(61)", "days(30)", "months(1)", "days(31)", "hours(745)"]
    # a month is longer than 30 days and exactly as long as 31: retention and cut-off compare this way
    assert Frequency.parse("months(1)").millis > Frequency.parse("days(30)").millis
    assert Frequency.parse("months(1)").millis == Frequency.parse("days(31)").millis


def test_equality_is_unit_and_count_not_duration() -> None:
    """As in Falcon: equal frequencies have the same unit and number; equal durations are compared by millis."""
    assert Frequency.parse("hours(24)") != Frequency.parse("days(1)")
    assert Frequency.parse("hours(24)").millis == Frequency.parse("days(1)").millis
    assert Frequency.parse("hours(24)") == Frequency.parse(" hours(24) ")
    assert len({Frequency.parse("hours(1)"), Frequency.parse("hours(1)")}) == 1


def test_step_uses_the_calendar_not_fixed_lengths() -> None:
    january_31 = parse_falcon_date("2024-01-31T00:00Z")

    assert Frequency.parse("months(1)").step(january_31).day == 29  # end of February, not 31 days later
    assert Frequency.parse("days(1)").step(january_31, 3).isoformat().startswith("2024-02-03T00:00")
