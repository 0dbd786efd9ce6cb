"""spark-submit of the import and export jobs as the DAG tasks run them (driver jar on both class paths)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from falcon_airflow.compiler.common import job_file, job_py_files
from falcon_airflow.core.databases.credentials import ROOTS_ENV
from falcon_airflow.core.databases.jars import driver_jar
from falcon_airflow.provider.hooks.archives import ship_packages
from falcon_airflow.provider.hooks.spark import SPARK_CONF_DEFAULTS

SPARK_SUBMIT = Path(sys.executable).parent / "spark-submit"


def command(job: str, driver: str, arguments: Sequence[str]) -> list[str]:
    jar = driver_jar(driver)
    # UTC in the JVM and the session: the checksums compare wall-clock timestamps with the database's
    argv = [str(SPARK_SUBMIT), "--master", "local[2]", "--conf", "spark.ui.enabled=false",
            "--conf", "spark.ui.showConsoleProgress=false", "--conf", "spark.sql.session.timeZone=UTC",
            "--conf", "spark.driver.extraJavaOptions=-Duser.timezone=UTC", "--driver-memory", "1g"]
    for key, value in SPARK_CONF_DEFAULTS.items():
        argv += ["--conf", f"{key}={value}"]
    if jar is not None:
        argv += ["--jars", str(jar), "--driver-class-path", str(jar)]
    argv += ["--py-files", ship_packages(job_py_files()) or "", job_file(job), *arguments]
    return argv


def environment(credentials: Path | None = None, credential_roots: Sequence[Path] = ()) -> dict[str, str]:
    """What the task gives the job: the private credentials file, and the folders a password file may lie in."""
    env = {**os.environ, "PYSPARK_PYTHON": sys.executable}
    if credentials is not None:
        env["FALCON_JDBC_CREDENTIALS"] = str(credentials)
    if credential_roots:
        env[ROOTS_ENV] = json.dumps([str(root) for root in credential_roots])
    return env


def start(job: str, driver: str, arguments: Sequence[str], *, log: Path,
          credentials: Path | None = None) -> subprocess.Popen[bytes]:
    """spark-submit in a session of its own (the test kills it); output to ``log``."""
    with log.open("wb") as handle:
        return subprocess.Popen(command(job, driver, arguments), stdout=handle, stderr=subprocess.STDOUT,
                                env=environment(credentials), start_new_session=True)


def submit(job: str, driver: str, arguments: Sequence[str], *, credentials: Path | None = None,
           credential_roots: Sequence[Path] = (), timeout: int = 900) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command(job, driver, arguments), capture_output=True, text=True, timeout=timeout,
                          env=environment(credentials, credential_roots), check=False)
