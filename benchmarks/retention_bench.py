"""Retention job vs ``rm -rf``: 10,000 expired instance folders and 1,000 kept ones, in the same run.

The job runs in-process with a warm SparkSession (local[2]); Spark's start-up is timed and reported separately.
``rm -rf`` gets exactly the expired folders (``xargs -0 rm -rf``) of an identical second tree. Each side is timed
on a fresh tree, best of 3 (``FALCON_BENCH_REPEAT``). Goal: the job within 3x of ``rm -rf`` once Spark is up.

    python -m benchmarks retention_bench          # FALCON_BENCH_SCALE=0.1 for a quick run
"""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

EXPIRED = 10_000
KEPT = 1_000
LAYOUT = "/${YEAR}/${MONTH}/${DAY}/${HOUR}"
START = datetime(2014, 1, 1, tzinfo=UTC)


def scale() -> float:
    return float(os.environ.get("FALCON_BENCH_SCALE", "1"))


def build(base: Path, count: int) -> list[Path]:
    """``count`` hourly instance folders from START, each holding one small file; returns them in time order."""
    folders = []
    for index in range(count):
        moment = START + timedelta(hours=index)
        folder = base / f"{moment:%Y/%m/%d/%H}"
        folder.mkdir(parents=True)
        (folder / "part-00000").write_bytes(b"x" * 64)
        folders.append(folder)
    return folders


def start_spark() -> tuple[Any, float]:
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    started = time.perf_counter()
    from pyspark.sql import SparkSession

    spark = (SparkSession.builder.master("local[2]").appName("falcon-retention-bench")
             .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    return spark, time.perf_counter() - started


def run_retention(spark: Any, base: Path, now: datetime, limit_hours: int) -> tuple[int, float]:
    from falcon_airflow.jobs import retention

    argv = ["--feed", "bench", "--cluster", "local", "--location", f"data=file://{base}{LAYOUT}",
            "--frequency", "hours(1)", "--limit", f"hours({limit_hours})", "--now", f"{now:%Y-%m-%dT%H:%MZ}"]
    output = io.StringIO()
    started = time.perf_counter()
    with contextlib.redirect_stdout(output):
        code = retention.main(argv, spark=spark)
    return code, time.perf_counter() - started


def repeats() -> int:
    return max(1, int(os.environ.get("FALCON_BENCH_REPEAT", "3")))


def main(argv: list[str] | None = None) -> int:
    expired, kept = max(1, round(EXPIRED * scale())), max(1, round(KEPT * scale()))
    work = Path(tempfile.mkdtemp(prefix="falcon-retention-bench-"))
    try:
        print(f"retention: {expired} expired + {kept} kept hourly instance folders (scale {scale()}), "
              f"best of {repeats()}", flush=True)
        now = START + timedelta(hours=expired + kept)
        limit_hours = kept
        spark, startup = start_spark()
        build(work / "warm" / "data", 20)
        run_retention(spark, work / "warm" / "data", START + timedelta(hours=20), 5)  # warm the JVM paths

        job_times, rm_times = [], []
        for attempt in range(repeats()):
            job_folders = build(work / f"job{attempt}" / "data", expired + kept)
            rm_folders = build(work / f"rm{attempt}" / "data", expired + kept)
            os.sync()
            code, seconds = run_retention(spark, work / f"job{attempt}" / "data", now, limit_hours)
            if code != 0:
                print(f"  retention job failed with exit code {code}")
                return 1
            survivors = [folder for folder in job_folders if folder.exists()]
            if survivors != job_folders[expired:]:
                print(f"  unexpected result: {len(survivors)} folders left, expected {kept}")
                return 1
            job_times.append(seconds)
            os.sync()
            listing = b"\0".join(str(folder).encode() for folder in rm_folders[:expired])
            started = time.perf_counter()
            subprocess.run(["xargs", "-0", "rm", "-rf"], input=listing, check=True)
            rm_times.append(time.perf_counter() - started)
            shutil.rmtree(work / f"job{attempt}")
            shutil.rmtree(work / f"rm{attempt}")
        job_seconds, rm_seconds = min(job_times), min(rm_times)

        ratio = job_seconds / rm_seconds if rm_seconds else float("inf")
        print(f"  spark start-up (local[2], in-process): {startup:.1f} s")
        print(f"  retention job (warm session):          {job_seconds:.2f} s  "
              f"({expired / job_seconds:.0f} instances/s, includes parent clean-up)")
        print(f"  rm -rf of the same expired folders:    {rm_seconds:.2f} s  ({expired / rm_seconds:.0f} folders/s)")
        print(f"  ratio job / rm -rf: {ratio:.1f}x (goal <= 3x); all runs: job "
              f"{', '.join(f'{value:.2f}' for value in job_times)} s, rm -rf "
              f"{', '.join(f'{value:.2f}' for value in rm_times)} s")
        spark.stop()
        return 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
