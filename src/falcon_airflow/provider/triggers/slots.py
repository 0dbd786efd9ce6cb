"""Waiting in the triggerer for a slot in front of an Oozie process's workflow (see
:mod:`falcon_airflow.provider.scheduling.slots`)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

from airflow.triggers.base import BaseTrigger, TaskSuccessEvent, TriggerEvent
from asgiref.sync import sync_to_async

from falcon_airflow.provider.scheduling.slots import read_turn


class WorkflowSlotTrigger(BaseTrigger):
    """Marks the gate of run ``run_id`` successful (the task does not run again on a worker) when the run may enter
    its workflow: it reads the gate's and the end task's states in every run of the DAG through Airflow's task API
    every ``poke_seconds``. Every waiting run's trigger orders the waiting runs alike, and a run counts as waiting
    until its gate has succeeded, so two triggers never both take the last slot."""

    def __init__(self, *, dag_id: str, run_id: str, parallel: int, order: str, slot_task: str, end_task: str,
                 poke_seconds: float) -> None:
        super().__init__()  # type: ignore[no-untyped-call]  # Airflow leaves BaseTrigger.__init__ unannotated
        self.dag_id = dag_id
        self.run_id = run_id
        self.parallel = parallel
        self.order = order
        self.slot_task = slot_task
        self.end_task = end_task
        self.poke_seconds = poke_seconds

    def serialize(self) -> tuple[str, dict[str, Any]]:
        return ("falcon_airflow.provider.triggers.slots.WorkflowSlotTrigger",
                {"dag_id": self.dag_id, "run_id": self.run_id, "parallel": self.parallel, "order": self.order,
                 "slot_task": self.slot_task, "end_task": self.end_task, "poke_seconds": self.poke_seconds})

    async def run(self) -> AsyncIterator[TriggerEvent]:
        while True:
            # First wait, then look: the gate deferred a moment ago because there was no slot.
            await asyncio.sleep(self.poke_seconds)
            turn = await sync_to_async(read_turn)(self.dag_id, self.run_id, parallel=self.parallel,
                                                  order=self.order, slot_task=self.slot_task,
                                                  end_task=self.end_task)
            if turn.may_enter:
                self.log.info("%d of %d instance(s) running: %s starts its workflow", len(turn.holding),
                              self.parallel, self.run_id)
                yield TaskSuccessEvent()
                return
