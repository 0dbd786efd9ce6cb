"""The mirroring job's hdfs subcommand on local folders (the sandbox tests run all three on HDFS and a metastore):
several sources each mirrored under the target by name, every file copied (a _SUCCESS too, no flag added), the
source's deletions followed, and what it refuses."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from falcon_airflow.jobs import mirroring

pytestmark = pytest.mark.xdist_group("spark-jobs")


def run(spark: Any, tmp_path: Path, *argv: str) -> tuple[int, dict[str, Any]]:
    report = tmp_path / "report.json"
    report.unlink(missing_ok=True)
    code = mirroring.main(["hdfs", "--job", "m1", "--source-cluster", "east", "--target-cluster", "west",
                           "--instance", "2026-03-01T05:00Z", "--max-maps", "2", *argv, "--report", str(report)],
                          spark=spark)
    return code, json.loads(report.read_text()) if report.exists() else {}


def tree(root: Path) -> dict[str, bytes]:
    return {str(path.relative_to(root)): path.read_bytes() for path in sorted(root.rglob("*")) if path.is_file()}


def test_two_sources_mirrored_by_name_and_deletions_followed(spark: Any, tmp_path: Path) -> None:
    sales, returns, target = tmp_path / "src" / "sales", tmp_path / "src" / "returns", tmp_path / "dst" / "mirror"
    for folder, files in ((sales, {"2026/01.csv": b"1\n", "_SUCCESS": b""}), (returns, {"r.csv": b"r\n"})):
        for name, content in files.items():
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            (folder / name).write_bytes(content)
    arguments = ("--source-dir", f"file://{sales}", "--source-dir", f"file://{returns}",
                 "--target-dir", f"file://{target}")
    code, report = run(spark, tmp_path, *arguments)
    assert code == 0, report
    assert tree(target / "sales") == tree(sales) and tree(target / "returns") == tree(returns)
    assert (report["files"], report["copied"], report["targets"]) == (3, 3, [f"file://{target}/sales",
                                                                           f"file://{target}/returns"])
    (sales / "2026" / "01.csv").unlink()
    (sales / "2026" / "02.csv").write_bytes(b"2\n")
    code, report = run(spark, tmp_path, *arguments)
    assert code == 0 and tree(target / "sales") == tree(sales) and report["removed"] == 1
    assert not [path for path in (tmp_path / "dst").rglob("*") if "falcon-staging" in path.name]


def test_what_it_refuses(spark: Any, tmp_path: Path) -> None:
    (tmp_path / "a" / "x").mkdir(parents=True)
    (tmp_path / "b" / "x").mkdir(parents=True)
    code, _ = run(spark, tmp_path, "--source-dir", f"file://{tmp_path}/a/x", "--source-dir", f"file://{tmp_path}/b/x",
                  "--target-dir", f"file://{tmp_path}/t")
    assert code == 2  # two sources named x would collide under the target
    code, _ = run(spark, tmp_path, "--source-dir", f"file://{tmp_path}/a", "--target-dir", f"file://{tmp_path}/a/in")
    assert code == 2  # the mirror inside its source


def test_map_bandwidth_paces_each_copy_task(spark: Any, tmp_path: Path) -> None:
    import time

    source = tmp_path / "big"
    source.mkdir()
    (source / "blob").write_bytes(bytes(range(256)) * (3 << 12))  # 3 MiB
    started = time.monotonic()
    code, report = run(spark, tmp_path, "--source-dir", f"file://{source}", "--target-dir", f"file://{tmp_path}/t",
                       "--map-bandwidth", "1")
    # one task writing 3 MiB at 1 MiB/s cannot be done in less than about 3 s (a lower bound: never too fast)
    assert code == 0 and report["copied_bytes"] == 3 << 20 and time.monotonic() - started >= 2.5
    assert (tmp_path / "t" / "blob").read_bytes() == (source / "blob").read_bytes()
