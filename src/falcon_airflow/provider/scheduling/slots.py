"""Falcon's ``parallel`` and instance order for a workflow made of several tasks (an Oozie process's task group).

A Spark process's workflow is one task, so Airflow's ``max_active_tis_per_dag`` bounds its running instances.
An Oozie workflow is a group of tasks, and Airflow has no bound on how many runs may be inside a group at once,
so the group is entered through one gate task per run (``workflow_slot``, see
:class:`falcon_airflow.provider.operators.workflow_slot.WorkflowSlotOperator`). This module is the gate's decision,
made from the states of two tasks in every run of the DAG, as Airflow reports them:

- a run *holds a slot* from the moment its gate succeeded until its workflow's end task is finished (succeeded, or
  skipped or upstream-failed because the workflow was killed), as Oozie counted a workflow running until it ended;
- a run *waits* while its gate is scheduled, queued, running or waiting to be rescheduled;
- a waiting run may enter when fewer than ``parallel`` runs hold a slot and it is among the first of the waiting
  runs in the process's order: oldest instance first (FIFO, and LAST_ONLY, whose older instances were skipped
  already) or newest first (LIFO). Instances are read from run ids, as the priority strategies do.

Every waiting run decides from the same states with the same order, and a run counts as waiting until its gate
has succeeded, so two runs never both take the last slot.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from falcon_airflow.provider.scheduling.priority import instance_minutes

FINISHED = frozenset({"success", "failed", "skipped", "upstream_failed", "removed"})
WAITING = frozenset({"scheduled", "queued", "running", "up_for_reschedule", "up_for_retry", "deferred"})


@dataclass(frozen=True)
class SlotTurn:
    """What the gate of one run decided, with what it saw (for its log)."""

    may_enter: bool
    holding: tuple[str, ...]
    """Runs whose workflow is under way."""
    ahead: tuple[str, ...]
    """Waiting runs that go before this one in the process's order."""


def _order_key(run_id: str) -> tuple[int, str]:
    return instance_minutes(run_id), run_id


def slot_turn(states: Mapping[str, Mapping[str, str | None]], run_id: str, *, parallel: int, order: str,
              slot_task: str, end_task: str) -> SlotTurn:
    """Whether run ``run_id`` may enter its workflow now; ``states`` maps run id to task id to state."""
    holding = tuple(sorted(other for other, tasks in states.items()
                           if other != run_id and tasks.get(slot_task) == "success"
                           and tasks.get(end_task) not in FINISHED))
    waiting = [other for other, tasks in states.items() if other != run_id and tasks.get(slot_task) in WAITING]
    waiting.append(run_id)
    waiting.sort(key=_order_key, reverse=order == "LIFO")
    place = waiting.index(run_id)
    free = max(0, parallel - len(holding))
    return SlotTurn(may_enter=place < free, holding=holding, ahead=tuple(waiting[:place]))


def read_turn(dag_id: str, run_id: str, *, parallel: int, order: str, slot_task: str, end_task: str) -> SlotTurn:
    """:func:`slot_turn` of the states Airflow's task API reports now (from a task or a trigger)."""
    from airflow.sdk.execution_time.task_runner import RuntimeTaskInstance

    states = RuntimeTaskInstance.get_task_states(dag_id=dag_id, task_ids=[slot_task, end_task])
    return slot_turn(states, run_id, parallel=parallel, order=order, slot_task=slot_task, end_task=end_task)
