"""spark-submit for a Falcon cluster: the master comes from the entities unless a connection says otherwise.

Falcon took the Spark master from the process (``spark-attributes/master``) or the cluster's ``spark`` interface.
We keep that, and let an Airflow connection named after the cluster override it - the usual Airflow way to point
a pipeline at another cluster without editing its definitions.

The hook extends the Spark provider's :class:`SparkSubmitHook` through two of its private methods,
``_resolve_connection`` (the settings the command is built from, a dict whose keys the rest of the hook reads) and
``_build_spark_common_args``; pyproject.toml bounds the provider below its next major version, and
``tests/unit/provider/hooks/test_spark.py`` pins the keys against the installed provider.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from airflow.providers.apache.spark.hooks.spark_submit import SparkSubmitHook
from airflow.sdk.exceptions import AirflowException, AirflowNotFoundException

from falcon_airflow.core.secrets import is_secret_name
from falcon_airflow.jvm import s3a_jars_for
from falcon_airflow.provider.hooks.archives import ship_packages
from falcon_airflow.provider.hooks.spark_kerberos import obtain_ticket_cache, remove_ticket_cache, spark_kerberos


def default_spark_submit() -> str:
    """``spark-submit`` beside this Python (the pyspark wheel's, in the same virtualenv), else the one on PATH."""
    beside = Path(sys.executable).parent / "spark-submit"
    if beside.exists():
        return str(beside)
    return shutil.which("spark-submit") or "spark-submit"


def refuse_identity_settings(arguments: dict[str, Any]) -> None:
    """Refuse (``ValueError``) the hook's arguments when they would make the job log in or run as anyone but its
    ``proxy_user``: a ``principal`` or ``keytab`` of the task (a deployment's own login comes from the connection or
    the worker's ticket cache), or Spark conf or environment that sets a user or a login
    (:mod:`falcon_airflow.core.identity`). Validation and the compiler refuse them already (FA035); this holds
    whatever built the task."""
    from falcon_airflow.core.identity import identity_environment, identity_settings

    problems = [f"{name} {arguments[name]!r} of the task" for name in ("principal", "keytab") if arguments.get(name)]
    problems += identity_settings({str(key): str(value) for key, value in (arguments.get("conf") or {}).items()})
    problems += [reason for name, value in (arguments.get("env_vars") or {}).items()
                 if (reason := identity_environment(str(name), str(value))) is not None]
    if problems:
        raise ValueError(f"refusing to submit the Spark job: {'; '.join(problems)}; a job runs as its entity's "
                         f"-doAs user, else its ACL owner (proxy user {arguments.get('proxy_user')!r})")


SPARK_CONF_DEFAULTS = {
    # Spark 4.2 feeds Arrow-optimized Python UDFs straight from columnar scans (Parquet, ORC); with the pyspark
    # 4.2.0 we install, the Python worker dies on that input and the task then waits on its socket forever. A
    # plain udf() over a Parquet read is enough to hit it, so every job we submit turns the shortcut off (the
    # rows still reach the UDF through Arrow). A job's own --conf wins.
    "spark.sql.execution.arrow.pythonUDF.columnarInput.enabled": "false",
}
"""Spark settings every submitted job gets unless its spark-opts set them."""


def local_spark_environment() -> dict[str, str]:
    """SPARK_HOME and the Python of this virtualenv for spark-submit, unless the environment sets them: the
    pyspark wheel's spark-submit finds neither when Airflow runs without the virtualenv on its PATH."""
    environment = {}
    if "SPARK_HOME" not in os.environ:
        try:
            import pyspark

            environment["SPARK_HOME"] = str(Path(pyspark.__file__).resolve().parent)
        except ImportError:
            pass
    for name in ("PYSPARK_PYTHON", "PYSPARK_DRIVER_PYTHON"):
        if name not in os.environ:
            environment[name] = sys.executable
    if "SPARK_LOCAL_IP" not in os.environ:  # a local driver (and its UI) listens on the loopback only
        environment["SPARK_LOCAL_IP"] = "127.0.0.1"
    return environment


def _escape_properties(text: str, *, key: bool) -> str:
    """``text`` as ``java.util.Properties.load`` reads it back (Spark reads the file as UTF-8, so only the
    characters the format gives a meaning are escaped)."""
    out = []
    for index, char in enumerate(text):
        if char == "\\":
            out.append("\\\\")
        elif char in "\n\r\t\f":
            out.append({"\n": "\\n", "\r": "\\r", "\t": "\\t", "\f": "\\f"}[char])
        elif char in "=:#!" or (char == " " and (key or index == 0)):
            out.append("\\" + char)
        elif ord(char) < 0x20 or ord(char) == 0x7F:
            out.append(f"\\u{ord(char):04x}")
        else:
            out.append(char)
    return "".join(out)


def properties_text(settings: dict[str, str]) -> str:
    return "".join(f"{_escape_properties(key, key=True)}={_escape_properties(value, key=False)}\n"
                   for key, value in settings.items())


def spark_defaults_file(environment: dict[str, str]) -> Path | None:
    """The ``spark-defaults.conf`` spark-submit loads when no ``--properties-file`` is given."""
    folder = environment.get("SPARK_CONF_DIR") or (
        str(Path(environment["SPARK_HOME"]) / "conf") if environment.get("SPARK_HOME") else None)
    if not folder:
        return None
    candidate = Path(folder) / "spark-defaults.conf"
    return candidate if candidate.is_file() else None


class ConnectionLookupError(AirflowException):
    """The Airflow connection that may override the entity's Spark master could not be looked up: whether it exists
    is unknown, so the job is not submitted (the task fails, and its retries ask again)."""


class FalconSparkSubmitHook(SparkSubmitHook):
    """:class:`SparkSubmitHook` whose master and deploy mode default to the entity's when no connection exists."""

    def __init__(self, *, default_master: str, default_deploy_mode: str | None = None, **kwargs: Any) -> None:
        refuse_identity_settings(kwargs)
        self._falcon_master = default_master
        self._falcon_deploy_mode = default_deploy_mode
        kwargs["env_vars"] = {**local_spark_environment(), **(kwargs.get("env_vars") or {})}
        kwargs["conf"] = {**SPARK_CONF_DEFAULTS, **(kwargs.get("conf") or {})}
        # s3a:// needs hadoop-aws, which pyspark does not carry: the cached jars go along unless the deployment
        # brings its own (see falcon_airflow.jvm).
        spark_home = kwargs["env_vars"].get("SPARK_HOME") or os.environ.get("SPARK_HOME")
        added = s3a_jars_for(kwargs["conf"], [str(item) for item in kwargs.get("application_args") or []],
                             jars=kwargs.get("jars"), packages=kwargs.get("packages"), spark_home=spark_home)
        if added:
            kwargs["jars"] = ",".join([*filter(None, [kwargs.get("jars")]), *(str(jar) for jar in added)])
        kwargs["py_files"] = ship_packages(kwargs.get("py_files"))  # the jobs and core package folders, as one zip
        # On a Kerberized Hadoop the service principal logs in and the job acts as its proxy user; the login is the
        # deployment's (Airflow's [kerberos] settings), never the task's, which refuse_identity_settings made sure of.
        self._falcon_kerberos = spark_kerberos(kwargs.get("proxy_user"), kwargs.get("application_args") or [])
        if self._falcon_kerberos is not None:
            kwargs["conf"] = {**kwargs["conf"], **self._falcon_kerberos.submit_conf()}
        self._falcon_properties_files: list[str] = []
        self._falcon_ticket_cache: Path | None = None
        super().__init__(**kwargs)

    # -- secrets off the command line -----------------------------------------------------------------------------

    def _build_spark_common_args(self) -> list[str]:
        return self._secrets_to_properties_file(super()._build_spark_common_args())

    def _secrets_to_properties_file(self, args: list[str]) -> list[str]:
        """``args`` with every secret ``--conf`` (a password, secret, token, credential or access/account key:
        cluster ``fs.s3a.secret.key``, ``fs.azure.account.key.*`` ...) moved into a properties file only this user
        can read (0600), passed with ``--properties-file``: a command line is visible to every user of the machine
        (``ps``) and goes to the task log. The file starts with what spark-submit would have loaded without it
        (the given ``--properties-file``, else ``spark-defaults.conf``) and is deleted when the submit ends."""
        secrets: dict[str, str] = {}
        kept: list[str] = []
        given: str | None = None
        index = 0
        while index < len(args):
            item = str(args[index])
            following = str(args[index + 1]) if index + 1 < len(args) else None
            if item == "--conf" and following is not None:
                key, separator, value = following.partition("=")
                if separator and is_secret_name(key):
                    secrets[key] = value
                    index += 2
                    continue
            if item == "--properties-file" and following is not None:
                given = following
                index += 2
                continue
            kept.append(item)
            index += 1
        if not secrets:
            return args
        environment = {**os.environ, **(self._env_vars or {})}
        base = Path(given) if given else spark_defaults_file(environment)
        text = base.read_text(encoding="utf-8") if base is not None else ""
        handle, name = tempfile.mkstemp(prefix="falcon-spark-", suffix=".properties")  # mode 0600
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text if not text or text.endswith("\n") else text + "\n")
            stream.write(properties_text(secrets))  # later lines win over the defaults' own
        self._falcon_properties_files.append(name)
        return [*kept, "--properties-file", name]

    def remove_properties_files(self) -> None:
        while self._falcon_properties_files:
            Path(self._falcon_properties_files.pop()).unlink(missing_ok=True)

    def submit(self, application: str = "", **kwargs: Any) -> str | None:
        try:
            return super().submit(application, **kwargs)
        finally:
            self.remove_properties_files()
            if self._falcon_ticket_cache is not None:
                remove_ticket_cache(self._falcon_ticket_cache)
                self._falcon_ticket_cache = None

    def _build_spark_submit_command(self, application: str) -> list[str]:
        command: list[str] = super()._build_spark_submit_command(application)
        kerberos = self._falcon_kerberos
        if kerberos is not None:
            # spark-submit's own environment only: on YARN the task's env_vars also go to the application master.
            if kerberos.proxy_user and self._falcon_ticket_cache is None:
                self._falcon_ticket_cache = obtain_ticket_cache(kerberos.login)
            self._env = {**(self._env or {}), **kerberos.submit_environment(self._falcon_ticket_cache)}
        return command

    def _connection_exists(self) -> bool:
        """Whether the connection named ``conn_id`` exists. Only Airflow's "not found" means it does not: Airflow
        answers it when none of the secrets backends it asks has the connection (outside a task too). Any other
        failure that reaches us - a backend's authoritative refusal, backends that cannot be loaded or reached -
        raises :class:`ConnectionLookupError`: the connection may exist, and the entity's master may then be the
        wrong cluster for this job."""
        try:
            self.get_connection(self._conn_id)
        except AirflowNotFoundException:
            return False
        except Exception as error:
            raise ConnectionLookupError(
                f"could not look up the Airflow connection {self._conn_id!r}, which would override the entity's "
                f"Spark master {self._falcon_master!r}: {type(error).__name__}: {error}") from error
        return True

    def _resolve_connection(self) -> dict[str, Any]:
        resolved = self._falcon_resolve_connection()
        if self._falcon_kerberos is not None:
            # The service login replaces any other: with a proxy user it is the ticket cache, for spark-submit
            # takes --principal or --proxy-user, not both.
            resolved["principal"], resolved["keytab"] = self._falcon_kerberos.principal_and_keytab
        return resolved

    def _falcon_resolve_connection(self) -> dict[str, Any]:
        if self._connection_exists():
            return super()._resolve_connection()
        return {  # the keys of SparkSubmitHook._resolve_connection (pinned by the tests)
            "master": self._falcon_master,
            "queue": self._yarn_queue,
            "deploy_mode": self._deploy_mode or self._falcon_deploy_mode,
            "spark_binary": self.spark_binary or default_spark_submit(),
            "namespace": None,
            "principal": self._principal,
            "keytab": self._keytab,
            "rest_scheme": "http",
            "rest_port": 6066,
            "rest_endpoint": None,
        }
