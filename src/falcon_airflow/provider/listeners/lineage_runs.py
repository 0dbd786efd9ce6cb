"""One START per OpenLineage task run, also for tasks that defer.

A deferrable task (the availability sensors, the late-data watcher) runs in a worker, defers to the triggerer, and
runs again in a worker when its trigger fires - with the same try number, hence the same OpenLineage run id. The
OpenLineage provider's listener reports a START at every worker start, so the run would START twice (or more),
which OpenLineage consumers read as the run entering RUNNING again. This listener runs before the provider's: on a
resumed start it switches the provider's task events off for that start only, through the provider's own
per-task emission flags, and switches them back on as soon as the task's code runs, so its COMPLETE or FAIL is
reported as usual.

It never fails a task: anything unexpected leaves the provider's behaviour unchanged.
"""

from __future__ import annotations

import logging
from typing import Any

from airflow.listeners import hookimpl

log = logging.getLogger(__name__)

# The provider's per-task emission flags live in the task's params under this name (its emission_policy module).
EMISSION_PARAM = "_openlineage_emission_policy"
_SUPPRESSED = "_falcon_resume_suppressed"


def resumed_from_trigger(task_instance: Any) -> bool:
    """Whether this worker start continues a deferred try (the task runner resumes at ``next_method``)."""
    context = getattr(task_instance, "_ti_context_from_server", None)
    return bool(getattr(context, "next_method", None))


def _flags(task: Any) -> dict[str, Any] | None:
    params = getattr(task, "params", None)
    if params is None:
        return None
    current = params.get(EMISSION_PARAM)
    value = getattr(current, "value", current)
    return dict(value) if isinstance(value, dict) else {}


def suppress_start(task: Any) -> bool:
    """Switch the provider's task events off on ``task`` (this process's copy), remembering what it had."""
    flags = _flags(task)
    if flags is None or flags.get("emit_task_events") is False:
        return False  # no params, or lineage already off for this task: nothing to restore later
    previous = dict(flags)
    flags["emit_task_events"] = False
    task.params[EMISSION_PARAM] = flags
    setattr(task, _SUPPRESSED, previous)
    return True


def restore_events(task: Any) -> None:
    """Undo :func:`suppress_start` (idempotent): the COMPLETE/FAIL of the resumed start is reported."""
    previous = getattr(task, _SUPPRESSED, None)
    if previous is None:
        return
    if previous:
        task.params[EMISSION_PARAM] = previous
    else:
        task.params.pop(EMISSION_PARAM, None)
    setattr(task, _SUPPRESSED, None)


@hookimpl(tryfirst=True)
def on_task_instance_running(previous_state: Any, task_instance: Any) -> None:
    try:
        task = getattr(task_instance, "task", None)
        if task is not None and resumed_from_trigger(task_instance) and suppress_start(task):
            log.debug("OpenLineage START of %s already sent before it deferred", task_instance.task_id)
    except Exception:  # lineage must never fail a task
        log.debug("cannot adjust OpenLineage events of a resumed task", exc_info=True)


@hookimpl(tryfirst=True)
def on_task_instance_success(previous_state: Any, task_instance: Any) -> None:
    _restore(task_instance)


@hookimpl(tryfirst=True)
def on_task_instance_failed(previous_state: Any, task_instance: Any, error: Any) -> None:
    _restore(task_instance)


def _restore(task_instance: Any) -> None:
    try:
        task = getattr(task_instance, "task", None)
        if task is not None:
            restore_events(task)
    except Exception:
        log.debug("cannot restore OpenLineage events of a resumed task", exc_info=True)
