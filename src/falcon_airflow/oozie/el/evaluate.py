"""Evaluation of Oozie EL with JSP EL's semantics, against a :class:`~falcon_airflow.oozie.el.context.WorkflowContext`.

* a text is evaluated part by part and joined (:func:`evaluate_text`); a text that is exactly one ``${...}``
  keeps the value's type with :func:`evaluate_value` (what a decision predicate needs: :func:`evaluate_predicate`);
* a variable is a workflow constant (``KB`` ... ``PB``), then the context's ``variables``, then its ``conf``; any
  other name is an error, as in Oozie ("variable [x] cannot be resolved");
* arithmetic works on longs unless an operand is a double (or a string with ``.``/``e``); ``/`` always divides
  doubles; a long result beyond a long's range is an error (Java would wrap it round silently); comparisons with
  null are false; ``==`` compares numbers as numbers, booleans as booleans, otherwise as strings; ``and``/``or``
  short-circuit; ``empty`` is true for null, "" and empty maps and lists.

Errors raise :class:`~falcon_airflow.errors.ELEvaluationError` with the offset of the failing node in the text.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from falcon_airflow.el.syntax import (
    LONG_MAX,
    LONG_MIN,
    Access,
    Binary,
    Call,
    Conditional,
    Expression,
    Literal,
    Template,
    Unary,
    Variable,
    parse_template,
)
from falcon_airflow.errors import ELEvaluationError, ELSyntaxError
from falcon_airflow.oozie.el.context import WorkflowContext
from falcon_airflow.oozie.el.functions import CONSTANTS, FUNCTIONS, ELFunction, FunctionError
from falcon_airflow.oozie.el.values import (
    CoercionError,
    Value,
    describe,
    is_decimal_operand,
    is_empty,
    to_boolean,
    to_number,
    to_text,
)

_MISSING = object()


def evaluate_text(text: str, context: WorkflowContext, *,
                  functions: Mapping[str, ELFunction] | None = None) -> str:
    """The text with every ``${...}`` replaced by its value as a string (null gives "")."""
    if "${" not in text:
        return text
    template = parse_template(text)
    evaluator = _Evaluator(template.source, context, functions)
    return "".join(part if isinstance(part, str) else to_text(evaluator.run(part)) for part in template.parts)


def evaluate_value(text: str, context: WorkflowContext, *,
                   functions: Mapping[str, ELFunction] | None = None) -> Value:
    """The value of a text: the typed result of a lone ``${...}``, else the evaluated string."""
    template = parse_template(text)
    if not template.is_single_expression:
        return evaluate_text(text, context, functions=functions)
    expression = template.parts[0]
    assert not isinstance(expression, str)
    return _Evaluator(template.source, context, functions).run(expression)


def evaluate_predicate(text: str, context: WorkflowContext, *,
                       functions: Mapping[str, ELFunction] | None = None) -> bool:
    """A decision ``<case>``: its value coerced to a boolean ("true" in any case is true, anything else false)."""
    value = evaluate_value(text.strip(), context, functions=functions)
    try:
        return to_boolean(value)
    except CoercionError as problem:
        raise ELEvaluationError(f"a decision needs true or false: {problem}", expression=text,
                                position=0) from None


def check_syntax(text: str) -> ELSyntaxError | None:
    """The syntax error of a text, or ``None`` when every ``${...}`` in it parses."""
    try:
        parse_template(text)
    except ELSyntaxError as problem:
        return problem
    return None


def template_of(text: str) -> Template:
    return parse_template(text)


class _Evaluator:
    def __init__(self, text: str, context: WorkflowContext, functions: Mapping[str, ELFunction] | None) -> None:
        self.text = text
        self.context = context
        self.functions = FUNCTIONS if functions is None else {**FUNCTIONS, **functions}

    def error(self, message: str, node: Expression) -> ELEvaluationError:
        return ELEvaluationError(message, expression=self.text, position=node.position)

    def run(self, node: Expression) -> Value:
        try:
            return self._run(node)
        except CoercionError as problem:
            raise self.error(str(problem), node) from None

    def _run(self, node: Expression) -> Value:
        if isinstance(node, Literal):
            return node.value
        if isinstance(node, Variable):
            return self.variable(node)
        if isinstance(node, Call):
            return self.call(node)
        if isinstance(node, Conditional):
            chosen = node.when_true if self.boolean(node.condition) else node.when_false
            return self.run(chosen)
        if isinstance(node, Unary):
            return self.unary(node)
        if isinstance(node, Access):
            return self.access(node)
        return self.binary(node)

    def boolean(self, node: Expression) -> bool:
        value = self.run(node)
        try:
            return to_boolean(value)
        except CoercionError as problem:
            raise self.error(str(problem), node) from None

    def variable(self, node: Variable) -> Value:
        if node.name in CONSTANTS:
            return CONSTANTS[node.name]
        value = self.context.variables.get(node.name, _MISSING)
        if value is _MISSING:
            value = self.context.conf.get(node.name, _MISSING)
        if value is _MISSING:
            raise self.error(f"variable [{node.name}] cannot be resolved", node)
        return value

    def call(self, node: Call) -> Value:
        function = self.functions.get(node.qualified_name)
        if function is None:
            raise self.error(f"unknown function '{node.qualified_name}'", node)
        if len(node.arguments) != len(function.parameters):
            raise self.error(f"{function.name} takes {len(function.parameters)} argument(s), as in "
                             f"{function.usage}, but got {len(node.arguments)}", node)
        arguments = [self.run(argument) for argument in node.arguments]
        try:
            return function.implementation(self.context, *function.coerce(arguments))
        except FunctionError as problem:
            at: Expression = node
            if problem.index is not None and problem.index < len(node.arguments):
                at = node.arguments[problem.index]
            raise self.error(f"{function.name}: {problem}", at) from None

    def unary(self, node: Unary) -> Value:
        if node.operator == "not":
            return not self.boolean(node.operand)
        value = self.run(node.operand)
        if node.operator == "empty":
            return is_empty(value)
        number = to_number(value)
        return self.long_in_range(-number, node)

    def long_in_range(self, number: int | float, node: Expression) -> int | float:
        if isinstance(number, int) and not LONG_MIN <= number <= LONG_MAX:
            raise self.error(f"arithmetic result out of range: it does not fit in a long ({LONG_MIN} to "
                             f"{LONG_MAX})", node)
        return number

    def access(self, node: Access) -> Value:
        target = self.run(node.target)
        key = self.run(node.key)
        if target is None:
            return None
        if isinstance(target, Mapping):
            return target.get(key if not isinstance(key, int | float) else to_text(key))
        if isinstance(target, Sequence) and not isinstance(target, str):
            try:
                index = int(to_number(key))
            except CoercionError:
                raise self.error(f"a list index must be a number, not {describe(key)}", node.key) from None
            return target[index] if 0 <= index < len(target) else None
        raise self.error(f"{describe(target)} has no property {describe(key)}", node)

    def binary(self, node: Binary) -> Value:
        operator = node.operator
        if operator == "and":
            return self.boolean(node.left) and self.boolean(node.right)
        if operator == "or":
            return self.boolean(node.left) or self.boolean(node.right)
        left, right = self.run(node.left), self.run(node.right)
        if operator in ("==", "!="):
            same = _equal(left, right)
            return same if operator == "==" else not same
        if operator in ("<", ">", "<=", ">="):
            return _compare(operator, left, right)
        return self.arithmetic(node, left, right)

    def arithmetic(self, node: Binary, left: Value, right: Value) -> Value:
        operator = node.operator
        if left is None and right is None:
            return 0
        if operator == "/":
            dividend, divisor = to_number(left, decimal=True), to_number(right, decimal=True)
            if divisor == 0:
                if dividend == 0 or math.isnan(dividend):
                    return math.nan
                return math.copysign(math.inf, dividend) * math.copysign(1.0, divisor)
            return dividend / divisor
        decimal = is_decimal_operand(left) or is_decimal_operand(right)
        a, b = to_number(left, decimal=decimal), to_number(right, decimal=decimal)
        if operator == "+":
            return self.long_in_range(a + b, node)
        if operator == "-":
            return self.long_in_range(a - b, node)
        if operator == "*":
            return self.long_in_range(a * b, node)
        # %: the sign follows the dividend, as in Java
        if b == 0:
            if decimal:
                return math.nan
            raise self.error("division by zero in '%'", node)
        result = math.fmod(a, b) if decimal else abs(a) % abs(b) * (1 if a >= 0 else -1)
        return result


def _equal(left: Value, right: Value) -> bool:
    if left is right or (left is None and right is None):
        return True
    if left is None or right is None:
        return False
    if isinstance(left, bool) or isinstance(right, bool):
        return to_boolean(left) == to_boolean(right)
    if isinstance(left, float) or isinstance(right, float):
        return to_number(left, decimal=True) == to_number(right, decimal=True)
    if isinstance(left, int) or isinstance(right, int):
        return to_number(left) == to_number(right)
    if isinstance(left, str) or isinstance(right, str):
        return to_text(left) == to_text(right)
    return left == right


def _compare(operator: str, left: Value, right: Value) -> bool:
    if left is None or right is None:
        return False
    if (isinstance(left, int | float) and not isinstance(left, bool)) or \
            (isinstance(right, int | float) and not isinstance(right, bool)):
        decimal = isinstance(left, float) or isinstance(right, float) or is_decimal_operand(left) \
            or is_decimal_operand(right)
        a, b = to_number(left, decimal=decimal), to_number(right, decimal=decimal)
    elif isinstance(left, str) and isinstance(right, str):
        a, b = left, right  # type: ignore[assignment]
    else:
        raise CoercionError(f"cannot compare {describe(left)} with {describe(right)}")
    if operator == "<":
        return a < b
    if operator == ">":
        return a > b
    if operator == "<=":
        return a <= b
    return a >= b
