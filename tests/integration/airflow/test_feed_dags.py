"""Retention and replication DAGs on real Airflow (dag.test), running our PySpark jobs on real files."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pendulum
import pytest
from tests.builders import cluster

from falcon_airflow.dags.builder import build_dag
from falcon_airflow.dags.loader import entities_folder, load_specs

pytestmark = pytest.mark.xdist_group("airflow")

FEED = """\
<feed name="logs" xmlns="uri:falcon:feed:0.1">
  <availabilityFlag>_DONE</availabilityFlag>
  <frequency>hours(1)</frequency>
  <clusters>
    <cluster name="east" type="source">
      <validity start="2026-01-01T00:00Z" end="2099-01-01T00:00Z"/>
      <retention limit="hours(5)" action="delete"/>
    </cluster>
    <cluster name="west" type="target">
      <validity start="2026-01-01T00:00Z" end="2099-01-01T00:00Z"/>
      <retention limit="days(30)" action="delete"/>
    </cluster>
  </clusters>
  <locations><location type="data" path="/logs/${YEAR}/${MONTH}/${DAY}/${HOUR}"/></locations>
  <ACL owner="ops" group="users" permission="*"/>
  <schema location="/none" provider="text"/>
</feed>
"""


def spec(dag_id: str):  # type: ignore[no-untyped-def]
    specs, issues = load_specs(entities_folder())
    assert not [issue for issue in issues if issue["level"] == "error"], issues
    return next(item for item in specs if item.dag_id == dag_id)


def setup(entities: Callable[..., Path], tmp_path: Path) -> tuple[Path, Path]:
    east, west = tmp_path / "east", tmp_path / "west"
    entities("east.xml", cluster("east", f"file://{east}", colo="east"))
    entities("west.xml", cluster("west", f"file://{west}", colo="west"))
    entities("logs.xml", FEED)
    return east, west


def instance_folder(root: Path, moment: pendulum.DateTime) -> Path:
    return root / "logs" / moment.format("YYYY/MM/DD/HH")


def test_retention_dag_evicts_expired_instances_only(entities: Callable[..., Path], tmp_path: Path) -> None:
    east, _ = setup(entities, tmp_path)
    now = pendulum.now("UTC").start_of("hour")
    kept, expired = [], []
    for hours_ago in (*range(0, 4), *range(7, 12)):  # the limit is hours(5), counted from when the run starts
        moment = now.subtract(hours=hours_ago)
        folder = instance_folder(east, moment)
        folder.mkdir(parents=True)
        (folder / "part-0").write_text("x")
        (expired if hours_ago >= 7 else kept).append(folder)
    static = east / "logs" / "README"
    static.write_text("not an instance")
    retention = build_dag(spec("falcon.feed.logs.retention.east"))
    run = retention.test(logical_date=now)
    assert str(run.state) == "success"
    assert all(folder.exists() for folder in kept)
    assert not any(folder.exists() for folder in expired)
    assert static.exists() and (east / "logs").is_dir()
    (ti,) = run.get_task_instances()
    report = ti.xcom_pull(task_ids="retention")
    assert len(report["evicted"]) == len(expired)


def test_replication_dag_copies_the_instance_and_writes_the_flag(entities: Callable[..., Path],
                                                                 tmp_path: Path) -> None:
    east, west = setup(entities, tmp_path)
    moment = pendulum.datetime(2026, 3, 1, 5, tz="UTC")
    source = instance_folder(east, moment)
    (source / "nested").mkdir(parents=True)
    (source / "part-0").write_text("a" * 1000)
    (source / "nested" / "part-1").write_text("b" * 10)
    (source / "_DONE").touch()
    replication = build_dag(spec("falcon.feed.logs.replication.east.west"))
    run = replication.test(logical_date=moment)
    assert str(run.state) == "success"
    target = instance_folder(west, moment)
    assert (target / "part-0").read_text() == "a" * 1000 and (target / "nested" / "part-1").read_text() == "b" * 10
    assert (target / "_DONE").exists()
    assert not [path for path in target.parent.iterdir() if "staging" in path.name]

    # The replica is an instance of the feed's asset on the target cluster; the copy read the source's asset.
    from airflow.models.asset import AssetEvent, AssetModel
    from airflow.utils.session import create_session
    from sqlalchemy import select

    task = replication.get_task("replicate")
    assert [asset.name for asset in task.inlets] == ["falcon://east/logs"]
    assert [asset.name for asset in task.outlets] == ["falcon://west/logs"]
    with create_session() as session:
        (event,) = session.scalars(select(AssetEvent).join(AssetModel, AssetEvent.asset_id == AssetModel.id)
                                   .where(AssetEvent.source_run_id == run.run_id)).all()
        name = session.scalar(select(AssetModel.name).where(AssetModel.id == event.asset_id))
        assert (name, event.partition_key) == ("falcon://west/logs", "2026-03-01T05:00Z")
        assert event.extra["operation"] == "REPLICATE" and event.extra["path"] == f"file://{target}"


def test_replication_copies_an_instance_again_when_it_changes_before_the_cut_off(
        entities: Callable[..., Path], tmp_path: Path) -> None:
    """Falcon re-replicated late data: after the copy, the source instance is watched until the feed's late-arrival
    cut-off, and a change (a file that arrived late) is replicated again."""
    import threading
    import time

    east, west = tmp_path / "east", tmp_path / "west"
    entities("east.xml", cluster("east", f"file://{east}", colo="east"))
    entities("west.xml", cluster("west", f"file://{west}", colo="west"))
    entities("logs.xml", FEED.replace("<frequency>hours(1)</frequency>",
                                      '<frequency>hours(1)</frequency>\n  <late-arrival cut-off="hours(1)"/>'))
    compiled = spec("falcon.feed.logs.replication.east.west")
    assert compiled.late is not None and compiled.late.cut_off_seconds == (3600,)
    now = pendulum.now("UTC")
    moment = now.start_of("hour")
    # A cut-off 150 s from now and a check every 5 s instead of Falcon's hours, so the test sees a re-replication.
    late = compiled.late.model_copy(update={"policy": "periodic", "delay_seconds": 5,
                                            "cut_off_seconds": (int((now - moment).total_seconds()) + 150,)})
    source = instance_folder(east, moment)
    source.mkdir(parents=True)
    (source / "part-0").write_text("early\n")
    (source / "_DONE").touch()
    target = instance_folder(west, moment)

    def arrive_late() -> None:
        deadline = time.monotonic() + 120
        while not (target / "_DONE").exists() and time.monotonic() < deadline:
            time.sleep(0.5)
        time.sleep(8)  # after the copy, once the watch has recorded what the source held
        (source / "part-1").write_text("late\n")

    writer = threading.Thread(target=arrive_late, daemon=True)
    writer.start()
    run = build_dag(compiled.model_copy(update={"late": late})).test(logical_date=moment)
    writer.join(timeout=5)
    states = {ti.task_id: str(ti.state) for ti in run.get_task_instances()}
    assert str(run.state) == "success", states
    assert (target / "part-1").read_text() == "late\n" and (target / "part-0").read_text() == "early\n"
    late_ti = next(ti for ti in run.get_task_instances() if ti.task_id == "late_data")
    assert late_ti.xcom_pull(task_ids="late_data")["reruns"] == 1
