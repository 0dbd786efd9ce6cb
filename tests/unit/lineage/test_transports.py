"""Where events go: the file transport (JSON lines), HTTP to a Marquez-compatible server, both at once; the
Makefile's configuration; the Spark events a task forwards; queries over a Marquez-compatible API."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from openlineage.client import OpenLineageClient
from openlineage.client.event_v2 import InputDataset, Job, Run, RunEvent, RunState
from openlineage.client.uuid import generate_new_uuid

from falcon_airflow.cli import main as cli
from falcon_airflow.lineage import facets as F
from falcon_airflow.lineage.datasets import TaskLineage
from falcon_airflow.lineage.events import Marquez, MarquezError, load_event_logs
from falcon_airflow.lineage.query import LineageIndex

REPOSITORY = Path(__file__).resolve().parents[3]


def events(count: int) -> list[RunEvent]:
    made = []
    for number in range(count):
        dataset = InputDataset(namespace="file", name=f"/d/in/{number:02d}", facets={
            "symlinks": F.symlinks_facet(F.feed_symlink("c1", "in"))},
            inputFacets={"subset": F.input_subset_facet([{"feed": "in", "cluster": "c1",
                                                          "instance": f"2026-03-01T{number:02d}:00Z"}])})
        made.append(RunEvent(eventType=RunState.START, eventTime=datetime.now(UTC).isoformat(),
                             run=Run(runId=str(generate_new_uuid())), job=Job(namespace="default", name="j"),
                             inputs=[dataset], producer=F.PRODUCER))
    return made


def test_file_transport_writes_json_lines(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    client = OpenLineageClient(config={"transport": {"type": "file", "log_file_path": str(path), "append": True}})
    for item in events(3):
        client.emit(item)
    log = load_event_logs([path])
    assert len(log.events) == 3 and log.skipped == 0
    assert sorted(LineageIndex(log.events).resolve("in@c1"))[0].name == "/d/in/00"


def test_http_transport_posts_to_a_marquez_compatible_server(receiver: Any) -> None:
    client = OpenLineageClient(config={"transport": {"type": "http", "url": receiver.url,
                                                     "endpoint": "api/v1/lineage", "timeout": 5}})
    sent = events(4)
    for item in sent:
        client.emit(item)
    assert [event["run"]["runId"] for event in receiver.events] == [item.run.runId for item in sent]
    assert receiver.requests == 4


def test_composite_transport_sends_to_both(tmp_path: Path, receiver: Any) -> None:
    path = tmp_path / "events.jsonl"
    client = OpenLineageClient(config={"transport": {"type": "composite", "continue_on_failure": True, "transports": {
        "log": {"type": "file", "log_file_path": str(path), "append": True},
        "marquez": {"type": "http", "url": receiver.url, "endpoint": "api/v1/lineage", "timeout": 5}}}})
    for item in events(2):
        client.emit(item)
    assert len(receiver.events) == 2 and len(path.read_text().splitlines()) == 2


def test_the_makefile_transport_is_what_the_provider_reads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from airflow.providers.openlineage import conf
    from airflow.providers.openlineage.plugins.adapter import OpenLineageAdapter

    makefile = (REPOSITORY / "Makefile").read_text()
    (value,) = re.findall(r"AIRFLOW__OPENLINEAGE__TRANSPORT='([^']*)'", makefile)
    home = tmp_path / "airflow-home"
    (home / "lineage").mkdir(parents=True)
    monkeypatch.setenv("AIRFLOW__OPENLINEAGE__TRANSPORT", value.replace("$(RUN_HOME)", str(home)))
    assert not conf.is_disabled()
    config = OpenLineageAdapter().get_openlineage_config()
    assert config == {"transport": {"type": "file", "log_file_path": f"{home}/lineage/events.jsonl",
                                    "append": True}}
    client = OpenLineageClient(config=config)
    for item in events(2):
        client.emit(item)
    assert len((home / "lineage" / "events.jsonl").read_text().splitlines()) == 2  # appended, one file


def driver_events(path: Path) -> None:
    """What the lineage driver writes: a child run reading a file of the input instance."""
    run_id = str(generate_new_uuid())
    lines = [{"eventType": kind, "eventTime": datetime.now(UTC).isoformat(), "producer": F.PRODUCER,
              "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
              "run": {"runId": run_id}, "job": {"namespace": "default", "name": "spark.job"},
              "inputs": [{"namespace": "file", "name": "/d/in/05/part-0.csv"}],
              "outputs": [{"namespace": "file", "name": "/d/unrelated"}]} for kind in ("START", "COMPLETE")]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines) + "not json\n")


def test_forwarded_spark_events_reach_every_transport_with_the_feed_facets(
        tmp_path: Path, receiver: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from falcon_airflow.provider.openlineage import forward_events

    log = tmp_path / "events.jsonl"
    monkeypatch.setenv("AIRFLOW__OPENLINEAGE__TRANSPORT", json.dumps({"type": "composite", "transports": [
        {"type": "file", "log_file_path": str(log), "append": True},
        {"type": "http", "url": receiver.url, "endpoint": "api/v1/lineage", "timeout": 5}]}))
    spark = tmp_path / "workflow.lineage.jsonl"
    driver_events(spark)
    known = TaskLineage(inputs=[InputDataset(
        namespace="file", name="/d/in/05", facets={"symlinks": F.symlinks_facet(F.feed_symlink("c1", "in")),
                                                   "schema": F.schema_facet([("x", None)])},
        inputFacets={"subset": F.input_subset_facet([{"feed": "in", "cluster": "c1",
                                                      "instance": "2026-03-01T05:00Z"}])})])
    assert forward_events(spark, known) == 2
    assert len(receiver.events) == 2 and len(log.read_text().splitlines()) == 2
    (read,) = receiver.events[1]["inputs"]
    assert read["name"] == "/d/in/05/part-0.csv"  # the driver's own name, with the instance's feed facets
    assert read["facets"]["symlinks"]["identifiers"][0]["name"] == "in" and "schema" not in read["facets"]
    assert read["inputFacets"]["subset"]["inputCondition"]["partitions"][0]["dimensions"]["instance"] == (
        "2026-03-01T05:00Z")
    assert receiver.events[1]["outputs"] == [{"namespace": "file", "name": "/d/unrelated"}]
    assert forward_events(tmp_path / "missing.jsonl", known) == 0


def test_nothing_is_forwarded_when_openlineage_is_off(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from falcon_airflow.provider.openlineage import forward_events

    for name in ("AIRFLOW__OPENLINEAGE__TRANSPORT", "OPENLINEAGE_URL", "OPENLINEAGE_CONFIG"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AIRFLOW__OPENLINEAGE__DISABLED", "true")
    spark = tmp_path / "workflow.lineage.jsonl"
    driver_events(spark)
    assert forward_events(spark) == 0 and spark.exists()

    class Broken:
        class transport:
            @staticmethod
            def emit(event: Any) -> None:
                raise RuntimeError("down")

    assert forward_events(spark, client=Broken()) == 0  # logged, never raised


def test_queries_over_a_marquez_compatible_api(receiver: Any, pipeline: list[dict[str, Any]],
                                               capsys: pytest.CaptureFixture[str]) -> None:
    client = OpenLineageClient(config={"transport": {"type": "http", "url": receiver.url, "timeout": 5}})
    for item in pipeline:
        client.transport.emit(item)
    assert len(receiver.events) == len(pipeline)
    paged = Marquez(receiver.url, page=3).events()
    assert [item["run"]["runId"] for item in paged.events] == [item["run"]["runId"] for item in pipeline]
    assert len(Marquez(receiver.url, page=3, limit=5).events().events) == 5
    capsys.readouterr()
    assert cli(["lineage", "column", "agg@c1", "total", "--marquez", receiver.url, "--format", "json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert [item["instances"] for item in answer["instances"]] == [["2026-03-01T05:00Z"], ["2026-03-01T06:00Z"]]
    with pytest.raises(MarquezError):
        Marquez(receiver.url + "/nothing-here").events()
    assert cli(["lineage", "column", "agg", "total", "--marquez", "http://127.0.0.1:9"]) == 1


def test_enrich_adds_the_feed_to_symlinks_already_there() -> None:
    from falcon_airflow.core.naming import DatasetId
    from falcon_airflow.lineage.events import KnownDataset, enrich

    feed = {"identifiers": [{"namespace": "falcon://c1", "name": "t", "type": "FEED"}]}
    known = KnownDataset(DatasetId("hive://m:9083", "db.t"), {"symlinks": feed, "ownership": {"owners": []}},
                         {"subset": {"x": 1}})
    table = {"namespace": "hive://m:9083", "name": "db.t", "facets": {"symlinks": {"identifiers": [
        {"namespace": "file", "name": "/wh/db/t", "type": "LOCATION"}]}}}
    event = {"inputs": [table], "outputs": [json.loads(json.dumps(table))]}
    enriched = enrich(event, [known], [])
    (read,) = enriched["inputs"]
    assert [item["type"] for item in read["facets"]["symlinks"]["identifiers"]] == ["LOCATION", "FEED"]
    assert read["inputFacets"] == {"subset": {"x": 1}} and "ownership" in read["facets"]
    assert enriched["outputs"] == event["outputs"] and "inputFacets" not in event["inputs"][0]  # a copy
