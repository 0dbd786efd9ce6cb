"""``falcon-airflow oozie graph`` (JSON, DOT, SVG, --support) and ``validate`` on a bare workflow.xml."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest

from falcon_airflow.cli import main

WORKFLOW = """\
<workflow-app xmlns="uri:oozie:workflow:1.0" name="review">
    <start to="check"/>
    <decision name="check">
        <switch>
            <case to="split">${fs:exists('/data/in')}</case>
            <default to="end"/>
        </switch>
    </decision>
    <fork name="split">
        <path start="copy"/>
        <path start="count"/>
    </fork>
    <action name="copy">
        <fs><mkdir path="/data/out"/></fs>
        <ok to="joined"/>
        <error to="fail"/>
    </action>
    <action name="count">
        <pig><resource-manager>rm</resource-manager><name-node>nn</name-node><script>count.pig</script></pig>
        <ok to="joined"/>
        <error to="fail"/>
    </action>
    <join name="joined" to="end"/>
    <kill name="fail"><message>failed</message></kill>
    <end name="end"/>
</workflow-app>
"""


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def workflow(tmp_path: Path) -> Path:
    folder = tmp_path / "app"
    folder.mkdir()
    path = folder / "workflow.xml"
    path.write_text(WORKFLOW, encoding="utf-8")
    return path


def test_graph_json(capsys: pytest.CaptureFixture[str], workflow: Path) -> None:
    code, out, _ = run(capsys, "oozie", "graph", str(workflow))
    assert code == 0
    graph = json.loads(out)
    assert graph["start"] == ":start:"
    assert graph["nodes"] == [
        {"name": ":start:", "type": "start"}, {"name": "check", "type": "decision"},
        {"name": "split", "type": "fork"}, {"name": "copy", "type": "action:fs"},
        {"name": "count", "type": "action:pig"}, {"name": "joined", "type": "join"},
        {"name": "fail", "type": "kill"}, {"name": "end", "type": "end"}]
    assert graph["edges"] == [
        {"from": ":start:", "to": "check", "kind": "start"}, {"from": "check", "to": "split", "kind": "case"},
        {"from": "check", "to": "end", "kind": "default"}, {"from": "split", "to": "copy", "kind": "fork"},
        {"from": "split", "to": "count", "kind": "fork"}, {"from": "copy", "to": "joined", "kind": "ok"},
        {"from": "copy", "to": "fail", "kind": "error"}, {"from": "count", "to": "joined", "kind": "ok"},
        {"from": "count", "to": "fail", "kind": "error"}, {"from": "joined", "to": "end", "kind": "join"}]


def test_graph_of_an_app_folder_to_a_file(capsys: pytest.CaptureFixture[str], workflow: Path, tmp_path: Path) -> None:
    target = tmp_path / "graph.json"
    code, out, _ = run(capsys, "oozie", "graph", str(workflow.parent), "--output", str(target))
    assert code == 0 and out == ""
    assert json.loads(target.read_text())["nodes"][1]["name"] == "check"


def test_graph_dot(capsys: pytest.CaptureFixture[str], workflow: Path) -> None:
    code, out, _ = run(capsys, "oozie", "graph", str(workflow), "--format", "dot")
    assert code == 0 and out.startswith('digraph "review" {')
    assert '"count" [shape=box, style=filled, fillcolor="#fff3cd", label="count\\n<pig>"];' in out
    assert '"copy" -> "fail" [label="error", color="#c62828", style=dashed];' in out
    assert out.count(" -> ") == 10


def test_graph_svg(capsys: pytest.CaptureFixture[str], workflow: Path) -> None:
    code, out, _ = run(capsys, "oozie", "graph", str(workflow), "--format", "svg")
    assert code == 0
    svg = ElementTree.fromstring(out)
    texts = [element.text for element in svg.iter("{http://www.w3.org/2000/svg}text")]
    assert "count" in texts and "action:pig" in texts
    assert len(list(svg.iter("{http://www.w3.org/2000/svg}path"))) == 10 + 1  # the edges and the arrow head


def test_support(capsys: pytest.CaptureFixture[str], workflow: Path) -> None:
    code, out, _ = run(capsys, "oozie", "graph", str(workflow), "--support")
    assert code == 0
    assert "some actions cannot run here" in out
    assert "runs      copy <fs>" in out and "REFUSED   count <pig>: there is no Pig runtime here" in out
    code, out, _ = run(capsys, "oozie", "graph", str(workflow), "--support", "--format", "json")
    report = json.loads(out)
    assert report["runs"] is False
    assert [(item["name"], item["runs"]) for item in report["actions"]] == [("copy", True), ("count", False)]
    assert "Spark SQL" in report["actions"][1]["advice"]


@pytest.mark.parametrize("args", [("--format", "text"), ("--support", "--format", "svg")])
def test_format_that_does_not_fit_is_a_usage_error(capsys: pytest.CaptureFixture[str], workflow: Path,
                                                    args: tuple[str, ...]) -> None:
    code, _, err = run(capsys, "oozie", "graph", str(workflow), *args)
    assert code == 2 and "falcon-airflow oozie graph:" in err


def test_missing_and_unreadable_workflows(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(capsys, "oozie", "graph", str(tmp_path / "nope.xml"))
    assert code == 2 and "no such workflow file" in err
    broken = tmp_path / "broken.xml"
    broken.write_text('<workflow-app xmlns="uri:oozie:workflow:0.5" name="b"><begin to="x"/><end name="x"/>'
                      "</workflow-app>")
    code, out, err = run(capsys, "oozie", "graph", str(broken))
    assert code == 1 and out == "" and "[E0701]" in err and "begin" in err


def test_validate_a_bare_workflow(capsys: pytest.CaptureFixture[str], workflow: Path) -> None:
    code, out, _ = run(capsys, "validate", "--format", "json", str(workflow))
    assert code == 0
    report = json.loads(out)
    assert [(issue["rule"], issue["level"]) for issue in report["issues"]] == [("FA020", "warning")]
    workflow.write_text(WORKFLOW.replace('<join name="joined" to="end"/>', '<join name="joined" to="nowhere"/>'))
    code, out, _ = run(capsys, "validate", "--format", "json", str(workflow))
    report = json.loads(out)
    assert code == 1
    [error] = [issue for issue in report["issues"] if issue["level"] == "error"]
    assert (error["rule"], error["line"]) == ("E0708", 23)


def test_schema_only_judges_a_workflow_alone(capsys: pytest.CaptureFixture[str], workflow: Path) -> None:
    workflow.write_text(WORKFLOW.replace('<join name="joined" to="end"/>', '<join name="joined" to="nowhere"/>'))
    code, out, _ = run(capsys, "validate", "--schema-only", "--format", "json", str(workflow))
    assert code == 0 and json.loads(out)["issues"] == []  # transitions are not schema
    workflow.write_text(WORKFLOW.replace("<kill name=\"fail\"><message>failed</message></kill>", '<kill name="fail"/>'))
    code, out, _ = run(capsys, "validate", "--schema-only", "--format", "json", str(workflow))
    assert code == 1 and [issue["rule"] for issue in json.loads(out)["issues"]] == ["E0701"]
