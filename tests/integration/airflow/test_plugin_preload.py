"""Loading Airflow's plugins in a process of its own preloads the modules a task process needs (unless turned
off), so that processes forked after it (task processes of the LocalExecutor's workers) do not import them again."""

from __future__ import annotations

import json
import os
import subprocess
import sys

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


def test_loading_the_plugins_preloads_the_task_modules(tmp_path) -> None:
    assert _loaded_after_plugins(tmp_path) == dict.fromkeys(WATCHED, True)


def test_preloading_can_be_turned_off(tmp_path) -> None:
    loaded = _loaded_after_plugins(tmp_path, AIRFLOW__FALCON__PRELOAD_TASK_MODULES="False")
    assert loaded == dict.fromkeys(WATCHED, False)
