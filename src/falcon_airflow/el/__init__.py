"""Falcon's expression language: parse, evaluate in action or dataset context, render.

Typical uses::

    reference_time("now(0,-60)", at)                      # Falcon's server-side check, UTC, no snapping
    resolve_time("today(0,0)", ELContext(t, zone, grid))  # a feed instance named by a process input
"""

from __future__ import annotations

from falcon_airflow.el.context import Availability, ELContext
from falcon_airflow.el.evaluate import evaluate, reference_time, render, resolve_time
from falcon_airflow.el.functions import DATE_FUNCTIONS, FUNCTIONS
from falcon_airflow.el.syntax import Call, Expression, parse, split_template

__all__ = [
    "DATE_FUNCTIONS",
    "FUNCTIONS",
    "Availability",
    "Call",
    "ELContext",
    "Expression",
    "evaluate",
    "parse",
    "reference_time",
    "render",
    "resolve_time",
    "split_template",
]
