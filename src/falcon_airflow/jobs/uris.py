"""URIs and safe paths (a job refuses ``.`` and ``..`` in a path it may delete or overwrite), and DistCp include
globs converted the way Falcon's ``FilteredCopyListing`` did. Pure: no Spark.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from falcon_airflow.jobs.frame import UsageError

_URI = re.compile(r"^(?P<scheme>[A-Za-z][A-Za-z0-9+.\-]*):(?://(?P<authority>[^/]*))?(?P<path>.*)$")


@dataclass(frozen=True)
class Uri:
    """A split URI: ``file:///a/b`` → (``file``, ``""``, ``/a/b``); a bare ``/a/b`` has no scheme."""

    scheme: str | None
    authority: str | None
    path: str

    @property
    def root(self) -> str:
        """``scheme://authority`` (``file://`` for local paths), or ``""`` for a bare path."""
        if not self.scheme:
            return ""
        return f"{self.scheme}://{self.authority or ''}"

    def with_path(self, path: str) -> str:
        return self.root + path

    def same_filesystem(self, other: Uri) -> bool:
        """Same scheme and (when both name one) the same host, and the same port when both name one: two
        namenodes of one host are two file systems. Hadoop prints ``file:/x`` for ``file:///x``, and a missing
        port may be the default one, so a missing part counts as the same."""
        if (self.scheme or "").lower() != (other.scheme or "").lower():
            return False
        if self.authority and other.authority:
            host, _, port = self.authority.lower().partition(":")
            other_host, _, other_port = other.authority.lower().partition(":")
            return host == other_host and (not port or not other_port or port == other_port)
        return True

    def __str__(self) -> str:
        return self.with_path(self.path)


def split_uri(text: str) -> Uri:
    match = _URI.match(text)
    if match and (match["authority"] is not None or match["path"].startswith("/")):
        return Uri(match["scheme"], match["authority"], match["path"] or "/")
    return Uri(None, None, text)


def checked_path(path: str) -> str:
    """Collapse repeated and trailing ``/``; refuse relative paths and ``.``/``..`` components (ValueError): a job
    never resolves ``..`` in a path it may delete or overwrite (lineage names resolve it: ``core.naming``)."""
    if not path.startswith("/"):
        raise ValueError(f"{path!r} is not an absolute path")
    parts = [part for part in path.split("/") if part]
    for part in parts:
        if part in (".", ".."):
            raise ValueError(f"{path!r} has a {part!r} component")
    return "/" + "/".join(parts)


def parse_location(text: str, what: str) -> Uri:
    """A user-given location URI (or absolute path), normalised; UsageError if unsafe or relative."""
    uri = split_uri(text.strip())
    try:
        return Uri(uri.scheme, uri.authority, checked_path(uri.path))
    except ValueError as error:
        raise UsageError(f"{what} {text!r}: {error}") from None


def is_under(path: str, folder: str) -> bool:
    """Whether ``path`` is strictly below ``folder`` (both normalised)."""
    if folder == "/":
        return path != "/"
    return path.startswith(folder + "/")


def parent_of(path: str) -> str:
    cut = path.rstrip("/").rfind("/")
    if cut <= 0:
        return "/"
    parent = path[:cut]
    # the root of a file system URI is "scheme://authority/": "hdfs://nn:8020" alone names no path
    return parent + "/" if re.fullmatch(r"[A-Za-z][A-Za-z0-9+.-]*://[^/]*", parent) else parent


def name_of(path: str) -> str:
    return path.rstrip("/").rsplit("/", 1)[-1]


def include_pattern(glob: str) -> re.Pattern[str]:
    """A relative include glob as a regex over relative file paths.

    As Falcon converted it: ``*`` → ``.*`` (it may cross ``/``), ``?`` → ``.``, ``{a,b}`` → alternatives,
    ``[..]`` sets kept (``[!..]`` negated); the pattern matches a file whose relative path, or one of its folders,
    it matches entirely (Falcon's ``(<re>/)|(<re>$)``).
    """
    if not glob or glob.startswith("/"):
        raise UsageError(f"include pattern {glob!r} must be a relative path glob")
    if any(part in (".", "..") for part in glob.split("/")):
        raise UsageError(f"include pattern {glob!r} must not have '.' or '..' components")
    out: list[str] = []
    depth = 0
    index = 0
    while index < len(glob):
        char = glob[index]
        if char == "*":
            out.append(".*")
        elif char == "?":
            out.append(".")
        elif char == "{":
            depth += 1
            out.append("(?:")
        elif char == "}" and depth:
            depth -= 1
            out.append(")")
        elif char == "," and depth:
            out.append("|")
        elif char == "[":
            end = glob.find("]", index + 2 if glob[index + 1:index + 2] in ("!", "^") else index + 1)
            if end < 0:
                raise UsageError(f"include pattern {glob!r} has an unclosed '['")
            body = glob[index + 1:end]
            if body.startswith("!"):
                body = "^" + body[1:]
            out.append("[" + body.replace("\\", "\\\\") + "]")
            index = end
        elif char == "\\" and index + 1 < len(glob):
            index += 1
            out.append(re.escape(glob[index]))
        else:
            out.append(re.escape(char))
        index += 1
    if depth:
        raise UsageError(f"include pattern {glob!r} has an unclosed '{{'")
    return re.compile("(?:" + "".join(out) + ")(?:/|$)")


def include_prefix(glob: str) -> str:
    """The leading glob-free components of an include pattern (``US/*`` → ``US``; ``IN`` → ``IN``; ``*/3/*`` →
    ``""``): Falcon appended this prefix to both the source and the target path."""
    prefix = []
    for part in glob.split("/"):
        if any(char in part for char in "*?[]{}\\"):
            break
        prefix.append(part)
    return "/".join(prefix)


def split_paths(text: str) -> list[str]:
    """A comma-separated list of paths, leaving commas inside glob braces ``{a,b}`` alone."""
    parts: list[str] = []
    current: list[str] = []
    depth = 0
    for char in text:
        if char == "{":
            depth += 1
        elif char == "}" and depth:
            depth -= 1
        if char == "," and not depth:
            parts.append("".join(current))
            current = []
        else:
            current.append(char)
    parts.append("".join(current))
    return [part.strip() for part in parts if part.strip()]
