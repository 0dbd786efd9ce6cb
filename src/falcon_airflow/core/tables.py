"""Feed storage in a catalog table: ``catalog:<database>:<table>#<key>=<value>[;<key>=<value>...]``.

The parse rules are Falcon's (``CatalogStorage``): the scheme must be ``catalog``; the rest before ``#`` splits on
``:`` into exactly a database and a table; the ``#`` part is mandatory and holds ``;``-separated ``key=value``
specs with exactly one ``=`` each (empty specs are skipped, as Falcon did). Values may hold path variables such as
``${YEAR}``: the dated keys, whose values name an instance time (:mod:`falcon_airflow.core.eviction` reads them
back strictly, as times: Falcon's retention compared them with the cut-off's values as strings).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, tzinfo
from urllib.parse import parse_qs, quote, unquote, urlsplit

from falcon_airflow.core.errors import TableUriError
from falcon_airflow.core.paths import Template, has_variable


@dataclass(frozen=True)
class TableUri:
    """``catalog:db:table#k=v;k2=v2``: database, table and the partition specs in order."""

    database: str
    table: str
    partitions: tuple[tuple[str, str], ...]

    @classmethod
    def parse(cls, uri: str) -> TableUri:
        """Falcon's grammar; :class:`TableUriError` names what is wrong. Values keep their variables as ``${X}``."""
        text = uri.strip()
        scheme, colon, rest = text.partition(":")
        if not colon or scheme != "catalog":
            raise TableUriError(f"table URI '{uri}': catalog scheme is missing (expected catalog:<db>:<table>#...)")
        path, hash_sign, fragment = rest.partition("#")
        parts = path.split(":")
        if len(parts) != 2:
            raise TableUriError(f"table URI '{uri}': the part before '#' must be <database>:<table>")
        database, table = (part.strip() for part in parts)
        if not database:
            raise TableUriError(f"table URI '{uri}': the database name is missing")
        if not table:
            raise TableUriError(f"table URI '{uri}': the table name is missing")
        if not hash_sign or not fragment.strip():
            raise TableUriError(f"table URI '{uri}': partition details after '#' are missing")
        partitions = []
        for spec in fragment.split(";"):
            if not spec:
                continue  # Falcon skips empty specs: "ds=1;" and "ds=1;;region=us" are accepted
            pieces = spec.split("=")
            while pieces and not pieces[-1]:
                pieces.pop()  # Java's split drops trailing empty strings, so "ds=" has no value
            if len(pieces) != 2 or not pieces[0].strip():
                raise TableUriError(f"table URI '{uri}': partition spec '{spec}' is not a single key=value pair")
            partitions.append((pieces[0].strip(), pieces[1].strip()))
        if not partitions:  # "#;" alone: Falcon let it through only to fail later on an empty partition map
            raise TableUriError(f"table URI '{uri}': partition details after '#' are missing")
        return cls(database=database, table=table, partitions=tuple(partitions))

    @property
    def partition_spec(self) -> str:
        """``k=v;k2=v2``, the form Falcon's templates use."""
        return ";".join(f"{key}={value}" for key, value in self.partitions)

    def partition_path(self) -> str:
        """``k=v/k2=v2`` — the Hive layout of this URI's partition below the table location."""
        return "/".join(f"{key}={value}" for key, value in self.partitions)

    def resolve(self, moment: datetime, zone: tzinfo) -> dict[str, str]:
        """Every key's value at ``moment`` in ``zone`` (the partition of that instance)."""
        return {key: Template(value).resolve(moment, zone) for key, value in self.partitions}

    @property
    def dated_keys(self) -> tuple[str, ...]:
        return tuple(key for key, value in self.partitions if has_variable(value))

    @property
    def static_partitions(self) -> dict[str, str]:
        return {key: value for key, value in self.partitions if not has_variable(value)}

    def dated_template(self) -> Template:
        """The dated keys as a path template ``k1=${YEAR}${MONTH}/k2=${DAY}`` (to read partition times)."""
        return Template("/".join(f"{key}={value}" for key, value in self.partitions if key in self.dated_keys))


# -- availability of a partition ---------------------------------------------------------------------------------
#
# A file feed's instance is available when its flag file (or folder) exists; a table feed's when its partition is in
# the cluster's metastore. Sensors and triggers only test strings for existence, so a partition is named by a URI
# of its own: ``thrift://host:port/<database>/<table>/<key>=<value>/...`` (values percent-encoded), the metastore
# being the cluster's ``registry`` interface. A Kerberized metastore (the cluster says
# ``hive.metastore.sasl.enabled=true``) adds ``?principal=<its service principal>``: it takes SASL clients only.

PARTITION_MARKER_SCHEME = "thrift"
METASTORE_SASL = "hive.metastore.sasl.enabled"
METASTORE_PRINCIPAL = "hive.metastore.kerberos.principal"


def metastore_sasl_principal(properties: Mapping[str, str]) -> str | None:
    """The metastore's service principal (``hive/_HOST@REALM``) when a cluster's properties (Falcon's names) say
    its metastore takes SASL (Kerberos) clients only; ``None`` for a plain metastore."""
    settings = {name.strip(): value.strip() for name, value in properties.items()}
    if settings.get(METASTORE_SASL, "").lower() != "true":
        return None
    return settings.get(METASTORE_PRINCIPAL) or None


@dataclass(frozen=True)
class PartitionMarker:
    """One partition of a catalog table in one metastore (``thrift://host:port``)."""

    metastore: str
    table: TableUri
    principal: str = ""
    """The metastore's Kerberos service principal when it takes SASL clients only (``_HOST`` as written)."""

    def __str__(self) -> str:
        specs = "/".join(f"{quote(key, safe='')}={quote(value, safe='')}" for key, value in self.table.partitions)
        query = f"?principal={quote(self.principal, safe='')}" if self.principal else ""
        return f"{self.metastore.rstrip('/')}/{quote(self.table.database, safe='')}/" \
               f"{quote(self.table.table, safe='')}/{specs}{query}"

    @property
    def host_port(self) -> tuple[str, int]:
        parts = urlsplit(self.metastore)
        if not parts.hostname or parts.port is None:
            raise TableUriError(f"metastore '{self.metastore}' is not thrift://host:port")
        return parts.hostname, parts.port

    @classmethod
    def parse(cls, text: str) -> PartitionMarker:
        parts = urlsplit(text.strip())
        pieces = [unquote(piece) for piece in parts.path.strip("/").split("/")] if parts.path.strip("/") else []
        if parts.scheme != PARTITION_MARKER_SCHEME or not parts.netloc or len(pieces) < 3 \
                or not all("=" in piece for piece in pieces[2:]):
            raise TableUriError(f"'{text}' is not a partition thrift://host:port/<db>/<table>/<key>=<value>/...")
        specs = tuple(tuple(piece.split("=", 1)) for piece in pieces[2:])
        principal = parse_qs(parts.query).get("principal", [""])[0]
        return cls(metastore=f"{parts.scheme}://{parts.netloc}",
                   table=TableUri(database=pieces[0], table=pieces[1], partitions=specs),  # type: ignore[arg-type]
                   principal=principal)


def partition_marker(metastore: str | None, location: str, principal: str | None = None) -> str:
    """The existence marker of a resolved catalog URI (``catalog:db:t#ds=20260101``) in ``metastore``; the URI
    itself when the cluster names no thrift metastore (storage then says it cannot be checked)."""
    if not metastore or not metastore.strip().startswith(f"{PARTITION_MARKER_SCHEME}://"):
        return location
    return str(PartitionMarker(metastore.strip(), TableUri.parse(location), principal or ""))
