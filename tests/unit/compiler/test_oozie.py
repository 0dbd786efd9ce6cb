"""An Oozie workflow compiled into the process DAG's node specs (no Airflow)."""

from __future__ import annotations

from pathlib import Path

import pytest

from falcon_airflow.compiler.oozie import OozieCompileError, compile_workflow, join_arrivals
from falcon_airflow.oozie import parse_workflow_bytes, parse_workflow_file
from falcon_airflow.oozie.support import support_issues

HEAD = '<workflow-app name="{name}" xmlns="uri:oozie:workflow:0.5">'
GLOBAL = """
  <global>
    <job-tracker>jt</job-tracker><name-node>hdfs://nn:8020</name-node>
    <configuration><property><name>a</name><value>global</value></property>
      <property><name>b</name><value>global</value></property></configuration>
  </global>"""

NESTED = HEAD.format(name="nested") + GLOBAL + """
  <start to="outer"/>
  <fork name="outer"><path start="inner"/><path start="solo"/></fork>
  <fork name="inner"><path start="x"/><path start="d"/></fork>
  <action name="x"><fs><mkdir path="/out/x"/><move source="/out/x" target="y"/></fs><ok to="inner-join"/>
    <error to="fail"/></action>
  <decision name="d"><switch><case to="z">${true}</case><default to="inner-join"/></switch></decision>
  <action name="z"><shell xmlns="uri:oozie:shell-action:0.3"><exec>run.sh</exec><argument>1</argument>
    <file>run.sh#go</file><file>/abs/lib.sh</file><capture-output/></shell><ok to="inner-join"/><error to="fail"/>
    </action>
  <join name="inner-join" to="outer-join"/>
  <action name="solo"><hive xmlns="uri:oozie:hive-action:0.5"><script>q.sql</script><param>D=${day}</param>
    </hive><ok to="outer-join"/><error to="fail"/></action>
  <join name="outer-join" to="end"/>
  <kill name="fail"><message>failed: ${wf:lastErrorNode()}</message></kill>
  <end name="end"/>
</workflow-app>
"""


def parse(text: str) -> object:
    parsed = parse_workflow_bytes(text.encode(), "workflow.xml")
    assert parsed.workflow is not None, parsed.issues
    return parsed.workflow


def test_nodes_transitions_files_and_joins() -> None:
    spec = compile_workflow(parse(NESTED), "file:///apps/nested")  # type: ignore[arg-type]
    assert spec.start == "outer" and spec.name == "nested"
    by_name = {node.name: node for node in spec.nodes}
    assert {name: node.type for name, node in by_name.items()} == {
        "outer": "fork", "inner": "fork", "x": "action", "d": "decision", "z": "action", "inner-join": "join",
        "solo": "action", "outer-join": "join", "fail": "kill", "end": "end"}
    assert by_name["inner-join"].arrivals == 2 and by_name["outer-join"].arrivals == 2
    assert by_name["x"].ok == "inner-join" and by_name["x"].error == "fail"
    assert by_name["x"].body["name_node"] == "hdfs://nn:8020"
    assert by_name["x"].body["operations"][1] == {"op": "move", "path": "/out/x", "target": "y", "permissions": None,
                                                  "group": None, "recursive": False, "dir_files": True,
                                                  "skip_trash": False}
    assert by_name["z"].body["files"] == ["file:///apps/nested/run.sh#go", "/abs/lib.sh"]
    assert by_name["z"].body["capture_output"] is True
    assert by_name["solo"].body["script"] == "file:///apps/nested/q.sql"
    assert by_name["solo"].body["params"] == ["D=${day}"]
    assert by_name["solo"].configuration == {"a": "global", "b": "global"}
    assert by_name["d"].cases[0].predicate == "${true}" and by_name["d"].default == "inner-join"
    assert by_name["fail"].message == "failed: ${wf:lastErrorNode()}"
    assert spec.model_dump_json()  # JSON-serialisable: the golden-test surface


def test_join_arrivals_count_the_paths_of_the_fork_they_close() -> None:
    assert join_arrivals(parse(NESTED)) == {"inner-join": 2, "outer-join": 2}  # type: ignore[arg-type]


def test_refused_actions_name_what_to_port_them_to() -> None:
    text = HEAD.format(name="mr") + GLOBAL + """
      <start to="p"/>
      <action name="p"><pig><script>x.pig</script></pig><ok to="end"/><error to="end"/></action>
      <end name="end"/></workflow-app>"""
    with pytest.raises(OozieCompileError, match="action 'p' \\(pig\\) cannot run here: there is no Pig runtime "
                       "here; port the Pig Latin script to Spark SQL"):
        compile_workflow(parse(text), "/apps/mr")  # type: ignore[arg-type]


def test_compiler_refuses_what_validation_reports_as_fa020() -> None:
    # one table decides both: an fs action with <setrep> is refused with the same reason FA020 gives
    text = HEAD.format(name="rep") + GLOBAL + """
      <start to="f"/>
      <action name="f"><fs><setrep path="/data/x" replication-factor="2"/></fs><ok to="end"/><error to="end"/>
      </action>
      <end name="end"/></workflow-app>"""
    workflow = parse(text)
    [issue] = support_issues(workflow)  # type: ignore[arg-type]
    with pytest.raises(OozieCompileError) as refused:
        compile_workflow(workflow, "/apps/rep")  # type: ignore[arg-type]
    reason = issue.message.split("cannot run on falcon-airflow: ", 1)[1]
    assert str(refused.value).split("cannot run here: ", 1)[1].startswith(reason)


def test_sub_workflow_is_compiled_in_place_with_its_caller_configuration(tmp_path: Path) -> None:
    child = tmp_path / "app" / "child"
    child.mkdir(parents=True)
    (child / "workflow.xml").write_text(HEAD.format(name="child") + GLOBAL + """
      <start to="s"/>
      <action name="s"><shell xmlns="uri:oozie:shell-action:0.3"><exec>true</exec></shell>
        <ok to="end"/><error to="k"/></action>
      <kill name="k"><message>no</message></kill><end name="end"/></workflow-app>""")
    (tmp_path / "app" / "workflow.xml").write_text(HEAD.format(name="parent") + GLOBAL + """
      <start to="call"/>
      <action name="call"><sub-workflow><app-path>${wf:appPath()}/child</app-path><propagate-configuration/>
        <configuration><property><name>c</name><value>${x}</value></property></configuration></sub-workflow>
        <ok to="end"/><error to="k"/></action>
      <kill name="k"><message>no</message></kill><end name="end"/></workflow-app>""")
    parsed = parse_workflow_file(tmp_path / "app" / "workflow.xml")
    assert parsed.workflow is not None
    spec = compile_workflow(parsed.workflow, str(tmp_path / "app"))
    call = spec.node("call")
    assert call.action == "sub-workflow" and call.propagate_configuration and call.configuration == {"c": "${x}"}
    assert call.sub_workflow is not None and call.sub_workflow.group_id == "workflow.call"
    assert call.sub_workflow.app_path == str(child) and call.sub_workflow.start == "s"

    (tmp_path / "app" / "workflow.xml").write_text(
        (tmp_path / "app" / "workflow.xml").read_text().replace("${wf:appPath()}/child", "${somewhere}"))
    parsed = parse_workflow_file(tmp_path / "app" / "workflow.xml")
    assert parsed.workflow is not None
    with pytest.raises(OozieCompileError, match="must be known when the DAG is built"):
        compile_workflow(parsed.workflow, str(tmp_path / "app"))
