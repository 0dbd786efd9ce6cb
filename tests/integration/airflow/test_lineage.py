"""OpenLineage from real DAG runs (dag.test) with the provider's file transport: a process instance whose PySpark
script runs under the column-lineage driver, retention and replication; every event checked against the official
schemas, then queried with ``falcon-airflow lineage``."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pendulum
import pytest
from tests.builders import cluster

from falcon_airflow.cli import main as cli
from falcon_airflow.dags.builder import build_dag
from falcon_airflow.dags.loader import entities_folder, load_specs

pytestmark = pytest.mark.xdist_group("airflow")

SALES = """\
<feed name="{name}" xmlns="uri:falcon:feed:0.1">
  <tags>domain=sales</tags>
  <groups>money</groups>
  <availabilityFlag>_DONE</availabilityFlag>
  <frequency>hours(1)</frequency>
  <clusters>
    <cluster name="local" type="source">
      <validity start="2026-01-01T00:00Z" end="2099-01-01T00:00Z"/>
      <retention limit="days(30)" action="delete"/>
    </cluster>
  </clusters>
  <locations><location type="data" path="/data/{name}/${{YEAR}}/${{MONTH}}/${{DAY}}/${{HOUR}}"/></locations>
  <ACL owner="{owner}" group="users" permission="*"/>
  <schema location="{schema}" provider="{provider}"/>
</feed>
"""

TOTALS_PROCESS = """\
<process name="totals" xmlns="uri:falcon:process:0.1">
  <tags>team=finance</tags>
  <pipelines>revenue</pipelines>
  <clusters><cluster name="local"><validity start="2026-01-01T00:00Z" end="2099-01-01T00:00Z"/></cluster></clusters>
  <parallel>1</parallel>
  <order>FIFO</order>
  <frequency>hours(1)</frequency>
  <inputs><input name="sales" feed="sales" start="now(0,0)" end="now(0,0)"/></inputs>
  <outputs><output name="totals" feed="totals" instance="now(0,0)"/></outputs>
  <workflow engine="spark" path="apps"/>
  <spark-attributes>
    <name>sum-amounts</name>
    <jar>apps/sum_amounts.py</jar>
    <spark-opts>--driver-memory 512m --conf spark.ui.enabled=false --conf spark.sql.shuffle.partitions=2</spark-opts>
  </spark-attributes>
  <ACL owner="finance" group="users" permission="*"/>
</process>
"""

# the same instance made by an Oozie workflow: one shell action copies the sales file into the totals folder
OOZIE_TOTALS = TOTALS_PROCESS.replace('name="totals" xmlns', 'name="oozie-totals" xmlns').replace(
    """<workflow engine="spark" path="apps"/>
  <spark-attributes>
    <name>sum-amounts</name>
    <jar>apps/sum_amounts.py</jar>
    <spark-opts>--driver-memory 512m --conf spark.ui.enabled=false --conf spark.sql.shuffle.partitions=2</spark-opts>
  </spark-attributes>""", '<workflow engine="oozie" path="apps/copy"/>')

COPY_WORKFLOW = """\
<workflow-app name="copy-wf" xmlns="uri:oozie:workflow:0.5">
  <global><job-tracker>${jobTracker}</job-tracker><name-node>${nameNode}</name-node></global>
  <start to="copy"/>
  <action name="copy">
    <shell xmlns="uri:oozie:shell-action:0.3">
      <exec>copy.sh</exec>
      <argument>${sales}</argument>
      <argument>${totals}</argument>
      <file>copy.sh</file>
    </shell>
    <ok to="end"/>
    <error to="fail"/>
  </action>
  <kill name="fail"><message>copy failed</message></kill>
  <end name="end"/>
</workflow-app>
"""

COPY_SCRIPT = """\
#!/bin/sh
source=$(echo "$1" | sed 's|^file://||'); target=$(echo "$2" | sed 's|^file://||')
mkdir -p "$target" && cp "$source/part-0.csv" "$target/"
"""

AUDIT = """\
<feed name="audit" xmlns="uri:falcon:feed:0.1">
  <tags>kind=audit</tags>
  <availabilityFlag>_DONE</availabilityFlag>
  <frequency>hours(1)</frequency>
  <clusters>
    <cluster name="east" type="source">
      <validity start="2026-01-01T00:00Z" end="2099-01-01T00:00Z"/>
      <retention limit="hours(5)" action="delete"/>
    </cluster>
    <cluster name="west" type="target">
      <validity start="2026-01-01T00:00Z" end="2099-01-01T00:00Z"/>
      <retention limit="days(30)" action="delete"/>
    </cluster>
  </clusters>
  <locations><location type="data" path="/audit/${YEAR}/${MONTH}/${DAY}/${HOUR}"/></locations>
  <ACL owner="ops" group="users" permission="*"/>
  <schema location="schemas/audit.avsc" provider="avro"/>
</feed>
"""

AUDIT_SCHEMA = {"type": "record", "name": "log", "fields": [{"name": "at", "type": "string"},
                                                          {"name": "message", "type": ["null", "string"]}]}


@dataclass
class EventLog:
    path: Path
    listener: Any

    def dag_run_started(self, run: Any, dag: Any) -> None:
        """What the scheduler does when a run starts (``dag_run.notify_dagrun_state_changed("started")``) and
        ``dag.test`` never does: without it the DAG run would have a COMPLETE event but no START."""
        run.dag = dag
        self.listener.on_dag_run_running(dag_run=run, msg="started")

    def events(self) -> list[dict[str, Any]]:
        self.listener.before_stopping(None)  # the DAG-run events are sent from a process pool: wait for them
        return [json.loads(line) for line in self.path.read_text(encoding="utf-8").splitlines() if line.strip()]

    def validate(self, shared: Path) -> str:
        """The strict OpenLineage check of every event so far, once the DAG-run events still in the pool are out."""
        self.listener.before_stopping(None)
        return validate(shared, self.path)


@pytest.fixture
def event_log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[EventLog]:
    """The provider's file transport into a fresh event log, its listener registered for this test only."""
    from airflow.listeners.listener import get_listener_manager as scheduler_listeners
    from airflow.providers.openlineage.plugins.listener import get_openlineage_listener
    from airflow.sdk.listener import get_listener_manager as task_listeners

    managers = [scheduler_listeners(), task_listeners()]  # plugins load now, with the environment as it was
    listener = get_openlineage_listener()
    registered = [manager.pm.is_registered(listener) for manager in managers]
    path = tmp_path / "lineage" / "events.jsonl"
    path.parent.mkdir()
    monkeypatch.setenv("AIRFLOW__OPENLINEAGE__TRANSPORT",
                       json.dumps({"type": "file", "log_file_path": str(path), "append": True}))
    listener.before_stopping(None)  # a pool of an earlier test writes where that test told it
    for manager in managers:
        manager.add_listener(listener)
    yield EventLog(path, listener)
    listener.before_stopping(None)
    for manager, was in zip(managers, registered, strict=True):
        if not was:
            manager.pm.unregister(listener)


def validate(shared: Path, path: Path) -> str:
    result = subprocess.run([sys.executable, str(shared / "tools" / "validate-openlineage"), "--strict-runs",
                             str(path)], capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0, result.stdout[-4000:]
    return result.stdout


def spec(dag_id: str) -> Any:
    specs, issues = load_specs(entities_folder())
    assert not [issue for issue in issues if issue["level"] == "error"], issues
    return next(item for item in specs if item.dag_id == dag_id)


def ask(capsys: pytest.CaptureFixture[str], *argv: str) -> Any:
    capsys.readouterr()
    assert cli(["lineage", *argv, "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


def land_sales(storage: Path, moment: pendulum.DateTime, rows: list[tuple[str, str, int]]) -> Path:
    folder = storage / "data" / "sales" / moment.format("YYYY/MM/DD/HH")
    folder.mkdir(parents=True)
    (folder / "part-0.csv").write_text("user,country,amount\n" + "".join(f"{u},{c},{a}\n" for u, c, a in rows))
    (folder / "_DONE").touch()
    return folder


def test_process_instances_report_column_lineage_through_the_driver(
        entities: Callable[..., Path], tmp_path: Path, event_log: EventLog, shared: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    storage = tmp_path / "storage"
    entities("cluster.xml", cluster("local", f"file://{storage}", colo="local"))
    entities("sales.xml", SALES.format(name="sales", owner="shop", schema="/none", provider="csv"))
    entities("totals.xml", SALES.format(name="totals", owner="finance", schema="/none", provider="parquet"))
    entities("process.xml", TOTALS_PROCESS)
    process = spec("falcon.process.totals.local")
    assert process.job.application.endswith("jobs/entry/lineage_driver.py") and process.job.lineage_events
    first, second = pendulum.datetime(2026, 3, 1, 5, tz="UTC"), pendulum.datetime(2026, 3, 1, 6, tz="UTC")
    land_sales(storage, first, [("ann", "fr", 3), ("bob", "de", 4), ("ann", "fr", 5)])
    land_sales(storage, second, [("cy", "us", 7)])
    dag = build_dag(process)
    for moment in (first, second):
        run = dag.test(logical_date=moment)
        assert str(run.state) == "success", {ti.task_id: str(ti.state) for ti in run.get_task_instances()}
        event_log.dag_run_started(run, dag)

    events = event_log.events()
    event_log.validate(shared)
    workflow = [event for event in events if event["job"]["name"] == "falcon.process.totals.local.workflow"]
    assert sorted(event["eventType"] for event in workflow) == ["COMPLETE", "COMPLETE", "START", "START"]
    complete = next(event for event in workflow if event["eventType"] == "COMPLETE")
    (read,) = complete["inputs"]
    assert read["namespace"] == "file" and read["name"] == f"{storage}/data/sales/2026/03/01/05"
    assert read["facets"]["symlinks"]["identifiers"] == [{"namespace": "falcon://local", "name": "sales",
                                                          "type": "FEED"}]
    assert read["inputFacets"]["subset"]["inputCondition"]["partitions"][0]["dimensions"]["instance"] in (
        "2026-03-01T05:00Z", "2026-03-01T06:00Z")
    assert {"key": "pipeline", "value": "revenue", "source": "FALCON"} in [
        {key: tag[key] for key in ("key", "value", "source")} for tag in complete["run"]["facets"]["tags"]["tags"]]
    assert complete["run"]["facets"]["nominalTime"]["nominalStartTime"].startswith("2026-03-01T0")

    # The Spark runs are children of the workflow task and carry the column lineage of what the script wrote.
    task_runs = {event["run"]["runId"] for event in workflow}
    spark = [event for event in events
             if (event["run"]["facets"].get("parent") or {}).get("run", {}).get("runId") in task_runs]
    assert spark and all(event["job"]["name"] != complete["job"]["name"] for event in spark)
    lineage = [output["facets"]["columnLineage"] for event in spark for output in event.get("outputs") or []
               if "columnLineage" in output.get("facets", {})]
    assert lineage and all("total" in facet["fields"] for facet in lineage)

    # Where did `total` of each totals instance come from? `amount` of the sales instance of the same hour.
    answer = ask(capsys, "column", "totals", "total", "--events", str(event_log.path), "--start",
                 "2026-03-01T05:00Z", "--end", "2026-03-01T07:00Z")
    assert [item["instances"] for item in answer["instances"]] == [["2026-03-01T05:00Z"], ["2026-03-01T06:00Z"]]
    for item in answer["instances"]:
        sources = {(step["from"]["feed"][0], tuple(step["from"]["instances"]), step["from"]["field"])
                   for step in item["upstream"] if step["depth"] == 1}
        assert ("sales@local", tuple(item["instances"]), "amount") in sources, item["upstream"]
    one = ask(capsys, "column", "totals@local", "total", "--events", str(event_log.path), "--start",
              "2026-03-01T06:00Z")
    assert [item["instances"] for item in one["instances"]] == [["2026-03-01T06:00Z"]]
    downstream = ask(capsys, "column", "sales", "amount", "--direction", "downstream", "--events",
                     str(event_log.path))
    assert {step["to"]["field"] for item in downstream["instances"] for step in item["downstream"]} >= {"total"}
    instance = ask(capsys, "instance", "totals", "--at", "2026-03-01T05:00Z", "--events", str(event_log.path))
    (task,) = [item for item in instance["tasks"] if item["task"] == "workflow"]
    assert task["state"] == "COMPLETE" and task["spark"] and task["spark"][0]["columns"]


def test_an_oozie_process_instance_reports_its_feed_instances(
        entities: Callable[..., Path], tmp_path: Path, event_log: EventLog, shared: Path) -> None:
    storage = tmp_path / "storage"
    entities("cluster.xml", cluster("local", f"file://{storage}", colo="local"))
    entities("sales.xml", SALES.format(name="sales", owner="shop", schema="/none", provider="csv"))
    entities("totals.xml", SALES.format(name="totals", owner="finance", schema="/none", provider="csv"))
    entities("process.xml", OOZIE_TOTALS)
    app = entities_folder() / "apps" / "copy"
    app.mkdir(parents=True)
    (app / "workflow.xml").write_text(COPY_WORKFLOW, encoding="utf-8")
    (app / "copy.sh").write_text(COPY_SCRIPT, encoding="utf-8")
    (app / "copy.sh").chmod(0o755)
    moment = pendulum.datetime(2026, 3, 1, 5, tz="UTC")
    land_sales(storage, moment, [("ann", "fr", 3)])
    dag = build_dag(spec("falcon.process.oozie-totals.local"))
    run = dag.test(logical_date=moment)
    assert str(run.state) == "success", {ti.task_id: str(ti.state) for ti in run.get_task_instances()}
    assert (storage / "data" / "totals" / "2026/03/01/05" / "part-0.csv").exists()
    event_log.dag_run_started(run, dag)

    events = event_log.events()
    event_log.validate(shared)
    workflow = [event for event in events if event["job"]["name"] == "falcon.process.oozie-totals.local.workflow.end"]
    assert sorted(event["eventType"] for event in workflow) == ["COMPLETE", "START"]
    complete = next(event for event in workflow if event["eventType"] == "COMPLETE")
    (read,) = complete["inputs"]
    (written,) = complete["outputs"]
    assert read["name"] == f"{storage}/data/sales/2026/03/01/05"
    assert written["name"] == f"{storage}/data/totals/2026/03/01/05"
    assert written["facets"]["symlinks"]["identifiers"] == [{"namespace": "falcon://local", "name": "totals",
                                                             "type": "FEED"}]
    assert complete["run"]["facets"]["nominalTime"]["nominalStartTime"].startswith("2026-03-01T05")


def test_retention_drops_and_replication_copies_columns(
        entities: Callable[..., Path], tmp_path: Path, event_log: EventLog, shared: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    east, west = tmp_path / "east", tmp_path / "west"
    entities("east.xml", cluster("east", f"file://{east}", colo="east"))
    entities("west.xml", cluster("west", f"file://{west}", colo="west"))
    folder = entities("audit.xml", AUDIT).parent
    (folder / "schemas").mkdir()
    (folder / "schemas" / "audit.avsc").write_text(json.dumps(AUDIT_SCHEMA))
    now = pendulum.now("UTC").start_of("hour")
    expired = []
    for hours_ago in (0, 8, 9):
        moment = now.subtract(hours=hours_ago)
        instance = east / "audit" / moment.format("YYYY/MM/DD/HH")
        instance.mkdir(parents=True)
        (instance / "part-0").write_text("at,message\n")
        (instance / "_DONE").touch()
        if hours_ago:
            expired.append(instance)
    retention = build_dag(spec("falcon.feed.audit.retention.east"))
    run = retention.test(logical_date=now)
    assert str(run.state) == "success"
    event_log.dag_run_started(run, retention)
    replication = build_dag(spec("falcon.feed.audit.replication.east.west"))
    run = replication.test(logical_date=now)
    assert str(run.state) == "success"
    event_log.dag_run_started(run, replication)

    events = event_log.events()
    event_log.validate(shared)
    (evicting,) = [event for event in events if event["job"]["name"] == "falcon.feed.audit.retention.east.retention"
                   and event["eventType"] == "COMPLETE"]
    dropped = {output["name"]: output["facets"]["lifecycleStateChange"]["lifecycleStateChange"]
               for output in evicting["outputs"]}
    assert dropped == {str(path): "DROP" for path in expired}
    (copying,) = [event for event in events if event["eventType"] == "COMPLETE"
                  and event["job"]["name"] == "falcon.feed.audit.replication.east.west.replicate"]
    (source,), (target,) = copying["inputs"], copying["outputs"]
    assert source["name"] == str(east / "audit" / now.format("YYYY/MM/DD/HH"))
    assert target["name"] == str(west / "audit" / now.format("YYYY/MM/DD/HH"))
    assert {name: [(item["name"], item["field"], item["transformations"][0]["subtype"])
                   for item in spec_["inputFields"]]
            for name, spec_ in target["facets"]["columnLineage"]["fields"].items()} == {
        "at": [(source["name"], "at", "IDENTITY")], "message": [(source["name"], "message", "IDENTITY")]}
    assert target["outputFacets"]["outputStatistics"]["fileCount"] == 1

    history = ask(capsys, "field-history", "audit@east", "message", "--events", str(event_log.path))
    operations = [(row["operation"], row["dataset"]["instances"]) for row in history["operations"]]
    for path in expired:
        moment = pendulum.from_format(str(path.relative_to(east / "audit")), "YYYY/MM/DD/HH", tz="UTC")
        assert ("drop", [moment.format("YYYY-MM-DDTHH:mm") + "Z"]) in operations
    assert ("copy", [now.format("YYYY-MM-DDTHH:mm") + "Z"]) in operations
    upstream = ask(capsys, "column", "audit@west", "message", "--events", str(event_log.path))
    (item,) = upstream["instances"]
    assert [(step["from"]["feed"], step["from"]["field"]) for step in item["upstream"]] == [
        (["audit@east"], "message")]
