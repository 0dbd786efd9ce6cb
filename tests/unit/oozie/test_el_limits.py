"""Oozie EL depth and range limits: a workflow's expressions end in an EL error with a position (or a value),
never RecursionError, OverflowError, ValueError or MemoryError."""

from __future__ import annotations

import inspect
import sys
from datetime import UTC, datetime

import pytest

from falcon_airflow.el.syntax import MAX_DEPTH, MAX_EXPRESSION_LENGTH
from falcon_airflow.errors import ELError, ELEvaluationError, ELSyntaxError
from falcon_airflow.oozie.el import WorkflowContext, check_syntax, evaluate_predicate, evaluate_value, parse_template

CONTEXT = WorkflowContext(
    id="0000001-260304000000000-oozie-W", name="daily", app_path="/apps/daily", user="etl", group="data", run=0,
    conf={"digits": "9" * 4000, "long": "9223372036854775808", "max": "9223372036854775807"},
    variables={"data": {"a": {"b": 1}}}, actions={}, last_error_node=None, fs=None,
    clock=lambda: datetime(2026, 3, 4, tzinfo=UTC))


def value(text: str) -> object:
    return evaluate_value(text, CONTEXT)


@pytest.mark.parametrize("inner", [
    pytest.param("(" * 1500 + "1" + ")" * 1500, id="parentheses-1500"),
    pytest.param("(" * (MAX_DEPTH + 1) + "1" + ")" * (MAX_DEPTH + 1), id="parentheses-just-over"),
    pytest.param("-" * 3000 + "1", id="minus-signs"),
    pytest.param("not " * 800 + "true", id="not-chain"),
    pytest.param("! " * 1500 + "true", id="bang-chain"),
    pytest.param("empty " * 600 + "1", id="empty-chain"),
    pytest.param("+".join(["1"] * 1000), id="chain-of-plus"),
    pytest.param(" * ".join(["KB"] * 800), id="chain-of-times"),
    pytest.param(" and ".join(["true"] * 600), id="chain-of-and"),
    pytest.param(" || ".join(["false"] * 1000), id="chain-of-or"),
    pytest.param(" == ".join(["1"] * 800), id="chain-of-equals"),
    pytest.param("data" + ".a" * 1500, id="chain-of-properties"),
    pytest.param("data" + "['a']" * 700, id="chain-of-brackets"),
    pytest.param("true ? " * 600 + "1" + " : 2" * 600, id="nested-conditionals"),
    pytest.param("concat(" * 400 + "'a', 'b'" + ")" * 400, id="nested-calls"),
    pytest.param("concat('a', " * 300 + "'b'" + ")" * 300, id="nested-calls-second-argument"),
    pytest.param("+".join(["1"] * 100000), id="chain-of-100000"),
    pytest.param("9" * 5000, id="5000-digits"),
])
def test_deep_expressions_are_syntax_errors_with_a_position(inner: str) -> None:
    text = "${" + inner + "}"

    problem = check_syntax(text)

    assert problem is not None, "accepted"
    assert "deep" in problem.message or "long" in problem.message
    assert problem.position is not None and 2 <= problem.position <= len(text)
    with pytest.raises(ELSyntaxError):
        value(text)


@pytest.mark.parametrize("inner", [
    pytest.param("(" * (MAX_DEPTH - 1) + "1" + ")" * (MAX_DEPTH - 1), id="parentheses"),
    pytest.param("not " * (MAX_DEPTH - 1) + "true", id="not"),
    pytest.param(" or ".join(["false"] * MAX_DEPTH), id="chain"),
    pytest.param("true ? " * (MAX_DEPTH - 1) + "1" + " : 2" * (MAX_DEPTH - 1), id="conditionals"),
    pytest.param("data" + "['a']" * (MAX_DEPTH - 1), id="brackets"),
    pytest.param("concat('a', " * (MAX_DEPTH - 1) + "'b'" + ")" * (MAX_DEPTH - 1), id="calls"),
    pytest.param("(" * 200 + "1" + ")" * 200, id="parentheses-over"),
    pytest.param(" or ".join(["false"] * 400), id="chain-over"),
])
def test_the_deepest_expressions_need_half_of_pythons_default_recursion_limit(inner: str) -> None:
    """Whoever calls (a DAG file, a task, validation), 500 frames are left of the default 1000: the deepest
    expression the limits let through parses and evaluates in them, and one level more is refused, not a
    RecursionError."""
    parse_template.cache_clear()
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(len(inspect.stack()) + 500)
    try:
        value("${" + inner + "}")
    except ELError:
        pass
    finally:
        sys.setrecursionlimit(limit)


@pytest.mark.parametrize(("text", "expected"), [
    pytest.param("${" + "(" * (MAX_DEPTH - 1) + "1 + 1" + ")" * (MAX_DEPTH - 1) + "}", 2, id="parentheses"),
    pytest.param("${" + "+".join(["1"] * 50) + "}", 50, id="fifty-terms"),
    pytest.param("${1 + 2 * 3 - 4 / 2 > 2 and not empty 'x' or false ? 'yes' : 'no'}", "yes", id="every-level"),
    pytest.param("${9223372036854775807}", 9223372036854775807, id="largest-long"),
    pytest.param("${-9223372036854775807 - 1}", -9223372036854775808, id="smallest-long"),
    pytest.param("${1e400}", float("inf"), id="a-double-may-be-infinite-as-in-java"),
])
def test_expressions_within_the_limits_still_evaluate(text: str, expected: object) -> None:
    assert value(text) == expected


def test_very_long_expressions_are_refused() -> None:
    text = "${concat('a', '" + "x" * MAX_EXPRESSION_LENGTH + "')}"

    problem = check_syntax(text)

    assert problem is not None and "long" in problem.message


@pytest.mark.parametrize(("text", "position"), [
    pytest.param("${" + "9" * 4000 + "}", 2, id="4000-digits"),
    pytest.param("${" + "1" + "0" * 19 + " > 0}", 2, id="twenty-digits"),
    pytest.param("${1 + 9223372036854775808}", 6, id="just-over-a-long"),
])
def test_integer_literals_beyond_a_long_are_refused(text: str, position: int) -> None:
    problem = check_syntax(text)

    assert problem is not None and "number" in problem.message and problem.position == position


@pytest.mark.parametrize(("text", "position"), [
    pytest.param("${1 + ²}", 6, id="superscript-two"),
    pytest.param("${1²}", 3, id="after-a-digit"),
    pytest.param("${٣ > 1}", 2, id="arabic-indic-three"),
])
def test_only_ascii_digits_make_numbers(text: str, position: int) -> None:
    problem = check_syntax(text)

    assert problem is not None and "unexpected character" in problem.message and problem.position == position


@pytest.mark.parametrize("text", [
    "${9223372036854775807 + 1}", "${-9223372036854775807 - 2}", "${KB * KB * KB * KB * KB * KB * KB}",
    "${PB * PB}", "${-(-9223372036854775807 - 1)}", "${(-9223372036854775807 - 1) / 1 * 2 + PB * PB}",
    "${wf:conf('max') + 1}", "${wf:conf('max') * 2 > 0}",
])
def test_long_arithmetic_overflow_is_an_el_error(text: str) -> None:
    with pytest.raises(ELEvaluationError) as caught:
        value(text)

    assert "range" in caught.value.message and caught.value.position is not None


@pytest.mark.parametrize("text", [
    "${wf:conf('digits') + 1}", "${wf:conf('long') + 0}", "${wf:conf('long') > 1}",
    "${wf:conf('digits') == 1}", "${-wf:conf('long')}",
])
def test_numeric_text_beyond_a_long_is_an_el_error(text: str) -> None:
    with pytest.raises(ELEvaluationError) as caught:
        value(text)

    assert caught.value.position is not None


@pytest.mark.parametrize("text", [
    "${" + " or ".join(["false"] * 900) + "}",
    "${" + "not " * 900 + "true}",
    "${" + "(" * 900 + "true" + ")" * 900 + "}",
])
def test_a_decision_with_a_deep_predicate_is_an_el_error(text: str) -> None:
    with pytest.raises(ELError):
        evaluate_predicate(text, CONTEXT)
