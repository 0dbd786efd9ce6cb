"""``<spark-opts>`` never choose who a job runs as: the options and their conf, JVM and environment equivalents
are refused when the options are parsed (the compiler, and the Oozie runtime, which parses evaluated spark-opts)."""

from __future__ import annotations

import pytest

from falcon_airflow.compiler.spark_options import SparkOptionsError, identity_problems, parse_spark_options

REFUSED = [
    "--proxy-user hdfs",
    "--proxy-user=hdfs",
    "--principal hdfs@EXAMPLE.COM --keytab /etc/security/keytabs/hdfs.keytab",
    "--keytab /etc/hdfs.keytab",
    "--conf spark.yarn.principal=hdfs",
    "--conf spark.kerberos.keytab=/etc/hdfs.keytab",
    "--conf spark.yarn.access.hadoopFileSystems=hdfs://other",
    "--conf spark.kubernetes.authenticate.driver.serviceAccountName=admin",
    "--conf spark.yarn.appMasterEnv.HADOOP_USER_NAME=hdfs",
    "--conf spark.executorEnv.HADOOP_USER_NAME=hdfs",
    "--conf=spark.yarn.proxyUser=hdfs",
    "--conf 'spark.driver.extraJavaOptions=-Xmx1g -Duser.name=hdfs'",
    "--driver-java-options '-DHADOOP_USER_NAME=hdfs'",
    "--driver-memory 1g --conf spark.ui.enabled=false --proxy-user hdfs",
]


@pytest.mark.parametrize("text", REFUSED)
def test_identity_spark_opts_are_refused(text: str) -> None:
    assert identity_problems(text)
    with pytest.raises(SparkOptionsError, match="never as its spark-opts say"):
        parse_spark_options(text)


@pytest.mark.parametrize("text", [
    "--driver-memory 1g --conf spark.ui.enabled=false",
    "--driver-java-options '-Xmx1g -Dlog4j.debug=true'",
    "--conf spark.executorEnv.PYTHONPATH=/opt",
    "--queue etl",
])
def test_ordinary_spark_opts_pass(text: str) -> None:
    assert identity_problems(text) == []
    parse_spark_options(text)


def test_identity_problems_reads_broken_quoting_token_by_token() -> None:
    assert identity_problems("--conf 'x=1 --proxy-user hdfs")
