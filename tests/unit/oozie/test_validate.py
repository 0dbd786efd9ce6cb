"""One workflow file judged whole: EL in texts and attributes (FA023, FA024), support (FA020), issue order."""

from __future__ import annotations

from pathlib import Path

from falcon_airflow.issues import Level
from falcon_airflow.oozie import FsAction
from falcon_airflow.oozie.support import ACTION_SUPPORT, support_of
from falcon_airflow.oozie.validate import validate_workflow_file

WORKFLOW = """\
<workflow-app xmlns="uri:oozie:workflow:0.5" name="${appName}">
    <global><job-tracker>jt</job-tracker><name-node>nn</name-node></global>
    <start to="sh"/>
    <action name="sh" retry-max="${retries +}">
        <shell xmlns="uri:oozie:shell-action:0.3">
            <exec>run.sh</exec>
            <argument>first ${wf:id()}
second ${concat('a', }</argument>
            <argument>${acme:lookup('x')}</argument>
        </shell>
        <ok to="mr"/>
        <error to="fail"/>
    </action>
    <action name="mr">
        <map-reduce><prepare><delete path="${output}"/></prepare></map-reduce>
        <ok to="end"/>
        <error to="fail"/>
    </action>
    <!-- ${not evaluated: a comment -->
    <kill name="fail"><message>failed: ${wf:errorMessage(wf:lastErrorNode())}</message></kill>
    <end name="end"/>
</workflow-app>
"""


def test_a_workflow_file_judged_whole(tmp_path: Path) -> None:
    path = tmp_path / "workflow.xml"
    path.write_text(WORKFLOW, encoding="utf-8")
    report = validate_workflow_file(path, "wf.xml")
    found = [(issue.rule, issue.level, issue.line) for issue in report.issues]
    assert found == [
        ("FA023", Level.ERROR, 4),  # retry-max="${retries +}"
        ("FA023", Level.ERROR, 8),  # the second line of a multi-line text
        ("FA024", Level.WARNING, 9),
        ("FA020", Level.WARNING, 15),
    ]
    syntax = report.issues[1]
    assert syntax.file == "wf.xml" and syntax.entity == "${appName}"
    assert "EL syntax error in <argument>" in syntax.message and "column 22" in syntax.message
    assert "'acme:lookup'" in report.issues[2].message
    assert report.has_errors and report.workflow is not None


def test_the_same_workflow_used_by_a_process(tmp_path: Path) -> None:
    path = tmp_path / "workflow.xml"
    path.write_text(WORKFLOW.replace("${retries +}", "3").replace("${concat('a', }", "x"), encoding="utf-8")
    report = validate_workflow_file(path, supplied={}, in_process="daily")
    [unsupported] = [issue for issue in report.issues if issue.rule == "FA020"]
    assert unsupported.level is Level.ERROR
    assert unsupported.message.startswith("process 'daily' uses this workflow, but action 'mr' (<map-reduce>)")


def test_unreadable_files_stop_at_reading(tmp_path: Path) -> None:
    path = tmp_path / "workflow.xml"
    path.write_text("<workflow-app xmlns='uri:oozie:workflow:0.5' name='w'><start to='x'/>", encoding="utf-8")
    report = validate_workflow_file(path)
    assert report.workflow is None and [issue.rule for issue in report.issues] == ["E0701"]


def test_support_table() -> None:
    runs = {name for name, item in ACTION_SUPPORT.items() if item.runs}
    assert runs == {"spark", "hive", "hive2", "shell", "java", "fs", "email", "distcp", "sub-workflow"}
    assert all(item.advice for item in ACTION_SUPPORT.values() if not item.runs)


def test_a_custom_action_cannot_run(tmp_path: Path) -> None:
    path = tmp_path / "workflow.xml"
    path.write_text('<workflow-app xmlns="uri:oozie:workflow:0.5" name="w"><start to="a"/><action name="a">'
                    '<ping xmlns="uri:acme:ping:1.0"/><ok to="end"/><error to="end"/></action><end name="end"/>'
                    "</workflow-app>", encoding="utf-8")
    report = validate_workflow_file(path)
    assert report.workflow is not None
    support = support_of(report.workflow.actions[0])
    assert not support.runs and "custom action" in support.becomes
    assert {issue.rule for issue in report.issues} == {"E0723", "FA020"}


def test_setrep_is_read_and_refused(tmp_path: Path) -> None:
    path = tmp_path / "workflow.xml"
    path.write_text('<workflow-app xmlns="uri:oozie:workflow:0.5" name="w"><start to="a"/><action name="a">'
                    '<fs><mkdir path="/d"/><setrep path="/d/f" replication-factor="2"/></fs>'
                    '<ok to="end"/><error to="end"/></action><end name="end"/></workflow-app>', encoding="utf-8")
    report = validate_workflow_file(path)
    assert report.workflow is not None
    action = report.workflow.actions[0]
    assert isinstance(action.config, FsAction)
    assert [(op.kind.value, op.replication_factor) for op in action.config.operations] == [
        ("mkdir", None), ("setrep", "2")]
    [issue] = report.issues
    assert issue.rule == "FA020" and "<setrep>" in issue.message


def test_a_definition_over_oozies_default_length_is_a_warning(tmp_path: Path) -> None:
    actions = "".join(f'<action name="a{index}"><fs><mkdir path="/d/{index}"/></fs><ok to="a{index + 1}"/>'
                      f'<error to="a1200"/></action>\n' for index in range(1200))
    path = tmp_path / "workflow.xml"
    path.write_text(f'<workflow-app xmlns="uri:oozie:workflow:0.5" name="long"><start to="a0"/>\n{actions}'
                    '<end name="a1200"/></workflow-app>', encoding="utf-8")
    report = validate_workflow_file(path)
    assert [(issue.rule, issue.level) for issue in report.issues] == [("E0736", Level.WARNING)]
    assert report.workflow is not None and len(report.workflow.actions) == 1200
