"""Falcon's process controls on an Oozie process's DAG (the example's report-clicks with parallel 2, LIFO, a
periodic retry of 3 and a late-process): the workflow gate, the whole-workflow retry after the workflow's exits,
the late-data watch that runs the instance again, and no process-level retry on the single tasks."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from falcon_airflow.compiler import compile_workspace
from falcon_airflow.compiler.specs import ProcessDagSpec
from falcon_airflow.dags.builder import DeploymentSettings, build_dag
from falcon_airflow.provider.operators.late_data import LateDataOperator
from falcon_airflow.provider.operators.oozie import OozieNodeOperator
from falcon_airflow.provider.operators.rerun import WorkflowRetryOperator
from falcon_airflow.provider.operators.workflow_slot import WorkflowSlotOperator
from falcon_airflow.provider.scheduling.priority import NewestInstanceFirst
from falcon_airflow.workspace import Workspace

REPOSITORY = Path(__file__).resolve().parents[3]
SETTINGS = DeploymentSettings(group_roles=False, keep_instances_beyond_validity=True, max_active_tasks=16,
                              max_consecutive_failed_dag_runs=0, disable_bundle_versioning=False,
                              workflow_slot_poke_seconds=7)
CONTROLS = """<parallel>2</parallel>
    <order>LIFO</order>"""
LATE = """<retry policy="periodic" delay="minutes(5)" attempts="3"/>
    <late-process policy="periodic" delay="minutes(10)">
        <late-input input="counts" workflow-path="apps/report-clicks"/>
    </late-process>
    <ACL owner="analytics\""""


def compiled(tmp_path: Path, *, late: bool = True) -> ProcessDagSpec:
    folder = tmp_path / "entities"
    shutil.copytree(REPOSITORY / "entities", folder)
    path = folder / "processes" / "report-clicks.xml"
    text = path.read_text().replace("<parallel>1</parallel>\n    <order>FIFO</order>", CONTROLS)
    if late:
        text = text.replace('<ACL owner="analytics"', LATE)
        counts = folder / "feeds" / "click-counts.xml"
        counts.write_text(counts.read_text().replace("<clusters>", '<late-arrival cut-off="hours(2)"/>\n    '
                                                     "<clusters>", 1))
    path.write_text(text)
    compilation = compile_workspace(Workspace.load([str(folder)]), entities_dir=folder)
    assert not [issue for issue in compilation.report.issues if issue.is_error], compilation.report.issues
    (spec,) = [spec for spec in compilation.specs
               if isinstance(spec, ProcessDagSpec) and spec.source.name == "report-clicks"]
    return spec


def test_the_gate_bounds_the_workflow_group_in_the_entitys_order(tmp_path: Path) -> None:
    dag = build_dag(compiled(tmp_path, late=False), SETTINGS)
    gate = dag.get_task("workflow_slot")
    assert isinstance(gate, WorkflowSlotOperator)
    assert (gate.parallel, gate.order, gate.poke_seconds) == (2, "LIFO", 7)
    assert isinstance(gate.weight_rule, NewestInstanceFirst)
    assert gate.end_task_id == "workflow.end" and dag.has_task(gate.end_task_id)
    assert gate.downstream_task_ids == {"clear_outputs"}
    assert gate.upstream_task_ids == {"wait_for_counts"}
    first_nodes = dag.get_task("clear_outputs").downstream_task_ids
    assert first_nodes and all(task_id.startswith("workflow.") for task_id in first_nodes)
    assert not dag.has_task("workflow_retry")  # no <retry>: nothing runs the workflow again


def test_a_failed_workflow_is_retried_as_a_whole_and_its_actions_by_their_own_retry_max(tmp_path: Path) -> None:
    dag = build_dag(compiled(tmp_path), SETTINGS)
    retry = dag.get_task("workflow_retry")
    assert isinstance(retry, WorkflowRetryOperator)
    assert (retry.policy, retry.delay_seconds, retry.attempts) == ("periodic", 300, 3)
    assert retry.trigger_rule == "one_failed" and retry.retries == 0
    kills = {task.task_id for task in dag.tasks if isinstance(task, OozieNodeOperator) and task.node["type"] == "kill"}
    assert kills and retry.upstream_task_ids == {"workflow.end", *kills}
    for task in dag.tasks:
        if isinstance(task, OozieNodeOperator) and task.node["type"] == "action":
            assert task.retries == int(task.node.get("retry_max") or 0), task.task_id
        elif not isinstance(task, OozieNodeOperator) and task.task_id != "wait_for_counts":
            assert task.retries == 0, task.task_id  # the process's <retry> is the whole workflow's


def test_late_data_runs_the_whole_instance_again(tmp_path: Path) -> None:
    spec = compiled(tmp_path)
    assert spec.late is not None and spec.late.rerun is None
    dag = build_dag(spec, SETTINGS)
    late = dag.get_task("late_data")
    assert isinstance(late, LateDataOperator)
    assert late.rerun_job == {} and late.rerun_settings == {}
    assert late.upstream_task_ids == {"mark_outputs_available"}
    assert spec.max_active_runs > max(spec.parallel, 1)  # late watches keep runs open beside the running ones


@pytest.mark.parametrize("other", ["apps/late-clicks", "/apps/report-clicks/other"])
def test_a_late_workflow_path_an_oozie_process_does_not_use_is_reported(tmp_path: Path, other: str) -> None:
    from falcon_airflow.validation import validate_workspace

    folder = tmp_path / "entities"
    shutil.copytree(REPOSITORY / "entities", folder)
    path = folder / "processes" / "report-clicks.xml"
    path.write_text(path.read_text().replace('<ACL owner="analytics"', LATE.replace(
        'workflow-path="apps/report-clicks"', f'workflow-path="{other}"')))
    counts = folder / "feeds" / "click-counts.xml"
    counts.write_text(counts.read_text().replace("<clusters>", '<late-arrival cut-off="hours(2)"/>\n    <clusters>', 1))
    report = validate_workspace(Workspace.load([str(folder)]))
    (found,) = [issue for issue in report.issues if issue.rule == "FA070"]
    assert found.entity == "report-clicks" and found.line is not None
    assert other in found.message and "runs its own workflow" in found.message
