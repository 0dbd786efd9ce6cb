"""spark-submit on a Kerberized Hadoop: the Airflow service principal logs in, the job runs as its entity's user.

Falcon's server held a keytab and submitted every job as the entity's user through Hadoop's proxy-user rules. Here
the Airflow service principal and keytab are Airflow's own ``[kerberos]`` settings (``AIRFLOW__KERBEROS__PRINCIPAL``,
``AIRFLOW__KERBEROS__KEYTAB``), and the job's user is its ``--proxy-user`` (the entity's ``-doAs`` user, else its ACL
owner: :mod:`falcon_airflow.compiler.identity`). spark-submit refuses ``--principal`` together with
``--proxy-user``, so:

* a job with a proxy user gets the service principal's ticket, obtained from the keytab just before the submit, in
  a ticket cache of its own (a file only this user can read, ``KRB5CCNAME`` of spark-submit alone, deleted when the
  submit ends); spark-submit's login is that ticket and it acts for the proxy user, which the cluster's
  ``hadoop.proxyuser.<service>.*`` settings must allow;
* a job without one (the deployment's own identity) is submitted with ``--principal``/``--keytab``, so Spark can
  renew its login for as long as the job runs.

Either way Spark is told every HDFS file system the job's arguments name (``spark.kerberos.access.hadoopFileSystems``):
on YARN it fetches delegation tokens for each before the job starts, so a replication reads one cluster and writes
the other. ``KRB5_CONFIG``, when set, becomes the driver JVM's ``java.security.krb5.conf`` (Java does not read the
variable).

A Hadoop configuration is Kerberized when its core-site.xml (``$HADOOP_CONF_DIR``) says
``hadoop.security.authentication=kerberos``; otherwise nothing here applies.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from falcon_airflow import kerberos_login
from falcon_airflow.instances.kerberos import KerberosLogin, kerberized
from falcon_airflow.instances.storage import StorageError
from falcon_airflow.kerberos_login import KerberosLoginError

FILESYSTEMS_CONF = "spark.kerberos.access.hadoopFileSystems"
_HDFS_FILESYSTEM = re.compile(r"\b((?:hdfs|webhdfs|swebhdfs|viewfs)://[^/\s,;'\"]+)")


def hadoop_filesystems(values: Iterable[object]) -> list[str]:
    """The distinct HDFS file systems (``scheme://authority``) named in ``values``, in the order they appear."""
    found: list[str] = []
    for value in values:
        for match in _HDFS_FILESYSTEM.findall(str(value)):
            if match not in found:
                found.append(match)
    return found


@dataclass(frozen=True)
class SparkKerberos:
    """How one spark-submit logs in on a Kerberized cluster."""

    login: KerberosLogin
    proxy_user: str | None
    filesystems: tuple[str, ...]
    krb5_conf: str | None = None
    conf: dict[str, str] = field(default_factory=dict)

    @property
    def principal_and_keytab(self) -> tuple[str | None, str | None]:
        """``--principal``/``--keytab``: only without a proxy user (spark-submit takes one or the other)."""
        return (None, None) if self.proxy_user else (self.login.principal, self.login.keytab)

    def submit_conf(self) -> dict[str, str]:
        return {FILESYSTEMS_CONF: ",".join(self.filesystems)} if self.filesystems else {}

    def submit_environment(self, ticket_cache: Path | None) -> dict[str, str]:
        """spark-submit's own environment: the ticket cache (with a proxy user) and the krb5.conf for its JVM."""
        environment: dict[str, str] = {}
        if ticket_cache is not None:
            environment["KRB5CCNAME"] = f"FILE:{ticket_cache}"
        if self.krb5_conf:
            options = os.environ.get("SPARK_SUBMIT_OPTS", "")
            environment["SPARK_SUBMIT_OPTS"] = f"{options} -Djava.security.krb5.conf={self.krb5_conf}".strip()
        return environment


def spark_kerberos(proxy_user: str | None, arguments: Iterable[object],
                   settings: dict[str, str] | None = None) -> SparkKerberos | None:
    """The Kerberos login of a job with ``proxy_user`` and these application arguments, ``None`` when the Hadoop
    configuration is not Kerberized. A missing principal or keytab setting is a :class:`StorageError` naming both."""
    if settings is None:
        from falcon_airflow.instances.webhdfs import hadoop_settings

        settings = hadoop_settings()
    if not kerberized(settings):
        return None
    login = service_keytab_login("submit the Spark job on the Kerberized cluster")
    return SparkKerberos(login=login, proxy_user=proxy_user or None, filesystems=tuple(hadoop_filesystems(arguments)),
                         krb5_conf=os.environ.get("KRB5_CONFIG") or None)


def service_keytab_login(purpose: str = "log in to the Kerberized cluster") -> KerberosLogin:
    """The Airflow service principal and keytab, the keytab readable; else a :class:`StorageError` naming both."""
    try:
        return kerberos_login.service_keytab_login(purpose)
    except KerberosLoginError as problem:
        raise StorageError(problem.message) from None


def obtain_ticket_cache(login: KerberosLogin) -> Path:
    """:func:`falcon_airflow.kerberos_login.obtain_ticket_cache`, its failure a :class:`StorageError`."""
    try:
        return kerberos_login.obtain_ticket_cache(login)
    except KerberosLoginError as problem:
        raise StorageError(problem.message) from None


remove_ticket_cache = kerberos_login.remove_ticket_cache
