"""Fixtures shared by every test: where the repository and ../shared are, and a folder of entity files."""

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

REPOSITORY = Path(__file__).resolve().parent.parent
SHARED = REPOSITORY.parent / "shared"
EXAMPLE_ENTITIES = REPOSITORY / "entities"


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
