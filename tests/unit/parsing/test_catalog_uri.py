"""Catalog table URIs, ``catalog:<db>:<table>#<key>=<value>[;...]``, parsed by Falcon's rules (CatalogStorage)."""

from __future__ import annotations

import pytest

from falcon_airflow.entities import CatalogTable, TableUri
from falcon_airflow.errors import CatalogUriError

DATED = "${YEAR}-${MONTH}-${DAY}"


def test_falcon_valid_example() -> None:
    uri = TableUri.parse(f"catalog:clicksdb:clicks#ds={DATED};region=us")

    assert uri.database == "clicksdb"
    assert uri.table == "clicks"
    assert uri.partitions == (("ds", DATED), ("region", "us"))
    assert uri.partition_spec == f"ds={DATED};region=us"


def test_catalog_table_element_parses_its_uri() -> None:
    table = CatalogTable(uri=f"catalog:default:clicks#ds={DATED}")

    assert table.parsed().partitions == (("ds", DATED),)


@pytest.mark.parametrize(
    ("uri", "words"),
    [
        # the invalid examples of Falcon's CatalogStorageTest
        pytest.param(f"catalog:default:clicks:ds={DATED}#region=us", "must be <database>:<table>",
                     id="three-parts-before-hash"),
        pytest.param(f"default:clicks:ds={DATED}#region=us", "catalog scheme is missing", id="no-scheme"),
        pytest.param(f"catalog:default#ds={DATED}", "must be <database>:<table>", id="no-table"),
        pytest.param(f"catalog://default/clicks#ds={DATED}:region=us", "must be <database>:<table>",
                     id="hierarchical-uri"),
        # one per error gist of CatalogStorage
        pytest.param(f"hcat:default:clicks#ds={DATED}", "catalog scheme is missing", id="other-scheme"),
        pytest.param(f"CATALOG:default:clicks#ds={DATED}", "catalog scheme is missing", id="scheme-is-case-sensitive"),
        pytest.param(f"catalog::clicks#ds={DATED}", "database name is missing", id="empty-database"),
        pytest.param(f"catalog:default:#ds={DATED}", "table name is missing", id="empty-table"),
        pytest.param("catalog:default:clicks", "partition details after '#' are missing", id="no-fragment"),
        pytest.param("catalog:default:clicks#", "partition details after '#' are missing", id="empty-fragment"),
        pytest.param("catalog:default:clicks#;", "partition details after '#' are missing", id="only-separator"),
        pytest.param("catalog:default:clicks#ds", "not a single key=value pair", id="no-equals"),
        pytest.param("catalog:default:clicks#ds=", "not a single key=value pair", id="no-value"),
        pytest.param("catalog:default:clicks#ds=a=b", "not a single key=value pair", id="two-equals"),
        pytest.param("catalog:default:clicks#ds==a", "not a single key=value pair", id="double-equals"),
        pytest.param(f"catalog:default:clicks#ds={DATED},region=us", "not a single key=value pair",
                     id="comma-separator"),
        pytest.param("", "catalog scheme is missing", id="empty"),
    ],
)
def test_invalid_uris(uri: str, words: str) -> None:
    with pytest.raises(CatalogUriError, match="table URI") as raised:
        TableUri.parse(uri)

    assert words in raised.value.message


def test_catalog_uri_error_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="catalog scheme is missing"):
        TableUri.parse("nope")


@pytest.mark.parametrize(
    ("uri", "partitions"),
    [
        ("catalog:db:t#ds=1;", (("ds", "1"),)),  # Java's split drops the trailing empty spec
        ("catalog:db:t#ds=1;;region=us", (("ds", "1"), ("region", "us"))),  # Falcon skips empty specs
        (" catalog:db:t#ds=${YEAR}${MONTH} ", (("ds", "${YEAR}${MONTH}"),)),
        ("catalog:db:t#ds=$YEAR", (("ds", "$YEAR"),)),  # not a path variable, but a legal value
    ],
)
def test_lenient_forms_falcon_accepts(uri: str, partitions: tuple[tuple[str, str], ...]) -> None:
    assert TableUri.parse(uri).partitions == partitions
