"""``formatTime`` and Java ``SimpleDateFormat`` patterns (English names, as on Falcon's servers)."""

from __future__ import annotations

import pendulum
import pytest

from falcon_airflow.el import ELContext, evaluate
from falcon_airflow.el.javadate import PatternError, format_java
from falcon_airflow.errors import ELEvaluationError

# Wednesday 2009-09-02 10:05:07 and Sunday 2016-02-07 00:04:00 (UTC)
MORNING = pendulum.datetime(2009, 9, 2, 10, 5, 7)
MIDNIGHT = pendulum.datetime(2016, 2, 7, 0, 4)
AFTERNOON = pendulum.datetime(2016, 12, 31, 15, 30)
NOON = pendulum.datetime(2005, 1, 3, 12, 0)


@pytest.mark.parametrize(("pattern", "moment", "expected"), [
    ("y", MORNING, "2009"),
    ("yy", MORNING, "09"),
    ("yy", NOON, "05"),
    ("yyy", MORNING, "2009"),
    ("yyyy", MORNING, "2009"),
    ("yyyyy", MORNING, "02009"),
    ("M", MORNING, "9"),
    ("MM", MORNING, "09"),
    ("M", AFTERNOON, "12"),
    ("MMM", MORNING, "Sep"),
    ("MMMM", MORNING, "September"),
    ("MMM", MIDNIGHT, "Feb"),
    ("MMMM", MIDNIGHT, "February"),
    ("d", MORNING, "2"),
    ("dd", MORNING, "02"),
    ("d", AFTERNOON, "31"),
    ("H", MORNING, "10"),
    ("H", MIDNIGHT, "0"),
    ("HH", MIDNIGHT, "00"),
    ("HH", AFTERNOON, "15"),
    ("h", MIDNIGHT, "12"),       # 12-hour clock: midnight is 12 AM
    ("h", NOON, "12"),
    ("h", AFTERNOON, "3"),
    ("hh", AFTERNOON, "03"),
    ("hh", MORNING, "10"),
    ("m", MORNING, "5"),
    ("mm", MORNING, "05"),
    ("mm", AFTERNOON, "30"),
    ("s", MORNING, "7"),
    ("ss", MORNING, "07"),
    ("s", AFTERNOON, "0"),
    ("a", MORNING, "AM"),
    ("a", MIDNIGHT, "AM"),
    ("a", NOON, "PM"),
    ("a", AFTERNOON, "PM"),
    ("E", MORNING, "Wed"),
    ("EEE", MORNING, "Wed"),
    ("EEEE", MORNING, "Wednesday"),
    ("EEEE", MIDNIGHT, "Sunday"),
    ("E", NOON, "Mon"),
    ("yyyy-MM-dd'T'HH:mm'Z'", MORNING, "2009-09-02T10:05Z"),
    ("yyyy-MMM-dd", MORNING, "2009-Sep-02"),
    ("EEEE, d MMMM yyyy h:mm a", AFTERNOON, "Saturday, 31 December 2016 3:30 PM"),
    ("yyyy/MM/dd/HH", MORNING, "2009/09/02/10"),
    ("'T'", MORNING, "T"),
    ("''", MORNING, "'"),
    ("hh 'o''clock' a", MORNING, "10 o'clock AM"),
    ("'year' yyyy", MORNING, "year 2009"),
    ("'yyyy'", MORNING, "yyyy"),           # letters inside quotes are text
    ("''yyyy''", MORNING, "'2009'"),
    ("'it''s' H", MORNING, "it's 10"),
    ("", MORNING, ""),
    ("-_/.: ", MORNING, "-_/.: "),          # non-letters are copied
])
def test_java_patterns(pattern: str, moment: pendulum.DateTime, expected: str) -> None:
    assert format_java(moment, pattern) == expected


def test_pattern_uses_the_moments_own_zone() -> None:
    kolkata = MORNING.in_timezone("Asia/Kolkata")
    assert format_java(kolkata, "yyyy-MM-dd HH:mm") == "2009-09-02 15:35"


@pytest.mark.parametrize(("pattern", "position"), [
    ("q", 0),
    ("yyyy-qq", 5),
    ("yyyy-MM-dd'T'HH:mm b", 19),
    ("x", 0),
    ("yyyyMMddTHHmm", 8),          # unquoted T is not a pattern letter
    ("'ok' c", 5),
])
def test_illegal_letters(pattern: str, position: int) -> None:
    with pytest.raises(PatternError) as caught:
        format_java(MORNING, pattern)
    assert caught.value.position == position
    assert "illegal pattern character" in str(caught.value)


@pytest.mark.parametrize(("pattern", "position"), [("'abc", 0), ("yyyy 'T", 5), ("''' ", 2)])
def test_unterminated_quote(pattern: str, position: int) -> None:
    with pytest.raises(PatternError) as caught:
        format_java(MORNING, pattern)
    assert caught.value.position == position


# -- through formatTime -----------------------------------------------------------------------------------------------


CONTEXT = ELContext(instance_time=pendulum.datetime(2009, 9, 2, 10, 0))


@pytest.mark.parametrize(("expression", "expected"), [
    ("formatTime(instanceTime(), 'yyyy-MMM-dd')", "2009-Sep-02"),
    ("formatTime(instanceTime(), 'EEEE')", "Wednesday"),
    ("formatTime(instanceTime(), \"yyyy-MM-dd'T'HH\")", "2009-09-02T10"),
    ("formatTime('2016-02-01T10:59Z', 'yyyy')", "2016"),
    ("formatTime('2016-02-01T10:59Z', 'h:mm a')", "10:59 AM"),
    ("formatTime(now(5, 0), 'hh a')", "03 PM"),
    ("formatTime(dateOffset(instanceTime(), -1, 'MONTH'), 'MMMM')", "August"),
])
def test_format_time(expression: str, expected: str) -> None:
    assert evaluate(expression, CONTEXT) == expected


def test_format_time_is_in_utc_whatever_the_entity_zone() -> None:
    context = ELContext(instance_time=pendulum.datetime(2009, 9, 2, 22, 0), zone=pendulum.timezone("Asia/Kolkata"))
    assert evaluate("formatTime(instanceTime(), 'yyyy-MM-dd HH')", context) == "2009-09-02 22"
    assert evaluate("formatTime(now(0, 0), 'yyyy-MM-dd HH')", context) == "2009-09-02 22"


@pytest.mark.parametrize(("expression", "position"), [
    ("formatTime(instanceTime(), 'yyyy-qq')", 27),     # the position of the pattern argument
    ("${formatTime(instanceTime(), 'yyyy-qq')}", 29),
    ("formatTime(instanceTime(), 'yyyy \\'T')", 27),
    ("formatTime('2016-02-31T00:00Z', 'yyyy')", 11),   # not a date
    ("formatTime(instanceTime(), 5)", 27),             # a number is not a pattern
])
def test_format_time_errors(expression: str, position: int) -> None:
    with pytest.raises(ELEvaluationError) as caught:
        evaluate(expression, CONTEXT)
    assert caught.value.position == position


def test_format_time_error_names_the_pattern_offset() -> None:
    with pytest.raises(ELEvaluationError) as caught:
        evaluate("formatTime(instanceTime(), 'yyyy-qq')", CONTEXT)
    assert "'q'" in caught.value.message
    assert "position 6 of the pattern" in caught.value.message
