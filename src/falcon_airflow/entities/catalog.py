"""Feed storage in a catalog table: Falcon's ``catalog:<database>:<table>#<key>=<value>[;...]``, parsed by the
rule both sides share (:mod:`falcon_airflow.core.tables`); a malformed URI is a :class:`CatalogUriError` here."""

from __future__ import annotations

from falcon_airflow.core.errors import TableUriError
from falcon_airflow.core.tables import TableUri
from falcon_airflow.errors import CatalogUriError

__all__ = ["TableUri", "parse_table_uri"]


def parse_table_uri(uri: str) -> TableUri:
    """The URI's parts; raises :class:`CatalogUriError` (saying what is wrong) when it is malformed."""
    try:
        return TableUri.parse(uri)
    except TableUriError as problem:
        raise CatalogUriError(str(problem)) from None
