"""Oozie workflows of Falcon processes on real Airflow (dag.test) with real Spark (local) and a local SMTP server.

One test per acceptance case, sharing the Airflow home; only the first workflow starts Spark (three actions).
"""

from __future__ import annotations

import email
import json
import shutil
import socket
import subprocess
import textwrap
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pendulum
import pytest
from tests.builders import cluster

from falcon_airflow.dags.builder import build_process_dag
from falcon_airflow.dags.loader import entities_folder, load_specs

pytestmark = pytest.mark.xdist_group("airflow")

FEED = """\
<feed name="{name}" xmlns="uri:falcon:feed:0.1">
  <frequency>hours(1)</frequency>
  <clusters>
    <cluster name="local" type="source">
      <validity start="2026-01-01T00:00Z" end="2099-01-01T00:00Z"/>
      <retention limit="days(30)" action="delete"/>
    </cluster>
  </clusters>
  <locations><location type="data" path="/data/{name}/${{YEAR}}/${{MONTH}}/${{DAY}}/${{HOUR}}"/></locations>
  <ACL owner="tester" group="users" permission="*"/>
  <schema location="/none" provider="text"/>
</feed>
"""

PROCESS = """\
<process name="{name}" xmlns="uri:falcon:process:0.1">
  <clusters><cluster name="local"><validity start="2026-01-01T00:00Z" end="2099-01-01T00:00Z"/></cluster></clusters>
  <parallel>1</parallel>
  <order>FIFO</order>
  <frequency>hours(1)</frequency>
  {io}
  <properties><property name="greeting" value="hello-${{formatTime(instanceTime(), 'HH')}}"/></properties>
  <workflow name="{name}-flow" version="2.1" engine="oozie" path="apps/{name}"/>
  <ACL owner="tester" group="users" permission="*"/>
</process>
"""

IO = """\
<inputs><input name="input" feed="events" start="now(0,0)" end="now(0,0)"/></inputs>
  <outputs><output name="output" feed="report" instance="now(0,0)"/></outputs>"""

# shell -> decision -> fork(fs, hive on Spark SQL) -> join -> spark -> distcp -> end; every error to one kill node
MAIN = """\
<workflow-app name="main-wf" xmlns="uri:oozie:workflow:0.5">
  <parameters>
    <property><name>mode</name><value>full</value></property>
  </parameters>
  <global>
    <job-tracker>${jobTracker}</job-tracker>
    <name-node>${nameNode}</name-node>
    <configuration>
      <property><name>spark.ui.enabled</name><value>false</value></property>
      <property><name>spark.driver.memory</name><value>512m</value></property>
    </configuration>
  </global>
  <start to="probe"/>
  <action name="probe">
    <shell xmlns="uri:oozie:shell-action:0.3">
      <exec>probe.sh</exec>
      <argument>${input}</argument>
      <env-var>MODE=${mode}</env-var>
      <file>probe.sh</file>
      <capture-output/>
    </shell>
    <ok to="route"/>
    <error to="fail"/>
  </action>
  <decision name="route">
    <switch>
      <case to="fail">${wf:actionData('probe')['lines'] eq '0'}</case>
      <case to="parallel">${wf:actionData('probe')['mode'] eq 'full'}</case>
      <default to="report"/>
    </switch>
  </decision>
  <fork name="parallel">
    <path start="prepare"/>
    <path start="tables"/>
  </fork>
  <action name="prepare">
    <fs>
      <mkdir path="${output}/fs/made"/>
      <touchz path="${output}/fs/made/_MARK"/>
    </fs>
    <ok to="joined"/>
    <error to="fail"/>
  </action>
  <action name="tables">
    <hive xmlns="uri:oozie:hive-action:0.5">
      <script>lines.sql</script>
      <param>IN=${input}</param>
      <param>OUT=${output}/hive</param>
    </hive>
    <ok to="joined"/>
    <error to="fail"/>
  </action>
  <join name="joined" to="report"/>
  <action name="report">
    <spark xmlns="uri:oozie:spark-action:0.2">
      <master>local[1]</master>
      <name>report</name>
      <jar>${wf:appPath()}/report.py</jar>
      <spark-opts>--conf spark.sql.shuffle.partitions=1</spark-opts>
      <arg>${output}/spark</arg>
      <arg>${nominalTime}</arg>
      <arg>${greeting}</arg>
      <arg>${wf:actionData('probe')['lines']}</arg>
    </spark>
    <ok to="copy"/>
    <error to="fail"/>
  </action>
  <action name="copy">
    <distcp xmlns="uri:oozie:distcp-action:0.2">
      <arg>-overwrite</arg>
      <arg>${output}/spark</arg>
      <arg>${output}/copy</arg>
    </distcp>
    <ok to="end"/>
    <error to="fail"/>
  </action>
  <kill name="fail">
    <message>main failed at [${wf:lastErrorNode()}]: ${wf:errorMessage(wf:lastErrorNode())}</message>
  </kill>
  <end name="end"/>
</workflow-app>
"""

PROBE = """\
#!/bin/sh
set -e
lines=$(cat "${1#file://}"/part-* | wc -l | tr -d ' ')
echo "lines=$lines"
echo "mode=$MODE"
"""

LINES_SQL = """\
CREATE TEMPORARY VIEW events USING text OPTIONS (path '${IN}');
INSERT OVERWRITE DIRECTORY '${OUT}' USING json SELECT count(*) AS lines FROM events;
"""

REPORT = """\
import json
import sys

from pyspark.sql import SparkSession

spark = SparkSession.builder.getOrCreate()
target, nominal, greeting, lines = sys.argv[1:5]
spark.createDataFrame([(nominal, greeting, int(lines))], "nominal string, greeting string, lines int") \\
    .coalesce(1).write.mode("overwrite").json(target)
spark.stop()
"""

# an action that fails takes its error path to the kill node
FAILING = """\
<workflow-app name="failing-wf" xmlns="uri:oozie:workflow:1.0">
  <global>
    <resource-manager>${jobTracker}</resource-manager>
    <name-node>${nameNode}</name-node>
  </global>
  <start to="step"/>
  <action name="step">
    <shell xmlns="uri:oozie:shell-action:1.0">
      <exec>sh</exec>
      <argument>-c</argument>
      <argument>test -e ${flag}</argument>
    </shell>
    <ok to="done"/>
    <error to="fail"/>
  </action>
  <action name="done">
    <shell xmlns="uri:oozie:shell-action:1.0">
      <prepare>
        <delete path="${flag}.old"/>
        <mkdir path="${flag}.made"/>
      </prepare>
      <exec>touch</exec>
      <argument>${flag}.done</argument>
    </shell>
    <ok to="end"/>
    <error to="fail"/>
  </action>
  <kill name="fail">
    <message>step failed with code ${wf:errorCode('step')}, entity ${entityName}</message>
  </kill>
  <end name="end"/>
</workflow-app>
"""

# an e-mail, then a sub-workflow that sees the caller's configuration
NOTIFYING = """\
<workflow-app name="notify-wf" xmlns="uri:oozie:workflow:0.5">
  <global>
    <job-tracker>${jobTracker}</job-tracker>
    <name-node>${nameNode}</name-node>
  </global>
  <start to="mail"/>
  <action name="mail">
    <email xmlns="uri:oozie:email-action:0.2">
      <to>ops@example.com</to>
      <cc>lead@example.com</cc>
      <subject>instance ${nominalTime} of ${entityName}</subject>
      <body>greeting ${greeting} from ${wf:name()}</body>
    </email>
    <ok to="child"/>
    <error to="fail"/>
  </action>
  <action name="child">
    <sub-workflow>
      <app-path>${wf:appPath()}/child</app-path>
      <propagate-configuration/>
      <configuration>
        <property><name>marker</name><value>${target}/from-child</value></property>
      </configuration>
    </sub-workflow>
    <ok to="end"/>
    <error to="fail"/>
  </action>
  <kill name="fail"><message>notify failed: ${wf:errorMessage(wf:lastErrorNode())}</message></kill>
  <end name="end"/>
</workflow-app>
"""

CHILD = """\
<workflow-app name="child-wf" xmlns="uri:oozie:workflow:0.5">
  <global>
    <job-tracker>${jobTracker}</job-tracker>
    <name-node>${nameNode}</name-node>
  </global>
  <start to="write"/>
  <action name="write">
    <shell xmlns="uri:oozie:shell-action:0.3">
      <exec>sh</exec>
      <argument>-c</argument>
      <argument>mkdir -p "$(dirname "$0")" &amp;&amp; echo "${greeting} ${wf:name()}" > "$0"</argument>
      <argument>${marker}</argument>
    </shell>
    <ok to="end"/>
    <error to="fail"/>
  </action>
  <kill name="fail"><message>child failed</message></kill>
  <end name="end"/>
</workflow-app>
"""


# a java main class on Spark's driver, from the application's lib/ folder
JAVA = """\
<workflow-app name="java-wf" xmlns="uri:oozie:workflow:0.5">
  <global>
    <job-tracker>${jobTracker}</job-tracker>
    <name-node>${nameNode}</name-node>
  </global>
  <start to="main"/>
  <action name="main">
    <java>
      <main-class>falcon.Touch</main-class>
      <java-opts>-Dfalcon.greeting=${greeting}</java-opts>
      <arg>${target}/from-java</arg>
    </java>
    <ok to="end"/>
    <error to="fail"/>
  </action>
  <kill name="fail"><message>java failed: ${wf:errorMessage('main')}</message></kill>
  <end name="end"/>
</workflow-app>
"""

TOUCH = """\
package falcon;

public class Touch {
    public static void main(String[] args) throws Exception {
        java.nio.file.Path folder = java.nio.file.Paths.get(args[0]);
        java.nio.file.Files.createDirectories(folder);
        java.nio.file.Files.writeString(folder.resolve("greeting"), System.getProperty("falcon.greeting", "none"));
    }
}
"""


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")


@pytest.fixture
def workspace(entities: Callable[..., Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    storage = tmp_path / "storage"
    # the failing workflow's <prepare> changes folders beside the flag file, outside the process's own storage:
    # the deployment lists them as a root (docs/oozie.md)
    monkeypatch.setenv("AIRFLOW__FALCON__OOZIE_FILE_ROOTS", str(tmp_path))
    entities("cluster.xml", cluster("local", f"file://{storage}", colo="local"))
    entities("events.xml", FEED.format(name="events"))
    entities("report.xml", FEED.format(name="report"))
    entities("main.xml", PROCESS.format(name="main", io=IO))
    entities("failing.xml", PROCESS.format(name="failing", io="").replace(
        "<properties>", f'<properties><property name="flag" value="{tmp_path}/flag"/>'))
    entities("java.xml", PROCESS.format(name="java", io="").replace(
        "<properties>", f'<properties><property name="target" value="{tmp_path}/java"/>'))
    entities("notify.xml", PROCESS.format(name="notify", io="").replace(
        "<properties>", f'<properties><property name="target" value="{tmp_path}/notified"/>'))
    apps = entities_folder() / "apps"
    _write(apps / "main" / "workflow.xml", MAIN)
    _write(apps / "main" / "probe.sh", PROBE)
    _write(apps / "main" / "lines.sql", LINES_SQL)
    _write(apps / "main" / "report.py", REPORT)
    _write(apps / "failing" / "workflow.xml", FAILING)
    _write(apps / "notify" / "workflow.xml", NOTIFYING)
    _write(apps / "notify" / "child" / "workflow.xml", CHILD)
    _write(apps / "java" / "workflow.xml", JAVA)
    return storage


def dag_of(name: str) -> Any:
    specs, issues = load_specs(entities_folder())
    assert not [issue for issue in issues if issue["level"] == "error"], issues
    (spec,) = [item for item in specs if item.dag_id == f"falcon.process.{name}.local"]
    return build_process_dag(spec)


def states(run: Any) -> dict[str, str]:
    return {ti.task_id: str(ti.state) for ti in run.get_task_instances()}


def xcom(run: Any, task_id: str) -> Any:
    from airflow.models.xcom import XComModel
    from airflow.utils.session import create_session

    with create_session() as session:
        row = session.query(XComModel).filter_by(dag_id=run.dag_id, run_id=run.run_id, task_id=task_id,
                                                 key="oozie").one_or_none()
        return XComModel.deserialize_value(row) if row is not None else None


def test_shell_decision_fork_fs_hive_join_spark_on_a_falcon_instance(workspace: Path) -> None:
    moment = pendulum.datetime(2026, 3, 1, 5, tz="UTC")
    events = workspace / "data" / "events" / "2026/03/01/05"
    events.mkdir(parents=True)
    (events / "part-0").write_text("a\nb\nc\n")
    run = dag_of("main").test(logical_date=moment)
    found = states(run)
    assert str(run.state) == "success", found
    assert found["workflow.probe"] == "success" and found["workflow.route"] == "success"
    assert found["workflow.prepare"] == found["workflow.tables"] == found["workflow.joined"] == "success"
    assert found["workflow.report"] == found["workflow.copy"] == found["workflow.end"] == "success"
    assert found["workflow.fail"] == "skipped" and found["mark_outputs_available"] == "success"

    output = workspace / "data" / "report" / "2026/03/01/05"
    assert (output / "fs" / "made" / "_MARK").exists()  # fs action through Hadoop's FileSystem API
    (hive,) = [json.loads(line) for part in (output / "hive").glob("part-*") for line in part.read_text().split()]
    assert hive == {"lines": 3}  # hive action on Spark SQL, <param>s substituted
    (row,) = [json.loads(line) for part in (output / "spark").glob("part-*.json")
              for line in part.read_text().splitlines()]
    assert row == {"nominal": "2026-03-01-05-00", "greeting": "hello-05", "lines": 3}
    copied = sorted(path.name for path in (output / "copy").iterdir() if not path.name.startswith("."))
    assert copied == sorted(path.name for path in (output / "spark").iterdir() if not path.name.startswith("."))
    probe = xcom(run, "workflow.probe")
    assert probe["data"] == {"lines": "3", "mode": "full"} and probe["transition"] == "route"
    assert xcom(run, "workflow.route")["transition"] == "parallel"


def test_failed_action_takes_its_error_path_to_kill_and_clear_reruns(workspace: Path, tmp_path: Path) -> None:
    moment = pendulum.datetime(2026, 3, 1, 6, tz="UTC")
    dag = dag_of("failing")
    run = dag.test(logical_date=moment)
    found = states(run)
    assert str(run.state) == "failed", found
    assert found["workflow.step"] == "success"  # it ran and took its error transition
    assert found["workflow.done"] == "skipped" and found["workflow.end"] == "skipped"
    assert found["workflow.fail"] == "failed"
    step = xcom(run, "workflow.step")
    assert step["status"] == "ERROR" and step["error_code"] == "1" and step["transition"] == "fail"
    assert xcom(run, "workflow.fail")["error_message"] == "step failed with code 1, entity failing"

    (tmp_path / "flag.old").mkdir()  # the next action's <prepare> removes it
    (tmp_path / "flag").touch()  # what was missing is there now: run the instance again (dag.test clears its
    again = dag.test(logical_date=moment)  # task instances first, as Clear in the UI does)
    assert str(again.state) == "success", states(again)
    assert (tmp_path / "flag.done").exists()
    assert (tmp_path / "flag.made").is_dir() and not (tmp_path / "flag.old").exists()


class Mailbox:
    def __init__(self) -> None:
        self.messages: list[Any] = []

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.messages.append(envelope)
        return "250 OK"


@pytest.fixture
def smtp(monkeypatch: pytest.MonkeyPatch) -> Iterator[Mailbox]:
    from aiosmtpd.controller import Controller

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    mailbox = Mailbox()
    controller = Controller(mailbox, hostname="127.0.0.1", port=port, ready_timeout=10)
    controller.start()
    monkeypatch.setenv("AIRFLOW_CONN_SMTP_DEFAULT", json.dumps({
        "conn_type": "smtp", "host": "127.0.0.1", "port": port,
        "extra": {"disable_ssl": True, "disable_tls": True, "from_email": "falcon@example.com", "timeout": 10}}))
    try:
        yield mailbox
    finally:
        controller.stop()


def test_email_and_sub_workflow(workspace: Path, tmp_path: Path, smtp: Mailbox) -> None:
    moment = pendulum.datetime(2026, 3, 1, 7, tz="UTC")
    run = dag_of("notify").test(logical_date=moment)
    found = states(run)
    assert str(run.state) == "success", found
    assert found["workflow.child.write"] == "success" and found["workflow.child.end"] == "success"
    deadline = time.monotonic() + 10
    while not smtp.messages and time.monotonic() < deadline:
        time.sleep(0.1)
    (message,) = smtp.messages
    assert sorted(message.rcpt_tos) == ["lead@example.com", "ops@example.com"]
    parsed = email.message_from_bytes(message.content)
    assert parsed["Subject"] == "instance 2026-03-01-07-00 of notify" and parsed["From"] == "falcon@example.com"
    (body,) = [part for part in parsed.walk() if part.get_content_type() == "text/plain"]
    assert body.get_payload(decode=True).decode() == "greeting hello-07 from notify-wf"
    # the sub-workflow saw the caller's configuration and its own
    assert (tmp_path / "notified" / "from-child").read_text().strip() == "hello-07 child-wf"


@pytest.mark.skipif(shutil.which("javac") is None or shutil.which("jar") is None, reason="needs a JDK (javac, jar)")
def test_java_action_runs_its_main_class_on_the_spark_driver(workspace: Path, tmp_path: Path) -> None:
    source = tmp_path / "src" / "falcon" / "Touch.java"
    _write(source, TOUCH)
    classes = tmp_path / "classes"
    subprocess.run(["javac", "--release", "17", "-d", str(classes), str(source)], check=True, timeout=120)
    lib = entities_folder() / "apps" / "java" / "lib"
    lib.mkdir(parents=True)
    subprocess.run(["jar", "cf", str(lib / "touch.jar"), "-C", str(classes), "."], check=True, timeout=120)
    run = dag_of("java").test(logical_date=pendulum.datetime(2026, 3, 1, 8, tz="UTC"))
    assert str(run.state) == "success", states(run)
    assert (tmp_path / "java" / "from-java" / "greeting").read_text() == "hello-08"  # <java-opts> reached the JVM
