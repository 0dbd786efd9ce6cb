"""The late-data fingerprint on real files: bytes summed over glob matches, and a change when data arrives."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from falcon_airflow.jobs import fingerprint

pytestmark = pytest.mark.xdist_group("spark-jobs")


def measure(spark: Any, tmp_path: Path, *argv: str) -> dict[str, int]:
    report = tmp_path / "fingerprint.json"
    assert fingerprint.main([*argv, "--report", str(report)], spark=spark) == 0
    metrics: dict[str, int] = json.loads(report.read_text())["metrics"]
    return metrics


def test_bytes_are_summed_over_every_glob_match(spark: Any, tmp_path: Path, kit: Any) -> None:
    kit.write(tmp_path / "clicks" / "2015" / "01" / "01" / "00" / "part-0", b"x" * 100)
    kit.write(tmp_path / "clicks" / "2015" / "01" / "01" / "00" / "sub" / "part-1", b"x" * 20)
    kit.write(tmp_path / "clicks" / "2015" / "01" / "01" / "01" / "part-0", b"x" * 3)
    kit.write(tmp_path / "clicks" / "2015" / "01" / "02" / "00" / "part-0", b"x" * 1000)  # not in the range
    kit.write(tmp_path / "users" / "2015-01-01" / "u", b"y" * 7)

    metrics = measure(spark, tmp_path,
                      "--input", f"clicks=file://{tmp_path}/clicks/2015/01/01/{{00,01}},file://{tmp_path}/nope/*",
                      "--input", f"users=file://{tmp_path}/users/2015-01-0*/u",
                      "--input", f"missing=file://{tmp_path}/missing",
                      "--input", "ignored=null")

    assert metrics == {"clicks": 123, "users": 7, "missing": 0}


def test_metric_changes_when_a_file_arrives(spark: Any, tmp_path: Path, kit: Any) -> None:
    folder = tmp_path / "in" / "2015-01-01"
    kit.write(folder / "part-0", b"a" * 10)
    argv = ["--input", f"in=file://{tmp_path}/in/2015-01-01"]
    before = measure(spark, tmp_path, *argv)

    kit.write(folder / "part-1", b"late")

    after = measure(spark, tmp_path, *argv)
    assert before == {"in": 10} and after == {"in": 14}
    assert measure(spark, tmp_path, *argv) == after  # nothing new: the same fingerprint


def test_table_partition_create_time(spark: Any, tmp_path: Path) -> None:
    spark.sql("CREATE DATABASE IF NOT EXISTS late_db")
    spark.sql(f"CREATE TABLE late_db.clicks (v STRING, ds STRING) USING parquet PARTITIONED BY (ds) "
              f"LOCATION 'file://{tmp_path}/clicks'")
    spark.sql("ALTER TABLE late_db.clicks ADD PARTITION (ds='20150101')")

    metrics = measure(spark, tmp_path, "--table", "present=catalog:late_db:clicks#ds=20150101",
                      "--table", "absent=catalog:late_db:clicks#ds=20150102")

    assert metrics["absent"] == 0
    assert metrics["present"] > 1_700_000_000  # epoch seconds of the partition's creation


def test_spark_submit_runs_the_file_as_an_application(tmp_path: Path, kit: Any) -> None:
    kit.write(tmp_path / "in" / "a", b"12345")
    report = tmp_path / "report.json"
    completed = subprocess.run(
        kit.submit_command("fingerprint", "--input", f"in=file://{tmp_path}/in", "--report", str(report)),
        capture_output=True, text=True, timeout=300, cwd=tmp_path, check=False, env=kit.submit_env())
    assert completed.returncode == 0, completed.stderr[-3000:]
    summary = json.loads(completed.stdout.strip().splitlines()[-1])
    assert summary["metrics"] == {"in": 5}
    assert json.loads(report.read_text())["metrics"] == {"in": 5}


def test_a_hadoop_failure_is_one_clear_line(spark: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = tmp_path / "fingerprint.json"
    code = fingerprint.main(["--input", "in=nosuchfs://cluster/x", "--report", str(report)], spark=spark)
    assert code == 1
    error = json.loads(report.read_text())["error"]
    assert "nosuchfs" in error and "\n" not in error
    assert "Traceback" not in capsys.readouterr().err
