"""``entity -update`` leaves started instances alone, as Falcon's update did: under Airflow's own scheduler,
dag-processor and triggerer, with the Falcon store served by the api-server and its DAGs from the store's versioned
bundle (as ``make run`` and the chart deploy it), an Oozie process is updated while one instance runs its workflow
and another waits for its input. Both finish with the definition they started with; an instance created after the
update runs the new one.

Each instance's workflow has two shell actions, each writing the process property ``version`` it was given; the
first holds the workflow until the test has updated the process, so the running instance's second action starts
after the update.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pendulum
import pytest
from sqlalchemy import create_engine
from sqlalchemy.engine import Engine
from tests.builders import cluster
from tests.integration.airflow_database import airflow_database
from tests.integration.databases.servers import Server
from tests.integration.operate.harness import AirflowServer, processes
from tests.integration.operate.nodes import falcon, rows, shared_settings, wait_for

pytestmark = pytest.mark.xdist_group("airflow-scheduler-update")

MINUTE = "YYYY-MM-DDTHH:mm[Z]"
DAG = "falcon.process.stamp.local"

TICKS = """\
<feed name="ticks" xmlns="uri:falcon:feed:0.1">
  <frequency>minutes(1)</frequency>
  <clusters>
    <cluster name="local" type="source">
      <validity start="2026-01-01T00:00Z" end="2099-01-01T00:00Z"/>
      <retention limit="days(30)" action="delete"/>
    </cluster>
  </clusters>
  <locations><location type="data" path="/data/ticks/${YEAR}${MONTH}${DAY}${HOUR}${MINUTE}"/></locations>
  <ACL owner="tester" group="users" permission="*"/>
  <schema location="/none" provider="text"/>
</feed>
"""

STAMP = """\
<process name="stamp" xmlns="uri:falcon:process:0.1">
  <clusters><cluster name="local"><validity start="{start}" end="{end}"/></cluster></clusters>
  <parallel>4</parallel>
  <order>FIFO</order>
  <frequency>minutes(1)</frequency>
  <inputs><input name="tick" feed="ticks" start="now(0,0)" end="now(0,0)"/></inputs>
  <properties>
    <property name="version" value="{version}"/>
    <property name="log" value="{log}"/>
    <property name="airflow.catchup" value="true"/>
  </properties>
  <workflow name="stamp-flow" engine="oozie" path="/apps/stamp"/>
  <ACL owner="tester" group="users" permission="*"/>
</process>
"""

WORKFLOW = """\
<workflow-app name="stamp-wf" xmlns="uri:oozie:workflow:0.5">
  <global>
    <job-tracker>${jobTracker}</job-tracker>
    <name-node>${nameNode}</name-node>
  </global>
  <start to="begin"/>
  <action name="begin">
    <shell xmlns="uri:oozie:shell-action:0.3">
      <exec>stamp.sh</exec>
      <argument>start</argument>
      <argument>${log}</argument>
      <argument>${nominalTime}</argument>
      <argument>${version}</argument>
      <file>stamp.sh</file>
    </shell>
    <ok to="finish"/>
    <error to="fail"/>
  </action>
  <action name="finish">
    <shell xmlns="uri:oozie:shell-action:0.3">
      <exec>stamp.sh</exec>
      <argument>end</argument>
      <argument>${log}</argument>
      <argument>${nominalTime}</argument>
      <argument>${version}</argument>
      <file>stamp.sh</file>
    </shell>
    <ok to="end"/>
    <error to="fail"/>
  </action>
  <kill name="fail"><message>stamp failed</message></kill>
  <end name="end"/>
</workflow-app>
"""

# start: say so, then hold the workflow until the test says go (the update is done); end: say so
SCRIPT = """\
#!/bin/sh
echo "$1 $3 $4" >> "$2"
if [ "$1" = start ]; then
  waited=0
  while [ ! -e "$(dirname "$2")/go" ] && [ $waited -lt 180 ]; do sleep 1; waited=$((waited + 1)); done
fi
"""


@pytest.fixture
def deployment(airflow_postgres: Server, tmp_path: Path) -> Iterator[tuple[AirflowServer, Engine, list[Path]]]:
    url = airflow_database(airflow_postgres, f"update_{uuid.uuid4().hex[:8]}")
    node = AirflowServer.prepare(tmp_path / "airflow", url)
    shared_settings(node, tmp_path, f"{node.url}/falcon")
    node.env.update({"AIRFLOW__CORE__DAGS_ARE_PAUSED_AT_CREATION": "False",
                     "AIRFLOW__FALCON__WORKFLOW_SLOT_POKE_SECONDS": "3",
                     "AIRFLOW__FALCON__OOZIE_FILE_ROOTS": str(tmp_path),
                     "AIRFLOW__SCHEDULER__SCHEDULER_HEARTBEAT_SEC": "1"})
    node.start()
    engine = create_engine(url)
    logs = [node.home / f"{name}.log" for name in ("scheduler", "dag-processor", "triggerer")]
    try:
        with processes(node, "dag-processor", "scheduler", "triggerer"):
            yield node, engine, logs
    finally:
        engine.dispose()
        node.stop()


def tick(storage: Path, moment: pendulum.DateTime) -> None:
    folder = storage / "data" / "ticks" / moment.format("YYYYMMDDHHmm")
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "part-0").write_text("tick\n", encoding="utf-8")


def lines(log: Path) -> dict[tuple[str, str], str]:
    """(event, nominal time) -> the version the action was given."""
    found: dict[tuple[str, str], str] = {}
    for line in log.read_text().splitlines():
        event, nominal, version = line.split()
        found[(event, nominal)] = version
    return found


def nominal(moment: pendulum.DateTime) -> str:
    return moment.format("YYYY-MM-DD-HH-mm")


def test_an_update_leaves_the_running_and_the_waiting_instance_alone(
        deployment: tuple[AirflowServer, Engine, list[Path]], tmp_path: Path) -> None:
    node, engine, logs = deployment
    storage, log = node.storage, tmp_path / "stamp.log"
    log.touch()
    app = storage / "apps" / "stamp"
    app.mkdir(parents=True)
    (app / "workflow.xml").write_text(WORKFLOW, encoding="utf-8")
    (app / "stamp.sh").write_text(SCRIPT, encoding="utf-8")
    (app / "stamp.sh").chmod(0o755)
    now = pendulum.now("UTC").start_of("minute")
    running, waiting = now.subtract(minutes=2), now.subtract(minutes=1)
    start, end = running, now.add(minutes=4)
    moment = start
    while moment < end:  # every input but the waiting instance's is there already
        if moment != waiting:
            tick(storage, moment)
        moment = moment.add(minutes=1)

    def draft(name: str, xml: str) -> str:
        path = node.drafts / name
        path.write_text(xml, encoding="utf-8")
        return str(path)

    def process(version: str) -> str:
        return STAMP.format(start=start.format(MINUTE), end=end.format(MINUTE), version=version, log=log)

    for kind, name, xml in (("cluster", "local", cluster("local", f"file://{storage}")),
                            ("feed", "ticks", TICKS)):
        done = falcon(node, "entity", "-submit", "-type", kind, "-file", draft(f"{name}.xml", xml))
        assert done.returncode == 0, done.stdout + done.stderr
    done = falcon(node, "entity", "-submitAndSchedule", "-type", "process", "-file",
                  draft("stamp.xml", process("v1")))
    assert done.returncode == 0, done.stdout + done.stderr

    # the first instance is inside its workflow, the second waits for its input: update now
    wait_for("the first instance's workflow to start", lambda: ("start", nominal(running)) in lines(log), logs)
    waiting_state = rows(engine, "SELECT ti.state FROM task_instance ti JOIN dag_run r ON r.dag_id = ti.dag_id "
                                 "AND r.run_id = ti.run_id WHERE ti.dag_id = :dag AND ti.task_id = 'wait_for_tick' "
                                 "AND r.logical_date = :moment", dag=DAG, moment=waiting)
    assert waiting_state == [("deferred",)], waiting_state
    done = falcon(node, "entity", "-update", "-type", "process", "-name", "stamp", "-file",
                  draft("stamp-v2.xml", process("v2")))
    assert done.returncode == 0, done.stdout + done.stderr
    updated = pendulum.now("UTC")
    tick(storage, waiting)
    (tmp_path / "go").touch()  # the running instance's workflow goes on: its next action starts after the update

    def after_update() -> list[str]:
        """Nominal times of the runs created after the update that have finished their workflow."""
        created = rows(engine, "SELECT logical_date FROM dag_run WHERE dag_id = :dag AND queued_at > :updated",
                       dag=DAG, updated=updated)
        ended = lines(log)
        return [nominal(pendulum.instance(moment)) for (moment,) in created
                if ("end", nominal(pendulum.instance(moment))) in ended]

    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        seen = lines(log)
        if ("end", nominal(running)) in seen and ("end", nominal(waiting)) in seen and after_update():
            break
        time.sleep(2)
    seen = lines(log)
    assert seen.get(("start", nominal(running))) == seen.get(("end", nominal(running))) == "v1", seen
    assert seen.get(("start", nominal(waiting))) == seen.get(("end", nominal(waiting))) == "v1", seen
    later = after_update()
    assert later and all(seen[("end", item)] == "v2" for item in later), (later, seen)
