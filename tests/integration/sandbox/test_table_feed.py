"""A table feed on the sandbox's Hive metastore, through real Airflow (dag.test) and real Spark: replication waits
for the source partition in the metastore, copies its data from HDFS cluster A to cluster B, creates the missing
target table and registers the partition; retention drops expired partitions and their data on both, leaving
another feed's slice of the table and files outside the partitions alone; lineage names the tables hive://.
Setting up and inspecting the tables is the test's own Spark script (apps/tables.py), not the product's code."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pendulum
import pytest
from tests.integration.airflow.test_lineage import EventLog
from tests.integration.sandbox.conftest import APPS, WebHdfs
from tests.integration.sandbox.test_lifecycle import run_dag, sandbox_cluster

from falcon_airflow.instances.metastore import partition_exists
from falcon_airflow.sandbox import Endpoints

# Spark in local mode: the standalone master has its own test (test_lifecycle); here the tables are the subject.
LOCAL_SPARK = "local[2]"
pytestmark = [pytest.mark.sandbox, pytest.mark.xdist_group("sandbox")]

FEED = """\
<feed name="page-views" xmlns="uri:falcon:feed:0.1">
  <frequency>hours(1)</frequency>
  <clusters>
    <cluster name="a" type="source">
      <validity start="2026-01-01T00:00Z" end="2099-01-01T00:00Z"/>
      <retention limit="hours(5)" action="delete"/>
    </cluster>
    <cluster name="b" type="target">
      <validity start="2026-01-01T00:00Z" end="2099-01-01T00:00Z"/>
      <retention limit="hours(5)" action="delete"/>
      <table uri="catalog:falcon_b:page_views#ds=${YEAR}${MONTH}${DAY}${HOUR};region=eu"/>
    </cluster>
  </clusters>
  <table uri="catalog:falcon_a:page_views#ds=${YEAR}${MONTH}${DAY}${HOUR};region=eu"/>
  <ACL owner="tester" group="users" permission="*"/>
  <schema location="/none" provider="hcatalog"/>
</feed>
"""

MOMENT = pendulum.datetime(2026, 3, 1, 5, tz="UTC")
SOURCE, TARGET = "falcon_a.page_views", "falcon_b.page_views"


def tables(sandbox: Endpoints, tmp_path: Path, *argv: str) -> str:
    """The test's own script (apps/tables.py) on a local Spark with the sandbox's metastore."""
    submit = Path(sys.executable).parent / "spark-submit"
    command = [str(submit), "--master", "local[1]", "--driver-memory", "512m",
               "--conf", f"spark.hadoop.hive.metastore.uris={sandbox.metastore}",
               "--conf", "spark.sql.catalogImplementation=hive", "--conf", "spark.ui.enabled=false",
               "--conf", f"spark.pyspark.python={sys.executable}",
               "--driver-java-options", "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC",
               str(APPS / "tables.py"), *argv]
    environment = {**os.environ, "PYSPARK_PYTHON": sys.executable, "PYSPARK_DRIVER_PYTHON": sys.executable,
                   "SPARK_LOCAL_IP": "127.0.0.1"}
    result = subprocess.run(command, capture_output=True, text=True, timeout=600, cwd=tmp_path, env=environment,
                            check=False)
    assert result.returncode == 0, result.stderr[-4000:]
    return result.stdout


def show(sandbox: Endpoints, tmp_path: Path) -> dict[str, Any]:
    line = next(line for line in tables(sandbox, tmp_path, "show", SOURCE, TARGET).splitlines()
                if line.startswith("TABLES "))
    return dict(json.loads(line.removeprefix("TABLES ")))


def hour(moment: pendulum.DateTime) -> str:
    return moment.format("YYYYMMDDHH")


def test_table_feed_replication_and_retention_on_the_metastore(
        entities: Callable[..., Path], sandbox: Endpoints, event_log: EventLog, shared: Path,
        tmp_path: Path) -> None:
    # Cluster a names the sandbox's metastore by another host name: to the product the two clusters have two
    # metastores, so replication takes the path of a real DR pair (the source partition and table read over the
    # source metastore's thrift API, the target table created in the target's from that definition).
    source_metastore = sandbox.metastore.replace("127.0.0.1", "localhost")
    for name, metastore in (("a", source_metastore), ("b", sandbox.metastore)):
        entities(f"{name}.xml", sandbox_cluster(name, sandbox.namenode(name), sandbox, metastore=metastore,
                                                spark=LOCAL_SPARK))
    entities("page-views.xml", FEED)
    a, b = WebHdfs(sandbox.webhdfs("a")), WebHdfs(sandbox.webhdfs("b"))
    source_location = f"{sandbox.namenode('a')}/warehouse/falcon_a.db/page_views"

    now = pendulum.now("UTC").start_of("hour")
    expired = [now.subtract(hours=hours) for hours in (7, 30)]
    kept = [now.subtract(hours=hours) for hours in (1, 2)]
    slices = [f"{hour(moment)}/eu" for moment in (MOMENT, *expired, *kept)]
    other_slice = f"{hour(expired[1])}/us"  # the same table, another feed's region: never this feed's to drop
    tables(sandbox, tmp_path, "create", f"falcon_a={sandbox.namenode('a')}/warehouse/falcon_a.db",
           f"falcon_b={sandbox.namenode('b')}/warehouse/falcon_b.db", SOURCE, source_location, *slices, other_slice)
    a.put("/warehouse/falcon_a.db/page_views/README", b"keep me\n")  # beside the partitions, in no partition

    # What the replication DAG's sensor asks: is the partition in the metastore? (and a missing one is not)
    metastore = sandbox.metastore.rstrip("/")
    assert partition_exists(f"{metastore}/falcon_a/page_views/ds={hour(MOMENT)}/region=eu")
    assert not partition_exists(f"{metastore}/falcon_a/page_views/ds={hour(MOMENT)}/region=nowhere")
    assert partition_exists(f"{metastore}/falcon_a/page_views/ds={hour(MOMENT)}")  # the rest of the key left open

    # Replication: the target table does not exist yet; the run creates it on cluster B and adds the partition.
    run_dag("falcon.feed.page-views.replication.a.b", MOMENT, event_log)
    state = show(sandbox, tmp_path)
    target = state[TARGET]
    assert target is not None and target["type"] == "EXTERNAL"
    assert target["location"] == f"{sandbox.namenode('b')}/warehouse/falcon_b.db/page_views"
    assert target["columns"] == state[SOURCE]["columns"]
    name = f"ds={hour(MOMENT)}/region=eu"
    assert list(target["partitions"]) == [name] and target["partitions"][name]["rows"] == 10
    source_folder = f"/warehouse/falcon_a.db/page_views/{name}"
    target_folder = f"/warehouse/falcon_b.db/page_views/{name}"
    assert target["partitions"][name]["location"] == f"{sandbox.namenode('b')}{target_folder}"
    copied, original = b.files(target_folder), a.files(source_folder)
    assert copied == original and any(item.startswith("part-") for item in copied)  # byte for byte

    # Retention on both clusters: expired partitions of this feed's slice go, with their data.
    for cluster in ("a", "b"):
        run_dag(f"falcon.feed.page-views.retention.{cluster}", now, event_log)
    state = show(sandbox, tmp_path)
    left = set(state[SOURCE]["partitions"])
    assert left == {f"ds={hour(moment)}/region=eu" for moment in kept} | {f"ds={hour(expired[1])}/region=us"}
    assert state[TARGET]["partitions"] == {}
    for moment in (MOMENT, *expired):
        assert not a.exists(f"/warehouse/falcon_a.db/page_views/ds={hour(moment)}/region=eu")
    assert not b.exists(target_folder)
    assert a.exists(f"/warehouse/falcon_a.db/page_views/ds={hour(expired[1])}/region=us")
    assert a.read("/warehouse/falcon_a.db/page_views/README") == b"keep me\n"

    # Lineage names the tables in the metastore's namespace, as the OpenLineage naming spec says.
    event_log.validate(shared)
    datasets = {(dataset["namespace"], dataset["name"]) for event in event_log.events()
                for dataset in [*(event.get("inputs") or []), *(event.get("outputs") or [])]}
    source_namespace, target_namespace = (
        "hive://" + uri.removeprefix("thrift://").rstrip("/") for uri in (source_metastore, sandbox.metastore))
    assert {(source_namespace, SOURCE), (target_namespace, TARGET)} <= datasets, datasets


COUNTS_FEED = """\
<feed name="view-counts" xmlns="uri:falcon:feed:0.1">
  <frequency>hours(1)</frequency>
  <clusters>
    <cluster name="a" type="source">
      <validity start="2026-01-01T00:00Z" end="2099-01-01T00:00Z"/>
      <retention limit="days(30)" action="delete"/>
    </cluster>
  </clusters>
  <table uri="catalog:falcon_a:view_counts#ds=${YEAR}${MONTH}${DAY}${HOUR};kind=hourly"/>
  <ACL owner="tester" group="users" permission="*"/>
  <schema location="/none" provider="hcatalog"/>
</feed>
"""

COUNT_VIEWS = """\
<process name="count-views" xmlns="uri:falcon:process:0.1">
  <clusters><cluster name="a"><validity start="2026-01-01T00:00Z" end="2099-01-01T00:00Z"/></cluster></clusters>
  <parallel>1</parallel>
  <order>FIFO</order>
  <frequency>hours(1)</frequency>
  <inputs><input name="views" feed="page-views" start="now(0,0)" end="now(0,0)"/></inputs>
  <outputs><output name="counts" feed="view-counts" instance="now(0,0)"/></outputs>
  <workflow engine="hive" path="apps/count_views.hql"/>
  <ACL owner="tester" group="users" permission="*"/>
</process>
"""

# Written as Falcon's Hive processes were: the catalog properties of the table input and output as variables.
COUNT_VIEWS_SCRIPT = """\
CREATE TABLE IF NOT EXISTS ${falcon_counts_database}.${falcon_counts_table} (region STRING, views BIGINT)
  PARTITIONED BY (ds STRING, kind STRING) STORED AS PARQUET;
INSERT OVERWRITE TABLE ${falcon_counts_database}.${falcon_counts_table}
  PARTITION (${falcon_counts_partitions_hive}, kind='hourly')
  SELECT region, count(*) AS views FROM ${falcon_views_database}.${falcon_views_table}
  WHERE ${falcon_views_filter} GROUP BY region;
"""


def test_a_hive_process_reads_and_writes_tables_through_falcons_catalog_properties(
        entities: Callable[..., Path], sandbox: Endpoints, tmp_path: Path) -> None:
    for name in ("a", "b"):
        entities(f"{name}.xml", sandbox_cluster(name, sandbox.namenode(name), sandbox, spark=LOCAL_SPARK))
    entities("page-views.xml", FEED.replace("falcon_a:page_views", "falcon_p:page_views")
             .replace("falcon_b:page_views", "falcon_p:page_views_b"))
    entities("view-counts.xml", COUNTS_FEED.replace("falcon_a:", "falcon_p:"))
    entities("count-views.xml", COUNT_VIEWS)
    entities("apps/count_views.hql", COUNT_VIEWS_SCRIPT)
    location = f"{sandbox.namenode('a')}/warehouse/falcon_p.db/page_views"
    earlier = MOMENT.subtract(hours=1)
    tables(sandbox, tmp_path, "create", f"falcon_p={sandbox.namenode('a')}/warehouse/falcon_p.db",
           "falcon_p.page_views", location, f"{hour(MOMENT)}/eu", f"{hour(MOMENT)}/us", f"{hour(earlier)}/eu")

    run_dag("falcon.process.count-views.a", MOMENT)

    line = next(line for line in tables(sandbox, tmp_path, "show", "falcon_p.view_counts").splitlines()
                if line.startswith("TABLES "))
    counts = json.loads(line.removeprefix("TABLES "))["falcon_p.view_counts"]
    assert counts is not None and counts["columns"] == ["region", "views", "ds", "kind"]
    # the instance's partition only, counted from the input instance's partition only (not us, not an hour earlier)
    assert list(counts["partitions"]) == [f"ds={hour(MOMENT)}/kind=hourly"]
    assert counts["partitions"][f"ds={hour(MOMENT)}/kind=hourly"]["rows"] == 1
    assert str(counts["location"]).startswith(f"{sandbox.namenode('a')}/warehouse/falcon_p.db/view_counts")
