"""EL depth and range limits: whatever an entity author writes, parsing and evaluation end in an EL error with a
position (or a value), never RecursionError, OverflowError, ValueError or MemoryError."""

from __future__ import annotations

import inspect
import sys

import pendulum
import pytest

from falcon_airflow.el import ELContext, evaluate, parse
from falcon_airflow.el.syntax import MAX_DEPTH, MAX_EXPRESSION_LENGTH
from falcon_airflow.errors import ELError, ELEvaluationError, ELSyntaxError
from falcon_airflow.timekeeping import Frequency, parse_falcon_date
from falcon_airflow.timekeeping.grid import InstanceGrid

AT = pendulum.datetime(2026, 3, 1, 5, 30)
ACTION = ELContext(instance_time=AT)
DATASET = ELContext(instance_time=AT, dataset=InstanceGrid.of(parse_falcon_date("2020-01-01T00:00Z"),
                                                              Frequency.parse("hours(1)"), pendulum.UTC))
HUGE = "99999999999"


def failure(expression: str, context: ELContext = ACTION) -> ELError:
    with pytest.raises(ELError) as caught:
        evaluate(expression, context)
    return caught.value


@pytest.mark.parametrize("expression", [
    pytest.param("(" * 1500 + "1" + ")" * 1500, id="parentheses-1500"),
    pytest.param("(" * (MAX_DEPTH + 1) + "1" + ")" * (MAX_DEPTH + 1), id="parentheses-just-over"),
    pytest.param("-" * 3000 + "1", id="signs-3000"),
    pytest.param("- (" * 400 + "1" + ")" * 400, id="signs-and-parentheses"),
    pytest.param("now(" * 500 + "0,0" + ")" * 500, id="nested-calls"),
    pytest.param("now(0, " * 300 + "0" + ")" * 300, id="nested-calls-second-argument"),
    pytest.param("+".join(["1"] * 1000), id="chain-of-plus"),
    pytest.param("-".join(["1"] * 1000), id="chain-of-minus"),
    pytest.param("*".join(["2"] * 1000), id="chain-of-times"),
    pytest.param("now(0, " + "+".join(["1"] * 1000) + ")", id="chain-in-an-argument"),
    pytest.param("+".join(["1"] * 100000), id="chain-of-100000"),
    pytest.param("(" * 100000, id="100000-open-parentheses"),
])
def test_deep_expressions_are_refused_with_a_position(expression: str) -> None:
    with pytest.raises(ELSyntaxError) as caught:
        parse(expression)

    problem = caught.value
    assert "deep" in problem.message or "long" in problem.message
    assert problem.position is not None and 0 <= problem.position <= len(expression)


@pytest.mark.parametrize("expression", [
    pytest.param("(" * (MAX_DEPTH - 1) + "1" + ")" * (MAX_DEPTH - 1), id="parentheses"),
    pytest.param("-(" * (MAX_DEPTH // 2 - 1) + "1" + ")" * (MAX_DEPTH // 2 - 1), id="signs-and-parentheses"),
    pytest.param("+".join(["1"] * MAX_DEPTH), id="chain"),
    pytest.param("now(0, " * (MAX_DEPTH - 1) + "0" + ")" * (MAX_DEPTH - 1), id="calls"),
    pytest.param("(" * 200 + "1" + ")" * 200, id="parentheses-over"),
    pytest.param("+".join(["1"] * 400), id="chain-over"),
])
def test_the_deepest_expressions_need_half_of_pythons_default_recursion_limit(expression: str) -> None:
    """Whoever calls (a DAG file, a rule, a task), 500 frames are left of the default 1000: the deepest expression
    the limits let through parses and evaluates in them, and one level more is refused, not a RecursionError."""
    parse.cache_clear()
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(len(inspect.stack()) + 500)
    try:
        evaluate(expression, ACTION)
    except ELError:
        pass
    finally:
        sys.setrecursionlimit(limit)


@pytest.mark.parametrize("expression", [
    pytest.param("(" * (MAX_DEPTH - 1) + "now(0,0)" + ")" * (MAX_DEPTH - 1), id="parentheses-at-the-limit"),
    pytest.param("now(0, " + "+".join(["1"] * 50) + ")", id="fifty-terms"),
    pytest.param("now(-(-(-(1))), 0)", id="signs"),
])
def test_expressions_within_the_limits_still_evaluate(expression: str) -> None:
    assert isinstance(evaluate(expression, ACTION), pendulum.DateTime)


def test_very_long_expressions_are_refused() -> None:
    expression = "now(0, 0" + " " * MAX_EXPRESSION_LENGTH + ")"

    with pytest.raises(ELSyntaxError) as caught:
        parse(expression)

    assert "long" in caught.value.message and caught.value.position == MAX_EXPRESSION_LENGTH


@pytest.mark.parametrize(("expression", "position"), [
    pytest.param("9" * 4000, 0, id="4000-digits"),
    pytest.param("now(0, " + "9" * 4000 + ")", 7, id="4000-digits-in-an-argument"),
    pytest.param("now(0, 9223372036854775808)", 7, id="just-over-a-long"),
    pytest.param("now(0, " + "9" * 400 + ".5)", 7, id="decimal-beyond-a-double"),
])
def test_number_literals_beyond_java_ranges_are_refused(expression: str, position: int) -> None:
    with pytest.raises(ELSyntaxError) as caught:
        parse(expression)

    assert "number" in caught.value.message and caught.value.position == position


@pytest.mark.parametrize(("expression", "position"), [
    pytest.param("now(0, ²)", 7, id="superscript-two"),
    pytest.param("now(0, 1²)", 8, id="after-a-digit"),
    pytest.param("now(0, ٣)", 7, id="arabic-indic-three"),
])
def test_only_ascii_digits_make_numbers(expression: str, position: int) -> None:
    with pytest.raises(ELSyntaxError) as caught:
        parse(expression)

    assert "unexpected character" in caught.value.message and caught.value.position == position


@pytest.mark.parametrize("function", ["now", "today", "yesterday"])
@pytest.mark.parametrize("arguments", [f"0, {HUGE}", f"{HUGE}, 0", f"0, -{HUGE}", "-1000000000, 0",
                                       "2147483647, 0", "-2147483648, -2147483648"])
@pytest.mark.parametrize("context", [ACTION, DATASET], ids=["action", "dataset"])
def test_huge_offsets_are_el_errors(function: str, arguments: str, context: ELContext) -> None:
    expression = f"{function}({arguments})"

    problem = failure(expression, context)

    assert isinstance(problem, ELEvaluationError)
    assert problem.position is not None and 0 <= problem.position < len(expression)
    assert "range" in problem.message or "calendar" in problem.message


@pytest.mark.parametrize("expression", [
    f"currentMonth({HUGE}, 0, 0)", f"lastMonth(0, {HUGE}, 0)", "currentMonth(2147483647, 0, 0)",
    f"currentYear({HUGE}, 0, 0, 0)", "lastYear(99999999, 0, 0, 0)", "lastYear(0, 0, 0, -2147483648)",
    f"currentWeek('MON', {HUGE}, 0)", "lastWeek('SUN', 0, -2147483648)",
    f"latest(-{HUGE})", f"future({HUGE}, 5)", f"future(0, {HUGE})",
    f"dateOffset(instanceTime(), {HUGE}, 'YEAR')", "dateOffset(instanceTime(), 2147483647, 'DAY')",
    "dateOffset(instanceTime(), -2026, 'YEAR')", "dateOffset(instanceTime(), 7974, 'YEAR')",
    f"days({HUGE}00000000)", "years(2147483647) * years(2147483647)",
    "now(0, 3 * 1000000000)", "now(0, 10000000000.5)",
])
def test_range_failures_of_every_function_are_el_errors(expression: str) -> None:
    problem = failure(expression)

    assert problem.position is not None and 0 <= problem.position < len(expression)


@pytest.mark.parametrize("expression", [
    "9223372036854775807 + 1", "-9223372036854775807 - 2", "4294967296 * 4294967296",
    "-(-9223372036854775807 - 1)", "1.5 * " + "1" + "0" * 300 + ".0 * " + "1" + "0" * 300 + ".0",
    "1.0 / 0.0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000001"
    " / 0.0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000001"
    " / 0.0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000001"
    " / 0.0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000001",
])
def test_arithmetic_overflow_is_an_el_error(expression: str) -> None:
    problem = failure(expression)

    assert isinstance(problem, ELEvaluationError) and "range" in problem.message


@pytest.mark.parametrize(("expression", "expected"), [
    ("9223372036854775807", 9223372036854775807),
    ("-9223372036854775807 - 1", -9223372036854775808),
    ("now(0, 2147483647)", pendulum.datetime(6109, 3, 24, 7, 37)),
    ("now(0, -1000000000)", pendulum.datetime(124, 11, 2, 18, 50)),
    ("days(2147483647)", 2147483647 * 1440 * 60_000),
])
def test_values_at_the_edge_of_the_range_still_evaluate(expression: str, expected: object) -> None:
    assert evaluate(expression, ACTION) == expected
