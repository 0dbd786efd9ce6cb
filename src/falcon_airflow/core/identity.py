"""Who a job runs as is decided by the deployment and the checked ``-doAs`` record, never by entity text.

A Spark job's identity is ``spark-submit --proxy-user``, which the compiler sets from the entity's recorded
``-doAs`` user (else its ACL owner). Spark, Hadoop and Kerberos offer other ways to be someone else, and every one
of them can be written into text an entity author controls (``<spark-opts>``, cluster properties that become Spark
conf, an Oozie action's ``<configuration>``, ``<java-opts>`` or ``<env-var>``). This module names them all, so the
validation rules, the compiler, the Oozie runtime and the Spark hook refuse the same set:

* the spark-submit options ``--proxy-user``, ``--principal``, ``--keytab``;
* Spark conf that logs in or authenticates as someone (Kerberos principal and keytab, delegation tokens for other
  file systems, Kubernetes credentials, service accounts, pod templates and secrets), and any key naming a proxy
  user;
* environment variables Hadoop and Kerberos read an identity from (``HADOOP_USER_NAME``, ``HADOOP_PROXY_USER``,
  ``KRB5CCNAME`` ...), whether set through ``spark.executorEnv.*``, ``spark.yarn.appMasterEnv.*``,
  ``spark.kubernetes.driverEnv.*`` or a shell action's ``<env-var>``;
* JVM system properties that do the same (``-Duser.name=``, ``-DHADOOP_USER_NAME=``, a JAAS login configuration,
  a Kerberos configuration) in ``--driver-java-options`` and the ``*.extraJavaOptions`` conf.

Standard library only: the Spark jobs get this package shipped too.
"""

from __future__ import annotations

import re
import shlex
from functools import lru_cache

IDENTITY_OPTIONS = frozenset({"--proxy-user", "--principal", "--keytab"})
"""spark-submit options that choose who the job runs as."""

IDENTITY_ENVIRONMENT = frozenset({
    "HADOOP_USER_NAME", "HADOOP_PROXY_USER", "HADOOP_TOKEN_FILE_LOCATION", "HADOOP_TOKEN", "SPARK_USER", "USER",
    "LOGNAME", "KRB5CCNAME", "KRB5_CONFIG", "KRB5_KTNAME", "KRB5_CLIENT_KTNAME",
})
"""Environment variables a Hadoop client, a Kerberos library or a shell tool reads its user or its login from."""

JVM_OPTIONS_ENVIRONMENT = frozenset({
    "HADOOP_OPTS", "HADOOP_CLIENT_OPTS", "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS", "SPARK_SUBMIT_OPTS",
    "SPARK_JAVA_OPTS",
})
"""Environment variables every JVM started under them takes ``-D`` system properties from: their value is checked
like ``--driver-java-options``."""

# Spark conf keys (compared in lower case) that log in, authenticate or fetch credentials
_IDENTITY_KEYS = frozenset({
    "spark.yarn.principal", "spark.yarn.keytab", "spark.yarn.access.namenodes",
    "spark.yarn.access.hadoopfilesystems", "spark.kubernetes.driver.podtemplatefile",
    "spark.kubernetes.executor.podtemplatefile", "spark.kubernetes.driver.podtemplatecontainername",
    "spark.kubernetes.executor.podtemplatecontainername",
    "spark.hadoop.hadoop.token.files", "spark.hadoop.mapreduce.job.credentials.binary", "spark.hadoop.user.name",
    "spark.hadoop.mapreduce.job.user.name", "spark.hadoop.hadoop.user.name",
})
_IDENTITY_PREFIXES = (
    "spark.kerberos.", "spark.yarn.access.", "spark.yarn.kerberos.", "spark.yarn.security.",
    "spark.security.credentials.", "spark.kubernetes.authenticate.", "spark.kubernetes.kerberos.",
    "spark.kubernetes.driver.secrets.", "spark.kubernetes.executor.secrets.",
    "spark.kubernetes.driver.secretkeyref.", "spark.kubernetes.executor.secretkeyref.",
    "spark.hadoop.hadoop.proxyuser.", "spark.hadoop.hadoop.security.credential.",
)
# conf prefixes whose remainder is an environment variable of the driver, the application master or the executors
_ENVIRONMENT_PREFIXES = (
    "spark.executorenv.", "spark.yarn.appmasterenv.", "spark.kubernetes.driverenv.", "spark.mesos.driverenv.",
    "spark.kubernetes.executorenv.",
)
_JAVA_OPTION_KEYS = frozenset({
    "spark.driver.extrajavaoptions", "spark.executor.extrajavaoptions", "spark.driver.defaultjavaoptions",
    "spark.executor.defaultjavaoptions", "spark.yarn.am.extrajavaoptions",
})
# JVM system properties (lower case) that name the user or the login
_IDENTITY_PROPERTIES = frozenset({
    "user.name", "hadoop_user_name", "hadoop.user.name", "hadoop_proxy_user", "hadoop.proxy.user",
    "java.security.krb5.conf", "java.security.krb5.realm", "java.security.krb5.kdc",
    "java.security.auth.login.config", "sun.security.krb5.principal", "javax.security.auth.usesubjectcredsonly",
    "zookeeper.sasl.client",
})
_PROXY_NAME = re.compile(r"proxy[._-]?user", re.IGNORECASE)
USER_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.@-]{0,127}")
"""A user name a job may run as: what Hadoop, Kerberos short names and Airflow logins share (no blank, no quote, no
template or shell syntax)."""
DATA_PREFIX = "spark.falcon."
"""Falcon's workflow properties passed to the application as conf: data Spark never reads, whatever their name."""


def is_user_name(text: str) -> bool:
    return bool(USER_NAME.fullmatch(text))


def identity_option(option: str) -> str | None:
    """Why a spark-submit option chooses the job's identity, or ``None``."""
    if option.strip() in IDENTITY_OPTIONS:
        return f"{option.strip()} chooses who the job runs as"
    return None


def identity_environment(name: str, value: str = "") -> str | None:
    """Why setting the environment variable ``name`` to ``value`` changes who a process acts as, or ``None``."""
    variable = name.strip().upper()
    if variable in IDENTITY_ENVIRONMENT:
        return f"environment variable {name.strip()} sets the user or the login Hadoop, Kerberos or the JVM use"
    if variable in JVM_OPTIONS_ENVIRONMENT:
        problem = identity_java_options(value)
        if problem:
            return f"environment variable {name.strip()} holds {problem.removeprefix('JVM option ')}"
    return None


def identity_java_options(text: str) -> str | None:
    """Why JVM options set the user or the login (a ``-D`` property of :data:`_IDENTITY_PROPERTIES`), or ``None``."""
    try:
        tokens = shlex.split(text)
    except ValueError:
        tokens = text.split()
    for token in tokens:
        if not token.startswith("-D"):
            continue
        name = token[2:].partition("=")[0].strip().lower()
        if name in _IDENTITY_PROPERTIES:
            return f"JVM option -D{token[2:].partition('=')[0]} sets the user or the login of the job"
    return None


def identity_setting(key: str, value: str = "") -> str | None:
    """Why the Spark conf ``key=value`` makes the job log in, authenticate or run as someone, or ``None``."""
    name = key.strip()
    lowered = name.lower()
    if lowered.startswith(DATA_PREFIX):
        return None
    why = f"Spark conf {name} "
    if lowered in _IDENTITY_KEYS or lowered.startswith(_IDENTITY_PREFIXES):
        return why + "sets a login, credentials or a service account for the job"
    if _PROXY_NAME.search(lowered):
        return why + "names a proxy user"
    for prefix in _ENVIRONMENT_PREFIXES:
        if lowered.startswith(prefix):
            variable = name[len(prefix):]
            problem = identity_environment(variable, value)
            if problem:
                return why + f"sets {problem}"
    if lowered in _JAVA_OPTION_KEYS:
        problem = identity_java_options(value)
        if problem:
            return why + f"holds {problem.removeprefix('JVM option ')}"
    return None


def identity_settings(conf: dict[str, str]) -> list[str]:
    """Every reason :func:`identity_setting` finds in a conf mapping, in key order."""
    return [reason for key, value in sorted(conf.items()) if (reason := identity_setting(key, value))]


def spark_opts_identity_problems(text: str | None) -> list[str]:
    """Why ``<spark-opts>`` text would choose the job's identity: each option or conf that does, in the order
    written. Lenient: text spark-submit could not read is judged token by token (its other faults are another
    rule's)."""
    if not text or not text.strip():
        return []
    return list(_spark_opts_problems(text))


@lru_cache(maxsize=4096)  # a large estate repeats a few spark-opts texts; the answer depends on the text alone
def _spark_opts_problems(text: str) -> tuple[str, ...]:
    try:
        tokens = shlex.split(text)
    except ValueError:
        tokens = text.split()
    problems: list[str] = []
    for index, token in enumerate(tokens):
        name, equals, inline = token.partition("=")
        if not name.startswith("--"):
            continue
        value = inline if equals else (tokens[index + 1] if index + 1 < len(tokens) else "")
        if (reason := identity_option(name)) is not None:
            problems.append(reason)
        elif name == "--conf":
            key, _, setting = value.partition("=")
            if (reason := identity_setting(key, setting)) is not None:
                problems.append(reason)
        elif name == "--driver-java-options" and (reason := identity_java_options(value)) is not None:
            problems.append(f"{name} holds {reason.removeprefix('JVM option ')}")
    return tuple(problems)
