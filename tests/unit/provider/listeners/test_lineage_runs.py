"""One OpenLineage START per task run: a start that resumes a deferred try emits none, its end is reported."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from airflow.providers.openlineage.utils.emission_policy import (
    OL_EMISSION_POLICY_PARAM,
    resolve_task_emission_policy,
)
from airflow.providers.standard.operators.empty import EmptyOperator
from airflow.sdk import DAG

from falcon_airflow.provider.listeners import lineage_runs


def task_instance(task: Any, next_method: str | None) -> SimpleNamespace:
    return SimpleNamespace(task=task, task_id=task.task_id,
                           _ti_context_from_server=SimpleNamespace(next_method=next_method))


def emits(task: Any) -> bool:
    return resolve_task_emission_policy(task, "d", task.task_id).emit


@pytest.fixture
def task() -> Any:
    with DAG("d", schedule=None):
        return EmptyOperator(task_id="wait_for_clicks")


def test_the_provider_reads_the_same_param_name() -> None:
    assert lineage_runs.EMISSION_PARAM == OL_EMISSION_POLICY_PARAM


def test_a_first_start_is_left_alone(task: Any) -> None:
    lineage_runs.on_task_instance_running(None, task_instance(task, None))
    assert emits(task)


@pytest.mark.parametrize("end", ["success", "failed"])
def test_a_resumed_start_is_silent_and_its_end_is_reported(task: Any, end: str) -> None:
    ti = task_instance(task, "execute_complete")
    lineage_runs.on_task_instance_running(None, ti)
    assert not emits(task)
    if end == "success":
        lineage_runs.on_task_instance_success(None, ti)
    else:
        lineage_runs.on_task_instance_failed(None, ti, RuntimeError("boom"))
    assert emits(task)
    assert OL_EMISSION_POLICY_PARAM not in task.params


def test_flags_the_author_set_are_kept(task: Any) -> None:
    task.params[OL_EMISSION_POLICY_PARAM] = {"include_source_code": False}
    ti = task_instance(task, "execute_complete")
    lineage_runs.on_task_instance_running(None, ti)
    assert not emits(task)
    lineage_runs.on_task_instance_success(None, ti)
    assert emits(task) and task.params[OL_EMISSION_POLICY_PARAM] == {"include_source_code": False}


def test_a_task_with_lineage_switched_off_stays_off(task: Any) -> None:
    task.params[OL_EMISSION_POLICY_PARAM] = {"emit_task_events": False}
    ti = task_instance(task, "execute_complete")
    lineage_runs.on_task_instance_running(None, ti)
    lineage_runs.on_task_instance_success(None, ti)
    assert not emits(task)


def test_odd_task_instances_never_raise() -> None:
    lineage_runs.on_task_instance_running(None, object())
    lineage_runs.on_task_instance_success(None, SimpleNamespace(task=object()))


def test_the_plugin_registers_the_listener_to_run_before_others() -> None:
    from falcon_airflow.provider.plugin import FalconPlugin

    assert lineage_runs in FalconPlugin.listeners
    for hook in ("on_task_instance_running", "on_task_instance_success", "on_task_instance_failed"):
        assert getattr(lineage_runs, hook).airflow_impl["tryfirst"] is True
