"""Which secrets a datasource entity may name: the deployment's allow-lists for ``password-alias`` and
``password-file``.

An entity author must not be able to send the deployment's secrets to a database of their choosing. Two
``[falcon]`` settings say what entities may use:

* ``datasource_connections`` (default ``falcon_datasource_*``): the Airflow connections a ``password-alias`` may
  resolve, as comma-separated ``fnmatch`` patterns of connection ids. ``{owner}`` in a pattern stands for the
  datasource's ACL owner, so ``falcon_datasource_{owner}_*`` ties each connection to the one owner whose
  datasources may use it. Empty: no Airflow connection at all.
* ``datasource_credential_roots`` (default: none): the folders (``/secure/db``, ``hdfs://nn:8020/secrets``,
  ``file:///etc/falcon/db``, also with ``{owner}``) under which a ``password-file`` and the keystore of a
  ``password-alias``'s ``providerPath`` (``jceks://hdfs@nn/...``) may lie. Empty: none may be read.

A path is judged after percent-decoding, with ``.`` and empty segments dropped; a ``..`` segment is refused
outright. Here the judgement is textual (validation and the Airflow task); the Spark job repeats it on the fully
qualified path with every symbolic link resolved (``jobs/jdbc.py``) before it reads a byte.

Standard library only: validation, the Airflow task and the Spark jobs share it.
"""

from __future__ import annotations

import configparser
import contextlib
import fnmatch
import os
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

CONNECTIONS_KEY = "datasource_connections"
ROOTS_KEY = "datasource_credential_roots"
DEFAULT_CONNECTIONS = "falcon_datasource_*"
DEFAULT_ROOTS = ""
ROOTS_ENV = "FALCON_JDBC_CREDENTIAL_ROOTS"
"""How the Airflow task tells the job the roots (owner already substituted), as a JSON list."""

ALIAS_RULE = "FA040"
FILE_RULE = "FA041"
ENDPOINT_RULE = "FA042"

_OWNER = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.@-]*$")
"""An owner that may stand in a pattern or a path: no glob, separator or ``..``."""
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:")
_CREDENTIAL_PROVIDERS = ("jceks", "localjceks", "bcfks", "localbcfks")
"""Hadoop credential providers that read a keystore file: ``<provider>://<scheme>[@<authority>]/<path>``."""


class CredentialPathError(ValueError):
    """A path that cannot be judged safely (a ``..`` segment, control characters, nothing at all)."""


@dataclass(frozen=True)
class Location:
    """A path as judged: ``scheme``/``authority`` ``None`` for a bare path (resolved against the default file
    system at run time), the decoded path's segments."""

    scheme: str | None
    authority: str | None
    segments: tuple[str, ...]
    raw_segments: tuple[str, ...] = ()
    """The segments as written, before percent-decoding: a reader that does not decode (Hadoop's ``Path``) sees
    these, one that does sees :attr:`segments`; a path is under a root only when both are."""

    @property
    def text(self) -> str:
        path = "/" + "/".join(self.segments)
        if self.scheme is None:
            return path
        return f"{self.scheme}://{self.authority or ''}{path}"


def parse_location(text: str) -> Location:
    """A password file, keystore or root path, decoded and normalised; :class:`CredentialPathError` for a path
    that goes up (``..``, also percent-encoded), holds control characters or names nothing."""
    raw = text.strip()
    if not raw:
        raise CredentialPathError("the path is empty")
    if any(ord(char) < 32 or ord(char) == 127 for char in raw):
        raise CredentialPathError("the path holds control characters")
    scheme: str | None = None
    authority: str | None = None
    path = raw
    if _SCHEME.match(raw) and not re.match(r"^[A-Za-z]:[\\/]", raw):
        parts = urlsplit(raw)
        scheme = parts.scheme.lower()
        authority = parts.netloc.lower()
        if scheme == "file" and authority in ("localhost", "127.0.0.1"):
            authority = ""
        path = parts.path
        if parts.query or parts.fragment:
            raise CredentialPathError("the path has a query or fragment")
    forms: list[tuple[str, ...]] = []
    for candidate in (path, unquote(path)):  # the text as written and as a decoding reader would see it
        found = tuple(segment for segment in candidate.replace("\\", "/").split("/") if segment not in ("", "."))
        if ".." in found:
            raise CredentialPathError("the path goes up with '..'")
        forms.append(found)
    if not forms[1]:
        raise CredentialPathError("the path names no file")
    return Location(scheme, authority, forms[1], forms[0])


def provider_locations(provider_path: str) -> list[Location]:
    """The keystores a ``providerPath`` (Hadoop's ``hadoop.security.credential.provider.path``, comma-separated)
    reads: ``jceks://hdfs@nn:8020/p`` is ``hdfs://nn:8020/p``, ``localjceks://file/p`` is ``file:///p``. A provider
    that reads no file (``user:///``) raises :class:`CredentialPathError`."""
    found = []
    for item in (part.strip() for part in provider_path.split(",")):
        if not item:
            continue
        parts = urlsplit(item)
        if parts.scheme.lower() not in _CREDENTIAL_PROVIDERS:
            raise CredentialPathError(f"credential provider '{parts.scheme or item}:' reads no keystore file "
                                      f"(supported: {', '.join(f'{name}://' for name in _CREDENTIAL_PROVIDERS)})")
        nested, _, authority = parts.netloc.partition("@")
        if not nested:
            raise CredentialPathError(f"credential provider '{item}' names no file system")
        found.append(parse_location(f"{nested}://{authority}{parts.path}"))
    if not found:
        raise CredentialPathError("the provider path is empty")
    return found


def _same_file_system(path: Location, root: Location) -> bool:
    """Textually, without the default file system: a bare path or root, or an empty authority (the default
    name node), may be any; two explicit different ones are not the same."""
    if path.scheme is None or root.scheme is None:
        return True
    if path.scheme != root.scheme:
        return False
    return not path.authority or not root.authority or path.authority == root.authority


def under(path: Location, root: Location) -> bool:
    """``path`` is ``root`` or below it, read with and without percent-decoding."""
    return (_same_file_system(path, root) and path.segments[:len(root.segments)] == root.segments
            and path.raw_segments[:len(root.raw_segments)] == root.raw_segments)


def resolved_under(path: str, roots: list[str]) -> bool:
    """Whether a fully qualified, link-resolved path (``hdfs://nn:8020/p``, ``file:///p``) lies under one of the
    equally resolved ``roots``: same scheme, same authority, the root's segments first."""
    try:
        location = parse_location(path)
    except CredentialPathError:
        return False
    for root in roots:
        try:
            folder = parse_location(root)
        except CredentialPathError:
            continue
        if location.scheme == folder.scheme and (location.authority or "") == (folder.authority or "") \
                and under(location, folder):
            return True
    return False


def _owner_value(owner: str | None) -> str | None:
    value = (owner or "").strip()
    return value if value and _OWNER.match(value) and ".." not in value else None


def _with_owner(pattern: str, owner: str | None) -> str | None:
    """``pattern`` with ``{owner}`` replaced; ``None`` when it needs an owner the datasource does not have (or
    one that could widen it: a glob or a separator)."""
    if "{owner}" not in pattern:
        return pattern
    value = _owner_value(owner)
    return pattern.replace("{owner}", value) if value is not None else None


def _split(text: str | None) -> tuple[str, ...]:
    return tuple(item.strip() for item in (text or "").split(",") if item.strip())


@dataclass(frozen=True)
class CredentialPolicy:
    """The deployment's allow-lists (see the module docstring)."""

    connections: tuple[str, ...] = (DEFAULT_CONNECTIONS,)
    roots: tuple[str, ...] = ()

    @classmethod
    def from_settings(cls, connections: str | None, roots: str | None) -> CredentialPolicy:
        return cls(_split(DEFAULT_CONNECTIONS if connections is None else connections),
                   _split(DEFAULT_ROOTS if roots is None else roots))

    def describe_connections(self) -> str:
        return f"[falcon] {CONNECTIONS_KEY} = '{', '.join(self.connections)}'" if self.connections else \
            f"[falcon] {CONNECTIONS_KEY} is empty (no connection may be used)"

    def describe_roots(self) -> str:
        return f"[falcon] {ROOTS_KEY} = '{', '.join(self.roots)}'" if self.roots else \
            f"[falcon] {ROOTS_KEY} is not set (no file may be read)"

    def connection_allowed(self, conn_id: str, owner: str | None) -> bool:
        conn_id = conn_id.strip()
        if not conn_id:
            return False
        patterns = (_with_owner(pattern, owner) for pattern in self.connections)
        return any(pattern is not None and fnmatch.fnmatchcase(conn_id, pattern) for pattern in patterns)

    def roots_for(self, owner: str | None) -> list[str]:
        """The roots that apply to a datasource of ``owner`` (``{owner}`` substituted, unusable ones left out)."""
        return [root for root in (_with_owner(item, owner) for item in self.roots) if root is not None]

    def _root_locations(self, owner: str | None) -> list[Location]:
        found = []
        for root in self.roots_for(owner):
            with contextlib.suppress(CredentialPathError):  # a root that goes up is no root at all
                found.append(parse_location(root))
        return found

    def file_problem(self, path: str, owner: str | None) -> str | None:
        """Why a ``password-file`` may not be read (``None``: it may, as far as its text tells)."""
        try:
            location = parse_location(path)
        except CredentialPathError as problem:
            return f"password file '{path.strip()}' is refused: {problem}"
        if not any(under(location, root) for root in self._root_locations(owner)):
            return f"password file '{location.text}' is not under a folder {self.describe_roots()} allows"
        return None

    def provider_problem(self, provider_path: str, owner: str | None) -> str | None:
        """Why the keystores of a ``providerPath`` may not be read (``None``: they may)."""
        try:
            locations = provider_locations(provider_path)
        except CredentialPathError as problem:
            return f"credential provider '{provider_path.strip()}' is refused: {problem}"
        roots = self._root_locations(owner)
        for location in locations:
            if not any(under(location, root) for root in roots):
                return (f"credential provider keystore '{location.text}' is not under a folder "
                        f"{self.describe_roots()} allows")
        return None


ConfigLookup = Callable[[str], "str | None"]


def _file_lookup() -> ConfigLookup:
    """``AIRFLOW__FALCON__<KEY>``, else ``[falcon]`` of ``$AIRFLOW_CONFIG`` / ``$AIRFLOW_HOME/airflow.cfg`` (read as a
    file, so that validation needs no Airflow)."""
    parser = configparser.RawConfigParser(strict=False, interpolation=None)
    home = Path(os.environ.get("AIRFLOW_HOME") or Path.home() / "airflow")
    with contextlib.suppress(OSError, configparser.Error):
        parser.read(Path(os.environ.get("AIRFLOW_CONFIG") or home / "airflow.cfg"), encoding="utf-8")

    def lookup(key: str) -> str | None:
        value = os.environ.get(f"AIRFLOW__FALCON__{key.upper()}")
        if value is None and parser.has_option("falcon", key):
            value = parser.get("falcon", key)
        return value

    return lookup


def _airflow_lookup() -> ConfigLookup | None:
    """Airflow's own configuration when this process already runs Airflow (the dag-processor, a worker)."""
    module = sys.modules.get("airflow.configuration")
    conf = getattr(module, "conf", None)
    if conf is None:
        return None

    def lookup(key: str) -> str | None:
        try:
            return conf.get("falcon", key, fallback=None)  # type: ignore[no-any-return]
        except Exception:  # an unreadable configuration: the defaults apply
            return None

    return lookup


def configured_policy(lookup: ConfigLookup | None = None) -> CredentialPolicy:
    """The deployment's policy: from ``lookup``, else Airflow's configuration when Airflow is loaded, else the
    environment and ``airflow.cfg``."""
    chosen = lookup or _airflow_lookup() or _file_lookup()
    return CredentialPolicy.from_settings(chosen(CONNECTIONS_KEY), chosen(ROOTS_KEY))
