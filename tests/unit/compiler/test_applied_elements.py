"""Elements the coverage table (falcon_airflow.validation.coverage) lists as applied that no other test followed
into the compiled specs: a feed's notification, a Spark process's class, an Oozie action's retries, a hive query
and a hive2 script."""

from __future__ import annotations

from pathlib import Path

from tests.builders import cluster, feed, process, workspace

from falcon_airflow.compiler import compile_workspace
from falcon_airflow.compiler.oozie import compile_workflow
from falcon_airflow.compiler.specs import ProcessDagSpec, RetentionDagSpec
from falcon_airflow.oozie import parse_workflow_bytes

WORKFLOW = """<workflow-app name="wf" xmlns="uri:oozie:workflow:0.5">
  <global><job-tracker>jt</job-tracker><name-node>hdfs://nn:8020</name-node></global>
  <start to="query"/>
  <action name="query" retry-max="3" retry-interval="2">
    <hive xmlns="uri:oozie:hive-action:0.6"><query>SELECT 1</query></hive>
    <ok to="script"/><error to="fail"/>
  </action>
  <action name="script">
    <hive2 xmlns="uri:oozie:hive2-action:0.2"><jdbc-url>jdbc:hive2://h:10000/d</jdbc-url><script>q.sql</script>
      <param>DAY=${day}</param></hive2>
    <ok to="end"/><error to="fail"/>
  </action>
  <kill name="fail"><message>failed</message></kill>
  <end name="end"/>
</workflow-app>
"""


def test_an_oozie_action_retries_by_its_retry_max_and_interval_and_hive_texts_reach_the_job() -> None:
    parsed = parse_workflow_bytes(WORKFLOW.encode(), "workflow.xml")
    assert parsed.workflow is not None, parsed.issues
    nodes = {node.name: node for node in compile_workflow(parsed.workflow, "file:///apps/wf").nodes}
    assert (nodes["query"].retry_max, nodes["query"].retry_interval_minutes) == (3, 2)
    assert (nodes["script"].retry_max, nodes["script"].retry_interval_minutes) == (0, 10)  # Oozie's defaults
    assert nodes["query"].body["query"] == "SELECT 1"
    assert nodes["script"].body["script"] == "file:///apps/wf/q.sql"
    assert nodes["script"].body["params"] == ["DAY=${day}"]


def test_a_feeds_notification_mails_its_dags_and_a_spark_class_reaches_spark_submit(tmp_path: Path) -> None:
    notified = feed(name="f").replace("<ACL ", '<notification type="email" to="ops@example.com"/>\n  <ACL ')
    spark = process(outputs=(("out", "f", "now(0,0)"),)).replace("<jar>", "<class>org.example.Main</class><jar>")
    compilation = compile_workspace(workspace(tmp_path, cluster(), notified, spark))
    assert compilation.report.valid, compilation.report.issues
    [retention] = [spec for spec in compilation.specs if isinstance(spec, RetentionDagSpec)]
    assert list(retention.emails) == ["ops@example.com"]
    [compiled] = [spec for spec in compilation.specs if isinstance(spec, ProcessDagSpec)]
    assert compiled.job is not None and compiled.job.java_class == "org.example.Main"
