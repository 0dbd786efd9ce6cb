"""Evaluation of parsed EL against an :class:`~falcon_airflow.el.context.ELContext`.

Arithmetic stays within Java's ranges, as EL's own did: a result beyond a ``long`` or a ``double`` is an
:class:`~falcon_airflow.errors.ELEvaluationError` at its operator, never a number Python alone could hold (which
would fail later, far from the expression, as an OverflowError in date arithmetic).
"""

from __future__ import annotations

import math
from datetime import datetime

import pendulum

from falcon_airflow.el.context import ELContext
from falcon_airflow.el.functions import FUNCTIONS, ArgumentError, Value
from falcon_airflow.el.syntax import LONG_MAX, LONG_MIN, Binary, Call, Expression, Literal, Unary, parse
from falcon_airflow.errors import ELEvaluationError
from falcon_airflow.timekeeping import format_falcon_date


def evaluate(expression: str | Expression, context: ELContext, *, source: str | None = None) -> Value:
    """Evaluate an expression (text or an already parsed node); errors carry the character position."""
    text = expression if isinstance(expression, str) else (source or "")
    node = parse(expression) if isinstance(expression, str) else expression
    return _Evaluator(text, context).run(node)


def resolve_time(expression: str, context: ELContext) -> pendulum.DateTime | None:
    """Evaluate an expression that must name a time; ``None`` when it resolves to no instance (dataset context)."""
    value = evaluate(expression, context)
    if value is None or isinstance(value, pendulum.DateTime):
        return value
    raise ELEvaluationError(f"expression gives {value!r}, not a time", expression=expression, position=0)


def reference_time(expression: str, at: datetime) -> pendulum.DateTime:
    """Falcon's server-side evaluation: reference time ``at`` in UTC, no snapping, latest()/future() give ``at``."""
    value = resolve_time(expression, ELContext(instance_time=at))
    assert value is not None  # only dataset context yields no time
    return value


def render(value: Value) -> str:
    """Text form of a result: times as Falcon dates (UTC), nothing as an empty string."""
    if value is None:
        return ""
    if isinstance(value, pendulum.DateTime | datetime):
        return format_falcon_date(value)
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


class _Evaluator:
    def __init__(self, text: str, context: ELContext) -> None:
        self.text = text
        self.context = context

    def error(self, message: str, position: int) -> ELEvaluationError:
        return ELEvaluationError(message, expression=self.text, position=position)

    def run(self, node: Expression) -> Value:
        if isinstance(node, Literal):
            return node.value
        if isinstance(node, Unary):  # Falcon's only unary operator is the minus sign
            return self.in_range(-self.number(node.operand), node.position)
        if isinstance(node, Binary):
            return self.in_range(self.binary(node), node.position)
        if isinstance(node, Call):
            return self.call(node)
        # variables, conditionals and properties are not Falcon's EL: its parser never makes them
        raise self.error("not an expression of Falcon's EL", node.position)

    def in_range(self, value: int | float, position: int) -> int | float:
        if isinstance(value, float):
            if not math.isfinite(value):
                raise self.error("arithmetic result out of range: it does not fit in a double", position)
        elif not LONG_MIN <= value <= LONG_MAX:
            raise self.error(f"arithmetic result out of range: it does not fit in a long ({LONG_MIN} to "
                             f"{LONG_MAX})", position)
        return value

    def number(self, node: Expression) -> int | float:
        value = self.run(node)
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self.error(f"arithmetic needs numbers, not {value!r}", _position(node))
        return value

    def binary(self, node: Binary) -> int | float:
        left, right = self.number(node.left), self.number(node.right)
        if node.operator == "+":
            return left + right
        if node.operator == "-":
            return left - right
        if node.operator == "*":
            return left * right
        if right == 0:
            raise self.error("division by zero", node.position)
        if node.operator == "/":
            return left / right  # EL division is always decimal
        return _java_remainder(left, right)

    def call(self, node: Call) -> Value:
        signature = FUNCTIONS.get(node.name)
        if signature is None:
            known = ", ".join(sorted(FUNCTIONS))
            raise self.error(f"unknown function '{node.name}' (known: {known})", node.position)
        count = len(node.arguments)
        if not signature.min_args <= count <= signature.max_args:
            wanted = str(signature.min_args) if signature.min_args == signature.max_args else \
                f"{signature.min_args} to {signature.max_args}"
            raise self.error(f"{node.name} takes {wanted} argument(s), as in {signature.usage}, but got {count}",
                             node.position)
        arguments = [self.run(argument) for argument in node.arguments]
        try:
            return signature.implementation(self.context, arguments)
        except ArgumentError as error:
            position = _position(node.arguments[error.index]) if error.index < count else node.position
            raise self.error(f"{node.name}: {error}", position) from None


def _position(node: Expression) -> int:
    return node.position


def _java_remainder(left: int | float, right: int | float) -> int | float:
    """Remainder with the sign of the dividend, as in Java and EL."""
    result = abs(left) % abs(right)
    return -result if left < 0 else result
