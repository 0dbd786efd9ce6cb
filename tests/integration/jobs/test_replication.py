"""Replication on real files with a real Spark session: include filter, flag, multiple sources, reruns, faults."""

from __future__ import annotations

import json
import os
import zlib
from pathlib import Path
from typing import Any

import pytest

from falcon_airflow.jobs.replication import copier, replicator

pytestmark = pytest.mark.xdist_group("spark-jobs")

COMMON = ["--feed", "clicks", "--source-cluster", "east", "--target-cluster", "west",
          "--instance", "2015-01-01T00:00Z", "--max-maps", "2"]


def run(spark: Any, tmp_path: Path, *argv: str) -> tuple[int, dict[str, Any]]:
    report = tmp_path / "report.json"
    report.unlink(missing_ok=True)
    code = replicator.main([*COMMON, *argv, "--report", str(report)], spark=spark)
    return code, json.loads(report.read_text())


def files(root: Path) -> dict[str, str]:
    """rel -> crc32 of every file below root (folders left out)."""
    return {str(path.relative_to(root)): f"{zlib.crc32(path.read_bytes()):08x}"
            for path in sorted(root.rglob("*")) if path.is_file()}


def leftovers(folder: Path) -> list[str]:
    return sorted(name for name in os.listdir(folder) if ".falcon-" in name)


@pytest.fixture
def source(tmp_path: Path, kit: Any) -> Path:
    """A FilteredCopyListingTest-like instance folder, with an availability flag."""
    root = tmp_path / "east" / "clicks" / "2015-01-01"
    for rel in ("1/1", "1/3/4", "1/3/7", "1/3/40", "2/3/4", "2/3/5/a", "2/3/47", "3/2/4"):
        kit.write(root / rel, os.urandom(1000) + rel.encode())
    kit.write(root / "_SUCCESS", b"")
    kit.write(root / "1" / "_SUCCESS", b"")  # a flag file deeper down is not data either
    return root


def test_copy_publishes_a_verified_instance_then_the_flag(spark: Any, tmp_path: Path, source: Path) -> None:
    target = tmp_path / "west" / "clicks" / "2015-01-01"

    code, report = run(spark, tmp_path, "--source-path", f"file://{source}", "--target-path", f"file://{target}",
                       "--preserve-times")

    assert code == 0
    expected = {rel: crc for rel, crc in files(source).items() if not rel.endswith("_SUCCESS")}
    assert files(target) == {**expected, "_SUCCESS": "00000000"}
    assert (target / "_SUCCESS").stat().st_size == 0
    assert report["files"] == report["copied"] == 8 and report["skipped"] == 0
    assert report["bytes"] == sum((source / rel).stat().st_size for rel in expected)
    assert report["verified"] is True and report["published"] is True and report["tasks"] == 2
    assert {item["path"]: item["crc32"] for item in report["manifest"]} == expected
    source_mtime = (source / "1" / "3" / "4").stat().st_mtime
    assert (target / "1" / "3" / "4").stat().st_mtime == pytest.approx(source_mtime, abs=1)
    assert leftovers(target.parent) == [] and not list(target.rglob("*.crc"))


@pytest.mark.parametrize(("include", "expected"), [
    ("*/3/*", ["1/3/4", "1/3/7", "1/3/40", "2/3/4", "2/3/5/a", "2/3/47"]),
    ("*/3/[47]", ["1/3/4", "1/3/7", "2/3/4"]),
    ("*/3/{4,7}", ["1/3/4", "1/3/7", "2/3/4"]),
    ("1/*", ["1/1", "1/3/4", "1/3/7", "1/3/40", "1/_SUCCESS"]),  # _SUCCESS is data when the flag is _DONE
    ("1/3/40", ["1/3/40"]),  # a glob-free include naming one file
])
def test_include_pattern(spark: Any, tmp_path: Path, source: Path, include: str, expected: list[str]) -> None:
    target = tmp_path / "west" / "2015-01-01"

    code, report = run(spark, tmp_path, "--source-path", f"file://{source}", "--target-path", f"file://{target}",
                       "--include", include, "--availability-flag", "_DONE")

    assert code == 0
    assert sorted(files(target)) == sorted([*expected, "_DONE"])
    assert report["copied"] == len(expected)


def test_partitions_from_two_clusters_share_one_instance(spark: Any, tmp_path: Path, kit: Any) -> None:
    """Falcon's partitioned replication: each source cluster copies its own partition (``<colo>/*``) into the one
    target instance; only that partition folder is swapped, so neither run removes the other's files."""
    target = tmp_path / "tgt" / "2015"
    for colo in ("east", "west"):
        source = tmp_path / colo / "2015"
        kit.write(source / colo / "part-0", colo)
        kit.write(source / "other" / "part-0", "not this partition")
        code, report = run(spark, tmp_path, "--source-path", f"file://{source}", "--target-path", f"file://{target}",
                           "--include", f"{colo}/*", "--remove-deleted-files")
        assert code == 0 and report["published_folder"] == f"file://{target}/{colo}"
    assert sorted(files(target)) == ["_SUCCESS", "east/part-0", "west/part-0"]
    assert report["target"] == f"file://{target}" and report["availability_flag"] == f"file://{target}/_SUCCESS"


def test_multiple_sources_merge_into_one_target(spark: Any, tmp_path: Path, kit: Any) -> None:
    colo_a, colo_b = tmp_path / "src" / "a" / "2015", tmp_path / "src" / "b" / "2015"
    kit.write(colo_a / "a" / "part-0", "a0")
    kit.write(colo_a / "a" / "part-1", "a1")
    kit.write(colo_b / "b" / "part-0", "b0")
    target = tmp_path / "tgt" / "2015"

    code, report = run(spark, tmp_path, "--source-path", f"file://{colo_a}", "--source-path", f"file://{colo_b}",
                       "--target-path", f"file://{target}")

    assert code == 0
    assert sorted(files(target)) == ["_SUCCESS", "a/part-0", "a/part-1", "b/part-0"]
    assert report["sources"] == [f"file://{colo_a}", f"file://{colo_b}"]
    kit.write(colo_b / "a" / "part-0", "clash")
    code, report = run(spark, tmp_path, "--source-path", f"file://{colo_a}", "--source-path", f"file://{colo_b}",
                       "--target-path", f"file://{tmp_path / 'tgt2'}")
    assert code == 1 and "in more than one source" in report["error"]
    assert not (tmp_path / "tgt2").exists()


def test_reruns_are_idempotent_with_and_without_overwrite(spark: Any, tmp_path: Path, source: Path,
                                                         kit: Any) -> None:
    target = tmp_path / "west" / "2015-01-01"
    arguments = ["--source-path", f"file://{source}", "--target-path", f"file://{target}"]
    assert run(spark, tmp_path, *arguments)[0] == 0
    first = files(target)

    code, report = run(spark, tmp_path, *arguments)  # nothing changed: left as it is
    assert code == 0 and report["published"] is False and report["skipped"] == 8 and report["copied"] == 0
    assert files(target) == first

    code, report = run(spark, tmp_path, *arguments, "--overwrite")  # copied again, same bytes
    assert code == 0 and report["published"] is True and report["copied"] == 8
    assert files(target) == first

    kit.write(source / "1" / "3" / "7", "late data")  # a late change: only that file is copied
    kit.write(source / "9" / "new", "late file")
    code, report = run(spark, tmp_path, *arguments)
    assert code == 0 and report["copied"] == 2 and report["skipped"] == 7
    assert files(target) == {**{rel: crc for rel, crc in files(source).items() if not rel.endswith("_SUCCESS")},
                             "_SUCCESS": "00000000"}
    assert leftovers(target.parent) == []


def test_remove_deleted_files(spark: Any, tmp_path: Path, source: Path, kit: Any) -> None:
    target = tmp_path / "west" / "2015-01-01"
    arguments = ["--source-path", f"file://{source}", "--target-path", f"file://{target}"]
    assert run(spark, tmp_path, *arguments)[0] == 0
    (source / "3" / "2" / "4").unlink()
    kit.write(target / "local-only", "written at the target")

    code, report = run(spark, tmp_path, *arguments)
    assert code == 0 and report["published"] is False and report["kept_extra"] == 2
    assert (target / "3" / "2" / "4").exists() and (target / "local-only").exists()

    code, report = run(spark, tmp_path, *arguments, "--remove-deleted-files")
    assert code == 0 and report["published"] is True and report["removed"] == 2 and report["files"] == 7
    assert not (target / "3" / "2" / "4").exists() and not (target / "local-only").exists()
    assert (target / "_SUCCESS").exists()


def test_rerun_after_a_crash_cleans_up_and_restores(spark: Any, tmp_path: Path, source: Path, kit: Any) -> None:
    target = tmp_path / "west" / "2015-01-01"
    old = kit.write(target.parent / ".2015-01-01.falcon-old-abc" / "old-file", "old")  # crash between renames
    kit.write(target.parent / ".2015-01-01.falcon-staging-def" / "1" / "1", "half")

    code, report = run(spark, tmp_path, "--source-path", f"file://{source}", "--target-path", f"file://{target}")

    assert code == 0
    # siblings without a lease: runs of an earlier version, long over
    assert report["recovered"] == {"staging_removed": 1, "old_removed": 0, "old_restored": 1, "left_to_live_runs": 0}
    assert report["kept_extra"] == 1 and (target / "old-file").read_text() == "old"  # the put-back version's file
    assert leftovers(target.parent) == [] and not old.exists()


def test_missing_source_fails_without_publishing(spark: Any, tmp_path: Path) -> None:
    target = tmp_path / "west" / "x"
    code, report = run(spark, tmp_path, "--source-path", f"file://{tmp_path}/nope", "--target-path",
                       f"file://{target}")
    assert code == 1 and "does not exist" in report["error"]
    assert not target.exists()


def test_table_partition_is_copied_and_registered(spark: Any, tmp_path: Path, kit: Any) -> None:
    spark.sql("CREATE DATABASE IF NOT EXISTS east_db")
    spark.sql("CREATE DATABASE IF NOT EXISTS west_db")
    for database, root in (("east_db", tmp_path / "east"), ("west_db", tmp_path / "west")):
        spark.sql(f"CREATE TABLE {database}.clicks (v STRING, ds STRING, region STRING) USING parquet "
                  f"PARTITIONED BY (ds, region) LOCATION 'file://{root}/clicks'")
    partition = tmp_path / "east" / "clicks" / "ds=20150101" / "region=us"
    kit.write(partition / "part-00000.parquet", os.urandom(2000))
    spark.sql(f"ALTER TABLE east_db.clicks ADD PARTITION (ds='20150101', region='us') LOCATION 'file://{partition}'")

    code, report = run(spark, tmp_path, "--source-table", "catalog:east_db:clicks#ds=20150101;region=us",
                       "--target-table", "catalog:west_db:clicks#ds=20150101;region=us")

    assert code == 0
    copied = tmp_path / "west" / "clicks" / "ds=20150101" / "region=us"
    assert files(copied) == {**files(partition), "_SUCCESS": "00000000"}
    assert report["partition"] == "ds=20150101/region=us"
    assert [row[0] for row in spark.sql("SHOW PARTITIONS west_db.clicks").collect()] == ["ds=20150101/region=us"]
    rows = spark.sql("DESCRIBE FORMATTED west_db.clicks PARTITION (ds='20150101', region='us')").collect()
    assert any(row[0] == "Location" and row[1].endswith(str(copied)) for row in rows)


def test_a_missing_target_table_is_created_like_the_source(spark: Any, tmp_path: Path, kit: Any) -> None:
    spark.sql("CREATE DATABASE IF NOT EXISTS south_db")
    spark.sql(f"CREATE DATABASE IF NOT EXISTS north_db LOCATION 'file://{tmp_path}/north/north_db.db'")
    spark.sql(f"CREATE TABLE south_db.views (v STRING, n INT, ds STRING) USING parquet PARTITIONED BY (ds) "
              f"LOCATION 'file://{tmp_path}/south/views'")
    partition = tmp_path / "south" / "views" / "ds=20150101"
    spark.range(5).selectExpr("cast(id as string) as v", "cast(id as int) as n").write.parquet(str(partition))
    spark.sql(f"ALTER TABLE south_db.views ADD PARTITION (ds='20150101') LOCATION 'file://{partition}'")

    code, report = run(spark, tmp_path, "--source-table", "catalog:south_db:views#ds=20150101",
                       "--target-table", "catalog:north_db:views#ds=20150101", "--target-storage", "file:///")

    assert code == 0, report
    created = tmp_path / "north" / "north_db.db" / "views"
    assert report["created_table"] == f"file://{created}"
    assert spark.table("north_db.views").schema == spark.table("south_db.views").schema
    assert sorted(spark.table("north_db.views").collect()) == sorted(spark.table("south_db.views").collect())
    parts = {rel: crc for rel, crc in files(partition).items() if rel.startswith("part-")}
    assert parts and {rel: crc for rel, crc in files(created / "ds=20150101").items() if rel in parts} == parts
    # a second run finds the table: nothing created again, the copy already identical
    code, again = run(spark, tmp_path, "--source-table", "catalog:south_db:views#ds=20150101",
                      "--target-table", "catalog:north_db:views#ds=20150101", "--target-storage", "file:///")
    assert code == 0 and "created_table" not in again and again["published"] is False


def test_a_partition_is_never_replicated_onto_itself(spark: Any, tmp_path: Path, kit: Any) -> None:
    spark.sql("CREATE DATABASE IF NOT EXISTS self_db")
    spark.sql(f"CREATE TABLE self_db.t (v STRING, ds STRING) USING parquet PARTITIONED BY (ds) "
              f"LOCATION 'file://{tmp_path}/self/t'")
    partition = tmp_path / "self" / "t" / "ds=1"
    kit.write(partition / "part-0", b"keep me")
    spark.sql(f"ALTER TABLE self_db.t ADD PARTITION (ds='1') LOCATION 'file://{partition}'")

    code, report = run(spark, tmp_path, "--source-table", "catalog:self_db:t#ds=1", "--target-table",
                       "catalog:self_db:t#ds=1")

    assert code == 1 and "onto itself" in report["error"]
    assert (partition / "part-0").read_bytes() == b"keep me" and leftovers(partition.parent) == []


def test_private_executor_jvm(spark: Any, tmp_path: Path, source: Path) -> None:
    """The path a cluster executor takes: the task starts its own gateway JVM instead of using the driver's."""
    target = tmp_path / "west" / "launched"
    code, report = run(spark, tmp_path, "--source-path", f"file://{source}", "--target-path", f"file://{target}",
                       "--executor-jvm", "launch", "--max-maps", "1")
    assert code == 0 and report["verified"] is True
    assert sorted(files(target)) == sorted([*[rel for rel in files(source) if not rel.endswith("_SUCCESS")],
                                            "_SUCCESS"])


def test_killed_mid_copy_never_leaves_a_partial_instance(spark: Any, tmp_path: Path, kit: Any,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """spark-submit, SIGKILL while files stream into staging: the target is the old complete version; the next try
    of the task removes the killed try's staging and publishes the new one."""
    monkeypatch.setenv("AIRFLOW_CTX_DAG_ID", "falcon.feed.clicks.replication.east.west")
    monkeypatch.setenv("AIRFLOW_CTX_DAG_RUN_ID", "scheduled__2015-01-01T00:00:00+00:00")
    monkeypatch.setenv("AIRFLOW_CTX_TASK_ID", "replicate")
    monkeypatch.setenv("AIRFLOW_CTX_TRY_NUMBER", "1")
    source = tmp_path / "east" / "2015-01-01"
    for index in range(320):  # enough for a kill window of a good fraction of a second
        kit.write(source / f"part-{index % 4}" / f"file-{index:04d}", os.urandom(32 * 1024))
    target = tmp_path / "west" / "2015-01-01"
    for index in range(5):
        kit.write(target / f"old-{index}", f"old version {index}")
    kit.write(target / "_SUCCESS", b"")
    old = files(target)
    arguments = [*COMMON, "--source-path", f"file://{source}", "--target-path", f"file://{target}",
                 "--remove-deleted-files"]

    def copying() -> bool:
        staging = [name for name in os.listdir(target.parent) if ".falcon-staging-" in name]
        return bool(staging) and sum(1 for _ in (target.parent / staging[0]).rglob("file-*")) >= 8

    killed, output = kit.run_killed_when(kit.submit_command("replication", *arguments), copying, tmp_path)

    assert killed, output[-3000:]
    assert files(target) == old  # the complete old version, untouched
    assert any(".falcon-staging-" in name for name in os.listdir(target.parent))  # a half-filled staging folder
    monkeypatch.setenv("AIRFLOW_CTX_TRY_NUMBER", "2")  # the retry: the killed try is over
    code = replicator.main(arguments, spark=spark)
    assert code == 0
    assert files(target) == {**files(source), "_SUCCESS": "00000000"}
    assert leftovers(target.parent) == []


def test_awkward_names_empty_files_and_many_batches(spark: Any, tmp_path: Path, kit: Any) -> None:
    """Names with spaces, %, # and non-ASCII letters, empty files, and more files than one py4j call carries."""
    source = tmp_path / "east" / "2015-01-01"
    names = ["a b/c d", "p%20q", "hash#1", "ünï/çødé", "empty", "sub/empty"]
    for name in names:
        kit.write(source / name, b"" if name.endswith("empty") else name.encode() * 3)
    for index in range(3 * copier.BATCH_FILES):
        kit.write(source / "many" / f"f{index:04d}", os.urandom(index % 7))
    target = tmp_path / "west" / "2015-01-01"

    code, report = run(spark, tmp_path, "--source-path", f"file://{source}", "--target-path", f"file://{target}")

    assert code == 0, report
    assert files(target) == {**files(source), "_SUCCESS": "00000000"}
    assert report["copied"] == len(names) + 3 * copier.BATCH_FILES
    assert {item["path"]: item["crc32"] for item in report["manifest"]}["empty"] == "00000000"
    assert not [path for path in target.rglob(".*")]  # no temporary file left beside a copy


def test_a_name_too_long_for_a_temporary_file_is_created_in_place(spark: Any, tmp_path: Path, kit: Any) -> None:
    """On the local file system a copy is written under a temporary name and renamed; a name that leaves no room
    for the temporary prefix and suffix is created under its own name instead."""
    source = tmp_path / "east" / "2015-01-01"
    long_name = "n" * 250
    kit.write(source / long_name, "long")
    kit.write(source / "short", "short")
    target = tmp_path / "west" / "2015-01-01"

    code, report = run(spark, tmp_path, "--source-path", f"file://{source}", "--target-path", f"file://{target}")

    assert code == 0, report
    assert files(target) == {**files(source), "_SUCCESS": "00000000"}
    assert (target / long_name).stat().st_mode & 0o777 == (target / "short").stat().st_mode & 0o777


def test_preserve_permissions_and_times(spark: Any, tmp_path: Path, kit: Any) -> None:
    source = tmp_path / "east" / "2015-01-01"
    private = kit.write(source / "private", "p")
    shared = kit.write(source / "sub" / "shared", "s")
    private.chmod(0o600)
    shared.chmod(0o664)
    os.utime(private, (1_400_000_000, 1_400_000_000))
    target = tmp_path / "west" / "2015-01-01"

    code, _ = run(spark, tmp_path, "--source-path", f"file://{source}", "--target-path", f"file://{target}",
                  "--preserve-permissions", "--preserve-times")

    assert code == 0
    assert (target / "private").stat().st_mode & 0o777 == 0o600
    assert (target / "sub" / "shared").stat().st_mode & 0o777 == 0o664
    assert (target / "private").stat().st_mtime == pytest.approx(1_400_000_000, abs=1)


def patch_copier(monkeypatch: pytest.MonkeyPatch, old: str, new: str) -> None:
    """Run the job with ``old`` replaced by ``new`` in the copier's Java source (the text must occur)."""
    patched = copier._COPIER_SOURCE.replace(old, new)
    assert patched != copier._COPIER_SOURCE
    monkeypatch.setattr(copier, "_COPIER_SOURCE", patched)


@pytest.mark.parametrize("fault", [
    # the copy loop writes a different byte than it read (and checksummed): same length, other content
    ("out.write(bytes, 0, count);", "bytes[0] ^= 1; out.write(bytes, 0, count);"),
    # the copy loop drops a byte of each file
    ("out.write(bytes, 0, count);", "out.write(bytes, 0, copied == 0 && count > 1 ? count - 1 : count);"),
], ids=["corrupted", "truncated"])
def test_a_faulty_write_fails_verification_and_publishes_nothing(spark: Any, tmp_path: Path, source: Path,
                                                                 kit: Any, monkeypatch: pytest.MonkeyPatch,
                                                                 fault: tuple[str, str]) -> None:
    """The copy is read back from the target and checksummed on its own: a write path that corrupts or drops
    bytes is caught, and neither the new instance nor its flag appears; the previous version stays."""
    target = tmp_path / "west" / "2015-01-01"
    kit.write(target / "old", "previous version")
    before = files(target)
    patch_copier(monkeypatch, *fault)

    code, report = run(spark, tmp_path, "--source-path", f"file://{source}", "--target-path", f"file://{target}",
                       "--overwrite")

    assert code == 1
    assert "verification" in report["error"] and "crc" in report["error"]
    assert files(target) == before and leftovers(target.parent) == []


def test_batches_bound_files_and_bytes() -> None:
    items = [{"length": length} for length in (20 << 20, 1, 2, 3 << 20, 6 << 20, *[5] * 70)]
    batches = copier._batches(items)
    assert [len(batch) for batch in batches] == [1, 3, 64, 7]  # 20 MiB alone; 8 MiB; 64 files
    assert [item for batch in batches for item in batch] == items
    assert copier._batches([]) == []


@pytest.mark.parametrize("executor_jvm", ["driver", "launch"])
def test_tasks_write_with_the_drivers_hadoop_settings(spark: Any, tmp_path: Path, source: Path,
                                                      executor_jvm: str) -> None:
    """A setting made on the driver (here the umask new files get) reaches the copy tasks, whether they share the
    driver's JVM or start their own."""
    settings = spark.sparkContext._jsc.hadoopConfiguration()
    previous = settings.get("fs.permissions.umask-mode")
    settings.set("fs.permissions.umask-mode", "077")
    try:
        target = tmp_path / "west" / executor_jvm
        code, report = run(spark, tmp_path, "--source-path", f"file://{source}", "--target-path",
                           f"file://{target}", "--executor-jvm", executor_jvm, "--max-maps", "1")
    finally:
        if previous is None:
            settings.unset("fs.permissions.umask-mode")
        else:
            settings.set("fs.permissions.umask-mode", previous)
    assert code == 0, report
    modes = {path.stat().st_mode & 0o777 for path in target.rglob("*") if path.is_file() and path.name != "_SUCCESS"}
    assert modes == {0o600}


def test_the_columns_of_a_self_describing_copy_are_reported(spark: Any, tmp_path: Path) -> None:
    source = tmp_path / "east" / "counts" / "2015-01-01"
    spark.createDataFrame([("home", 3, 1.5)], "page string, clicks bigint, avg double") \
        .coalesce(1).write.parquet(f"file://{source}")
    target = tmp_path / "west" / "counts" / "2015-01-01"
    code, report = run(spark, tmp_path, "--source-path", f"file://{source}", "--target-path", f"file://{target}",
                       "--schema-format", "parquet")
    assert code == 0 and report["schema"] == [["page", "string"], ["clicks", "bigint"], ["avg", "double"]]
    # Files that are not what the format says: the copy is published all the same, without a schema.
    other = tmp_path / "west" / "text" / "2015-01-01"
    code, report = run(spark, tmp_path, "--source-path", f"file://{tmp_path / 'east' / 'counts'}",
                       "--target-path", f"file://{other}", "--schema-format", "orc")
    assert code == 0 and report["published"] is True and report["schema"] is None


def test_a_copier_that_cannot_be_made_fails_the_run_with_its_reason(spark: Any, tmp_path: Path, source: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    patch_copier(monkeypatch, "public String copy(", "public String copy(((")
    target = tmp_path / "west" / "2015-01-01"

    code, report = run(spark, tmp_path, "--source-path", f"file://{source}", "--target-path", f"file://{target}")

    assert code == 1
    assert "no copier in the task's JVM" in report["error"] and "CompileException" in report["error"]
    assert not target.exists() and leftovers(target.parent) == []


def test_a_file_nobody_asked_for_in_staging_fails_verification(spark: Any, tmp_path: Path, source: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """Every copy checks out, but the copy loop also leaves a stray file in the staging folder (a temporary file
    not renamed, say): the staging folder's own file count gives it away."""
    patch_copier(monkeypatch, "checksum(to, target, size, bytes, lines);",
                 "checksum(to, target, size, bytes, lines); to.create(new Path(target + \".stray\"), true).close();")
    target = tmp_path / "west" / "2015-01-01"

    code, report = run(spark, tmp_path, "--source-path", f"file://{source}", "--target-path", f"file://{target}")

    assert code == 1
    assert "verification" in report["error"] and "staging holds 16 files" in report["error"]
    assert not target.exists() and leftovers(target.parent) == []
