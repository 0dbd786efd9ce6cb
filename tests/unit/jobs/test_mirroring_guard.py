"""The mirroring job checks every folder it would replace before anything is copied or deleted: never a folder the
file system or the clusters need, never a protected folder the compiler names (feed locations, cluster folders),
never too shallow; the compiled DAG hands the job those folders. A refusal is exit 1 with one clear line, and no
Spark session is ever asked for."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tests.builders import feed

from falcon_airflow.compiler.extension import compile_extension
from falcon_airflow.entities import Cluster, Feed
from falcon_airflow.entities.extension import read_job
from falcon_airflow.jobs import mirroring
from falcon_airflow.jobs.frame import JobError
from falcon_airflow.jobs.uris import parse_location
from falcon_airflow.parsing import parse_bytes


class Untouchable:
    """A Spark session that must not be used: a refused target stops the job before any Spark work."""

    touched: list[str]

    def __init__(self) -> None:
        object.__setattr__(self, "touched", [])

    def __getattr__(self, name: str) -> Any:
        self.touched.append(name)
        raise AssertionError(f"the job used Spark ({name}) before refusing its target")


BASE = ["--job", "m1", "--source-cluster", "east", "--target-cluster", "west", "--instance", "2026-05-01T00:00Z"]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, Untouchable]:
    spark = Untouchable()
    code = mirroring.main(list(argv), spark=spark)  # type: ignore[arg-type]
    return code, capsys.readouterr().err, spark


def hdfs(target: str, *extra: str, sources: tuple[str, ...] = ("hdfs://east:8020/data/sales",)) -> list[str]:
    return ["hdfs", *BASE, *(item for source in sources for item in ("--source-dir", source)),
            "--target-dir", target, *extra]


def snapshot(target: str, *extra: str) -> list[str]:
    return ["snapshot", *BASE, "--source-dir", "hdfs://east:8020/data/sales", "--target-dir", target,
            "--source-keep", "3", "--source-age-seconds", "60", "--target-keep", "3", "--target-age-seconds", "60",
            *extra]


STORAGE = ("--storage-root", "hdfs://west:8020")
ZONE = ("--protected-zone", "hdfs://west:8020/data/clicks", "feed clicks's data location on cluster west")

REFUSED = [
    (hdfs("hdfs://west:8020/"), "the file system's root"),
    (hdfs("hdfs://west/user", *STORAGE), "the /user folder"),
    (hdfs("hdfs://WEST:8020/tmp", *STORAGE), "the /tmp folder"),
    (hdfs("hdfs://west:8020/apps", *STORAGE), "the /apps folder"),
    (hdfs("hdfs://west:8020/user/alice", *STORAGE), "a user's home folder"),
    (hdfs("hdfs://west:8020/backup", *STORAGE), "folder(s) deep"),
    (hdfs("hdfs://west:8020/user/hive/warehouse/sales.db", *STORAGE), "Hive warehouse"),
    (hdfs("hdfs://west:8020/data/clicks/2026", *STORAGE, *ZONE), "feed clicks"),
    (hdfs("hdfs://west:8020/data", *STORAGE, *ZONE), "feed clicks"),
    (hdfs("hdfs://west:8020/mirror/%2e%2e/user", *STORAGE), "the /user folder"),
    (hdfs("hdfs://west:8020/mirror/x", *STORAGE, "--min-depth", "3"), "folder(s) deep"),
    (hdfs("hdfs://west:8020/mirror", *STORAGE, "--protected-root", "hdfs://west:8020/mirror/shared", "a shared root"),
     "a shared root"),
    # several sources: each lands under the target by name, and each of those folders is checked
    (hdfs("hdfs://west:8020/data", *STORAGE, *ZONE, sources=("hdfs://east:8020/a/x", "hdfs://east:8020/b/clicks")),
     "feed clicks"),
    (snapshot("hdfs://west:8020/user", *STORAGE), "the /user folder"),
    (snapshot("hdfs://west:8020/data/clicks", *STORAGE, *ZONE), "feed clicks"),
]


@pytest.mark.parametrize(("argv", "why"), REFUSED, ids=[" ".join(item[0][-3:]) for item in REFUSED])
def test_a_protected_target_is_refused_before_spark_is_used(capsys: pytest.CaptureFixture[str], argv: list[str],
                                                           why: str) -> None:
    code, err, spark = run(capsys, *argv)
    assert code == 1, err
    assert "refused to mirror onto" in err and why in err and "nothing was copied or deleted" in err
    assert "Traceback" not in err and spark.touched == []


def test_a_symbolic_link_is_followed_before_judging(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    storage = tmp_path / "west"
    (storage / "data" / "clicks").mkdir(parents=True)
    (storage / "mirror").mkdir()
    (storage / "mirror" / "sales").symlink_to(storage / "data" / "clicks")
    code, err, spark = run(capsys, *hdfs(f"file://{storage}/mirror/sales", "--storage-root", f"file://{storage}",
                                         "--protected-zone", f"file://{storage}/data/clicks", "feed clicks",
                                         sources=(f"file://{tmp_path}/east/sales",)))
    assert code == 1 and "feed clicks" in err and f"really file://{storage}/data/clicks" in err, err
    assert spark.touched == []


class FakeTable:
    def __init__(self, location: str, partitions: list[str]) -> None:
        self.location = location
        self.partitions = partitions

    def getTableType(self) -> str:
        return "EXTERNAL_TABLE"

    def getSd(self) -> Any:
        return type("Sd", (), {"getLocation": lambda _: self.location})()

    def getPartitionKeys(self) -> list[str]:
        return ["ds"] if self.partitions else []


class FakeSource:
    def __init__(self, tables: dict[str, FakeTable]) -> None:
        self.tables = tables

    def getTable(self, database: str, name: str) -> FakeTable:
        return self.tables[name]

    def listPartitions(self, database: str, name: str, limit: int) -> list[Any]:
        return [type("P", (), {"getSd": lambda _, where=where: type("Sd", (), {"getLocation": lambda _: where})()})()
                for where in self.tables[name].partitions]

    def getAllTables(self, database: str) -> list[str]:
        return sorted(self.tables)


@pytest.mark.parametrize(("tables", "why"), [
    ({"t": FakeTable("hdfs://east:8020/user", [])}, "the /user folder"),
    ({"t": FakeTable("hdfs://east:8020/warehouse/db.db/t", ["hdfs://east:8020/tmp"])}, "the /tmp folder"),
    ({"a": FakeTable("hdfs://east:8020/warehouse/db.db/a", []),  # fine, but the next table is not: nothing runs
      "b": FakeTable("hdfs://east:8020/data/clicks/2026", [])}, "feed clicks"),
], ids=["table-folder", "partition-folder", "second-table"])
def test_a_table_mirror_checks_every_folder_before_it_replaces_any(tables: dict[str, FakeTable], why: str) -> None:
    args = mirroring.build_parser().parse_args([
        "hive", *BASE, "--source-metastore", "thrift://a:9083", "--target-metastore", "thrift://b:9083",
        "--target-storage", "hdfs://west:8020", "--database", "db", *STORAGE, *ZONE])
    hive = object.__new__(mirroring.HiveMirror)
    hive.args = args
    hive.spark = Untouchable()  # type: ignore[assignment]
    hive.storage = parse_location("hdfs://west:8020", "--target-storage")
    hive.source = type("Metastore", (), {"client": FakeSource(tables), "uri": "thrift://a:9083"})()
    hive.target = Untouchable()  # type: ignore[assignment]  # nothing is created on the target either
    with pytest.raises(JobError, match=why):
        hive.run()


CLUSTER = """<cluster name="{name}" colo="c" xmlns="uri:falcon:cluster:0.1">
  <interfaces>
    <interface type="readonly" endpoint="hdfs://{name}:8020" version="1"/>
    <interface type="write" endpoint="hdfs://{name}:8020" version="1"/>
    <interface type="spark" endpoint="local[2]" version="4"/>
  </interfaces>
  <locations><location name="staging" path="/apps/falcon/staging"/></locations>
  <properties><property name="falcon.mirror.min.depth" value="3"/></properties>
</cluster>
"""


def test_the_compiled_job_carries_the_protected_folders(capsys: pytest.CaptureFixture[str]) -> None:
    clusters = {}
    for name in ("east", "west"):
        parsed = parse_bytes(CLUSTER.format(name=name).encode(), f"{name}.xml").entity
        assert isinstance(parsed, Cluster)
        clusters[name] = parsed
    clicks = parse_bytes(feed("clicks", clusters=(("west", "source"),), path="/data/clicks/${YEAR}").encode(),
                         "clicks.xml").entity
    assert isinstance(clicks, Feed)
    text = ("jobName=m1\njobClusterName=west\njobValidityStart=2026-05-01T00:00Z\njobValidityEnd=2026-05-02T00:00Z\n"
            "jobFrequency=hours(1)\nsourceCluster=east\nsourceDir=/data/sales\ntargetCluster=west\n"
            "targetDir=/mirror/sales/daily\n")
    job, issues = read_job("hdfs-mirroring", text, "m1.properties")
    assert job is not None, issues
    arguments = list(compile_extension(clusters, job, {"clicks": clicks}).job.arguments)
    zones = [arguments[index + 1] for index, item in enumerate(arguments) if item == "--protected-zone"]
    assert "hdfs://west:8020/data/clicks" in zones and "hdfs://west:8020/apps/falcon/staging" in zones
    assert arguments[arguments.index("--min-depth") + 1] == "3"
    assert arguments[arguments.index("--storage-root") + 1] == "hdfs://west:8020"
    # the same arguments, pointed at the feed's folder: the job itself refuses
    argv = [str(item) for item in arguments]
    argv[argv.index("--target-dir") + 1] = "hdfs://west:8020/data/clicks/2026"
    argv[argv.index("--instance") + 1] = "2026-05-01T00:00Z"  # what Airflow renders
    report = argv.index("--report")
    del argv[report:report + 2]
    code, err, spark = run(capsys, *argv)
    assert code == 1 and "feed clicks" in err and spark.touched == []
