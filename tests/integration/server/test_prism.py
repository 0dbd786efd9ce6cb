"""Falcon's distributed mode for real: two colo servers (east, west) and a Prism, each an Airflow api-server on
SQLite (the Prism's in ``[falcon] mode = prism``), reached over HTTP as Falcon's clients reach them.

The seeds' scenario: a cluster per colo submitted through the Prism reaches both colos, a feed on both clusters
too; with west stopped, scheduling the feed is PARTIAL (east scheduled, west named with why); with west back, the
same request completes west and leaves east untouched; ``entity -list`` is merged with colo labels, through the
stock Falcon CLI as well. Each colo (``[falcon] colo``) builds the DAGs of its own cluster: east the feed's retention
on east, west its retention on west and the replication from east into west, which, run in west, copies an
instance from east's storage into west's (two folders, the two clusters' file systems). ``entity -dependency`` and
``-summary`` through the Prism: the entity's colos merged, the cluster's colo.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from xml.etree import ElementTree

import httpx
import pytest
from tests.builders import ops_cluster, ops_feed
from tests.integration.operate.harness import AirflowServer

from .conftest import StockCli

pytestmark = pytest.mark.xdist_group("airflow-prism")

USER = {"user.name": "admin"}  # Falcon's simple scheme, as the stock CLI authenticates


def concurrently(*steps: Callable[[], object]) -> None:
    """Each step on a thread of its own (on two cores, starting three api-servers one by one costs a minute)."""
    problems: list[BaseException] = []

    def run(step: Callable[[], object]) -> None:
        try:
            step()
        except BaseException as problem:  # re-raised below, on the test's thread
            problems.append(problem)

    threads = [threading.Thread(target=run, args=(step,)) for step in steps]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if problems:
        raise problems[0]


@dataclass
class Deployment:
    east: AirflowServer
    west: AirflowServer
    prism: AirflowServer

    def call(self, method: str, path: str, body: str | None = None, **params: str) -> httpx.Response:
        return httpx.request(method, f"{self.prism.url}/falcon/api/{path}", params={**USER, **params},
                             content=body, timeout=120,
                             headers={"Accept": "application/json", "Content-Type": "text/xml"})


def _colo(root: Path, name: str) -> AirflowServer:
    server = AirflowServer.prepare(root / name)
    server.env.update({"AIRFLOW__FALCON__AUTHENTICATION": "simple", "AIRFLOW__FALCON__AIRFLOW_USER": "admin",
                       "AIRFLOW__FALCON__COLO": name})
    return server


@pytest.fixture(scope="module")
def storage(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The clusters' file systems: cluster east's data under ``storage/east``, west's under ``storage/west``."""
    return tmp_path_factory.mktemp("prism-storage")


@pytest.fixture(scope="module")
def deployment(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployment]:
    root = tmp_path_factory.mktemp("falcon-prism")
    east, west, prism = _colo(root, "east"), _colo(root, "west"), _colo(root, "prism")
    prism.env.update({"AIRFLOW__FALCON__MODE": "prism", "AIRFLOW__FALCON__PRISM_TIMEOUT": "60",
                      "AIRFLOW__FALCON__PRISM_COLOS": f"east={east.url}/falcon,west={west.url}/falcon"})
    # one migration, copied: the three databases start alike (SQLite files), and migrating costs half a minute
    east.airflow("db", "migrate")
    for other in (west, prism):
        shutil.copy(east.home / "airflow.db", other.home / "airflow.db")
    try:
        concurrently(*(lambda server=server: server.start(migrate=False) for server in (east, west, prism)))
        yield Deployment(east, west, prism)
    finally:
        for server in (prism, west, east):
            server.stop()


def falcon_airflow(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """The ``falcon-airflow`` command, as a user of the deployment runs it (Falcon's simple scheme as admin)."""
    clean = {key: value for key, value in os.environ.items() if not key.startswith(("FALCON_", "AIRFLOW"))}
    return subprocess.run([str(Path(sys.executable).parent / "falcon-airflow"), *args],
                          env={**clean, "FALCON_AIRFLOW_USER": "admin", **(env or {})}, capture_output=True,
                          text=True, timeout=300, check=False)


def paused(server: AirflowServer, dag_id: str) -> bool | None:
    dag = server.client().dag(dag_id)
    return None if dag is None else bool(dag["is_paused"])


def test_partial_schedule_completed_by_the_same_request_and_the_merged_list(
        deployment: Deployment, stock_cli: StockCli, storage: Path) -> None:
    east, west = deployment.east, deployment.west
    version = deployment.call("GET", "admin/version").json()
    assert {"key": "Mode", "value": "prism"} in version["properties"], version

    for name in ("east", "west"):
        answer = deployment.call("POST", "entities/submit/cluster",
                                 ops_cluster(name, colo=name, storage=storage))
        assert answer.json()["status"] == "SUCCEEDED", answer.text
        colos = [line for line in answer.json()["message"].splitlines() if "Submit successful" in line]
        assert colos == [f"east/falcon/default/Submit successful (cluster) {name}",
                         f"west/falcon/default/Submit successful (cluster) {name}"], answer.text
    answer = deployment.call("POST", "entities/submit/feed", ops_feed("clicks", west=True))
    assert answer.json()["status"] == "SUCCEEDED", answer.text
    for colo in (east, west):  # each colo's own store has the entities the Prism sent it
        assert (colo.store / "feeds" / "clicks.xml").is_file() or any(colo.store.rglob("clicks.xml")), colo.store
    concurrently(east.reserialize, west.reserialize)  # the colos' dag-processors, once
    dag, west_dag = "falcon.feed.clicks.retention.east", "falcon.feed.clicks.retention.west"
    replication = "falcon.feed.clicks.replication.east.west"
    # each colo's Airflow has the DAGs of its own cluster; the replication runs where it pulls to, in west
    assert [paused(east, item) for item in (dag, west_dag, replication)] == [True, None, None]
    assert [paused(west, item) for item in (dag, west_dag, replication)] == [None, True, True]

    west.stop()
    answer = deployment.call("POST", "entities/schedule/feed/clicks")
    document = answer.json()
    assert (answer.status_code, document["status"]) == (200, "PARTIAL"), answer.text
    lines = document["message"].splitlines()
    assert lines[0] == "east/default/clicks(feed) scheduled successfully", lines
    assert lines[1].startswith(f"west/cannot reach {west.url}/falcon"), lines
    assert paused(east, dag) is False

    west.start(migrate=False)
    answer = deployment.call("POST", "entities/schedule/feed/clicks")
    document = answer.json()
    assert (answer.status_code, document["status"]) == (200, "SUCCEEDED"), answer.text
    assert document["message"] == ("east/clicks(feed) is already RUNNING with this definition here: unchanged\n"
                                   "west/default/clicks(feed) scheduled successfully\n")
    assert paused(west, west_dag) is False and paused(west, replication) is False and paused(east, dag) is False

    answer = deployment.call("GET", "entities/list/feed", fields="status")
    assert answer.status_code == 200, answer.text
    entities = answer.json()["entity"]
    assert entities == {"type": "FEED", "name": "clicks", "status": "east/RUNNING,west/RUNNING"}, entities
    listed = httpx.get(f"{deployment.prism.url}/falcon/api/entities/list/cluster", params=USER,
                       headers={"Accept": "text/xml"}, timeout=60)
    # without its status, an element is labelled with the colos that hold it
    names = {item.findtext("name"): item.findtext("status")
             for item in ElementTree.fromstring(listed.text).iter("entity")}
    assert names == {"east": "east,west", "west": "east,west"}, listed.text

    # the stock Falcon 0.9 CLI, pointed at the Prism as at any Falcon server
    run = stock_cli("entity", "-list", "-type", "feed", "-fields", "status",
                    url=f"{deployment.prism.url}/falcon")
    assert run.returncode == 0, run.stderr + run.stdout
    assert "(FEED) clicks(east/RUNNING,west/RUNNING)" in run.stdout, run.stdout
    # an instance command (the 0.9 CLI sends colo=*): both colos' answers, each under its colo
    run = stock_cli("instance", "-status", "-type", "feed", "-name", "clicks", "-start", "2026-01-01T00:00Z",
                    "-end", "2026-01-01T01:00Z", url=f"{deployment.prism.url}/falcon")
    assert run.returncode == 0, run.stderr + run.stdout
    assert "Consolidated Status: SUCCEEDED" in run.stdout, run.stdout
    assert "east/" in run.stdout and "west/" in run.stdout, run.stdout


def test_prism_sync_brings_a_colo_that_was_down_up_to_date(deployment: Deployment) -> None:
    east, west = deployment.east, deployment.west
    west.stop()
    answer = deployment.call("POST", "entities/submit/feed", ops_feed("views", west=True))
    assert (answer.status_code, answer.json()["status"]) == (200, "PARTIAL"), answer.text
    west.start(migrate=False)
    assert not any(west.store.rglob("views.xml"))

    run = falcon_airflow("prism", "sync", "--url", f"{deployment.prism.url}/falcon")
    assert run.returncode == 0, run.stdout + run.stderr
    lines = run.stdout.splitlines()
    assert lines[-1] == "SUCCEEDED", run.stdout
    west_line = next(line for line in lines if line.startswith("west/"))
    assert "views(feed): falcon/default/Submit successful (feed) views" in west_line, run.stdout
    assert "clicks(feed): clicks(feed) is already RUNNING with this definition here: unchanged" in west_line
    east_line = next(line for line in lines if line.startswith("east/"))
    assert "views(feed): views(feed) is already SUBMITTED with this definition here: unchanged" in east_line
    assert any(west.store.rglob("views.xml")) and any(east.store.rglob("views.xml"))

    # falcon-airflow's own command line, pointed at the Prism as at a server
    prism = {"FALCON_URL": f"{deployment.prism.url}/falcon"}
    listed = falcon_airflow("entity", "-list", "-type", "feed", "-fields", "status", env=prism)
    assert listed.returncode == 0, listed.stdout + listed.stderr
    assert listed.stdout.splitlines() == ["2", "(FEED) clicks(east/RUNNING,west/RUNNING)",
                                          "(FEED) views(east/SUBMITTED,west/SUBMITTED)"], listed.stdout
    status = falcon_airflow("entity", "-status", "-type", "feed", "-name", "clicks", env=prism)
    assert status.returncode == 0, status.stdout + status.stderr
    assert status.stdout.splitlines()[:2] == ["east/default/RUNNING", "west/default/RUNNING"], status.stdout

    # an update that takes views off west (no replica there any more): east updates it, west deletes it. Sent
    # twice at the same moment: one goes ahead, the other is refused before any colo is asked
    answers: list[httpx.Response] = []
    concurrently(*(lambda: answers.append(deployment.call("POST", "entities/update/feed/views",
                                                          ops_feed("views", days=3))) for _ in range(2)))
    refused = [answer for answer in answers if answer.status_code == 400]
    assert len(refused) == 1, [answer.text for answer in answers]
    assert "update command is already issued for (feed) views through the Prism" in refused[0].text, refused[0].text
    moved = next(answer for answer in answers if answer.status_code == 200)
    assert moved.json()["status"] == "SUCCEEDED", moved.text
    lines = moved.json()["message"].splitlines()
    assert lines[0].startswith("east/") and "Updated successfully" in lines[0], lines
    assert lines[1].startswith("west/") and "views(feed) removed successfully" in lines[1], lines
    assert not any(west.store.rglob("views.xml")) and any(east.store.rglob("views.xml"))


def test_the_cross_colo_replication_runs_in_the_targets_colo_and_copies_an_instance(
        deployment: Deployment, storage: Path) -> None:
    """clicks, submitted and scheduled through the Prism, replicates from cluster east (colo east) into west (colo
    west). Its replication DAG is in west's deployment only, and run there for one instance (``airflow dags test``
    on west's Airflow home and database: the replication operator, its copy on local Spark) it pulls the instance
    from east's storage into west's."""
    east, west = deployment.east, deployment.west
    replication = "falcon.feed.clicks.replication.east.west"
    assert paused(east, replication) is None and paused(west, replication) is False
    assert [dag["dag_id"] for dag in east.client().dags("falcon.feed.clicks.")] == ["falcon.feed.clicks.retention.east"]

    source = storage / "east" / "clicks" / "2026" / "01" / "01" / "03"
    (source / "nested").mkdir(parents=True)
    payload = bytes(range(256)) * 64  # bytes, not text: a copy must not re-encode
    (source / "part-00000").write_bytes(payload)
    (source / "nested" / "part-00001").write_bytes(b"more clicks\n")
    (source / "_DONE").touch()
    target = storage / "west" / "clicks" / "2026" / "01" / "01" / "03"
    assert not target.exists()

    west.airflow("dags", "test", replication, "2026-01-01T03:00:00+00:00", timeout=600)
    assert (target / "part-00000").read_bytes() == payload
    assert (target / "nested" / "part-00001").read_bytes() == b"more clicks\n"
    assert (target / "_DONE").exists()  # the replica is available on west: its own flag
    assert (source / "part-00000").read_bytes() == payload  # the source is read, never moved

    # the run is recorded in west's Airflow, as its scheduler would have made it
    runs = west.client().runs(replication)
    assert [(run["logical_date"][:16], run["state"]) for run in runs] == [("2026-01-01T03:00", "success")], runs
    # and the Prism's merged instance -status has it, west's instance pulled from east
    answer = deployment.call("GET", "instance/status/feed/clicks", start="2026-01-01T03:00Z", end="2026-01-01T04:00Z")
    assert answer.status_code == 200, answer.text
    assert [(item["instance"], item["status"], item["cluster"], item.get("sourceCluster"))
            for item in answer.json()["instances"]] == [("2026-01-01T03:00Z", "SUCCEEDED", "west", "east")], answer.text


def test_dependency_and_summary_through_the_prism_merged_by_colo(deployment: Deployment, stock_cli: StockCli) -> None:
    """entity -dependency asks the entity's colos and labels each dependency with the colos that have it;
    entity -summary asks the cluster's colo (west's, for cluster west) and gives its entities and instances."""
    url = f"{deployment.prism.url}/falcon"
    run = stock_cli("entity", "-dependency", "-type", "feed", "-name", "clicks", url=url)
    assert run.returncode == 0, run.stderr + run.stdout
    lines = run.stdout.strip().splitlines()
    assert lines[0] == "2" and set(lines[1:3]) == {"(cluster) east(east,west)", "(cluster) west(east,west)"}, \
        run.stdout

    # admin -stack: the Prism's own process, no colo's
    run = stock_cli("admin", "-stack", url=url)
    assert run.returncode == 0 and "MainThread" in run.stdout, run.stderr + run.stdout

    # -validate asks the colos the definition would go to (east's only, for a feed on east), -touch the entity's
    draft = stock_cli.workdir / "probe.xml"
    draft.write_text(ops_feed("probe"), encoding="utf-8")
    run = stock_cli("entity", "-validate", "-type", "feed", "-file", str(draft), url=url)
    assert run.returncode == 0, run.stderr + run.stdout
    assert "east/default/Validated successfully (FEED) probe" in run.stdout and "west/" not in run.stdout, run.stdout
    # the Prism's own safemode (this 0.9 client has no -setsafemode: set by falcon-airflow's, left as Falcon 0.10's
    # client leaves it): what a server in safemode refuses is refused before a colo is asked
    entered = falcon_airflow("admin", "-setsafemode", "true", env={"FALCON_URL": url})
    assert entered.returncode == 0, entered.stdout + entered.stderr
    assert "Falcon Prism safemode set to : true" in entered.stdout, entered.stdout
    run = stock_cli("entity", "-touch", "-type", "feed", "-name", "clicks", url=url)
    assert run.returncode != 0 and "Entity operation TOUCH not allowed during safemode" in run.stdout + run.stderr, \
        run.stderr + run.stdout
    left = deployment.call("GET", "admin/setSafeMode/false")
    assert (left.status_code, left.text) == (200, "false"), left.text
    run = stock_cli("entity", "-touch", "-type", "feed", "-name", "clicks", url=url)
    assert run.returncode == 0, run.stderr + run.stdout
    assert "east/default/(feed) clicks touched" in run.stdout and "west/default/(feed) clicks touched" in run.stdout, \
        run.stdout

    # -lookup asks every colo, naming each place once; -slaAlert the entity's colos
    run = stock_cli("entity", "-lookup", "-type", "feed", "-path", "/clicks/2026/01/01/03", url=url)
    assert run.returncode == 0, run.stderr + run.stdout
    assert run.stdout.count("clicks") == 2 and "east" in run.stdout and "west" in run.stdout, run.stdout
    run = stock_cli("entity", "-slaAlert", "-type", "feed", "-name", "clicks", "-start", "2026-01-01T00:00Z",
                    "-end", "2026-01-01T04:00Z", url=url)
    assert run.returncode == 0, run.stderr + run.stdout

    run = stock_cli("entity", "-summary", "-type", "feed", "-cluster", "west", "-start", "2026-01-01T03:00Z",
                    "-end", "2026-01-01T04:00Z", url=url)
    assert run.returncode == 0, run.stderr + run.stdout
    assert run.stdout.startswith("Consolidated Status: SUCCEEDED\n"), run.stdout
    assert "{Entity: clicks, Type: FEED, Status: RUNNING" in run.stdout, run.stdout
    assert "2026-01-01T03:00Z" in run.stdout and "SUCCEEDED" in run.stdout, run.stdout
    answer = deployment.call("GET", "entities/summary/feed", cluster="west", start="2026-01-01T03:00Z",
                             end="2026-01-01T04:00Z")
    assert answer.status_code == 200, answer.text
    assert answer.json()["message"].startswith("west/"), answer.text  # west's answer only: the cluster's colo

    searched = falcon_airflow("instance", "-search", "-type", "feed", "-start", "2026-01-01T03:00Z", "-end",
                              "2026-01-01T04:00Z", env={"FALCON_URL": url})
    assert searched.returncode == 0, searched.stdout + searched.stderr
    assert "clicks/2026-01-01T03:00Z west" in searched.stdout, searched.stdout  # the replication, in west's colo

    looked = falcon_airflow("entity", "-lookup", "-type", "feed", "-path", "/clicks/2026/01/01/03",
                            env={"FALCON_URL": url})
    assert looked.returncode == 0, looked.stdout + looked.stderr
    assert {"clicks  cluster east  DATA", "clicks  cluster west  DATA"} <= set(looked.stdout.splitlines()), \
        looked.stdout

    summary = falcon_airflow("entity", "-summary", "-type", "feed", "-cluster", "east", "-start", "2026-01-01T03:00Z",
                             "-end", "2026-01-01T04:00Z", env={"FALCON_URL": url})
    assert summary.returncode == 0, summary.stdout + summary.stderr
    assert "(FEED) clicks(RUNNING)" in summary.stdout, summary.stdout
