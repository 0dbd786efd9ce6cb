"""Reading an extension job's properties file: Java's properties syntax, Falcon's property names, and every
mistake reported with its file, line and rule."""

from __future__ import annotations

from pathlib import Path

from tests.builders import cluster

from falcon_airflow.compiler import compile_workspace
from falcon_airflow.compiler.extension import compile_extension
from falcon_airflow.entities import Cluster
from falcon_airflow.entities.extension import ExtensionName, read_job
from falcon_airflow.parsing import parse_bytes
from falcon_airflow.validation import validate_paths
from falcon_airflow.validation.extensions import validate_job
from falcon_airflow.workspace import Workspace

HDFS_JOB = """\
# the monthly sales mirror
jobName = sales-dr
jobClusterName: backup
jobValidityStart=2026-03-01T00:00Z
jobValidityEnd=2027-03-01T00:00Z
jobFrequency=hours(1)
jobTags=owner=dr@example.com, tier=gold
sourceCluster=primary
sourceDir=/data/sales, \\
    /data/returns
targetCluster=backup
targetDir=/backup/sales
distcpMaxMaps=4
"""


def test_an_hdfs_mirroring_job() -> None:
    job, issues = read_job("hdfs-mirroring", HDFS_JOB, "sales.properties")
    assert issues == [] and job is not None
    assert (job.name, job.cluster, job.source_dirs, job.target_dir, job.max_maps) == (
        "sales-dr", "backup", ("/data/sales", "/data/returns"), "/backup/sales", 4)
    assert job.line == 2 and job.line_of("targetDir") == 12
    assert job.tag_pairs[:2] == (("_falcon_extension_name", "hdfs-mirroring"), ("_falcon_extension_job", "sales-dr"))
    assert ("tier", "gold") in job.tags


def test_every_mistake_is_reported_with_its_line() -> None:
    text = HDFS_JOB.replace("targetDir", "targetDirectory").replace("hours(1)", "hourly") \
        .replace("distcpMaxMaps=4", "distcpMaxMaps=0").replace("/data/sales,", "data/sales,")
    job, issues = read_job("hdfs-mirroring", text, "sales.properties")
    assert job is None
    found = {(issue.rule, issue.line, issue.message) for issue in issues}
    assert ("EXT1", 12, "hdfs-mirroring has no property targetDirectory; did you mean targetDir?") in found
    assert any(rule == "EXT2" and "needs property targetDir" in message for rule, _, message in found)
    assert ("EXT3", 6, "jobFrequency is 'hourly': write minutes(n), hours(n), days(n) or months(n)") in found
    assert ("EXT3", 13, "distcpMaxMaps is '0': it must be a whole number of at least 1") in found
    assert ("EXT3", 9, "sourceDir 'data/sales' is not an absolute, normalised path") in found
    assert all(issue.file == "sales.properties" and issue.entity == "sales-dr" for issue in issues)
    _, unknown = read_job("dfs-mirroring", HDFS_JOB, "x.properties")
    assert unknown[0].rule == "EXT1" and "unknown extension 'dfs-mirroring'" in unknown[0].message


def test_snapshot_and_hive_jobs() -> None:
    base = "\n".join(HDFS_JOB.splitlines()[1:8]) + "\ntargetCluster=backup\n"
    snapshot = base + ("sourceSnapshotDir=/data/orders\ntargetSnapshotDir=/dr/orders\n"
                       "sourceSnapshotRetentionAgeLimit=days(7)\nsourceSnapshotRetentionNumber=3\n"
                       "targetSnapshotRetentionAgeLimit=days(30)\ntargetSnapshotRetentionNumber=5\n")
    job, issues = read_job("hdfs-snapshot-mirroring", snapshot, "orders.properties")
    assert issues == [] and job is not None and job.extension is ExtensionName.HDFS_SNAPSHOT_MIRRORING
    assert job.source_retention is not None and (job.source_retention.age_limit, job.source_retention.number) == (
        "days(7)", 3)
    hive = base + "sourceDatabases=sales,hr\nsourceTables=monthly\n"
    _, issues = read_job("hive-mirroring", hive, "hive.properties")
    assert [issue.message for issue in issues] == ["sourceTables needs exactly one database in sourceDatabases"]


def test_clusters_are_checked_against_the_workspace_and_the_job_compiles() -> None:
    job, _ = read_job("hdfs-mirroring", HDFS_JOB, "sales.properties")
    assert job is not None
    clusters: dict[str, Cluster] = {}
    for name in ("primary", "backup"):
        parsed = parse_bytes(cluster(name, storage=f"hdfs://{name}:8020").encode(), f"{name}.xml").entity
        assert isinstance(parsed, Cluster)
        clusters[name] = parsed
    assert validate_job(job, clusters) == []
    missing = validate_job(job, {"backup": clusters["backup"]})
    assert [(issue.rule, issue.line) for issue in missing] == [("EXT4", 8)]
    spec = compile_extension(clusters, job)
    assert spec.dag_id == "falcon.extension.sales-dr" and spec.target == "hdfs://backup:8020/backup/sales"
    assert spec.sources == ("hdfs://primary:8020/data/sales", "hdfs://primary:8020/data/returns")
    arguments = list(spec.job.arguments)
    assert arguments[0] == "hdfs" and arguments[arguments.index("--max-maps") + 1] == "4"
    assert "--map-bandwidth" not in arguments
    paced = compile_extension(clusters, job.model_copy(update={"map_bandwidth_mb": 100})).job.arguments
    assert paced[paced.index("--map-bandwidth") + 1] == "100"
    onto_itself = job.model_copy(update={"target_cluster": "primary", "target_dir": "/data/sales/copy"})
    assert [issue.rule for issue in validate_job(onto_itself, clusters)] == ["EXT6"]


def test_validate_and_the_compiler_read_the_jobs_of_an_entities_folder(tmp_path: Path) -> None:
    for name in ("primary", "backup"):
        (tmp_path / f"{name}.xml").write_text(cluster(name, storage=f"hdfs://{name}:8020"), encoding="utf-8")
    jobs = tmp_path / "extensions" / "hdfs-mirroring"
    jobs.mkdir(parents=True)
    (jobs / "sales-dr.properties").write_text(HDFS_JOB, encoding="utf-8")
    (jobs / "broken.properties").write_text(HDFS_JOB.replace("sales-dr", "broken")
                                            .replace("targetCluster=backup", "targetCluster=nowhere"))
    report = validate_paths([str(tmp_path)])
    assert [(issue.rule, issue.file, issue.line, issue.entity) for issue in report.issues] == [
        ("EXT4", str(jobs / "broken.properties"), 11, "broken")]
    compilation = compile_workspace(Workspace.load([str(tmp_path)]), entities_dir=tmp_path)
    assert [spec.dag_id for spec in compilation.specs] == ["falcon.extension.sales-dr"]
    assert [issue.rule for issue in compilation.report.issues] == ["EXT4"]
