"""Replication job vs Hadoop DistCp, hdfs -> hdfs between the sandbox's two MiniDFS clusters, in one run.

Both copy the same source folder on cluster A to cluster B with the same parallelism: our job with
``--max-maps 2`` on ``local[2]`` (warm in-process SparkSession; listing, streaming copy with CRC32, read-back
verification, atomic publish, all timed), DistCp 3.5.0 with ``-m 2`` on MapReduce's local job runner (two map
slots), checksum verification on (its default: no ``-skipcrccheck``), run with ``java -cp`` over the cached jars
(``make jars``); its time includes its JVM start-up, which the job's warm session does not pay, so that start-up
is measured alone too (``distcp -help``). Data sets: 200 files of 10 MiB (2 GB) and 20,000 files of 1 KiB,
scaled by ``FALCON_BENCH_SCALE`` (default 0.05 here: a full run does not fit a busy 2-core machine's session);
``FALCON_BENCH_SETS=large`` (or ``small``) runs one of them (default: both).

``FALCON_BENCH_CLOSE_RETRY_MS=N`` sets, for both sides' HDFS clients, how long a client first waits before asking
the namenode again whether a closed file is complete (``dfs.client.block.write.locateFollowingBlock.initial.
delay.ms``, Hadoop's default 400 ms, doubling at each retry). On one MiniDFS datanode the first answer is nearly
always "not yet", so that wait is most of a small file's cost, for DistCp's maps and the job's tasks alike.

    FALCON_BENCH_SCALE=1 python -m benchmarks distcp_bench
    FALCON_BENCH_SCALE=1 FALCON_BENCH_SETS=large python -m benchmarks distcp_bench
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

from benchmarks.replication_bench import LARGE_BYTES, LARGE_FILES, SMALL_BYTES, SMALL_FILES, generate
from falcon_airflow.jvm import jar_group
from falcon_airflow.sandbox.services import free_port, launch, stop
from falcon_airflow.sandbox.stack import JAVA_SOURCES

MAPS = 2


def scale() -> float:
    return float(os.environ.get("FALCON_BENCH_SCALE", "0.05"))


def data_sets() -> list[str]:
    chosen = [name.strip() for name in os.environ.get("FALCON_BENCH_SETS", "large,small").split(",") if name.strip()]
    unknown = sorted(set(chosen) - {"large", "small"})
    if unknown or not chosen:
        raise SystemExit(f"FALCON_BENCH_SETS: choose large and/or small, not {unknown or 'nothing'}")
    return chosen


CLOSE_RETRY_KEY = "dfs.client.block.write.locateFollowingBlock.initial.delay.ms"


def close_retry_ms() -> int | None:
    value = os.environ.get("FALCON_BENCH_CLOSE_RETRY_MS")
    return int(value) if value else None


def start_hdfs(state: Path) -> tuple[int, dict[str, str]]:
    minicluster = jar_group("minicluster")
    ports = {name: (free_port(), free_port()) for name in ("a", "b")}
    service = launch("hdfs", ["java", "-Xmx1g", "-cp", str(minicluster[0].parent / "*"),
                              str(JAVA_SOURCES / "MiniDfs.java"),
                              *(f"{name}:{rpc}:{http}:{state / name}" for name, (rpc, http) in ports.items())],
                     log=state / "hdfs.log", cwd=state)
    service.wait_for_line("READY", 300)
    return service.pid, {name: f"hdfs://127.0.0.1:{rpc}" for name, (rpc, _) in ports.items()}


def distcp(source: str, target: str, *extra: str) -> float:
    jars = [str(jar_group("minicluster")[0].parent / "*"), str(jar_group("distcp")[0].parent / "*")]
    started = time.perf_counter()
    retry = [] if close_retry_ms() is None else [f"-D{CLOSE_RETRY_KEY}={close_retry_ms()}"]
    subprocess.run(["java", "-Xmx1g", "-cp", ":".join(jars), "org.apache.hadoop.tools.DistCp",
                    "-Dmapreduce.framework.name=local", f"-Dmapreduce.local.map.tasks.maximum={MAPS}", *retry,
                    *extra, *([] if extra else ["-m", str(MAPS), source, target])],
                   check=not extra, capture_output=True, timeout=3600)  # `-help` prints usage and exits 255
    return time.perf_counter() - started


def replicate(spark: Any, source: str, target: str) -> float:
    from falcon_airflow.jobs.replication import replicator

    argv = ["--feed", "bench", "--source-cluster", "a", "--target-cluster", "b", "--instance", "2015-01-01T00:00Z",
            "--source-path", source, "--target-path", target, "--max-maps", str(MAPS)]
    started = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):
        code = replicator.main(argv, spark=spark)
    if code != 0:
        raise RuntimeError(f"replication exited with {code}")
    return time.perf_counter() - started


def summary(spark: Any, uri: str) -> tuple[int, int]:
    jvm = spark.sparkContext._jvm
    path = jvm.org.apache.hadoop.fs.Path(uri)
    found = path.getFileSystem(spark.sparkContext._jsc.hadoopConfiguration()).getContentSummary(path)
    return int(found.getFileCount()), int(found.getLength())


def compare(spark: Any, name: str, namenodes: dict[str, str], files: int, total: int) -> None:
    source = f"{namenodes['a']}/bench/{name}"
    seconds = {}
    for kind in ("distcp", "job"):
        target = f"{namenodes['b']}/bench/{name}-{kind}"
        seconds[kind] = distcp(source, target) if kind == "distcp" else replicate(spark, source, target)
        copied = summary(spark, target)
        if copied[0] < files or copied[1] < total:
            raise RuntimeError(f"{name}: {copied} (files, bytes) at the {kind} target, expected {files}, {total}")
    mb = total / 1e6
    print(f"  {name}: {files} files, {mb:.0f} MB")
    for label, value in (("distcp -m 2:    ", seconds["distcp"]), ("replication job:", seconds["job"])):
        print(f"    {label} {value:7.2f} s  {mb / value:8.1f} MB/s  {files / value:8.0f} files/s")
    print(f"    throughput ratio job / distcp: {seconds['distcp'] / seconds['job']:.2f}x", flush=True)


def main(argv: list[str] | None = None) -> int:
    sets = data_sets()
    counts = {"large": max(2, round(LARGE_FILES * scale())), "small": max(10, round(SMALL_FILES * scale()))}
    sizes = {"large": LARGE_BYTES, "small": SMALL_BYTES}
    work = Path(tempfile.mkdtemp(prefix="falcon-distcp-bench-"))
    pid = None
    try:
        described = " and ".join(f"{counts[name]} x {sizes[name] >> 20} MiB" if name == "large"
                                 else f"{counts[name]} x {sizes[name]} B" for name in sets)
        print(f"distcp: {described} files, hdfs -> hdfs between two MiniDFS clusters, {MAPS} maps each "
              f"(scale {scale()}; first close retry after "
              f"{close_retry_ms() if close_retry_ms() is not None else 400} ms)", flush=True)
        pid, namenodes = start_hdfs(work / "hdfs")
        totals = {name: generate(work / name, counts[name], sizes[name], 50 if name == "large" else 200)
                  for name in sets}
        generate(work / "warm", 2, SMALL_BYTES, 200)
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
        from pyspark.sql import SparkSession

        builder = (SparkSession.builder.master(f"local[{MAPS}]").appName("falcon-distcp-bench")
                   .config("spark.ui.enabled", "false"))
        if close_retry_ms() is not None:
            builder = builder.config(f"spark.hadoop.{CLOSE_RETRY_KEY}", str(close_retry_ms()))
        spark = builder.getOrCreate()
        spark.sparkContext.setLogLevel("ERROR")
        jvm = spark.sparkContext._jvm
        for name in ("warm", *sets):  # onto cluster A through the Hadoop client
            target = jvm.org.apache.hadoop.fs.Path(f"{namenodes['a']}/bench/{name}")
            target.getFileSystem(spark.sparkContext._jsc.hadoopConfiguration()).copyFromLocalFile(
                jvm.org.apache.hadoop.fs.Path(str(work / name)), target)
        replicate(spark, f"{namenodes['a']}/bench/warm/part-0000", f"{namenodes['b']}/warm")  # Python workers up
        print(f"  distcp JVM start-up alone (distcp -help): {distcp('', '', '-help'):.1f} s")
        for name in sets:
            compare(spark, name, namenodes, counts[name], totals[name])
        spark.stop()
        return 0
    finally:
        if pid is not None:
            stop(pid)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
