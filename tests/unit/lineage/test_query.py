"""Queries over events: column lineage per instance and across runs, field history, process instances."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from falcon_airflow.core.naming import DatasetId
from falcon_airflow.lineage.query import (
    FeedInstance,
    LineageIndex,
    QueryError,
    column_lineage,
    column_text,
    field_history,
    history_text,
    instance_text,
    parse_time,
    process_instance,
)


def steps(answer: dict[str, Any], way: str = "upstream") -> list[list[tuple[Any, ...]]]:
    """Per instance: (depth, from feed, from instances, from field, to field, subtype, dataset level)."""
    return [[(step["depth"], step["from"].get("feed", [None])[0], tuple(step["from"].get("instances", [])),
              step["from"]["field"], step["to"]["field"], step["transformations"][0]["subtype"],
              step["datasetLevel"]) for step in item.get(way, [])] for item in answer["instances"]]


def test_files_below_an_instance_folder_belong_to_the_instance(pipeline: list[dict[str, Any]]) -> None:
    index = LineageIndex(pipeline)
    assert index.canonical(DatasetId("file", "/d/raw/2026/03/01/05/part-0.csv")) == DatasetId(
        "file", "/d/raw/2026/03/01/05")
    assert index.instances_of(DatasetId("file", "/d/raw/2026/03/01/06/part-0.csv")) == [
        FeedInstance("raw", "c1", "2026-03-01T06:00Z")]
    assert index.canonical(DatasetId("file", "/elsewhere/x")) == DatasetId("file", "/elsewhere/x")
    assert sorted(index.resolve("agg")) == [DatasetId("file", "/d/agg/2026/03/01/05"),
                                            DatasetId("file", "/d/agg/2026/03/01/06"),
                                            DatasetId("file", "/e/agg/2026/03/01/05")]
    assert index.resolve("agg@c2") == [DatasetId("file", "/e/agg/2026/03/01/05")]
    assert index.resolve("falcon://c2/agg") == [DatasetId("file", "/e/agg/2026/03/01/05")]
    assert index.resolve("file:///d/agg/2026/03/01/06/") == [DatasetId("file", "/d/agg/2026/03/01/06")]


def test_upstream_of_a_column_per_instance(pipeline: list[dict[str, Any]]) -> None:
    answer = column_lineage(LineageIndex(pipeline), "agg@c1", "total")
    assert [item["instances"] for item in answer["instances"]] == [["2026-03-01T05:00Z"], ["2026-03-01T06:00Z"]]
    assert steps(answer) == [
        [(1, "raw@c1", ("2026-03-01T05:00Z",), "amount", "total", "AGGREGATION", False),
         (1, "raw@c1", ("2026-03-01T05:00Z",), "country", "total", "FILTER", True)],
        [(1, "raw@c1", ("2026-03-01T06:00Z",), "amount", "total", "AGGREGATION", False),
         (1, "raw@c1", ("2026-03-01T06:00Z",), "country", "total", "FILTER", True)]]
    assert answer["instances"][0]["upstream"][0]["run"]["job"] == "default/spark.agg"


def test_lineage_follows_runs_across_processes_and_clusters(pipeline: list[dict[str, Any]]) -> None:
    index = LineageIndex(pipeline)
    report = column_lineage(index, "report", "revenue")
    assert steps(report) == [[
        (1, "agg@c1", ("2026-03-01T05:00Z",), "total", "revenue", "TRANSFORMATION", False),
        (2, "raw@c1", ("2026-03-01T05:00Z",), "amount", "total", "AGGREGATION", False),
        (2, "raw@c1", ("2026-03-01T05:00Z",), "country", "total", "FILTER", True)]]
    assert len(steps(column_lineage(index, "report", "revenue", depth=1))[0]) == 1
    down = column_lineage(index, "raw", "amount", direction="downstream",
                          start=parse_time("2026-03-01T05:00Z"), end=parse_time("2026-03-01T05:00Z"))
    (only,) = down["instances"]
    assert only["instances"] == ["2026-03-01T05:00Z"]
    reached = {(step["depth"], step["to"]["feed"][0], step["to"]["field"]) for step in only["downstream"]}
    assert reached == {(1, "agg@c1", "total"), (2, "report@c1", "revenue"), (2, "agg@c2", "total")}
    both = column_lineage(index, "agg@c1", "total", direction="both", start=parse_time("2026-03-01T05:00Z"),
                          end=parse_time("2026-03-01T05:01Z"))
    assert set(both["instances"][0]) >= {"upstream", "downstream"}
    text = column_text(both)
    assert "upstream:" in text and "downstream:" in text and "DIRECT/AGGREGATION" in text


def test_time_range_selects_instances_and_unknown_datasets_are_errors(pipeline: list[dict[str, Any]]) -> None:
    index = LineageIndex(pipeline)
    late = column_lineage(index, "agg@c1", "total", start=parse_time("2026-03-01T06:00Z"))
    assert [item["instances"] for item in late["instances"]] == [["2026-03-01T06:00Z"]]
    assert column_lineage(index, "agg", "total", end=parse_time("2026-03-01T00:00Z"))["instances"] == []
    # -end is the last instance, as for the instance commands: an hour's instance is found with --end that hour
    hour = column_lineage(index, "agg@c1", "total", start=parse_time("2026-03-01T00:00Z"),
                          end=parse_time("2026-03-01T06:00Z"))
    assert [item["instances"] for item in hour["instances"]] == [["2026-03-01T05:00Z"], ["2026-03-01T06:00Z"]]
    with pytest.raises(QueryError):
        column_lineage(index, "nothing", "x")
    with pytest.raises(ValueError):
        column_lineage(index, "agg", "total", direction="sideways")


def test_field_history_writes_reads_copies_and_drops(pipeline: list[dict[str, Any]]) -> None:
    index = LineageIndex(pipeline)
    raw = field_history(index, "raw", "amount")
    operations = [(row["operation"], row["dataset"]["instances"]) for row in raw["operations"]]
    assert operations == [("read", ["2026-03-01T05:00Z"]), ("read", ["2026-03-01T06:00Z"]),
                          ("drop", ["2026-03-01T05:00Z"])]
    agg = field_history(index, "agg", "total", end=parse_time("2026-03-01T05:59Z"))
    kinds = [(row["operation"], row["dataset"]["feed"], row["run"]["job"]) for row in agg["operations"]]
    assert kinds == [("write", ["agg@c1"], "default/spark.agg"),
                     ("read", ["agg@c1"], "default/falcon.process.report.c1.workflow"),
                     ("copy", ["agg@c1"], "default/falcon.feed.agg.replication.c1.c2.replicate"),
                     ("write", ["agg@c2"], "default/falcon.feed.agg.replication.c1.c2.replicate")]
    assert agg["operations"][0]["from"][0]["field"] == "amount"
    assert "copy" in history_text(agg) and "<- file:///d/raw" in history_text(agg)


def test_process_instance_lists_tasks_spark_runs_and_columns(pipeline: list[dict[str, Any]]) -> None:
    index = LineageIndex(pipeline)
    answer = process_instance(index, "agg", parse_time("2026-03-01T06:00Z"))
    (task,) = answer["tasks"]
    assert task["task"] == "workflow" and task["state"] == "COMPLETE" and task["cluster"] == "c1"
    assert [item["dataset"] for item in task["inputs"]] == ["file:///d/raw/2026/03/01/06"]
    assert [item["dataset"] for item in task["outputs"]] == ["file:///d/agg/2026/03/01/06"]
    (spark,) = task["spark"]
    assert {(column["output"]["field"], column["input"]["field"]) for column in spark["columns"]} == {
        ("total", "amount"), ("user", "user"), ("*", "country")}  # a filter: of the whole dataset
    assert "spark run default/spark.agg: COMPLETE" in instance_text(answer)
    assert process_instance(index, "agg", parse_time("2026-03-01T05:00Z"), cluster="c1")["tasks"]
    with pytest.raises(QueryError):
        process_instance(index, "agg", parse_time("2026-03-01T07:00Z"))
    with pytest.raises(QueryError):
        process_instance(index, "agg", parse_time("2026-03-01T05:00Z"), cluster="c9")


def test_a_broken_log_still_answers(tmp_path: Path, event_file: Path) -> None:
    from falcon_airflow.lineage.events import load_event_logs

    with event_file.open("a", encoding="utf-8") as handle:
        handle.write('{"eventType": "START", "run": \n[1, 2]\n')
    log = load_event_logs([tmp_path])
    assert log.skipped == 2 and len(log.events) == 14
    assert LineageIndex([*log.events, {"run": {}}, {"dataset": {"namespace": "x"}}]).runs


def test_the_query_modules_need_neither_airflow_nor_openlineage() -> None:
    code = ("import sys, falcon_airflow.lineage.query, falcon_airflow.lineage.graph, falcon_airflow.lineage.events;"
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'airflow', 'pyspark', 'openlineage'}))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert result.stdout.strip() == "[]"


def test_each_try_of_a_retried_task_is_told_apart(pipeline: list[dict[str, Any]]) -> None:
    from .conftest import event

    job = "falcon.process.agg.c1.workflow"
    tries = []
    for number, (state, time) in enumerate((("FAIL", "2026-03-01T07:01:00+00:00"),
                                            ("COMPLETE", "2026-03-01T07:05:00+00:00")), start=1):
        facets = {"airflow": {"taskInstance": {"try_number": number}}}
        run_id = f"try-{number}"
        tries += [event("START", job, run_id, time, nominal="2026-03-01T07:00:00+00:00", run_facets=facets),
                  event(state, job, run_id, time, nominal="2026-03-01T07:00:00+00:00", run_facets=facets)]
    answer = process_instance(LineageIndex([*pipeline, *tries]), "agg", parse_time("2026-03-01T07:00Z"))
    assert [(task["try"], task["state"]) for task in answer["tasks"]] == [(1, "FAIL"), (2, "COMPLETE")]
    text = instance_text(answer)
    assert "  task workflow try 1 on c1: FAIL  run try-1" in text
    assert "  task workflow try 2 on c1: COMPLETE  run try-2" in text
