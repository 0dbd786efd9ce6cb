"""Java properties texts, read as ``java.util.Properties.load`` reads them: ``#``/``!`` comments, blank lines,
``=``, ``:`` or blanks between key and value, ``\\`` continuation lines, and the escapes ``\\t``, ``\\n``, ``\\r``,
``\\f``, ``\\uXXXX`` (four hex digits) and ``\\x`` for any other ``x``.

Read here for every caller: an extension job's file, a Falcon REST body of properties, the ``key=value`` output an
Oozie shell action captures.
"""

from __future__ import annotations

import re

_ESCAPES = {"t": "\t", "n": "\n", "r": "\r", "f": "\f"}


def read_properties(text: str) -> list[tuple[str, str, int]]:
    """``(key, value, line)`` of a Java properties text, in order (comments, blank lines and continuations as
    ``java.util.Properties.load`` treats them)."""
    found: list[tuple[str, str, int]] = []
    physical = text.splitlines()
    index = 0
    while index < len(physical):
        start = index
        line = physical[index].lstrip(" \t\f")
        index += 1
        if not line or line[0] in "#!":
            continue
        while _continues(line) and index < len(physical):
            line = line[:-1] + physical[index].lstrip(" \t\f")
            index += 1
        if _continues(line):
            line = line[:-1]
        key, value = _split_key(line)
        found.append((key, value, start + 1))
    return found


def parse_properties(text: str) -> dict[str, str]:
    """The properties of a text as a mapping; a key given twice keeps its last value, as ``Properties`` does."""
    return {key: value for key, value, _ in read_properties(text)}


def _continues(line: str) -> bool:
    trailing = len(line) - len(line.rstrip("\\"))
    return trailing % 2 == 1


def _split_key(line: str) -> tuple[str, str]:
    """A logical line to (key, value), Java's way: the key ends at an unescaped ``=``, ``:`` or blank."""
    index = 0
    while index < len(line):
        char = line[index]
        if char == "\\":
            index += 2
            continue
        if char in "=: \t\f":
            break
        index += 1
    key, rest = line[:index], line[index:].lstrip(" \t\f")
    if rest[:1] in ("=", ":"):
        rest = rest[1:].lstrip(" \t\f")
    return _unescape(key), _unescape(rest)


def _unescape(text: str) -> str:
    out: list[str] = []
    index = 0
    while index < len(text):
        char = text[index]
        if char == "\\" and index + 1 < len(text):
            following = text[index + 1]
            if following == "u" and re.fullmatch(r"[0-9a-fA-F]{4}", text[index + 2:index + 6]):
                out.append(chr(int(text[index + 2:index + 6], 16)))
                index += 6
                continue
            out.append(_ESCAPES.get(following, following))
            index += 2
            continue
        out.append(char)
        index += 1
    return "".join(out)
