"""Replication job vs ``cp -r``: 2 GB in 200 files, then 20,000 small files, both on local[2] in the same run.

The job runs in-process with a warm SparkSession (``--max-maps 2``): listing, streaming copy with CRC32, read-back
verification, atomic publish and flag, all included in its time. ``cp -r`` copies the same source folder.

Both copies start from the same page-cache state: the source files are cached (written by the generator and read
by every earlier copy), the target does not exist, and nothing is dirty — every copy's output is deleted before
the ``sync`` that precedes the next timed copy, so no copy waits for another's writeback and none is flushed inside
a timing. The order alternates between runs (cp first, then the job first). Large files: best of 3
(``FALCON_BENCH_REPEAT``); small files: one run (it is long). Goal: the job at >= 0.5x the throughput of ``cp -r``
for the large files.

    python -m benchmarks replication_bench        # FALCON_BENCH_SCALE=0.1 for a quick run (200 MB, 2,000 files)
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
from pathlib import Path
from typing import Any

LARGE_FILES, LARGE_BYTES = 200, 10 * 1024 * 1024
SMALL_FILES, SMALL_BYTES = 20_000, 1024
MAX_MAPS = 2


def scale() -> float:
    return float(os.environ.get("FALCON_BENCH_SCALE", "1"))


def generate(folder: Path, count: int, size: int, per_folder: int) -> int:
    """``count`` distinct files of ``size`` bytes, ``per_folder`` to a sub-folder; returns the total bytes."""
    block = os.urandom(size)
    for index in range(count):
        sub = folder / f"part-{index // per_folder:04d}"
        sub.mkdir(parents=True, exist_ok=True)
        (sub / f"file-{index:06d}").write_bytes(index.to_bytes(8, "big") + block[8:])
    return count * size


def start_spark() -> tuple[Any, float]:
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    started = time.perf_counter()
    from pyspark.sql import SparkSession

    spark = (SparkSession.builder.master("local[2]").appName("falcon-replication-bench")
             .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    return spark, time.perf_counter() - started


def replicate(spark: Any, source: Path, target: Path) -> float:
    from falcon_airflow.jobs.replication import replicator

    argv = ["--feed", "bench", "--source-cluster", "a", "--target-cluster", "b", "--instance", "2015-01-01T00:00Z",
            "--source-path", f"file://{source}", "--target-path", f"file://{target}", "--max-maps", str(MAX_MAPS)]
    started = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):
        code = replicator.main(argv, spark=spark)
    seconds = time.perf_counter() - started
    if code != 0:
        raise RuntimeError(f"replication exited with {code}")
    return seconds


def copy(source: Path, target: Path) -> float:
    started = time.perf_counter()
    subprocess.run(["cp", "-r", str(source), str(target)], check=True)
    return time.perf_counter() - started


def local_create_seconds(spark: Any, folder: Path, count: int = 50) -> float:
    """Seconds per empty file created through Hadoop's raw local file system (py4j calls included): without the
    native Hadoop library every create forks ``chmod``, a cost ``cp`` does not have."""
    jvm = spark._jvm
    fs = jvm.org.apache.hadoop.fs.FileSystem.getLocal(spark.sparkContext._jsc.hadoopConfiguration()).getRawFileSystem()
    path = jvm.org.apache.hadoop.fs.Path
    folder.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    for index in range(count):
        fs.create(path(f"file://{folder}/empty-{index}"), True).close()
    seconds = (time.perf_counter() - started) / count
    shutil.rmtree(folder)
    return seconds


def compare(spark: Any, name: str, source: Path, work: Path, files: int, total: int, runs: int) -> None:
    times: dict[str, list[float]] = {"cp": [], "job": []}
    for run in range(runs):
        for kind in ("cp", "job") if run % 2 == 0 else ("job", "cp"):
            target = work / f"{name}-{kind}"
            os.sync()  # nothing dirty: the previous copy's output is deleted already (never written back)
            times[kind].append(copy(source, target) if kind == "cp" else replicate(spark, source, target))
            copied = sum(1 for path in target.rglob("file-*"))
            if copied != files:
                raise RuntimeError(f"{name}: {copied} files at the {kind} target, expected {files}")
            shutil.rmtree(target)
    cp_times, job_times = times["cp"], times["job"]
    cp_seconds, job_seconds = min(cp_times), min(job_times)
    mb = total / 1e6
    print(f"  {name}: {files} files, {mb:.0f} MB, best of {runs}")
    for label, seconds in (("cp -r:          ", cp_seconds), ("replication job:", job_seconds)):
        print(f"    {label} {seconds:7.2f} s  {mb / seconds:8.1f} MB/s  {files / seconds:8.0f} files/s")
    print(f"    throughput ratio job / cp: {cp_seconds / job_seconds:.2f}x; all runs: cp "
          f"{', '.join(f'{value:.2f}' for value in cp_times)} s, job {', '.join(f'{value:.2f}' for value in job_times)}"
          f" s", flush=True)


def main(argv: list[str] | None = None) -> int:
    large = max(2, round(LARGE_FILES * scale()))
    small = max(10, round(SMALL_FILES * scale()))
    work = Path(tempfile.mkdtemp(prefix="falcon-replication-bench-"))
    try:
        needed = 3 * (large * LARGE_BYTES + small * SMALL_BYTES) + (256 << 20)  # source, cp copy, job copy
        free = shutil.disk_usage(work).free
        if free < needed:
            print(f"replication: skipped, {free / 1e9:.1f} GB free in {work.parent}, {needed / 1e9:.1f} GB needed")
            return 0
        print(f"replication: {large} x {LARGE_BYTES >> 20} MiB and {small} x {SMALL_BYTES} B files on local[2], "
              f"--max-maps {MAX_MAPS} (scale {scale()})", flush=True)
        large_total = generate(work / "large", large, LARGE_BYTES, 50)
        small_total = generate(work / "small", small, SMALL_BYTES, 200)
        spark, startup = start_spark()
        print(f"  spark start-up (local[2], in-process): {startup:.1f} s")
        generate(work / "warm", 4, 1024, 2)
        replicate(spark, work / "warm", work / "warm-job")  # starts the Python workers and their gateway links
        create = local_create_seconds(spark, work / "creates")
        print(f"  Hadoop local create + close (a chmod fork each, no native library): {create * 1e3:.1f} ms per file")
        runs = max(1, int(os.environ.get("FALCON_BENCH_REPEAT", "3")))
        compare(spark, "large", work / "large", work, large, large_total, runs)
        compare(spark, "small", work / "small", work, small, small_total, 1)
        spark.stop()
        return 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
