"""Catalog table URIs, ``catalog:<db>:<table>#<key>=<value>[;...]`` (``falcon_airflow.core.tables``), parsed by
Falcon's rules (CatalogStorage), and the instance a partition names."""

from __future__ import annotations

import pytest

from falcon_airflow.core.errors import TableUriError
from falcon_airflow.core.tables import TableUri
from falcon_airflow.core.times import parse_instant, parse_zone
from falcon_airflow.entities import CatalogTable
from falcon_airflow.entities.catalog import parse_table_uri
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
    with pytest.raises(TableUriError, match="table URI") as raised:
        TableUri.parse(uri)
    assert words in str(raised.value)
    with pytest.raises(CatalogUriError) as wrapped:  # the entities' error, for validation's file and line
        parse_table_uri(uri)
    assert words in wrapped.value.message


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


def test_dated_and_static_keys_and_the_instance_a_partition_names() -> None:
    table = TableUri.parse("catalog:db:t#ds=${YEAR}${MONTH}${DAY};hr=${HOUR};region=us")
    utc = parse_zone("UTC")
    assert table.dated_keys == ("ds", "hr") and table.static_partitions == {"region": "us"}
    assert table.dated_template().instance_time("ds=20150104/hr=07", utc) == parse_instant("2015-01-04T07:00Z")
    assert table.resolve(parse_instant("2015-01-04T07:00Z"), utc) == {"ds": "20150104", "hr": "07", "region": "us"}
    assert table.partition_path() == "ds=${YEAR}${MONTH}${DAY}/hr=${HOUR}/region=us"
    # which partitions retention drops is judged by time, not by comparing strings: tests/unit/core/test_eviction.py
    assert not hasattr(table, "is_older") and not hasattr(table, "cutoff_values")


# -- partition markers: what a sensor asks the metastore ------------------------------------------------------------

def test_a_partition_marker_names_metastore_table_and_values_and_reads_back() -> None:
    from falcon_airflow.core.tables import PartitionMarker, partition_marker

    marker = partition_marker("thrift://127.0.0.1:9083", "catalog:web:clicks#ds=2026030105;region=eu west")
    assert marker == "thrift://127.0.0.1:9083/web/clicks/ds=2026030105/region=eu%20west"
    parsed = PartitionMarker.parse(marker)
    assert parsed.host_port == ("127.0.0.1", 9083)
    assert parsed.table == TableUri("web", "clicks", (("ds", "2026030105"), ("region", "eu west")))


def test_without_a_thrift_metastore_the_marker_is_the_catalog_uri() -> None:
    from falcon_airflow.core.tables import partition_marker

    assert partition_marker(None, "catalog:web:clicks#ds=1") == "catalog:web:clicks#ds=1"
    assert partition_marker("hcat://host:1", "catalog:web:clicks#ds=1") == "catalog:web:clicks#ds=1"


@pytest.mark.parametrize("text", ["thrift://host:1/web", "thrift://host:1/web/clicks/ds", "hdfs://n:1/web/t/ds=1",
                                  "thrift:///web/t/ds=1"])
def test_malformed_partition_markers_are_refused(text: str) -> None:
    from falcon_airflow.core.tables import PartitionMarker

    with pytest.raises(TableUriError):
        PartitionMarker.parse(text)
