"""Every way of choosing a job's identity in Spark options, conf, JVM options or the environment is recognised,
and ordinary settings are not."""

from __future__ import annotations

import pytest

from falcon_airflow.core.identity import (
    identity_environment,
    identity_java_options,
    identity_option,
    identity_setting,
    identity_settings,
)


@pytest.mark.parametrize("option", ["--proxy-user", "--principal", "--keytab"])
def test_identity_options(option: str) -> None:
    assert identity_option(option) is not None


@pytest.mark.parametrize("option", ["--queue", "--driver-memory", "--conf", "--jars"])
def test_other_options_are_not_identity(option: str) -> None:
    assert identity_option(option) is None


@pytest.mark.parametrize(("key", "value"), [
    ("spark.yarn.principal", "hdfs@EXAMPLE.COM"),
    ("spark.yarn.keytab", "/etc/security/keytabs/hdfs.keytab"),
    ("spark.kerberos.principal", "hdfs@EXAMPLE.COM"),
    ("spark.kerberos.keytab", "/etc/hdfs.keytab"),
    ("spark.kerberos.access.hadoopFileSystems", "hdfs://other-nn"),
    ("spark.yarn.access.hadoopFileSystems", "hdfs://other-nn"),
    ("spark.yarn.access.namenodes", "hdfs://other-nn"),
    ("spark.kubernetes.authenticate.driver.serviceAccountName", "spark-admin"),
    ("spark.kubernetes.authenticate.submission.oauthToken", "token"),
    ("spark.kubernetes.driver.podTemplateFile", "/tmp/root-pod.yaml"),
    ("spark.kubernetes.driver.secrets.airflow-fernet", "/mnt/secret"),
    ("spark.kubernetes.executor.secretKeyRef.PASSWORD", "db:password"),
    ("spark.yarn.proxyUser", "hdfs"),
    ("spark.sql.hive.thriftServer.proxy.user", "hdfs"),
    ("spark.hadoop.hive.server2.proxy.user", "hdfs"),
    ("SPARK.YARN.PRINCIPAL", "hdfs"),
    ("spark.yarn.appMasterEnv.HADOOP_USER_NAME", "hdfs"),
    ("spark.executorEnv.HADOOP_USER_NAME", "hdfs"),
    ("spark.executorEnv.HADOOP_PROXY_USER", "hdfs"),
    ("spark.kubernetes.driverEnv.KRB5CCNAME", "/tmp/krb5cc_0"),
    ("spark.executorEnv.JAVA_TOOL_OPTIONS", "-DHADOOP_USER_NAME=hdfs"),
    ("spark.driver.extraJavaOptions", "-Xmx1g -Duser.name=hdfs"),
    ("spark.executor.extraJavaOptions", "-DHADOOP_USER_NAME=hdfs"),
    ("spark.yarn.am.extraJavaOptions", "-Djava.security.auth.login.config=/tmp/jaas.conf"),
    ("spark.driver.defaultJavaOptions", "'-Djava.security.krb5.conf=/tmp/krb5.conf'"),
    ("spark.hadoop.hadoop.token.files", "/tmp/stolen.token"),
    ("spark.hadoop.mapreduce.job.credentials.binary", "/tmp/stolen.token"),
    ("spark.hadoop.hadoop.proxyuser.airflow.hosts", "*"),
])
def test_identity_conf(key: str, value: str) -> None:
    assert identity_setting(key, value) is not None
    assert identity_settings({key: value, "spark.ui.enabled": "false"}) == [identity_setting(key, value)]


@pytest.mark.parametrize(("key", "value"), [
    ("spark.ui.enabled", "false"),
    ("spark.sql.shuffle.partitions", "4"),
    ("spark.executorEnv.PYTHONPATH", "/opt/lib"),
    ("spark.driver.extraJavaOptions", "-Xmx2g -Dlog4j.configuration=file:/opt/log4j.properties"),
    ("spark.hadoop.fs.s3a.endpoint", "http://127.0.0.1:9000"),
    ("spark.hadoop.dfs.namenode.kerberos.principal", "nn/_HOST@EXAMPLE.COM"),  # the server's, not the job's
    ("spark.hadoop.hadoop.security.authentication", "kerberos"),  # what the cluster speaks, not who runs
    ("spark.falcon.proxyUser", "anything"),  # a process property passed as data, which Spark never reads
])
def test_ordinary_conf_is_not_identity(key: str, value: str) -> None:
    assert identity_setting(key, value) is None


@pytest.mark.parametrize(("name", "value", "refused"), [
    ("HADOOP_USER_NAME", "hdfs", True),
    ("hadoop_proxy_user", "hdfs", True),
    ("KRB5CCNAME", "/tmp/krb5cc_0", True),
    ("HADOOP_TOKEN_FILE_LOCATION", "/tmp/t", True),
    ("SPARK_USER", "hdfs", True),
    ("HADOOP_OPTS", "-DHADOOP_USER_NAME=hdfs", True),
    ("JAVA_TOOL_OPTIONS", "-Duser.name=hdfs", True),
    ("HADOOP_OPTS", "-Xmx1g", False),
    ("LANG", "C.UTF-8", False),
    ("OUTPUT", "/data/x", False),
])
def test_identity_environment(name: str, value: str, refused: bool) -> None:
    assert (identity_environment(name, value) is not None) is refused


@pytest.mark.parametrize(("text", "refused"), [
    ("-Duser.name=hdfs", True),
    ("-Xmx1g -DHADOOP_USER_NAME=hdfs", True),
    ("-Dsun.security.krb5.principal=hdfs", True),
    ("-Xmx1g -Dfoo=bar", False),
    ("'unbalanced -Duser.name=x", True),  # read token by token when shell quoting is broken
])
def test_identity_java_options(text: str, refused: bool) -> None:
    assert (identity_java_options(text) is not None) is refused
