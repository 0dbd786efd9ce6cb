"""JDBC URLs: what lineage and the export need to know of them (host, port, database, file).

A URL's user-info (``//user:password@host``) is never part of what is parsed out of it, and every message quoting
a URL quotes it with its credentials masked (:func:`falcon_airflow.core.secrets.redact_url`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from falcon_airflow.core.secrets import redact_url

_DEFAULT_PORTS = {"postgresql": 5432, "mysql": 3306, "mariadb": 3306, "hsqldb": 9001}
_SERVER = re.compile(r"^//(?P<hosts>[^/?;]*)(?:/(?P<database>[^?;]*))?(?P<rest>.*)$")


class JdbcUrlError(ValueError):
    """A datasource endpoint that is not a JDBC URL we can use."""


@dataclass(frozen=True)
class JdbcUrl:
    scheme: str
    """The sub-protocol: ``postgresql``, ``mysql``, ``mariadb``, ``sqlite``, ``derby``."""
    host: str | None
    port: int | None
    database: str | None
    """The database of a server URL, or the file (SQLite, Derby) of an embedded one."""

    @property
    def embedded(self) -> bool:
        return self.host is None


def parse_jdbc_url(text: str) -> JdbcUrl:
    url = text.strip()
    shown = redact_url(url)
    if not url.startswith("jdbc:"):
        raise JdbcUrlError(f"endpoint '{shown}' is not a JDBC URL (jdbc:<database>:...)")
    scheme, _, remainder = url[len("jdbc:"):].partition(":")
    scheme = scheme.lower()
    if not scheme or not remainder:
        raise JdbcUrlError(f"endpoint '{shown}' names no database after jdbc:")
    if scheme == "hsqldb":
        for protocol in ("hsql:", "hsqls:", "http:", "https:"):
            if remainder.startswith(protocol + "//"):
                remainder = remainder[len(protocol):]
                break
        else:  # file:, mem:, res: or a bare name (a file database)
            return JdbcUrl(scheme, None, None, remainder.split(";", 1)[0] or None)
    elif scheme in ("sqlite", "derby"):
        name = remainder.split(";", 1)[0]
        name = name.removeprefix("directory:").removeprefix("file:")
        return JdbcUrl(scheme, None, None, name or None)
    match = _SERVER.match(remainder)
    if match is None:
        raise JdbcUrlError(f"endpoint '{shown}' has no //host[:port]/database part")
    first = match.group("hosts").rpartition("@")[2].split(",", 1)[0]  # never the user-info
    if "(" in first:  # MySQL's address=(host=h)(port=p)(user=..)...: host and port only
        found = dict(re.findall(r"\((\w+)=([^)]*)\)", first))
        first = found.get("host", "") + (f":{found['port']}" if found.get("port") else "")
    host, _, port_text = first.rpartition(":") if ":" in first and not first.endswith("]") else (first, "", "")
    if not host:
        raise JdbcUrlError(f"endpoint '{shown}' names no host")
    try:
        port = int(port_text) if port_text else _DEFAULT_PORTS.get(scheme)
    except ValueError:
        raise JdbcUrlError(f"endpoint '{shown}' has port '{redact_url(port_text)}', not a number") from None
    return JdbcUrl(scheme, host.strip("[]"), port, match.group("database") or None)
