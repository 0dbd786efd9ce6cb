"""The plugin preloads the modules a task process needs, so that processes forked after it (task processes of the
LocalExecutor's workers) do not import them again; tests/integration/airflow/test_plugin_preload.py loads the
plugins in a real Airflow process."""

from __future__ import annotations

import importlib.util
from importlib.metadata import entry_points

from falcon_airflow.dags.preload import TASK_MODULES
from falcon_airflow.provider import preload


def test_the_provider_reads_the_dag_builders_list_through_its_entry_point() -> None:
    """The installed metadata (pyproject.toml's entry point; `make venv` reinstalls when it changes) hands the
    provider the list of dags/preload.py, and every name in it is a module."""
    assert [entry.value for entry in entry_points(group=preload.ENTRY_POINT_GROUP)] == [
        "falcon_airflow.dags.preload:TASK_MODULES"]
    assert preload.task_modules() == TASK_MODULES
    for name in TASK_MODULES:
        assert importlib.util.find_spec(name) is not None, name


def test_an_entry_point_that_fails_to_load_is_skipped(monkeypatch, caplog) -> None:
    class Broken:
        name, value = "broken", "nowhere:LIST"

        def load(self) -> object:
            raise ImportError("broken on purpose")

    class Listed:
        name, value = "listed", "somewhere:LIST"

        def load(self) -> object:
            return ["a.b", "a.c", "a.b"]

    monkeypatch.setattr(preload, "entry_points", lambda group: [Listed(), Broken()])
    assert preload.task_modules() == ("a.b", "a.c")
    assert "could not read the task modules of entry point nowhere:LIST" in caplog.text


def test_preload_runs_once_per_process(monkeypatch) -> None:
    imported: list[str] = []
    monkeypatch.setattr(preload, "_preloaded_in", None)
    monkeypatch.setattr(preload, "enabled", lambda: True)
    monkeypatch.setattr(preload, "task_modules", lambda: TASK_MODULES)
    monkeypatch.setattr(preload.importlib, "import_module", imported.append)
    assert preload.preload_task_modules() is True
    assert preload.preload_task_modules() is False
    assert imported == list(TASK_MODULES)


def test_a_module_that_fails_to_import_does_not_stop_the_others(monkeypatch, caplog) -> None:
    imported: list[str] = []

    def import_module(name: str) -> None:
        if name == TASK_MODULES[0]:
            raise ImportError("broken on purpose")
        imported.append(name)

    monkeypatch.setattr(preload, "_preloaded_in", None)
    monkeypatch.setattr(preload, "enabled", lambda: True)
    monkeypatch.setattr(preload, "task_modules", lambda: TASK_MODULES)
    monkeypatch.setattr(preload.importlib, "import_module", import_module)
    assert preload.preload_task_modules() is True
    assert imported == list(TASK_MODULES[1:])
    assert "could not preload falcon_airflow.dags.loader" in caplog.text
