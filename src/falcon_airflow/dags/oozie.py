"""An Oozie workflow spec as the process DAG's ``workflow`` task group: one task per node, a nested group per
sub-workflow, every transition an edge (see :mod:`falcon_airflow.provider.operators.oozie` for how a run follows them).

All node tasks trigger on ``none_failed_min_one_success`` and decide for themselves whether the workflow reached
them, so a node that several nodes lead to (a shared kill node, a join) runs once, when one of them chose it.

Every node task gets the process's identity (``spec.run_as``: the checked ``-doAs`` user, else the ACL owner), which
every action runs as, and the local folders its actions may read and change files in (:func:`file_roots`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from airflow.sdk import TaskGroup

from falcon_airflow.compiler.oozie_spec import OozieNode, OozieWorkflowSpec
from falcon_airflow.compiler.specs import ProcessDagSpec
from falcon_airflow.core.paths import Template
from falcon_airflow.dags.builder import PROCESS_INSTANCE
from falcon_airflow.provider.operators.oozie import OozieNodeOperator

FALCON_CONF = "{{ macros.falcon.oozie_configuration(falcon, dag_run) }}"


@dataclass
class _Build:
    spec: ProcessDagSpec
    spark: dict[str, Any]
    user: str
    run_as: str | None
    roots: list[str]
    tasks: dict[str, OozieNodeOperator] = field(default_factory=dict)
    edges: list[tuple[str, str]] = field(default_factory=list)


def _entry(workflow: OozieWorkflowSpec, name: str) -> str:
    """The task a transition to ``name`` starts: the node's own, or the first of a sub-workflow's group."""
    node = workflow.node(name)
    if node.sub_workflow is not None:
        return _entry(node.sub_workflow, node.sub_workflow.start)
    return f"{workflow.group_id}.{node.task_id}"


def _recorders(workflow: OozieWorkflowSpec) -> dict[str, list[str]]:
    """Node name to the tasks that record what it did (a sub-workflow action: its group's end and kill tasks)."""
    recorders: dict[str, list[str]] = {}
    for node in workflow.nodes:
        child = node.sub_workflow
        if child is not None:
            recorders[node.name] = [f"{child.group_id}.{item.task_id}" for item in child.nodes
                                    if item.type in ("end", "kill")]
        else:
            recorders[node.name] = [f"{workflow.group_id}.{node.task_id}"]
    return recorders


def _level(workflow: OozieWorkflowSpec, caller: OozieNode | None = None) -> dict[str, Any]:
    level: dict[str, Any] = {"name": workflow.name, "app_path": workflow.app_path,
                             "parameters": dict(workflow.parameters), "required": list(workflow.required)}
    if caller is not None:
        level.update(configuration=dict(caller.configuration), propagate=caller.propagate_configuration,
                     action=caller.name, ok=caller.ok, error=caller.error)
    return level


def _targets(workflow: OozieWorkflowSpec, node: OozieNode, outer: dict[str, str]) -> dict[str, Any]:
    if node.type == "action" or node.type == "join":
        targets: dict[str, Any] = {"ok": _entry(workflow, node.ok) if node.ok else None}
        if node.error:
            targets["error"] = _entry(workflow, node.error)
        return targets
    if node.type == "decision":
        return {"cases": [{"predicate": case.predicate, "to": case.to, "task": _entry(workflow, case.to)}
                          for case in node.cases],
                "default": _entry(workflow, node.default or "")}
    if node.type == "fork":
        return {"paths": [_entry(workflow, path) for path in node.paths]}
    return dict(outer)  # end and kill of a sub-workflow continue in the caller


def _build_level(build: _Build, workflow: OozieWorkflowSpec, levels: list[dict[str, Any]],
                 outer: dict[str, str]) -> None:
    recorders = _recorders(workflow)
    for node in workflow.nodes:
        if node.sub_workflow is not None:
            child = node.sub_workflow
            caller_targets = {"ok": _entry(workflow, node.ok or ""), "error": _entry(workflow, node.error or "")}
            with TaskGroup(node.task_id, tooltip=f"sub-workflow {child.name} ({child.app_path})"):
                _build_level(build, child, [*levels, _level(child, node)], caller_targets)
            continue
        targets = _targets(workflow, node, outer)
        extra: dict[str, Any] = {}
        if node.type == "action":
            extra = {"retries": node.retry_max, "retry_delay": timedelta(minutes=node.retry_interval_minutes)}
        else:
            extra = {"retries": 0}
        if node.type == "end" and len(levels) == 1:  # the workflow's own end: the instance's lineage
            extra.update(falcon_lineage=build.spec, lineage_instance=PROCESS_INSTANCE)
        task = OozieNodeOperator(
            task_id=node.task_id, node=node.model_dump(mode="json", exclude={"sub_workflow"}), levels=levels,
            targets=targets, falcon_conf=FALCON_CONF, node_tasks=recorders, arrivals=node.arrivals,
            user=build.user, run_as=build.run_as, file_roots=build.roots, spark_defaults=build.spark,
            trigger_rule="none_failed_min_one_success",
            doc_md=_doc(workflow, node), **extra)
        build.tasks[task.task_id] = task
        for key, value in targets.items():
            if key == "cases":
                build.edges += [(task.task_id, case["task"]) for case in value]
            elif key == "paths":
                build.edges += [(task.task_id, item) for item in value]
            elif value:
                build.edges.append((task.task_id, value))


def _doc(workflow: OozieWorkflowSpec, node: OozieNode) -> str:
    where = f"{workflow.file}:{node.line}" if node.line else workflow.file
    kind = f"{node.action} action" if node.type == "action" else f"{node.type} node"
    return f"Oozie {kind} `{node.name}` of workflow `{workflow.name}`, defined in `{where}`."


def _app_paths(workflow: OozieWorkflowSpec) -> list[str]:
    found = [workflow.app_path]
    for node in workflow.nodes:
        if node.sub_workflow is not None:
            found += _app_paths(node.sub_workflow)
    return found


def file_roots(spec: ProcessDagSpec) -> list[str]:
    """Where the workflow's actions may read and change local files: its application folders (sub-workflows'
    too), the folders holding the process's own feeds (the fixed part of each location template) and the cluster's
    storage (its ``nameNode``). Remote ones are kept too: only local roots count (:mod:`falcon_airflow.oozie.access`
    leaves the others and those too shallow to be a root out)."""
    assert spec.oozie is not None
    roots = _app_paths(spec.oozie)
    for feed in [*(item.feed for item in spec.inputs), *(item.feed for item in spec.outputs)]:
        if feed.storage == "filesystem":
            roots.append(Template(feed.location).base_folder)
    name_node = spec.cluster_conf.get("nameNode")
    if name_node:
        roots.append(name_node)
    return list(dict.fromkeys(roots))


def end_task_id(spec: ProcessDagSpec) -> str:
    """The task of the workflow's end node: finished (succeeded, or skipped when the workflow was killed) once the
    workflow is over."""
    workflow = spec.oozie
    assert workflow is not None
    end = next(node for node in workflow.nodes if node.type == "end")
    return f"{workflow.group_id}.{end.task_id}"


def exit_task_ids(spec: ProcessDagSpec) -> list[str]:
    """The tasks of the workflow's end node and of its own kill nodes: one of them fails (a kill node, or the end
    upstream-failed when an action task broke) whenever the workflow failed (a sub-workflow's kill nodes continue in
    the caller)."""
    workflow = spec.oozie
    assert workflow is not None
    kills = [f"{workflow.group_id}.{node.task_id}" for node in workflow.nodes if node.type == "kill"]
    return [end_task_id(spec), *kills]


def build_workflow_group(spec: ProcessDagSpec) -> tuple[OozieNodeOperator, OozieNodeOperator]:
    """The ``workflow`` group inside the current DAG context; returns its first task and its end task."""
    workflow = spec.oozie
    assert workflow is not None
    build = _Build(spec=spec, spark={"master": workflow.spark_master, "deploy_mode": workflow.spark_deploy_mode,
                          "connection": spec.cluster}, user=spec.run_as or spec.owner, run_as=spec.run_as,
                   roots=file_roots(spec))
    with TaskGroup(workflow.group_id, tooltip=f"Oozie workflow {workflow.name} ({workflow.app_path})"):
        _build_level(build, workflow, [_level(workflow)], {})
    for upstream, downstream in build.edges:
        build.tasks[upstream] >> build.tasks[downstream]
    return build.tasks[_entry(workflow, workflow.start)], build.tasks[end_task_id(spec)]
