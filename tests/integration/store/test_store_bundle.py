"""The store's DAG bundle for real: a temporary Airflow home on SQLite migrated with the store's tables, the
api-server serving Falcon's server, definitions put into the store, and a real ``airflow dag-processor`` whose
``[dag_processor] dag_bundle_config_list`` names the bundle. Its DAGs appear as the bundle's, compiled with the
entities folder (a process in the store reads a feed of the folder); an update is a new bundle version; a worker's
bundle of the first version lays out that revision as it was."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import Engine
from tests.builders import cluster, feed, process
from tests.integration.operate.harness import AIRFLOW, AirflowServer

from falcon_airflow.store.database import ABSENT, DatabaseStore

pytestmark = pytest.mark.xdist_group("airflow-store-bundle")

MANAGER = "falcon_airflow.provider.store_database.FalconStoreDBManager"
BUNDLE = "falcon-store"
BUNDLES = [{"name": BUNDLE, "classpath": "falcon_airflow.dags.store_bundle.FalconStoreBundle",
            "kwargs": {"refresh_interval": 2}},
           {"name": "dags-folder", "classpath": "airflow.dag_processing.bundles.local.LocalDagBundle", "kwargs": {}}]
WAIT = 90.0
T = TypeVar("T")


def dag_processor_env(airflow: AirflowServer, root: Path) -> None:
    airflow.env.update({
        "AIRFLOW__DATABASE__EXTERNAL_DB_MANAGERS": MANAGER,
        "AIRFLOW__API_AUTH__JWT_SECRET": "jwt-secret-shared-by-the-deployment",
        "AIRFLOW__FALCON__STORE": "database",
        "AIRFLOW__DAG_PROCESSOR__DAG_BUNDLE_CONFIG_LIST": json.dumps(BUNDLES),
        "AIRFLOW__DAG_PROCESSOR__DAG_BUNDLE_STORAGE_PATH": str(root / "bundles"),
        "AIRFLOW__DAG_PROCESSOR__BUNDLE_REFRESH_CHECK_INTERVAL": "1",
        "AIRFLOW__DAG_PROCESSOR__MIN_FILE_PROCESS_INTERVAL": "5",
        "AIRFLOW__DAG_PROCESSOR__PARSING_PROCESSES": "1",
    })


@contextlib.contextmanager
def dag_processor(airflow: AirflowServer) -> Iterator[Path]:
    log = airflow.home / "dag-processor.log"
    with log.open("wb") as output:
        started = subprocess.Popen([str(AIRFLOW), "dag-processor"], env=airflow.env, stdout=output,
                                   stderr=subprocess.STDOUT, start_new_session=True)
    try:
        yield log
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(started.pid, signal.SIGTERM)
        try:
            started.wait(timeout=20)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(started.pid, signal.SIGKILL)
            started.wait(timeout=10)


def rows(engine: Engine, query: str, **values: Any) -> list[Any]:
    with engine.connect() as connection:
        return list(connection.execute(text(query), values).all())


def wait_for(what: str, found: Callable[[], T | None], engine: Engine, airflow: AirflowServer) -> T:
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        value = found()
        if value:
            return value
        time.sleep(1)
    errors = rows(engine, "SELECT filename, stacktrace FROM import_error")
    logs = "\n".join(f"--- {name}\n{(airflow.home / name).read_text(errors='replace')[-4000:]}"
                     for name in ("dag-processor.log", "api-server.log") if (airflow.home / name).exists())
    pytest.fail(f"not within {WAIT:g} s: {what}\nimport errors: {errors}\n{logs}")


def bundle_state(engine: Engine) -> tuple[str | None, dict[str, tuple[str, bool]]]:
    """The store bundle's version and its DAGs (id: (bundle version of the newest DAG version, paused))."""
    versions = rows(engine, "SELECT version FROM dag_bundle WHERE name = :name", name=BUNDLE)
    dags = rows(engine, "SELECT d.dag_id, d.is_paused, (SELECT v.bundle_version FROM dag_version v WHERE "
                        "v.dag_id = d.dag_id ORDER BY v.version_number DESC LIMIT 1) FROM dag d "
                        "WHERE d.bundle_name = :name AND NOT d.is_stale", name=BUNDLE)
    return (versions[0][0] if versions else None), {dag_id: (version, bool(paused)) for dag_id, paused, version in dags}


def dag_hashes(engine: Engine) -> dict[str, str]:
    """The newest serialized DAG's hash by dag id."""
    return dict(rows(engine, "SELECT dag_id, dag_hash FROM serialized_dag ORDER BY last_updated, created_at"))


WORKER = textwrap.dedent("""
    import sys
    from airflow.dag_processing.bundles.manager import DagBundlesManager
    from airflow.dag_processing.dagbag import BundleDagBag

    bundle = DagBundlesManager().get_bundle(name=sys.argv[1], version=sys.argv[2])
    bundle.initialize()
    bag = BundleDagBag(dag_folder=str(bundle.path / "falcon_store_dags.py"), bundle_path=bundle.path,
                       bundle_name=sys.argv[1])
    print(sorted(bag.dags), bag.import_errors)
""")


def test_the_dag_processor_builds_the_store_s_dags_through_the_bundle(tmp_path: Path) -> None:
    airflow = AirflowServer.prepare(tmp_path)
    dag_processor_env(airflow, tmp_path)
    # the entities folder holds the cluster and the input feed; the store the rest
    (airflow.store / "clusters").mkdir()
    (airflow.store / "feeds").mkdir()
    (airflow.store / "clusters" / "c1.xml").write_text(cluster("c1", f"file://{airflow.storage}"))
    (airflow.store / "feeds" / "in.xml").write_text(feed("in"))
    airflow.start()  # airflow db migrate (the falcon_* tables too), then the api-server
    try:
        engine = create_engine(airflow.database_url)
        store = DatabaseStore(engine)
        every_hour = (("i", "in", "now(0,0)", "now(0,0)"),)
        first_process = process("p", inputs=every_hour, outputs=(("o", "out", "now(0,0)"),)).encode()
        store.put("feed", "out", feed("out").encode(), user="ann", replaces=ABSENT)
        store.put("process", "p", first_process, user="ann", replaces=ABSENT)
        store.set_schedule_state("process", "p", "RUNNING", user="ann")
        first = store.revision()
        with dag_processor(airflow):
            _, dags = wait_for(
                f"the DAGs of revision {first}",
                lambda: (state if (state := bundle_state(engine))[0] == str(first)
                         and "falcon.process.p.c1" in state[1] else None), engine, airflow)
            assert {"falcon.process.p.c1", "falcon.feed.in.retention.c1", "falcon.feed.out.retention.c1"} <= set(dags)
            assert dags["falcon.process.p.c1"] == (str(first), False)  # RUNNING in the store: unpaused
            # the dags folder's files build none of them (they would be another bundle's)
            assert not rows(engine, "SELECT dag_id FROM dag WHERE bundle_name = 'dags-folder' AND dag_id LIKE "
                                    "'falcon.%' AND NOT is_stale")
            hashes = dag_hashes(engine)
            # an update is a new version of the bundle
            store.put("process", "p", first_process.replace(b"hours(1)", b"hours(2)"), user="bob",
                      replaces=first_process)
            store.put("feed", "extra", feed("extra").encode(), user="bob", replaces=ABSENT)
            second = store.revision()
            _, dags = wait_for(
                f"the DAGs of revision {second}",
                lambda: (state if (state := bundle_state(engine))[0] == str(second)
                         and state[1].get("falcon.process.p.c1", ("",))[0] == str(second)
                         and "falcon.feed.extra.retention.c1" in state[1] else None), engine, airflow)
            # the process's DAG is the new definition's (hourly no more); the unchanged feed's DAG is the same
            changed = dag_hashes(engine)
            assert changed["falcon.process.p.c1"] != hashes["falcon.process.p.c1"]
            assert changed["falcon.feed.in.retention.c1"] == hashes["falcon.feed.in.retention.c1"]
        # a worker running a task of the first version gets that revision, through the server, as it was
        worker = subprocess.run([sys.executable, "-c", WORKER, BUNDLE, str(first)], env=airflow.env,
                                capture_output=True, text=True, timeout=120, check=False)
        assert worker.returncode == 0, worker.stderr[-3000:]
        assert "'falcon.process.p.c1'" in worker.stdout and "extra" not in worker.stdout, worker.stdout
        assert worker.stdout.rstrip().endswith("{}"), worker.stdout  # no import errors
    finally:
        airflow.stop()
