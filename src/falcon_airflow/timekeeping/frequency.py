"""Falcon frequencies: ``minutes(N)``, ``hours(N)``, ``days(N)``, ``months(N)`` with N >= 1.

Two arithmetics, as in Falcon:

* stepping through instances uses the calendar in the entity's time zone (``months(1)`` from Jan 31 gives the end
  of February; ``days(1)`` keeps the wall-clock time across a DST change) — :meth:`Frequency.step`;
* comparing durations (retention against late-arrival cut-off, SLA against retention) uses fixed lengths with a
  month counted as 31 days — :attr:`Frequency.millis`.

N is at most 2147483647: Falcon reads it as a Java ``int``, and a longer count is refused by its digits before
Python converts it (so a 5,000-digit count is a clear error, not Python's integer-conversion limit).
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any

import pendulum
from pydantic import BaseModel, ConfigDict, Field, model_serializer, model_validator

from falcon_airflow.errors import FrequencyError

_MILLIS_PER_MINUTE = 60_000


class TimeUnit(StrEnum):
    MINUTES = "minutes"
    HOURS = "hours"
    DAYS = "days"
    MONTHS = "months"

    @property
    def millis(self) -> int:
        """Fixed length used for comparisons; a month is 31 days, as Falcon counts it."""
        return _UNIT_MINUTES[self] * _MILLIS_PER_MINUTE


_UNIT_MINUTES = {TimeUnit.MINUTES: 1, TimeUnit.HOURS: 60, TimeUnit.DAYS: 1440, TimeUnit.MONTHS: 31 * 1440}
_FREQUENCY = re.compile(r"(minutes|hours|days|months)\(([1-9]\d*)\)")
MAX_COUNT = 2**31 - 1


def _count(text: str, digits: str) -> int:
    if len(digits) > len(str(MAX_COUNT)) or int(digits) > MAX_COUNT:
        shown = text if len(text) <= 40 else text[:37] + "..."
        raise FrequencyError(f"'{shown}' is not a frequency: N is at most {MAX_COUNT} (Falcon reads it as an int)")
    return int(digits)


_PARSED: dict[str, Frequency] = {}
_PARSED_LIMIT = 4096


class Frequency(BaseModel):
    """A Falcon frequency; serialises to and from its text form (``hours(1)``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    unit: TimeUnit
    count: int = Field(ge=1, le=MAX_COUNT)

    @classmethod
    def parse(cls, text: str) -> Frequency:
        shared = cls is Frequency and isinstance(text, str)
        known = _PARSED.get(text) if shared else None
        if known is not None:  # frozen, so one instance serves every entity that spells it the same way
            return known
        match = _FREQUENCY.fullmatch(text.strip()) if isinstance(text, str) else None
        if match is None:
            raise FrequencyError(
                f"'{text}' is not a frequency; expected minutes(N), hours(N), days(N) or months(N) with N >= 1"
            )
        parsed = cls(unit=TimeUnit(match[1]), count=_count(text, match[2]))
        if shared and len(_PARSED) < _PARSED_LIMIT:
            _PARSED[text] = parsed
        return parsed

    @model_validator(mode="before")
    @classmethod
    def _from_text(cls, value: Any) -> Any:
        if isinstance(value, str):
            match = _FREQUENCY.fullmatch(value.strip())
            if match is None:
                raise ValueError(f"'{value}' is not a frequency such as hours(1)")
            try:
                return {"unit": match[1], "count": _count(value, match[2])}
            except FrequencyError as problem:
                raise ValueError(problem.message) from None
        return value

    @model_serializer
    def _to_text(self) -> str:
        return str(self)

    def __str__(self) -> str:
        return f"{self.unit.value}({self.count})"

    @property
    def millis(self) -> int:
        """Length in milliseconds with Falcon's fixed factors (month = 31 days)."""
        return self.count * self.unit.millis

    @property
    def minutes(self) -> int:
        return self.millis // _MILLIS_PER_MINUTE

    def as_timedelta(self) -> timedelta:
        """Fixed-length equivalent (month = 31 days); for comparisons only, never for stepping."""
        return timedelta(milliseconds=self.millis)

    def step(self, moment: datetime, times: int = 1) -> pendulum.DateTime:
        """``moment`` advanced by ``times`` frequencies on the calendar of ``moment``'s own time zone."""
        start = moment if isinstance(moment, pendulum.DateTime) else pendulum.instance(moment)
        amount = self.count * times
        if self.unit is TimeUnit.MINUTES:
            return start.add(minutes=amount)
        if self.unit is TimeUnit.HOURS:
            return start.add(hours=amount)
        if self.unit is TimeUnit.DAYS:
            return start.add(days=amount)
        return start.add(months=amount)
