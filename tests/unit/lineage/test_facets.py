"""Facet builders, feed schemas and the datasets of our tasks - checked against the official schemas."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from openlineage.client.event_v2 import Job, Run, RunEvent, RunState
from openlineage.client.serde import Serde
from openlineage.client.uuid import generate_new_uuid
from tests.builders import cluster

from falcon_airflow.compiler import compile_workspace
from falcon_airflow.compiler.specs import FeedFacts, LineageSpec, ProcessDagSpec, Schedule
from falcon_airflow.core.naming import DatasetId
from falcon_airflow.instances.bindings import FeedBinding, InputBinding
from falcon_airflow.lineage import facets as F
from falcon_airflow.lineage.datasets import (
    MAX_DATASETS,
    TaskLineage,
    process_lineage,
    replication_lineage,
    retention_lineage,
)
from falcon_airflow.lineage.schema import parse_schema, read_schema
from falcon_airflow.workspace import Workspace

FEED = """<feed name="{name}" xmlns="uri:falcon:feed:0.1">
  <tags>tier=gold,pii=false</tags>
  <groups>core</groups>
  <frequency>hours(1)</frequency>
  <clusters>
    <cluster name="east" type="source">
      <validity start="2025-01-01T00:00Z" end="2099-01-01T00:00Z"/><retention limit="days(3)" action="delete"/>
    </cluster>
    {target}
  </clusters>
  <locations><location type="data" path="/data/{name}/${{YEAR}}/${{MONTH}}/${{DAY}}/${{HOUR}}"/></locations>
  <ACL owner="{owner}" group="g" permission="*"/>
  <schema location="{schema}" provider="{provider}"/>
</feed>"""

WEST = ('<cluster name="west" type="target"><validity start="2025-01-01T00:00Z" end="2099-01-01T00:00Z"/>'
        '<retention limit="days(3)" action="delete"/></cluster>')

PROCESS = """<process name="agg" xmlns="uri:falcon:process:0.1">
  <tags>team=bi</tags>
  <pipelines>sales</pipelines>
  <clusters><cluster name="east"><validity start="2026-01-01T00:00Z" end="2099-01-01T00:00Z"/></cluster></clusters>
  <parallel>1</parallel><order>FIFO</order><frequency>hours(1)</frequency>
  <inputs>
    <input name="now" feed="in" start="now(0,0)" end="now(0,0)"/>
    <input name="before" feed="in" start="now(-2,0)" end="now(-1,0)" optional="true"/>
  </inputs>
  <outputs><output name="result" feed="out" instance="now(0,0)"/></outputs>
  <workflow engine="spark" path="apps"/>
  <spark-attributes><name>agg</name><jar>apps/agg.py</jar></spark-attributes>
  <ACL owner="bi-team" group="g" permission="*"/>
</process>"""

SCHEMA = {"type": "record", "name": "r", "fields": [{"name": "user", "type": "string"},
                                                    {"name": "amount", "type": ["null", "long"]}]}
AT = datetime(2026, 3, 1, 5, tzinfo=UTC)


@pytest.fixture
def specs(tmp_path: Path) -> dict[str, Any]:
    (tmp_path / "apps").mkdir()
    (tmp_path / "apps" / "agg.py").write_text("print('agg')\n")
    (tmp_path / "schemas").mkdir()
    (tmp_path / "schemas" / "in.avsc").write_text(json.dumps(SCHEMA))
    files = {"east.xml": cluster("east", "file:///srv/east", colo="east"),
             "west.xml": cluster("west", "file:///srv/west", colo="west", interfaces='<interface type="registry" '
                                                              'endpoint="thrift://meta:9083" version="1"/>'),
             "in.xml": FEED.format(name="in", target=WEST, owner="ingest", schema="schemas/in.avsc",
                                   provider="avro"),
             "out.xml": FEED.format(name="out", target="", owner="bi", schema="/nowhere.parquet",
                                    provider="parquet"),
             "agg.xml": PROCESS}
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    compilation = compile_workspace(Workspace.load([str(tmp_path)]), entities_dir=tmp_path, now=AT)
    assert compilation.report.valid, compilation.report.issues
    return {spec.dag_id: spec for spec in compilation.specs}


def serialised(found: TaskLineage) -> dict[str, Any]:
    event = RunEvent(eventType=RunState.COMPLETE, eventTime=AT.isoformat(),
                     run=Run(runId=str(generate_new_uuid()), facets=found.run_facets),
                     job=Job(namespace="default", name="t", facets=found.job_facets), inputs=found.inputs,
                     outputs=found.outputs, producer=F.PRODUCER)
    return json.loads(Serde.to_json(event))


def test_facet_builders() -> None:
    assert F.falcon_tags([("a", "1"), ("a", "1")], ["p"], ["g", "g"]) == [("a", "1"), ("pipeline", "p"),
                                                                          ("group", "g")]
    assert F.tags_run_facet([]) is None and F.ownership_job_facet(None) is None
    assert F.owner_name("alice") == "user:alice" and F.owner_name("team:bi") == "team:bi"
    window = F.nominal_time(AT, datetime(2026, 3, 1, 6, tzinfo=UTC))
    assert (window.nominalStartTime, window.nominalEndTime) == ("2026-03-01T05:00:00Z", "2026-03-01T06:00:00Z")
    assert F.drop_facet().lifecycleStateChange.value == "DROP"
    renamed = F.lifecycle_facet("RENAME", previous=DatasetId("file", "/a"))
    assert renamed.previousIdentifier is not None and renamed.previousIdentifier.name == "/a"
    with pytest.raises(ValueError):
        F.lifecycle_facet("EVICT")
    identity = Serde.to_dict(F.identity_column_lineage([("user", "string"), ("n", None)], DatasetId("file", "/a")))
    assert identity["fields"]["n"]["inputFields"] == [{"namespace": "file", "name": "/a", "field": "n",
                                                       "transformations": [{"type": "DIRECT", "subtype": "IDENTITY",
                                                                            "description": "copied unchanged",
                                                                            "masking": False}]}]
    assert F.job_type_facet("RETENTION").jobType == "RETENTION"


def test_schemas_that_can_be_read(tmp_path: Path) -> None:
    assert parse_schema(json.dumps(SCHEMA), "avro") == [("user", "string"), ("amount", "long")]
    spark = {"type": "struct", "fields": [{"name": "a", "type": "integer", "nullable": True},
                                          {"name": "b", "type": {"type": "struct", "fields": []}}]}
    assert parse_schema(json.dumps(spark), "json") == [("a", "integer"), ("b", "struct")]
    assert parse_schema('[{"name": "x", "type": "string"}]', "spark") == [("x", "string")]
    assert parse_schema("user, amount\nann,1\n", "csv") == [("user", "string"), ("amount", "string")]
    assert parse_schema("{broken", "avro") == [] and parse_schema("x", "protobuf") == []
    local = tmp_path / "s.avsc"
    local.write_text(json.dumps(SCHEMA))
    assert read_schema(f"file://{local}", "avro") == [("user", "string"), ("amount", "long")]
    (tmp_path / "s.parquet").write_text(json.dumps(SCHEMA))
    assert read_schema(str(tmp_path / "s.parquet"), "parquet") is None
    assert read_schema(str(tmp_path / "missing.avsc"), "avro") is None
    assert read_schema("hdfs://nn:8020/s.avsc", "avro") is None
    assert read_schema(None, "avro") is None
    big = tmp_path / "big.csv"
    big.write_text("a," * (1 << 20))
    assert read_schema(str(big), "csv") is None


def test_compiled_lineage_facts(specs: dict[str, Any], tmp_path: Path) -> None:
    process: ProcessDagSpec = specs["falcon.process.agg.east"]
    assert process.lineage is not None
    assert (process.lineage.owner, process.lineage.tags, process.lineage.pipelines) == (
        "bi-team", (("team", "bi"),), ("sales",))
    facts = process.lineage.feeds["in"]
    assert (facts.owner, facts.groups, facts.schema_provider) == ("ingest", ("core",), "avro")
    assert facts.schema_location == str((tmp_path / "schemas" / "in.avsc").resolve())
    assert specs["falcon.feed.in.replication.east.west"].lineage.catalogs == {"west": "thrift://meta:9083"}
    # the Python workflow runs under the lineage driver
    assert process.job.application.endswith("jobs/entry/lineage_driver.py")
    assert process.job.arguments[:2] == ("--falcon-script", str((tmp_path / "apps" / "agg.py").resolve()))
    assert process.job.lineage_events == "{{ macros.falcon.lineage_path(dag_run, task.task_id) }}"
    shipped = (process.job.py_files or "").split(",")
    assert [Path(item).relative_to(Path(item).parents[1]).as_posix() for item in shipped] == [
        "falcon_airflow/jobs", "falcon_airflow/core"]
    assert process.job.conf["spark.falcon.lineage.tableNamespace"] == "hive://east"  # no registry: the default


def test_process_instance_reads_its_inputs_and_writes_its_output(specs: dict[str, Any]) -> None:
    process = specs["falcon.process.agg.east"]
    present = {"file:///srv/east/data/in/2026/03/01/03"}
    found = serialised(process_lineage(process, AT, exists=lambda path: path in present))
    assert [(item["name"], item["inputFacets"]["subset"]["inputCondition"]["partitions"][0]["dimensions"])
            for item in found["inputs"]] == [
        ("/srv/east/data/in/2026/03/01/05", {"feed": "in", "cluster": "east", "instance": "2026-03-01T05:00Z",
                                             "input": "now"}),
        ("/srv/east/data/in/2026/03/01/03", {"feed": "in", "cluster": "east", "instance": "2026-03-01T03:00Z",
                                             "input": "before"})]  # the optional 04:00 instance is not there
    first = found["inputs"][0]["facets"]
    assert first["symlinks"]["identifiers"] == [{"namespace": "falcon://east", "name": "in", "type": "FEED"}]
    assert first["ownership"]["owners"] == [{"name": "user:ingest", "type": "OWNER"}]
    assert [(tag["key"], tag["value"]) for tag in first["tags"]["tags"]] == [("tier", "gold"), ("pii", "false"),
                                                                             ("group", "core")]
    assert [field["name"] for field in first["schema"]["fields"]] == ["user", "amount"]
    (output,) = found["outputs"]
    assert output["name"] == "/srv/east/data/out/2026/03/01/05" and "schema" not in output["facets"]
    assert output["outputFacets"]["subset"]["outputCondition"]["partitions"][0]["dimensions"]["output"] == "result"
    run = found["run"]["facets"]
    assert run["nominalTime"]["nominalEndTime"] == "2026-03-01T06:00:00Z"
    assert [(tag["key"], tag["value"]) for tag in run["tags"]["tags"]] == [("team", "bi"), ("pipeline", "sales")]
    assert found["job"]["facets"]["jobType"]["jobType"] == "PROCESS"
    assert found["job"]["facets"]["ownership"]["owners"][0]["name"] == "user:bi-team"


def test_two_instances_of_a_table_are_one_dataset_with_two_partitions() -> None:
    table = FeedBinding(feed="t", cluster="c", frequency="hours(1)", timezone="UTC", start="2026-01-01T00:00Z",
                        end="2099-01-01T00:00Z", location="catalog:db:events#ds=${YEAR}${MONTH}${DAY};hr=${HOUR}",
                        storage="table")
    spec = ProcessDagSpec.model_construct(
        inputs=(InputBinding(name="i", feed=table, start="now(-1,0)", end="now(0,0)"),), outputs=(),
        schedule=Schedule(start="2026-01-01T00:00Z", end="2099-01-01T00:00Z", frequency="hours(1)"),
        lineage=LineageSpec(catalogs={"c": "thrift://m:9083"}, feeds={"t": FeedFacts(owner="o")}))
    (dataset,) = serialised(process_lineage(spec, AT))["inputs"]
    assert (dataset["namespace"], dataset["name"]) == ("hive://m:9083", "db.events")
    assert [item["dimensions"]["partition"] for item in
            dataset["inputFacets"]["subset"]["inputCondition"]["partitions"]] == ["ds=20260301;hr=04",
                                                                                  "ds=20260301;hr=05"]


def test_retention_reports_each_evicted_instance(specs: dict[str, Any]) -> None:
    retention = specs["falcon.feed.in.retention.east"]
    report = {"evicted": [
        {"instance": "2026-02-01T05:00Z", "type": "data", "path": "file:///srv/east/data/in/2026/02/01/05"},
        {"instance": "2026-02-01T06:00Z", "type": "data", "path": "file:///srv/east/data/in/2026/02/01/06",
         "archived_to": "file:///srv/east/staging/archive/data/in/2026/02/01/06"}]}
    found = serialised(retention_lineage(retention, report))
    dropped, archived = found["outputs"]
    assert dropped["name"] == "/srv/east/data/in/2026/02/01/05"
    assert dropped["facets"]["lifecycleStateChange"]["lifecycleStateChange"] == "DROP"
    assert dropped["facets"]["symlinks"]["identifiers"][0]["name"] == "in"
    assert archived["name"] == "/srv/east/staging/archive/data/in/2026/02/01/06" and "symlinks" not in archived[
        "facets"]
    assert archived["facets"]["lifecycleStateChange"] == {
        **archived["facets"]["lifecycleStateChange"], "lifecycleStateChange": "RENAME",
        "previousIdentifier": {"namespace": "file", "name": "/srv/east/data/in/2026/02/01/06"}}
    assert found["job"]["facets"]["jobType"]["jobType"] == "RETENTION"
    assert serialised(retention_lineage(retention, None))["outputs"] == []


def test_retention_of_a_table_partition_and_its_bound(specs: dict[str, Any]) -> None:
    retention = specs["falcon.feed.in.retention.east"].model_copy(update={"table": "catalog:db:t#ds=${YEAR}"})
    report = {"evicted": [{"instance": "2025-01-01T00:00Z", "type": "table", "partition": "ds=2025",
                           "path": "file:///wh/t/ds=2025"},
                          {"instance": "2024-01-01T00:00Z", "type": "table", "partition": "ds=2024", "path": None}]}
    with_folder, without = serialised(retention_lineage(retention, report))["outputs"]
    assert with_folder["name"] == "/wh/t/ds=2025" and {"namespace": "hive://east", "name": "db.t", "type": "TABLE"} \
        in with_folder["facets"]["symlinks"]["identifiers"]
    assert (without["namespace"], without["name"]) == ("hive://east", "db.t")
    many = {"evicted": [{"instance": "x", "type": "data", "path": f"/d/{n}"} for n in range(MAX_DATASETS + 5)]}
    assert len(retention_lineage(retention, many).outputs) == MAX_DATASETS


def test_replication_copies_every_field_of_a_known_schema(specs: dict[str, Any]) -> None:
    replication = specs["falcon.feed.in.replication.east.west"]
    report = {"instance": "2026-03-01T05:00Z", "sources": ["file:///srv/east/data/in/2026/03/01/05"],
              "target": "file:///srv/west/data/in/2026/03/01/05", "bytes": 1000, "files": 2}
    found = serialised(replication_lineage(replication, None, report))
    (source,), (target,) = found["inputs"], found["outputs"]
    assert source["facets"]["symlinks"]["identifiers"][0]["namespace"] == "falcon://east"
    assert target["facets"]["symlinks"]["identifiers"][0]["namespace"] == "falcon://west"
    fields = target["facets"]["columnLineage"]["fields"]
    assert sorted(fields) == ["amount", "user"]
    assert fields["amount"]["inputFields"][0]["name"] == "/srv/east/data/in/2026/03/01/05"
    assert target["outputFacets"]["outputStatistics"]["size"] == 1000
    unknown = replication.model_copy(update={"lineage": replication.lineage.model_copy(update={"feeds": {}})})
    assert "columnLineage" not in serialised(replication_lineage(unknown, AT, None))["outputs"][0]["facets"]
    assert serialised(replication_lineage(replication, None, None))["inputs"] == []


def test_replication_uses_the_schema_the_job_read_when_none_is_declared(specs: dict[str, Any]) -> None:
    replication = specs["falcon.feed.in.replication.east.west"]
    unknown = replication.model_copy(update={"lineage": replication.lineage.model_copy(update={"feeds": {}})})
    report = {"instance": "2026-03-01T05:00Z", "schema": [["page", "string"], ["clicks", "bigint"], ["", "x"], 7]}
    (target,) = serialised(replication_lineage(unknown, None, report))["outputs"]
    assert sorted(target["facets"]["columnLineage"]["fields"]) == ["clicks", "page"]
    assert [field["name"] for field in target["facets"]["schema"]["fields"]] == ["page", "clicks"]
    declared = serialised(replication_lineage(replication, None, report))["outputs"][0]
    assert sorted(declared["facets"]["columnLineage"]["fields"]) == ["amount", "user"]  # the declaration wins


def test_every_event_passes_the_official_schemas(specs: dict[str, Any], tmp_path: Path, shared: Path) -> None:
    report = {"evicted": [{"instance": "2026-02-01T05:00Z", "type": "data", "path": "/srv/east/data/in/x",
                           "archived_to": "/srv/east/staging/archive/x"},
                          {"instance": "2026-02-01T06:00Z", "type": "data", "path": "/srv/east/data/in/y"}]}
    found = [process_lineage(specs["falcon.process.agg.east"], AT, exists=lambda path: True),
             retention_lineage(specs["falcon.feed.in.retention.east"], report),
             replication_lineage(specs["falcon.feed.in.replication.east.west"], AT, {"bytes": 3, "files": 1})]
    lines = []
    for item in found:
        run_id = str(generate_new_uuid())
        for state in (RunState.START, RunState.COMPLETE):
            lines.append(Serde.to_json(RunEvent(
                eventType=state, eventTime=AT.isoformat(), run=Run(runId=run_id, facets=item.run_facets),
                job=Job(namespace="default", name="t", facets=item.job_facets), inputs=item.inputs,
                outputs=item.outputs, producer=F.PRODUCER)))
    path = tmp_path / "events.jsonl"
    path.write_text("\n".join(lines) + "\n")
    result = subprocess.run([sys.executable, str(shared / "tools" / "validate-openlineage"), "--strict-runs",
                             str(path)], capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0, result.stdout
    assert "6 events, 0 invalid" in result.stdout
