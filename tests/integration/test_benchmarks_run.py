"""The quick benchmarks still run: `make bench` is how figures are reproduced, so a benchmark broken by a change
(a cache format, a new rule the generated workspace breaks) fails here instead of in a release's measurements.
Figures are not checked: only that each benchmark finishes and measured what it says."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.slow]

REPOSITORY = Path(__file__).resolve().parents[2]


def run_benchmark(name: str, scale: str) -> str:
    environment = {**os.environ, "FALCON_BENCH_SCALE": scale}
    environment.pop("AIRFLOW_HOME", None)  # each benchmark makes its own
    result = subprocess.run([sys.executable, "-m", "benchmarks", name], cwd=REPOSITORY, env=environment,
                            capture_output=True, text=True, timeout=900, check=False)
    assert result.returncode == 0, (result.stdout + result.stderr)[-4000:]
    return result.stdout


def test_validate_workspace_generates_a_valid_workspace() -> None:
    assert "workspace valid: yes (0 issue(s))" in run_benchmark("validate_workspace", "1")


def test_loader_parse_compares_the_loader_with_plain_dag_files() -> None:
    output = run_benchmark("loader_parse", "0.01")
    assert "loader: 10 processes + 10 feeds -> 20 DAGs" in output and "warm / plain = " in output
