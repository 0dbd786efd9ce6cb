"""The scheduler under load: a real Airflow (api-server, scheduler, dag-processor, triggerer; LocalExecutor) on a
private PostgreSQL, running N hourly Falcon processes and their feeds catching up H hours while their inputs
arrive over time, side by side with N plain Airflow DAGs of the same shape, both measured in the same run.

Both sides have the same shape, so the figures compare the scheduling of our DAGs, not Spark:

* ours: the entities compiled by the loader (4 shard files), with every Spark task (process workflow, feed
  retention) a no-op; the input sensors are our deferrable FeedInstanceSensor, clear_outputs and
  mark_outputs_available run for real on local storage;
* plain: per process a DAG with a deferrable ``FileSensor`` (same poke interval and timeout) and three no-op
  Python tasks; per feed a retention DAG with one no-op task; same schedules, catch-up, max_active_runs and 4 DAG
  files.

The estate: N processes, each reading input feed ``in-i`` (one hourly instance) and writing feed ``out-i``. The
benchmark writes the ``_SUCCESS`` flag of every input instance itself, one hour of instances per wave, a wave
every WAVE seconds, and records when. Figures per side:

* process runs finished per minute, and task instances finished per minute (from the first run's start to the
  last process run's end);
* latency from an input's flag to its process starting (the first task after the sensor): median, p95, max;
* the triggerer's peak memory (RSS, with children) and CPU seconds, and the most sensors deferred at once;
* the metadata database's size at the end.

``FALCON_BENCH_SCALE``: ``quick`` (default: N=50, H=3) or ``full`` (N=500, H=24). The load average is printed.
OpenLineage is off on both sides unless ``FALCON_BENCH_LINEAGE=on``, which sends both sides' events to a file (the
provider then loads its listener in every task process, plain ones included, as a deployment with lineage does).
Run with ``python -m benchmarks scheduler_load``; components listen on 127.0.0.1 only and are stopped at the end.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from tests.builders import cluster

REPOSITORY = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
SCALES = {"quick": (50, 3, 20.0, 900.0), "full": (500, 24, 30.0, 5400.0)}  # N, hours, wave seconds, time limit
SHARDS = 4
PARALLELISM = 8

OUR_DAG_FILE = '''"""Benchmark shard: the loader's DAGs, every Spark task a no-op (the benchmark times scheduling)."""
import os

from falcon_airflow.provider.operators.spark import FalconSparkSubmitOperator


def _no_spark(self, context):
    # all a benchmark needs of a process job: its output instance's folder exists (mark_outputs_available checks)
    dag_id = context["dag"].dag_id
    if ".process." in dag_id:
        from falcon_airflow.provider.macros import instance

        index = dag_id.split(".")[2].removeprefix("process-")
        folder = os.path.join(os.environ["FALCON_BENCH_STORAGE"], "data", f"out-{index}",
                              instance(context["dag_run"]).strftime("%Y/%m/%d/%H"))
        os.makedirs(folder, exist_ok=True)


FalconSparkSubmitOperator.execute = _no_spark
from falcon_airflow.dags.loader import load_dags  # noqa: E402

globals().update(load_dags(__file__))
'''

PLAIN_DAG_FILE = '''"""Plain Airflow DAGs shaped like the Falcon benchmark estate (shard {shard} of {shards})."""
import json
from datetime import datetime, timedelta, timezone

from airflow.providers.standard.operators.python import PythonOperator
from airflow.providers.standard.sensors.filesystem import FileSensor
from airflow.sdk import DAG

SPECS = json.loads({specs!r})


def no_op():
    return None


for spec in SPECS:
    start = datetime.fromisoformat(spec["start"])
    with DAG(spec["dag_id"], schedule="@hourly", start_date=start, catchup=spec["catchup"],
             max_active_runs=spec["max_active_runs"], default_args={{"owner": "bench", "retries": 0}},
             tags=["plain"]) as dag:
        if spec["kind"] == "process":
            wait = FileSensor(task_id="wait_for_in", filepath=spec["flag"], deferrable=True,
                              poke_interval=spec["poke"], timeout=spec["timeout"])
            clear = PythonOperator(task_id="clear_outputs", python_callable=no_op)
            workflow = PythonOperator(task_id="workflow", python_callable=no_op,
                                      max_active_tis_per_dag=spec["parallel"])
            mark = PythonOperator(task_id="mark_outputs_available", python_callable=no_op)
            wait >> clear >> workflow >> mark
        else:
            PythonOperator(task_id="retention", python_callable=no_op)
    globals()[spec["dag_id"]] = dag
'''


def scale() -> tuple[int, int, float, float]:
    """(processes, hours, seconds between waves, time limit): a named scale, or ``N,H[,WAVE,LIMIT]``."""
    value = os.environ.get("FALCON_BENCH_SCALE", "quick")
    if value in SCALES:
        return SCALES[value]
    try:  # a number, as `make bench BENCH_SCALE=...` gives every benchmark: 1 (or more) is the full scale
        return SCALES["full"] if float(value) >= 1 else SCALES["quick"]
    except ValueError:
        pass
    parts = [float(part) for part in value.split(",")] if "," in value else []
    if len(parts) >= 2:
        wave, limit = (parts[2], parts[3]) if len(parts) >= 4 else (20.0, 900.0)
        return int(parts[0]), int(parts[1]), wave, limit
    return SCALES["quick"]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


# -- the estate ---------------------------------------------------------------------------------------------------

FEED = """<feed name="{name}" xmlns="uri:falcon:feed:0.1">
  <availabilityFlag>_SUCCESS</availabilityFlag>
  <frequency>hours(1)</frequency>
  <clusters>
    <cluster name="primary" type="source">
      <validity start="{start}" end="2099-01-01T00:00Z"/><retention limit="days(7)" action="delete"/>
    </cluster>
  </clusters>
  <locations><location type="data" path="/data/{name}/${{YEAR}}/${{MONTH}}/${{DAY}}/${{HOUR}}"/></locations>
  <ACL owner="bench" group="users" permission="0755"/>
  <schema location="/none" provider="none"/>
</feed>
"""
PROCESS = """<process name="process-{i}" xmlns="uri:falcon:process:0.1">
  <clusters><cluster name="primary"><validity start="{start}" end="2099-01-01T00:00Z"/></cluster></clusters>
  <parallel>2</parallel>
  <order>FIFO</order>
  <timeout>hours(2)</timeout>
  <frequency>hours(1)</frequency>
  <inputs><input name="in" feed="in-{i}" start="now(0,0)" end="now(0,0)"/></inputs>
  <outputs><output name="out" feed="out-{i}" instance="now(0,0)"/></outputs>
  <workflow engine="spark" path="/apps"/>
  <spark-attributes><master>local[1]</master><name>job-{i}</name><jar>/apps/job.py</jar></spark-attributes>
</process>
"""


def falcon_date(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%MZ")


def write_estate(folder: Path, storage: Path, count: int, process_start: datetime) -> None:
    feed_start = falcon_date(process_start - timedelta(days=1))
    for kind in ("clusters", "feeds", "processes"):
        (folder / kind).mkdir(parents=True, exist_ok=True)
    (folder / "clusters" / "primary.xml").write_text(
        cluster("primary", f"file://{storage}", colo="bench", spark="local[1]",
                locations={"staging": "/staging", "working": "/working"}))
    for i in range(count):
        for name in (f"in-{i}", f"out-{i}"):
            (folder / "feeds" / f"{name}.xml").write_text(FEED.format(name=name, start=feed_start))
        (folder / "processes" / f"process-{i}.xml").write_text(PROCESS.format(i=i, start=falcon_date(process_start)))


def flag_path(storage: Path, feed: str, instance: datetime) -> Path:
    return storage / "data" / feed / instance.strftime("%Y/%m/%d/%H") / "_SUCCESS"


# -- the two DAG folders --------------------------------------------------------------------------------------------


def our_folder(dags: Path) -> None:
    from falcon_airflow.dags.shards import shard_file_name

    dags.mkdir(parents=True)
    for index in range(SHARDS):
        (dags / shard_file_name(index)).write_text(OUR_DAG_FILE)


def plain_folder(dags: Path, our_dags: dict[str, Any], storage: Path) -> None:
    """Plain DAGs with the schedule arguments our DAGs got (start, catch-up, max runs, poke interval, timeout)."""
    specs = []
    for dag_id, dag in sorted(our_dags.items()):
        spec: dict[str, Any] = {"dag_id": f"plain.{dag_id.removeprefix('falcon.')}",
                                "start": dag.start_date.isoformat(), "catchup": bool(dag.catchup),
                                "max_active_runs": dag.max_active_runs}
        if ".process." in dag_id:
            sensor = dag.get_task("wait_for_in")
            workflow = dag.get_task("workflow")
            index = dag_id.split(".")[2].removeprefix("process-")
            spec.update(kind="process", poke=float(sensor.poke_interval), timeout=float(sensor.timeout),
                        parallel=workflow.max_active_tis_per_dag,
                        flag=str(storage / "data" / f"in-{index}")
                        + "/{{ data_interval_start.strftime('%Y/%m/%d/%H') }}/_SUCCESS")
        else:
            spec.update(kind="retention")
        specs.append(spec)
    dags.mkdir(parents=True)
    for shard in range(SHARDS):
        part = specs[shard::SHARDS]
        (dags / f"plain_{shard}.py").write_text(PLAIN_DAG_FILE.format(specs=json.dumps(part), shard=shard,
                                                                      shards=SHARDS))


# -- PostgreSQL ----------------------------------------------------------------------------------------------------


def _as_postgres(command: list[str]) -> list[str]:
    # PostgreSQL refuses to run as root; on a root shell (containers, CI) the cluster runs as the postgres user
    return ["runuser", "-u", "postgres", "--", *command] if os.geteuid() == 0 else command


@contextmanager
def postgres(work: Path) -> Iterator[str]:
    data, sockets = work / "pgdata", work / "pgsock"
    sockets.mkdir()
    if os.geteuid() == 0:
        shutil.chown(work, "postgres")
        shutil.chown(sockets, "postgres")
    port = free_port()
    subprocess.run(_as_postgres(["initdb", "-D", str(data), "-A", "trust", "-U", "postgres", "--no-sync"]),
                   check=True, capture_output=True, timeout=300)
    options = f"-p {port} -k {sockets} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200"
    subprocess.run(_as_postgres(["pg_ctl", "-D", str(data), "-o", options, "-l", str(work / "postgres.log"),
                                 "-w", "-t", "120", "start"]), check=True, capture_output=True, timeout=180)
    try:
        yield f"postgresql+psycopg2://postgres@127.0.0.1:{port}"
    finally:
        subprocess.run(_as_postgres(["pg_ctl", "-D", str(data), "-m", "fast", "-w", "-t", "60", "stop"]),
                       check=False, capture_output=True, timeout=120)


def sql(url: str, database: str, statement: str, *, autocommit: bool = False) -> list[tuple[Any, ...]]:
    import psycopg2

    dsn = url.replace("postgresql+psycopg2://", "postgresql://") + f"/{database}"
    connection = psycopg2.connect(dsn)
    try:
        connection.autocommit = autocommit
        with connection.cursor() as cursor:
            cursor.execute(statement)
            rows = cursor.fetchall() if cursor.description else []
        if not autocommit:
            connection.commit()
        return rows
    finally:
        connection.close()


# -- Airflow -------------------------------------------------------------------------------------------------------


def lineage_enabled() -> bool:
    return os.environ.get("FALCON_BENCH_LINEAGE", "off").strip().lower() == "on"


def lineage_settings(home: Path) -> dict[str, str]:
    """OpenLineage off, or (``FALCON_BENCH_LINEAGE=on``) every event of the side into a file in its home."""
    if not lineage_enabled():
        return {"AIRFLOW__OPENLINEAGE__DISABLED": "True"}
    return {"AIRFLOW__OPENLINEAGE__TRANSPORT": json.dumps({"type": "file", "append": True,
                                                          "log_file_path": str(home / "lineage.jsonl")})}


class Airflow:
    """The four components of one side, started one by one (the api-server first: workers report to it)."""

    def __init__(self, home: Path, dags: Path, database_url: str, extra: dict[str, str]) -> None:
        self.home = home
        self.port = free_port()
        home.mkdir(parents=True)
        self.environment = {
            **os.environ, **extra,
            "AIRFLOW_HOME": str(home), "AIRFLOW__CORE__DAGS_FOLDER": str(dags),
            "AIRFLOW__DATABASE__SQL_ALCHEMY_CONN": database_url,
            "AIRFLOW__CORE__LOAD_EXAMPLES": "False", "AIRFLOW__CORE__EXECUTOR": "LocalExecutor",
            "AIRFLOW__CORE__PARALLELISM": str(PARALLELISM),
            "AIRFLOW__CORE__DAGS_ARE_PAUSED_AT_CREATION": "False",
            "AIRFLOW__CORE__AUTH_MANAGER":
                "airflow.api_fastapi.auth.managers.simple.simple_auth_manager.SimpleAuthManager",
            "AIRFLOW__CORE__SIMPLE_AUTH_MANAGER_USERS": "admin:admin",
            "AIRFLOW__API__HOST": "127.0.0.1", "AIRFLOW__API__PORT": str(self.port),
            "AIRFLOW__API__BASE_URL": f"http://127.0.0.1:{self.port}",
            "AIRFLOW__CORE__EXECUTION_API_SERVER_URL": f"http://127.0.0.1:{self.port}/execution/",
            "AIRFLOW__API_AUTH__JWT_SECRET": secrets.token_hex(16),
            "AIRFLOW__WORKERS__EXECUTION_API_TIMEOUT": "60",
            "AIRFLOW__DAG_PROCESSOR__REFRESH_INTERVAL": "10",
            **lineage_settings(home),
            "AIRFLOW_CONN_FS_DEFAULT": json.dumps({"conn_type": "fs", "extra": {"path": "/"}}),
            "PATH": f"{BIN}:{os.environ.get('PATH', '')}",
        }
        self.processes: dict[str, subprocess.Popen[bytes]] = {}

    def run(self, *arguments: str) -> None:
        result = subprocess.run([str(BIN / "airflow"), *arguments], env=self.environment, capture_output=True,
                                text=True, timeout=900)
        if result.returncode != 0:
            raise RuntimeError(f"airflow {' '.join(arguments)} failed: {result.stderr[-3000:]}")

    def start(self, name: str, *arguments: str) -> None:
        log = open(self.home / f"{name}.log", "wb")  # noqa: SIM115  (closed with the process)
        self.processes[name] = subprocess.Popen([str(BIN / "airflow"), *arguments], env=self.environment,
                                                stdout=log, stderr=subprocess.STDOUT, start_new_session=True)

    def start_all(self) -> None:
        self.start("api-server", "api-server", "--host", "127.0.0.1", "--port", str(self.port))
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            with suppress(OSError), socket.create_connection(("127.0.0.1", self.port), timeout=1):
                break
            if self.processes["api-server"].poll() is not None:
                raise RuntimeError("the api-server stopped; see " + str(self.home / "api-server.log"))
            time.sleep(1)
        self.start("dag-processor", "dag-processor")
        self.start("scheduler", "scheduler", "--skip-serve-logs")
        self.start("triggerer", "triggerer", "--skip-serve-logs")

    def stop(self) -> None:
        for process in self.processes.values():
            with suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGTERM)
        for process in self.processes.values():
            try:
                process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                with suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=30)


def _process_tree(pid: int) -> list[Any]:
    """The process and its live descendants as psutil processes (empty once it is gone)."""
    import psutil

    try:
        root = psutil.Process(pid)
        return [root, *root.children(recursive=True)]
    except psutil.Error:
        return []


def cpu_split(pid: int) -> tuple[float, float]:
    """CPU seconds of a process itself, and of it with every descendant, live or already reaped."""
    import psutil

    own, total = 0.0, 0.0
    for member in _process_tree(pid):
        with suppress(psutil.Error):
            times = member.cpu_times()
            spent = times.user + times.system
            total += spent + times.children_user + times.children_system
            if member.pid == pid:
                own = spent
    return own, total


def tree_usage(pid: int) -> tuple[int, float]:
    """RSS bytes and CPU seconds of a process and its children."""
    import psutil

    rss, cpu = 0, 0.0
    for member in _process_tree(pid):
        with suppress(psutil.Error):
            rss += member.memory_info().rss
            times = member.cpu_times()
            cpu += times.user + times.system
    return rss, cpu


# -- one side --------------------------------------------------------------------------------------------------------


def run_side(label: str, url: str, work: Path, dags: Path, storage: Path, extra: dict[str, str], count: int,
             hours: int, wave: float, limit: float, first_instance: datetime) -> dict[str, Any]:
    database = f"bench_{label}"
    sql(url, "postgres", f"CREATE DATABASE {database}", autocommit=True)
    airflow = Airflow(work / f"home-{label}", dags, f"{url}/{database}", extra)
    airflow.run("db", "migrate")
    shutil.rmtree(storage / "data", ignore_errors=True)
    flags: dict[str, float] = {}
    expected = count * hours
    samples: list[tuple[float, int, float]] = []
    deferred_peak = 0
    started = time.time()
    cpu_before = machine_cpu_seconds()
    airflow.start_all()
    try:
        waves = [first_instance + timedelta(hours=hour) for hour in range(hours)]
        next_wave = started + 60.0  # the first wave once the DAGs are parsed and the first runs wait
        deadline = started + limit
        done = 0
        while time.time() < deadline:
            now = time.time()
            if waves and now >= next_wave:
                instance = waves.pop(0)
                for i in range(count):
                    path = flag_path(storage, f"in-{i}", instance)
                    path.parent.mkdir(parents=True, exist_ok=True)
                    path.write_text("")
                    flags[str(path)] = time.time()
                next_wave = now + wave
            rss, cpu = tree_usage(airflow.processes["triggerer"].pid)
            samples.append((now, rss, cpu))
            with suppress(Exception):
                deferred = sql(url, database, "SELECT count(*) FROM task_instance WHERE state='deferred'")[0][0]
                deferred_peak = max(deferred_peak, deferred)
                done = sql(url, database, "SELECT count(*) FROM dag_run WHERE dag_id LIKE '%%.process.%%' "
                                          "AND state='success'")[0][0]
            if not waves and done >= expected:
                break
            time.sleep(2.0)
    finally:
        components = {name: cpu_split(process.pid) for name, process in airflow.processes.items()}
        airflow.stop()
    result = collect(label, url, database, flags, samples, deferred_peak, expected)
    result["machine_cpu_seconds"] = machine_cpu_seconds() - cpu_before
    scheduler_own, scheduler_tree = components.get("scheduler", (0.0, 0.0))
    result.update(scheduler_cpu=scheduler_own, tasks_cpu=scheduler_tree - scheduler_own,
                  api_server_cpu=components.get("api-server", (0.0, 0.0))[1],
                  dag_processor_cpu=components.get("dag-processor", (0.0, 0.0))[1])
    return result


def machine_cpu_seconds() -> float:
    """CPU seconds the whole machine has spent busy (user, nice, system, irq) since boot: a side's Airflow
    components, task processes and PostgreSQL together, on a machine where nothing else runs."""
    fields = Path("/proc/stat").read_text().splitlines()[0].split()[1:]
    busy = sum(int(value) for value in fields[:3]) + sum(int(value) for value in fields[5:8])
    return busy / os.sysconf("SC_CLK_TCK")


def collect(label: str, url: str, database: str, flags: dict[str, float], samples: list[tuple[float, int, float]],
            deferred_peak: int, expected: int) -> dict[str, Any]:
    runs = sql(url, database, "SELECT dag_id, run_id, state, extract(epoch from start_date), "
                              "extract(epoch from end_date) FROM dag_run WHERE dag_id LIKE '%%.process.%%'")
    finished = [row for row in runs if row[2] == "success" and row[3] and row[4]]
    tasks = sql(url, database, "SELECT count(*), min(extract(epoch from start_date)), "
                               "max(extract(epoch from end_date)) FROM task_instance WHERE state='success'")[0]
    first_start = min(float(row[3]) for row in finished) if finished else 0.0
    last_end = max(float(row[4]) for row in finished) if finished else 0.0
    minutes = max(1e-9, (last_end - first_start) / 60)
    # which flag each run waited for: the sensor's rendered markers (ours) or file path (plain)
    rendered = sql(url, database, "SELECT r.dag_id, r.run_id, r.rendered_fields::text, "
                                  "extract(epoch from t.start_date) FROM rendered_task_instance_fields r "
                                  "JOIN task_instance t ON t.dag_id=r.dag_id AND t.run_id=r.run_id "
                                  "AND t.task_id='clear_outputs' AND t.map_index=-1 "
                                  "WHERE r.task_id='wait_for_in' AND t.start_date IS NOT NULL")
    latencies = []
    for _, _, fields, begun in rendered:
        values = json.loads(fields)
        path = values.get("markers") or values.get("filepath") or ""
        path = path.removeprefix("file://")
        if path in flags and begun is not None:
            latencies.append(max(0.0, float(begun) - flags[path]))
    per_task = sql(url, database, "SELECT task_id, count(*), avg(extract(epoch from end_date - start_date)), "
                                  "avg(extract(epoch from start_date - queued_dttm)) FROM task_instance "
                                  "WHERE state='success' GROUP BY task_id ORDER BY task_id")
    size = sql(url, database, "SELECT pg_database_size(current_database())")[0][0]
    peak_rss = max((rss for _, rss, _ in samples), default=0)
    cpu = samples[-1][2] - samples[0][2] if len(samples) > 1 else 0.0
    span = samples[-1][0] - samples[0][0] if len(samples) > 1 else 1.0
    latencies.sort()
    return {
        "side": label, "process_runs": len(finished), "expected": expected,
        "runs_per_minute": len(finished) / minutes, "tasks": int(tasks[0] or 0),
        "tasks_per_minute": float(tasks[0] or 0) / max(1e-9, (float(tasks[2] or 0) - float(tasks[1] or 0)) / 60),
        "latency_count": len(latencies),
        "latency_median": statistics.median(latencies) if latencies else float("nan"),
        "latency_p95": latencies[int(0.95 * (len(latencies) - 1))] if latencies else float("nan"),
        "latency_max": latencies[-1] if latencies else float("nan"),
        "triggerer_peak_rss_mb": peak_rss / 2**20, "triggerer_cpu_seconds": cpu,
        "triggerer_cpu_percent": 100 * cpu / max(1e-9, span), "deferred_peak": deferred_peak,
        "database_mb": size / 2**20,
        "per_task": [(task, int(count), float(run or 0), float(wait or 0)) for task, count, run, wait in per_task],
    }


def main() -> int:
    count, hours, wave, limit = scale()
    work = Path(tempfile.mkdtemp(prefix="falcon-bench-sched-"))
    os.chmod(work, 0o755)
    load_before = os.getloadavg()
    try:
        storage = work / "storage"
        storage.mkdir()
        entities = work / "entities"
        now = datetime.now(UTC).replace(minute=0, second=0, microsecond=0)
        first_instance = now - timedelta(hours=hours)
        write_estate(entities, storage, count, first_instance)
        our_dags, plain_dags = work / "dags-ours", work / "dags-plain"
        our_folder(our_dags)
        extra = {"FALCON_ENTITIES_DIR": str(entities), "AIRFLOW__FALCON__CATCHUP": "True",
                 "FALCON_BENCH_STORAGE": str(storage),
                 "AIRFLOW__FALCON__DAG_SHARDS": str(SHARDS)}
        os.environ.update(extra, AIRFLOW_HOME=str(work / "build-home"))
        from falcon_airflow.dags.loader import load_dags

        built = load_dags(folder=entities)
        if "falcon.invalid-entities" in built:
            raise RuntimeError(f"the benchmark estate is invalid: {built['falcon.invalid-entities'].doc_md}")
        plain_folder(plain_dags, built, storage)
        results = []
        with postgres(work) as url:
            order = [("ours", our_dags, extra), ("plain", plain_dags, {})]
            if os.environ.get("FALCON_BENCH_PLAIN_FIRST"):
                order.reverse()
            for label, dags, environment in order:
                results.append(run_side(label, url, work, dags, storage, environment, count, hours, wave, limit,
                                        first_instance))
        load_after = os.getloadavg()
    finally:
        if os.environ.get("FALCON_BENCH_KEEP"):
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    by_side = {result["side"]: result for result in results}
    ours, plain = by_side["ours"], by_side["plain"]
    print(f"scheduler under load: {count} hourly processes + {2 * count} feeds catching up {hours} h, inputs "
          f"arriving one hour per {wave:.0f} s; LocalExecutor, parallelism {PARALLELISM}, PostgreSQL; OpenLineage "
          f"{'on' if lineage_enabled() else 'off'}; "
          f"load average before {load_before[0]:.2f}, after {load_after[0]:.2f}; {os.cpu_count()} CPU(s)")
    rows = [("process runs finished", "process_runs", "{:.0f}"),
            ("process runs / minute", "runs_per_minute", "{:.1f}"),
            ("task instances / minute", "tasks_per_minute", "{:.1f}"),
            ("flag -> process start, median s", "latency_median", "{:.1f}"),
            ("flag -> process start, p95 s", "latency_p95", "{:.1f}"),
            ("flag -> process start, max s", "latency_max", "{:.1f}"),
            ("triggerer peak RSS MB", "triggerer_peak_rss_mb", "{:.0f}"),
            ("triggerer CPU s", "triggerer_cpu_seconds", "{:.1f}"),
            ("triggerer CPU %", "triggerer_cpu_percent", "{:.1f}"),
            ("sensors deferred at once (peak)", "deferred_peak", "{:.0f}"),
            ("metadata database MB", "database_mb", "{:.1f}"),
            ("machine CPU s (all processes)", "machine_cpu_seconds", "{:.0f}"),
            ("  scheduler CPU s (its own loop)", "scheduler_cpu", "{:.1f}"),
            ("  executor workers and tasks CPU s", "tasks_cpu", "{:.1f}"),
            ("  api-server CPU s", "api_server_cpu", "{:.1f}"),
            ("  dag-processor CPU s", "dag_processor_cpu", "{:.1f}")]
    print(f"  {'':34} {'ours':>10} {'plain':>10} {'ours/plain':>10}")
    for name, key, form in rows:
        ratio = ours[key] / plain[key] if plain[key] else float("nan")
        print(f"  {name:34} {form.format(ours[key]):>10} {form.format(plain[key]):>10} {ratio:10.2f}")
    print("  per task (successful instances): count, mean run s, mean queued -> start s")
    for result in (ours, plain):
        for task, number, run, wait in result["per_task"]:
            print(f"    {result['side']:6} {task:28} {number:6d} {run:8.2f} {wait:8.2f}")
    throughput = plain["runs_per_minute"] / ours["runs_per_minute"] if ours["runs_per_minute"] else float("inf")
    latency = ours["latency_median"] / plain["latency_median"] if plain["latency_median"] else float("nan")
    print(f"  goal within 1.2x of plain: throughput {throughput:.2f}x, median latency {latency:.2f}x; "
          f"{ours['latency_count']} / {plain['latency_count']} latencies measured; "
          f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    return 0 if ours["process_runs"] and plain["process_runs"] else 1


if __name__ == "__main__":
    sys.exit(main())
