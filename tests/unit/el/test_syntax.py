"""EL grammar: parse errors with 0-based positions, call errors, arithmetic and template splitting."""

from __future__ import annotations

import pendulum
import pytest

from falcon_airflow.el import ELContext, evaluate, parse, split_template
from falcon_airflow.el.evaluate import render
from falcon_airflow.el.syntax import Binary, Call, Literal, TemplatePart, Unary, parse_template
from falcon_airflow.errors import ELError, ELEvaluationError, ELSyntaxError

CONTEXT = ELContext(instance_time=pendulum.datetime(2015, 2, 1))


def syntax_error(expression: str) -> ELSyntaxError:
    with pytest.raises(ELSyntaxError) as caught:
        parse(expression)
    return caught.value


def evaluation_error(expression: str) -> ELEvaluationError:
    with pytest.raises(ELEvaluationError) as caught:
        evaluate(expression, CONTEXT)
    return caught.value


# -- parse errors -----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("expression", "position"), [
    ("now(0,0", 7),            # missing ')' - reported at the end
    ("now(0, 0", 8),
    ("(now(0,0)", 9),
    ("now((0,0)", 6),          # '(0' then ',' where ')' is expected
    ("now(0,0))", 8),          # one ')' too many
    (")", 0),
    ("today(1, (2 + 3)", 16),
])
def test_unbalanced_parentheses(expression: str, position: int) -> None:
    assert syntax_error(expression).position == position


@pytest.mark.parametrize(("expression", "position"), [
    ("now(0,0)#", 8),
    ("now(0;0)", 5),
    ("now(0,0) @", 9),
    ("$now(0,0)", 0),
    ("now(0,0)$", 8),
    ("1..2", 1),
    ("now(0, 0) & 1", 10),
    ("now(0,0)}", 8),
    ("now(,)", 4),
    ("now(0,)", 6),
    ("* 2", 0),
    ("now(0,0) now(0,0)", 9),
])
def test_stray_characters(expression: str, position: int) -> None:
    assert syntax_error(expression).position == position


@pytest.mark.parametrize(("expression", "position"), [
    ("'abc", 0),
    ('"abc', 0),
    ("formatTime('2015-02-01T00:00Z, 'yyyy')", 36),   # the second quote opens a string that never ends
    ("formatTime(\"x, 'yyyy')", 11),                  # a double quote is not closed by a single one
    ("${formatTime(instanceTime(), 'yyyy)}", 29),
])
def test_unterminated_strings(expression: str, position: int) -> None:
    error = syntax_error(expression)
    assert error.position == position
    assert "unterminated" in error.message


@pytest.mark.parametrize(("expression", "position"), [("", 0), ("   ", 3), ("${}", 2), ("${ }", 3), ("  ${  }", 6)])
def test_empty_expressions(expression: str, position: int) -> None:
    error = syntax_error(expression)
    assert error.position == position
    assert "empty" in error.message


def test_expression_ending_too_early() -> None:
    assert syntax_error("1 +").position == 3
    assert syntax_error("now(0,").position == 6


def test_name_without_call() -> None:
    assert syntax_error("now").position == 0
    assert syntax_error("1 + today").position == 4


def test_errors_are_el_errors_and_say_where() -> None:
    error = syntax_error("now(0,0")
    assert isinstance(error, ELError)
    assert error.expression == "now(0,0"
    assert "character 8" in str(error)  # the message counts from 1


# -- ${...} wrapping and prefixes ------------------------------------------------------------------------------------


def test_wrapped_and_bare_expressions_are_the_same() -> None:
    bare = parse("now(0,-60)")
    wrapped = parse("${now(0,-60)}")
    assert isinstance(bare, Call) and isinstance(wrapped, Call)
    assert (bare.name, bare.position) == ("now", 0)
    assert (wrapped.name, wrapped.position) == ("now", 2)
    assert [argument.value for argument in wrapped.arguments] == [0, -60]  # type: ignore[union-attr]
    assert render(evaluate("${now(0,-60)}", CONTEXT)) == render(evaluate("now(0,-60)", CONTEXT))


def test_wrapping_with_spaces() -> None:
    node = parse("  ${ today( 1 , 2 ) }  ")
    assert isinstance(node, Call)
    assert node.position == 5
    assert [argument.position for argument in node.arguments] == [12, 16]


@pytest.mark.parametrize(("expression", "position"), [
    ("${now(0,0)", 10),        # no closing brace
    ("${now(0,0)}}", 11),      # one brace too many
    ("${now(0,0)} x", 12),     # text after the wrapped expression
    ("${'a}'", 6),             # the brace inside the string does not close the expression
    ("1 + ${2}", 4),           # ${ only at the very start
])
def test_wrapping_errors(expression: str, position: int) -> None:
    assert syntax_error(expression).position == position


def test_prefix_is_ignored() -> None:
    node = parse("coord:current(0)")
    assert isinstance(node, Call)
    assert (node.prefix, node.name, node.position) == ("coord", "current", 0)
    assert parse("${coord:today(1, 2)}") == Call("coord", "today", (Literal(1, 14), Literal(2, 17)), 2)
    for expression in ("coord:today(0,0)", "${coord:today(0,0)}", "falcon:today(0,0)"):
        assert render(evaluate(expression, CONTEXT)) == "2015-02-01T00:00Z"


def test_prefix_needs_a_function_name() -> None:
    assert syntax_error("coord:").position == 6
    assert syntax_error("coord:(1)").position == 6
    assert syntax_error("coord:now").position == 0  # a name that is not called: reported where the call starts


def test_node_positions() -> None:
    node = parse("now(-1, 'x') + 2")
    assert isinstance(node, Binary)
    assert (node.operator, node.position) == ("+", 13)
    assert isinstance(node.left, Call)
    assert node.left.arguments == (Literal(-1, 4), Literal("x", 8))
    assert node.right == Literal(2, 15)


def test_string_literals() -> None:
    assert parse(r"'a\'b'") == Literal("a'b", 0)
    assert parse(r'"a\"b"') == Literal('a"b', 0)
    assert parse("\"single ' inside\"") == Literal("single ' inside", 0)
    assert parse("'double \" inside'") == Literal('double " inside', 0)


# -- call errors ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("expression", "position"), [
    ("foo(1)", 0),
    ("  foo()", 2),
    ("1 + bogus(1)", 4),
    ("${coord:bogus()}", 2),
    ("now(0, nothing(1))", 7),
    ("current(0)", 0),       # Oozie's coord:current is not a Falcon EL function
])
def test_unknown_function(expression: str, position: int) -> None:
    error = evaluation_error(expression)
    assert error.position == position
    assert "unknown function" in error.message


@pytest.mark.parametrize(("expression", "position"), [
    ("now(1)", 0),
    ("today(0, 0, 0)", 0),
    ("  now(1,2,3)", 2),
    ("formatTime(instanceTime())", 0),
    ("user(1)", 0),
    ("instanceTime(1)", 0),
    ("currentWeek(0, 0)", 0),
    ("lastYear(0, 0, 0)", 0),
    ("latest()", 0),
    ("future(1)", 0),
    ("dateOffset(instanceTime(), 1)", 0),
    ("${now(0, today(1))}", 9),
    ("1 + now()", 4),
])
def test_wrong_number_of_arguments(expression: str, position: int) -> None:
    error = evaluation_error(expression)
    assert error.position == position
    assert "argument" in error.message


@pytest.mark.parametrize(("expression", "position"), [
    ("now('a', 0)", 4),
    ("today(0, 'x')", 9),
    ("currentWeek('XYZ', 0, 0)", 12),
    ("dateOffset(instanceTime(), 1, 'FORTNIGHT')", 30),
    ("dateOffset('2015-02-30T00:00Z', 1, 'DAY')", 11),
    ("formatTime('yesterday', 'yyyy')", 11),
    ("latest(1)", 7),
    ("future(-1, 3)", 7),
    ("future(1, -3)", 10),
    ("dataIn('clicks', '*')", 7),  # dataIn only exists while a process instance runs
])
def test_bad_arguments_point_at_the_argument(expression: str, position: int) -> None:
    assert evaluation_error(expression).position == position


# -- arithmetic -------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("expression", "expected"), [
    ("1 + 2", 3),
    ("7 - 10", -3),
    ("6 * 7", 42),
    ("7 / 2", 3.5),            # EL division is decimal
    ("8 / 2", 4.0),
    ("7 div 2", 3.5),
    ("7 % 3", 1),
    ("7 mod 3", 1),
    ("-7 % 3", -1),            # Java: the remainder has the sign of the dividend
    ("7 % -3", 1),
    ("-7 % -3", -1),
    ("-7 mod 3", -1),
    ("-7.5 % 2", -1.5),
    ("7.5 % 2", 1.5),
    ("-6 % 3", 0),
    ("2 + 3 * 4", 14),
    ("(2 + 3) * 4", 20),
    ("10 - 2 - 3", 5),         # left-associative
    ("12 / 2 / 3", 2.0),
    ("2 * 3 % 4", 2),
    ("-3", -3),
    ("-(3)", -3),
    ("--3", 3),
    ("-(-3)", 3),
    ("7 - -3", 10),
    ("+5", 5),
    ("-(2 + 3) * 2", -10),
    ("0.5 + 1", 1.5),
    (".5 * 4", 2.0),
    ("${60 * 24}", 1440),
])
def test_arithmetic(expression: str, expected: float) -> None:
    value = evaluate(expression, CONTEXT)
    assert value == expected
    assert type(value) is type(expected)


def test_rendering_numbers() -> None:
    assert render(evaluate("8 / 2", CONTEXT)) == "4"
    assert render(evaluate("7 / 2", CONTEXT)) == "3.5"
    assert render(evaluate("-7 % 3", CONTEXT)) == "-1"


def test_arithmetic_inside_calls() -> None:
    assert render(evaluate("now(24 * -1, 60 / 2)", CONTEXT)) == "2015-01-31T00:30Z"
    assert render(evaluate("now(3 / 2, 0)", CONTEXT)) == "2015-02-01T01:00Z"     # decimals truncate toward zero
    assert render(evaluate("now(-3 / 2, 0)", CONTEXT)) == "2015-01-31T23:00Z"
    assert render(evaluate("today(-(1), 7 % 5)", CONTEXT)) == "2015-01-31T23:02Z"


def test_duration_functions() -> None:
    assert evaluate("minutes(5)", CONTEXT) == 5 * 60_000
    assert evaluate("hours(2)", CONTEXT) == 2 * 3_600_000
    assert evaluate("days(1)", CONTEXT) == 86_400_000
    assert evaluate("months(1)", CONTEXT) == 31 * 86_400_000
    assert evaluate("years(1)", CONTEXT) == 366 * 86_400_000
    assert evaluate("hours(1) + minutes(30)", CONTEXT) == 5_400_000


@pytest.mark.parametrize(("expression", "position"), [
    ("1 / 0", 2),
    ("1 % 0", 2),
    ("1 mod 0", 2),
    ("now(0,0) + 1", 0),        # arithmetic needs numbers
    ("1 + 'a'", 4),
    ("-now(0,0)", 1),
    ("-instanceTime()", 1),
])
def test_arithmetic_errors(expression: str, position: int) -> None:
    assert evaluation_error(expression).position == position


# -- templates --------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "parts"), [
    ("", []),
    ("no expression", [TemplatePart("no expression", 0, False)]),
    ("a-${now(0,0)}-b", [TemplatePart("a-", 0, False), TemplatePart("${now(0,0)}", 2, True),
                         TemplatePart("-b", 13, False)]),
    ("${a()}${b()}", [TemplatePart("${a()}", 0, True), TemplatePart("${b()}", 6, True)]),
    ("/data/${YEAR}/x", [TemplatePart("/data/", 0, False), TemplatePart("${YEAR}", 6, True),
                         TemplatePart("/x", 13, False)]),
    ("x ${ unclosed", [TemplatePart("x ${ unclosed", 0, False)]),
    ("${a()} ${", [TemplatePart("${a()}", 0, True), TemplatePart(" ${", 6, False)]),
    ("$ {x}", [TemplatePart("$ {x}", 0, False)]),
    ("${formatTime(instanceTime(), '}')}/x", [TemplatePart("${formatTime(instanceTime(), '}')}", 0, True),
                                              TemplatePart("/x", 34, False)]),
    ('${formatTime(instanceTime(), "}")}', [TemplatePart('${formatTime(instanceTime(), "}")}', 0, True)]),
])
def test_split_template(text: str, parts: list[TemplatePart]) -> None:
    assert split_template(text) == parts


def test_split_template_parts_rebuild_the_text_and_parse() -> None:
    text = ("/feeds/${formatTime(instanceTime(), 'yyyy/MM')}"
            "/day=${formatTime(dateOffset(instanceTime(), 1, 'DAY'), 'dd')}")
    parts = split_template(text)
    assert "".join(part.text for part in parts) == text
    for part in parts:
        assert text[part.offset:part.offset + len(part.text)] == part.text
    rendered = "".join(render(evaluate(part.text, CONTEXT)) if part.is_expression else part.text for part in parts)
    assert rendered == "/feeds/2015/02/day=02"


def test_negate_node() -> None:
    node = parse("-now(0, 0)")
    assert isinstance(node, Unary)
    assert (node.operator, node.position) == ("-", 0)
    assert parse("-3") == Literal(-3, 0)  # a sign before a number is part of the literal


# -- one front end, two dialects --------------------------------------------------------------------------------------


@pytest.mark.parametrize(("inner", "position"), [
    ("1 == 1", 2),             # comparisons, logic and conditionals are Oozie's (JSP EL's) only
    ("1 ? 2 : 3", 2),
    ("not 1", 0),
    ("true", 0),               # so are literal words and variables
    ("x", 0),
    ("now(0,0).a", 8),         # and properties
    ("1e3", 1),                # and exponents
    ("$x", 0),
])
def test_falcon_is_a_restricted_dialect_of_the_workflow_grammar(inner: str, position: int) -> None:
    parse_template("${" + inner + "}")  # the whole grammar reads it

    assert syntax_error(inner).position == position


def test_both_dialects_read_strings_alike() -> None:
    assert parse(r"'a\'b\\c'") == Literal("a'b\\c", 0)
    assert parse_template(r"${'a\'b\\c'}").parts == (Literal("a'b\\c", 2),)
    assert syntax_error("'a\\").message == "unterminated string"  # a backslash at the very end escapes nothing
