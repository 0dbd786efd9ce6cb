"""A feed that lands on S3 (s3a://): a process waits for its instance there and reads it, and replication copies it
to HDFS. The Airflow side (the input sensor, its trigger, the output's flag) reaches the sandbox's S3 server through
s3fs at the endpoint the cluster entity names, with the deployment's own AWS credentials; the Spark jobs through
S3A with the cluster's properties. Every DAG runs on real Airflow (dag.test) against the sandbox's services."""

from __future__ import annotations

import shutil
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pendulum
import pytest
from tests import builders
from tests.integration.sandbox.conftest import APPS, S3, WebHdfs
from tests.integration.sandbox.test_lifecycle import run_dag, spec

from falcon_airflow.dags.builder import build_dag
from falcon_airflow.dags.loader import entities_folder
from falcon_airflow.sandbox import Endpoints

pytestmark = [pytest.mark.sandbox, pytest.mark.xdist_group("sandbox")]

LANDING = """\
<feed name="landing" xmlns="uri:falcon:feed:0.1">
  <availabilityFlag>_DONE</availabilityFlag>
  <frequency>hours(1)</frequency>
  <clusters>
    <cluster name="lake" type="source">
      <validity start="2026-01-01T00:00Z" end="2099-01-01T00:00Z"/>
      <retention limit="days(5)" action="delete"/>
    </cluster>
    <cluster name="a" type="target">
      <validity start="2026-01-01T00:00Z" end="2099-01-01T00:00Z"/>
      <retention limit="days(5)" action="delete"/>
    </cluster>
  </clusters>
  <locations><location type="data" path="/landing/${YEAR}/${MONTH}/${DAY}/${HOUR}"/></locations>
  <ACL owner="tester" group="users" permission="*"/>
  <schema location="/none" provider="text"/>
</feed>
"""

COUNTS = """\
<feed name="landing-counts" xmlns="uri:falcon:feed:0.1">
  <availabilityFlag>_DONE</availabilityFlag>
  <frequency>hours(1)</frequency>
  <clusters>
    <cluster name="lake" type="source">
      <validity start="2026-01-01T00:00Z" end="2099-01-01T00:00Z"/>
      <retention limit="days(5)" action="delete"/>
    </cluster>
  </clusters>
  <locations><location type="data" path="/landing-counts/${YEAR}/${MONTH}/${DAY}/${HOUR}"/></locations>
  <ACL owner="tester" group="users" permission="*"/>
  <schema location="/none" provider="text"/>
</feed>
"""

PROCESS = """\
<process name="count-landing" xmlns="uri:falcon:process:0.1">
  <clusters><cluster name="lake"><validity start="2026-01-01T00:00Z" end="2099-01-01T00:00Z"/></cluster></clusters>
  <parallel>1</parallel>
  <order>FIFO</order>
  <timeout>minutes(5)</timeout>
  <frequency>hours(1)</frequency>
  <inputs><input name="landing" feed="landing" start="now(0,0)" end="now(0,0)"/></inputs>
  <outputs><output name="counts" feed="landing-counts" instance="now(0,0)"/></outputs>
  <workflow engine="spark" path="apps"/>
  <spark-attributes>
    <name>count-landing</name>
    <jar>apps/count_lines.py</jar>
    <spark-opts>--driver-memory 512m --executor-memory 512m --conf spark.ui.enabled=false</spark-opts>
  </spark-attributes>
  <ACL owner="tester" group="users" permission="*"/>
</process>
"""

MOMENT = pendulum.datetime(2026, 3, 1, 5, tz="UTC")
FOLDER = "landing/2026/03/01/05"
LINES = 250
FLAG_DELAY = 20.0  # seconds after the run starts: the sensor has looked (and deferred) by then


def test_a_process_waits_for_its_s3_input_and_replication_copies_it_to_hdfs(
        entities: Callable[..., Path], sandbox: Endpoints, monkeypatch: pytest.MonkeyPatch) -> None:
    shutil.copy(APPS / "count_lines.py", entities_folder() / "apps" / "count_lines.py")
    # Spark in local mode: the jobs' storage is what this test is about, not where they run.
    entities("lake.xml", builders.cluster("lake", f"s3a://{sandbox.s3.bucket}", colo="lake",
                                          properties=sandbox.s3.hadoop_properties()))
    entities("a.xml", builders.cluster("a", sandbox.namenode("a"), colo="a"))
    entities("landing.xml", LANDING)
    entities("landing-counts.xml", COUNTS)
    entities("count-landing.xml", PROCESS)
    # The Airflow side's own identity on S3 (the standard AWS chain); the cluster's keys are the Spark jobs' alone.
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", sandbox.s3.access_key)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", sandbox.s3.secret_key)
    s3 = S3(sandbox.s3.endpoint, sandbox.s3.bucket, sandbox.s3.access_key)
    # The data lands as any S3 client writes it (the sandbox's server keeps no body of a PUT signed as the plain
    # HTTP helper signs it): through botocore, with the deployment's credentials.
    from s3fs import S3FileSystem

    landing_zone = S3FileSystem(endpoint_url=sandbox.s3.endpoint, key=sandbox.s3.access_key,
                                secret=sandbox.s3.secret_key, config_kwargs={"s3": {"addressing_style": "path"}})
    bucket = sandbox.s3.bucket
    for folder in ("landing", "landing-counts"):  # a sandbox kept across sessions (FALCON_SANDBOX_STATE)
        if landing_zone.exists(f"{bucket}/{folder}"):
            landing_zone.rm(f"{bucket}/{folder}", recursive=True)

    process = spec("falcon.process.count-landing.lake")
    (landing,) = process.inputs
    assert landing.feed.storage_settings is not None and "fs.s3a.secret.key" not in landing.feed.storage_settings

    # The instance's data lands first, its _DONE flag later: the workflow must not start before the flag.
    landing_zone.pipe(f"{bucket}/{FOLDER}/part-00000", "".join(f"line {n}\n" for n in range(LINES)).encode())
    flagged: list[datetime] = []

    def land_the_flag() -> None:
        time.sleep(FLAG_DELAY)
        flagged.append(datetime.now(UTC))
        landing_zone.pipe(f"{bucket}/{FOLDER}/_DONE", b"")

    lander = threading.Thread(target=land_the_flag, daemon=True)
    lander.start()
    run = build_dag(process).test(logical_date=MOMENT)
    lander.join(timeout=FLAG_DELAY + 60)
    states = {ti.task_id: ti for ti in run.get_task_instances()}
    assert str(run.state) == "success", {task: str(ti.state) for task, ti in states.items()}
    assert flagged and states["workflow"].start_date >= flagged[0], (
        f"the workflow started at {states['workflow'].start_date}, before the input's flag landed at {flagged}")
    assert states["wait_for_landing"].start_date < flagged[0]  # it was waiting when the flag came
    written = [key for key in s3.keys("landing-counts/2026/03/01/05/") if key.split("/")[-1].startswith("part-")]
    assert written and "landing-counts/2026/03/01/05/_DONE" in s3.keys("landing-counts/2026/03/01/05/")
    assert s3.read(written[0]).decode().strip() == str(LINES)

    # Replication reads the instance from S3 and writes it to HDFS cluster a, byte for byte.
    run_dag("falcon.feed.landing.replication.lake.a", MOMENT)
    a = WebHdfs(sandbox.webhdfs("a"))
    copied = a.files(f"/{FOLDER}")
    assert copied == {"part-00000": s3.read(f"{FOLDER}/part-00000"), "_DONE": b""}
