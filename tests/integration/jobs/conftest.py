"""One SparkSession (``local[2]``) shared by every lifecycle-job test, and small helpers for real file trees.

The jobs run in-process through ``main(argv, spark=session)``; a few tests run them with the real ``spark-submit``.
All Spark tests carry ``xdist_group("spark-jobs")`` so that ``pytest -n 2 --dist loadgroup`` keeps them on one
worker, with one JVM.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.integration.spark_session import local_session

import falcon_airflow.jobs
from falcon_airflow.compiler.common import job_file, job_py_files
from falcon_airflow.provider.hooks.archives import ship_packages

JOBS = Path(falcon_airflow.jobs.__file__).resolve().parent
SPARK_SUBMIT = Path(sys.executable).parent / "spark-submit"
# Short-lived test JVMs start markedly faster on a busy 2-core machine with the C1 compiler only and serial GC.
QUICK_JVM = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"


@pytest.fixture(scope="session")
def spark(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """The session every job test uses: local[2], no UI, few shuffle partitions, an in-memory catalog."""
    session = local_session("falcon-airflow-job-tests", tmp_path_factory.mktemp("spark-warehouse"),
                            **{"spark.driver.extraJavaOptions": QUICK_JVM})
    yield session
    session.stop()


def write(path: Path, data: bytes | str = b"x") -> Path:
    """A file with ``data`` (parents created)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    return path


def snapshot(root: Path) -> dict[str, str]:
    """Every entry below ``root``: ``rel -> crc32`` for files, ``"dir"`` for folders, ``"link -> target"``."""
    entries: dict[str, str] = {}
    if not root.exists():
        return entries
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            path = Path(folder) / name
            rel = str(path.relative_to(root))
            if path.is_symlink():
                entries[rel] = f"link -> {os.readlink(path)}"
            elif path.is_dir():
                entries[rel] = "dir"
            else:
                entries[rel] = f"{zlib.crc32(path.read_bytes()):08x}"
    return entries


def empty_dirs(root: Path) -> list[str]:
    return sorted(str(Path(folder).relative_to(root)) for folder, dirs, files in os.walk(root)
                  if not dirs and not files and Path(folder) != root)


def submit_command(job: str, *args: str) -> list[str]:
    """``spark-submit`` of a job as the Airflow side runs it: its entry script and the compiler's ``--py-files`` (the
    jobs and core packages, shipped as one zip by the Spark hook's rule), local[2]."""
    return [str(SPARK_SUBMIT), "--master", "local[2]", "--conf", "spark.ui.enabled=false",
            "--conf", "spark.ui.showConsoleProgress=false", "--conf", f"spark.pyspark.python={sys.executable}",
            "--driver-memory", "1g", "--driver-java-options", QUICK_JVM,
            "--py-files", ship_packages(job_py_files()), job_file(f"{job}.py"), *args]


def submit_env() -> dict[str, str]:
    """The environment for spark-submit: the venv's Python for the driver and the workers."""
    return {**os.environ, "PYSPARK_PYTHON": sys.executable, "PYSPARK_DRIVER_PYTHON": sys.executable}


def run_killed_when(command: list[str], ready: Callable[[], bool], workdir: Path,
                    timeout: float = 180.0) -> tuple[bool, str]:
    """Start ``command`` in its own process group and SIGKILL the group as soon as ``ready()`` holds.

    Returns (killed mid-way, the process's output). ``killed`` is False when it ended before ``ready()``.
    """
    log = workdir / "submit.log"
    with log.open("wb") as output:
        process = subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT, cwd=workdir,
                                   start_new_session=True, env=submit_env())
        killed = False
        deadline = time.monotonic() + timeout
        try:
            while process.poll() is None and time.monotonic() < deadline:
                if ready():
                    os.killpg(process.pid, signal.SIGKILL)
                    killed = True
                    break
                time.sleep(0.002)
        finally:
            if process.poll() is None and not killed:
                os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=60)
    return killed, log.read_text(errors="replace")


class Kit:
    """The helpers above, for test modules (``--import-mode=importlib`` cannot import conftest)."""

    write = staticmethod(write)
    snapshot = staticmethod(snapshot)
    empty_dirs = staticmethod(empty_dirs)
    submit_command = staticmethod(submit_command)
    submit_env = staticmethod(submit_env)
    run_killed_when = staticmethod(run_killed_when)
    jobs = JOBS


@pytest.fixture(scope="session")
def kit() -> type[Kit]:
    return Kit
