"""Spark on YARN: a cluster entity whose ``execute`` interface is the sandbox's ResourceManager (and which has no
``spark`` interface) runs its processes with ``--master yarn``; the driver runs beside Airflow (client mode) or in
a YARN container (``<master>yarn-cluster</master>``), the executors in YARN containers, the output lands on HDFS.
The ResourceManager's own REST API says which applications ran there and how they ended."""

from __future__ import annotations

import json
import shutil
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pendulum
import pytest
from tests.builders import cluster, interface
from tests.integration.airflow.test_lineage import EventLog
from tests.integration.sandbox.conftest import APPS, WebHdfs
from tests.integration.sandbox.test_lifecycle import run_dag, spec

from falcon_airflow.dags.loader import entities_folder
from falcon_airflow.sandbox import Endpoints

pytestmark = [pytest.mark.sandbox, pytest.mark.xdist_group("sandbox")]

FEED = """\
<feed name="{name}" xmlns="uri:falcon:feed:0.1">
  <availabilityFlag>_DONE</availabilityFlag>
  <frequency>hours(1)</frequency>
  <clusters>
    <cluster name="hadoop" type="source">
      <validity start="2026-01-01T00:00Z" end="2099-01-01T00:00Z"/>
      <retention limit="days(5)" action="delete"/>
    </cluster>
  </clusters>
  <locations><location type="data" path="/data/{name}/${{YEAR}}/${{MONTH}}/${{DAY}}/${{HOUR}}"/></locations>
  <ACL owner="tester" group="users" permission="*"/>
  <schema location="/none" provider="text"/>
</feed>
"""

PROCESS = """\
<process name="{name}" xmlns="uri:falcon:process:0.1">
  <clusters><cluster name="hadoop"><validity start="2026-01-01T00:00Z" end="2099-01-01T00:00Z"/></cluster></clusters>
  <parallel>1</parallel>
  <order>FIFO</order>
  <frequency>hours(1)</frequency>
  <outputs><output name="events" feed="{name}" instance="now(0,0)"/></outputs>
  <workflow engine="spark" path="apps"/>
  <spark-attributes>
    {master}
    <name>{name}</name>
    <jar>apps/make_events.py</jar>
    <spark-opts>--driver-memory 512m --executor-memory 512m --num-executors 1 --conf spark.yarn.am.memory=512m
      --conf spark.ui.enabled=false</spark-opts>
  </spark-attributes>
  <ACL owner="tester" group="users" permission="*"/>
</process>
"""

MOMENT = pendulum.datetime(2026, 3, 1, 7, tz="UTC")


def yarn_applications(sandbox: Endpoints) -> dict[str, dict[str, Any]]:
    """The ResourceManager's applications by id."""
    with urllib.request.urlopen(f"{sandbox.yarn_webapp}/ws/v1/cluster/apps", timeout=30) as response:
        listing = json.loads(response.read())
    return {app["id"]: app for app in (listing.get("apps") or {}).get("app", [])}


@pytest.mark.parametrize(("name", "master", "mode"), [("yarn-client-events", "", "client"),
                                                      ("yarn-cluster-events", "<master>yarn-cluster</master>",
                                                       "cluster")])
def test_a_process_runs_on_yarn(entities: Callable[..., Path], sandbox: Endpoints, event_log: EventLog,
                                shared: Path, name: str, master: str, mode: str) -> None:
    shutil.copy(APPS / "make_events.py", entities_folder() / "apps" / "make_events.py")
    entities("hadoop.xml", cluster("hadoop", sandbox.namenode("a"), colo="hadoop", spark=None,
                                   interfaces=interface("execute", sandbox.yarn, "3.5.0"),
                                   properties=sandbox.yarn_spark_properties()))
    entities(f"{name}.xml", FEED.format(name=name))
    entities(f"{name}-process.xml", PROCESS.format(name=name, master=master))

    job = spec(f"falcon.process.{name}.hadoop").job
    assert (job.master, job.deploy_mode or "client") == ("yarn", mode)
    before = yarn_applications(sandbox)
    run_dag(f"falcon.process.{name}.hadoop", MOMENT, event_log)

    written = WebHdfs(sandbox.webhdfs("a")).files(f"/data/{name}/{MOMENT.format('YYYY/MM/DD/HH')}")
    assert "_DONE" in written and sum(data.count(b"\n") for data in written.values()) == 1000
    (application,) = [app for key, app in yarn_applications(sandbox).items() if key not in before]
    assert (application["state"], application["finalStatus"], application["applicationType"]) == (
        "FINISHED", "SUCCEEDED", "SPARK"), application
    event_log.validate(shared)
