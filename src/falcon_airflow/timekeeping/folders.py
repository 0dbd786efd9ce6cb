"""How much time one folder of a location template names, and whether it can hold more than one instance.

A template names one folder per its finest time variable taken from ``${YEAR}`` down without a gap
(``/d/${YEAR}/${MONTH}`` one per month; ``${YEAR}/${HOUR}`` one per year, its hours recurring). A feed whose
instances come more often than that shares each folder among several instances: validation warns (FA055), output
clean-up leaves such a folder alone, and retention keeps it until its last instance expires.
"""

from __future__ import annotations

import re

from falcon_airflow.timekeeping.frequency import Frequency, TimeUnit

_VARIABLE = re.compile(r"\$\{(YEAR|MONTH|DAY|HOUR|MINUTE)\}")
_UNITS = ("YEAR", "MONTH", "DAY", "HOUR", "MINUTE")
_LONGEST_MINUTES = {"HOUR": 60, "DAY": 24 * 60, "MONTH": 31 * 24 * 60, "YEAR": 366 * 24 * 60}


def folder_unit(template: str) -> str | None:
    """The span one folder of a template names: its variables from YEAR down without a gap (``${YEAR}/${HOUR}``
    names one folder per year); ``None`` without ``${YEAR}`` (no instance at all)."""
    found = set(_VARIABLE.findall(template))
    unit = None
    for variable in _UNITS:
        if variable not in found:
            break
        unit = variable
    return unit


def unit_holds_several(unit: str, frequency: Frequency) -> bool:
    """Whether a folder per ``unit`` can hold two instances ``frequency`` apart (days and months on the
    calendar, as instances step)."""
    if unit == "MINUTE":
        return False
    if frequency.unit in (TimeUnit.MINUTES, TimeUnit.HOURS):
        return frequency.minutes < _LONGEST_MINUTES[unit]
    if frequency.unit is TimeUnit.DAYS:
        return unit in ("MONTH", "YEAR") and frequency.count < {"MONTH": 31, "YEAR": 366}[unit]
    return unit == "YEAR" and frequency.count < 12


def holds_several_instances(template: str, frequency: Frequency) -> bool:
    """Whether a folder of ``template`` can hold more than one instance of a feed with this frequency."""
    unit = folder_unit(template)
    return unit is not None and unit_holds_several(unit, frequency)
