"""Spark on the secure sandbox's Kerberized YARN, as the entity's user: the Airflow worker logs in as the service
principal (its keytab), spark-submit --master yarn acts for the process's owner (``--proxy-user``) and hands YARN
the owner's HDFS delegation tokens, with which the driver and the executors in YARN containers (cluster mode) write
the output on HDFS a; the files are the owner's. The outsider's job on the same YARN (client mode) cannot write
the owner's feed.

Every DAG runs on real Airflow (dag.test), real Spark and the session's secure sandbox (KDC, HDFS, YARN).
"""

from __future__ import annotations

import json
import shutil
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pendulum
import pytest
from tests import builders
from tests.integration.sandbox.conftest import APPS, hdfs_as
from tests.integration.sandbox.test_lifecycle import spec
from tests.integration.sandbox.test_secure_jobs import FEED, as_airflow_worker, dag_of, process

from falcon_airflow.dags.loader import entities_folder
from falcon_airflow.sandbox.secure import SecureEndpoints

pytestmark = [pytest.mark.sandbox, pytest.mark.xdist_group("sandbox-secure")]

__all__ = ["as_airflow_worker"]  # the worker's fixture, shared with test_secure_jobs

NAME = "yarn-events"
MOMENT = pendulum.datetime(2026, 3, 2, 5, tz="UTC")
YARN_OPTS = ("--driver-memory 512m --executor-memory 512m --num-executors 1 --conf spark.yarn.am.memory=512m "
             "--conf spark.ui.enabled=false")


def yarn_process(name: str, owner: str, start: str, end: str, master: str = "") -> str:
    return (process(name, owner, start, end).replace('feed="events"', f'feed="{NAME}"')
            .replace("<name>", f"{master}<name>")
            .replace("--driver-memory 512m --conf spark.ui.enabled=false", YARN_OPTS))


def yarn_applications(secure: SecureEndpoints) -> dict[str, dict[str, Any]]:
    with urllib.request.urlopen(f"{secure.yarn_webapp}/ws/v1/cluster/apps", timeout=30) as response:
        listing = json.loads(response.read())
    return {app["id"]: app for app in (listing.get("apps") or {}).get("app", [])}


@pytest.fixture
def yarn_feed(as_airflow_worker: SecureEndpoints, entities: Callable[..., Path]) -> SecureEndpoints:
    """Cluster a of the secure sandbox running its jobs on the Kerberized YARN (its ``execute`` interface, no Spark
    master), the owner's feed on it (its folder the owner's, mode 0750) and two processes writing it: the owner's,
    then the outsider's."""
    secure = as_airflow_worker
    shutil.copy(APPS / "make_events.py", entities_folder() / "apps" / "make_events.py")
    entities("a.xml", builders.cluster("a", secure.namenode("a"), colo="a", spark=None,
                                       interfaces=builders.interface("execute", secure.yarn, "3.5.0"),
                                       properties=secure.yarn_spark_properties()))
    feed = FEED.replace('name="events"', f'name="{NAME}"').replace("/data/events/", f"/data/{NAME}/")
    target = '<cluster name="b" type="target">'
    feed = feed[:feed.index(target)] + feed[feed.index("</clusters>"):]  # cluster a only
    entities(f"{NAME}.xml", feed)
    # The owner's job runs its driver in YARN too (cluster mode: driver and executors hold the owner's tokens
    # alone), the outsider's beside Airflow (client mode).
    entities("yarn-owner.xml", yarn_process("yarn-owner", "owner", "2026-01-01T00:00Z", "2026-03-02T06:00Z",
                                            "<master>yarn-cluster</master>"))
    entities("yarn-outsider.xml", yarn_process("yarn-outsider", "outsider", "2026-03-02T06:00Z", "2099-01-01T00:00Z"))
    made = hdfs_as(secure, "hdfs", f"folder={secure.namenode('a')}/data/{NAME}=owner")
    assert set(made.values()) == {"ok made"}, made
    return secure


def test_a_process_on_kerberized_yarn_writes_its_output_as_the_owner(yarn_feed: SecureEndpoints) -> None:
    secure = yarn_feed
    job = spec("falcon.process.yarn-owner.a").job
    assert (job.master, job.deploy_mode) == ("yarn", "cluster")
    before = yarn_applications(secure)
    done = dag_of("falcon.process.yarn-owner.a").test(logical_date=MOMENT)  # type: ignore[attr-defined]
    states = {ti.task_id: str(ti.state) for ti in done.get_task_instances()}
    assert set(states.values()) == {"success"}, states

    written = f"{secure.namenode('a')}/data/{NAME}/{MOMENT.format('YYYY/MM/DD/HH')}"
    listed = hdfs_as(secure, "owner", f"list={written}")[f"list={written}"]
    assert listed.startswith("ok ") and "_DONE" in listed and "part-" in listed, listed
    parts = [name for name in listed.removeprefix("ok ").split(",") if name.startswith("part-")]
    owners = hdfs_as(secure, "hdfs", *(f"owner={written}/{part}" for part in parts), f"owner={written}")
    assert set(owners.values()) == {"ok owner"}, owners
    # It ran on YARN, submitted for the owner (the ResourceManager saw the proxied user, not the service).
    (application,) = [app for key, app in yarn_applications(secure).items() if key not in before]
    assert (application["user"], application["state"], application["finalStatus"]) == (
        "owner", "FINISHED", "SUCCEEDED"), application


def test_the_outsiders_job_on_yarn_cannot_write_the_owners_feed(yarn_feed: SecureEndpoints,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    secure = yarn_feed
    moment = MOMENT.add(hours=1)
    dag = dag_of("falcon.process.yarn-outsider.a")
    # The Spark job alone (the DAG's clean-up step, which comes first, is refused already: test_secure_jobs).
    job = dag.partial_subset(task_ids=["workflow"], include_upstream=False)  # type: ignore[attr-defined]
    for task in job.tasks:
        task.retries = 0
    done = job.test(logical_date=moment)
    states = {ti.task_id: str(ti.state) for ti in done.get_task_instances()}
    assert states == {"workflow": "failed"}, states
    assert (f"Permission denied: user=outsider, access=EXECUTE, inode=\"/data/{NAME}\":owner:owner:drwxr-x---"
            in capsys.readouterr().out)
    written = f"{secure.namenode('a')}/data/{NAME}/{moment.format('YYYY/MM/DD/HH')}"
    listed = hdfs_as(secure, "owner", f"list={written}")
    assert next(iter(listed.values())).startswith("error java.io.FileNotFoundException"), listed
