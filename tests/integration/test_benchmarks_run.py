"""The quick benchmarks still run: `make bench` is how figures are reproduced, so a benchmark broken by a change
(a cache format, a new rule the generated workspace breaks) fails here instead of in a release's measurements.
Figures are not checked: only that each benchmark finishes and measured what it says."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[2]


def run_benchmark(name: str, scale: str, **extra: str) -> str:
    environment = {**os.environ, "FALCON_BENCH_SCALE": scale, **extra}
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


def test_the_api_benchmarks_compare_falcon_s_calls_with_airflow_s(tmp_path: Path) -> None:
    # a work folder of its own: the set-up (1,000 entities, their DAGs, 100 runs) is built here, then reused; a scale
    # below make bench's 0.2, whose run takes close to three minutes on a busy 2-core machine
    work = {"FALCON_BENCH_WORK": str(tmp_path), "FALCON_BENCH_WRITE": "0"}
    listing = run_benchmark("api_entity_list", "0.1", **work)
    assert "entity -list of 1000 entities through the API: " in listing and "set-up (built in this run" in listing
    assert "GET /api/v2/dags of 1000 DAGs in one page" in listing and "one page of 100: " in listing
    status = run_benchmark("api_instance_status", "0.1", **work)
    assert "instance -status of process-1 over 100 instances through the API: " in status
    assert "GET .../dagRuns of 100 runs in one page" in status and "set-up (cached" in status
