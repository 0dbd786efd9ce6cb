"""The executor pod template of the Helm chart (tests/unit/helm/test_chart.py renders the rest) run for real: its
command starts the installed pyspark's Kubernetes executor backend."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from tests.unit.helm.test_chart import chart, one, render

__all__ = ["chart"]  # the fixture the test asks for


def test_executor_command_starts_sparks_executor_backend(chart: Any, tmp_path: Path) -> None:
    """The pod template's command, run here with the environment Spark gives executor pods: the backend of the
    installed pyspark starts, parses its arguments and tries the driver (nobody listens: it fails there)."""
    if shutil.which("java") is None:
        pytest.skip("no Java runtime")
    pod = yaml.safe_load(one(render(chart), "ConfigMap", "spark")["data"]["executor-pod-template.yaml"])
    command = pod["spec"]["containers"][0]["command"]
    environment = {
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}", "HOME": str(tmp_path),
        "SPARK_EXECUTOR_MEMORY": "256m", "SPARK_DRIVER_URL": "spark://CoarseGrainedScheduler@127.0.0.1:9",
        "SPARK_EXECUTOR_ID": "1", "SPARK_EXECUTOR_CORES": "1", "SPARK_APPLICATION_ID": "spark-test",
        "SPARK_EXECUTOR_POD_IP": "127.0.0.1", "SPARK_RESOURCE_PROFILE_ID": "0",
        "SPARK_EXECUTOR_POD_NAME": "test-exec-1", "SPARK_JAVA_OPT_0": "-Dspark.driver.port=9",
        "SPARK_LOCAL_IP": "127.0.0.1",
    }
    result = subprocess.run([*command, "executor"], env=environment, cwd=tmp_path, capture_output=True, text=True,
                            timeout=180, check=False)
    output = result.stdout + result.stderr
    assert result.returncode != 0
    assert "KubernetesExecutorBackend: Started daemon" in output, output[-3000:]
    assert "Failed to connect to /127.0.0.1:9" in output, output[-3000:]
