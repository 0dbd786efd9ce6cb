"""Process DAGs on real Airflow (dag.test) running real PySpark jobs (local[2]) on real files."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pendulum
import pytest
from tests.builders import cluster

from falcon_airflow.dags.builder import build_process_dag
from falcon_airflow.dags.loader import entities_folder, load_specs

pytestmark = pytest.mark.xdist_group("airflow")

FEED = """\
<feed name="{name}" xmlns="uri:falcon:feed:0.1">
  {flag}
  <frequency>{frequency}</frequency>
  {late}
  <clusters>
    <cluster name="local" type="source">
      <validity start="2026-01-01T00:00Z" end="2099-01-01T00:00Z"/>
      <retention limit="days(30)" action="delete"/>
    </cluster>
  </clusters>
  <locations><location type="data" path="/data/{name}/${{YEAR}}/${{MONTH}}/${{DAY}}/${{HOUR}}${{MINUTE}}"/></locations>
  <ACL owner="tester" group="users" permission="*"/>
  <schema location="/none" provider="text"/>
</feed>
"""

PROCESS = """\
<process name="count" xmlns="uri:falcon:process:0.1">
  <tags>suite=integration</tags>
  <clusters><cluster name="local"><validity start="2026-01-01T00:00Z" end="2099-01-01T00:00Z"/></cluster></clusters>
  <parallel>1</parallel>
  <order>FIFO</order>
  <frequency>{frequency}</frequency>
  <inputs><input name="events" feed="events" start="now(0,0)" end="now(0,0)"/></inputs>
  <outputs><output name="counts" feed="counts" instance="now(0,0)"/></outputs>
  <properties><property name="tag" value="run-${{formatTime(instanceTime(), 'yyyyMMddHHmm')}}"/></properties>
  <workflow engine="spark" path="apps"/>
  <spark-attributes>
    <name>count-lines</name>
    <jar>apps/count_lines.py</jar>
    <spark-opts>--driver-memory 512m --conf spark.ui.enabled=false --conf spark.sql.shuffle.partitions=2</spark-opts>
  </spark-attributes>
  {late}
  <ACL owner="tester" group="users" permission="*"/>
</process>
"""


def pipeline(entities: Callable[..., Path], storage: Path, *, frequency: str = "hours(1)",
             late: bool = False) -> None:
    entities("cluster.xml", cluster("local", f"file://{storage}", colo="local"))
    entities("events.xml", FEED.format(name="events", frequency=frequency,
                                       flag="<availabilityFlag>_DONE</availabilityFlag>",
                                       late='<late-arrival cut-off="minutes(1)"/>' if late else ""))
    entities("counts.xml", FEED.format(name="counts", frequency=frequency,
                                       flag="<availabilityFlag>_READY</availabilityFlag>", late=""))
    late_xml = ('<late-process policy="periodic" delay="minutes(1)"><late-input input="events" '
                'workflow-path="apps/count_lines.py"/></late-process>') if late else ""
    entities("count.xml", PROCESS.format(frequency=frequency, late=late_xml))


def land(storage: Path, feed: str, moment: pendulum.DateTime, lines: int, flag: str | None = "_DONE") -> Path:
    folder = storage / "data" / feed / moment.format("YYYY/MM/DD/HHmm")
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "part-0.txt").write_text("".join(f"line {n}\n" for n in range(lines)))
    if flag:
        (folder / flag).touch()
    return folder


def process_spec(**changes: Any) -> Any:
    specs, issues = load_specs(entities_folder())
    assert not [issue for issue in issues if issue["level"] == "error"], issues
    (spec,) = [item for item in specs if item.dag_id == "falcon.process.count.local"]
    return spec.model_copy(update=changes) if changes else spec


def task_states(run: Any) -> dict[str, str]:
    return {ti.task_id: str(ti.state) for ti in run.get_task_instances()}


def test_instance_with_real_input_runs_its_spark_job(entities: Callable[..., Path], tmp_path: Path) -> None:
    storage = tmp_path / "storage"
    pipeline(entities, storage)
    moment = pendulum.datetime(2026, 3, 1, 5, tz="UTC")
    land(storage, "events", moment, lines=7)
    dag = build_process_dag(process_spec())
    run = dag.test(logical_date=moment)
    assert str(run.state) == "success", task_states(run)
    output = storage / "data" / "counts" / "2026/03/01/0500"
    assert (output / "_READY").exists()
    (row,) = [json.loads(line) for part in output.glob("part-*.json") for line in part.read_text().splitlines()]
    assert row["lines"] == 7 and row["path"] == f"file://{storage}/data/events/2026/03/01/0500"
    assert row["nominal"] == "2026-03-01-05-00" and row["tag"] == "run-202603010500"

    from airflow.models.renderedtifields import RenderedTaskInstanceFields

    (workflow,) = [ti for ti in run.get_task_instances() if ti.task_id == "workflow"]
    rendered = RenderedTaskInstanceFields.get_templated_fields(workflow)
    arguments = rendered["application_args"]  # the script runs under the column-lineage driver
    assert arguments[:2] == ["--falcon-script", str(entities_folder() / "apps" / "count_lines.py")]
    assert arguments[arguments.index("--") + 1:] == [f"file://{storage}/data/events/2026/03/01/0500",
                                                     f"file://{storage}/data/counts/2026/03/01/0500"]

    # A rerun of the same instance is idempotent: the output is cleared first, then rewritten.
    (output / "stale-file").write_text("left over")
    again = dag.test(logical_date=moment)
    assert str(again.state) == "success"
    assert not (output / "stale-file").exists() and (output / "_READY").exists()


def test_missing_input_waits_then_times_out(entities: Callable[..., Path], tmp_path: Path) -> None:
    storage = tmp_path / "storage"
    pipeline(entities, storage)
    moment = pendulum.datetime(2026, 3, 1, 6, tz="UTC")
    land(storage, "events", moment, lines=3, flag=None)  # data but no availability flag: not available
    dag = build_process_dag(process_spec(input_timeout_seconds=4))
    started = time.monotonic()
    run = dag.test(logical_date=moment)
    states = task_states(run)
    assert str(run.state) == "failed"
    assert states["wait_for_events"] == "failed" and states["workflow"] == "upstream_failed"
    assert time.monotonic() - started >= 4  # it did wait
    assert not (storage / "data" / "counts" / "2026/03/01/0600").exists()


def test_late_file_inside_the_cut_off_triggers_exactly_one_rerun(entities: Callable[..., Path],
                                                                 tmp_path: Path) -> None:
    storage = tmp_path / "storage"
    pipeline(entities, storage, frequency="minutes(1)", late=True)
    moment = pendulum.now("UTC").start_of("minute")
    folder = land(storage, "events", moment, lines=5)
    late = spec_with_fast_late_checks()
    dag = build_process_dag(late)

    def late_arrival() -> None:
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline:  # once the first run's output is available, a late file lands
            if (storage / "data" / "counts" / moment.format("YYYY/MM/DD/HHmm") / "_READY").exists():
                time.sleep(4)  # after late_data recorded the sizes the run saw
                (folder / "part-1.txt").write_text("late 1\nlate 2\n")
                return
            time.sleep(0.5)

    writer = threading.Thread(target=late_arrival, daemon=True)
    writer.start()
    run = dag.test(logical_date=moment)
    writer.join(timeout=1)
    assert str(run.state) == "success", task_states(run)
    (late_ti,) = [ti for ti in run.get_task_instances() if ti.task_id == "late_data"]
    summary = late_ti.xcom_pull(task_ids="late_data")
    assert summary["reruns"] == 1, summary
    output = storage / "data" / "counts" / moment.format("YYYY/MM/DD/HHmm")
    (row,) = [json.loads(line) for part in output.glob("part-*.json") for line in part.read_text().splitlines()]
    assert row["lines"] == 7  # the re-run saw the late lines


def spec_with_fast_late_checks() -> Any:
    spec = process_spec()
    assert spec.late is not None
    # The entity says: checks every minute until a minute after the instance;
    # checks every 5 s for 150 s keep the test short and sure.
    return spec.model_copy(update={"late": spec.late.model_copy(update={"delay_seconds": 5,
                                                                         "cut_off_seconds": (150,)})})
