"""Staging that belongs to one run, on real files with a real Spark session: a replication removes only what runs
that are over left beside the instance (never a live run's staging folder or the version it set aside), and its
publish never nests its staging folder into a target that appeared meanwhile, nor writes the flag then."""

from __future__ import annotations

import json
import os
import time
import uuid
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from falcon_airflow.jobs.filesystem import HadoopFs
from falcon_airflow.jobs.replication import replicator
from falcon_airflow.jobs.staging import RunOwner, sibling_name

pytestmark = pytest.mark.xdist_group("spark-jobs")

INSTANCE = "2015-01-01"
TASK = ("falcon.feed.clicks.replication.east.west", "scheduled__2015-01-01T00:00:00+00:00", "replicate")


def run(spark: Any, tmp_path: Path, source: Path, target: Path) -> tuple[int, dict[str, Any]]:
    report = tmp_path / "report.json"
    report.unlink(missing_ok=True)
    code = replicator.main(["--feed", "clicks", "--source-cluster", "east", "--target-cluster", "west",
                            "--instance", "2015-01-01T00:00Z", "--max-maps", "2", "--source-path",
                            f"file://{source}", "--target-path", f"file://{target}", "--report", str(report)],
                           spark=spark)
    return code, json.loads(report.read_text())


def files(root: Path) -> dict[str, str]:
    return {str(path.relative_to(root)): f"{zlib.crc32(path.read_bytes()):08x}"
            for path in sorted(root.rglob("*")) if path.is_file()}


@pytest.fixture
def source(tmp_path: Path, kit: Any) -> Path:
    root = tmp_path / "east" / INSTANCE
    for rel in ("1/a", "1/b", "2/c"):
        kit.write(root / rel, os.urandom(500) + rel.encode())
    return root


@pytest.fixture
def as_task(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """This run is try 2 of the replication task instance (the variables Airflow sets for a task's processes)."""
    for variable, value in zip(("AIRFLOW_CTX_DAG_ID", "AIRFLOW_CTX_DAG_RUN_ID", "AIRFLOW_CTX_TASK_ID"), TASK,
                               strict=True):
        monkeypatch.setenv(variable, value)
    monkeypatch.setenv("AIRFLOW_CTX_TRY_NUMBER", "2")
    yield


def other_run(kit: Any, parent: Path, *, kinds: tuple[str, ...] = ("staging",), lease_age: float | None = 0.0,
              lease_seconds: float = 600.0, task: tuple[str, str, str] | None = None,
              try_number: int | None = None) -> dict[str, Path]:
    """What another run leaves beside the instance: its folders (a file in each) and its lease, last written
    ``lease_age`` seconds ago (``None``: no lease, a run of an earlier version)."""
    token = uuid.uuid4().hex
    made = {}
    for kind in kinds:
        folder = parent / sibling_name(INSTANCE, kind, token)
        kit.write(folder / "part-0", f"{kind} of another run")
        made[kind] = folder
    if lease_age is not None:
        owner = RunOwner(token, lease_seconds, "/".join(task) if task else None, try_number, "elsewhere", 1)
        lease = parent / sibling_name(INSTANCE, "lease", token)
        lease.write_text(owner.to_text())
        when = time.time() - lease_age
        os.utime(lease, (when, when))
        made["lease"] = lease
    return made


LIVE = "left alone"
OVER = "removed"


@pytest.mark.parametrize(("kwargs", "expected"), [
    ({"lease_age": 0.0}, LIVE),  # a concurrent run renewing its lease
    ({"lease_age": 300.0}, LIVE),  # within its lease
    ({"lease_age": 700.0}, OVER),  # not renewed for longer than its lease: the run died
    ({"lease_age": 700.0, "lease_seconds": 3600.0}, LIVE),  # the run's own, longer lease counts
    ({"lease_age": None}, OVER),  # no lease: a run of an earlier version, long over
    ({"lease_age": 0.0, "task": TASK, "try_number": 1}, OVER),  # an earlier try of this very task instance
    ({"lease_age": 0.0, "task": TASK, "try_number": 3}, LIVE),  # a later try is not ours to judge
    ({"lease_age": 0.0, "task": ("other-dag", TASK[1], TASK[2]), "try_number": 1}, LIVE),  # another task's run
])
def test_a_rerun_removes_only_the_staging_of_runs_that_are_over(spark: Any, tmp_path: Path, source: Path, kit: Any,
                                                                 as_task: None, kwargs: dict[str, Any],
                                                                 expected: str) -> None:
    target = tmp_path / "west" / INSTANCE
    theirs = other_run(kit, target.parent, **kwargs)

    code, report = run(spark, tmp_path, source, target)

    assert code == 0, report
    assert files(target) == {**files(source), "_SUCCESS": "00000000"}
    assert {kind: path.exists() for kind, path in theirs.items()} == {kind: expected == LIVE for kind in theirs}
    if expected == LIVE:
        assert (theirs["staging"] / "part-0").read_text() == "staging of another run"
    assert report["recovered"]["staging_removed"] == (1 if expected == OVER else 0)
    # this run's own siblings are gone
    assert sorted(name for name in os.listdir(target.parent) if ".falcon-" in name) == sorted(
        path.name for path in theirs.values() if path.exists())


@pytest.mark.parametrize(("lease_age", "restored"), [(0.0, False), (700.0, True), (None, True)])
def test_the_version_a_live_run_set_aside_is_never_put_back(spark: Any, tmp_path: Path, source: Path, kit: Any,
                                                            lease_age: float | None, restored: bool) -> None:
    """Another run moved the instance aside and is about to rename its staging folder in: the instance is missing
    for that moment, and only a run that is over has its set-aside version put back."""
    target = tmp_path / "west" / INSTANCE
    theirs = other_run(kit, target.parent, kinds=("old",), lease_age=lease_age)

    code, report = run(spark, tmp_path, source, target)

    assert code == 0, report
    assert report["recovered"]["old_restored"] == int(restored)
    assert theirs["old"].exists() is not restored
    expected = {**files(source), "_SUCCESS": "00000000"}
    if restored:  # the put-back version's file is kept beside the copied ones, as for any target
        expected["part-0"] = f"{zlib.crc32(b'old of another run'):08x}"
    assert files(target) == expected


@pytest.mark.parametrize("appeared", ["a complete instance", "an empty folder", "a folder being filled"])
def test_a_target_that_appears_before_the_rename_is_never_nested_into_nor_flagged(
        spark: Any, tmp_path: Path, source: Path, kit: Any, monkeypatch: pytest.MonkeyPatch, appeared: str) -> None:
    target = tmp_path / "west" / INSTANCE
    armed: list[bool] = []
    real_verify, real_exists = replicator.Replicator.verify, HadoopFs.exists

    def verify(self: Any, *args: Any) -> None:
        real_verify(self, *args)
        armed.append(True)  # verified: the next look at the target is publish's

    def exists(self: Any, uri: str) -> bool:
        found = real_exists(self, uri)
        if armed and not found and uri.rstrip("/").endswith(f"west/{INSTANCE}"):
            armed.clear()  # another run publishes the instance right after this look
            target.mkdir(parents=True)
            if appeared == "a complete instance":
                kit.write(target / "part-9", "theirs")
                kit.write(target / "_SUCCESS", b"")
            elif appeared == "a folder being filled":
                kit.write(target / "part-9", "theirs")
        return bool(found)

    monkeypatch.setattr(replicator.Replicator, "verify", verify)
    monkeypatch.setattr(HadoopFs, "exists", exists)

    code, report = run(spark, tmp_path, source, target)

    before = {"a complete instance": {"part-9": f"{zlib.crc32(b'theirs'):08x}", "_SUCCESS": "00000000"},
              "an empty folder": {}, "a folder being filled": {"part-9": f"{zlib.crc32(b'theirs'):08x}"}}[appeared]
    assert code == 1 and "appeared while this run was publishing it" in report["error"]
    assert files(target) == before  # nothing nested, no flag written, the other run's files untouched
    assert [name for name in os.listdir(target.parent) if ".falcon-" in name] == []
