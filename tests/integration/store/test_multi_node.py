"""Several nodes, one truth: two api-servers (two Airflow homes, two ports, no shared folder) serving Falcon's
server and a third home running the dag-processor, scheduler and triggerer, all on one PostgreSQL - they behave as
one Falcon server. The commands go through falcon-airflow's command line as a client of either server
(``FALCON_URL``), as a team's users would call them."""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine
from sqlalchemy.engine import Engine
from tests.builders import cluster, feed
from tests.integration.airflow_database import airflow_database
from tests.integration.databases.servers import Server
from tests.integration.operate.harness import AirflowServer, processes
from tests.integration.operate.nodes import LEASE_SECONDS, PROGRAM, falcon, rows, shared_settings, wait_for

from falcon_airflow.store.database import DatabaseStore

pytestmark = pytest.mark.xdist_group("airflow-multi-node")

@pytest.fixture
def deployment(airflow_postgres: Server, tmp_path: Path) -> Iterator[
        tuple[AirflowServer, AirflowServer, dict[str, subprocess.Popen[bytes]], Engine]]:
    url = airflow_database(airflow_postgres, f"multi_{uuid.uuid4().hex[:8]}")
    first, second, third = (AirflowServer.prepare(tmp_path / name, url) for name in ("a", "b", "c"))
    for node in (first, second, third):
        # the bundle fetches from B: A is the one killed below
        shared_settings(node, tmp_path / node.home.parent.name, f"{second.url}/falcon")
    first.start()  # airflow db migrate: Airflow's tables and the store's
    second.start()
    try:
        with processes(third, "dag-processor", "scheduler", "triggerer") as started:
            yield first, second, started, create_engine(url)
    finally:
        first.stop()
        second.stop()


def test_two_api_servers_and_a_scheduler_node_behave_as_one_falcon_server(
        deployment: tuple[AirflowServer, AirflowServer, dict[str, subprocess.Popen[bytes]], Engine],
        tmp_path: Path) -> None:
    first, second, scheduling, engine = deployment
    logs = [tmp_path / "c" / "home" / "dag-processor.log", first.home / "api-server.log",
            second.home / "api-server.log"]
    drafts = tmp_path / "drafts"
    drafts.mkdir()
    storage = tmp_path / "storage"

    def draft(name: str, xml: str) -> str:
        path = drafts / name
        path.write_text(xml, encoding="utf-8")
        return str(path)

    def future_feed(name: str, **extra: Any) -> str:
        # valid from far ahead: the scheduler has no instance to run while the test looks at the DAGs
        return feed(name, start="2090-01-01T00:00Z", **{"clusters": (("east", "source"),),
                                                        "path": f"/data/{name}/${{YEAR}}/${{MONTH}}/${{DAY}}/${{HOUR}}",
                                                        **extra})

    # submit through A: the DAG appears, built by the dag-processor of the third home
    done = falcon(first, "entity", "-submit", "-type", "cluster", "-file",
                  draft("east.xml", cluster("east", f"file://{storage}")))
    assert done.returncode == 0, done.stderr
    done = falcon(second, "entity", "-submit", "-type", "cluster", "-file",
                  draft("west.xml", cluster("west", f"file://{storage}-west")))
    assert done.returncode == 0, done.stderr
    done = falcon(first, "entity", "-submit", "-type", "feed", "-file", draft("logs.xml", future_feed("logs")))
    assert (done.returncode, done.stdout.strip()) == (0, "Submit successful (feed) logs"), done.stderr
    wait_for("the DAG of the feed submitted through A",
             lambda: rows(engine, "SELECT dag_id FROM dag WHERE dag_id = 'falcon.feed.logs.retention.east' "
                                  "AND NOT is_stale"), logs)

    # schedule through A, suspend through B: A says SUSPENDED, and the DAG is paused
    assert falcon(first, "entity", "-schedule", "-type", "feed", "-name", "logs").returncode == 0
    suspended = falcon(second, "entity", "-suspend", "-type", "feed", "-name", "logs")
    assert suspended.returncode == 0, suspended.stderr
    status = falcon(first, "entity", "-status", "-type", "feed", "-name", "logs")
    assert status.returncode == 0 and "SUSPENDED" in status.stdout, status.stdout + status.stderr
    assert rows(engine, "SELECT is_paused FROM dag WHERE dag_id = 'falcon.feed.logs.retention.east'") == [(True,)]

    # the same name submitted through A and B at once: one entity; the same definition twice is two successes
    # (Falcon answers an identical resubmission so), two different ones a success and Falcon's refusal
    for name, xml_a, xml_b in (
            ("twin", future_feed("twin"), future_feed("twin")),
            ("rival", future_feed("rival"), future_feed("rival", retention="days(7)"))):
        answers: dict[str, subprocess.CompletedProcess[str]] = {}
        paths = {"A": draft(f"{name}-a.xml", xml_a), "B": draft(f"{name}-b.xml", xml_b)}

        def submit(key: str, node: AirflowServer, path: str, into: dict[str, Any]) -> None:
            into[key] = falcon(node, "entity", "-submit", "-type", "feed", "-file", path)

        threads = [threading.Thread(target=submit, args=(key, node, paths[key], answers))
                   for key, node in (("A", first), ("B", second))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        codes = sorted(answer.returncode for answer in answers.values())
        texts = " | ".join(answer.stdout + answer.stderr for answer in answers.values())
        if name == "twin":
            assert codes == [0, 0], texts
        else:
            assert codes == [0, 1] and "already registered" in texts, texts
        assert rows(engine, "SELECT count(*) FROM falcon_definition WHERE kind = 'feed' AND name = :name "
                            "AND current_key IS NOT NULL", name=name) == [(1,)]
        assert rows(engine, "SELECT count(*) FROM falcon_definition WHERE name = :name AND current_key IS NULL",
                    name=name) == [(0,)]

    # kill -9 of A in the middle of an update: the store is before or after, never between; B's next action
    # finishes what A left (once A's lease has run out). The update adds a cluster, so its last step waits for the
    # new DAG; the dag-processor is held (SIGSTOP) meanwhile, so the kill falls inside the update for certain.
    falcon(second, "entity", "-resume", "-type", "feed", "-name", "logs")
    store = DatabaseStore(engine)
    old = store.current("feed", "logs")
    assert old is not None
    new_xml = future_feed("logs", clusters=(("east", "source"), ("west", "target")))
    processor = scheduling["dag-processor"]
    os.killpg(processor.pid, signal.SIGSTOP)
    update = subprocess.Popen([PROGRAM, "entity", "-update", "-type", "feed", "-name", "logs", "-file",
                               draft("logs-new.xml", new_xml)],
                              env={**{k: v for k, v in os.environ.items() if not k.startswith(("AIRFLOW", "FALCON_"))},
                                   "FALCON_URL": f"{first.url}/falcon", "FALCON_AIRFLOW_USER": "admin"},
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    def written() -> bool:
        current = store.current("feed", "logs")
        return (current is not None and current.content != old.content) or update.poll() is not None

    wait_for("the update's write", written, logs)
    time.sleep(1.0)  # inside the step that waits for the new DAG
    assert first.process is not None
    os.killpg(first.process.pid, signal.SIGKILL)
    first.process.wait(timeout=30)
    update.communicate(timeout=120)
    assert len(store.journals()) == 1  # cut short: its journal says how far it came
    current = store.current("feed", "logs")
    assert current is not None and current.content == new_xml.encode()  # after its commit point, whole
    assert [version.content for version in store.history("feed", "logs")] == [old.content]
    os.killpg(processor.pid, signal.SIGCONT)
    after = falcon(second, "entity", "-status", "-type", "feed", "-name", "logs", timeout=LEASE_SECONDS + 180)
    assert after.returncode == 0, after.stderr
    assert "completed the interrupted update of (feed) logs" in after.stderr, after.stderr
    assert store.journals() == []
    assert [version.content for version in store.history("feed", "logs")] == [old.content]  # archived once
    wait_for("the DAG of the added cluster, unpaused (the feed is RUNNING)",
             lambda: rows(engine, "SELECT is_paused FROM dag WHERE dag_id = 'falcon.feed.logs.retention.west' "
                                  "AND NOT is_stale") == [(False,)], logs)
    definition = falcon(second, "entity", "-definition", "-type", "feed", "-name", "logs")
    assert 'name="west"' in definition.stdout, definition.stdout
    # both servers' requests are in the one audit trail
    audit = falcon(second, "admin", "-audit")
    assert audit.returncode == 0 and "suspend" in audit.stdout and "update" in audit.stdout, audit.stdout
