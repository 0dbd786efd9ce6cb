"""The Falcon-frequency timetable through Airflow's timetable API (next_dagrun_info, manual runs, run ids)."""

from __future__ import annotations

from pathlib import Path

import pendulum
import pytest
from airflow.timetables.base import DataInterval, TimeRestriction
from airflow.utils.types import DagRunType

from falcon_airflow.provider.scheduling.timetables import FalconFrequencyTimetable

CATCHUP = TimeRestriction(earliest=None, latest=None, catchup=True)


def utc(*parts: int) -> pendulum.DateTime:
    return pendulum.datetime(*parts, tz="UTC")


def runs(timetable: FalconFrequencyTimetable, count: int,
         restriction: TimeRestriction = CATCHUP) -> list[DataInterval]:
    intervals: list[DataInterval] = []
    last = None
    for _ in range(count):
        info = timetable.next_dagrun_info(last_automated_data_interval=last, restriction=restriction)
        if info is None:
            break
        assert info.run_after == info.data_interval.start  # an instance runs at its nominal time
        intervals.append(info.data_interval)
        last = info.data_interval
    return intervals


def test_hourly_instances_from_validity_start_with_catchup() -> None:
    timetable = FalconFrequencyTimetable(start="2026-01-01T00:00Z", end="2026-01-01T03:00Z", frequency="hours(1)")
    intervals = runs(timetable, 10)
    assert [interval.start for interval in intervals] == [utc(2026, 1, 1, h) for h in range(3)]
    assert intervals[-1].end == utc(2026, 1, 1, 3)  # the end is exclusive: no run at 03:00


def test_months_do_not_drift_from_the_end_of_january() -> None:
    timetable = FalconFrequencyTimetable(start="2024-01-31T00:00Z", end="2025-01-01T00:00Z", frequency="months(1)")
    starts = [interval.start for interval in runs(timetable, 5)]
    assert starts == [utc(2024, 1, 31), utc(2024, 2, 29), utc(2024, 3, 31), utc(2024, 4, 30), utc(2024, 5, 31)]


def test_days_keep_local_midnight_across_dst() -> None:
    timetable = FalconFrequencyTimetable(start="2024-03-09T05:00Z", end="2024-03-20T00:00Z", frequency="days(1)",
                                         timezone="America/New_York")
    intervals = runs(timetable, 3)
    assert [interval.start for interval in intervals] == [utc(2024, 3, 9, 5), utc(2024, 3, 10, 5),
                                                          utc(2024, 3, 11, 4)]
    assert intervals[1].end - intervals[1].start == pendulum.duration(hours=23)


def test_without_catchup_the_schedule_starts_at_the_current_instance() -> None:
    timetable = FalconFrequencyTimetable(start="2020-01-01T00:00Z", end="2099-01-01T00:00Z", frequency="hours(1)")
    info = timetable.next_dagrun_info(last_automated_data_interval=None,
                                      restriction=TimeRestriction(earliest=None, latest=None, catchup=False))
    assert info is not None
    now = pendulum.now("UTC")
    assert info.data_interval.start == now.start_of("hour") or info.data_interval.start == now.start_of(
        "hour").subtract(hours=1)  # the hour may turn between the two calls


def test_restrictions_earliest_and_latest() -> None:
    timetable = FalconFrequencyTimetable(start="2026-01-01T00:00Z", end="2027-01-01T00:00Z", frequency="minutes(30)")
    restriction = TimeRestriction(earliest=utc(2026, 2, 1, 10, 10), latest=utc(2026, 2, 1, 11, 0), catchup=True)
    assert [interval.start for interval in runs(timetable, 10, restriction)] == [
        utc(2026, 2, 1, 10, 30), utc(2026, 2, 1, 11, 0)]


def test_nothing_after_validity() -> None:
    timetable = FalconFrequencyTimetable(start="2026-01-01T00:00Z", end="2026-01-02T00:00Z", frequency="days(1)")
    last = DataInterval(utc(2026, 1, 1), utc(2026, 1, 2))
    assert timetable.next_dagrun_info(last_automated_data_interval=last, restriction=CATCHUP) is None


@pytest.mark.parametrize(("run_after", "expected"), [
    (utc(2026, 1, 1, 5, 59), utc(2026, 1, 1, 5)),
    (utc(2025, 6, 1), utc(2026, 1, 1)),  # before validity: the first instance
    (utc(2030, 1, 1), utc(2026, 12, 31, 23)),  # after validity: the last instance
])
def test_manual_runs_stand_for_the_instance_at_or_before_them(run_after: pendulum.DateTime,
                                                              expected: pendulum.DateTime) -> None:
    timetable = FalconFrequencyTimetable(start="2026-01-01T00:00Z", end="2027-01-01T00:00Z", frequency="hours(1)")
    interval = timetable.infer_manual_data_interval(run_after=run_after)
    assert interval.start == expected and interval.end == expected.add(hours=1)


def test_run_ids_name_the_entity_and_instance() -> None:
    timetable = FalconFrequencyTimetable(start="2026-01-01T00:00Z", end="2027-01-01T00:00Z", frequency="hours(1)",
                                         entity="count-clicks")
    interval = DataInterval(utc(2026, 3, 1, 5), utc(2026, 3, 1, 6))
    scheduled = timetable.generate_run_id(run_type=DagRunType.SCHEDULED, run_after=interval.start,
                                          data_interval=interval)
    assert scheduled == "scheduled__count-clicks__2026-03-01T05:00Z"
    manual = timetable.generate_run_id(run_type=DagRunType.MANUAL, run_after=utc(2026, 3, 1, 5, 42, 7),
                                       data_interval=interval)
    assert manual == "manual__count-clicks__2026-03-01T05:00Z__20260301T054207"


def test_serialization_round_trip_and_plugin_registration() -> None:
    from airflow import plugins_manager

    timetable = FalconFrequencyTimetable(start="2026-01-01T00:00Z", end="2027-01-01T00:00Z", frequency="months(2)",
                                         timezone="Europe/Paris", entity="p")
    assert FalconFrequencyTimetable.deserialize(timetable.serialize()) == timetable
    registered = plugins_manager.get_timetables_plugins()
    name = "falcon_airflow.provider.scheduling.timetables.FalconFrequencyTimetable"
    assert registered[name] is FalconFrequencyTimetable
    assert timetable.summary == "months(2) Europe/Paris"


def test_dag_with_the_timetable_serializes_and_deserializes() -> None:
    from airflow.sdk import DAG
    from airflow.serialization.serialized_objects import DagSerialization

    timetable = FalconFrequencyTimetable(start="2026-01-01T00:00Z", end="2027-01-01T00:00Z", frequency="hours(6)",
                                         entity="p")
    with DAG("falcon.process.p.c1", schedule=timetable) as dag:
        pass
    restored = DagSerialization.from_dict(DagSerialization.to_dict(dag))
    assert restored.timetable == timetable


def test_retention_stops_at_the_validity_end_unless_instances_beyond_it_must_go(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Falcon's falcon.retention.keep.instances.beyond.validity: true (default), retention's last run is before the
    validity end; false, it runs on for one retention limit (months(5) on trg: 5 x 31 days)."""
    from tests.unit.compiler.test_feed_specs import specs

    from falcon_airflow.compiler.specs import RetentionDagSpec
    from falcon_airflow.dags.builder import build_retention_dag, retention_timetable

    (target,) = [spec for spec in specs(tmp_path, frequency="days(1)")
                 if isinstance(spec, RetentionDagSpec) and spec.cluster == "trg"]
    assert target.schedule.end == "2026-06-01T00:00Z" and target.limit == "months(5)"
    kept = retention_timetable(target, keep_beyond_validity=True)
    assert runs(kept, 400)[-1].start == utc(2026, 5, 31)
    evicting = retention_timetable(target, keep_beyond_validity=False)
    assert evicting.end == "2026-11-03T00:00Z"
    assert runs(evicting, 400)[-1].start == utc(2026, 11, 2)

    monkeypatch.setenv("AIRFLOW__FALCON__RETENTION_KEEP_INSTANCES_BEYOND_VALIDITY", "false")
    assert build_retention_dag(target).timetable == evicting
    monkeypatch.delenv("AIRFLOW__FALCON__RETENTION_KEEP_INSTANCES_BEYOND_VALIDITY")
    assert build_retention_dag(target).timetable == kept


def test_dags_carry_the_deployments_defaults_read_once_per_parse(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The defaults Airflow's DAG would read itself ([core] max_active_tasks_per_dag, ...) are read once by the
    parse and passed: the DAGs get the configured values, and a build with settings given reads none again."""
    from tests.unit.compiler.test_feed_specs import specs

    from falcon_airflow.compiler.specs import RetentionDagSpec
    from falcon_airflow.dags.builder import DeploymentSettings, build_dag

    (target,) = [spec for spec in specs(tmp_path, frequency="days(1)")
                 if isinstance(spec, RetentionDagSpec) and spec.cluster == "trg"]
    monkeypatch.setenv("AIRFLOW__CORE__MAX_ACTIVE_TASKS_PER_DAG", "7")
    monkeypatch.setenv("AIRFLOW__CORE__MAX_CONSECUTIVE_FAILED_DAG_RUNS_PER_DAG", "3")
    monkeypatch.setenv("AIRFLOW__DAG_PROCESSOR__DISABLE_BUNDLE_VERSIONING", "true")
    settings = DeploymentSettings.from_config()
    dag = build_dag(target)
    assert (dag.max_active_tasks, dag.max_consecutive_failed_dag_runs, dag.disable_bundle_versioning) == (7, 3, True)

    monkeypatch.setenv("AIRFLOW__CORE__MAX_ACTIVE_TASKS_PER_DAG", "9")
    assert build_dag(target, settings).max_active_tasks == 7  # the parse's reading, not a new one
    assert build_dag(target).max_active_tasks == 9
