"""A Kerberized metastore in a partition marker: the principal travels with the marker, only when the cluster says
SASL, and ``_HOST`` becomes the URI's host as Hive's clients make it."""

from __future__ import annotations

from falcon_airflow.core.tables import PartitionMarker, metastore_sasl_principal, partition_marker
from falcon_airflow.instances.sasl_gssapi import server_principal


def test_the_principal_travels_with_the_marker_and_back() -> None:
    marker = partition_marker("thrift://127.0.0.1:9083", "catalog:db:t#ds=2026030105", "hive/_HOST@EXAMPLE.COM")
    assert marker == "thrift://127.0.0.1:9083/db/t/ds=2026030105?principal=hive%2F_HOST%40EXAMPLE.COM"
    assert "," not in marker  # sensors join markers with commas
    parsed = PartitionMarker.parse(marker)
    assert parsed.principal == "hive/_HOST@EXAMPLE.COM"
    assert parsed.table.partitions == (("ds", "2026030105"),)
    assert PartitionMarker.parse(partition_marker("thrift://h:1", "catalog:db:t#ds=1")).principal == ""


def test_only_a_cluster_saying_sasl_names_its_metastore_principal() -> None:
    principal = {"hive.metastore.kerberos.principal": "hive/_HOST@R"}
    assert metastore_sasl_principal({**principal, " hive.metastore.sasl.enabled ": " TRUE "}) == "hive/_HOST@R"
    assert metastore_sasl_principal({**principal, "hive.metastore.sasl.enabled": "false"}) is None
    assert metastore_sasl_principal(principal) is None


def test_host_is_the_uri_host_as_written() -> None:
    assert server_principal("hive/_HOST@R", "127.0.0.1") == "hive/127.0.0.1@R"
    assert server_principal("hive/_HOST@R", "Meta.Example.COM") == "hive/meta.example.com@R"
    assert server_principal("hive/fixed.host@R", "127.0.0.1") == "hive/fixed.host@R"
