"""Feed storage in a catalog table: ``catalog:<database>:<table>#<key>=<value>[;<key>=<value>...]``.

The parse rules are Falcon's: the scheme must be ``catalog``; the rest before ``#`` splits on ``:`` into exactly a
database and a table; the ``#`` part is mandatory and holds ``;``-separated ``key=value`` specs with exactly one
``=`` each. Values may hold path variables such as ``${YEAR}``.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from falcon_airflow.errors import CatalogUriError


class TableUri(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    database: str
    table: str
    partitions: tuple[tuple[str, str], ...]

    @classmethod
    def parse(cls, uri: str) -> TableUri:
        text = uri.strip()
        scheme, colon, rest = text.partition(":")
        if not colon or scheme != "catalog":
            raise CatalogUriError(f"table URI '{uri}': catalog scheme is missing (expected catalog:<db>:<table>#...)")
        path, hash_sign, fragment = rest.partition("#")
        parts = path.split(":")
        if len(parts) != 2:
            raise CatalogUriError(f"table URI '{uri}': the part before '#' must be <database>:<table>")
        database, table = (part.strip() for part in parts)
        if not database:
            raise CatalogUriError(f"table URI '{uri}': the database name is missing")
        if not table:
            raise CatalogUriError(f"table URI '{uri}': the table name is missing")
        if not hash_sign or not fragment.strip():
            raise CatalogUriError(f"table URI '{uri}': partition details after '#' are missing")
        partitions = []
        for spec in fragment.split(";"):
            if not spec:
                continue  # Falcon skips empty specs: "ds=1;" and "ds=1;;region=us" are accepted
            pieces = spec.split("=")
            while pieces and not pieces[-1]:
                pieces.pop()  # Java's split drops trailing empty strings, so "ds=" has no value
            if len(pieces) != 2 or not pieces[0].strip():
                raise CatalogUriError(f"table URI '{uri}': partition spec '{spec}' is not a single key=value pair")
            partitions.append((pieces[0].strip(), pieces[1].strip()))
        if not partitions:  # "#;" alone: Falcon let it through only to fail later on an empty partition map
            raise CatalogUriError(f"table URI '{uri}': partition details after '#' are missing")
        return cls(database=database, table=table, partitions=tuple(partitions))

    @property
    def partition_spec(self) -> str:
        """``k=v;k2=v2``, the form Falcon's templates use."""
        return ";".join(f"{key}={value}" for key, value in self.partitions)
