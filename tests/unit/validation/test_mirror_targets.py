"""Where a mirror may write. A mirror replaces its target folder (files its source lacks are deleted), so the target
of an hdfs-mirroring or snapshot mirroring job is refused when it is, holds or lies inside a feed's location of any
type on the same file system (FA045), or is a folder the file system or the clusters need: the root, ``/user``,
``/tmp``, ``/apps``, ``/home``, a user's home, a cluster's storage root, staging, working or temp folder, a Hive
warehouse, anything shallower than the target cluster's ``falcon.mirror.min.depth`` (FA046). Paths are compared as
storage reads them: default ports, case of scheme and host, trailing slashes, ``..`` and percent-encoding."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.builders import cluster, feed

from falcon_airflow.compiler import compile_workspace
from falcon_airflow.entities import Cluster, Feed
from falcon_airflow.entities.extension import ExtensionJob, read_job
from falcon_airflow.parsing import parse_bytes
from falcon_airflow.validation import validate_paths
from falcon_airflow.validation.extensions import validate_job
from falcon_airflow.workspace import Workspace


def mirror_cluster(name: str, storage: str, properties: dict[str, str] | None = None) -> str:
    """A cluster in the colo ``<name>-colo`` with staging, working and temp folders of its own."""
    return cluster(name, storage, colo=f"{name}-colo", properties=properties,
                   locations={"staging": f"/apps/falcon/{name}/staging", "working": f"/apps/falcon/{name}/working",
                              "temp": f"/scratch/{name}"})


JOB = """\
jobName=sales-dr
jobClusterName=backup
jobValidityStart=2026-03-01T00:00Z
jobValidityEnd=2027-03-01T00:00Z
jobFrequency=hours(1)
sourceCluster=primary
sourceDir=/data/sales
targetCluster=backup
targetDir={target}
"""

SNAPSHOT = """\
jobName=sales-snap
jobClusterName=backup
jobValidityStart=2026-03-01T00:00Z
jobValidityEnd=2027-03-01T00:00Z
jobFrequency=hours(1)
sourceCluster=primary
sourceSnapshotDir=/data/sales
sourceSnapshotRetentionAgeLimit=days(7)
sourceSnapshotRetentionNumber=3
targetCluster=backup
targetSnapshotDir={target}
targetSnapshotRetentionAgeLimit=days(7)
targetSnapshotRetentionNumber=3
"""

LOCATIONS = """<locations>
    <location type="data" path="/data/clicks/${YEAR}/${MONTH}/${DAY}/${HOUR}"/>
    <location type="stats" path="/stats/clicks/${YEAR}"/>
    <location type="meta" path="hdfs://backup:8020/meta/clicks"/>
    <location type="tmp" path="/tmp/clicks/${YEAR}"/>
  </locations>"""


def _cluster(name: str, storage: str, properties: dict[str, str] | None = None) -> Cluster:
    parsed = parse_bytes(mirror_cluster(name, storage, properties).encode(), f"{name}.xml")
    assert isinstance(parsed.entity, Cluster), parsed.issues
    return parsed.entity


def _feed(name: str, cluster: str, locations: str) -> Feed:
    text = feed(name, clusters=((cluster, "source"),))
    text = text.replace(text[text.index("<locations>"):text.index("</locations>") + len("</locations>")],
                        locations)
    parsed = parse_bytes(text.encode(), f"{name}.xml")
    assert isinstance(parsed.entity, Feed), parsed.issues
    return parsed.entity


@pytest.fixture(scope="module")
def clusters() -> dict[str, Cluster]:
    warehouse = {"hive.metastore.warehouse.dir": "/hive/managed"}
    return {"primary": _cluster("primary", "hdfs://primary:8020"),
            "backup": _cluster("backup", "hdfs://backup:8020", warehouse),
            "twin": _cluster("twin", "hdfs://BACKUP"),  # the same namenode, written another way
            "shallow": _cluster("shallow", "hdfs://shallow:8020", {"falcon.mirror.min.depth": "3"})}


@pytest.fixture(scope="module")
def feeds() -> dict[str, Feed]:
    return {"clicks": _feed("clicks", "backup", LOCATIONS),
            "orders": _feed("orders", "twin", '<locations><location type="data" path="/orders/${YEAR}"/></locations>'),
            "sales": _feed("sales", "primary",
                           '<locations><location type="data" path="/keep/sales/${YEAR}"/></locations>')}


def job(target: str, *, snapshot: bool = False, cluster: str = "backup") -> ExtensionJob:
    text = (SNAPSHOT if snapshot else JOB).format(target=target).replace("targetCluster=backup",
                                                                          f"targetCluster={cluster}")
    found, issues = read_job("hdfs-snapshot-mirroring" if snapshot else "hdfs-mirroring", text, "job.properties")
    assert found is not None, issues
    return found


FEED_LOCATIONS = [
    ("/data/clicks", "feed clicks"),  # the data location's folder
    ("/data", "feed clicks"),  # above it
    ("/data/clicks/2026/03", "feed clicks"),  # inside it
    ("/stats/clicks/x", "feed clicks"),  # the stats location
    ("/meta/clicks", "feed clicks"),  # the meta location, written as a full URI
    ("/tmp/clicks", "feed clicks"),  # the tmp location
    ("hdfs://backup/data/clicks/", "feed clicks"),  # default port, trailing slash
    ("hdfs://Backup:8020/data/%63licks", "feed clicks"),  # host case, percent-encoding
    ("/keep/%2e%2e/data/clicks/2026", "feed clicks"),  # '..' once decoded
    ("/orders/2026", "feed orders"),  # a feed of another cluster on the same namenode
]


@pytest.mark.parametrize("snapshot", [False, True], ids=["hdfs", "snapshot"])
@pytest.mark.parametrize(("target", "feed_name"), FEED_LOCATIONS, ids=[item[0] for item in FEED_LOCATIONS])
def test_a_target_on_a_feeds_location_is_refused(clusters: dict[str, Cluster], feeds: dict[str, Feed],
                                                 target: str, feed_name: str, snapshot: bool) -> None:
    issues = validate_job(job(target, snapshot=snapshot), clusters, feeds)
    fa045 = [issue for issue in issues if issue.rule == "FA045"]
    assert fa045, issues
    key = "targetSnapshotDir" if snapshot else "targetDir"
    assert all(issue.file == "job.properties" and issue.line == (11 if snapshot else 9) for issue in fa045)
    assert any(f"{key} {target}" in issue.message and feed_name in issue.message
               and "deleting" in issue.message for issue in fa045), [issue.message for issue in fa045]


FOLDERS = [
    ("/", "root"),
    ("/user", "/user"),
    ("/tmp/", "/tmp"),
    ("/apps", "/apps"),
    ("/home", "/home"),
    ("/user/alice", "home folder"),
    ("/home/bob/", "home folder"),
    ("/backup", "folder(s) deep"),
    ("/apps/falcon/backup/staging/mirror", "staging"),
    ("/apps/falcon/backup", "staging"),  # above the staging and working folders
    ("/apps/falcon/backup/working", "working"),
    ("/scratch/backup/x", "temp"),
    ("/user/hive/warehouse/sales.db", "Hive warehouse"),
    ("/hive/managed/sales.db", "Hive warehouse"),  # the cluster's hive.metastore.warehouse.dir
    ("/warehouse/tablespace/managed/hive", "Hive warehouse"),
    ("hdfs://backup/user/", "/user"),
    ("hdfs://BACKUP:8020//tmp", "/tmp"),
    ("/%75ser", "/user"),
    ("/mirror/%2e%2e/user", "/user"),
    ("/mirror/%252e%252e/tmp", "/tmp"),
]


@pytest.mark.parametrize(("target", "what"), FOLDERS, ids=[item[0] for item in FOLDERS])
def test_a_target_on_a_folder_the_cluster_needs_is_refused(clusters: dict[str, Cluster], feeds: dict[str, Feed],
                                                           target: str, what: str) -> None:
    issues = [issue for issue in validate_job(job(target), clusters, feeds) if issue.rule == "FA046"]
    assert issues and any(what in issue.message for issue in issues), [issue.message for issue in issues]
    assert all(issue.entity == "sales-dr" and issue.line == 9 for issue in issues)


@pytest.mark.parametrize("target", ["/mirror/sales", "/mirror/a/b", "hdfs://backup:8020/mirror/sales/",
                                    "/keep/sales", "/user/alice/backup", "/tmp/mirror/sales", "/datasets/clicks"])
def test_a_target_of_its_own_is_accepted(clusters: dict[str, Cluster], feeds: dict[str, Feed], target: str) -> None:
    # /keep/sales is feed sales's folder on primary: another file system
    assert validate_job(job(target), clusters, feeds) == []


def test_the_minimum_depth_is_the_target_clusters(clusters: dict[str, Cluster], feeds: dict[str, Feed]) -> None:
    assert [issue.rule for issue in validate_job(job("/mirror/sales", cluster="shallow"), clusters, feeds)] == [
        "FA046"]
    assert validate_job(job("/mirror/sales/daily", cluster="shallow"), clusters, feeds) == []


def test_validate_and_the_loader_leave_such_a_job_out(tmp_path: Path, clusters: dict[str, Cluster]) -> None:
    for name in ("primary", "backup"):
        (tmp_path / f"{name}.xml").write_text(mirror_cluster(name, f"hdfs://{name}:8020"), encoding="utf-8")
    clicks = feed("clicks", clusters=(("backup", "source"),), path="/data/clicks/${YEAR}")
    (tmp_path / "clicks.xml").write_text(clicks, encoding="utf-8")
    jobs = tmp_path / "extensions" / "hdfs-mirroring"
    jobs.mkdir(parents=True)
    (jobs / "sales-dr.properties").write_text(JOB.format(target="/data/clicks"), encoding="utf-8")
    report = validate_paths([str(tmp_path)])
    assert [(issue.rule, issue.line, issue.entity) for issue in report.issues if issue.is_error] == [
        ("FA045", 9, "sales-dr")]
    compilation = compile_workspace(Workspace.load([str(tmp_path)]), entities_dir=tmp_path)
    assert not [spec for spec in compilation.specs if spec.dag_id == "falcon.extension.sales-dr"]
