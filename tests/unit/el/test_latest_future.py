"""``latest(n)`` and ``future(n, limit)``: the instance time without run-time knowledge, else what it says."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

import pendulum
import pytest

from falcon_airflow.el import Availability, ELContext
from falcon_airflow.el.evaluate import evaluate, reference_time, render
from falcon_airflow.errors import ELEvaluationError
from falcon_airflow.timekeeping import Frequency, parse_falcon_date
from falcon_airflow.timekeeping.grid import InstanceGrid

INSTANCE = parse_falcon_date("2015-02-01T00:00Z")


@dataclass
class StubAvailability:
    """Answers from fixed tables and records the questions."""

    latest_answers: dict[int, datetime | None] = field(default_factory=dict)
    future_answers: dict[tuple[int, int], datetime | None] = field(default_factory=dict)
    questions: list[tuple[str, tuple[int, ...]]] = field(default_factory=list)

    def latest(self, offset: int) -> datetime | None:
        self.questions.append(("latest", (offset,)))
        return self.latest_answers.get(offset)

    def future(self, offset: int, limit: int) -> datetime | None:
        self.questions.append(("future", (offset, limit)))
        return self.future_answers.get((offset, limit))


def test_stub_is_an_availability() -> None:
    stub: Availability = StubAvailability()
    assert stub.latest(0) is None


@pytest.mark.parametrize("expression", ["latest(0)", "latest(-1)", "latest(-24)", "future(0,0)", "future(1,0)",
                                        "future(3, 10)", "${coord:latest(0)}"])
def test_without_availability_they_give_the_instance_time(expression: str) -> None:
    assert render(evaluate(expression, ELContext(instance_time=INSTANCE))) == "2015-02-01T00:00Z"
    assert reference_time(expression, INSTANCE) == INSTANCE


def test_without_availability_in_another_zone_they_still_give_the_instance_time() -> None:
    context = ELContext(instance_time=INSTANCE, zone=pendulum.timezone("Asia/Kolkata"))
    assert render(evaluate("latest(-2)", context)) == "2015-02-01T00:00Z"
    assert render(evaluate("future(2, 5)", context)) == "2015-02-01T00:00Z"


def test_without_availability_in_dataset_context_they_snap() -> None:
    feed = InstanceGrid.of(parse_falcon_date("2015-01-01T00:00Z"), Frequency.parse("hours(6)"), pendulum.UTC)
    context = ELContext(instance_time=parse_falcon_date("2015-02-01T10:00Z"), dataset=feed)
    assert render(evaluate("latest(0)", context)) == "2015-02-01T06:00Z"
    assert render(evaluate("future(0, 4)", context)) == "2015-02-01T06:00Z"


def test_with_availability_latest_asks_it() -> None:
    stub = StubAvailability(latest_answers={0: parse_falcon_date("2015-01-31T22:00Z"),
                                            -1: parse_falcon_date("2015-01-31T21:00Z")})
    context = ELContext(instance_time=INSTANCE, availability=stub)
    assert render(evaluate("latest(0)", context)) == "2015-01-31T22:00Z"
    assert render(evaluate("latest(-1)", context)) == "2015-01-31T21:00Z"
    assert isinstance(evaluate("latest(0)", context), pendulum.DateTime)
    assert ("latest", (0,)) in stub.questions and ("latest", (-1,)) in stub.questions


def test_with_availability_future_asks_it() -> None:
    stub = StubAvailability(future_answers={(0, 3): parse_falcon_date("2015-02-01T01:00Z"),
                                            (2, 10): parse_falcon_date("2015-02-01T05:00Z")})
    context = ELContext(instance_time=INSTANCE, availability=stub)
    assert render(evaluate("future(0, 3)", context)) == "2015-02-01T01:00Z"
    assert render(evaluate("future(2, 10)", context)) == "2015-02-01T05:00Z"
    assert stub.questions == [("future", (0, 3)), ("future", (2, 10))]


def test_with_availability_nothing_available_is_nothing() -> None:
    context = ELContext(instance_time=INSTANCE, availability=StubAvailability())
    assert evaluate("latest(-5)", context) is None
    assert evaluate("future(1, 2)", context) is None
    assert render(evaluate("latest(-5)", context)) == ""


def test_availability_answer_in_another_zone_is_rendered_in_utc() -> None:
    answer = pendulum.datetime(2015, 1, 31, 20, 0, tz="America/New_York")
    context = ELContext(instance_time=INSTANCE, availability=StubAvailability(latest_answers={0: answer}))
    assert render(evaluate("latest(0)", context)) == "2015-02-01T01:00Z"


def test_with_availability_the_arguments_are_evaluated() -> None:
    stub = StubAvailability(latest_answers={-2: parse_falcon_date("2015-01-30T00:00Z")})
    context = ELContext(instance_time=INSTANCE, availability=stub)
    assert render(evaluate("latest(-1 - 1)", context)) == "2015-01-30T00:00Z"


@pytest.mark.parametrize(("expression", "position"), [
    ("latest(1)", 7),          # only 0 or negative
    ("future(-1, 3)", 7),      # only 0 or positive
    ("future(0, -1)", 10),
    ("latest('x')", 7),
])
def test_bad_offsets(expression: str, position: int) -> None:
    for availability in (None, StubAvailability()):
        with pytest.raises(ELEvaluationError) as caught:
            evaluate(expression, ELContext(instance_time=INSTANCE, availability=availability))
        assert caught.value.position == position
