"""Frequencies within range (FA060): a count Falcon could not read (beyond a Java int) or a frequency whose
schedule, deadline or cut-off leaves the calendar makes only its own entity invalid, with an issue naming the
element - never an OverflowError in a timetable, a sensor or a retention run, and never another entity's DAG."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.builders import cluster, feed, process

from falcon_airflow.compiler.compilation import compile_workspace
from falcon_airflow.validation import validate_workspace
from falcon_airflow.workspace import Workspace

GOOD = process("good", inputs=(("i", "in", "now(0,0)", "now(0,0)"),), outputs=(("o", "out1", "now(0,0)"),))
BAD = process("bad", inputs=(("i", "in", "now(0,0)", "now(0,0)"),), outputs=(("o", "out2", "now(0,0)"),))
SOLO = feed("solo", path="/solo/${YEAR}/${MONTH}/${DAY}/${HOUR}")


def load(folder: Path, *extra: str) -> Workspace:
    folder.mkdir(parents=True, exist_ok=True)
    documents = (cluster(), feed("in"), feed("out1", path="/o1/${YEAR}/${MONTH}/${DAY}/${HOUR}"),
                 feed("out2", path="/o2/${YEAR}/${MONTH}/${DAY}/${HOUR}"), GOOD, *extra)
    for index, text in enumerate(documents):
        (folder / f"entity-{index}.xml").write_text(text, encoding="utf-8")
    return Workspace.load([str(folder)])


def judged(folder: Path, *extra: str) -> tuple[list[str], set[str]]:
    """The error issues (as text) and the process DAG ids of a workspace of the good process and ``extra``."""
    ws = load(folder, *extra)
    report = validate_workspace(ws)
    errors = [f"{issue.entity}: [{issue.rule}] {issue.message}" for issue in report.issues if issue.is_error]
    dags = {spec.dag_id for spec in compile_workspace(ws, entities_dir=folder).specs}
    return errors, dags


def process_with(old: str, new: str) -> str:
    assert old in BAD
    return BAD.replace(old, new, 1)


def feed_with(old: str, new: str) -> str:
    assert old in SOLO
    return SOLO.replace(old, new, 1)


BAD_PROCESSES = {
    "frequency-beyond-an-int": process_with("<frequency>hours(1)", "<frequency>hours(2147483648)"),
    "frequency-of-eleven-digits": process_with("<frequency>hours(1)", "<frequency>minutes(99999999999)"),
    "frequency-of-5000-digits": process_with("<frequency>hours(1)", "<frequency>days(" + "9" * 5000 + ")"),
    "frequency-days-past-the-calendar": process_with("<frequency>hours(1)", "<frequency>days(3000000)"),
    "frequency-months-past-the-calendar": process_with("<frequency>hours(1)", "<frequency>months(2147483647)"),
    "frequency-hours-past-the-calendar": process_with("<frequency>hours(1)", "<frequency>hours(800000000)"),
    "timeout-past-the-calendar": process_with("<frequency>", "<timeout>days(3000000)</timeout><frequency>"),
    "sla-past-the-calendar": process_with("<timezone>", '<sla shouldStartIn="hours(1)" shouldEndIn="months(96000)"/>'
                                                        "<timezone>"),
    "retry-delay-past-the-calendar": process_with(
        "</spark-attributes>", '</spark-attributes><retry policy="periodic" delay="days(3000000)" attempts="3"/>'),
    "frequency-past-the-calendar-only-after-the-validity-end": process_with(
        "<frequency>hours(1)", "<frequency>days(2600000)").replace('end="2099-01-01T00:00Z"',
                                                                   'end="2999-01-01T00:00Z"'),
}


@pytest.mark.parametrize("bad", list(BAD_PROCESSES.values()), ids=list(BAD_PROCESSES))
def test_a_process_out_of_range_is_alone_invalid(tmp_path: Path, bad: str) -> None:
    errors, dags = judged(tmp_path, bad)

    assert errors and all(error.startswith("bad: ") for error in errors), errors
    assert any("[FA060]" in error or "[XSD]" in error for error in errors), errors
    assert not [error for error in errors if "could not be checked" in error or "Exceeds" in error], errors
    assert "falcon.process.good.c1" in dags and "falcon.process.bad.c1" not in dags


BAD_FEEDS = {
    "frequency-beyond-an-int": feed_with("<frequency>hours(1)", "<frequency>minutes(2147483648)"),
    "frequency-past-the-calendar": feed_with("<frequency>hours(1)", "<frequency>months(200000)"),
    "retention-days-before-the-calendar": feed_with('limit="days(1000)"', 'limit="days(1000000)"'),
    "retention-months-before-the-calendar": feed_with('limit="days(1000)"', 'limit="months(40000)"'),
    "frequency-months-past-the-calendar": feed_with("<frequency>hours(1)", "<frequency>months(96000)"),
}


@pytest.mark.parametrize("bad", list(BAD_FEEDS.values()), ids=list(BAD_FEEDS))
def test_a_feed_out_of_range_is_alone_invalid(tmp_path: Path, bad: str) -> None:
    errors, dags = judged(tmp_path, bad)

    assert errors and all(error.startswith("solo: ") for error in errors), errors
    assert any("[FA060]" in error or "[XSD]" in error for error in errors), errors
    assert not [error for error in errors if "could not be checked" in error or "Exceeds" in error], errors
    assert "falcon.process.good.c1" in dags


@pytest.mark.parametrize(("old", "new"), [
    ("<frequency>hours(1)", "<frequency>minutes(2147483647)"),  # a long way, still inside the calendar
    ("<frequency>hours(1)", "<frequency>months(12000)"),
    ("<frequency>", "<timeout>days(36500)</timeout><frequency>"),
    ("<frequency>hours(1)", "<frequency>days(2600000)"),  # from the validity end in 2099: year 9217
])
def test_long_frequencies_inside_the_calendar_are_accepted(tmp_path: Path, old: str, new: str) -> None:
    errors, dags = judged(tmp_path, process_with(old, new))

    assert not [error for error in errors if "FA060" in error or "frequency" in error], errors
    assert "falcon.process.bad.c1" in dags
