"""Feed path templates: ``/data/clicks/${YEAR}/${MONTH}/${DAY}/${HOUR}`` to and from instance times.

A template holds literal text and the date variables YEAR (4 digits), MONTH, DAY, HOUR, MINUTE (2 digits each),
always read and written in the feed's time zone. Two directions:

* :meth:`PathTemplate.resolve` substitutes an instance time (zero-padded values);
* :meth:`PathTemplate.instance_time` reads an instance time back from a concrete path, as Falcon's retention did:
  variables left to right, the literal text between them must come next in the path, each value has exactly its
  width and must pass its value rule (HOUR 00-24 and MINUTE 00-60 accepted as Falcon did), variables the template
  lacks default to January / day 1 / 00:00, and trailing template text must follow (deeper partition folders may
  follow it). Any mismatch means the path is not an instance of this template: ``None``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta, tzinfo
from functools import cached_property

import pendulum

VARIABLES = ("YEAR", "MONTH", "DAY", "HOUR", "MINUTE")
_WIDTH = {"YEAR": 4, "MONTH": 2, "DAY": 2, "HOUR": 2, "MINUTE": 2}
_VALUE = {
    "YEAR": re.compile(r"\d{4}"),
    "MONTH": re.compile(r"0[1-9]|1[0-2]"),
    "DAY": re.compile(r"0[1-9]|[12]\d|3[01]"),
    "HOUR": re.compile(r"[01]\d|2[0-4]"),
    "MINUTE": re.compile(r"[0-5]\d|60"),
}
_VARIABLE = re.compile(r"\$\{(YEAR|MONTH|DAY|HOUR|MINUTE)\}")


def accepts_value(variable: str, text: str) -> bool:
    """Whether ``text`` is a value Falcon accepts for a path variable (``HOUR`` 24 and ``MINUTE`` 60 included)."""
    return len(text) == _WIDTH[variable] and bool(_VALUE[variable].fullmatch(text))


@dataclass(frozen=True)
class PathTemplate:
    """A path (or any text) with Falcon date variables."""

    template: str

    @cached_property
    def pieces(self) -> tuple[tuple[str, str | None], ...]:
        """(literal text before, variable or ``None`` for the trailing text) in order."""
        pieces: list[tuple[str, str | None]] = []
        position = 0
        for match in _VARIABLE.finditer(self.template):
            pieces.append((self.template[position:match.start()], match[1]))
            position = match.end()
        pieces.append((self.template[position:], None))
        return tuple(pieces)

    @property
    def variables(self) -> tuple[str, ...]:
        return tuple(variable for _, variable in self.pieces if variable is not None)

    @property
    def is_dated(self) -> bool:
        return bool(self.variables)

    @property
    def static_prefix(self) -> str:
        """The text before the first variable (the whole template when it has none)."""
        return self.pieces[0][0]

    @property
    def base_folder(self) -> str:
        """The deepest whole folder before the first variable: ``/data/in/${YEAR}`` and ``/data/in/x${YEAR}``
        both give ``/data/in``. Retention never removes this folder or anything above it."""
        prefix = self.static_prefix
        if not self.is_dated:
            return prefix.rstrip("/") or "/"
        cut = prefix.rfind("/")
        return prefix[:cut] if cut > 0 else "/"

    def resolve(self, instance: datetime, zone: tzinfo) -> str:
        """The template with every variable replaced by the instance's value in ``zone``."""
        local = pendulum.instance(instance).in_timezone(zone)  # type: ignore[arg-type]
        values = {"YEAR": f"{local.year:04d}", "MONTH": f"{local.month:02d}", "DAY": f"{local.day:02d}",
                  "HOUR": f"{local.hour:02d}", "MINUTE": f"{local.minute:02d}"}
        return _VARIABLE.sub(lambda match: values[match[1]], self.template)

    def glob(self) -> str:
        """A glob that matches every candidate instance path (each variable as its width of ``[0-9]``)."""
        escaped = [_glob_escape(text) + ("[0-9]" * _WIDTH[variable] if variable else "")
                   for text, variable in self.pieces]
        return "".join(escaped)

    def instance_time(self, path: str, zone: tzinfo) -> pendulum.DateTime | None:
        """The instance time a concrete path stands for, or ``None`` when the path does not fit the template."""
        values = {"YEAR": 1970, "MONTH": 1, "DAY": 1, "HOUR": 0, "MINUTE": 0}
        rest = path
        for literal, variable in self.pieces:
            if not rest.startswith(literal):
                return None
            rest = rest[len(literal):]
            if variable is None:
                break
            text = rest[:_WIDTH[variable]]
            if not accepts_value(variable, text):
                return None
            values[variable] = int(text)
            rest = rest[_WIDTH[variable]:]
        if "YEAR" not in self.variables:
            return None  # a path without a year names no instance
        # Wall-clock fields as Java's lenient calendar sets them: day 31 of a 30-day month, hour 24 and minute 60
        # roll over; the local time is then placed in the zone (so 04:00 on a fall-back day is 04:00 local).
        wall = datetime(values["YEAR"], values["MONTH"], 1) + timedelta(
            days=values["DAY"] - 1, hours=values["HOUR"], minutes=values["MINUTE"])
        return pendulum.instance(wall, tz=zone)

    def matches_exactly(self, path: str, zone: tzinfo) -> pendulum.DateTime | None:
        """Like :meth:`instance_time`, but the path must be the whole instance (nothing after the template)."""
        moment = self.instance_time(path, zone)
        if moment is None:
            return None
        return moment if self.resolve(moment, zone) == path else None


def _glob_escape(text: str) -> str:
    return re.sub(r"([*?\[\]])", r"[\1]", text)


def join_storage(base: str | None, path: str) -> str:
    """A feed path on a cluster: relative to the cluster's storage (its write endpoint) unless it has a scheme.

    ``file:///srv/data`` + ``/in/2024`` gives ``file:///srv/data/in/2024``, as Falcon prefixed the name node.
    """
    if re.match(r"^[A-Za-z][A-Za-z0-9+.\-]*://", path) or not base:
        return path
    return base.rstrip("/") + "/" + path.lstrip("/")
