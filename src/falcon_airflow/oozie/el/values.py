"""JSP EL's type coercions, as Oozie's evaluator applies them, and Java's text forms of values.

Values are Python ``None`` (EL's null), ``bool``, ``int`` (Java long), ``float`` (Java double), ``str`` and
mappings/sequences (``wf:actionData`` gives a map). Coercion failures raise :class:`CoercionError`; the evaluator
turns them into errors that point at the expression.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from decimal import Decimal

Value = object

_INTEGER_TEXT = re.compile(r"^[+-]?\d+$")
_LONG_MIN, _LONG_MAX = -(2**63), 2**63 - 1
_MAX_LONG_DIGITS = len(str(_LONG_MAX))


class CoercionError(ValueError):
    """A value that JSP EL cannot turn into the type an operator or function wants."""


def java_double(value: float) -> str:
    """Java's ``Double.toString``: ``1.0``, ``2.5``, ``1.0E10``, ``1.0E-5``, ``NaN``, ``Infinity``."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0:
        return "-0.0" if math.copysign(1.0, value) < 0 else "0.0"
    exact = Decimal(repr(value)).normalize()  # the shortest digits that give the value back, as Java prints
    if 1e-3 <= abs(value) < 1e7:
        text = format(exact, "f")
        return text if "." in text else text + ".0"
    negative, digits, exponent = exact.as_tuple()
    assert isinstance(exponent, int)
    shown = "".join(str(digit) for digit in digits)
    mantissa = shown[0] + "." + (shown[1:] or "0")
    return f"{'-' if negative else ''}{mantissa}E{len(shown) + exponent - 1}"


def to_text(value: Value) -> str:
    """EL's coercion to String: null is empty, numbers and booleans as Java prints them."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return java_double(value)
    if isinstance(value, int | str):
        return str(value)
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{to_text(k)}={to_text(v)}" for k, v in value.items()) + "}"
    if isinstance(value, Sequence):
        return "[" + ", ".join(to_text(item) for item in value) + "]"
    return str(value)


def to_boolean(value: Value) -> bool:
    """EL's coercion to Boolean: null and "" are false, a string is true only when it is "true" (any case)."""
    if value is None:
        return False
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        return value.strip().lower() == "true" if value else False
    raise CoercionError(f"{describe(value)} is not a boolean")


def is_decimal_text(value: str) -> bool:
    return any(char in value for char in ".eE")


def to_number(value: Value, *, decimal: bool = False) -> int | float:
    """EL's coercion to a number: null is 0, a string is parsed (as a long, or a double when it has . e E)."""
    if value is None:
        return 0.0 if decimal else 0
    if isinstance(value, bool):
        raise CoercionError(f"{describe(value)} is not a number")
    if isinstance(value, int | float):
        return float(value) if decimal else value
    if isinstance(value, str):
        text = value.strip()
        if not text:
            return 0.0 if decimal else 0
        try:
            if decimal or is_decimal_text(text):
                return float(text)
            # Java's Long.valueOf refuses what a long cannot hold; checked on the digits first, as int() of a
            # text of thousands of digits is slow (and refused past 4300)
            if _INTEGER_TEXT.match(text) and len(text.lstrip("+-").lstrip("0")) <= _MAX_LONG_DIGITS \
                    and _LONG_MIN <= int(text) <= _LONG_MAX:
                return int(text)
        except ValueError:
            pass
        raise CoercionError(f"{describe(value)} is not a number")
    raise CoercionError(f"{describe(value)} is not a number")


def to_integer(value: Value) -> int:
    number = to_number(value)
    if isinstance(number, float):
        if not number.is_integer():
            raise CoercionError(f"{describe(value)} is not a whole number")
        return int(number)
    return number


def is_decimal_operand(value: Value) -> bool:
    """Whether arithmetic on this operand is done in doubles (a double, or a string with . e E)."""
    return isinstance(value, float) or (isinstance(value, str) and is_decimal_text(value))


def is_empty(value: Value) -> bool:
    if value is None:
        return True
    if isinstance(value, str | Mapping | list | tuple | set | frozenset):
        return len(value) == 0
    return False


def describe(value: Value) -> str:
    if value is None:
        return "null"
    if isinstance(value, str):
        return f"'{value}'"
    return to_text(value)
