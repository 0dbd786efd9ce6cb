"""The plugin preloads the modules a task process needs, so that processes forked after it (task processes of the
LocalExecutor's workers) do not import them again."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from falcon_airflow.provider import preload

PROBE = """
import json, sys
from airflow import plugins_manager
plugins_manager.ensure_plugins_loaded()
print(json.dumps({name: name in sys.modules for name in sys.argv[1:]}))
"""

WATCHED = ["falcon_airflow.dags.builder", "falcon_airflow.provider.operators.spark",
           "airflow.providers.apache.spark.operators.spark_submit"]


def _loaded_after_plugins(tmp_path, **environment: str) -> dict[str, bool]:
    env = {**os.environ, "AIRFLOW_HOME": str(tmp_path), "AIRFLOW__CORE__LOAD_EXAMPLES": "False", **environment}
    done = subprocess.run([sys.executable, "-c", PROBE, *WATCHED], env=env, capture_output=True, text=True,
                          timeout=120, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_loading_the_plugins_preloads_the_task_modules(tmp_path) -> None:
    assert _loaded_after_plugins(tmp_path) == dict.fromkeys(WATCHED, True)


@pytest.mark.slow
def test_preloading_can_be_turned_off(tmp_path) -> None:
    loaded = _loaded_after_plugins(tmp_path, AIRFLOW__FALCON__PRELOAD_TASK_MODULES="False")
    assert loaded == dict.fromkeys(WATCHED, False)


def test_preload_runs_once_per_process(monkeypatch) -> None:
    imported: list[str] = []
    monkeypatch.setattr(preload, "_preloaded_in", None)
    monkeypatch.setattr(preload, "enabled", lambda: True)
    monkeypatch.setattr(preload.importlib, "import_module", imported.append)
    assert preload.preload_task_modules() is True
    assert preload.preload_task_modules() is False
    assert imported == list(preload.TASK_MODULES)


def test_a_module_that_fails_to_import_does_not_stop_the_others(monkeypatch, caplog) -> None:
    imported: list[str] = []

    def import_module(name: str) -> None:
        if name == preload.TASK_MODULES[0]:
            raise ImportError("broken on purpose")
        imported.append(name)

    monkeypatch.setattr(preload, "_preloaded_in", None)
    monkeypatch.setattr(preload, "enabled", lambda: True)
    monkeypatch.setattr(preload.importlib, "import_module", import_module)
    assert preload.preload_task_modules() is True
    assert imported == list(preload.TASK_MODULES[1:])
    assert "could not preload falcon_airflow.dags.loader" in caplog.text
