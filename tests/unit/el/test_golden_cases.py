"""Falcon's own EL test cases (falcon-el.md §2.4 (a), (b), (c), (e)) and the shared conformance table.

Each case goes through :func:`falcon_airflow.el.evaluate` and :func:`falcon_airflow.el.evaluate.render`, the way the
compiler and the ``el`` command use them.
"""

from __future__ import annotations

import csv
from datetime import datetime
from pathlib import Path

import pendulum
import pytest

from falcon_airflow.el import ELContext
from falcon_airflow.el.evaluate import evaluate, render
from falcon_airflow.timekeeping import Frequency, parse_falcon_date, resolve_zone
from falcon_airflow.timekeeping.grid import InstanceGrid

UTC = pendulum.UTC


def at(text: str) -> datetime:
    return parse_falcon_date(text)


def run(expression: str, context: ELContext) -> str:
    return render(evaluate(expression, context))


def hourly_dataset(first_instance: str) -> InstanceGrid:
    return InstanceGrid.of(at(first_instance), Frequency.parse("hours(1)"), UTC)


# -- (a) server-side evaluator, ExpressionHelperTest: reference time 2015-02-01T00:00Z (a Sunday), no snapping ------

SERVER_REFERENCE = "2015-02-01T00:00Z"
SERVER_CASES = [
    (1, "now(-10,-30)", "2015-01-31T13:30Z"),
    (2, "now(10,-30)", "2015-02-01T09:30Z"),
    (3, "today(0,0)", "2015-02-01T00:00Z"),
    (4, "today(-1,0)", "2015-01-31T23:00Z"),
    (5, "yesterday(0,0)", "2015-01-31T00:00Z"),
    (6, "yesterday(-1,0)", "2015-01-30T23:00Z"),
    (7, "yesterday(1,30)", "2015-01-31T01:30Z"),
    (8, "currentMonth(2,0,0)", "2015-02-03T00:00Z"),
    (9, "currentMonth(-2,1,30)", "2015-01-30T01:30Z"),
    (10, "lastMonth(3,0,0)", "2015-01-04T00:00Z"),
    (11, "lastMonth(-3,0,0)", "2014-12-29T00:00Z"),
    (12, "currentWeek('THU',0,0)", "2015-01-29T00:00Z"),
    (13, "currentWeek('SUN',0,0)", "2015-02-01T00:00Z"),
    (14, "lastWeek('THU',0,0)", "2015-01-22T00:00Z"),
    (15, "lastWeek('SUN',0,0)", "2015-01-25T00:00Z"),
    (16, "currentYear(1,1,0,0)", "2015-02-02T00:00Z"),
    (17, "currentYear(-1,1,0,0)", "2014-12-02T00:00Z"),
    (18, "lastYear(1,1,0,0)", "2014-02-02T00:00Z"),
    (19, "lastYear(-1,1,0,0)", "2013-12-02T00:00Z"),
    (20, "latest(0)", "2015-02-01T00:00Z"),
    (21, "latest(-1)", "2015-02-01T00:00Z"),
    (22, "future(0,0)", "2015-02-01T00:00Z"),
    (23, "future(1,0)", "2015-02-01T00:00Z"),
    (24, "dateOffset(instanceTime(), 1, 'DAY')", "2015-02-02T00:00Z"),
    (25, "dateOffset(instanceTime(), 3, 'HOUR')", "2015-02-01T03:00Z"),
    (26, "dateOffset(instanceTime(), -25, 'MINUTE')", "2015-01-31T23:35Z"),
    (27, 'formatTime("2016-02-01T10:59Z", "yyyy")', "2016"),
    (28, 'formatTime("2016-02-01T10:59Z", "yyyy-MM")', "2016-02"),
    (29, 'formatTime("2016-02-01T10:59Z", "yyyy-MM-dd")', "2016-02-01"),
]


@pytest.mark.parametrize(("expression", "expected"), [pytest.param(e, r, id=str(n)) for n, e, r in SERVER_CASES])
def test_server_side_evaluator(expression: str, expected: str) -> None:
    assert run(expression, ELContext(instance_time=at(SERVER_REFERENCE))) == expected


@pytest.mark.parametrize("expression", ["now(0,0)", "currentWeek('SUN',1,0)", "latest(0)", "future(1,0)"])
def test_date_functions_give_times_not_text(expression: str) -> None:
    value = evaluate(expression, ELContext(instance_time=at(SERVER_REFERENCE)))
    assert isinstance(value, pendulum.DateTime)


@pytest.mark.parametrize("expression", ["instanceTime()", "dateOffset(instanceTime(), 1, 'DAY')",
                                        "formatTime(instanceTime(), 'yyyy')"])
def test_string_functions_give_text(expression: str) -> None:
    assert isinstance(evaluate(expression, ELContext(instance_time=at(SERVER_REFERENCE))), str)


# -- (b) runtime evaluator, action context: nominal 2009-09-02T10:00Z (a Wednesday), UTC, no snapping --------------

ACTION_NOMINAL = "2009-09-02T10:00Z"
ACTION_CASES = [
    (30, "${now(0, 0)}", "2009-09-02T10:00Z"),
    (31, "${now(1, 0)}", "2009-09-02T11:00Z"),
    (32, "${today(0, 0)}", "2009-09-02T00:00Z"),
    (33, "${today(-1, 0)}", "2009-09-01T23:00Z"),
    (34, "${yesterday(0, 0)}", "2009-09-01T00:00Z"),
    (35, "${yesterday(0, 60)}", "2009-09-01T01:00Z"),
    (36, "${currentMonth(0, 0, 0)}", "2009-09-01T00:00Z"),
    (37, "${currentMonth(-1, 0, 0)}", "2009-08-31T00:00Z"),
    (38, "${lastMonth(0, 0, 0)}", "2009-08-01T00:00Z"),
    (39, "${lastMonth(0, 1, 0)}", "2009-08-01T01:00Z"),
    (40, "${currentYear(0, 0, 0, 0)}", "2009-01-01T00:00Z"),
    (41, "${currentYear(0, -1, 0, 0)}", "2008-12-31T00:00Z"),
    (42, "${lastYear(0, 0, 0, 0)}", "2008-01-01T00:00Z"),
    (43, "${lastYear(1, 0, 0, 0)}", "2008-02-01T00:00Z"),
    (44, "${instanceTime()}", "2009-09-02T10:00Z"),
    (45, "${dateOffset(instanceTime(), 1, 'DAY')}", "2009-09-03T10:00Z"),
    (46, "${formatTime(instanceTime(), 'yyyy-MMM-dd')}", "2009-Sep-02"),
]


@pytest.mark.parametrize(("expression", "expected"), [pytest.param(e, r, id=str(n)) for n, e, r in ACTION_CASES])
def test_runtime_action_context(expression: str, expected: str) -> None:
    assert run(expression, ELContext(instance_time=at(ACTION_NOMINAL), zone=UTC)) == expected


def test_runtime_user_47() -> None:
    assert run("${user()}", ELContext(instance_time=at(ACTION_NOMINAL), user="test")) == "test"


def test_runtime_data_in_48() -> None:
    resolved = ["/data/clicks/2009/09/02/10", "/data/clicks/2009/09/02/09"]
    calls: list[tuple[str, str]] = []

    def data_in(name: str, partition: str) -> str:
        calls.append((name, partition))
        suffix = f"/{partition}" if partition and partition != "null" else ""
        return ",".join(uri + suffix for uri in resolved)

    context = ELContext(instance_time=at(ACTION_NOMINAL), data_in=data_in)
    assert run("${dataIn('clicks', '*/US')}", context) == \
        "/data/clicks/2009/09/02/10/*/US,/data/clicks/2009/09/02/09/*/US"
    assert calls == [("clicks", "*/US")]


# -- (c) runtime evaluator, dataset context: nominal 2009-09-02T10:30Z, hourly feed from 2007-09-30T10:00Z, UTC -----

DATASET_NOMINAL = "2009-09-02T10:30Z"
DATASET_FIRST_INSTANCE = "2007-09-30T10:00Z"
DATASET_CASES = [
    (49, "currentMonth(0,0,0)", "2009-09-01T00:00Z"),
    (50, "currentMonth(2,-1,0)", "2009-09-02T23:00Z"),
    (51, "currentWeek('SUN',0,0)", "2009-08-30T00:00Z"),
    (52, "currentWeek('FRI',1,0)", "2009-08-28T01:00Z"),
    (53, "lastWeek('SUN',0,0)", "2009-08-23T00:00Z"),
    (54, "lastWeek('MON',0,0)", "2009-08-24T00:00Z"),
    (55, "today(0,0)", "2009-09-02T00:00Z"),
    (56, "today(1,-20)", "2009-09-02T00:00Z"),
    (57, "now(0,0)", "2009-09-02T10:00Z"),
    (58, "now(2,-10)", "2009-09-02T12:00Z"),
    (59, "yesterday(0,0)", "2009-09-01T00:00Z"),
    (60, "yesterday(1,10)", "2009-09-01T01:00Z"),
    (61, "lastMonth(0,0,0)", "2009-08-01T00:00Z"),
    (62, "lastMonth(1,1,10)", "2009-08-02T01:00Z"),
    (63, "currentYear(0,0,0,0)", "2009-01-01T00:00Z"),
    (64, "currentYear(1,0,1,0)", "2009-02-01T01:00Z"),
    (65, "lastYear(0,0,0,0)", "2008-01-01T00:00Z"),
    (66, "lastYear(1,0,1,0)", "2008-02-01T01:00Z"),
]


@pytest.mark.parametrize(("expression", "expected"), [pytest.param(e, r, id=str(n)) for n, e, r in DATASET_CASES])
def test_runtime_dataset_context(expression: str, expected: str) -> None:
    context = ELContext(instance_time=at(DATASET_NOMINAL), zone=UTC, dataset=hourly_dataset(DATASET_FIRST_INSTANCE))
    assert run(expression, context) == expected


def test_runtime_dataset_before_initial_instance_67() -> None:
    context = ELContext(instance_time=at(DATASET_NOMINAL), zone=UTC, dataset=hourly_dataset("2009-08-30T10:00Z"))
    assert evaluate("currentYear(0,0,0,0)", context) is None
    assert run("currentYear(0,0,0,0)", context) == ""


def test_dataset_snapping_differs_from_action_context() -> None:
    """The notes of table (c): the same expressions without a dataset are not snapped."""
    action = ELContext(instance_time=at(DATASET_NOMINAL), zone=UTC)
    assert run("today(1,-20)", action) == "2009-09-02T00:40Z"
    assert run("now(0,0)", action) == "2009-09-02T10:30Z"
    assert run("now(2,-10)", action) == "2009-09-02T12:20Z"
    assert run("yesterday(1,10)", action) == "2009-09-01T01:10Z"


# -- (e) FalconDocumentation.twiki examples ---------------------------------------------------------------------------

DOCUMENTED_CASES = [
    (76, "2010-01-02T01:30Z", "today(-3,-20)", "2010-01-01T20:40Z"),
    (77, "2010-01-02T01:30Z", "today(3,20)", "2010-01-02T03:20Z"),
    (78, "2010-01-02T01:30Z", "yesterday(24,30)", "2010-01-02T00:30Z"),
    (79, "2010-01-12T01:30Z", "currentMonth(3,2,40)", "2010-01-04T02:40Z"),
    (80, "2010-01-12T01:30Z", "currentMonth(0,0,0)", "2010-01-01T00:00Z"),
    (81, "2010-01-12T01:30Z", "lastMonth(2,3,30)", "2009-12-03T03:30Z"),
]
# "2010 instance": any instance time within 2010 gives the same result.
YEAR_2010_CASES = [
    (82, "currentYear(0,2,2,20)", "2010-01-03T02:20Z"),
    (83, "currentYear(11,2,2,20)", "2010-12-03T02:20Z"),
    (84, "lastYear(4,2,2,20)", "2009-05-03T02:20Z"),
    (85, "lastYear(12,2,2,20)", "2010-01-03T02:20Z"),
]
INSTANCES_IN_2010 = ["2010-01-01T00:00Z", "2010-01-02T00:30Z", "2010-06-15T12:45Z", "2010-12-31T23:59Z"]


@pytest.mark.parametrize(("instance", "expression", "expected"),
                         [pytest.param(t, e, r, id=str(n)) for n, t, e, r in DOCUMENTED_CASES])
def test_documented_examples(instance: str, expression: str, expected: str) -> None:
    assert run(expression, ELContext(instance_time=at(instance))) == expected


@pytest.mark.parametrize("instance", INSTANCES_IN_2010)
@pytest.mark.parametrize(("expression", "expected"), [pytest.param(e, r, id=str(n)) for n, e, r in YEAR_2010_CASES])
def test_documented_year_examples(instance: str, expression: str, expected: str) -> None:
    assert run(expression, ELContext(instance_time=at(instance))) == expected


@pytest.mark.parametrize("instance", ["2010-01-02T01:30Z", "2015-02-01T00:00Z", "2009-09-02T10:30Z"])
def test_documented_now_equivalence_75(instance: str) -> None:
    action = ELContext(instance_time=at(instance))
    assert run("now(-2,40)", action) == run("now(0,-80)", action)
    dataset = ELContext(instance_time=at(instance), dataset=InstanceGrid.of(
        at("2000-01-01T00:05Z"), Frequency.parse("minutes(10)"), UTC))
    assert run("now(-2,40)", dataset) == run("now(0,-80)", dataset)


# -- the shared conformance table -------------------------------------------------------------------------------------


def _context_for(row: dict[str, str]) -> ELContext:
    zone = resolve_zone(row["timezone"] or "UTC")
    assert zone.known, f"{row['id']}: unknown time zone {row['timezone']!r}"
    dataset = None
    if row["context"] == "dataset":
        dataset = InstanceGrid.of(at(row["feed_start"]), Frequency.parse(row["feed_frequency"]), zone.zone)
    else:
        assert row["context"] == "action", f"{row['id']}: unknown context {row['context']!r}"
    return ELContext(instance_time=at(row["instance_time"]), zone=zone.zone, dataset=dataset)


def test_conformance_cases(shared: Path) -> None:
    table = shared / "conformance" / "el-cases.tsv"
    with table.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))
    assert rows, f"{table} has no cases"
    failures = []
    for row in rows:
        try:
            got = run(row["expression"], _context_for(row))
        except Exception as error:  # report every row, not just the first that fails
            got = f"{type(error).__name__}: {error}"
        if got != row["expected"]:
            failures.append(f"{row['id']}: {row['expression']} at {row['instance_time']} "
                            f"-> {got!r}, expected {row['expected']!r}")
    assert not failures, "\n".join(failures)
