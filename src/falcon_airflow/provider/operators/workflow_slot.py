"""The gate in front of an Oozie process's workflow group: Falcon's ``parallel`` and instance order for a workflow
of several tasks (the decision is :func:`falcon_airflow.provider.scheduling.slots.slot_turn`)."""

from __future__ import annotations

from typing import Any

from airflow.sdk import BaseOperator

from falcon_airflow.provider.scheduling.slots import read_turn
from falcon_airflow.provider.triggers.slots import WorkflowSlotTrigger

SHOWN_RUNS = 10


class WorkflowSlotOperator(BaseOperator):
    """Lets its run into the workflow when fewer than ``parallel`` runs of the DAG are inside theirs and no waiting
    run goes first in ``order``. It reads the gate's and the workflow end's states in every run through Airflow's
    task API; while it may not enter, it waits deferred (:class:`WorkflowSlotTrigger`, asking every
    ``poke_seconds``), holding no worker slot, and the trigger ends it when its turn comes. (Ending in the trigger
    also keeps the gate clear of Airflow's stale-executor-event race of tasks resumed within seconds.)"""

    ui_color = "#fdf3e8"

    def __init__(self, *, parallel: int, order: str, end_task_id: str, poke_seconds: int = 10,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.parallel = parallel
        self.order = order
        self.end_task_id = end_task_id
        self.poke_seconds = poke_seconds

    def execute(self, context: Any) -> None:
        run_id = context["dag_run"].run_id
        turn = read_turn(self.dag_id, run_id, parallel=self.parallel, order=self.order, slot_task=self.task_id,
                         end_task=self.end_task_id)
        if turn.may_enter:
            self.log.info("%d of %d instance(s) running: this one starts its workflow", len(turn.holding),
                          self.parallel)
            return
        self.log.info("waiting: %d of %d instance(s) running (%s); %d waiting instance(s) go first in %s order%s",
                      len(turn.holding), self.parallel, ", ".join(turn.holding[:SHOWN_RUNS]), len(turn.ahead),
                      self.order, f" ({', '.join(turn.ahead[:SHOWN_RUNS])})" if turn.ahead else "")
        self.defer(trigger=WorkflowSlotTrigger(dag_id=self.dag_id, run_id=run_id, parallel=self.parallel,
                                               order=self.order, slot_task=self.task_id, end_task=self.end_task_id,
                                               poke_seconds=self.poke_seconds),
                   method_name="execute")
