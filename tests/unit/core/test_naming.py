"""Dataset names per the OpenLineage naming conventions, the logical feed name, our job names."""

from __future__ import annotations

import pytest

from falcon_airflow.core.naming import (
    DatasetId,
    JobName,
    feed_dataset,
    jdbc_dataset,
    location_dataset,
    metastore_authority,
    metastore_namespace,
    normalize_path,
    parse_dataset,
    parse_job_name,
    table_dataset,
    under,
)


@pytest.mark.parametrize(("location", "namespace", "name"), [
    ("file:///srv/data/in/2026/03", "file", "/srv/data/in/2026/03"),
    ("file:/srv/data/in", "file", "/srv/data/in"),  # Hadoop's spelling
    ("/srv/data//in/./x/", "file", "/srv/data/in/x"),
    ("file://localhost/srv/a", "file", "/srv/a"),
    ("file://nas-1/exports/a", "file://nas-1", "/exports/a"),
    ("hdfs://nn.example.com:8020/data/in/2026", "hdfs://nn.example.com:8020", "/data/in/2026"),
    ("hdfs://nn:8020/data/in/../out/", "hdfs://nn:8020", "/data/out"),
    ("s3a://bucket/data/in/2026", "s3://bucket", "data/in/2026"),
    ("s3n://bucket/key", "s3://bucket", "key"),
    ("s3://bucket/a//b/", "s3://bucket", "a/b"),
    ("gs://bucket/x/y", "gs://bucket", "x/y"),
    ("abfss://box@acct.dfs.core.windows.net/p/q", "abfss://box@acct.dfs.core.windows.net", "/p/q"),
    ("catalog:sales:orders#ds=${YEAR}", "hive://default", "sales.orders"),
])
def test_locations_follow_the_naming_conventions(location: str, namespace: str, name: str) -> None:
    assert location_dataset(location) == DatasetId(namespace, name)


def test_tables_are_named_by_their_metastore() -> None:
    assert metastore_namespace("thrift://meta.example.com:9083", "c1") == "hive://meta.example.com:9083"
    assert metastore_namespace("meta:9083", "c1") == "hive://meta:9083"
    assert metastore_namespace("thrift://a:9083,thrift://b:9083", "c1") == "hive://a:9083"
    assert metastore_namespace(None, "c1") == metastore_namespace(" ", "c1") == "hive://c1"
    assert table_dataset("db", "t", "hive://m:1") == DatasetId("hive://m:1", "db.t")
    assert location_dataset("catalog:db:t#ds=1", table_namespace="hive://m:1") == DatasetId("hive://m:1", "db.t")


@pytest.mark.parametrize("dataset", [
    DatasetId("file", "/srv/a b/c"), DatasetId("hdfs://nn:8020", "/data/x"), DatasetId("s3://bucket", "k/l"),
    DatasetId("gs://b", "o"), DatasetId("hive://m:9083", "db.table"), DatasetId("falcon://primary", "clicks"),
    DatasetId("file://nas", "/e/x"),
])
def test_dataset_uris_read_back(dataset: DatasetId) -> None:
    assert parse_dataset(dataset.uri) == dataset


def test_feed_names_are_not_dataset_uris() -> None:
    assert parse_dataset("clicks") is None and parse_dataset("clicks@primary") is None
    assert feed_dataset("primary", "clicks") == DatasetId("falcon://primary", "clicks")
    assert feed_dataset("primary", "clicks").uri == "falcon://primary/clicks"


def test_under_and_normalize() -> None:
    folder = DatasetId("file", "/d/in/05")
    assert under(DatasetId("file", "/d/in/05/part-0"), folder) and under(folder, folder)
    assert not under(DatasetId("file", "/d/in/050"), folder)
    assert not under(DatasetId("hdfs://nn:1", "/d/in/05/x"), folder)
    assert normalize_path("a/./b/../c") == "a/c" and normalize_path("/../x") == "/x"


def test_job_names_of_our_dags() -> None:
    assert parse_job_name("falcon.process.count-clicks.primary.workflow") == JobName(
        "process", "count-clicks", ("primary",), "workflow")
    assert parse_job_name("falcon.feed.logs.retention.east.retention") == JobName(
        "retention", "logs", ("east",), "retention")
    assert parse_job_name("falcon.feed.logs.replication.east.west.replicate") == JobName(
        "replication", "logs", ("east", "west"), "replicate")
    assert parse_job_name("falcon.process.count.local") is None  # the DAG itself
    assert parse_job_name("spark.count-lines") is None


def test_a_spark_jobs_metastore_and_jdbc_names() -> None:
    assert metastore_authority("thrift://ms1:9083,thrift://ms2:9083") == "hive://ms1:9083"
    assert metastore_authority("") is None and metastore_authority(None) is None
    jdbc = jdbc_dataset("jdbc:postgresql://db:5432/shop", "public.orders")
    assert (jdbc.namespace, jdbc.name) == ("postgres://db:5432", "shop.public.orders")


@pytest.mark.parametrize(("url", "expected"), [
    pytest.param("jdbc:postgresql://alice:Pa55word@db:5432/shop?password=Pa55word", ("postgres://db:5432", "shop"),
                 id="postgres-userinfo-and-query"),
    pytest.param("jdbc:mysql://db:3306/shop?user=alice&password=Pa55word", ("mysql://db:3306", "shop"),
                 id="mysql-query"),
    pytest.param("jdbc:mysql://address=(host=db)(port=3306)(user=alice)(password=Pa55word)/shop",
                 ("mysql://db:3306", "shop"), id="mysql-address-form"),
    pytest.param("jdbc:sqlserver://db:1433;databaseName=shop;user=alice;password=Pa55word",
                 ("sqlserver://db:1433", "shop"), id="sqlserver"),
    pytest.param("jdbc:oracle:thin:alice/Pa55word@//db:1521/shop", ("oracle://db:1521", "shop"), id="oracle"),
    pytest.param("jdbc:db2://db:50000/shop:user=alice;password=Pa55word;", ("db2://db:50000", "shop"), id="db2"),
])
def test_a_jdbc_name_holds_no_credential(url: str, expected: tuple[str, str]) -> None:
    dataset = jdbc_dataset(url, "orders")
    assert (dataset.namespace, dataset.name) == (expected[0], f"{expected[1]}.orders")
    assert "alice" not in dataset.namespace + dataset.name and "Pa55word" not in dataset.namespace + dataset.name
