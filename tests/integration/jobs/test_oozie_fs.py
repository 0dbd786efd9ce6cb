"""The Oozie fs action job on a real local file system through Hadoop's FileSystem API (shared local[2] session)."""

from __future__ import annotations

import json
import stat
from pathlib import Path
from typing import Any

import pytest
from tests.integration.jobs.conftest import write

from falcon_airflow.jobs import oozie_fs

pytestmark = pytest.mark.xdist_group("spark-jobs")


def run(spark: Any, tmp_path: Path, *operations: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    report = tmp_path / "report.json"
    code = oozie_fs.main(["--operations", json.dumps(list(operations)), "--report", str(report)], spark=spark)
    return code, json.loads(report.read_text())


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_every_command_in_order(spark: Any, tmp_path: Path) -> None:
    root = tmp_path / "tree"
    write(root / "old" / "part-0", "gone")
    write(root / "src" / "a.txt", "a")
    write(root / "perm" / "f1", "1")
    write(root / "perm" / "sub" / "f2", "2")
    uri = f"file://{root}"
    code, report = run(
        spark, tmp_path,
        {"op": "delete", "path": f"{uri}/old"},
        {"op": "delete", "path": f"{uri}/never-was"},
        {"op": "mkdir", "path": f"{uri}/new/deep"},
        {"op": "mkdir", "path": f"{uri}/new/deep"},
        {"op": "move", "path": f"{uri}/src/a.txt", "target": f"{root}/new/deep/b.txt"},
        {"op": "touchz", "path": f"{uri}/new/_SUCCESS"},
        {"op": "touchz", "path": f"{uri}/new/_SUCCESS"},
        {"op": "chmod", "path": f"{uri}/perm", "permissions": "750", "dir_files": True},
        {"op": "chmod", "path": f"{uri}/perm/sub", "permissions": "-rwx------", "recursive": True},
    )
    assert code == 0, report
    assert not (root / "old").exists()
    assert (root / "new" / "deep" / "b.txt").read_text() == "a" and not (root / "src" / "a.txt").exists()
    assert (root / "new" / "_SUCCESS").stat().st_size == 0
    assert mode(root / "perm") == 0o750 and mode(root / "perm" / "f1") == 0o750
    assert mode(root / "perm" / "sub") == 0o700 and mode(root / "perm" / "sub" / "f2") == 0o700
    assert report["commands"] == 9


def test_first_failure_stops_the_action_and_says_why(spark: Any, tmp_path: Path) -> None:
    root = tmp_path / "tree"
    write(root / "full", "not empty")
    uri = f"file://{root}"
    code, report = run(spark, tmp_path,
                       {"op": "mkdir", "path": f"{uri}/made"},
                       {"op": "touchz", "path": f"{uri}/full"},
                       {"op": "mkdir", "path": f"{uri}/never"})
    assert code == 1
    assert "touchz" in report["error"] and "not a zero-length file" in report["error"]
    assert "after 1 of 3" in report["error"]
    assert (root / "made").is_dir() and not (root / "never").exists()

    code, report = run(spark, tmp_path, {"op": "move", "path": f"{uri}/missing", "target": f"{uri}/x"})
    assert code == 1 and "does not exist" in report["error"]


def test_bad_commands_are_refused_before_anything_runs(tmp_path: Path) -> None:
    assert oozie_fs.main(["--operations", json.dumps([{"op": "chmod", "path": "/x", "permissions": "rwz"}])]) == 2
    assert oozie_fs.main(["--operations", json.dumps([{"op": "rmr", "path": "/x"}])]) == 2
    assert oozie_fs.permission_bits("rwxr-x--x") == 0o751 and oozie_fs.permission_bits("1777") == 0o1777
