"""The workflow gate's decision: Falcon's parallel and order over the states of every run's gate and end task."""

from __future__ import annotations

import pytest

from falcon_airflow.provider.scheduling.slots import slot_turn

SLOT, END = "workflow_slot", "workflow.end"


def run(hour: int) -> str:
    return f"scheduled__clicks__2026-01-01T{hour:02d}:00Z"


def states(**by_hour: tuple[str | None, str | None]) -> dict[str, dict[str, str | None]]:
    return {run(int(hour.removeprefix("h"))): {SLOT: slot, END: end} for hour, (slot, end) in by_hour.items()}


def turn(table: dict[str, dict[str, str | None]], me: int, *, parallel: int = 2, order: str = "FIFO"):
    return slot_turn(table, run(me), parallel=parallel, order=order, slot_task=SLOT, end_task=END)


def test_a_run_enters_while_fewer_than_parallel_workflows_run() -> None:
    table = states(h1=("success", "running"), h2=("running", None))
    decided = turn(table, 2)
    assert decided.may_enter and decided.holding == (run(1),)


def test_a_run_waits_while_parallel_workflows_run() -> None:
    table = states(h1=("success", None), h2=("success", "queued"), h3=("running", None))
    decided = turn(table, 3)
    assert not decided.may_enter and decided.holding == (run(1), run(2))


@pytest.mark.parametrize("end", ["success", "skipped", "upstream_failed", "failed"])
def test_a_finished_workflow_holds_no_slot(end: str) -> None:
    table = states(h1=("success", end), h2=("success", end), h3=("running", None))
    assert turn(table, 3).may_enter


def test_fifo_lets_the_oldest_waiting_instance_in_first() -> None:
    table = states(h1=("success", None), h2=("up_for_reschedule", None), h3=("up_for_reschedule", None),
                   h4=("running", None))
    assert not turn(table, 4).may_enter
    assert turn(table, 4).ahead == (run(2), run(3))
    assert turn(table, 2).may_enter


def test_lifo_lets_the_newest_waiting_instance_in_first() -> None:
    table = states(h1=("success", None), h2=("running", None), h3=("up_for_reschedule", None),
                   h4=("up_for_reschedule", None))
    assert turn(table, 4, order="LIFO").may_enter
    assert not turn(table, 2, order="LIFO").may_enter
    assert turn(table, 2, order="LIFO").ahead == (run(4), run(3))


def test_two_free_slots_let_the_first_two_waiting_in() -> None:
    table = states(h1=("up_for_reschedule", None), h2=("up_for_reschedule", None), h3=("running", None))
    assert turn(table, 3, order="LIFO").may_enter
    assert turn(table, 2, order="LIFO").may_enter
    assert not turn(table, 1, order="LIFO").may_enter


def test_runs_that_did_not_reach_the_gate_neither_wait_nor_hold() -> None:
    table = states(h1=(None, None), h2=("skipped", "skipped"), h3=("running", None))
    assert turn(table, 3, parallel=1).may_enter
