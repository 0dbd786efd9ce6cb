"""Reading workflow.xml into the model: every node kind, every action configuration, lines, hardened reading."""

from __future__ import annotations

from pathlib import Path

import pytest

from falcon_airflow.oozie import (
    ActionNode,
    DecisionNode,
    DistcpAction,
    EmailAction,
    EndNode,
    ForkNode,
    FsAction,
    Hive2Action,
    HiveAction,
    JavaAction,
    JoinNode,
    KillNode,
    MapReduceAction,
    OtherAction,
    ShellAction,
    SparkAction,
    SqoopAction,
    SshAction,
    SubWorkflowAction,
    TransitionKind,
    configuration_dict,
    looks_like_workflow,
    parse_workflow_bytes,
    parse_workflow_file,
)

FULL = b"""<?xml version="1.0" encoding="UTF-8"?>
<workflow-app xmlns="uri:oozie:workflow:1.0" xmlns:sla="uri:oozie:sla:0.2" name="wf-${env}">
    <parameters>
        <property><name>inputDir</name><value>/data/in</value></property>
        <property><name>outputDir</name><description>where to write</description></property>
    </parameters>
    <global>
        <resource-manager>${jobTracker}</resource-manager>
        <name-node>${nameNode}</name-node>
        <job-xml>global.xml</job-xml>
        <configuration>
            <property><name>mapred.job.queue.name</name><value>default</value></property>
        </configuration>
    </global>
    <credentials>
        <credential name="hcat" type="hcat">
            <property><name>hcat.metastore.uri</name><value>thrift://localhost:9083</value></property>
        </credential>
    </credentials>
    <start to="sh"/>
    <action name="sh" retry-max="3" retry-interval="10" cred="hcat">
        <shell xmlns="uri:oozie:shell-action:1.0">
            <prepare><delete path="/tmp/a"/><mkdir path="/tmp/b"/></prepare>
            <exec>run.sh</exec>
            <argument>one</argument>
            <argument>two</argument>
            <env-var>A=1</env-var>
            <file>run.sh#run.sh</file>
            <capture-output/>
        </shell>
        <ok to="choose"/>
        <error to="fail"/>
        <sla:info><sla:nominal-time>${nominalTime}</sla:nominal-time><sla:should-end>${10 * MINUTES}</sla:should-end>
        </sla:info>
    </action>
    <decision name="choose">
        <switch>
            <case to="split">
                ${wf:actionData('sh')['go'] eq 'yes'}
            </case>
            <default to="end"/>
        </switch>
    </decision>
    <fork name="split">
        <path start="files"/>
        <path start="query"/>
    </fork>
    <action name="files">
        <fs>
            <mkdir path="${outputDir}/x"/>
            <delete path="/tmp/old"/>
            <move source="/tmp/a" target="/tmp/b"/>
            <chmod path="/tmp/b" permissions="755" dir-files="false"><recursive/></chmod>
            <touchz path="/tmp/b/_SUCCESS"/>
            <chgrp path="/tmp/b" group="users"/>
        </fs>
        <ok to="joined"/>
        <error to="fail"/>
    </action>
    <action name="query">
        <hive xmlns="uri:oozie:hive-action:1.0">
            <script>q.sql</script>
            <param>IN=${inputDir}</param>
        </hive>
        <ok to="joined"/>
        <error to="fail"/>
    </action>
    <join name="joined" to="spark"/>
    <action name="spark">
        <spark xmlns="uri:oozie:spark-action:1.0">
            <master>yarn</master>
            <mode>cluster</mode>
            <name>pi</name>
            <class>org.example.Pi</class>
            <jar>pi.jar</jar>
            <spark-opts>--executor-memory 1G</spark-opts>
            <arg>10</arg>
        </spark>
        <ok to="end"/>
        <error to="fail"/>
    </action>
    <kill name="fail">
        <message>failed at [${wf:lastErrorNode()}]</message>
    </kill>
    <end name="end"/>
    <sla:info><sla:nominal-time>${nominalTime}</sla:nominal-time>
        <sla:should-end>${2 * HOURS}</sla:should-end></sla:info>
</workflow-app>
"""


def test_full_workflow_model() -> None:
    parsed = parse_workflow_bytes(FULL, "wf.xml")
    assert parsed.issues == ()
    workflow = parsed.workflow
    assert workflow is not None
    assert (workflow.name, workflow.version, workflow.namespace) == ("wf-${env}", "1.0", "uri:oozie:workflow:1.0")
    assert [node.name for node in workflow.nodes] == [
        ":start:", "sh", "choose", "split", "files", "query", "joined", "spark", "fail", "end"]
    assert workflow.start.to == "sh" and workflow.start.line == 20
    assert [(p.name, p.default, p.required) for p in workflow.parameters] == [
        ("inputDir", "/data/in", False), ("outputDir", None, True)]
    assert workflow.parameter_defaults() == {"inputDir": "/data/in"}
    assert workflow.global_settings is not None
    assert workflow.global_settings.job_tracker == "${jobTracker}"
    assert workflow.global_settings.job_xml == ("global.xml",)
    assert configuration_dict(workflow.configuration) == {"mapred.job.queue.name": "default"}
    assert workflow.credentials[0].name == "hcat" and workflow.credentials[0].properties[0].value.startswith("thrift")
    assert workflow.sla is not None and workflow.sla.get("nominal-time") == "${nominalTime}"

    shell = workflow.node("sh")
    assert isinstance(shell, ActionNode) and isinstance(shell.config, ShellAction)
    assert (shell.action_type, shell.type_label, shell.line) == ("shell", "action:shell", 21)
    assert (shell.retry_max, shell.retry_interval, shell.credentials) == ("3", "10", ("hcat",))
    assert shell.config.exec == "run.sh" and shell.config.arguments == ("one", "two")
    assert shell.config.env_vars == ("A=1",) and shell.config.files == ("run.sh#run.sh",)
    assert shell.config.capture_output and shell.config.namespace == "uri:oozie:shell-action:1.0"
    assert shell.config.prepare is not None and shell.config.prepare.deletes == ("/tmp/a",)
    assert shell.sla is not None and shell.sla.get("should-end") == "${10 * MINUTES}"
    assert [(t.to, t.kind) for t in shell.transitions()] == [("choose", TransitionKind.OK),
                                                            ("fail", TransitionKind.ERROR)]

    decision = workflow.node("choose")
    assert isinstance(decision, DecisionNode)
    assert decision.cases[0].predicate == "${wf:actionData('sh')['go'] eq 'yes'}"
    assert decision.default == "end"
    assert [t.kind for t in decision.transitions()] == [TransitionKind.CASE, TransitionKind.DEFAULT]

    fork = workflow.node("split")
    assert isinstance(fork, ForkNode) and fork.paths == ("files", "query")
    join = workflow.node("joined")
    assert isinstance(join, JoinNode) and join.to == "spark"

    files = workflow.node("files")
    assert isinstance(files, ActionNode) and isinstance(files.config, FsAction)
    operations = files.config.operations
    assert [op.kind.value for op in operations] == ["mkdir", "delete", "move", "chmod", "touchz", "chgrp"]
    assert (operations[2].path, operations[2].target) == ("/tmp/a", "/tmp/b")
    assert (operations[3].permissions, operations[3].recursive, operations[3].dir_files) == ("755", True, False)
    assert (operations[5].group, operations[5].recursive, operations[5].dir_files) == ("users", False, True)

    query = workflow.node("query")
    assert isinstance(query, ActionNode) and isinstance(query.config, HiveAction)
    assert query.config.script == "q.sql" and query.config.params == ("IN=${inputDir}",)

    spark = workflow.node("spark")
    assert isinstance(spark, ActionNode) and isinstance(spark.config, SparkAction)
    assert (spark.config.master, spark.config.mode, spark.config.spark_class, spark.config.jar) == (
        "yarn", "cluster", "org.example.Pi", "pi.jar")
    assert spark.config.spark_opts == "--executor-memory 1G" and spark.config.args == ("10",)

    kill = workflow.node("fail")
    assert isinstance(kill, KillNode) and kill.message == "failed at [${wf:lastErrorNode()}]"
    assert isinstance(workflow.node("end"), EndNode)
    assert len(list(workflow.edges())) == 1 + 2 + 2 + 2 + 2 + 2 + 1 + 2


def _action(body: str, version: str = "1.0") -> ActionNode:
    xml = f"""<workflow-app xmlns="uri:oozie:workflow:{version}" name="w"><start to="a"/>
    <action name="a">{body}<ok to="end"/><error to="end"/></action><end name="end"/></workflow-app>"""
    workflow = parse_workflow_bytes(xml.encode()).workflow
    assert workflow is not None
    node = workflow.node("a")
    assert isinstance(node, ActionNode)
    return node


def test_java_action() -> None:
    node = _action("""<java><job-tracker>jt</job-tracker><name-node>nn</name-node><main-class>a.B</main-class>
        <java-opt>-Xmx1g</java-opt><java-opt>-Da=b</java-opt><arg>x</arg><capture-output/></java>""")
    assert isinstance(node.config, JavaAction)
    assert (node.config.job_tracker, node.config.name_node, node.config.main_class) == ("jt", "nn", "a.B")
    assert node.config.java_opts == ("-Xmx1g", "-Da=b") and node.config.args == ("x",)
    assert node.config.capture_output


def test_email_sub_workflow_distcp_sqoop_hive2_ssh_and_unknown() -> None:
    email = _action("""<email xmlns="uri:oozie:email-action:0.2"><to>a@b.c,d@e.f</to><cc>x@y.z</cc>
        <subject>s</subject><body>b</body><content_type>text/html</content_type>
        <attachment>/a,/b</attachment></email>""").config
    assert isinstance(email, EmailAction)
    assert (email.to, email.cc, email.bcc, email.content_type, email.attachment) == (
        "a@b.c,d@e.f", "x@y.z", None, "text/html", "/a,/b")
    sub = _action("""<sub-workflow><app-path>/apps/child</app-path><propagate-configuration/>
        <configuration><property><name>k</name><value>v</value></property></configuration></sub-workflow>""").config
    assert isinstance(sub, SubWorkflowAction)
    assert sub.app_path == "/apps/child" and sub.propagate_configuration
    assert configuration_dict(sub.configuration) == {"k": "v"}
    distcp = _action("""<distcp xmlns="uri:oozie:distcp-action:1.0"><java-opts>-Dx</java-opts>
        <arg>/a</arg><arg>/b</arg></distcp>""").config
    assert isinstance(distcp, DistcpAction) and distcp.args == ("/a", "/b") and distcp.java_opts == "-Dx"
    sqoop = _action("""<sqoop xmlns="uri:oozie:sqoop-action:1.0"><command>import --table t</command></sqoop>""")
    assert isinstance(sqoop.config, SqoopAction) and sqoop.config.command == "import --table t"
    hive2 = _action("""<hive2 xmlns="uri:oozie:hive2-action:1.0"><jdbc-url>jdbc:hive2://h:1</jdbc-url>
        <query>select 1</query></hive2>""").config
    assert isinstance(hive2, Hive2Action) and hive2.jdbc_url == "jdbc:hive2://h:1" and hive2.query == "select 1"
    ssh = _action("""<ssh xmlns="uri:oozie:ssh-action:0.2"><host>u@h</host><command>ls</command>
        <args>-l</args><capture-output/></ssh>""").config
    assert isinstance(ssh, SshAction) and (ssh.host, ssh.command, ssh.args, ssh.capture_output) == (
        "u@h", "ls", ("-l",), True)
    other = _action("""<test xmlns="uri:test"><signal-value>x</signal-value></test>""")
    assert other.action_type == "test" and isinstance(other.config, OtherAction)
    assert other.config.fields == (("signal-value", "x"),)


def test_delete_can_skip_the_trash() -> None:
    node = _action("<fs><delete path='/tmp/old' skip-trash='true'/><delete path='/tmp/x'/></fs>", version="0.5")
    assert isinstance(node.config, FsAction)
    assert [op.skip_trash for op in node.config.operations] == [True, False]


def test_streaming_is_a_map_reduce_action() -> None:
    node = _action("""<map-reduce><job-tracker>j</job-tracker><name-node>n</name-node>
        <streaming><mapper>/bin/cat</mapper><reducer>/usr/bin/wc</reducer></streaming></map-reduce>""")
    assert node.type_label == "action:map-reduce"
    assert isinstance(node.config, MapReduceAction) and node.config.streaming is not None
    assert node.config.streaming.mapper == "/bin/cat"


def test_conformance_workflows_read_unless_the_schema_refuses_them(shared: Path) -> None:
    files = sorted((shared / "conformance" / "oozie" / "files").glob("*.xml"))
    assert files
    for path in files:
        parsed = parse_workflow_file(path)
        if parsed.workflow is None:
            assert parsed.issues and all(issue.rule == "E0701" for issue in parsed.issues), path
            continue
        assert parsed.workflow.file == str(path)


@pytest.mark.parametrize(("data", "needle"), [
    (b"<!DOCTYPE x [<!ENTITY a 'b'>]><workflow-app/>", "DOCTYPE"),
    (b"<workflow-app xmlns='uri:oozie:workflow:0.5' name='w'><start", "not well-formed"),
    (b"<process xmlns='uri:falcon:process:0.1' name='p'/>", "not an Oozie workflow"),
    (b"<workflow-app xmlns='uri:oozie:coordinator:0.4' name='w'/>", "not an Oozie workflow"),
    (b"", "empty; expected an Oozie workflow definition"),
    (b"\xff\xfe<a/>", "workflow files must be UTF-8"),
])
def test_bad_documents_are_refused_with_e0701(data: bytes, needle: str) -> None:
    parsed = parse_workflow_bytes(data, "bad.xml")
    assert parsed.workflow is None and parsed.has_errors
    assert parsed.issues[0].rule == "E0701" and needle in parsed.issues[0].message
    assert parsed.issues[0].file == "bad.xml"


def test_missing_file(tmp_path: Path) -> None:
    parsed = parse_workflow_file(tmp_path / "nope.xml")
    assert parsed.workflow is None and "does not exist" in parsed.issues[0].message


def test_sniffing_workflows() -> None:
    assert looks_like_workflow(FULL)
    assert looks_like_workflow(b"<wf:workflow-app xmlns:wf='uri:oozie:workflow:0.2'/>")
    assert not looks_like_workflow(b"<process xmlns='uri:falcon:process:0.1'/>")
