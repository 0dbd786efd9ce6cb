"""Oozie workflows in validate: the workflow of an Oozie process, found where the runtime finds it and judged as
the process runs it, and bare workflow.xml files judged alone."""

from __future__ import annotations

import textwrap

from falcon_airflow.issues import Issue, Level
from falcon_airflow.validation import Report

from .conftest import EntityWorkspace

SPARK_WORKFLOW = '<workflow engine="spark" path="/apps/sample/workflow" lib="/apps/sample/lib/udfs.jar"/>'
PRIMARY_WRITE = '<interface type="write" endpoint="hdfs://nn.east.example:8020" version="2.2.0"/>'


def workflow_xml(actions: str, head: str = "", version: str = "0.5") -> str:
    return textwrap.dedent(f"""\
        <workflow-app xmlns="uri:oozie:workflow:{version}" name="sample-wf">
        {head}<start to="first"/>
        {actions}
        <kill name="fail"><message>failed at ${{wf:lastErrorNode()}}</message></kill>
        <end name="end"/>
        </workflow-app>
        """)


SHELL = """<action name="first"><shell xmlns="uri:oozie:shell-action:0.3"><exec>run.sh</exec>
<argument>${impression}</argument></shell>
<ok to="second"/><error to="fail"/></action>"""
PIG = """<action name="second"><pig><script>id.pig</script></pig>
<ok to="end"/><error to="fail"/></action>"""
FS = """<action name="second"><fs><mkdir path="${clicksOutput}"/></fs>
<ok to="end"/><error to="fail"/></action>"""
GLOBAL = "<global><job-tracker>${jobTracker}</job-tracker><name-node>${nameNode}</name-node></global>\n"


LATE_INPUTS = """<late-input input="impression" workflow-path="/apps/sample/late"/>
        <late-input input="clicks" workflow-path="/apps/sample/late"/>"""


def oozie_process(ws: EntityWorkspace, path: str = "apps/sample-wf") -> EntityWorkspace:
    """The base process on its Oozie workflow at ``path``, its late re-runs naming the same one (FA070)."""
    ws.edit("sample", SPARK_WORKFLOW, f'<workflow engine="oozie" path="{path}"/>')
    return ws.edit("sample", LATE_INPUTS, LATE_INPUTS.replace("/apps/sample/late", path))


def test_a_late_workflow_path_an_oozie_process_does_not_run_is_a_warning(ws: EntityWorkspace) -> None:
    ws.edit("sample", SPARK_WORKFLOW, '<workflow engine="oozie" path="apps/sample-wf"/>')
    ws.put("wf", workflow_xml(SHELL + FS, head=GLOBAL), "apps/sample-wf/workflow.xml")
    report = ws.validate()
    found = of_rule(report, "FA070")
    assert [issue.line for issue in found] == [ws.line("sample", 'input="impression" workflow-path'),
                                               ws.line("sample", 'input="clicks" workflow-path')]
    assert all(issue.level is Level.WARNING and "/apps/sample/late" in issue.message
               and "runs its own workflow ('apps/sample-wf') again" in issue.message for issue in found)
    assert report.valid


def of_rule(report: Report, rule: str) -> list[Issue]:
    return [issue for issue in report.issues if issue.rule == rule]


def test_a_process_workflow_that_runs_here_is_clean(ws: EntityWorkspace) -> None:
    oozie_process(ws).put("wf", workflow_xml(SHELL + FS, head=GLOBAL), "apps/sample-wf/workflow.xml")
    report = ws.validate()
    assert {issue.rule for issue in report.issues} <= {"FA002"}, ws.describe(report)


def test_an_action_that_cannot_run_is_an_error_for_a_process(ws: EntityWorkspace) -> None:
    oozie_process(ws).put("wf", workflow_xml(SHELL + PIG, head=GLOBAL), "apps/sample-wf/workflow.xml")
    report = ws.validate()
    [issue] = of_rule(report, "FA020")
    assert issue.level is Level.ERROR
    assert issue.file == ws.path("wf") and issue.line == ws.line("wf", "<pig>")
    assert "process 'sample' uses this workflow" in issue.message and "Spark SQL" in issue.message
    assert not report.valid


def test_a_bare_workflow_is_judged_alone(ws: EntityWorkspace) -> None:
    ws.put("wf", workflow_xml(SHELL + PIG, head=GLOBAL), "apps/other-wf/workflow.xml")
    report = ws.validate()
    [issue] = of_rule(report, "FA020")
    assert issue.level is Level.WARNING and issue.file == ws.path("wf")
    assert not of_rule(report, "E0738")


def test_required_parameters_come_from_the_process_and_falcon(ws: EntityWorkspace) -> None:
    parameters = ("<parameters><property><name>impression</name></property>"
                  "<property><name>nominalTime</name></property>"
                  "<property><name>name1</name></property>"
                  "<property><name>missing</name></property></parameters>\n")
    oozie_process(ws).put("wf", workflow_xml(SHELL + FS, head=parameters + GLOBAL), "apps/sample-wf/workflow.xml")
    [issue] = of_rule(ws.validate(), "E0738")
    assert issue.level is Level.ERROR and "'missing'" in issue.message


def test_structural_errors_of_the_process_workflow(ws: EntityWorkspace) -> None:
    broken = SHELL.replace('<ok to="second"/>', '<ok to="nowhere"/>')
    oozie_process(ws).put("wf", workflow_xml(broken, head=GLOBAL), "apps/sample-wf/workflow.xml")
    report = ws.validate()
    [issue] = of_rule(report, "E0708")
    assert issue.file == ws.path("wf") and issue.line == ws.line("wf", 'to="nowhere"')
    assert issue.entity == "sample-wf"


def test_a_workflow_file_instead_of_an_app_folder(ws: EntityWorkspace) -> None:
    oozie_process(ws, "apps/sample-wf/flow.xml").put("wf", workflow_xml(SHELL + PIG, head=GLOBAL),
                                                     "apps/sample-wf/flow.xml")
    assert of_rule(ws.validate(), "FA020")[0].level is Level.ERROR


def test_a_workflow_on_remote_storage_is_not_judged_here(ws: EntityWorkspace) -> None:
    report = oozie_process(ws, "/apps/sample/oozie").validate()
    assert not of_rule(report, "FA021") and report.valid


def test_a_workflow_missing_from_local_storage_is_an_error(ws: EntityWorkspace) -> None:
    storage = ws.root.parent / "storage"
    storage.mkdir()
    ws.edit("primary", PRIMARY_WRITE, f'<interface type="write" endpoint="file://{storage}" version="1"/>')
    [issue] = of_rule(oozie_process(ws, "/apps/sample/oozie").validate(), "FA021")
    assert issue.level is Level.ERROR and str(storage / "apps/sample/oozie") in issue.message
    assert issue.file == ws.path("sample") and issue.line == ws.line("sample", "<workflow ")
    (storage / "apps" / "sample" / "oozie").mkdir(parents=True)
    [issue] = of_rule(ws.validate(), "FA021")
    assert "has no workflow.xml" in issue.message
    (storage / "apps" / "sample" / "oozie" / "workflow.xml").write_text(workflow_xml(SHELL + PIG, head=GLOBAL))
    report = ws.validate()
    assert not of_rule(report, "FA021")
    assert of_rule(report, "FA020")[0].file.endswith("apps/sample/oozie/workflow.xml")


def test_an_unreadable_workflow_reports_oozies_schema_code(ws: EntityWorkspace) -> None:
    ws.put("wf", '<workflow-app xmlns="uri:oozie:workflow:0.5" name="w">\n<start to="end"/>\n<end name="end">\n',
           "apps/other-wf/workflow.xml")
    [issue] = of_rule(ws.validate(), "E0701")
    assert issue.file == ws.path("wf") and "well-formed" in issue.message


def test_el_syntax_errors_in_a_workflow(ws: EntityWorkspace) -> None:
    broken = SHELL.replace("${impression}", "${impression +}")
    ws.put("wf", workflow_xml(broken + FS, head=GLOBAL), "apps/other-wf/workflow.xml")
    [issue] = of_rule(ws.validate(), "FA023")
    assert issue.line == ws.line("wf", "${impression +}") and "column" in issue.message


def sub_workflow(app_path: str, propagate: bool = True) -> str:
    flag = "<propagate-configuration/>" if propagate else ""
    return (f'<action name="first"><sub-workflow><app-path>{app_path}</app-path>{flag}</sub-workflow>\n'
            '<ok to="end"/><error to="fail"/></action>')


CHILD_PIG = PIG.replace('name="second"', 'name="first"')
NEEDS_NAME1 = "<parameters><property><name>name1</name></property></parameters>\n"


def test_sub_workflows_of_a_process_are_judged_as_it_runs_them(ws: EntityWorkspace) -> None:
    oozie_process(ws).put("wf", workflow_xml(sub_workflow("${wf:appPath()}/child")), "apps/sample-wf/workflow.xml")
    ws.put("child", workflow_xml(CHILD_PIG, head=NEEDS_NAME1 + GLOBAL), "apps/sample-wf/child/workflow.xml")
    report = ws.validate()
    [unsupported] = of_rule(report, "FA020")
    assert unsupported.level is Level.ERROR and unsupported.file == ws.path("child")
    assert not of_rule(report, "E0738")  # name1 is a property of the process, and the configuration propagates


def test_a_sub_workflow_without_the_callers_configuration(ws: EntityWorkspace) -> None:
    oozie_process(ws).put("wf", workflow_xml(sub_workflow("child", propagate=False)), "apps/sample-wf/workflow.xml")
    ws.put("child", workflow_xml(SHELL.replace('to="second"', 'to="end"'), head=NEEDS_NAME1 + GLOBAL),
           "apps/sample-wf/child/workflow.xml")
    [missing] = of_rule(ws.validate(), "E0738")
    assert missing.level is Level.ERROR and missing.file == ws.path("child") and "'name1'" in missing.message


def test_a_missing_sub_workflow(ws: EntityWorkspace) -> None:
    oozie_process(ws).put("wf", workflow_xml(sub_workflow("missing-child")), "apps/sample-wf/workflow.xml")
    [issue] = of_rule(ws.validate(), "FA021")
    assert issue.file == ws.path("wf") and issue.line == ws.line("wf", "<sub-workflow>")
    assert "'missing-child', which does not exist" in issue.message


def test_a_sub_workflow_known_only_when_it_runs(ws: EntityWorkspace) -> None:
    oozie_process(ws).put("wf", workflow_xml(sub_workflow("${nameNode}/apps/child")), "apps/sample-wf/workflow.xml")
    report = ws.validate()
    assert not of_rule(report, "FA021") and report.valid, ws.describe(report)
