"""Replication against its real references, in one run, between two MiniDFS clusters a -> b, same parallelism:

* **DistCp on YARN**: Hadoop DistCp 3.5.0 with ``-m 2`` (checksum verification on, its default) submitted to the
  sandbox's YARN (``MiniYarn.java``: one ResourceManager, one NodeManager offering MapReduce's shuffle service)
  with ``mapreduce.framework.name=yarn``; the MapReduce application master and tasks run in YARN containers on
  the ``mapreduce`` jar group (``make jars``), the client on the ``minicluster`` and ``distcp`` groups. Timed from
  the client JVM's start to its exit, as a Falcon user's replication action waited for it; the application's own
  elapsed time (the ResourceManager's) is printed beside it;
* **the replication job**: ``--max-maps 2`` in a warm ``local[2]`` SparkSession, as ``distcp_bench`` runs it
  (listing, streaming copy with CRC32, read-back verification, staging and atomic publish, all timed), and the same
  job submitted to the same YARN as a Falcon cluster with a YARN ``execute`` interface runs it (``spark-submit
  --master yarn``, client mode, two executors of one core, the jobs zip of ``--py-files``), timed like DistCp from
  ``spark-submit``'s start to its exit;
* **the raw copy rate** of the same bytes, the physical limit: ``benchmarks/java/RawHdfsCopy.java``, the plainest
  copy from cluster a to cluster b in one JVM (list, then 2 threads streaming files with one shared FileSystem a
  side; no checksum, no read-back, no staging; its start-up excluded), and ``cp -r`` of the same files on the local
  disk the datanodes write to (nothing dirty when it starts, the source in the page cache).

Data sets: 200 files of 10 MiB (2 GB) and 20,000 files of 1 KiB, scaled by ``FALCON_BENCH_SCALE`` (default
0.05); ``FALCON_BENCH_SETS=large`` (or ``small``) runs one; ``FALCON_BENCH_CLOSE_RETRY_MS`` sets every side's
first wait before asking the namenode again whether a closed file is complete (see ``distcp_bench``).
Goals printed as ratios: the job at least DistCp on YARN's throughput on both sets, and at least 0.8 of the raw
HDFS copy rate on the large files.

    FALCON_BENCH_SCALE=1 python -m benchmarks distcp_yarn_bench
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

from benchmarks.distcp_bench import (
    CLOSE_RETRY_KEY,
    MAPS,
    close_retry_ms,
    data_sets,
    replicate,
    scale,
    start_hdfs,
    summary,
)
from benchmarks.replication_bench import LARGE_BYTES, LARGE_FILES, SMALL_BYTES, SMALL_FILES, generate
from falcon_airflow.jvm import jar_group
from falcon_airflow.sandbox.services import free_port, launch, stop
from falcon_airflow.sandbox.stack import JAVA_SOURCES, YARN_NODE_MEMORY_MB, YARN_NODE_VCORES

RAW_COPY = Path(__file__).resolve().parent / "java" / "RawHdfsCopy.java"
CONTAINER_MB = 512  # the application master and each map: three containers of the node's 4 GB


def uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True, check=False).stdout.strip()


def retry_settings() -> list[str]:
    return [] if close_retry_ms() is None else [f"{CLOSE_RETRY_KEY}={close_retry_ms()}"]


def start_yarn(state: Path) -> tuple[int, Path, str]:
    """The sandbox's YARN with MapReduce's shuffle service; returns its pid, its conf folder and its REST root."""
    conf = state / "hadoop-conf"
    minicluster, mapreduce = jar_group("minicluster"), jar_group("mapreduce")
    service = launch("yarn", ["java", "-Xmx512m", f"-Dtest.build.data={state / 'yarn'}",
                              "-cp", str(minicluster[0].parent / "*"), str(JAVA_SOURCES / "MiniYarn.java"),
                              str(conf), str(free_port()), str(YARN_NODE_MEMORY_MB), str(YARN_NODE_VCORES),
                              str(mapreduce[0].parent / "*")],
                     log=state / "yarn.log", cwd=state)
    service.wait_for_line("READY", 300)
    webapp = re.search(r"^WEBAPP (\S+)$", (state / "yarn.log").read_text(errors="replace"), re.MULTILINE)
    if webapp is None:
        raise RuntimeError(f"YARN printed no web address: {state / 'yarn.log'}")
    return service.pid, conf, f"http://{webapp[1]}"


def yarn_applications(webapp: str) -> dict[str, dict[str, Any]]:
    with urllib.request.urlopen(f"{webapp}/ws/v1/cluster/apps", timeout=30) as response:
        listing = json.loads(response.read())
    return {app["id"]: app for app in (listing.get("apps") or {}).get("app", [])}


def distcp_on_yarn(conf: Path, webapp: str, staging: Path, source: str, target: str) -> tuple[float, float]:
    """Wall seconds of ``distcp -m MAPS`` on YARN (client JVM start to exit) and the application's own seconds."""
    groups = {name: str(jar_group(name)[0].parent / "*") for name in ("minicluster", "distcp", "mapreduce")}
    settings = {
        "mapreduce.framework.name": "yarn",
        # MiniYARNCluster's yarn-site says yarn.is.minicluster, which makes MapReduce hand its client's own
        # classpath (the shaded client jars) to the containers: they get the mapreduce group instead.
        "yarn.is.minicluster": "false",
        "mapreduce.application.classpath": f"{groups['mapreduce']},{groups['distcp']}",
        "yarn.app.mapreduce.am.staging-dir": staging.as_uri(),
        "yarn.app.mapreduce.am.resource.mb": str(CONTAINER_MB),
        "yarn.app.mapreduce.am.command-opts": f"-Xmx{CONTAINER_MB * 3 // 4}m",
        "mapreduce.map.memory.mb": str(CONTAINER_MB),
        "mapreduce.map.java.opts": f"-Xmx{CONTAINER_MB * 3 // 4}m",
    }
    options = [f"-D{key}={value}" for key, value in settings.items()] + [f"-D{item}" for item in retry_settings()]
    before = set(yarn_applications(webapp))
    started = time.perf_counter()
    done = subprocess.run(["java", "-Xmx512m", "-cp", f"{conf}:{groups['minicluster']}:{groups['distcp']}",
                           "org.apache.hadoop.tools.DistCp", *options, "-m", str(MAPS), source, target],
                          capture_output=True, text=True, timeout=7200, check=False)
    seconds = time.perf_counter() - started
    new = [app for key, app in yarn_applications(webapp).items() if key not in before]
    if done.returncode != 0 or len(new) != 1 or new[0]["finalStatus"] != "SUCCEEDED":
        diagnostics = "; ".join(f"{app['id']} {app['finalStatus']}: {app.get('diagnostics', '')[:400]}" for app in new)
        raise RuntimeError(f"distcp on YARN exited with {done.returncode} ({diagnostics or 'no application'}): "
                           f"{done.stderr[-800:]}")
    return seconds, new[0]["elapsedTime"] / 1000


def job_on_yarn(conf: Path, staging: Path, source: str, target: str) -> tuple[float, float]:
    """Wall seconds of the replication job through ``spark-submit --master yarn`` (start to exit), and the
    application's own seconds on YARN."""
    import pyspark

    from falcon_airflow.provider.hooks.archives import package_archive

    package = Path(pyspark.__file__).resolve().parent
    jobs = Path(__file__).resolve().parents[1] / "src" / "falcon_airflow"
    archive = package_archive([jobs / "jobs", jobs / "core"], staging / "py-files")
    settings = {"spark.yarn.jars": f"local:{package / 'jars'}/*", "spark.yarn.stagingDir": staging.as_uri(),
                "spark.yarn.am.memory": "512m", "spark.ui.enabled": "false",
                "spark.yarn.appMasterEnv.SPARK_LOCAL_IP": "127.0.0.1", "spark.executorEnv.SPARK_LOCAL_IP": "127.0.0.1",
                "spark.pyspark.python": sys.executable,
                # a copy task off the driver opens a JVM of its own with spark-submit: the executors' Spark
                "spark.executorEnv.SPARK_HOME": str(package),
                **({} if close_retry_ms() is None else {f"spark.hadoop.{CLOSE_RETRY_KEY}": str(close_retry_ms())})}
    arguments = ["--feed", "bench", "--source-cluster", "a", "--target-cluster", "b",
                 "--instance", "2015-01-01T00:00Z", "--source-path", source, "--target-path", target,
                 "--max-maps", str(MAPS)]
    webapp = yarn_webapp(conf)
    before = set(yarn_applications(webapp))
    started = time.perf_counter()
    done = subprocess.run([str(package / "bin" / "spark-submit"), "--master", "yarn", "--deploy-mode", "client",
                           "--num-executors", str(MAPS), "--executor-cores", "1", "--executor-memory", "512m",
                           "--driver-memory", "512m", *(part for key, value in settings.items()
                                                         for part in ("--conf", f"{key}={value}")),
                           "--py-files", str(archive), str(jobs / "jobs" / "entry" / "replication.py"), *arguments],
                          capture_output=True, text=True, timeout=7200, check=False,
                          env={**os.environ, "HADOOP_CONF_DIR": str(conf), "YARN_CONF_DIR": str(conf),
                               "SPARK_HOME": str(package), "SPARK_LOCAL_IP": "127.0.0.1"})
    seconds = time.perf_counter() - started
    new = [app for key, app in yarn_applications(webapp).items() if key not in before]
    if done.returncode != 0 or len(new) != 1:
        raise RuntimeError(f"the job on YARN exited with {done.returncode}: {done.stderr[-1500:]}")
    return seconds, new[0]["elapsedTime"] / 1000


def yarn_webapp(conf: Path) -> str:
    found = re.search(r"<name>yarn.resourcemanager.webapp.address</name><value>([^<]+)</value>",
                      (conf / "yarn-site.xml").read_text())
    if found is None:
        raise RuntimeError(f"no ResourceManager web address in {conf / 'yarn-site.xml'}")
    return f"http://{found[1]}"


def raw_hdfs_copy(source: str, target: str) -> float:
    """Seconds of the plainest JVM copy a -> b with MAPS threads (listing to last close)."""
    done = subprocess.run(["java", "-Xmx1g", "-cp", str(jar_group("minicluster")[0].parent / "*"), str(RAW_COPY),
                           source, target, str(MAPS), *retry_settings()],
                          capture_output=True, text=True, timeout=7200, check=False)
    line = next((line for line in done.stdout.splitlines() if line.startswith("COPIED ")), None)
    if done.returncode != 0 or line is None:
        raise RuntimeError(f"raw copy exited with {done.returncode}: {done.stderr[-800:]}")
    return float(line.split()[3])


def local_copy(source: Path, target: Path) -> float:
    os.sync()  # nothing dirty when the copy starts
    started = time.perf_counter()
    subprocess.run(["cp", "-r", str(source), str(target)], check=True)
    seconds = time.perf_counter() - started
    shutil.rmtree(target)  # before any writeback: the next copy starts clean
    return seconds


def compare(spark: Any, name: str, namenodes: dict[str, str], yarn: tuple[Path, str], work: Path, files: int,
            total: int) -> dict[str, float]:
    source = f"{namenodes['a']}/bench/{name}"
    seconds: dict[str, float] = {}
    yarn_seconds = job_yarn_seconds = 0.0
    for kind in ("distcp", "job", "job-yarn", "raw"):
        target = f"{namenodes['b']}/bench/{name}-{kind}"
        if kind == "distcp":
            seconds[kind], yarn_seconds = distcp_on_yarn(*yarn, work / "staging", source, target)
        elif kind == "job-yarn":
            seconds[kind], job_yarn_seconds = job_on_yarn(yarn[0], work / "staging", source, target)
        elif kind == "job":
            seconds[kind] = replicate(spark, source, target)
        else:
            seconds[kind] = raw_hdfs_copy(source, target)
        copied = summary(spark, target)
        if copied[0] < files or copied[1] < total:
            raise RuntimeError(f"{name}: {copied} (files, bytes) at the {kind} target, expected {files}, {total}")
    seconds["cp"] = local_copy(work / name, work / f"{name}-cp")
    mb = total / 1e6
    print(f"  {name}: {files} files, {mb:.0f} MB")
    rows = ((f"distcp -m {MAPS} on YARN:", seconds["distcp"]), ("replication job:     ", seconds["job"]),
            ("job on YARN (submit):", seconds["job-yarn"]),
            ("raw HDFS copy a -> b: ", seconds["raw"]), ("cp -r, local disk:    ", seconds["cp"]))
    for label, value in rows:
        print(f"    {label} {value:7.2f} s  {mb / value:8.1f} MB/s  {files / value:8.0f} files/s")
    print(f"    (the applications' own times on YARN: DistCp {yarn_seconds:.2f} s, the job {job_yarn_seconds:.2f} s)")
    print(f"    throughput ratio job / distcp on YARN: {seconds['distcp'] / seconds['job']:.2f}x (goal >= 1); "
          f"both submitted to YARN: {seconds['distcp'] / seconds['job-yarn']:.2f}x")
    goal = " (goal >= 0.8)" if name == "large" else ""
    print(f"    throughput ratio job / raw HDFS copy: {seconds['raw'] / seconds['job']:.2f}x{goal}; "
          f"raw HDFS copy / local cp -r: {seconds['cp'] / seconds['raw']:.2f}x", flush=True)
    return seconds


def main(argv: list[str] | None = None) -> int:
    sets = data_sets()
    counts = {"large": max(2, round(LARGE_FILES * scale())), "small": max(10, round(SMALL_FILES * scale()))}
    sizes = {"large": LARGE_BYTES, "small": SMALL_BYTES}
    work = Path(tempfile.mkdtemp(prefix="falcon-distcp-yarn-bench-"))
    pids: list[int] = []
    try:
        described = " and ".join(f"{counts[name]} x {sizes[name] >> 20} MiB" if name == "large"
                                 else f"{counts[name]} x {sizes[name]} B" for name in sets)
        print(f"distcp on YARN: {described} files, hdfs -> hdfs between two MiniDFS clusters, {MAPS} maps each "
              f"(scale {scale()}; first close retry after "
              f"{close_retry_ms() if close_retry_ms() is not None else 400} ms)", flush=True)
        print(f"  load before: {uptime()}", flush=True)
        hdfs_pid, namenodes = start_hdfs(work / "hdfs")
        pids.append(hdfs_pid)
        yarn_pid, conf, webapp = start_yarn(work / "yarn")
        pids.append(yarn_pid)
        totals = {name: generate(work / name, counts[name], sizes[name], 50 if name == "large" else 200)
                  for name in sets}
        generate(work / "warm", 2, SMALL_BYTES, 200)
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
        from pyspark.sql import SparkSession

        builder = (SparkSession.builder.master(f"local[{MAPS}]").appName("falcon-distcp-yarn-bench")
                   .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false"))
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
        for name in sets:
            compare(spark, name, namenodes, (conf, webapp), work, counts[name], totals[name])
        spark.stop()
        print(f"  load after: {uptime()}", flush=True)
        return 0
    finally:
        for pid in reversed(pids):
            stop(pid)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
