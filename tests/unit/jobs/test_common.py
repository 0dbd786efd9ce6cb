"""The pure pieces the lifecycle jobs share: Falcon's path → time rules, cut-offs, table URIs, include globs."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from falcon_airflow.jobs import common

LA = "America/Los_Angeles"


def utc(text: str) -> datetime:
    return common.parse_instant(text)


# FeedHelperTest#testGetDateFromPath (falcon-el §2.6, rows P1-P16)
GET_DATE_CASES = [
    ("P1", "/data/${YEAR}/${MONTH}/${DAY}/${HOUR}/${MINUTE}", "/data/2015/01/01/00/30", "UTC", "2015-01-01T00:30Z"),
    ("P2", "/data/${YEAR}-${MONTH}-${DAY}-${HOUR}-${MINUTE}", "/data/2015-01-01-01-00", "UTC", "2015-01-01T01:00Z"),
    ("P3", "/data/${YEAR}/${MONTH}/${DAY}", "/data/2015/01/01", "UTC", "2015-01-01T00:00Z"),
    ("P4", "/data/${YEAR}/${MONTH}/${DAY}/data", "/data/2015/01/01/data", "UTC", "2015-01-01T00:00Z"),
    ("P5", "/data/${YEAR}/${MONTH}/${DAY}/${HOUR}/${MINUTE}", "/data/2015-01-01/00/30", "UTC", None),
    ("P6", "/data/${YEAR}/${MONTH}/${DAY}/${HOUR}/${MINUTE}/data", "/data/2015-01-01/00/30", "UTC", None),
    ("P7", "/d/${YEAR}/${MONTH}/${DAY}/${HOUR}/data", "/d/2015/05/25/00/data/{p1}/p2", "UTC", "2015-05-25T00:00Z"),
    ("P8", "/data/${YEAR}/${MONTH}/${DAY}/${HOUR}/${MINUTE}/data", "/data/2015/05/25/00/00/{p1}/p2", "UTC", None),
    ("P9", "/d/${YEAR}/${MONTH}/M", "/d/2015/11/M", "UTC", "2015-11-01T00:00Z"),
    ("P10", "/d/${YEAR}/${MONTH}/${DAY}/M", "/d/2015/11/02/M", "UTC", "2015-11-02T00:00Z"),
    ("P11", "/d/${YEAR}/${MONTH}/${DAY}/${HOUR}/M", "/d/2015/11/01/04/M", "UTC", "2015-11-01T04:00Z"),
    ("P12", "/d/${YEAR}/${MONTH}/${DAY}/${HOUR}/${MINUTE}/M", "/d/2015/11/01/04/15/M", "UTC", "2015-11-01T04:15Z"),
    ("P13", "/d/${YEAR}/${MONTH}/M", "/d/2015/11/M", LA, "2015-11-01T07:00Z"),
    ("P14", "/d/${YEAR}/${MONTH}/${DAY}/M", "/d/2015/11/02/M", LA, "2015-11-02T08:00Z"),
    ("P15", "/d/${YEAR}/${MONTH}/${DAY}/${HOUR}/M", "/d/2015/11/01/04/M", LA, "2015-11-01T12:00Z"),
    ("P16", "/d/${YEAR}/${MONTH}/${DAY}/${HOUR}/${MINUTE}/M", "/d/2015/11/01/04/15/M", "Asia/Kolkata",
     "2015-10-31T22:45Z"),
]


@pytest.mark.parametrize(("case", "template", "path", "zone", "expected"), GET_DATE_CASES,
                         ids=[case[0] for case in GET_DATE_CASES])
def test_instance_time_from_path(case: str, template: str, path: str, zone: str, expected: str | None) -> None:
    moment = common.Template.parse(template).instance_time(path, common.parse_zone(zone))
    assert (common.format_instant(moment) if moment else None) == expected


# FeedDataPathTest: the value rules per variable
@pytest.mark.parametrize(("variable", "accepted", "rejected"), [
    ("MINUTE", ["00", "01", "60"], ["0", "1", "61", "010", " 1", "1 "]),
    ("HOUR", ["00", "01", "10", "12", "19", "24"], ["0", "1", "2", "25", "29"]),
    ("DAY", ["01", "10", "29", "30", "31"], ["00", "32"]),
    ("MONTH", ["01", "02", "10", "12"], ["00", "13", "19"]),
    ("YEAR", ["0001", "2014"], ["201", "20145", "2O14"]),
])
def test_variable_values(variable: str, accepted: list[str], rejected: list[str]) -> None:
    assert all(common.accepts_value(variable, text) for text in accepted)
    assert not any(common.accepts_value(variable, text) for text in rejected)


def test_lenient_calendar_rolls_hour_24_and_minute_60_over() -> None:
    template = common.Template.parse("/d/${YEAR}/${MONTH}/${DAY}/${HOUR}${MINUTE}")
    zone = common.parse_zone("UTC")
    assert common.format_instant(template.instance_time("/d/2015/01/31/2400", zone)) == "2015-02-01T00:00Z"
    assert common.format_instant(template.instance_time("/d/2015/02/28/2360", zone)) == "2015-03-01T00:00Z"
    assert common.format_instant(template.instance_time("/d/2015/02/31/0000", zone)) == "2015-03-03T00:00Z"


def test_unreadable_paths_are_not_instances() -> None:
    template = common.Template.parse("/data/${YEAR}/${MONTH}/${DAY}")
    zone = common.parse_zone("UTC")
    for path in ("/data/bad-va-lue/01/01", "/data/2015/01/bad-va-lue", "/data/2015/13/01", "/data/2015/01/1",
                 "/data/20155/01/01", "/data/2015/01/01.bak", "/other/2015/01/01"):
        assert template.instance_time(path, zone) is None, path
    assert common.Template.parse("/data/${MONTH}/${DAY}").instance_time("/data/01/02", zone) is None  # no year


def test_repeated_variables_must_agree() -> None:
    template = common.Template.parse("/data/YYYY/feed1/mmHH/dd/MM/${YEAR}-${MONTH}-${DAY}/more/${YEAR}")
    zone = common.parse_zone("UTC")
    assert common.format_instant(template.instance_time(
        "/data/YYYY/feed1/mmHH/dd/MM/2015-03-04/more/2015", zone)) == "2015-03-04T00:00Z"
    assert template.instance_time("/data/YYYY/feed1/mmHH/dd/MM/2015-03-04/more/2016", zone) is None


def test_template_glob_base_folder_and_oozie_spelling() -> None:
    template = common.Template.parse("/data/in/x?{YEAR}/${MONTH}/a[b]/${DAY}")
    assert template.text == "/data/in/x${YEAR}/${MONTH}/a[b]/${DAY}"
    assert template.glob() == "/data/in/x*/*/a\\[b\\]/*"
    assert template.base_folder == "/data/in"
    assert common.Template.parse("/${YEAR}").base_folder == "/"
    assert common.Template.parse("/data/static").base_folder == "/data/static"
    assert not common.Template.parse("/data/static").is_dated
    with pytest.raises(common.UsageError, match="not a path variable"):
        common.Template.parse("/data/${YEARS}/x")


def test_resolve_is_the_inverse_of_instance_time() -> None:
    template = common.Template.parse("/d/${YEAR}/${MONTH}/${DAY}/${HOUR}/${MINUTE}")
    zone = common.parse_zone("Asia/Kolkata")
    moment = utc("2015-10-31T22:45Z")
    assert template.resolve(moment, zone) == "/d/2015/11/01/04/15"
    assert template.instance_time(template.resolve(moment, zone), zone) == moment


def test_span_end_bounds_the_instances_of_a_folder() -> None:
    zone = common.parse_zone("UTC")
    assert common.Template("/b/${YEAR}").span_end("/b/2015", zone) == utc("2016-01-01T00:00Z")
    assert common.Template("/b/${YEAR}/${MONTH}").span_end("/b/2015/12", zone) == utc("2016-01-01T00:00Z")
    assert common.Template("/b/${YEAR}/${MONTH}").span_end("/b/2015/02", zone) == utc("2015-03-01T00:00Z")
    assert common.Template("/b/${YEAR}-${MONTH}-${DAY}").span_end("/b/2015-02-28", zone) == utc("2015-03-01T00:00Z")
    assert common.Template("/b/${MONTH}").span_end("/b/02", zone) is None  # does not bound its instances
    assert common.Template("/b/${YEAR}/${DAY}").span_end("/b/2015/02", zone) is None
    la = common.parse_zone(LA)
    assert common.Template("/b/${YEAR}/${MONTH}/${DAY}").span_end("/b/2015/11/01", la) == utc("2015-11-02T08:00Z")


# EvictionHelperTest: limits in exact minutes, months as 31 days
@pytest.mark.parametrize(("text", "minutes"), [
    ("minutes(5)", 5), ("hours(5)", 300), ("days(10)", 14400), ("months(5)", 5 * 31 * 1440), ("${hours(2)}", 120),
])
def test_durations(text: str, minutes: int) -> None:
    assert common.parse_duration(text).minutes == minutes
    assert common.parse_duration(text).delta == timedelta(minutes=minutes)


@pytest.mark.parametrize("text", ["weeks(1)", "hours", "hours(-1)", "hours(0)", "5 hours", ""])
def test_bad_durations(text: str) -> None:
    with pytest.raises(common.UsageError):
        common.parse_duration(text)


def test_instants_and_zones() -> None:
    assert common.parse_instant("2015-01-01T10:00Z") == datetime(2015, 1, 1, 10, 0, tzinfo=UTC)
    assert common.parse_instant("2015-01-01T10:00:30Z").second == 30
    for bad in ("2015-01-01 10:00", "2015-13-01T10:00Z", "yesterday"):
        with pytest.raises(common.UsageError):
            common.parse_instant(bad)
    assert common.parse_zone("GMT+05:30").utcoffset(None) == timedelta(hours=5, minutes=30)
    assert common.parse_zone("UTC-08:00").utcoffset(None) == timedelta(hours=-8)
    with pytest.raises(common.UsageError, match="unknown time zone"):
        common.parse_zone("Mars/Olympus")
    with pytest.raises(common.UsageError):
        common.parse_zone("../etc/passwd")


def test_safe_paths() -> None:
    assert common.normalize_path("//data//in/2015/") == "/data/in/2015"
    assert common.normalize_path("/") == "/"
    for bad in ("/data/../etc", "/data/./x", "data/x"):
        with pytest.raises(ValueError):
            common.normalize_path(bad)
    assert common.is_under("/a/b", "/a") and not common.is_under("/a", "/a") and not common.is_under("/ab", "/a")
    assert common.is_under("/a", "/") and not common.is_under("/", "/")
    with pytest.raises(common.UsageError, match=r"\.\."):
        common.parse_location("file:///data/../x", "--target-path")


def test_uris() -> None:
    uri = common.split_uri("file:///tmp/x")
    assert (uri.scheme, uri.authority, uri.path, uri.root) == ("file", "", "/tmp/x", "file://")
    hadoop = common.split_uri("file:/tmp/x/y")
    assert (hadoop.scheme, hadoop.authority, hadoop.path) == ("file", None, "/tmp/x/y")
    assert uri.same_filesystem(hadoop)
    hdfs = common.split_uri("hdfs://nn:8020/data")
    assert hdfs.root == "hdfs://nn:8020" and hdfs.same_filesystem(common.split_uri("hdfs://nn/x"))
    assert not hdfs.same_filesystem(common.split_uri("hdfs://other:8020/data"))
    assert not hdfs.same_filesystem(uri)
    assert common.split_uri("/bare/path") == common.Uri(None, None, "/bare/path")


# CatalogStorageTest: table URI grammar
def test_table_uri() -> None:
    table = common.parse_table_uri("catalog:clicksdb:clicks#ds=${YEAR}-${MONTH}-${DAY};region=us")
    assert (table.database, table.table) == ("clicksdb", "clicks")
    assert table.partitions == (("ds", "${YEAR}-${MONTH}-${DAY}"), ("region", "us"))
    assert table.dated_keys == ("ds",)
    assert table.static_partitions == {"region": "us"}


@pytest.mark.parametrize(("text", "message"), [
    ("catalog:default:clicks:ds=x#region=us", "database:table"),
    ("default:clicks:ds=x#region=us", "catalog scheme is missing"),
    ("catalog:default#ds=x", "database:table"),
    ("catalog://default/clicks#ds=x:region=us", "database:table"),
    ("catalog:default:clicks", "Partition details are missing"),
    ("catalog::clicks#ds=1", "DB name is missing"),
    ("catalog:db:#ds=1", "Table name is missing"),
    ("catalog:db:t#ds", "not specified properly"),
    ("catalog:db:t#ds=1=2", "not specified properly"),
    ("catalog:db;drop:t#ds=1", "plain identifier"),
])
def test_invalid_table_uris(text: str, message: str) -> None:
    with pytest.raises(common.UsageError, match=message):
        common.parse_table_uri(text)


def test_lexicographic_partition_filter() -> None:
    table = common.parse_table_uri("catalog:db:t#ds=${YEAR}${MONTH}${DAY};hr=${HOUR};region=us")
    cutoff = table.cutoff_values(utc("2015-01-05T10:00Z"), common.parse_zone("UTC"))
    assert cutoff == ("20150105", "10")
    assert table.is_older({"ds": "20150104", "hr": "23", "region": "us"}, cutoff)  # k1 < v1
    assert table.is_older({"ds": "20150105", "hr": "09", "region": "us"}, cutoff)  # k1 = v1 and k2 < v2
    assert not table.is_older({"ds": "20150105", "hr": "10", "region": "us"}, cutoff)  # equal: kept
    assert not table.is_older({"ds": "20150106", "hr": "00", "region": "us"}, cutoff)
    assert not table.is_older({"ds": "20150101", "hr": "00", "region": "eu"}, cutoff)  # another feed's slice
    assert table.spec_sql({"ds": "2015", "region": "o'k"}) == "PARTITION (`ds`='2015', `region`='o\\'k')"
    assert common.parse_partition_name("ds=2015-01-01 00%3A00/region=us") == {"ds": "2015-01-01 00:00",
                                                                              "region": "us"}
    assert table.dated_template().instance_time("ds=20150104/hr=07", common.parse_zone("UTC")) == \
        utc("2015-01-04T07:00Z")


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
    pattern = common.include_pattern(glob)
    assert sorted(path for path in TREE if pattern.match(path)) == sorted(expected)


@pytest.mark.parametrize("glob", ["/abs/*", "a/../b", "a/{b", "a/[b", ""])
def test_bad_include_patterns(glob: str) -> None:
    with pytest.raises(common.UsageError):
        common.include_pattern(glob)


@pytest.mark.parametrize(("glob", "prefix"), [
    ("US/*", "US"), ("*/3/*", ""), ("a/b/c", "a/b/c"), ("a/b*/c", "a"), ("colo/{x,y}/*", "colo"), ("IN", "IN"),
])
def test_include_prefix(glob: str, prefix: str) -> None:
    assert common.include_prefix(glob) == prefix


def test_split_paths_keeps_brace_commas() -> None:
    assert common.split_paths("file:///a/{x,y}/*, file:///b") == ["file:///a/{x,y}/*", "file:///b"]
    assert common.split_paths("") == []


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
    match = common._STATUS_TEXT.match(text)
    assert match is not None
    assert (match["path"], match["dir"] == "true", int(match["length"] or 0), int(match["mtime"]),
            match["link"] == "true") == expected
