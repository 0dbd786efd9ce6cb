"""The lifecycle on real storage: a process on a Spark standalone master writes its output on HDFS cluster A,
replication copies it to HDFS cluster B and archives it to S3 (s3a://), retention on all three evicts expired
instances only; every DAG runs on real Airflow (dag.test) against the sandbox's services."""

from __future__ import annotations

import json
import shutil
import urllib.request
import xml.etree.ElementTree as ElementTree
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pendulum
import pytest
from tests import builders
from tests.integration.airflow.test_lineage import EventLog
from tests.integration.sandbox.conftest import APPS, S3, WebHdfs

from falcon_airflow.dags.builder import build_dag
from falcon_airflow.dags.loader import entities_folder, load_specs
from falcon_airflow.sandbox import Endpoints

pytestmark = [pytest.mark.sandbox, pytest.mark.xdist_group("sandbox")]

def sandbox_cluster(name: str, storage: str, sandbox: Endpoints, *, metastore: str | None = None,
                    properties: dict[str, str] | None = None, spark: str | None = None) -> str:
    """A cluster (colo ``name``) on the sandbox: ``storage``, the sandbox's Spark master (or ``spark``) and its
    metastore (or ``metastore``)."""
    return builders.cluster(name, storage, colo=name, spark=spark or sandbox.spark_master, properties=properties,
                            interfaces=builders.interface("registry", metastore or sandbox.metastore, "2.3.10"))


FEED = """\
<feed name="events" xmlns="uri:falcon:feed:0.1">
  <availabilityFlag>_DONE</availabilityFlag>
  <frequency>hours(1)</frequency>
  <clusters>
    <cluster name="a" type="source">
      <validity start="2026-01-01T00:00Z" end="2099-01-01T00:00Z"/>
      <retention limit="hours(5)" action="delete"/>
    </cluster>
    <cluster name="b" type="target">
      <validity start="2026-01-01T00:00Z" end="2099-01-01T00:00Z"/>
      <retention limit="hours(5)" action="delete"/>
    </cluster>
    <cluster name="archive" type="target">
      <validity start="2026-01-01T00:00Z" end="2099-01-01T00:00Z"/>
      <retention limit="hours(5)" action="delete"/>
    </cluster>
  </clusters>
  <locations><location type="data" path="/data/events/${YEAR}/${MONTH}/${DAY}/${HOUR}"/></locations>
  <ACL owner="tester" group="users" permission="*"/>
  <schema location="/none" provider="text"/>
</feed>
"""

PROCESS = """\
<process name="make-events" xmlns="uri:falcon:process:0.1">
  <clusters><cluster name="a"><validity start="2026-01-01T00:00Z" end="2099-01-01T00:00Z"/></cluster></clusters>
  <parallel>1</parallel>
  <order>FIFO</order>
  <frequency>hours(1)</frequency>
  <outputs><output name="events" feed="events" instance="now(0,0)"/></outputs>
  <workflow engine="spark" path="apps"/>
  <spark-attributes>
    <name>make-events</name>
    <jar>apps/make_events.py</jar>
    <spark-opts>--driver-memory 512m --executor-memory 512m --conf spark.ui.enabled=false</spark-opts>
  </spark-attributes>
  <ACL owner="tester" group="users" permission="*"/>
</process>
"""

MOMENT = pendulum.datetime(2026, 3, 1, 5, tz="UTC")


def write_entities(entities: Callable[..., Path], sandbox: Endpoints) -> None:
    shutil.copy(APPS / "make_events.py", entities_folder() / "apps" / "make_events.py")
    for name, storage, properties in (("a", sandbox.namenode("a"), None), ("b", sandbox.namenode("b"), None),
                                      ("archive", f"s3a://{sandbox.s3.bucket}", sandbox.s3.hadoop_properties())):
        entities(f"{name}.xml", sandbox_cluster(name, storage, sandbox, properties=properties))
    entities("events.xml", FEED)
    entities("make-events.xml", PROCESS)


def spec(dag_id: str) -> Any:
    specs, issues = load_specs(entities_folder())
    assert not [issue for issue in issues if issue["level"] == "error"], issues
    return next(item for item in specs if item.dag_id == dag_id)


def run_dag(dag_id: str, moment: pendulum.DateTime, event_log: EventLog | None = None) -> Any:
    dag = build_dag(spec(dag_id))
    run = dag.test(logical_date=moment)
    assert str(run.state) == "success", {ti.task_id: str(ti.state) for ti in run.get_task_instances()}
    if event_log is not None:
        event_log.dag_run_started(run, dag)
    return run


def instance(moment: pendulum.DateTime) -> str:
    return f"/data/events/{moment.format('YYYY/MM/DD/HH')}"


def test_the_sandbox_serves_every_endpoint(sandbox: Endpoints) -> None:
    for cluster in sandbox.hdfs:
        assert WebHdfs(cluster.webhdfs).exists("/")
    assert isinstance(S3(sandbox.s3.endpoint, sandbox.s3.bucket, sandbox.s3.access_key).keys(""), list)
    assert sandbox.metastore.startswith("thrift://127.0.0.1:") and sandbox.spark_master.startswith("spark://127.")
    assert sandbox.yarn.startswith("127.0.0.1:") and sandbox.yarn_webapp.startswith("http://127.0.0.1:")
    with urllib.request.urlopen(f"{sandbox.yarn_webapp}/ws/v1/cluster/nodes", timeout=30) as response:
        nodes = json.loads(response.read())["nodes"]["node"]
    assert [node["state"] for node in nodes] == ["RUNNING"]
    site = ElementTree.parse(Path(sandbox.hadoop_conf_dir) / "yarn-site.xml").getroot()
    settings = {item.findtext("name"): item.findtext("value") for item in site.iter("property")}
    host, port = str(settings["yarn.resourcemanager.address"]).split(":")
    assert host in ("localhost", "127.0.0.1") and port == sandbox.yarn.split(":")[1]


def test_process_replication_and_retention_on_hdfs_and_s3(entities: Callable[..., Path], sandbox: Endpoints,
                                                          event_log: EventLog, shared: Path) -> None:
    write_entities(entities, sandbox)
    a, b = WebHdfs(sandbox.webhdfs("a")), WebHdfs(sandbox.webhdfs("b"))
    s3 = S3(sandbox.s3.endpoint, sandbox.s3.bucket, sandbox.s3.access_key)

    # The process runs its PySpark workflow on the standalone master and writes its output instance on A.
    run_dag("falcon.process.make-events.a", MOMENT, event_log)
    written = a.files(instance(MOMENT))
    assert "_DONE" in written and sum(data.count(b"\n") for data in written.values()) == 1000

    # Replication copies it to B (hdfs -> hdfs) and archives it to S3 (hdfs -> s3a), byte for byte.
    run_dag("falcon.feed.events.replication.a.b", MOMENT, event_log)
    run_dag("falcon.feed.events.replication.a.archive", MOMENT, event_log)
    assert b.files(instance(MOMENT)) == written
    parts = [name for name in written if name.startswith("part-")]
    assert parts and all(a.checksum(f"{instance(MOMENT)}/{name}") == b.checksum(f"{instance(MOMENT)}/{name}")
                         for name in parts)
    prefix = instance(MOMENT).lstrip("/") + "/"
    archived = {key.removeprefix(prefix): s3.read(key) for key in s3.keys(prefix)}
    assert archived == written

    # Retention on all three: expired instances go; recent ones, decoys and folders outside the template stay.
    now = pendulum.now("UTC").start_of("hour")
    expired = [now.subtract(hours=hours) for hours in (7, 30)]
    kept = [now.subtract(hours=hours) for hours in (1, 2)]
    decoys = ["/data/events/README", "/data/events/2026/not-an-hour/part-0", "/data/other/2026/01/01/00/part-0",
              f"/data/events/{now.format('YYYY/MM/DD')}/notes.txt"]
    for moment in (*expired, *kept):
        for path in (f"{instance(moment)}/part-0", f"{instance(moment)}/_DONE"):
            a.put(path, b"x\n")
            b.put(path, b"x\n")
            s3.put(path, b"x\n")
    for path in decoys:
        a.put(path, b"keep me\n")
        b.put(path, b"keep me\n")
        s3.put(path, b"keep me\n")
    for cluster in ("a", "b", "archive"):
        run_dag(f"falcon.feed.events.retention.{cluster}", now, event_log)
    for storage in (a, b):
        assert not any(storage.exists(instance(moment)) for moment in (*expired, MOMENT))
        assert all(storage.exists(f"{instance(moment)}/part-0") for moment in kept)
        assert all(storage.read(path) == b"keep me\n" for path in decoys)
    left = s3.keys("data/")
    assert not [key for key in left for moment in (*expired, MOMENT) if key.startswith(instance(moment)[1:] + "/")]
    assert all(f"{instance(moment)[1:]}/part-0" in left for moment in kept)
    assert all(path[1:] in left for path in decoys)

    # OpenLineage names the datasets as the naming spec says: hdfs://host:port and s3://bucket.
    events = event_log.events()
    event_log.validate(shared)
    namespaces = {dataset["namespace"] for event in events
                  for dataset in [*(event.get("inputs") or []), *(event.get("outputs") or [])]}
    assert {sandbox.namenode("a"), sandbox.namenode("b"), f"s3://{sandbox.s3.bucket}"} <= namespaces, namespaces
