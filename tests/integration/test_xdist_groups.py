"""`make test` runs `pytest -n 2 --dist loadgroup` and relies on `xdist_group` marks to keep the sandbox, Spark and
Airflow tests on one worker each (one sandbox, one Spark JVM). A pytest or pytest-xdist upgrade can make xdist
ignore the marks without failing anything; this test notices."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

GROUPED = """
import os
import pytest

pytestmark = pytest.mark.xdist_group("together")


@pytest.mark.parametrize("index", range(4))
def test_grouped(index):
    with open(os.environ["WORKERS_FILE"], "a") as out:
        out.write(os.environ["PYTEST_XDIST_WORKER"] + "\\n")
"""


def test_loadgroup_keeps_a_group_on_one_worker(tmp_path: Path) -> None:
    for name in ("test_first.py", "test_second.py"):
        (tmp_path / name).write_text(GROUPED)
    workers = tmp_path / "workers.txt"
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "2",
                           "--dist", "loadgroup", "--rootdir", str(tmp_path), str(tmp_path)],
                          env={**os.environ, "WORKERS_FILE": str(workers)}, cwd=tmp_path, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    seen = workers.read_text().split()
    assert len(seen) == 8
    assert len(set(seen)) == 1, f"the grouped tests ran on {sorted(set(seen))}: xdist ignores xdist_group"
