"""The Prism's colos: ``[falcon] prism_colos = east=http://host:8080/falcon,west=http://...`` and the ``colo``
expression of a request (Falcon's ``-colo``)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from urllib.parse import urlsplit

MODES = ("embedded", "prism")
"""``[falcon] mode``: ``embedded`` serves one colo's store (Falcon's embedded and distributed-server modes alike);
``prism`` routes every request to the colos' servers."""

_COLO_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
DEFAULT_TIMEOUT = 150.0
"""Seconds a colo has to answer one request: a colo that hangs makes the answer PARTIAL, not the Prism hang. A
colo's schedule or update waits up to ``FALCON_AIRFLOW_WAIT`` (120 s) for its dag-processor; this leaves room for
that wait and the rest of the answer."""


class PrismConfigurationError(ValueError):
    """A ``[falcon] prism_*`` setting that cannot be used, naming the setting."""


class ColoNotApplicable(ValueError):
    """A ``colo`` expression naming a colo the request does not apply to."""


@dataclass(frozen=True)
class Colo:
    name: str
    url: str
    """The colo server's Falcon URL (``http://host:port/falcon``), without a trailing slash."""


@dataclass(frozen=True)
class PrismSettings:
    colos: tuple[Colo, ...]
    timeout: float = DEFAULT_TIMEOUT

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(colo.name for colo in self.colos)

    def colo(self, name: str) -> Colo:
        for colo in self.colos:
            if colo.name == name:
                return colo
        raise KeyError(name)

    @classmethod
    def from_config(cls, get: Callable[[str, str], str | None]) -> PrismSettings:
        colos = parse_colos(get("falcon", "prism_colos") or "")
        given = (get("falcon", "prism_timeout") or "").strip()
        try:
            timeout = float(given) if given else DEFAULT_TIMEOUT
        except ValueError:
            raise PrismConfigurationError(f"[falcon] prism_timeout must be a number of seconds, not {given!r}") \
                from None
        if not 0 < timeout <= 3600:
            raise PrismConfigurationError(f"[falcon] prism_timeout must be between 0 and 3600 seconds, not {given}")
        return cls(colos, timeout)


def server_mode(setting: str | None) -> str:
    """``[falcon] mode``, checked: a misspelt mode is an error, not a silent embedded server."""
    value = (setting or "embedded").strip().lower() or "embedded"
    if value not in MODES:
        raise PrismConfigurationError(f"[falcon] mode must be one of {', '.join(MODES)}, not {setting!r}")
    return value


def parse_colos(text: str) -> tuple[Colo, ...]:
    """``name=url`` pairs, comma-separated, in the order given."""
    colos: list[Colo] = []
    for part in (piece.strip() for piece in text.split(",")):
        if not part:
            continue
        name, equals, url = part.partition("=")
        name, url = name.strip(), url.strip().rstrip("/")
        if not equals or not _COLO_NAME.match(name):
            raise PrismConfigurationError(f"[falcon] prism_colos: {part!r} is not <colo>=<url> with a colo name of "
                                          "letters, digits and _ . -")
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise PrismConfigurationError(f"[falcon] prism_colos: colo {name}'s URL {url!r} is not http(s)://host")
        if any(colo.name == name for colo in colos):
            raise PrismConfigurationError(f"[falcon] prism_colos names colo {name} twice")
        colos.append(Colo(name, url))
    if not colos:
        raise PrismConfigurationError("[falcon] prism_colos names no colo: a Prism needs <colo>=<url>[,...]")
    return tuple(colos)


def selected(expression: str | None, applicable: Iterable[str]) -> tuple[str, ...]:
    """The colos a request runs on: ``applicable`` for no expression or ``*``, else the comma-separated colos, each
    of which must be applicable (Falcon: "Given colos not applicable for entity operation")."""
    applicable = tuple(applicable)
    text = (expression or "").strip()
    if not text or text == "*":
        return applicable
    wanted = tuple(dict.fromkeys(part.strip() for part in text.split(",") if part.strip()))
    outside = [colo for colo in wanted if colo not in applicable]
    if outside:
        raise ColoNotApplicable(f"Given colos not applicable for entity operation: {', '.join(outside)} (applicable: "
                                f"{', '.join(applicable) or 'none'})")
    return wanted
