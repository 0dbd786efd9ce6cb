"""The journaled steps of the entity actions (and of the extension jobs, which share the DAG steps): each step of a
multi-step action as a function the journal runs, undoes or probes, so that an action a crash cut short is finished
or undone by the next command (:mod:`falcon_airflow.operate.journal`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from falcon_airflow.entities import EntityType
from falcon_airflow.operate import store_steps
from falcon_airflow.operate.airflow_api import AirflowError
from falcon_airflow.operate.config_store import StoredEntity
from falcon_airflow.operate.context import Context
from falcon_airflow.operate.dag_control import drop_dag, kill_active_runs, pending_message, reparse, set_paused
from falcon_airflow.operate.journal import ActionSteps, Journal, StepPending, run
from falcon_airflow.operate.options import Options
from falcon_airflow.operate.outcomes import Refused

# -- journal steps -------------------------------------------------------------------------------------------------

def _type(journal: Journal) -> EntityType:
    return EntityType(journal.entity_type)


def step_doas(context: Context, journal: Journal) -> dict[str, Any] | None:
    user = journal.data.get("do_as")
    if user:
        context.store.set_proxy_user(_type(journal), journal.name, str(user), action=journal.action)
    return None


def step_reparse(context: Context, journal: Journal) -> dict[str, Any] | None:
    try:
        note = reparse(context)
    except AirflowError as problem:
        note = f"could not ask Airflow to re-parse ({problem.message}); the dag-processor scans the store anyway"
    if note and not context.recovering:
        context.warnings.append(note)
    return None


def step_state(context: Context, journal: Journal) -> dict[str, Any] | None:
    context.store.set_schedule_state(_type(journal), journal.name, str(journal.data["state"]), user=journal.user)
    return None


def step_unpause(context: Context, journal: Journal) -> dict[str, Any] | None:
    missing_dags = set_paused(context, list(journal.data["dags"]), False, wait=context.wait_seconds)
    if missing_dags:
        raise StepPending(pending_message(missing_dags))
    return None


def intent_pause(context: Context, journal: Journal) -> dict[str, Any] | None:
    """Before pausing: which DAGs are running now (what a delete cut short must unpause again)."""
    client = context.airflow()
    running = []
    for dag_id in journal.data["dags"]:
        dag = client.dag(dag_id)
        if dag is not None and not dag.get("is_paused"):
            running.append(dag_id)
    return {"unpaused": running}


def step_pause(context: Context, journal: Journal) -> dict[str, Any] | None:
    client = context.airflow()
    unpaused = []
    for dag_id in journal.data["dags"]:
        dag = client.dag(dag_id)
        if dag is not None and not dag.get("is_paused"):
            client.set_paused(dag_id, True)
            unpaused.append(dag_id)
    return {"unpaused": unpaused}


def undo_pause(context: Context, journal: Journal, undo: dict[str, Any] | None) -> None:
    for dag_id in (undo or {}).get("unpaused", []):
        if context.airflow().dag(dag_id) is not None:
            context.airflow().set_paused(dag_id, False)


def step_kill(context: Context, journal: Journal) -> dict[str, Any] | None:
    for dag_id in journal.data["dags"]:
        if context.airflow().dag(dag_id) is not None:
            kill_active_runs(context, dag_id, f"entity {journal.action}")
    return None


def step_drop(context: Context, journal: Journal) -> dict[str, Any] | None:
    for dag_id in journal.data["dags"]:
        drop_dag(context, dag_id)
    return None


def step_forget(context: Context, journal: Journal) -> dict[str, Any] | None:
    context.store.set_schedule_state(_type(journal), journal.name, None, user=journal.user)
    context.store.set_proxy_user(_type(journal), journal.name, None, action=journal.action)
    return None


def step_sync(context: Context, journal: Journal) -> dict[str, Any] | None:
    """Update: DAGs of clusters the new definition dropped go away; DAGs it added follow the entity's state."""
    for dag_id in journal.data.get("removed_dags", []):
        if context.airflow().dag(dag_id) is not None:
            context.airflow().set_paused(dag_id, True)
            kill_active_runs(context, dag_id, "cluster removed by update")
            drop_dag(context, dag_id)
    added = list(journal.data.get("added_dags", []))
    if added and journal.data.get("running"):
        missing_dags = set_paused(context, added, False, wait=context.wait_seconds)
        if missing_dags:
            raise StepPending(pending_message(missing_dags))
    return None


# Each commit step has a probe: recovery decides from the store's files and records whether it was passed, never
# from the journal's marks alone (a kill can fall between a step's effect and its mark).
_WRITTEN = {"write": store_steps.probe_write}
_STATED = {"state": store_steps.probe_state}
_SUBMIT = ActionSteps[Context](do={"write": store_steps.step_write, "doas": step_doas, "reparse": step_reparse},
                               probe=_WRITTEN)
_SUBMIT_AND_SCHEDULE = ActionSteps[Context](do={"write": store_steps.step_write, "doas": step_doas,
                                                "state": step_state, "reparse": step_reparse,
                                                "unpause": step_unpause}, probe=_WRITTEN)
_SCHEDULE = ActionSteps[Context](do={"state": step_state, "doas": step_doas, "unpause": step_unpause}, probe=_STATED)
_SUSPEND = ActionSteps[Context](do={"state": step_state, "pause": step_pause}, probe=_STATED)
_RESUME = ActionSteps[Context](do={"state": step_state, "unpause": step_unpause}, probe=_STATED)
_DELETE = ActionSteps[Context](do={"pause": step_pause, "archive": store_steps.step_archive, "kill": step_kill,
                                   "drop": step_drop, "forget": step_forget, "reparse": step_reparse},
                               undo={"pause": undo_pause, "archive": store_steps.undo_archive},
                               intent={"pause": intent_pause}, probe={"archive": store_steps.probe_archive})
_UPDATE = ActionSteps[Context](do={"archive_old": store_steps.step_archive_old, "write": store_steps.step_write,
                                   "doas": step_doas, "reparse": step_reparse, "sync": step_sync},
                               undo={"archive_old": store_steps.undo_archive_old}, probe=_WRITTEN)

ACTIONS: dict[str, ActionSteps[Context]] = {
    "submit": _SUBMIT, "submitAndSchedule": _SUBMIT_AND_SCHEDULE, "schedule": _SCHEDULE, "suspend": _SUSPEND,
    "resume": _RESUME, "delete": _DELETE, "update": _UPDATE,
}


def run_journaled(context: Context, journal: Journal) -> str | None:
    """Run a journaled action now; the message of a step that has to wait for Airflow, else ``None``."""
    try:
        run(context.book, journal, ACTIONS[journal.action], context)
    except StepPending as pending:
        return str(pending)
    return None


def deleting(context: Context, stored: StoredEntity) -> dict[str, Any]:
    """The journal record of a delete: the definition's bytes as they are now, and where they are archived."""
    entity_type = stored.entity.entity_type.value
    return store_steps.change(context.store, entity_type, stored.entity.name, stored.path, new=None,
                              old=stored.read_bytes(), archive=True)


def begin(context: Context, action: str, entity_type: EntityType, name: str, steps: Sequence[str], commit: str,
           data: Mapping[str, Any]) -> Journal:
    return context.book.begin(action, entity_type.value, name, steps, commit=commit, user=context.user,
                              data={**data, "do_as": context.do_as})


def _guard_pending(context: Context, entity_type: str | None, name: str | None) -> None:
    """Refuse to change an entity while an interrupted action on it is still open."""
    for journal in context.book.pending():
        if (entity_type is None or journal.entity_type == entity_type) and (name is None or journal.name == name):
            raise Refused(f"an interrupted {journal.action} of {journal.subject} is not finished yet; run "
                          "'falcon-airflow entity -status' (or any command) once Airflow is reachable to finish it")


def guard(context: Context, options: Options) -> None:
    if options.given("name") and options.given("type"):
        _guard_pending(context, (options.text("type") or "").strip().lower(), options.text("name"))
