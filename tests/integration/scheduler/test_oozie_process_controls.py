"""Falcon's process controls on Oozie processes, under Airflow's own scheduler, dag-processor, triggerer and
LocalExecutor (PostgreSQL, the api-server for the workers), three processes in one deployment at once:

- ``paced`` (parallel 2, LIFO, six instances due together): every instance's shell action writes when it started
  and ended into a shared log, which shows what ran at once and in which order the waiting instances went in;
- ``flaky`` (a periodic retry of 3, one minute apart): its second action fails until the workflow's fourth pass,
  and its first action's log shows the whole workflow ran each time;
- ``latecomer`` (a late-process on an input whose feed accepts data four minutes late): the test adds a file to
  the input once the first pass is over and its late-data watch has begun, and the workflow runs once more,
  reading it.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from itertools import pairwise
from pathlib import Path

import pendulum
import pytest
from sqlalchemy import create_engine, text
from tests.builders import cluster
from tests.integration.airflow_database import airflow_database
from tests.integration.databases.servers import Server
from tests.integration.operate.harness import AirflowServer, processes

pytestmark = pytest.mark.xdist_group("airflow-scheduler")

INSTANCES = 6
WAIT_SECONDS = 600.0
FALCON_MINUTE = "YYYY-MM-DDTHH:mm[Z]"

PROCESS = """\
<process name="paced" xmlns="uri:falcon:process:0.1">
  <clusters><cluster name="local"><validity start="{start}" end="{end}"/></cluster></clusters>
  <parallel>2</parallel>
  <order>LIFO</order>
  <frequency>minutes(1)</frequency>
  <properties>
    <property name="log" value="{log}"/>
    <property name="airflow.catchup" value="true"/>
  </properties>
  <workflow name="paced-flow" engine="oozie" path="apps/paced"/>
  <ACL owner="tester" group="users" permission="*"/>
</process>
"""

FLAKY = """\
<process name="flaky" xmlns="uri:falcon:process:0.1">
  <clusters><cluster name="local"><validity start="{start}" end="{end}"/></cluster></clusters>
  <parallel>1</parallel>
  <order>FIFO</order>
  <frequency>minutes(1)</frequency>
  <properties>
    <property name="log" value="{log}"/>
    <property name="airflow.catchup" value="true"/>
  </properties>
  <workflow name="flaky-flow" engine="oozie" path="apps/flaky"/>
  <retry policy="periodic" delay="minutes(1)" attempts="3"/>
  <ACL owner="tester" group="users" permission="*"/>
</process>
"""

# two actions: the first counts the passes, the second fails until the fourth
FLAKY_WORKFLOW = """\
<workflow-app name="flaky-wf" xmlns="uri:oozie:workflow:0.5">
  <global>
    <job-tracker>${jobTracker}</job-tracker>
    <name-node>${nameNode}</name-node>
  </global>
  <start to="count"/>
  <action name="count">
    <shell xmlns="uri:oozie:shell-action:0.3">
      <exec>sh</exec>
      <argument>-c</argument>
      <argument>date +%s >> "$0"</argument>
      <argument>${log}</argument>
    </shell>
    <ok to="work"/>
    <error to="fail"/>
  </action>
  <action name="work">
    <shell xmlns="uri:oozie:shell-action:0.3">
      <exec>sh</exec>
      <argument>-c</argument>
      <argument>test "$(wc -l &lt; "$0")" -ge 4</argument>
      <argument>${log}</argument>
    </shell>
    <ok to="end"/>
    <error to="fail"/>
  </action>
  <kill name="fail"><message>work failed on pass ${wf:run()}</message></kill>
  <end name="end"/>
</workflow-app>
"""

EVENTS = """\
<feed name="events" xmlns="uri:falcon:feed:0.1">
  <frequency>minutes(1)</frequency>
  <late-arrival cut-off="minutes(4)"/>
  <clusters>
    <cluster name="local" type="source">
      <validity start="{start}" end="2099-01-01T00:00Z"/>
      <retention limit="days(30)" action="delete"/>
    </cluster>
  </clusters>
  <locations><location type="data" path="/data/events/${{YEAR}}${{MONTH}}${{DAY}}${{HOUR}}${{MINUTE}}"/></locations>
  <ACL owner="tester" group="users" permission="*"/>
  <schema location="/none" provider="text"/>
</feed>
"""

LATECOMER = """\
<process name="latecomer" xmlns="uri:falcon:process:0.1">
  <clusters><cluster name="local"><validity start="{start}" end="{end}"/></cluster></clusters>
  <parallel>1</parallel>
  <order>FIFO</order>
  <frequency>minutes(1)</frequency>
  <inputs><input name="input" feed="events" start="now(0,0)" end="now(0,0)"/></inputs>
  <properties>
    <property name="log" value="{log}"/>
    <property name="airflow.catchup" value="true"/>
  </properties>
  <workflow name="latecomer-flow" engine="oozie" path="apps/latecomer"/>
  <late-process policy="periodic" delay="minutes(1)">
    <late-input input="input" workflow-path="apps/latecomer"/>
  </late-process>
  <ACL owner="tester" group="users" permission="*"/>
</process>
"""

# one action: how many files the input instance holds
LATECOMER_WORKFLOW = """\
<workflow-app name="latecomer-wf" xmlns="uri:oozie:workflow:0.5">
  <global>
    <job-tracker>${jobTracker}</job-tracker>
    <name-node>${nameNode}</name-node>
  </global>
  <start to="read"/>
  <action name="read">
    <shell xmlns="uri:oozie:shell-action:0.3">
      <exec>count.sh</exec>
      <argument>${log}</argument>
      <argument>${input}</argument>
      <file>count.sh</file>
    </shell>
    <ok to="end"/>
    <error to="fail"/>
  </action>
  <kill name="fail"><message>read failed</message></kill>
  <end name="end"/>
</workflow-app>
"""

# one action that takes a while and says when it ran
WORKFLOW = """\
<workflow-app name="paced-wf" xmlns="uri:oozie:workflow:0.5">
  <global>
    <job-tracker>${jobTracker}</job-tracker>
    <name-node>${nameNode}</name-node>
  </global>
  <start to="work"/>
  <action name="work">
    <shell xmlns="uri:oozie:shell-action:0.3">
      <exec>paced.sh</exec>
      <argument>${log}</argument>
      <argument>${nominalTime}</argument>
      <file>paced.sh</file>
    </shell>
    <ok to="end"/>
    <error to="fail"/>
  </action>
  <kill name="fail"><message>work failed: ${wf:errorMessage('work')}</message></kill>
  <end name="end"/>
</workflow-app>
"""

SCRIPT = """\
#!/bin/sh
echo "start $2 $(date +%s.%N)" >> "$1"
sleep 15
echo "end $2 $(date +%s.%N)" >> "$1"
"""

COUNT = """\
#!/bin/sh
ls "$(echo "$2" | sed 's|^file://||')" | wc -l >> "$1"
"""


@pytest.fixture
def deployment(airflow_postgres: Server, tmp_path: Path) -> Iterator[tuple[AirflowServer, str]]:
    url = airflow_database(airflow_postgres, f"controls_{uuid.uuid4().hex[:8]}")
    node = AirflowServer.prepare(tmp_path / "airflow", url)
    node.env.update({
        "AIRFLOW__CORE__EXECUTOR": "LocalExecutor",
        "AIRFLOW__CORE__PARALLELISM": "8",  # room for more than `parallel` instances: the bound must be ours
        "AIRFLOW__CORE__DAGS_ARE_PAUSED_AT_CREATION": "False",
        "AIRFLOW__DAG_PROCESSOR__MIN_FILE_PROCESS_INTERVAL": "30",
        "AIRFLOW__DAG_PROCESSOR__PARSING_PROCESSES": "1",
        "AIRFLOW__FALCON__WORKFLOW_SLOT_POKE_SECONDS": "3",
        "AIRFLOW__FALCON__OOZIE_FILE_ROOTS": str(tmp_path),
        "AIRFLOW__SCHEDULER__SCHEDULER_HEARTBEAT_SEC": "1",
    })
    node.start()
    try:
        yield node, url
    finally:
        node.stop()


def write_entities(node: AirflowServer, log: Path) -> list[str]:
    """The cluster and the process, its instances all due already: the scheduler creates every run at once."""
    now = pendulum.now("UTC").start_of("minute")
    start, end = now.subtract(minutes=INSTANCES + 2), now.subtract(minutes=2)
    (node.store / "cluster.xml").write_text(cluster("local", f"file://{node.storage}"), encoding="utf-8")
    (node.store / "paced.xml").write_text(PROCESS.format(start=start.format("YYYY-MM-DDTHH:mm[Z]"),
                                                         end=end.format("YYYY-MM-DDTHH:mm[Z]"), log=log),
                                          encoding="utf-8")
    app = node.store / "apps" / "paced"
    app.mkdir(parents=True)
    (app / "workflow.xml").write_text(WORKFLOW, encoding="utf-8")
    (app / "paced.sh").write_text(SCRIPT, encoding="utf-8")
    (app / "paced.sh").chmod(0o755)
    return [start.add(minutes=index).format("YYYY-MM-DD-HH-mm") for index in range(INSTANCES)]  # nominalTime


def write_flaky(node: AirflowServer, log: Path) -> None:
    """One instance, due a minute ago."""
    now = pendulum.now("UTC").start_of("minute")
    (node.store / "flaky.xml").write_text(FLAKY.format(start=now.subtract(minutes=1).format(FALCON_MINUTE),
                                                       end=now.format(FALCON_MINUTE), log=log), encoding="utf-8")
    app = node.store / "apps" / "flaky"
    app.mkdir(parents=True)
    (app / "workflow.xml").write_text(FLAKY_WORKFLOW, encoding="utf-8")


def write_latecomer(node: AirflowServer, log: Path) -> Path:
    """One instance, due now, and its input instance with one file; returns the input instance's folder."""
    now = pendulum.now("UTC").start_of("minute")
    (node.store / "events.xml").write_text(EVENTS.format(start=now.subtract(days=1).format(FALCON_MINUTE)),
                                           encoding="utf-8")
    (node.store / "latecomer.xml").write_text(LATECOMER.format(start=now.format(FALCON_MINUTE),
                                                               end=now.add(minutes=1).format(FALCON_MINUTE),
                                                               log=log), encoding="utf-8")
    app = node.store / "apps" / "latecomer"
    app.mkdir(parents=True)
    (app / "workflow.xml").write_text(LATECOMER_WORKFLOW, encoding="utf-8")
    (app / "count.sh").write_text(COUNT, encoding="utf-8")
    (app / "count.sh").chmod(0o755)
    folder = node.storage / "data" / "events" / now.format("YYYYMMDDHHmm")
    folder.mkdir(parents=True)
    (folder / "part-0").write_text("first\n", encoding="utf-8")
    return folder


def run_states(url: str) -> dict[str, dict[str, str]]:
    """Each process's runs and their states."""
    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            found = connection.execute(text("SELECT dag_id, run_id, state FROM dag_run")).all()
        states: dict[str, dict[str, str]] = {}
        for dag_id, run_id, state in found:
            states.setdefault(str(dag_id).split(".")[2], {})[str(run_id)] = str(state)
        return states
    finally:
        engine.dispose()


def intervals(log: Path) -> dict[str, tuple[float, float]]:
    starts: dict[str, float] = {}
    ends: dict[str, float] = {}
    for line in log.read_text().splitlines():
        event, instance, moment = line.split()
        (starts if event == "start" else ends)[instance] = float(moment)
    return {instance: (starts[instance], ends[instance]) for instance in starts if instance in ends}


def most_at_once(spans: dict[str, tuple[float, float]]) -> int:
    edges = sorted([(begin, 1) for begin, _ in spans.values()] + [(end, -1) for _, end in spans.values()])
    running = highest = 0
    for _, step in edges:
        running += step
        highest = max(highest, running)
    return highest


def watching_late_data(url: str) -> bool:
    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            state = connection.execute(text("SELECT state FROM task_instance WHERE dag_id = :dag AND "
                                            "task_id = 'late_data'"), {"dag": "falcon.process.latecomer.local"})
            return state.scalar() == "deferred"
    finally:
        engine.dispose()


def finished(states: dict[str, dict[str, str]], expected: dict[str, int]) -> bool:
    return all(len(states.get(name, {})) == count
               and all(state in ("success", "failed") for state in states[name].values())
               for name, count in expected.items())


def test_parallel_lifo_retry_and_late_rerun_under_the_scheduler(deployment: tuple[AirflowServer, str],
                                                                 tmp_path: Path) -> None:
    node, url = deployment
    log, flaky_log, late_log = (tmp_path / f"{name}.log" for name in ("paced", "flaky", "latecomer"))
    for item in (log, flaky_log, late_log):
        item.touch()
    instances = write_entities(node, log)
    write_flaky(node, flaky_log)
    late_folder = write_latecomer(node, late_log)
    logs = [node.home / f"{name}.log" for name in ("scheduler", "dag-processor", "triggerer")]
    expected = {"paced": INSTANCES, "flaky": 1, "latecomer": 1}
    with processes(node, "dag-processor", "scheduler", "triggerer"):
        deadline = time.monotonic() + WAIT_SECONDS
        states: dict[str, dict[str, str]] = {}
        added = False
        while time.monotonic() < deadline:
            if not added and watching_late_data(url):  # the first pass is over and watched: data comes late
                (late_folder / "part-1").write_text("late\n", encoding="utf-8")
                added = True
            states = run_states(url)
            if finished(states, expected):
                break
            time.sleep(2)
        else:
            tails = "\n".join(f"--- {item}\n{item.read_text(errors='replace')[-3000:]}" for item in logs
                              if item.exists())
            pytest.fail(f"the runs did not finish within {WAIT_SECONDS:g} s: {states}\n{tails}")
    assert {state for runs in states.values() for state in runs.values()} == {"success"}, states
    # flaky: four passes of the whole workflow (the first and three retries), about a minute apart
    passes = [int(line) for line in flaky_log.read_text().split()]
    assert len(passes) == 4, passes
    assert all(later - earlier >= 55 for earlier, later in pairwise(passes)), passes
    # latecomer: the first pass read one file, the late re-run two
    assert late_log.read_text().split() == ["1", "2"]
    # paced
    spans = intervals(log)
    assert sorted(spans) == instances, log.read_text()
    assert most_at_once(spans) == 2, log.read_text()  # the bound held, and two did run at once
    # The first two went in as soon as their runs existed; the others were let in from a queue of waiting
    # instances, newest first, two at a time as the two running ones ended (which of a pair let in together
    # started its action first is the workers' race).
    begun = sorted(spans, key=lambda instance: spans[instance][0])
    later = begun[2:]
    newest_first = sorted(later, reverse=True)
    assert [set(later[index:index + 2]) for index in range(0, len(later), 2)] == \
        [set(newest_first[index:index + 2]) for index in range(0, len(later), 2)], f"started in the order {begun}"
