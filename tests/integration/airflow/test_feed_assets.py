"""Feed instances as Airflow assets on real Airflow: a process run's output instance becomes an asset event (the
instance as partition key and in ``extra``), and the scheduler makes a run of a user DAG scheduled on that feed."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pendulum
import pytest
from tests.integration.airflow.test_process_dag import land, pipeline, process_spec, task_states

from falcon_airflow.dags.builder import build_process_dag

pytestmark = pytest.mark.xdist_group("airflow")

COUNTS = "falcon://local/counts"
EVENTS = "falcon://local/events"
USER_DAG = "report_on_counts"


def user_dag() -> Any:
    """What a user writes: a DAG run for every instance of feed ``counts`` on cluster ``local``."""
    from airflow.sdk import DAG, PartitionedAssetTimetable
    from airflow.sdk.bases.operator import BaseOperator

    from falcon_airflow.provider.assets import feed_asset_named

    class Report(BaseOperator):
        def execute(self, context: Any) -> Any:
            return context["dag_run"].partition_key

    with DAG(USER_DAG, schedule=PartitionedAssetTimetable(assets=feed_asset_named("local", "counts")),
             start_date=pendulum.datetime(2026, 1, 1, tz="UTC"), is_paused_upon_creation=False) as dag:
        Report(task_id="report")
    return dag


def register(dag: Any) -> None:
    """Write a DAG into the metadata database as the dag-processor does after parsing its file."""
    from airflow.dag_processing.bundles.manager import DagBundlesManager
    from airflow.dag_processing.collection import update_dag_parsing_results_in_db
    from airflow.serialization.serialized_objects import LazyDeserializedDAG
    from airflow.utils.session import create_session

    with create_session() as session:
        DagBundlesManager().sync_bundles_to_db(session=session)
    with create_session() as session:
        update_dag_parsing_results_in_db("dags-folder", None, [LazyDeserializedDAG.from_dag(dag)], {}, None, set(),
                                         session=session)


def scheduler_tick() -> None:
    """The scheduler's step that turns pending partitioned asset events into DAG runs."""
    from airflow.jobs.job import Job
    from airflow.jobs.scheduler_job_runner import SchedulerJobRunner
    from airflow.utils.session import create_session

    runner = SchedulerJobRunner(job=Job(), num_runs=1)
    with create_session() as session:
        runner._create_dagruns_for_partitioned_asset_dags(session)


def test_output_instance_is_an_asset_event_that_triggers_a_user_dag(entities: Callable[..., Path],
                                                                   tmp_path: Path) -> None:
    from airflow.models.asset import AssetEvent, AssetModel
    from airflow.models.dagrun import DagRun
    from airflow.utils.session import create_session
    from sqlalchemy import select

    storage = tmp_path / "storage"
    pipeline(entities, storage)
    register(user_dag())
    moment = pendulum.datetime(2026, 3, 1, 7, tz="UTC")
    land(storage, "events", moment, lines=4)
    dag = build_process_dag(process_spec())
    workflow = dag.get_task("workflow")
    mark = dag.get_task("mark_outputs_available")
    assert [asset.name for asset in workflow.inlets] == [EVENTS]
    assert [(asset.name, asset.uri, asset.group, asset.extra) for asset in mark.outlets] == [
        (COUNTS, COUNTS, "falcon-feed", {})]
    # The Assets page's "Scheduled Dags" of the feed's asset: the user's DAG, scheduled on the asset itself.
    with create_session() as session:
        asset = session.scalars(select(AssetModel).where(AssetModel.name == COUNTS)).one()
        assert [reference.dag_id for reference in asset.scheduled_dags] == [USER_DAG]
        assert (asset.group, asset.extra) == ("falcon-feed", {})

    run = dag.test(logical_date=moment)
    assert str(run.state) == "success", task_states(run)

    path = f"file://{storage}/data/counts/2026/03/01/0700"
    with create_session() as session:
        events = session.scalars(select(AssetEvent).join(AssetModel, AssetEvent.asset_id == AssetModel.id)
                                 .where(AssetModel.name == COUNTS, AssetEvent.source_run_id == run.run_id)).all()
        assert [(event.partition_key, event.source_task_id) for event in events] == [
            ("2026-03-01T07:00Z", "mark_outputs_available")]
        assert events[0].extra == {"feed": "counts", "cluster": "local", "instance": "2026-03-01T07:00Z",
                                   "operation": "GENERATE", "entity": "count", "entityType": "PROCESS",
                                   "path": path}
        assert not session.scalars(select(DagRun).where(DagRun.dag_id == USER_DAG)).all()

    scheduler_tick()
    with create_session() as session:
        runs = session.scalars(select(DagRun).where(DagRun.dag_id == USER_DAG)).all()
        assert [(item.partition_key, item.run_type) for item in runs] == [("2026-03-01T07:00Z", "asset_triggered")]
