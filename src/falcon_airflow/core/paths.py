"""Feed path templates: ``/data/clicks/${YEAR}/${MONTH}/${DAY}/${HOUR}`` to and from instance times.

A template holds literal text and the date variables YEAR (4 digits), MONTH, DAY, HOUR, MINUTE (2 digits each),
always read and written in the feed's time zone (Falcon's ``FeedDataPath`` and ``FeedHelper.getDate``):

* :meth:`Template.resolve` substitutes an instance time (zero-padded values);
* :meth:`Template.instance_time` reads an instance time back from a concrete path: variables left to right, the
  literal text between them must come next in the path, each value has exactly its width and must pass its value
  rule (HOUR 00-24 and MINUTE 00-60 accepted as Falcon did, rolling over like Java's lenient calendar), variables
  the template lacks default to January / day 1 / 00:00, and trailing template text must follow (deeper folders
  may follow it). Any mismatch means the path is not an instance of this template: ``None``;
* :meth:`Template.glob` is Falcon's glob of every candidate instance (each variable ``*``), for Hadoop.

Path text is read the way storage reads it before anything is proved about it (:func:`read_path`): a URI path is
percent-decoded once by every client (Python's, Hadoop's ``Path``), so ``%2e%2e`` is ``..`` to the file system
while the raw text shows none. A text that a further decoding (``%252e``) or a ``\\`` taken for a separator would
read as other folders is ambiguous, and one that climbs with ``..`` in any reading is unsafe: both are refused
wherever something is deleted, and rule FA010 refuses them in a feed's location.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, tzinfo
from functools import cached_property
from urllib.parse import unquote

from falcon_airflow.core.errors import RuleError

VARIABLES = ("YEAR", "MONTH", "DAY", "HOUR", "MINUTE")
WIDTH = {"YEAR": 4, "MONTH": 2, "DAY": 2, "HOUR": 2, "MINUTE": 2}
_VALUE = {
    "YEAR": re.compile(r"\d{4}"),
    "MONTH": re.compile(r"0[1-9]|1[0-2]"),
    "DAY": re.compile(r"0[1-9]|[12]\d|3[01]"),
    "HOUR": re.compile(r"[01]\d|2[0-4]"),  # 24 accepted, as Falcon did
    "MINUTE": re.compile(r"[0-5]\d|60"),  # 60 accepted, as Falcon did
}
_VARIABLE = re.compile(r"\$\{(YEAR|MONTH|DAY|HOUR|MINUTE)\}")
_ANY_SPELLING = re.compile(r"[$?]\{(YEAR|MONTH|DAY|HOUR|MINUTE)\}")
_ANY_EXPRESSION = re.compile(r"[$?]\{[^}]*\}?")
_GLOB_SPECIAL = re.compile(r"([\\*?\[\]{}])")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*://")


DECODE_ROUNDS = 8
"""How many percent-decodings a path may need before it reads the same again (``%25`` nested this deep is an
attack, not a folder name)."""


class UnsafePathError(RuleError):
    """A path that cannot be trusted to name one folder: it climbs with ``..`` or reads as other folders."""


@dataclass(frozen=True)
class PathReading:
    """Path text as storage reads it: ``components`` after one percent-decoding, without empty and ``.`` ones
    (``/a//b/./c`` is ``a, b, c``); ``problem`` says why the text is unsafe or ambiguous, ``dotted`` whether any
    reading of it has a ``.`` or ``..`` component."""

    components: tuple[str, ...]
    problem: str | None
    dotted: bool

    @property
    def path(self) -> str:
        """The one spelling of the path: ``/`` and the components."""
        return "/" + "/".join(self.components)

    def checked(self, text: str) -> tuple[str, ...]:
        """The components, or :class:`UnsafePathError` naming ``text`` and its problem."""
        if self.problem is not None:
            raise UnsafePathError(f"'{text}' {self.problem}")
        return self.components


def decodings(text: str) -> list[str]:
    """``text`` and each further percent-decoding of it, until one changes nothing (``%252e`` gives ``%2e``, then
    ``.``); :class:`UnsafePathError` when that takes more than :data:`DECODE_ROUNDS` decodings."""
    forms = [text]
    while True:
        decoded = unquote(forms[-1])
        if decoded == forms[-1]:
            return forms
        if len(forms) > DECODE_ROUNDS:
            raise UnsafePathError(f"'{text}' is percent-encoded more than {DECODE_ROUNDS} times over")
        forms.append(decoded)


def _parts(text: str, *, backslash: bool) -> list[str]:
    return (text.replace("\\", "/") if backslash else text).split("/")


_CLIMBS = "has a '..' component in one of its readings (percent-decoded, or with '\\' as a separator)"


def read_path(text: str) -> PathReading:
    """How storage reads a path (the path part of a URI, or a plain path); see :class:`PathReading`.

    Every reading counts: the raw text, each percent-decoding, each with ``\\`` as a separator too. A ``..`` in
    any of them is a problem (never resolved: a path that climbs is not proved to stay anywhere), and so is a
    further decoding or a ``\\`` that gives other components than storage's one decoding: the text names one
    folder to a check and another to the next reader.
    """
    if "%" not in text and "\\" not in text:
        # Nothing to decode and no other separator: the one reading below, read once (most locations).
        parts = text.split("/")
        climbs = ".." in parts
        return PathReading(tuple(part for part in parts if part not in ("", ".")), _CLIMBS if climbs else None,
                           climbs or "." in parts)
    try:
        forms = decodings(text)
    except UnsafePathError:
        return PathReading((), f"is percent-encoded more than {DECODE_ROUNDS} times over", False)
    once = forms[1] if len(forms) > 1 else forms[0]
    components = tuple(part for part in once.split("/") if part not in ("", "."))
    readings = [_parts(form, backslash=backslash) for form in forms for backslash in (False, True)]
    dotted = any(part in (".", "..") for reading in readings for part in reading)
    problem = None
    if any(".." in reading for reading in readings):
        problem = _CLIMBS
    else:
        fullest = tuple(part for part in _parts(forms[-1], backslash=True) if part not in ("", "."))
        if fullest != components:
            problem = ("reads as other folders once decoded again or with '\\' as a separator "
                       f"('{'/'.join(components)}' or '{'/'.join(fullest)}')")
    return PathReading(components, problem, dotted)


def resolve_dots(segments: Iterable[str]) -> list[str]:
    """Path segments with empty ones and ``.`` dropped and ``..`` resolved lexically, never above the root."""
    parts: list[str] = []
    for part in segments:
        if part in ("", "."):
            continue
        if part == "..":
            if parts:
                parts.pop()
            continue
        parts.append(part)
    return parts


def lexical_components(text: str) -> tuple[str, ...]:
    """The folders a path can reach under any reading: fully percent-decoded, ``\\`` as a separator, ``.`` dropped
    and ``..`` resolved lexically (never above the root). For comparing locations, never for deleting."""
    try:
        fullest = decodings(text)[-1]
    except UnsafePathError:
        fullest = text
    return tuple(resolve_dots(_parts(fullest, backslash=True)))


def glob_escape(text: str) -> str:
    """Literal text inside a Hadoop glob (``*?[]{}\\`` escaped with a backslash)."""
    return _GLOB_SPECIAL.sub(r"\\\1", text)


def accepts_value(variable: str, text: str) -> bool:
    """Whether ``text`` is a value Falcon reads for ``variable`` (exact width, HOUR 00-24, MINUTE 00-60)."""
    return len(text) == WIDTH[variable] and bool(_VALUE[variable].fullmatch(text))


def has_variable(text: str) -> bool:
    return _VARIABLE.search(text) is not None


def wall_clock(values: dict[str, int]) -> datetime:
    """Naive wall-clock time of variable values, set the way Java's lenient calendar did: day 31 of a 30-day
    month, hour 24 and minute 60 roll over; missing variables are January, day 1, 00:00."""
    full = {"MONTH": 1, "DAY": 1, "HOUR": 0, "MINUTE": 0, **values}
    return datetime(full["YEAR"], full["MONTH"], 1) + timedelta(
        days=full["DAY"] - 1, hours=full["HOUR"], minutes=full["MINUTE"])


@dataclass(frozen=True)
class Template:
    """A feed path template (the path part of a location URI, or any text) with Falcon date variables."""

    text: str

    @staticmethod
    def parse(text: str) -> Template:
        """Check the variables (``${X}`` or Falcon's Oozie-escaped ``?{X}``) and normalise them to ``${X}``."""
        for expression in _ANY_EXPRESSION.findall(text):
            if not _ANY_SPELLING.fullmatch(expression):
                raise RuleError(f"{expression!r} in {text!r} is not a path variable "
                                f"(use ${{YEAR}}, ${{MONTH}}, ${{DAY}}, ${{HOUR}}, ${{MINUTE}})")
        return Template(_ANY_SPELLING.sub(lambda match: "${" + match[1] + "}", text))

    @cached_property
    def pieces(self) -> tuple[tuple[str, str | None], ...]:
        """(literal text, variable after it) in order; the last piece is (trailing text, ``None``)."""
        pieces: list[tuple[str, str | None]] = []
        position = 0
        for match in _VARIABLE.finditer(self.text):
            pieces.append((self.text[position:match.start()], match[1]))
            position = match.end()
        pieces.append((self.text[position:], None))
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
        """The deepest whole folder before the first variable (``/data/in/x${YEAR}`` → ``/data/in``).

        Retention never removes it or anything above it. A static template is its own base.
        """
        prefix = self.static_prefix
        if not self.is_dated:
            return prefix.rstrip("/") or "/"
        cut = prefix.rfind("/")
        return prefix[:cut] if cut > 0 else "/"

    def glob(self) -> str:
        """Falcon's glob: every variable becomes ``*``; glob characters in the literal text are escaped."""
        return "".join(glob_escape(text) + ("*" if variable else "") for text, variable in self.pieces)

    def resolve(self, moment: datetime, zone: tzinfo) -> str:
        """The template with each variable replaced by the zero-padded value of ``moment`` in ``zone`` (a naive
        ``moment`` is UTC)."""
        local = (moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)).astimezone(zone)
        values = {"YEAR": f"{local.year:04d}", "MONTH": f"{local.month:02d}", "DAY": f"{local.day:02d}",
                  "HOUR": f"{local.hour:02d}", "MINUTE": f"{local.minute:02d}"}
        return _VARIABLE.sub(lambda match: values[match[1]], self.text)

    def read_values(self, path: str) -> dict[str, int] | None:
        """The variable values a path holds, or ``None`` if it does not fit (Falcon's ``getDate`` walk).

        The literal text between variables must come next in the path, each value has exactly its width and passes
        its value rule, and the trailing template text must follow (deeper folders may come after it). A variable
        repeated with two different values makes the path unreadable (Falcon silently kept the last one; leaving
        such a path alone is the safe reading).
        """
        values: dict[str, int] = {}
        rest = path
        for literal, variable in self.pieces:
            if not rest.startswith(literal):
                return None
            rest = rest[len(literal):]
            if variable is None:
                # Deeper folders may follow the template (Falcon's P7 case), but not more text in the same
                # component: `/d/${DAY}` does not read `/d/01.bak` as day 01 (Falcon did; deleting it is unsafe).
                if rest and not rest.startswith("/") and not literal.endswith("/"):
                    return None
                break
            text = rest[:WIDTH[variable]]
            if not accepts_value(variable, text):
                return None
            if values.setdefault(variable, int(text)) != int(text):
                return None
            rest = rest[WIDTH[variable]:]
        return values

    def instance_time(self, path: str, zone: tzinfo) -> datetime | None:
        """The instance time ``path`` stands for in ``zone`` (aware), or ``None`` when it is not an instance; a
        template without ``${YEAR}`` names no instance."""
        values = self.read_values(path)
        if values is None or "YEAR" not in values:
            return None
        return wall_clock(values).replace(tzinfo=zone)

    def matches_exactly(self, path: str, zone: tzinfo) -> datetime | None:
        """Like :meth:`instance_time`, but the path must be the whole instance (nothing after the template)."""
        moment = self.instance_time(path, zone)
        if moment is None:
            return None
        return moment if self.resolve(moment, zone) == path else None

    def span_end(self, path: str, zone: tzinfo) -> datetime | None:
        """For a path matching this (prefix) template: the end of the time range every instance below it lies in.

        Defined only when the template's variables are a leading run of YEAR, MONTH, DAY, HOUR, MINUTE (so that
        the folder bounds its instances); ``None`` otherwise or when the path does not fit.
        """
        values = self.read_values(path)
        if values is None:
            return None
        run = [variable for variable in VARIABLES if variable in values]
        if not run or tuple(run) != VARIABLES[:len(run)]:
            return None
        finest = run[-1]
        full = {"MONTH": 1, "DAY": 1, "HOUR": 0, "MINUTE": 0, **values}
        if finest == "YEAR":
            full["YEAR"] += 1
        elif finest == "MONTH":
            full["YEAR"] += full["MONTH"] // 12
            full["MONTH"] = full["MONTH"] % 12 + 1
        else:
            step = {"DAY": timedelta(days=1), "HOUR": timedelta(hours=1), "MINUTE": timedelta(minutes=1)}[finest]
            return (wall_clock(full) + step).replace(tzinfo=zone)
        return wall_clock(full).replace(tzinfo=zone)


def join_storage(base: str | None, path: str) -> str:
    """A feed path on a cluster: relative to the cluster's storage (its write endpoint) unless it has a scheme.

    ``file:///srv/data`` + ``/in/2024`` gives ``file:///srv/data/in/2024``, as Falcon prefixed the name node.
    """
    if _SCHEME.match(path) or not base:
        return path
    return base.rstrip("/") + "/" + path.lstrip("/")
