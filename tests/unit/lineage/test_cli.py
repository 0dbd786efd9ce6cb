"""``falcon-airflow lineage``: its questions on the command line, exit codes, output formats, light imports."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree

import pytest

from falcon_airflow.cli import main as cli
from falcon_airflow.lineage.graph import build_graph, render
from falcon_airflow.lineage.query import LineageIndex
from falcon_airflow.workspace import Workspace

REPOSITORY = Path(__file__).resolve().parents[3]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = cli(["lineage", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_column_field_history_and_instance(event_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "column", "agg@c1", "total", "--events", str(event_file), "--start",
                       "2026-03-01T06:00Z")
    assert code == 0 and "2026-03-01T06:00Z" in out and "2026-03-01T05:00Z]" not in out.splitlines()[0]
    code, out, _ = run(capsys, "field-history", "raw", "amount", "--events", str(event_file), "--format", "json")
    assert code == 0 and [row["operation"] for row in json.loads(out)["operations"]] == ["read", "read", "drop"]
    code, out, _ = run(capsys, "instance", "agg", "--at", "2026-03-01T05:00:00+00:00", "--events", str(event_file))
    assert code == 0 and out.startswith("process agg instance 2026-03-01T05:00Z")


def test_exit_codes(event_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                    monkeypatch: pytest.MonkeyPatch) -> None:
    assert run(capsys, "column", "nothing", "x", "--events", str(event_file))[0] == 1
    assert run(capsys, "instance", "agg", "--at", "2030-01-01T00:00Z", "--events", str(event_file))[0] == 1
    code, _, err = run(capsys, "column", "agg", "total", "--start", "yesterday", "--events", str(event_file))
    assert code == 2 and "--start" in err
    code, _, err = run(capsys, "column", "agg", "total", "--events", str(tmp_path / "missing.jsonl"))
    assert code == 2 and "no such event log" in err
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("AIRFLOW_HOME", raising=False)
    code, _, err = run(capsys, "column", "agg", "total")
    assert code == 2 and "--events" in err
    with pytest.raises(SystemExit) as usage:
        cli(["lineage", "column", "agg"])
    assert usage.value.code == 2


def test_default_event_log_is_the_one_make_run_writes(event_file: Path, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    work = tmp_path / "work"
    (work / "airflow-home" / "lineage").mkdir(parents=True)
    (work / "airflow-home" / "lineage" / "events.jsonl").write_text(event_file.read_text())
    monkeypatch.chdir(work)
    monkeypatch.delenv("AIRFLOW_HOME", raising=False)
    code, out, _ = run(capsys, "column", "report", "revenue")
    assert code == 0 and "revenue" in out


def test_graph_formats(event_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "graph", "--entities", str(REPOSITORY / "entities"))
    graph = json.loads(out)
    edges = {(edge["from"], edge["to"], edge["label"]) for edge in graph["edges"]}
    assert {("feed:raw-clicks", "process:count-clicks", "input"), ("process:count-clicks", "feed:click-counts",
            "output"), ("feed:click-counts", "cluster:backup", "replicated-to"),
            ("process:count-clicks", "pipeline:clickstream", "pipeline"), ("feed:click-counts", "group:clicks",
            "grouped-as"), ("process:count-clicks", "user:analytics", "owned-by"),
            ("process:count-clicks", "tag:team=analytics", "team"),
            ("cluster:primary", "data-center:local", "collocated")} <= edges
    svg = tmp_path / "graph.svg"
    code, _, _ = run(capsys, "graph", "--events", str(event_file), "--instances", "--format", "svg", "--output",
                     str(svg))
    assert code == 0
    root = ElementTree.parse(svg).getroot()
    names = {node.findtext("{http://www.w3.org/2000/svg}title") for node in root.iter("{http://www.w3.org/2000/svg}g")
             if (node.get("class") or "").startswith("node ")}
    assert {"process: agg", "feed: raw", "cluster: c2", "pipeline: sales", "process-instance: agg/2026-03-01T05:00Z",
            "feed-instance: raw@c1/2026-03-01T06:00Z"} <= names
    code, out, _ = run(capsys, "graph", "--events", str(event_file), "--format", "dot")
    assert code == 0 and out.startswith("digraph falcon {") and '"feed:agg" -> "cluster:c2" [label="replicated-to"]' \
        in out
    assert run(capsys, "graph", "--entities", str(tmp_path / "none"))[0] == 2


def test_graph_of_entities_and_events_merge(event_file: Path) -> None:
    from falcon_airflow.lineage.events import load_event_logs

    graph = build_graph(Workspace.load([str(REPOSITORY / "entities")]),
                        LineageIndex(load_event_logs([event_file]).events))
    kinds = {node.type for node in graph.nodes.values()}
    assert {"cluster", "feed", "process", "user", "tag", "group", "pipeline", "data-center"} <= kinds
    assert "process-instance" not in kinds
    ElementTree.fromstring(render(graph, "svg"))  # well-formed
    assert render(build_graph(), "svg").startswith("<svg")


def test_lineage_never_imports_airflow_or_pyspark(event_file: Path, tmp_path: Path) -> None:
    script = ("import json, sys\nimport falcon_airflow.cli\ncode = falcon_airflow.cli.main(sys.argv[1:])\n"
              "heavy = sorted({m.split('.')[0] for m in sys.modules} & {'airflow', 'pyspark', 'openlineage'})\n"
              "print(json.dumps({'code': code, 'heavy': heavy}), file=sys.stderr)\n")
    for argv in (["column", "agg", "total"], ["graph", "--entities", str(REPOSITORY / "entities"), "--format", "svg"],
                 ["field-history", "raw", "amount"], ["instance", "agg", "--at", "2026-03-01T05:00Z"]):
        result = subprocess.run([sys.executable, "-c", script, "lineage", *argv, "--events", str(event_file)],
                                capture_output=True, text=True, timeout=60, check=False)
        assert json.loads(result.stderr.strip().splitlines()[-1]) == {"code": 0, "heavy": []}, result.stderr


def test_edge_labels_of_the_svg_never_overprint_each_other() -> None:
    from itertools import combinations

    from falcon_airflow.lineage.graph import Graph, label_box, to_svg

    graph = Graph()
    for feed in range(4):  # every feed read by every process: the curves cross, their midpoints coincide
        for process in range(4):
            graph.edge(graph.node("feed", f"f{feed}"), graph.node("process", f"p{process}"), "input")
    root = ElementTree.fromstring(to_svg(graph))
    svg = "{http://www.w3.org/2000/svg}"
    (labels,) = [group for group in root.iter(f"{svg}g") if group.get("class") == "edge-labels"]
    boxes = [label_box(float(text.get("x", 0)), float(text.get("y", 0)), text.text or "")
             for text in labels.iter(f"{svg}text")]
    assert len(boxes) == 16
    for one, other in combinations(boxes, 2):
        assert not (one[0] < other[2] and other[0] < one[2] and one[1] < other[3] and other[1] < one[3])


def test_edge_labels_of_parallel_edges_overlap_neither_each_other_nor_a_node() -> None:
    from itertools import combinations

    from falcon_airflow.lineage.graph import Graph, label_box, to_svg

    graph = Graph()
    hub = graph.node("process", "aggregate-everything")
    east = graph.node("cluster", "east")
    for number in range(12):  # parallel edges: into one process and back, each feed stored on one cluster
        feed = graph.node("feed", f"feed-{number}")
        graph.edge(feed, hub, "input")
        graph.edge(hub, feed, "output")
        graph.edge(feed, east, "stored-in")
        graph.edge(feed, east, "replicated-to")  # same pair: one curve, one label
        graph.edge(feed, graph.node("user", "ops"), "owned-by")
        graph.edge(feed, graph.node("tag", "team=data"), "team")
    graph.edge(hub, east, "runs-on")
    root = ElementTree.fromstring(to_svg(graph))
    svg = "{http://www.w3.org/2000/svg}"
    (labels,) = [group for group in root.iter(f"{svg}g") if group.get("class") == "edge-labels"]
    texts = list(labels.iter(f"{svg}text"))
    boxes = [label_box(float(text.get("x", 0)), float(text.get("y", 0)), text.text or "") for text in texts]
    assert len(boxes) == 12 * 5 + 1 and "replicated-to, stored-in" in {text.text for text in texts}
    (nodes,) = [group for group in root.iter(f"{svg}g") if group.get("class") == "nodes"]
    rects = [(float(rect.get("x", 0)), float(rect.get("y", 0)), float(rect.get("x", 0)) + float(rect.get("width", 0)),
              float(rect.get("y", 0)) + float(rect.get("height", 0))) for rect in nodes.iter(f"{svg}rect")]
    assert len(rects) == 12 + 4

    def overlap(one: tuple[float, ...], other: tuple[float, ...]) -> bool:
        return one[0] < other[2] and other[0] < one[2] and one[1] < other[3] and other[1] < one[3]

    assert [pair for pair in combinations(boxes, 2) if overlap(*pair)] == []
    assert [(box, rect) for box in boxes for rect in rects if overlap(box, rect)] == []
    width, height = float(root.get("width", 0)), float(root.get("height", 0))
    assert all(box[0] >= 0 and box[1] >= 0 and box[2] <= width and box[3] <= height for box in boxes)
