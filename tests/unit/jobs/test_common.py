"""The pure pieces only the lifecycle jobs use: safe paths, URIs, SQL of table URIs, include globs (the rules they share
with the Airflow side are tested in tests/unit/core)."""

from __future__ import annotations

import pytest

from falcon_airflow.jobs import filesystem
from falcon_airflow.jobs.catalog import parse_partition_name, parse_table_uri, qualified, spec_sql
from falcon_airflow.jobs.frame import UsageError
from falcon_airflow.jobs.uris import (
    Uri,
    checked_path,
    include_pattern,
    include_prefix,
    is_under,
    parse_location,
    split_paths,
    split_uri,
)

LA = "America/Los_Angeles"


def test_safe_paths() -> None:
    assert checked_path("//data//in/2015/") == "/data/in/2015"
    assert checked_path("/") == "/"
    for bad in ("/data/../etc", "/data/./x", "data/x"):
        with pytest.raises(ValueError):
            checked_path(bad)
    assert is_under("/a/b", "/a") and not is_under("/a", "/a") and not is_under("/ab", "/a")
    assert is_under("/a", "/") and not is_under("/", "/")
    with pytest.raises(UsageError, match=r"\.\."):
        parse_location("file:///data/../x", "--target-path")


def test_uris() -> None:
    uri = split_uri("file:///tmp/x")
    assert (uri.scheme, uri.authority, uri.path, uri.root) == ("file", "", "/tmp/x", "file://")
    hadoop = split_uri("file:/tmp/x/y")
    assert (hadoop.scheme, hadoop.authority, hadoop.path) == ("file", None, "/tmp/x/y")
    assert uri.same_filesystem(hadoop)
    hdfs = split_uri("hdfs://nn:8020/data")
    assert hdfs.root == "hdfs://nn:8020" and hdfs.same_filesystem(split_uri("hdfs://nn/x"))
    assert not hdfs.same_filesystem(split_uri("hdfs://other:8020/data"))
    # two namenodes of one host (the sandbox, a federated test estate) are two file systems
    assert not hdfs.same_filesystem(split_uri("hdfs://nn:9000/data"))
    assert not hdfs.same_filesystem(uri)
    assert split_uri("/bare/path") == Uri(None, None, "/bare/path")


# CatalogStorageTest: table URI grammar
def test_table_uri() -> None:
    table = parse_table_uri("catalog:clicksdb:clicks#ds=${YEAR}-${MONTH}-${DAY};region=us")
    assert (table.database, table.table) == ("clicksdb", "clicks")
    assert table.partitions == (("ds", "${YEAR}-${MONTH}-${DAY}"), ("region", "us"))
    assert table.dated_keys == ("ds",)
    assert table.static_partitions == {"region": "us"}


@pytest.mark.parametrize(("text", "message"), [
    ("catalog:default:clicks:ds=x#region=us", "<database>:<table>"),
    ("default:clicks:ds=x#region=us", "catalog scheme is missing"),
    ("catalog:default#ds=x", "<database>:<table>"),
    ("catalog://default/clicks#ds=x:region=us", "<database>:<table>"),
    ("catalog:default:clicks", "partition details after '#' are missing"),
    ("catalog::clicks#ds=1", "database name is missing"),
    ("catalog:db:#ds=1", "table name is missing"),
    ("catalog:db:t#ds", "not a single key=value pair"),
    ("catalog:db:t#ds=1=2", "not a single key=value pair"),
    ("catalog:db;drop:t#ds=1", "plain identifier"),
])
def test_invalid_table_uris(text: str, message: str) -> None:
    with pytest.raises(UsageError, match=message):
        parse_table_uri(text)


def test_table_sql() -> None:
    table = parse_table_uri("catalog:db:t#ds=${YEAR}${MONTH}${DAY};hr=?{HOUR};region=us")
    assert table.partitions[1] == ("hr", "${HOUR}")  # Falcon's Oozie spelling, read as the variable
    assert qualified(table) == "`db`.`t`"
    assert spec_sql(table, {"ds": "2015", "region": "o'k"}) == "PARTITION (`ds`='2015', `region`='o\\'k')"
    assert parse_partition_name("ds=2015-01-01 00%3A00/region=us") == {"ds": "2015-01-01 00:00",
                                                                       "region": "us"}


# FilteredCopyListingTest-like include patterns over relative file paths
TREE = ["1/1", "1/3/4", "1/3/7", "1/3/40", "2/3/4", "2/3/5/a", "2/3/47", "3/2/4", "1/3/4/deep/file"]


@pytest.mark.parametrize(("glob", "expected"), [
    ("*/3/*", ["1/3/4", "1/3/7", "1/3/40", "2/3/4", "2/3/5/a", "2/3/47", "1/3/4/deep/file"]),
    ("*/3/?", ["1/3/4", "1/3/7", "2/3/4", "2/3/5/a", "1/3/4/deep/file"]),
    ("*/3/[47]", ["1/3/4", "1/3/7", "2/3/4", "1/3/4/deep/file"]),
    ("*/3/40", ["1/3/40"]),
    ("*/3/{4,7}", ["1/3/4", "1/3/7", "2/3/4", "1/3/4/deep/file"]),
    ("1/*", ["1/1", "1/3/4", "1/3/7", "1/3/40", "1/3/4/deep/file"]),
    ("2/3/[!4]*", ["2/3/5/a"]),
])
def test_include_patterns(glob: str, expected: list[str]) -> None:
    pattern = include_pattern(glob)
    assert sorted(path for path in TREE if pattern.match(path)) == sorted(expected)


@pytest.mark.parametrize("glob", ["/abs/*", "a/../b", "a/{b", "a/[b", ""])
def test_bad_include_patterns(glob: str) -> None:
    with pytest.raises(UsageError):
        include_pattern(glob)


@pytest.mark.parametrize(("glob", "prefix"), [
    ("US/*", "US"), ("*/3/*", ""), ("a/b/c", "a/b/c"), ("a/b*/c", "a"), ("colo/{x,y}/*", "colo"), ("IN", "IN"),
])
def test_include_prefix(glob: str, prefix: str) -> None:
    assert include_prefix(glob) == prefix


def test_split_paths_keeps_brace_commas() -> None:
    assert split_paths("file:///a/{x,y}/*, file:///b") == ["file:///a/{x,y}/*", "file:///b"]
    assert split_paths("") == []


@pytest.mark.parametrize(("text", "expected"), [
    ("DeprecatedRawLocalFileStatus{path=file:/d/2015/01; isDirectory=true; modification_time=1; access_time=1; "
     "owner=; group=; permission=rwxrwxrwx; isSymlink=false; hasAcl=false; isEncrypted=false; isErasureCoded=false}",
     ("file:/d/2015/01", True, 0, 1, False)),
    ("HdfsNamedFileStatus{path=hdfs://nn:8020/d/a b; x; isDirectory=false; length=42; replication=3; "
     "blocksize=134217728; modification_time=1700000000000; access_time=0; owner=falcon; group=hadoop; "
     "permission=rw-r--r--; isSymlink=true; symlink=hdfs://nn:8020/elsewhere; hasAcl=false; isEncrypted=false; "
     "isErasureCoded=false}", ("hdfs://nn:8020/d/a b; x", False, 42, 1700000000000, True)),
    ("S3AFileStatus{path=s3a://b/k/part-0; isDirectory=false; length=7; replication=1; blocksize=33554432; "
     "modification_time=5; access_time=0; owner=u; group=u; permission=rw-rw-rw-; isSymlink=false; hasAcl=false; "
     "isEncrypted=true; isErasureCoded=false} isEmptyDirectory=FALSE eTag=abc versionId=null",
     ("s3a://b/k/part-0", False, 7, 5, False)),
])
def test_bulk_status_text(text: str, expected: tuple[str, bool, int, int, bool]) -> None:
    """The statuses' toString, read in bulk by HadoopFs (one py4j call for a whole listing)."""
    match = filesystem._STATUS_TEXT.match(text)
    assert match is not None
    assert (match["path"], match["dir"] == "true", int(match["length"] or 0), int(match["mtime"]),
            match["link"] == "true") == expected
