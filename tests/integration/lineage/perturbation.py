"""What the perturbation oracles change and how they read a DDL schema: shared by the oracle test
(``test_oracle.py``) and the comparison with openlineage-spark (``benchmarks/lineage_vs_openlineage_spark.py``)."""

from __future__ import annotations

from typing import Any


def perturb_value(value: Any) -> Any:
    """A different value of the same type, not order-preserving (so sorts, ranks and joins notice); a string of
    digits stays one (a CSV column a job casts to a number)."""
    if value is None:
        return None
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return (value * 7 + 3) % 101
    if isinstance(value, str):
        return str(int(value) * 3 + 7) if value.isdigit() else value[::-1] + "~"
    if isinstance(value, list):
        return [perturb_value(item) for item in value] + ["zz"]
    if isinstance(value, tuple):
        return tuple(perturb_value(item) for item in value)
    raise TypeError(f"cannot perturb {value!r}")


def column_types(schema: str) -> list[tuple[str, str]]:
    """(name, type) of each top-level column of a DDL string; commas inside ``<...>`` do not split."""
    parts, depth, current = [], 0, ""
    for char in schema:
        depth += {"<": 1, ">": -1}.get(char, 0)
        if char == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += char
    return [(name, kind) for name, _, kind in (part.strip().partition(" ") for part in [*parts, current])]


def column_names(schema: str) -> list[str]:
    return [name for name, _ in column_types(schema)]
