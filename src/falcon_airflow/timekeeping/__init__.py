"""Time as Falcon means it: frequencies, UTC date strings and Java-compatible time-zone IDs.

Shared by the entity models and the EL evaluator; depends on nothing else in the project but errors.
"""

from __future__ import annotations

from falcon_airflow.timekeeping.dates import format_falcon_date, parse_falcon_date
from falcon_airflow.timekeeping.frequency import Frequency, TimeUnit
from falcon_airflow.timekeeping.zones import ResolvedZone, resolve_zone

__all__ = [
    "Frequency",
    "ResolvedZone",
    "TimeUnit",
    "format_falcon_date",
    "parse_falcon_date",
    "resolve_zone",
]
