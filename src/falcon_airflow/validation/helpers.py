"""Small pieces of Falcon semantics that several rules share."""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache

from falcon_airflow.entities import Property
from falcon_airflow.validation.registry import Finding, error

PATH_VARIABLE = re.compile(r"\$\{(YEAR|MONTH|DAY|HOUR|MINUTE)\}")
_URI_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:")
_URI_FORBIDDEN = re.compile(r"[\s\"<>\\^`{|}]")


def property_findings(properties: tuple[Property, ...], owner: str) -> Iterator[Finding]:
    """Blank names, and names given twice (Falcon checked only names: an empty value is allowed)."""
    seen: set[str] = set()
    for prop in properties:
        if not prop.name.strip():
            yield error(f"property name must not be blank in {owner} (name '{prop.name}')", prop.line)
        elif prop.name in seen:
            yield error(f"property '{prop.name}' is defined more than once in {owner}", prop.line)
        seen.add(prop.name)


def java_split(text: str, separator: str) -> list[str]:
    """``String.split`` as Java does it: trailing empty strings are dropped (but ``""`` gives ``[""]``)."""
    if text == "":
        return [""]
    parts = text.split(separator)
    while parts and parts[-1] == "":
        parts.pop()
    return parts


def nonempty_parts(text: str, separator: str = "/") -> list[str]:
    """Tokens between separators, empty ones skipped (commons-lang ``StringUtils.split``)."""
    return [part for part in text.split(separator) if part]


def date_pattern(path: str) -> list[str]:
    """The path variables a template uses, sorted (Falcon compared these lists between paths)."""
    return list(_date_pattern(path))


@lru_cache(maxsize=16384)  # F26 and F27 ask again for the same paths (a feed's own, its group's first feed's)
def _date_pattern(path: str) -> tuple[str, ...]:
    return tuple(sorted(match.group(0) for match in PATH_VARIABLE.finditer(path)))


def has_uri_scheme(endpoint: str) -> bool:
    """True when ``endpoint`` parses as a URI with a scheme (as ``java.net.URI`` would read it)."""
    text = endpoint.strip()
    return bool(_URI_SCHEME.match(text)) and not _URI_FORBIDDEN.search(text)
