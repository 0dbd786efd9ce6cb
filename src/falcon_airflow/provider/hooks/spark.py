"""spark-submit for a Falcon cluster: the master comes from the entities unless a connection says otherwise.

Falcon took the Spark master from the process (``spark-attributes/master``) or the cluster's ``spark`` interface.
We keep that, and let an Airflow connection named after the cluster override it - the usual Airflow way to point
a pipeline at another cluster without editing its definitions.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from typing import Any

from airflow.providers.apache.spark.hooks.spark_submit import SparkSubmitHook
from airflow.sdk.exceptions import AirflowNotFoundException

from falcon_airflow.jvm import s3a_jars_for
from falcon_airflow.provider.hooks.archives import ship_packages


def default_spark_submit() -> str:
    """``spark-submit`` beside this Python (the pyspark wheel's, in the same virtualenv), else the one on PATH."""
    beside = Path(sys.executable).parent / "spark-submit"
    if beside.exists():
        return str(beside)
    return shutil.which("spark-submit") or "spark-submit"


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


class FalconSparkSubmitHook(SparkSubmitHook):
    """:class:`SparkSubmitHook` whose master and deploy mode default to the entity's when no connection exists."""

    def __init__(self, *, default_master: str, default_deploy_mode: str | None = None, **kwargs: Any) -> None:
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
        kwargs["py_files"] = ship_packages(kwargs.get("py_files"))  # the core package folder, as a zip
        super().__init__(**kwargs)

    def _connection_exists(self) -> bool:
        try:
            self.get_connection(self._conn_id)
        except AirflowNotFoundException:
            return False
        except Exception:  # no metadata database or API server to ask (a bare spark-submit): use the entity's
            return False
        return True

    def _resolve_connection(self) -> dict[str, Any]:
        if self._connection_exists():
            return super()._resolve_connection()
        return {
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
