"""Fixtures shared by every test (where the repository and ../shared are, a folder of entity files) and the test
tiers, decided by path: everything under tests/integration is ``slow`` (real Airflow, Spark, databases, JVMs,
subprocesses), tests/unit and tests/golden are fast; ``make test-fast`` runs the fast ones."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

# Airflow reads its configuration when first imported: give every test process its own home, no examples.
# Under pytest-xdist every worker needs a home (and SQLite database) of its own: the workers inherit the
# controller's environment, so the home is a folder per worker below one temporary base folder.
if "AIRFLOW_HOME" not in os.environ or os.environ.get("FALCON_TEST_HOME_BASE"):
    if not os.environ.get("FALCON_TEST_HOME_BASE"):
        os.environ["FALCON_TEST_HOME_BASE"] = tempfile.mkdtemp(prefix="falcon-airflow-home-")
        atexit.register(shutil.rmtree, os.environ["FALCON_TEST_HOME_BASE"], ignore_errors=True)
    _home = Path(os.environ["FALCON_TEST_HOME_BASE"]) / os.environ.get("PYTEST_XDIST_WORKER", "main")
    _home.mkdir(exist_ok=True)
    os.environ["AIRFLOW_HOME"] = str(_home)
os.environ.setdefault("AIRFLOW__CORE__LOAD_EXAMPLES", "False")
os.environ.setdefault("AIRFLOW__CORE__DAGS_FOLDER", str(Path(__file__).resolve().parent.parent / "dags"))
os.environ.setdefault("AIRFLOW__CORE__UNIT_TEST_MODE", "False")
# Every Spark driver the tests start (spark-submit, and pyspark's own JVM) runs a few seconds on kilobytes: the
# JIT's second tier would spend more CPU compiling than it saves, on a 2-core machine running two test workers.
# SPARK_SUBMIT_OPTS reaches only the launcher's JVM, so no JVM prints a "Picked up ..." line.
os.environ.setdefault("SPARK_SUBMIT_OPTS", "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC")
# The same for the executors and YARN application masters of jobs on the sandbox's standalone master and YARN: a
# Spark configuration folder for the whole run, as a deployment's spark-defaults.conf would say it.
if "SPARK_CONF_DIR" not in os.environ and os.environ.get("FALCON_TEST_HOME_BASE"):
    _spark_conf = Path(os.environ["FALCON_TEST_HOME_BASE"]) / "spark-conf"
    _spark_conf.mkdir(exist_ok=True)
    _quick = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"
    (_spark_conf / "spark-defaults.conf").write_text(
        f"spark.executor.extraJavaOptions {_quick}\nspark.yarn.am.extraJavaOptions {_quick}\n", encoding="utf-8")
    os.environ["SPARK_CONF_DIR"] = str(_spark_conf)

REPOSITORY = Path(__file__).resolve().parent.parent
INTEGRATION = REPOSITORY / "tests" / "integration"
SHARED = REPOSITORY.parent / "shared"
EXAMPLE_ENTITIES = REPOSITORY / "entities"


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The tier of a test is its folder: every test under tests/integration is marked ``slow`` before ``-m``
    selects (so ``-m "not slow"`` leaves them out); a file there needs no ``pytest.mark.slow`` of its own. Other
    marks (``sandbox``, ``xdist_group``) are the files' own."""
    for item in items:
        if item.path.is_relative_to(INTEGRATION):
            item.add_marker(pytest.mark.slow)


@pytest.fixture(scope="session")
def shared() -> Path:
    """The material beside the project (Falcon's corpus, EL cases, OpenLineage schemas)."""
    if not SHARED.is_dir():
        pytest.skip("../shared is not beside the repository")
    return SHARED


WriteEntity = Callable[[str, str], Path]


@pytest.fixture
def write_entity(tmp_path: Path) -> WriteEntity:
    """Write entity XML (dedented) to ``tmp_path/<relative>`` and return the file's path."""

    def write(relative: str, xml: str) -> Path:
        path = tmp_path / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(xml).lstrip(), encoding="utf-8")
        return path

    return write
