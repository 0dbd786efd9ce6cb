"""FA035 (an entity never chooses whom its jobs run as) in process spark-opts, cluster properties and Oozie
workflows, and FA036 (an Oozie action's local files), each reported with file, line, entity and rule."""

from __future__ import annotations

import pytest

from falcon_airflow.issues import Level
from falcon_airflow.validation import Report

from .conftest import EntityWorkspace
from .test_oozie_workflows import GLOBAL, oozie_process, workflow_xml

SPARK_OPTS = "<spark-opts>--num-executors 2</spark-opts>"
REGION = '<property name="region" value="us-east"/>'


def fa(report: Report, rule: str) -> list:
    return [issue for issue in report.issues if issue.rule == rule]


@pytest.mark.parametrize("opts", [
    "--proxy-user hdfs",
    "--num-executors 2 --proxy-user=hdfs",
    "--principal hdfs@EXAMPLE.COM --keytab /etc/security/keytabs/hdfs.keytab",
    "--conf spark.kerberos.keytab=/etc/hdfs.keytab",
    "--conf spark.yarn.appMasterEnv.HADOOP_USER_NAME=hdfs",
    "--conf spark.executorEnv.HADOOP_USER_NAME=hdfs",
    "--conf spark.kubernetes.authenticate.driver.serviceAccountName=admin",
    "--conf spark.yarn.proxyUser=hdfs",
    "--driver-java-options -Duser.name=hdfs",
    "--conf spark.executor.extraJavaOptions=-DHADOOP_USER_NAME=hdfs",
])
def test_process_spark_opts_that_choose_the_identity_are_refused(ws: EntityWorkspace, opts: str) -> None:
    report = ws.edit("sample", SPARK_OPTS, f"<spark-opts>{opts}</spark-opts>").validate()
    issue = ws.assert_reported(report, "FA035", "sample", "<spark-attributes>", "process 'sample' <spark-opts>:")
    assert issue.level is Level.ERROR and issue.entity_type == "process"
    assert "-doAs user, else its ACL owner" in issue.message and not report.valid


@pytest.mark.parametrize(("name", "value"), [
    ("spark.yarn.principal", "hdfs@EXAMPLE.COM"),
    ("spark.kerberos.keytab", "/etc/security/keytabs/hdfs.keytab"),
    ("spark.executorEnv.HADOOP_USER_NAME", "hdfs"),
    ("spark.yarn.appMasterEnv.HADOOP_PROXY_USER", "hdfs"),
    ("spark.kubernetes.authenticate.driver.serviceAccountName", "admin"),
    ("hadoop.token.files", "/tmp/hdfs.token"),  # becomes spark.hadoop.hadoop.token.files
    ("hive.server2.proxy.user", "hdfs"),
    ("spark.driver.extraJavaOptions", "-Djava.security.auth.login.config=/tmp/jaas.conf"),
])
def test_cluster_properties_that_choose_the_identity_are_refused(ws: EntityWorkspace, name: str, value: str) -> None:
    report = ws.edit("primary", REGION, f'{REGION}\n        <property name="{name}" value="{value}"/>').validate()
    issue = ws.assert_reported(report, "FA035", "primary", f'name="{name}"', f"cluster 'primary' property '{name}'")
    assert issue.entity_type == "cluster"


@pytest.mark.parametrize(("name", "value"), [
    ("dfs.namenode.kerberos.principal", "nn/_HOST@EXAMPLE.COM"),  # the namenode's principal: who it is, not we
    ("hadoop.security.authentication", "kerberos"),
    ("spark.executorEnv.PYTHONPATH", "/opt/lib"),
    ("queueName", "etl"),
])
def test_ordinary_cluster_properties_pass(ws: EntityWorkspace, name: str, value: str) -> None:
    report = ws.edit("primary", REGION, f'{REGION}\n        <property name="{name}" value="{value}"/>').validate()
    assert not fa(report, "FA035"), ws.describe(report)


def _spark(opts: str) -> str:
    return f"""<action name="first"><spark xmlns="uri:oozie:spark-action:0.2"><master>local[1]</master>
<name>s</name><jar>job.py</jar><spark-opts>{opts}</spark-opts></spark>
<ok to="end"/><error to="fail"/></action>"""


def _java(opts: str) -> str:
    return f"""<action name="first"><java><main-class>Main</main-class><java-opts>{opts}</java-opts></java>
<ok to="end"/><error to="fail"/></action>"""


def _shell(env: str) -> str:
    return f"""<action name="first"><shell xmlns="uri:oozie:shell-action:0.3"><exec>run.sh</exec>
<env-var>{env}</env-var></shell>
<ok to="end"/><error to="fail"/></action>"""


def _configured(name: str, value: str) -> str:
    return f"""<action name="first"><shell xmlns="uri:oozie:shell-action:0.3">
<configuration><property><name>{name}</name><value>{value}</value></property></configuration>
<exec>run.sh</exec></shell>
<ok to="end"/><error to="fail"/></action>"""


@pytest.mark.parametrize(("action", "fragment"), [
    (_spark("--proxy-user hdfs"), "<spark-opts>: --proxy-user"),
    (_spark("--conf spark.yarn.keytab=/etc/hdfs.keytab"), "<spark-opts>: Spark conf spark.yarn.keytab"),
    (_spark("--conf spark.executorEnv.HADOOP_USER_NAME=hdfs"), "HADOOP_USER_NAME"),
    (_java("-Xmx1g -DHADOOP_USER_NAME=hdfs"), "<java-opts>: JVM option -DHADOOP_USER_NAME"),
    (_shell("HADOOP_USER_NAME=hdfs"), "<env-var> HADOOP_USER_NAME"),
    (_shell("HADOOP_PROXY_USER=hdfs"), "<env-var> HADOOP_PROXY_USER"),
    (_shell("KRB5CCNAME=/tmp/krb5cc_hdfs"), "<env-var> KRB5CCNAME"),
    (_configured("spark.kerberos.principal", "hdfs"), "<configuration>: Spark conf spark.kerberos.principal"),
    (_configured("spark.yarn.appMasterEnv.HADOOP_USER_NAME", "hdfs"), "<configuration>"),
])
def test_workflow_actions_that_choose_the_identity_are_refused(ws: EntityWorkspace, action: str,
                                                               fragment: str) -> None:
    oozie_process(ws).put("wf", workflow_xml(action, head=GLOBAL), "apps/sample-wf/workflow.xml")
    report = ws.validate()
    [issue] = fa(report, "FA035")
    assert fragment in issue.message and "action 'first'" in issue.message, issue.message
    assert issue.level is Level.ERROR and issue.file == ws.path("wf") and issue.entity == "sample-wf"
    assert issue.line is not None and issue.entity_type == "workflow"


def test_a_global_configuration_that_chooses_the_identity_is_refused(ws: EntityWorkspace) -> None:
    head = ("<global><job-tracker>${jobTracker}</job-tracker><name-node>${nameNode}</name-node><configuration>"
            "<property><name>spark.yarn.principal</name><value>hdfs</value></property></configuration></global>\n")
    oozie_process(ws).put("wf", workflow_xml(_shell("LANG=C"), head=head), "apps/sample-wf/workflow.xml")
    [issue] = fa(ws.validate(), "FA035")
    assert issue.message.startswith("<global><configuration>: Spark conf spark.yarn.principal")


def test_a_bare_workflow_is_judged_too(ws: EntityWorkspace) -> None:
    ws.put("wf", workflow_xml(_shell("HADOOP_USER_NAME=hdfs"), head=GLOBAL), "apps/other/workflow.xml")
    [issue] = fa(ws.validate(), "FA035")
    assert issue.level is Level.ERROR


def _shell_files(files: str) -> str:
    return f"""<action name="first"><shell xmlns="uri:oozie:shell-action:0.3"><exec>run.sh</exec>
{files}</shell>
<ok to="end"/><error to="fail"/></action>"""


def _email(attachment: str) -> str:
    return f"""<action name="first"><email xmlns="uri:oozie:email-action:0.2"><to>a@example.com</to>
<subject>s</subject><body>b</body><attachment>{attachment}</attachment></email>
<ok to="end"/><error to="fail"/></action>"""


def _hive(script: str) -> str:
    return f"""<action name="first"><hive xmlns="uri:oozie:hive-action:0.5"><script>{script}</script></hive>
<ok to="end"/><error to="fail"/></action>"""


@pytest.mark.parametrize(("action", "level"), [
    (_shell_files("<file>../../../../etc/passwd#passwd</file>"), Level.ERROR),
    (_shell_files("<archive>lib/%2e%2e/%2E%2E/x.tgz</archive>"), Level.ERROR),  # read percent-decoded
    (_shell_files("<file>file:///srv/app/%2e%2e/%2e%2e/etc/passwd</file>"), Level.ERROR),
    (_shell_files("<file>/etc/passwd</file>"), Level.WARNING),
    (_email("/opt/airflow/airflow.cfg"), Level.WARNING),
    (_email("report.csv,../secrets.txt"), Level.ERROR),
    (_hive("file:///etc/shadow"), Level.WARNING),
    (_hive("file://otherhost/app/x.sql"), Level.ERROR),
    (_shell_files("<file>lib/run.sh</file>"), None),
    (_shell_files("<file>hdfs://nn:8020/apps/x.sh</file>"), None),
    (_shell_files("<file>${wf:appPath()}/run.sh</file>"), None),
])
def test_workflow_files_outside_the_application(ws: EntityWorkspace, action: str, level: Level | None) -> None:
    oozie_process(ws).put("wf", workflow_xml(action, head=GLOBAL), "apps/sample-wf/workflow.xml")
    found = fa(ws.validate(), "FA036")
    assert [issue.level for issue in found] == ([level] if level else [])
    for issue in found:
        assert issue.file == ws.path("wf") and "action 'first'" in issue.message


@pytest.mark.parametrize("key", ["clicks", "sample"])
@pytest.mark.parametrize("owner", ["{{ conn.db.password }}", "hdfs --conf spark.x=y", "o'brien", "two words"])
def test_an_acl_owner_that_is_no_user_name_is_refused(ws: EntityWorkspace, key: str, owner: str) -> None:
    text = ws.files[key]
    start = text.index('<ACL owner="') + len('<ACL owner="') if '<ACL owner="' in text else None
    if start is None:  # the base process has no ACL: give it one
        ws.edit(key, "</process>", f'    <ACL owner="{owner}" group="users" permission="*"/>\n</process>')
    else:
        current = text[start:text.index('"', start)]
        ws.edit(key, f'<ACL owner="{current}"', f'<ACL owner="{owner.replace(chr(39), "&apos;")}"')
    report = ws.validate()
    issue = ws.assert_reported(report, "FA037", key, "<ACL owner=", "is not a user name")
    assert issue.level is Level.ERROR


@pytest.mark.parametrize("owner", ["ambari-qa", "svc_etl", "etl.bot", "ann@EXAMPLE.COM"])
def test_user_name_owners_pass(ws: EntityWorkspace, owner: str) -> None:
    ws.edit("sample", "</process>", f'    <ACL owner="{owner}" group="users" permission="*"/>\n</process>')
    assert not fa(ws.validate(), "FA037")
