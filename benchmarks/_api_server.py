"""What the API benchmarks (``api_entity_list``, ``api_instance_status``) share: a real Airflow api-server serving
Falcon's server at ``/falcon``, with the store in its metadata database, a large estate in the store, its DAGs in
Airflow, and the DAG runs of one process; and how a call is timed.

Set-up, once per scale (then cached, see below):

1. a temporary ``AIRFLOW_HOME`` on SQLite, ``airflow db migrate`` and the api-server
   (:class:`tests.integration.operate.harness.AirflowServer`, SimpleAuthManager ``admin``/``admin``) with
   ``[falcon] store = database`` and the store's DAG bundle as the only bundle (the settings of
   ``tests/integration/store/test_store_bundle.py``);
2. the estate of :func:`tests.estate.estate_documents` (one cluster, N hourly feeds, N hourly Spark processes) put
   into the store with :class:`~falcon_airflow.store.database.DatabaseStore`, as the server's submits would;
3. the DAGs: ``airflow dags reserialize``, which fetches the store bundle from the server as a dag-processor does,
   compiles the store's DAG file and writes every DAG to the database (one process, deterministic: a
   dag-processor does the same work for the bundle's single DAG file);
4. R DAG runs of ``process-1``'s DAG, one per hour of its frequency from its validity start, each created with
   ``POST /api/v2/dags/{dag_id}/dagRuns`` and marked ``success`` with ``PATCH .../dagRuns/{run_id}`` (Airflow's
   "mark success", which marks the run's task instances too), so ``instance -status`` reads a finished history.

The metadata database that results is kept in the work folder (``FALCON_BENCH_WORK``, else
``~/.cache/falcon-airflow/benchmarks``) under a key of the scale, Airflow's version and the sources the DAGs and
the store tables come from, with the time each step took; later runs copy it into a fresh home and start the
api-server on it (``airflow db migrate`` is skipped: the copy is that schema). ``FALCON_BENCH_FRESH=1`` builds it
again.

Every api-server runs with Python's cyclic garbage collector off (:data:`GARBAGE_COLLECTOR_OFF` says why).
The api-server is configured with ``[api] maximum_page_limit`` large enough for one page to hold every DAG and every
run (Airflow's default is 100), so that Airflow's baseline is one call, as Falcon's is. Falcon's calls and Airflow's
are measured on api-servers of their own, Airflow's one-page listing of every DAG on one of its own
(:func:`measure`).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

REPOSITORY = Path(__file__).resolve().parent.parent
RESULTS = Path(__file__).resolve().parent / "results"
SETUP_VERSION = 1
"""Raised when what the set-up builds changes, so that a cached database is built again."""
FULL_PROCESSES = 5000  # 10,000 entities: 5,000 feeds and 5,000 processes (and the cluster)
FULL_RUNS = 1000
PROCESS = "process-1"
CLUSTER = "primary"
PROCESS_START = datetime(2026, 1, 1, tzinfo=UTC)
GOAL_RATIO = 1.5
SOURCES = ("src/falcon_airflow/dags", "src/falcon_airflow/compiler", "src/falcon_airflow/store",
           "src/falcon_airflow/provider/store_migrations", "tests/estate.py")


GARBAGE_COLLECTOR_OFF = "import gc\ngc.disable()"
"""What every api-server of the benchmarks runs first: Python's cyclic garbage collector off. Airflow 3.3.2's
``GET /api/v2/dags`` on Python 3.11.7 and SQLite corrupts the heap when a collection runs while pydantic validates
the DAG rows (``from_attributes``): one process validating 1,000 rows a call with Airflow's ``DAGResponse`` dies
after 20 to 30 calls with the collector on, never with it off; reading the same attributes from Python does not
crash; pydantic 2.12 and 2.14 alike. An api-server dies sooner or later depending on what else it allocated (on a
loaded test machine within a few calls). With the collector off the servers' memory grows (about 10 MB per
1,000 DAGs listed) and their medians are the same (384 ms against 382 ms for 1,000 DAGs in one page); both sides
run so, and a server that dies anyway is started again (:func:`measure`)."""


def scale() -> float:
    value = os.environ.get("FALCON_BENCH_SCALE", "full")
    return {"quick": 0.2, "full": 1.0}.get(value) or float(value)


def sizes() -> tuple[int, int]:
    """(processes, runs) at ``FALCON_BENCH_SCALE``: 5,000 processes (10,000 entities) and 1,000 runs at 1."""
    factor = scale()
    return max(10, int(FULL_PROCESSES * factor)), max(10, int(FULL_RUNS * factor))


def process_dag_id(name: str = PROCESS) -> str:
    return f"falcon.process.{name}.{CLUSTER}"


def falcon_time(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%MZ")


def run_window(runs: int) -> tuple[datetime, datetime]:
    """The first and last instance of the runs (hourly from the process's validity start)."""
    return PROCESS_START, PROCESS_START + timedelta(hours=runs - 1)


# -- the Airflow home ---------------------------------------------------------------------------------------------

def _server(root: Path, page_limit: int) -> Any:
    from tests.integration.operate.harness import AirflowServer
    from tests.integration.store.test_store_bundle import dag_processor_env

    airflow = AirflowServer.prepare(root)
    dag_processor_env(airflow, root)
    airflow.env["AIRFLOW__DAG_PROCESSOR__DAG_BUNDLE_CONFIG_LIST"] = json.dumps(
        [{"name": "falcon-store", "classpath": "falcon_airflow.dags.store_bundle.FalconStoreBundle", "kwargs": {}}])
    airflow.env["AIRFLOW__API__MAXIMUM_PAGE_LIMIT"] = str(page_limit)
    # the set-up's reserialize parses the store's 10,000 DAGs in one file: on a loaded machine that takes longer than
    # Airflow's 30 s import timeout, which would leave the database without DAGs
    airflow.env["AIRFLOW__CORE__DAGBAG_IMPORT_TIMEOUT"] = "3600"
    airflow.env["AIRFLOW__FALCON__AIRFLOW_USER"] = "admin"  # the server acts in Airflow as its own user, as make run
    airflow.env["PYTHONFAULTHANDLER"] = "1"  # a crash leaves its Python stack in the api-server's log
    airflow.interpreter_setup = GARBAGE_COLLECTOR_OFF
    return airflow


def _cache_key(processes: int, runs: int) -> str:
    import airflow

    digest = hashlib.sha256(f"{SETUP_VERSION} {airflow.__version__} {processes} {runs}".encode())
    for source in SOURCES:
        path = REPOSITORY / source
        for item in sorted([path] if path.is_file() else path.rglob("*.py")):
            digest.update(str(item.relative_to(REPOSITORY)).encode())
            digest.update(item.read_bytes())
    return digest.hexdigest()[:12]


def work_folder() -> Path:
    configured = os.environ.get("FALCON_BENCH_WORK", "").strip()
    folder = Path(configured).expanduser() if configured else Path.home() / ".cache" / "falcon-airflow" / "benchmarks"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _timed(steps: dict[str, float], name: str, action: Callable[[], Any]) -> Any:
    started = time.perf_counter()
    result = action()
    steps[name] = time.perf_counter() - started
    print(f"  set-up: {name}: {steps[name]:.1f} s", flush=True)
    return result


def _build(target: Path, processes: int, runs: int) -> dict[str, Any]:
    """Make the estate's Airflow home under a temporary folder and keep its database as ``target/airflow.db``."""
    from sqlalchemy import create_engine, event
    from tests.estate import estate_documents

    from falcon_airflow.store.database import ABSENT, DatabaseStore

    steps: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="falcon-bench-api-setup-") as temporary:
        airflow = _server(Path(temporary), page_limit=max(2 * processes, runs) + 100)
        _timed(steps, "airflow db migrate and api-server start", airflow.start)
        try:
            engine = create_engine(airflow.database_url)
            # the set-up's own connection to SQLite: no fsync per submit (the measured server keeps its defaults)
            event.listen(engine, "connect", lambda connection, _: connection.execute("PRAGMA synchronous=OFF"))
            store = DatabaseStore(engine)

            def put_all() -> int:
                count = 0
                for kind, name, xml in estate_documents(processes, process_start=falcon_time(PROCESS_START)):
                    store.put(kind, name, xml.encode(), user="bench", replaces=ABSENT)
                    count += 1
                store.set_schedule_state("process", PROCESS, "RUNNING", user="bench")
                return count

            entities = _timed(steps, f"{1 + 2 * processes} definitions into the store (DatabaseStore)", put_all)
            engine.dispose()
            _timed(steps, "airflow dags reserialize (the store bundle)",
                   lambda: airflow.airflow("dags", "reserialize", timeout=7200))
            client = airflow.client()
            dag_id = process_dag_id()
            dags = int(client.request("GET", "/dags", params={"limit": 1})["total_entries"])
            if dags < 2 * processes:
                raise RuntimeError(f"reserialize made {dags} DAGs of {2 * processes}")
            first, _ = run_window(runs)
            run_ids = [f"bench__{(first + timedelta(hours=hour)).isoformat()}" for hour in range(runs)]

            def trigger() -> None:
                for hour, run_id in enumerate(run_ids):
                    client.trigger(dag_id, first + timedelta(hours=hour), run_id=run_id)

            def mark() -> None:
                for run_id in run_ids:
                    client.patch_run(dag_id, run_id, state="success")

            _timed(steps, f"{runs} DAG runs created (POST /api/v2/dags/{{dag_id}}/dagRuns)", trigger)
            _timed(steps, f"{runs} DAG runs marked success (PATCH .../dagRuns/{{run_id}})", mark)
        finally:
            airflow.stop()
        target.mkdir(parents=True)
        shutil.copy2(airflow.home / "airflow.db", target / "airflow.db")
    return {"processes": processes, "entities": entities, "dags": dags, "runs": runs, "dag_id": dag_id,
            "steps": steps, "built": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "database_bytes": (target / "airflow.db").stat().st_size}


def prepared(processes: int, runs: int) -> tuple[Path, dict[str, Any], bool]:
    """The cached set-up of this scale (built now if missing): its folder, its description, whether it was built
    by this call."""
    folder = work_folder()
    key = _cache_key(processes, runs)
    prefix = f"api-{processes}-{runs}-"
    cached = folder / f"{prefix}{key}"
    with (folder / "api.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # two benchmarks started at once build it once
        fresh = os.environ.get("FALCON_BENCH_FRESH", "") not in ("", "0")
        if fresh and cached.exists():
            shutil.rmtree(cached)
        built = False
        if not (cached / "setup.json").exists():
            for stale in folder.glob(f"{prefix}*"):  # other keys of this scale: older sources
                shutil.rmtree(stale, ignore_errors=True)
            print(f"  set-up: building {cached} (once; later runs reuse it)", flush=True)
            building = folder / f".{prefix}{key}.{os.getpid()}"
            shutil.rmtree(building, ignore_errors=True)
            try:
                description = _build(building, processes, runs)
                (building / "setup.json").write_text(json.dumps(description, indent=2))
                building.rename(cached)
            finally:
                shutil.rmtree(building, ignore_errors=True)
            built = True
    return cached, json.loads((cached / "setup.json").read_text()), built


@contextlib.contextmanager
def running_server(processes: int, runs: int, description: dict[str, Any]) -> Iterator[Any]:
    """The api-server on a fresh copy of the cached set-up's database; its start-up time goes to
    ``description["started"]``."""
    cached = work_folder() / description["folder"]
    with tempfile.TemporaryDirectory(prefix="falcon-bench-api-") as temporary:
        airflow = _server(Path(temporary), page_limit=max(2 * processes, runs) + 100)
        started = time.perf_counter()
        shutil.copy2(cached / "airflow.db", airflow.home / "airflow.db")
        airflow.start(migrate=False)
        description["started"].append(time.perf_counter() - started)
        try:
            yield airflow
        except BaseException:
            log = airflow.home / "api-server.log"
            if log.exists():
                print(f"--- the api-server's log, last lines ---\n{log.read_text(errors='replace')[-6000:]}")
            raise
        finally:
            airflow.stop()


def setup(processes: int, runs: int) -> dict[str, Any]:
    """The set-up of this scale (built now if it is not cached), described: its steps' times, what it holds."""
    cached, description, built = prepared(processes, runs)
    return {**description, "folder": cached.name, "built_now": built, "started": []}


# -- timing calls ---------------------------------------------------------------------------------------------------

def token(url: str) -> str:
    import httpx

    answer = httpx.post(f"{url}/auth/token", json={"username": "admin", "password": "admin"}, timeout=60)
    answer.raise_for_status()
    return str(answer.json()["access_token"])


@dataclass
class Call:
    """One REST call as a client makes it, checked by ``check`` (which returns how many items it listed).
    ``paged``: an Airflow listing read page after page (``limit`` in ``params``) until its ``total_entries``, as a
    client of Airflow's default page limit reads it; one figure is the whole listing. ``repeat``: fewer timed
    calls than the others."""

    label: str
    path: str
    params: dict[str, str]
    accept: str
    check: Callable[[bytes], int]
    paged: bool = False
    repeat: int | None = None


def timed(client: Any, call: Call) -> tuple[float, int, int, int]:
    """(seconds, items listed, body bytes, requests) of one call (or one paged listing): requests sent to the
    last body read whole."""
    started = time.perf_counter()
    offset = items = size = requests = 0
    while True:
        params = {**call.params, "offset": str(offset)} if call.paged else call.params
        response = client.get(call.path, params=params, headers={"Accept": call.accept})
        body = response.content
        requests += 1
        if response.status_code != 200:
            raise RuntimeError(f"{call.label}: HTTP {response.status_code}: {body[:500]!r}")
        listed = call.check(body)
        items, size = items + listed, size + len(body)
        offset += listed
        if not call.paged or not listed or offset >= int(json.loads(body)["total_entries"]):
            return time.perf_counter() - started, items, size, requests


MAX_CRASHES = 5
"""How many times the api-server may die under one set of calls before the benchmark gives up."""


def _died(airflow: Any) -> bool:
    """Whether the api-server process has exited (a crash, when a call lost its connection). A crashing process
    on a loaded machine can take a while to go (its core written, its threads unwound): waited for up to 60 s."""
    try:
        airflow.process.wait(timeout=60)
    except subprocess.TimeoutExpired:
        return False
    return True


@dataclass
class _Timings:
    """What one call has measured so far."""

    times: list[float] = field(default_factory=list)
    first: float | None = None
    crashes: int = 0
    last: tuple[float, int, int, int] = (0.0, 0, 0, 0)
    load: list[float] = field(default_factory=list)


def measure(processes: int, runs: int, description: dict[str, Any], calls: list[Call],
            repeat: int) -> dict[str, dict[str, Any]]:
    """Time ``calls`` on an api-server of their own, started on a fresh copy of the set-up's database: each once to
    warm up, then ``repeat`` times, one call after the other, over one keep-alive connection with an Airflow token.
    Figures by call label.

    Airflow 3.3.2's api-server on Python 3.11 can die (SIGSEGV) while it lists DAGs, which is why the servers run
    without the cyclic garbage collector (:data:`GARBAGE_COLLECTOR_OFF`); should one die or drop a call anyway, the
    call's timing is lost: the server is stopped, started again on a fresh copy, the call warmed up again and its
    timing carried on, its log's last lines printed; the figures say how many times that happened (at most
    ``MAX_CRASHES``)."""
    import httpx

    state = {call.label: _Timings() for call in calls}

    def wanted(call: Call) -> int:
        return call.repeat or repeat

    crashes = 0
    while any(len(state[call.label].times) < wanted(call) for call in calls):
        with running_server(processes, runs, description) as airflow:
            bearer = token(airflow.url)
            current: Call | None = None
            try:
                with httpx.Client(base_url=airflow.url, headers={"Authorization": f"Bearer {bearer}"},
                                  timeout=600) as client:
                    for call in calls:
                        current, done = call, state[call.label]
                        if len(done.times) >= wanted(call):
                            continue
                        done.load.append(os.getloadavg()[0])
                        warm_up = timed(client, call)[0]  # after a restart too: the figures are of a warm server
                        done.first = warm_up if done.first is None else done.first
                        while len(done.times) < wanted(call):
                            done.last = timed(client, call)
                            done.times.append(done.last[0])
                        done.load.append(os.getloadavg()[0])
            except httpx.TransportError as error:
                if current is None:
                    raise
                crashes += 1
                state[current.label].crashes += 1
                what = "died" if _died(airflow) else f"dropped the connection ({error})"
                print(f"  the api-server {what} during {current.label} ({crashes} time(s)); starting it again",
                      flush=True)
                log = airflow.home / "api-server.log"
                if log.exists():
                    print(f"--- the api-server's log, last lines ---\n{log.read_text(errors='replace')[-3000:]}",
                          flush=True)
                if crashes > MAX_CRASHES:
                    raise
    figures: dict[str, dict[str, Any]] = {}
    for call in calls:
        done = state[call.label]
        _, items, size, requests = done.last
        figures[call.label] = {"call": call.label, "path": call.path, "params": call.params, "accept": call.accept,
                               "paged": call.paged, "seconds": done.times, "median": statistics.median(done.times),
                               "first": done.first, "listed": items, "bytes": size, "requests": requests,
                               "load_before": done.load[0], "load_after": done.load[-1],
                               "server_crashes": done.crashes}
    return figures


# -- reporting ------------------------------------------------------------------------------------------------------

def call_line(row: dict[str, Any]) -> str:
    """One call's figures: median, the warm-up call, every timed call, what it listed."""
    timings = ", ".join(f"{value * 1000:.0f}" for value in row["seconds"])
    requests = f" in {row['requests']} requests" if row["requests"] > 1 else ""
    crashes = (f"; the api-server died or dropped the call {row['server_crashes']} time(s) during it (started "
               "again, warmed up again)" if row["server_crashes"] else "")
    return (f"  {row['call']}: median {row['median'] * 1000:.0f} ms, warm-up {row['first'] * 1000:.0f} ms, "
            f"timed {timings} ms; {row['listed']} items{requests}, {row['bytes'] / 1e3:.0f} kB; load average "
            f"{row['load_before']:.2f} -> {row['load_after']:.2f}{crashes}")


def setup_lines(description: dict[str, Any]) -> list[str]:
    steps = description["steps"]
    lines = [f"set-up ({'built in this run' if description['built_now'] else 'cached, built ' + description['built']};"
             f" {sum(steps.values()):.1f} s in all, not part of any figure):"]
    lines += [f"  {name}: {seconds:.1f} s" for name, seconds in steps.items()]
    lines.append("  this run: api-servers started on fresh copies of the database in "
                 + ", ".join(f"{seconds:.1f} s" for seconds in description["started"]))
    lines.append(f"  metadata database: {description['database_bytes'] / 1e6:.0f} MB (SQLite), "
                 f"{description['dags']} DAGs, {description['runs']} runs of {description['dag_id']}")
    return lines


def write_results(name: str, title: str, figures: dict[str, Any], description: dict[str, Any],
                  lines: list[str], notes: list[str]) -> None:
    """``results/<name>.json`` and ``.md`` at full scale (or with ``FALCON_BENCH_WRITE=1``); a quicker run leaves
    the recorded results alone."""
    if scale() < 1 and os.environ.get("FALCON_BENCH_WRITE", "") in ("", "0"):
        print(f"  (scale {scale():g}: results/{name}.* not written; FALCON_BENCH_WRITE=1 writes them)")
        return
    measured = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    document = {"benchmark": name, "measured": measured, "scale": scale(), "cpus": os.cpu_count(),
                "python": sys.version.split()[0], "setup": description, **figures}
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / f"{name}.json").write_text(json.dumps(document, indent=2) + "\n")
    text = [f"# {name}: results", "", title.replace("``", "`"), "",
            f"Measured {measured} with `FALCON_BENCH_SCALE={os.environ.get('FALCON_BENCH_SCALE', 'full')} "
            f".venv/bin/python -m benchmarks {name}` on {os.cpu_count()} CPU(s); the raw figures are in "
            f"`{name}.json`.", "", "```", *lines, "```", *(part for note in notes for part in ("", note))]
    (RESULTS / f"{name}.md").write_text("\n".join(text).rstrip() + "\n")
    print(f"  written to results/{name}.json and results/{name}.md")
