"""Feed DAG specs: Falcon's retention schedule and replication coordinator facts (falcon-runtime.md §6.1, §6.2)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from tests.builders import cluster, interface

from falcon_airflow.compiler import compile_workspace
from falcon_airflow.compiler.feed import retention_frequency
from falcon_airflow.compiler.specs import ReplicationDagSpec, RetentionDagSpec
from falcon_airflow.workspace import Workspace


def hadoop_cluster(name: str, *interfaces: str) -> str:
    """A cluster on HDFS with YARN (no Spark master of its own) in the colo ``<name>-colo``."""
    return cluster(name, f"hdfs://{name}:8020", colo=f"{name}-colo", readonly=f"hftp://{name}:50070", spark=None,
                   interfaces=(interface("execute", f"{name}:8032"), *interfaces))


FEED = """<feed name="f" xmlns="uri:falcon:feed:0.1">
  <frequency>{frequency}</frequency>
  <clusters>
    <cluster name="src" type="source" {delay}>
      <validity start="2026-01-01T00:00Z" end="2027-01-01T00:00Z"/><retention limit="days(10)" action="delete"/>
    </cluster>
    <cluster name="trg" type="target">
      <validity start="2026-01-01T00:00Z" end="2026-06-01T00:00Z"/><retention limit="months(5)" action="delete"/>
    </cluster>
  </clusters>
  <locations><location type="data" path="/data/f/${{YEAR}}/${{MONTH}}/${{DAY}}/${{HOUR}}/${{MINUTE}}"/>
    <location type="stats" path="/stats/f/${{YEAR}}/${{MONTH}}/${{DAY}}"/></locations>
  <ACL owner="etl" group="g" permission="*"/>
  <schema location="/s" provider="csv"/>
  <properties>{properties}</properties>
  {lifecycle}
</feed>
"""


def specs(tmp_path: Path, *, frequency: str = "minutes(20)", delay: str = "", properties: str = "",
          lifecycle: str = "") -> list[object]:
    (tmp_path / "src.xml").write_text(hadoop_cluster("src"))
    (tmp_path / "trg.xml").write_text(hadoop_cluster("trg"))
    (tmp_path / "f.xml").write_text(FEED.format(frequency=frequency, delay=delay, properties=properties,
                                                lifecycle=lifecycle))
    compilation = compile_workspace(Workspace.load([str(tmp_path)]))
    assert compilation.report.valid, compilation.report.issues
    return list(compilation.specs)


@pytest.mark.parametrize(("frequency", "expected"), [
    ("minutes(36000)", "days(1)"), ("hours(2)", "hours(6)"), ("minutes(50)", "hours(6)"), ("days(1)", "days(1)"),
])
def test_legacy_retention_frequency(tmp_path: Path, frequency: str, expected: str) -> None:
    retention = [spec for spec in specs(tmp_path, frequency=frequency) if isinstance(spec, RetentionDagSpec)]
    assert {spec.schedule.frequency for spec in retention} == {expected}


@pytest.mark.parametrize(("frequency", "stage", "expected"), [
    ("days(10)", "", "days(10)"), ("hours(1)", "", "hours(6)"), ("minutes(10)", "", "hours(6)"),
    ("hours(7)", "", "hours(7)"), ("days(2)", "", "days(2)"), ("hours(1)", "<frequency>hours(17)</frequency>",
                                                                  "hours(17)"),
])
def test_lifecycle_retention_frequency(tmp_path: Path, frequency: str, stage: str, expected: str) -> None:
    lifecycle = (f"<lifecycle><retention-stage>{stage}<properties><property "
                 f'name="retention.policy.agebaseddelete.limit" value="days(20)"/></properties>'
                 f"</retention-stage></lifecycle>")
    retention = [spec for spec in specs(tmp_path, frequency=frequency, lifecycle=lifecycle)
                 if isinstance(spec, RetentionDagSpec)]
    assert {spec.schedule.frequency for spec in retention} == {expected}
    assert {spec.limit for spec in retention} == {"days(20)"}


def test_retention_spec_carries_every_location_and_runs_right_away(tmp_path: Path) -> None:
    (source, target) = [spec for spec in specs(tmp_path) if isinstance(spec, RetentionDagSpec)]
    assert source.dag_id == "falcon.feed.f.retention.src" and target.dag_id == "falcon.feed.f.retention.trg"
    assert source.locations == {"data": "hdfs://src:8020/data/f/${YEAR}/${MONTH}/${DAY}/${HOUR}/${MINUTE}",
                                "stats": "hdfs://src:8020/stats/f/${YEAR}/${MONTH}/${DAY}"}
    assert target.limit == "months(5)" and source.schedule.catchup is False
    assert source.job.master == "yarn" and source.owner == "etl"
    arguments = list(source.job.arguments)
    assert arguments[arguments.index("--limit") + 1] == "days(10)"


def test_replication_window_delay_and_controls(tmp_path: Path) -> None:
    (replication,) = [spec for spec in specs(tmp_path, delay='delay="minutes(40)"',
                                             properties='<property name="parallel" value="2"/>')
                      if isinstance(spec, ReplicationDagSpec)]
    assert replication.dag_id == "falcon.feed.f.replication.src.trg"
    assert replication.schedule.start == "2026-01-01T00:40Z" and replication.schedule.end == "2026-06-01T00:00Z"
    assert replication.delay_minutes == 40 and replication.wait_timeout_seconds == 120 * 60
    assert replication.parallel == 2 and replication.order == "FIFO"
    assert replication.source_feed.location.startswith("hftp://src:50070/data/f/")  # read from readonly
    assert replication.target_feed.location.startswith("hdfs://trg:8020/data/f/")
    assert "macros.falcon.replicated_instance(falcon.source, dag_run, 40)" in " ".join(replication.job.arguments)


def test_retention_frequency_helper_matches_the_specs(tmp_path: Path) -> None:
    workspace_specs = specs(tmp_path, frequency="hours(2)")
    assert workspace_specs  # compiled
    feed = Workspace.load([str(tmp_path)]).feeds["f"]
    assert str(retention_frequency(feed, feed.clusters[0])) == "hours(6)"


TABLE_FEED = """<feed name="t" xmlns="uri:falcon:feed:0.1">
  <frequency>hours(1)</frequency>
  <clusters>
    <cluster name="src" type="source">
      <validity start="2026-01-01T00:00Z" end="2027-01-01T00:00Z"/><retention limit="days(10)" action="delete"/>
    </cluster>
    <cluster name="trg" type="target">
      <validity start="2026-01-01T00:00Z" end="2027-01-01T00:00Z"/><retention limit="days(10)" action="delete"/>
      <table uri="catalog:dr:clicks#ds=${YEAR}${MONTH}${DAY}${HOUR}"/>
    </cluster>
  </clusters>
  <table uri="catalog:web:clicks#ds=${YEAR}${MONTH}${DAY}${HOUR}"/>
  <ACL owner="etl" group="g" permission="*"/>
  <schema location="/s" provider="hcatalog"/>
</feed>
"""


def test_a_table_replication_knows_both_metastores_and_the_target_storage(tmp_path: Path) -> None:
    for name in ("src", "trg"):
        (tmp_path / f"{name}.xml").write_text(hadoop_cluster(name, interface("registry", f"thrift://{name}-meta:9083")))
    (tmp_path / "t.xml").write_text(TABLE_FEED)
    compilation = compile_workspace(Workspace.load([str(tmp_path)]))
    assert compilation.report.valid, compilation.report.issues
    (replication,) = [spec for spec in compilation.specs if isinstance(spec, ReplicationDagSpec)]
    arguments = list(replication.job.arguments)
    assert arguments[arguments.index("--source-metastore") + 1] == "thrift://src-meta:9083"
    assert arguments[arguments.index("--target-storage") + 1] == "hdfs://trg:8020"
    assert replication.job.conf["spark.hadoop.hive.metastore.uris"] == "thrift://trg-meta:9083"  # the session's
    assert replication.source_feed.metastore == "thrift://src-meta:9083"  # what the sensor asks
    assert replication.source_feed.marker(datetime(2026, 3, 1, 5, tzinfo=UTC)) == \
        "thrift://src-meta:9083/web/clicks/ds=2026030105"
