"""Operator arguments as Airflow's dag-processor can send them."""

from __future__ import annotations

from typing import Any


def plain(value: Any) -> Any:
    """``value`` with every text a plain ``str``: the compiler marks template text with a ``str`` subclass
    (``JinjaText``), and Airflow's dag-processor sends each parsed DAG to its manager as msgpack, which refuses any
    ``str`` subclass (every DAG of the file would be lost)."""
    if isinstance(value, str):
        return str(value)
    if isinstance(value, dict):
        return {plain(key): plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(plain(item) for item in value)
    return value
