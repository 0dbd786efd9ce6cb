"""Real Airflow for integration tests: a migrated SQLite database in this test process's AIRFLOW_HOME, and
entity folders compiled through the same dags/ file Airflow reads."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

APPS = Path(__file__).resolve().parent / "apps"


@pytest.fixture(scope="session")
def airflow_db() -> None:
    airflow = Path(sys.executable).parent / "airflow"
    # reset, not migrate: an earlier test in this process may already have touched the database file
    result = subprocess.run([str(airflow), "db", "reset", "--yes"], capture_output=True, text=True, timeout=300,
                            env=os.environ.copy())
    assert result.returncode == 0, result.stderr[-3000:]


@pytest.fixture
def entities(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, airflow_db: None) -> Iterator[Callable[..., Path]]:
    """Write entity XML files into a fresh entities folder that the dags/ loader reads."""
    folder = tmp_path / "entities"
    (folder / "apps").mkdir(parents=True)
    for app in APPS.glob("*.py"):
        shutil.copy(app, folder / "apps" / app.name)
    monkeypatch.setenv("FALCON_ENTITIES_DIR", str(folder))

    def write(name: str, xml: str) -> Path:
        path = folder / name
        path.write_text(textwrap.dedent(xml).lstrip(), encoding="utf-8")
        return path

    yield write
