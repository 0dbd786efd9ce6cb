"""JDBC URLs: what lineage and the export need to know of them (host, port, database, file)."""

from __future__ import annotations

import re
from dataclasses import dataclass

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
    if not url.startswith("jdbc:"):
        raise JdbcUrlError(f"endpoint '{url}' is not a JDBC URL (jdbc:<database>:...)")
    scheme, _, remainder = url[len("jdbc:"):].partition(":")
    scheme = scheme.lower()
    if not scheme or not remainder:
        raise JdbcUrlError(f"endpoint '{url}' names no database after jdbc:")
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
        raise JdbcUrlError(f"endpoint '{url}' has no //host[:port]/database part")
    first = match.group("hosts").split(",", 1)[0]
    host, _, port_text = first.rpartition(":") if ":" in first and not first.endswith("]") else (first, "", "")
    if not host:
        raise JdbcUrlError(f"endpoint '{url}' names no host")
    try:
        port = int(port_text) if port_text else _DEFAULT_PORTS.get(scheme)
    except ValueError:
        raise JdbcUrlError(f"endpoint '{url}' has port '{port_text}', not a number") from None
    return JdbcUrl(scheme, host.strip("[]"), port, match.group("database") or None)
