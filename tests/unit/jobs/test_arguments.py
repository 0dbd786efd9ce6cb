"""The jobs' command lines: bad arguments exit 2 with a one-line reason, before any Spark session starts."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from falcon_airflow.compiler.common import CORE_FOLDER, JOBS_FOLDER, job_file, job_py_files
from falcon_airflow.core.times import format_instant, parse_instant, parse_zone
from falcon_airflow.jobs import fingerprint, retention
from falcon_airflow.jobs.replication import listing, replicator
from falcon_airflow.provider.hooks.archives import package_archive, ship_packages

RETENTION = ["--feed", "clicks", "--cluster", "primary", "--frequency", "hours(1)", "--limit", "days(10)"]
REPLICATION = ["--feed", "clicks", "--source-cluster", "a", "--target-cluster", "b", "--instance", "2015-01-01T00:00Z"]


@pytest.mark.parametrize(("argv", "message"), [
    (["--cluster", "c", "--limit", "days(1)", "--location", "data=/d/${YEAR}"], "--feed"),
    (RETENTION, "either --location"),
    ([*RETENTION, "--location", "data=/d/${YEAR}", "--table", "catalog:db:t#ds=${YEAR}"], "either --location"),
    ([*RETENTION, "--location", "raw=/d/${YEAR}"], "TYPE one of data, stats, meta, tmp"),
    ([*RETENTION, "--location", "/d/${YEAR}"], "TYPE=TEMPLATE"),
    ([*RETENTION, "--location", "data=/d/${YEAR}", "--location", "DATA=/e/${YEAR}"], "given twice"),
    ([*RETENTION, "--location", "data=file:///d/../etc/${YEAR}"], "'..'"),
    ([*RETENTION, "--location", "data=relative/${YEAR}"], "not an absolute path"),
    ([*RETENTION, "--location", "data=/d/${YEAR}/${WEEK}"], "not a path variable"),
    ([*RETENTION[:-1], "weeks(2)", "--location", "data=/d/${YEAR}"], "not a duration"),
    ([*RETENTION, "--location", "data=/d/${YEAR}", "--timezone", "Nowhere/Land"], "unknown time zone"),
    ([*RETENTION, "--location", "data=/d/${YEAR}", "--now", "2015-01-01"], "yyyy-MM-ddTHH:mmZ"),
    ([*RETENTION, "--location", "data=/d/${YEAR}", "--action", "archive"], "--archive-root"),
    ([*RETENTION, "--location", "data=/d/${YEAR}", "--action", "archive", "--archive-root", "/d/old"],
     "inside the data location's base folder"),
    ([*RETENTION, "--location", "data=hdfs://nn/d/${YEAR}", "--action", "archive", "--archive-root",
      "file:///archive"], "not on the file system"),
    ([*RETENTION, "--location", "data=/d/${YEAR}", "--archive-root", "/archive"], "only for --action archive"),
    ([*RETENTION, "--location", "data=/d/${YEAR}", "--action", "purge"], "invalid choice"),
    ([*RETENTION, "--table", "catalog:db:t#region=us"], "no partition value has a date variable"),
    ([*RETENTION, "--table", "db:t#ds=${YEAR}"], "catalog scheme is missing"),
    # the feed's instance grid: which instances a folder holds decides when it may go
    (["--feed", "f", "--cluster", "c", "--limit", "days(1)", "--location", "data=/d/${YEAR}"], "--frequency"),
    ([*RETENTION, "--location", "data=/d/${YEAR}", "--frequency", "weeks(1)"], "not a duration"),
    ([*RETENTION, "--location", "data=/d/${YEAR}", "--frequency", "hours(0)"], "at least 1"),
    ([*RETENTION, "--location", "data=/d/${YEAR}", "--start", "2026-01-01"], "yyyy-MM-ddTHH:mmZ"),
    ([*RETENTION, "--location", "data=/d/${YEAR}", "--start", "2026-02-30T00:00Z"], "not a valid instant"),
])
def test_retention_rejects(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert retention.main(argv) == 2
    captured = capsys.readouterr()
    assert message in captured.err
    assert "Traceback" not in captured.err
    assert captured.out == ""


@pytest.mark.parametrize(("argv", "message"), [
    (REPLICATION, "--source-path"),
    ([*REPLICATION, "--source-path", "/s"], "--target-path is required"),
    ([*REPLICATION, "--source-path", "/s", "--target-path", "/"], "root"),
    ([*REPLICATION, "--source-path", "/s", "--target-path", "/s/t"], "overlap"),
    ([*REPLICATION, "--source-path", "/s/t", "--target-path", "/s"], "overlap"),
    ([*REPLICATION, "--source-path", "/s", "--target-path", "/t", "--include", "/abs/*"], "relative"),
    ([*REPLICATION, "--source-path", "/s", "--target-path", "/t", "--availability-flag", "a/b"], "file name"),
    ([*REPLICATION, "--source-path", "/s", "--target-path", "/t", "--max-maps", "0"], "at least 1"),
    ([*REPLICATION, "--source-path", "/s", "--target-path", "/t", "--max-maps", "x"], "invalid int"),
    ([*REPLICATION, "--source-table", "catalog:db:t#ds=1"], "go together"),
    ([*REPLICATION, "--source-table", "catalog:db:t#ds=${YEAR}", "--target-table", "catalog:db:u#ds=1"],
     "must be resolved"),
    ([*REPLICATION[:-1], "yesterday", "--source-path", "/s", "--target-path", "/t"], "yyyy-MM-ddTHH:mmZ"),
])
def test_replication_rejects(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert replicator.main(argv) == 2
    captured = capsys.readouterr()
    assert message in captured.err
    assert "Traceback" not in captured.err


@pytest.mark.parametrize(("argv", "message"), [
    ([], "at least one --input"),
    (["--input", "clicks"], "NAME=VALUE"),
    (["--input", "a=/x", "--input", "a=/y"], "given twice"),
    (["--input", "a=/x/../y"], "'..'"),
    (["--table", "a=catalog:db:t#ds=${YEAR}"], "must be resolved"),
])
def test_fingerprint_rejects(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert fingerprint.main(argv) == 2
    assert message in capsys.readouterr().err


def test_help_exits_zero(capsys: pytest.CaptureFixture[str]) -> None:
    assert retention.main(["--help"]) == 0
    assert "--location TYPE=TEMPLATE" in capsys.readouterr().out


def test_parsed_options() -> None:
    options = retention.parse_options(retention.build_parser().parse_args(
        [*RETENTION, "--location", "data=file:///d/in/?{YEAR}/${MONTH}", "--location", "stats=/d/stats",
         "--timezone", "America/Los_Angeles", "--now", "2015-03-01T00:00Z", "--frequency", "hours(1)"]))
    assert [location.kind for location in options.locations] == ["data", "stats"]
    assert options.locations[0].template.text == "/d/in/${YEAR}/${MONTH}"
    assert options.locations[0].uri.root == "file://"
    assert format_instant(options.cutoff) == "2015-02-19T00:00Z"


def test_instances_line() -> None:
    outcome = retention.Outcome()
    assert retention.instances_line(outcome, parse_zone("UTC")) == "instances=NULL"
    outcome.moments = [parse_instant("2015-11-02T08:00Z"), parse_instant("2015-11-01T07:00Z")]
    assert retention.instances_line(outcome, parse_zone("America/Los_Angeles")) == \
        "instances=201511010000,201511020000"


def test_balance_spreads_bytes() -> None:
    items = [{"rel": str(index), "length": size} for index, size in enumerate([100 << 20, 60 << 20, 50 << 20, 10, 10])]
    slices = listing.balance(items, 2)
    loads = sorted(sum(item["length"] for item in part) for part in slices)
    assert len(slices) == 2 and loads[1] - loads[0] < 20 << 20
    assert len(listing.balance(items[:1], 5)) == 1


@pytest.mark.parametrize("job", ["retention", "replication", "fingerprint"])
def test_entry_script_runs_the_job_from_the_shipped_zip(job: str, tmp_path: Path) -> None:
    """As spark-submit runs it: the entry script alone, the job and the core imported from the one archive the Spark
    hook ships (no installed falcon_airflow: ``-S`` leaves site-packages out), the Java sources inside it."""
    archive = Path(ship_packages(job_py_files()) or "")
    names = zipfile.ZipFile(archive).namelist()
    assert {"falcon_airflow/__init__.py", "falcon_airflow/core/__init__.py", "falcon_airflow/jobs/frame.py",
            "falcon_airflow/jobs/replication/FalconReplicationCopier.java",
            "falcon_airflow/jobs/lineage_plan/FalconAirflowPlanDump.java"} <= set(names)
    completed = subprocess.run([sys.executable, "-S", job_file(f"{job}.py"), "--bogus"], capture_output=True,
                               text=True, timeout=60, check=False, env={**os.environ, "PYTHONPATH": str(archive)})
    assert completed.returncode == 2, completed.stderr
    assert f"{job}: error: " in completed.stderr
    assert "Traceback" not in completed.stderr


def test_the_java_sources_are_read_from_the_zip(tmp_path: Path) -> None:
    """``importlib.resources`` finds the Java sources inside the archive, as the jobs read them under spark-submit."""
    archive = package_archive([JOBS_FOLDER, CORE_FOLDER], tmp_path)
    code = ("import falcon_airflow.jobs.replication.copier as c, falcon_airflow.jobs.lineage_plan.dump as d; "
            "print(c.__file__, len(c._COPIER_SOURCE), len(d._DUMPER_SOURCE))")
    completed = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, text=True, timeout=60,
                               check=False, env={**os.environ, "PYTHONPATH": str(archive)})
    assert completed.returncode == 0, completed.stderr
    where, copier, dumper = completed.stdout.split()
    assert where.startswith(str(archive)) and int(copier) > 1000 and int(dumper) > 1000
