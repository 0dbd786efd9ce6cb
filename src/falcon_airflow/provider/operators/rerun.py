"""Running a process instance's workflow again from a task of the instance: Falcon's whole-workflow ``<retry>`` and
an Oozie process's late re-run.

An Oozie workflow is a group of tasks, and a task can re-run other tasks only by asking Airflow to clear them.
The one way a task has to do that is the one Airflow's own ``TriggerDagRunOperator`` uses with ``reset_dag_run``:
the worker asks the api-server to trigger the run again, and as it exists, it is cleared. The instance then runs
again as a whole, as when a user clears it (or runs ``instance -rerun``): its inputs are checked, it waits for a
slot, its outputs are cleared, the workflow runs. The task that asked is cleared with the rest; it runs again in
the new pass only when the workflow fails again (``workflow_retry``) or to watch for late data anew
(``late_data``).

A run's passes are counted by Airflow's ``clear_number``, which every clear increments - a user's rerun included,
as Oozie's run number counted every run of a workflow. A task that deferred names its pass in the deferral
(:func:`deferred_in`): Airflow keeps a cleared task's resume point, and a resume left over from an earlier pass
must start the task afresh, not act on that pass's event.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from airflow.providers.standard.triggers.temporal import TimeDeltaTrigger
from airflow.sdk import BaseOperator
from airflow.sdk.exceptions import AirflowSkipException, DagRunTriggerException

from falcon_airflow.timekeeping.policies import retry_wait


def passes_before(context: Any) -> int:
    """How many times the run was run again (cleared) before this pass."""
    return int(getattr(context["dag_run"], "clear_number", 0) or 0)


def deferred_in(context: Any) -> dict[str, int]:
    """The deferral's keyword arguments that name the pass it belongs to."""
    return {"for_pass": passes_before(context)}


def stale_resume(context: Any, for_pass: int | None) -> bool:
    """Whether a resumed task's deferral was made in an earlier pass of the run."""
    return for_pass is not None and for_pass != passes_before(context)


def run_instance_again(context: Any, why: str) -> DagRunTriggerException:
    """The exception that, raised from a task, makes its worker clear the task's whole run (see the module)."""
    run = context["dag_run"]
    return DagRunTriggerException(
        trigger_dag_id=run.dag_id, dag_run_id=run.run_id, conf=None, reset_dag_run=True,
        skip_when_already_exists=False, wait_for_completion=False, allowed_states=[], failed_states=[],
        poke_interval=60, deferrable=False, note=why)


class WorkflowRetryOperator(BaseOperator):
    """Falcon's ``<retry>`` of a workflow made of several tasks: when the workflow failed (its end task failed or
    was never reached while a kill node failed), it waits as the policy says (periodic: ``delay`` every time;
    exp-backoff: ``delay`` x 2^n; final: no wait), deferred in the triggerer, then runs the instance again, up to
    ``attempts`` times. Each action's own ``retry-max`` stays the action's."""

    ui_color = "#fde8e8"

    def __init__(self, *, policy: str, delay_seconds: int, attempts: int, **kwargs: Any) -> None:
        kwargs.setdefault("trigger_rule", "one_failed")
        kwargs.setdefault("retries", 0)
        super().__init__(**kwargs)
        self.policy = policy
        self.delay_seconds = delay_seconds
        self.attempts = attempts

    def execute(self, context: Any) -> None:
        done = passes_before(context)
        if done >= self.attempts:
            raise AirflowSkipException(f"the workflow failed and no retry is left: the instance ran {done + 1} "
                                       f"time(s), its <retry> allows {self.attempts} retries")
        wait = retry_wait(self.policy, timedelta(seconds=self.delay_seconds), done)
        self.log.info("the workflow failed: retry %d of %d (%s) in %s", done + 1, self.attempts, self.policy, wait)
        if wait > timedelta(0):
            self.defer(trigger=TimeDeltaTrigger(wait), method_name="run_again", kwargs=deferred_in(context))
        self.run_again(context)

    def run_again(self, context: Any, event: Any = None, for_pass: int | None = None) -> None:
        if stale_resume(context, for_pass):
            self.log.info("resumed from a wait of an earlier pass: deciding afresh")
            self.execute(context)
            return
        done = passes_before(context)
        raise run_instance_again(context, f"Falcon retry {done + 1} of {self.attempts} ({self.policy})")
