"""Oozie's schema and structural rules: each broken workflow reports Oozie's error code and the line."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from falcon_airflow.issues import Issue
from falcon_airflow.oozie import parse_workflow_bytes, parse_workflow_file
from falcon_airflow.oozie.rules import check_workflow


def _issues(xml: str, supplied: dict[str, str] | None = None) -> list[Issue]:
    parsed = parse_workflow_bytes(xml.strip().encode(), "wf.xml")
    if parsed.workflow is None:
        return list(parsed.issues)
    return check_workflow(parsed.workflow, supplied)


def _errors(xml: str) -> list[tuple[str, int | None]]:
    return [(issue.rule, issue.line) for issue in _issues(xml) if issue.is_error]


def _wf(body: str, version: str = "0.5", head: str = "") -> str:
    return f'<workflow-app xmlns="uri:oozie:workflow:{version}" name="w">{head}{body}\n</workflow-app>'


FS = "<fs><mkdir path='/tmp/x'/></fs>"


def _action(name: str, ok: str, error: str = "fail", body: str = FS) -> str:
    return f'<action name="{name}">{body}<ok to="{ok}"/><error to="{error}"/></action>\n'


KILL_END = '<kill name="fail"><message>failed</message></kill>\n<end name="end"/>'


def test_a_sound_workflow_has_no_issue() -> None:
    xml = _wf('<start to="split"/>\n<fork name="split"><path start="a"/><path start="b"/></fork>\n'
              + _action("a", "joined") + _action("b", "joined") + '<join name="joined" to="end"/>\n' + KILL_END)
    assert _issues(xml) == []


@pytest.mark.parametrize(("xml", "rule", "line"), [
    pytest.param(_wf('<begin to="end"/>\n<end name="end"/>'), "E0701", 1, id="schema-unknown-element"),
    pytest.param(_wf('<start to="end"/>\n<kill name="k"/>\n<end name="end"/>'), "E0701", 2, id="kill-without-message"),
    pytest.param(_wf('<start to="d"/>\n<decision name="d"><switch><case to="end">${true}</case></switch>'
                     '</decision>\n<end name="end"/>'), "E0701", 2, id="decision-without-default"),
    pytest.param(_wf('<start to="a"/>\n' + _action("a", "end") + '<end name="end"/>', version="0.9"),
                 "E0701", 1, id="unknown-workflow-version"),
    pytest.param(_wf('<start to="a"/>\n' + _action("a", "end", "end", '<shell xmlns="uri:oozie:shell-action:0.2">'
                     '<job-tracker>j</job-tracker><name-node>n</name-node><argument>x</argument></shell>')
                     + '<end name="end"/>'), "E0701", 2, id="action-schema"),
    pytest.param(_wf('<start to="a"/>\n' + _action("a", "end", "end", '<shell xmlns="uri:oozie:shell-action:0.3">'
                     '<exec>x</exec></shell>') + '<end name="end"/>'), "E0701", 2, id="no-name-node-no-global"),
    pytest.param(_wf('<start to="a"/>\n' + _action("a", "end", "end", '<custom xmlns="uri:acme:custom:1.0">'
                     '<x/></custom>') + '<end name="end"/>'), "E0723", 2, id="unsupported-action"),
    pytest.param(_wf('<start to="a"/>\n' + _action("a", "end") + _action("a", "end") + KILL_END),
                 "E0705", 3, id="duplicate-name"),
    pytest.param(_wf('<start to="a"/>\n' + _action("a", "a") + KILL_END), "E0706", 2, id="self-transition"),
    pytest.param(_wf('<start to="a"/>\n' + _action("a", "b") + _action("b", "a") + KILL_END),
                 "E0707", 3, id="loop"),
    pytest.param(_wf('<start to="a"/>\n' + _action("a", "nowhere") + KILL_END), "E0708", 2, id="bad-transition"),
    pytest.param(_wf('<start to="' + "a" * 129 + '"/>\n<end name="' + "a" * 129 + '"/>'), "E0724", 2,
                 id="name-too-long"),
    pytest.param(_wf('<start to="split"/>\n<fork name="split"><path start="a"/><path start="b"/></fork>\n'
                     + _action("a", "end") + _action("b", "end") + KILL_END), "E0730", 2, id="fork-without-join"),
    pytest.param(_wf('<start to="a"/>\n' + _action("a", "joined") + '<join name="joined" to="split"/>\n'
                     '<fork name="split"><path start="b"/><path start="c"/></fork>\n'
                     + _action("b", "end") + _action("c", "end") + KILL_END), "E0742", 3, id="join-before-fork"),
    pytest.param(_wf('<start to="split"/>\n<fork name="split"><path start="a"/><path start="b"/></fork>\n'
                     + _action("a", "j1") + _action("b", "j2") + '<join name="j1" to="end"/>\n'
                     '<join name="j2" to="end"/>\n' + KILL_END), "E0730", 2, id="two-joins-one-fork"),
    pytest.param(_wf('<start to="f1"/>\n<fork name="f1"><path start="a"/><path start="f2"/></fork>\n'
                     '<fork name="f2"><path start="b"/><path start="c"/></fork>\n'
                     + _action("a", "j1") + _action("b", "j1") + _action("c", "j2")
                     + '<join name="j1" to="end"/>\n<join name="j2" to="end"/>\n' + KILL_END),
                 "E0758", 7, id="join-of-two-forks"),
    pytest.param(_wf('<start to="split"/>\n<fork name="split"><path start="a"/><path start="b"/></fork>\n'
                     + _action("a", "joined") + _action("b", "end") + '<join name="joined" to="end"/>\n' + KILL_END),
                 "E0737", 7, id="end-inside-fork"),
    pytest.param(_wf('<start to="split"/>\n<fork name="split"><path start="a"/><path start="b"/></fork>\n'
                     + _action("a", "c") + _action("b", "c") + _action("c", "joined")
                     + '<join name="joined" to="end"/>\n' + KILL_END), "E0743", 5, id="two-ok-paths"),
    pytest.param(_wf('<start to="split"/>\n<fork name="split"><path start="a"/><path start="a"/></fork>\n'
                     + _action("a", "joined") + '<join name="joined" to="end"/>\n' + KILL_END),
                 "E0744", 2, id="fork-starts-node-twice"),
    pytest.param(_wf('<start to="end"/>\n<end name="end"/>', head='<parameters><property><name> </name>'
                     '<value>x</value></property></parameters>\n'), "E0739", 1, id="empty-parameter-name"),
])
def test_broken_workflows_report_oozies_code(xml: str, rule: str, line: int) -> None:
    errors = _errors(xml)
    assert (rule, line) in errors, errors


def test_decision_paths_may_meet_and_error_paths_do_not_count() -> None:
    xml = _wf('<start to="d"/>\n<decision name="d"><switch><case to="a">${x}</case><default to="b"/></switch>'
              '</decision>\n' + _action("a", "c") + _action("b", "c", error="c") + _action("c", "end") + KILL_END)
    assert _errors(xml) == []


def test_nested_forks_pair_with_their_own_joins() -> None:
    xml = _wf('<start to="f1"/>\n<fork name="f1"><path start="f2"/><path start="c"/></fork>\n'
              '<fork name="f2"><path start="a"/><path start="b"/></fork>\n'
              + _action("a", "j2") + _action("b", "j2") + '<join name="j2" to="d"/>\n' + _action("d", "j1")
              + _action("c", "j1") + '<join name="j1" to="end"/>\n' + KILL_END)
    assert _errors(xml) == []


def test_global_supplies_name_node_and_job_tracker_of_an_early_action_schema() -> None:
    hive = ('<hive xmlns="uri:oozie:hive-action:0.2"><prepare><delete path="/t"/></prepare>'
            '<script>q.sql</script></hive>')
    body = '<start to="a"/>\n' + _action("a", "end", "end", hive) + '<end name="end"/>'
    with_global = '<global><job-tracker>jt</job-tracker><name-node>nn</name-node></global>\n'
    assert _errors(_wf(body, head=with_global)) == []
    assert ("E0701", 2) in _errors(_wf(body))


def test_required_parameters() -> None:
    xml = _wf('<start to="end"/>\n<end name="end"/>',
              head='<parameters><property><name>input</name></property>'
                   '<property><name>out</name><value>/o</value></property></parameters>\n')
    bare = _issues(xml)
    assert [(i.rule, i.level.value) for i in bare] == [("E0738", "warning")]
    assert [(i.rule, i.level.value) for i in _issues(xml, {})] == [("E0738", "error")]
    assert _issues(xml, {"input": "/in"}) == []


def test_unreachable_nodes_are_a_warning() -> None:
    xml = _wf('<start to="end"/>\n' + _action("orphan", "end") + KILL_END)
    issues = _issues(xml)
    assert {(i.rule, i.level.value, i.line) for i in issues} == {("FA022", "warning", 2), ("FA022", "warning", 3)}


def test_issues_name_file_line_and_workflow() -> None:
    issue = _issues(_wf('<start to="a"/>\n' + _action("a", "nowhere") + KILL_END))[0]
    assert (issue.file, issue.line, issue.entity, issue.rule) == ("wf.xml", 2, "w", "E0708")
    assert "'nowhere'" in issue.message


def test_conformance_verdicts(shared: Path) -> None:
    """Oozie's verdict on every workflow of the conformance manifest (the command line is checked by the runner)."""
    folder = shared / "conformance" / "oozie"
    for row in csv.DictReader((folder / "oozie.tsv").open(), delimiter="\t"):
        parsed = parse_workflow_file(folder / row["file"])
        issues = list(parsed.issues) + (check_workflow(parsed.workflow) if parsed.workflow else [])
        codes = {issue.rule for issue in issues if issue.is_error}
        if row["expected"] == "valid":
            assert not codes, (row["file"], issues)
        else:
            assert row["oozie_error"].split()[0] in codes, (row["file"], issues)


def test_global_job_tracker_for_a_git_action() -> None:
    git = ('<git xmlns="uri:oozie:git-action:1.0"><git-uri>https://example.org/r.git</git-uri>'
           '<destination-uri>/tmp/r</destination-uri></git>')
    body = '<start to="a"/>\n' + _action("a", "end", "end", git) + '<end name="end"/>'
    with_global = '<global><job-tracker>jt</job-tracker><name-node>nn</name-node></global>\n'
    assert _errors(_wf(body, version="1.0", head=with_global)) == []
    assert ("E0701", 2) in _errors(_wf(body, version="1.0"))  # git needs a name node


@pytest.mark.parametrize(("version", "head", "body", "valid"), [
    ("0.2.5", '<credentials><credential name="hc" type="hcat"><property><name>a</name><value>b</value></property>'
     "</credential></credentials>", '<fs><delete path="/x"/></fs>', True),
    ("0.2", '<credentials/>', '<fs><delete path="/x"/></fs>', False),  # credentials came with 0.2.5
    ("0.4.5", "", '<fs><chgrp path="/x" group="g" dir-files="false"><recursive/></chgrp></fs>', True),
    ("0.4", "", '<fs><chgrp path="/x" group="g"/></fs>', False),  # chgrp came with 0.4.5
    ("0.3", "", '<fs><touchz path="/x"/></fs>', False),  # touchz came with 0.4
    ("0.5", "", '<fs><delete path="/x" skip-trash="true"/><setrep path="/x" replication-factor="2"/></fs>', True),
    ("1.0", "", '<fs><setrep path="/x" replication-factor="2"/></fs>', False),
    ("0.4", '<global><job-tracker>j</job-tracker></global>', '<fs><mkdir path="/x"/></fs>', True),
    ("0.3", '<global><job-tracker>j</job-tracker></global>', '<fs><mkdir path="/x"/></fs>', False),
])
def test_what_each_schema_version_allows(version: str, head: str, body: str, valid: bool) -> None:
    cred = ' cred="hc"' if "credential " in head else ""
    xml = (f'<workflow-app xmlns="uri:oozie:workflow:{version}" name="w">{head}<start to="a"/>'
           f'<action name="a"{cred}>{body}<ok to="end"/><error to="end"/></action><end name="end"/></workflow-app>')
    codes = {rule for rule, _ in _errors(xml)}
    assert (not codes) is valid, codes
    if not valid:
        assert codes == {"E0701"}
