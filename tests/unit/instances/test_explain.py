"""``falcon-airflow explain``: the JSON contract, the mappings of falcon-el.md §2.5, feeds and errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.builders import cluster, feed, process, workspace

from falcon_airflow.cli import main

EXAMPLES = Path(__file__).resolve().parents[3] / "entities"


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_process_instance_json_contract(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    workspace(tmp_path, cluster(), feed(frequency="minutes(5)", start="2012-02-27T10:00Z"),
              feed("out", frequency="days(1)", start="2012-02-27T11:00Z", path="/out/${YEAR}${MONTH}${DAY}"),
              process(frequency="minutes(10)", start="2012-02-28T10:37Z",
                      inputs=(("in", "f", "now(0,-20)", "now(0,0)"),), outputs=(("result", "out", "now(0,0)"),)))
    code, out, _ = run(capsys, "explain", "p", "--at", "2012-02-28T10:37Z", "--entities", str(tmp_path),
                       "--format", "json")
    assert code == 0
    report = json.loads(out)
    assert report["entity"] == {"type": "process", "name": "p"}
    assert report["cluster"] == "c1" and report["instance"] == "2012-02-28T10:37Z"
    (item,) = report["inputs"]
    assert {key: item[key] for key in ("name", "feed", "start", "end", "optional")} == {
        "name": "in", "feed": "f", "start": "2012-02-28T10:15Z", "end": "2012-02-28T10:35Z", "optional": False}
    assert item["instances"] == [f"2012-02-28T10:{m}Z" for m in ("15", "20", "25", "30", "35")]
    assert item["paths"][-1] == "file:///srv/c1/data/2012/02/28/10/35"
    assert report["outputs"] == [{"name": "result", "feed": "out", "instance": "2012-02-27T11:00Z",
                                  "path": "file:///srv/c1/out/20120227"}]


def test_example_pipeline_explains_in_text(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "explain", "count-clicks", "--at", "2026-03-01T05:00Z", "--entities", str(EXAMPLES))
    assert code == 0
    assert "file:///tmp/falcon-airflow/primary/data/raw-clicks/2026-03-01/05" in out
    assert "output counts -> feed click-counts" in out


def test_feed_instance_paths_retention_and_replication(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "explain", "click-counts", "--at", "2026-03-01T05:00Z", "--entities", str(EXAMPLES),
                       "--format", "json")
    assert code == 0
    report = json.loads(out)
    clusters = {item["cluster"]: item for item in report["clusters"]}
    assert clusters["backup"]["path"] == "file:///tmp/falcon-airflow/backup/data/click-counts/2026-03-01/05"
    assert clusters["primary"]["retention"]["cut_off"] == "2026-02-22T05:00Z"
    (replication,) = report["replication"]
    assert replication["copies"] == [{"from": clusters["primary"]["path"], "to": clusters["backup"]["path"]}]


@pytest.mark.parametrize(("frequency", "storage", "at", "last", "evicted_after"), [
    pytest.param("hours(1)", {"path": "/d/${YEAR}/${MONTH}"}, "2026-03-01T05:00Z", "2026-03-31T23:00Z",
                 "2026-04-01T23:00Z", id="hourly-under-month"),
    pytest.param("minutes(15)", {"path": "/d/${YEAR}/${MONTH}/${DAY}/${HOUR}"}, "2026-03-01T05:00Z",
                 "2026-03-01T05:45Z", "2026-03-02T05:45Z", id="quarter-hours-under-hour"),
    pytest.param("hours(1)", {"path": "/d/${YEAR}/${MONTH}/${DAY}/${HOUR}"}, "2026-03-01T05:00Z",
                 "2026-03-01T05:00Z", "2026-03-02T05:00Z", id="one-instance-per-folder"),
    pytest.param("hours(1)", {"table": "catalog:db:t#ds=${YEAR}${MONTH}${DAY}"}, "2026-03-01T05:00Z",
                 "2026-03-01T23:00Z", "2026-03-02T23:00Z", id="hourly-table-in-day-partitions"),
])
def test_a_feed_instance_is_evicted_after_the_last_instance_of_its_folder(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], frequency: str, storage: dict[str, str], at: str,
        last: str, evicted_after: str) -> None:
    workspace(tmp_path, cluster(), feed(frequency=frequency, start="2026-01-01T00:00Z", retention="days(1)",
                                        **storage))  # type: ignore[arg-type]
    code, out, _ = run(capsys, "explain", "f", "--at", at, "--entities", str(tmp_path), "--format", "json")
    assert code == 0, out
    (entry,) = json.loads(out)["clusters"]
    assert entry["retention"]["folder_last_instance"] == last
    assert entry["retention"]["evicted_after"] == evicted_after
    code, out, _ = run(capsys, "explain", "f", "--at", at, "--entities", str(tmp_path))
    assert f"evicted by the first retention run after {evicted_after}" in out
    assert (f"when its folder's last instance {last} has expired" in out) is (last != at)


def test_replication_partition_expressions_use_each_cluster(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    workspace(tmp_path, cluster("c1", "file:///srv/c1"), cluster("c2", "file:///srv/c2").replace(
        'colo="local"', 'colo="east"'),
        feed(clusters=(("c2", "source"), ("c1", "target")), partitions=("colo", "country"),
             path="/d/${YEAR}/${MONTH}/${DAY}/${HOUR}").replace(
            '<cluster name="c2" type="source">', '<cluster name="c2" type="source" partition="${cluster.colo}/*">'))
    code, out, _ = run(capsys, "explain", "f", "--at", "2012-01-01T03:00Z", "--entities", str(tmp_path),
                       "--format", "json")
    assert code == 0, out
    (replication,) = json.loads(out)["replication"]
    assert replication["copies"] == [{"from": "file:///srv/c2/d/2012/01/01/03/east",
                                      "to": "file:///srv/c1/d/2012/01/01/03/east"}]


@pytest.mark.parametrize(("arguments", "message"), [
    (("count-clicks", "--at", "2026-03-01T05:30Z"), "not an instance"),
    (("count-clicks", "--at", "2025-03-01T05:00Z"), "before the first instance"),
    (("no-such", "--at", "2026-03-01T05:00Z"), "no process or feed named 'no-such'"),
    (("count-clicks", "--at", "2026-03-01T05:00Z", "--cluster", "backup"), "does not run on cluster 'backup'"),
])
def test_errors_exit_1_with_a_message(capsys: pytest.CaptureFixture[str], arguments: tuple[str, ...],
                                      message: str) -> None:
    code, _, err = run(capsys, "explain", *arguments, "--entities", str(EXAMPLES))
    assert code == 1 and message in err and "Traceback" not in err


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "explain", "count-clicks", "--at", "yesterday", "--entities", str(EXAMPLES))[0] == 2
    assert run(capsys, "explain", "count-clicks", "--at", "2026-03-01T05:00Z", "--entities", "/no/such")[0] == 2


def test_feed_instance_shows_its_consumers_and_producer(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # M4 (consumers of feed 10:15) and M12 (producer of feed 2013-02-28T10:35) through the command
    workspace(tmp_path, cluster(), feed(frequency="minutes(5)", start="2011-02-28T10:00Z"),
              process(frequency="minutes(10)", start="2012-02-28T10:20Z", end="2016-02-28T10:00Z",
                      inputs=(("in", "f", "now(0,-20)", "now(0,0)"),)),
              process("writer", frequency="minutes(10)", start="2012-02-28T10:37Z", end="2016-02-28T10:00Z",
                      outputs=(("out", "f", "now(0,0)"),)))
    code, out, _ = run(capsys, "explain", "f", "--at", "2012-02-28T10:15Z", "--entities", str(tmp_path),
                       "--format", "json")
    assert code == 0, out
    (entry,) = json.loads(out)["clusters"]
    assert entry["consumers"] == [{"process": "p", "instances": ["2012-02-28T10:20Z", "2012-02-28T10:30Z"]}]
    code, out, _ = run(capsys, "explain", "f", "--at", "2013-02-28T10:35Z", "--entities", str(tmp_path))
    assert code == 0 and "written by process writer instance 2013-02-28T10:37Z" in out
