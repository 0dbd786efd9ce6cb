"""``entity``: Falcon's entity operations on the store and on Airflow's DAGs.

========================  ==========================================================================================
action                    on Airflow
========================  ==========================================================================================
-submit                   validated against the store (the entities folder plus the new file as one workspace),
                          then written atomically into the store; Airflow is asked to re-parse the DAG file
-schedule                 the entity's DAGs are unpaused (after Airflow has registered them)
-submitAndSchedule        both, as one atomic action
-suspend / -resume        the entity's DAGs are paused / unpaused
-delete                   refused while other entities refer to it; else DAGs paused, definition archived, running
                          instances killed, DAGs deleted
-update                   name and type immutable; validated with the store; dependent processes re-validated; the
                          old definition archived, the new one written, Airflow re-parses (every DAG of the store
                          comes from one file, so the feed's processes are re-parsed too); DAGs of removed clusters
                          deleted, DAGs of added clusters follow the entity's state
-touch                    Airflow re-parses the entity's DAGs (a new DAG version when anything changed)
-status                   SUBMITTED / RUNNING / SUSPENDED / COMPLETED from the DAGs' existence and paused state
-definition, -dependency,  read the store
-list, -summary,
-validate
========================  ==========================================================================================

Multi-step actions run under a journal (see :mod:`falcon_airflow.operate.journal`).
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from falcon_airflow.entities import Entity, EntityType, Feed, Process
from falcon_airflow.issues import Issue
from falcon_airflow.operate import options as rules
from falcon_airflow.operate import store_steps
from falcon_airflow.operate.airflow_api import AirflowError
from falcon_airflow.operate.config_store import StoredEntity, iso
from falcon_airflow.operate.context import Context
from falcon_airflow.operate.invalid import UnreadableEntity, invalid_entities, invalid_text, unreadable_entities
from falcon_airflow.operate.journal import ActionSteps, Journal, StepPending, run
from falcon_airflow.operate.lifecycles import DEFAULT_LIFECYCLE, dag_prefixes, entity_dags
from falcon_airflow.operate.lookup import lookup, update_cluster_dependents
from falcon_airflow.operate.options import Options
from falcon_airflow.operate.outcomes import Outcome, Refused, Status, succeeded
from falcon_airflow.operate.runs import collect, page
from falcon_airflow.operate.safemode import check_entity_operation
from falcon_airflow.operate.sla_alert import sla_alert
from falcon_airflow.operate.states import EntityStatus, entity_status, marker_line, with_marker
from falcon_airflow.parsing import ParsedFile, parse_bytes
from falcon_airflow.parsing.redaction import redact_definition
from falcon_airflow.timekeeping import format_falcon_date
from falcon_airflow.validation import validate_workspace
from falcon_airflow.workspace import Workspace

POLL_SECONDS = 2.0
DROP_RETRY_SECONDS = 15.0
SCHEDULER = "airflow"


# -- shared helpers ------------------------------------------------------------------------------------------------

def _describe(issue: Issue) -> str:
    return f"{issue.location()}: {issue.level.value} [{issue.rule}] {issue.message}"


def canonical(entity: Entity) -> Any:
    """An entity's content without where it was read from, to tell an identical definition from a changed one."""

    def strip(value: Any) -> Any:
        if isinstance(value, dict):
            return {key: strip(item) for key, item in value.items() if key not in ("line", "source")}
        if isinstance(value, list):
            return [strip(item) for item in value]
        return value

    return strip(entity.model_dump(mode="json"))


def _not_found(name: str, entity_type: EntityType) -> Refused:
    return Refused(f"{name} ({entity_type.value}) not found")


def _require_stored(context: Context, entity_type: EntityType, name: str) -> StoredEntity:
    stored = context.store.get(entity_type, name)
    if stored is None:
        raise _not_found(name, entity_type)
    return stored


def _check_schedulable(entity_type: EntityType, given: str) -> None:
    if not entity_type.schedulable:
        raise Refused(f"Entity type ({given})  cannot be Scheduled/Suspended/Resumed")


def _read_file(options: Options) -> tuple[bytes, str]:
    """The ``-file`` bytes the authorization check judged: read once, within the size bound."""
    return options.file_bytes()


def _parse_definition(data: bytes, display: str, entity_type: EntityType) -> ParsedFile:
    parsed = parse_bytes(data, display)
    errors = [issue for issue in parsed.issues if issue.is_error]
    if errors or parsed.entity is None:
        first = errors[0].message if errors else "not an entity definition"
        raise Refused(f"Invalid {entity_type.value} definition: {first}",
                      details=[_describe(issue) for issue in errors])
    if parsed.entity.entity_type is not entity_type:
        raise Refused(f"{display} defines a {parsed.entity.entity_type.value}, not a {entity_type.value} "
                      f"(-type {entity_type.value})")
    return parsed


def _workspace_with(context: Context, parsed: ParsedFile, without: Path | None) -> Workspace:
    kept = [item for item in context.store.workspace().files
            if without is None or Path(item.path).resolve() != without.resolve()]
    return Workspace.from_parsed([*kept, parsed])


def _entity_issues(issues: Iterable[Issue], entity: Entity, display: str | None = None) -> list[Issue]:
    return [issue for issue in issues
            if (issue.entity == entity.name and issue.entity_type == entity.entity_type.value)
            or (display is not None and issue.file == display)]


def _validate_new(context: Context, parsed: ParsedFile, replacing: Path | None) -> list[Issue]:
    """Validate a definition with the store (replacing the file ``replacing``); refuse on errors."""
    entity = parsed.entity
    assert entity is not None
    report = validate_workspace(_workspace_with(context, parsed, replacing), now=context.now())
    found = _entity_issues(report.issues, entity, parsed.path)
    errors = [issue for issue in found if issue.is_error]
    if errors:
        raise Refused(errors[0].message, details=[_describe(issue) for issue in found])
    return [issue for issue in found if not issue.is_error]


def _dependent_regressions(context: Context, parsed: ParsedFile, replacing: Path) -> list[str]:
    """Errors the update would add to the entities that refer to this one (Falcon's F31 for feeds)."""
    entity = parsed.entity
    assert entity is not None
    before_ws = context.store.workspace()
    after_ws = _workspace_with(context, parsed, replacing)
    dependents = after_ws.dependents(entity)
    if not dependents:
        return []
    before = {(issue.entity, issue.rule, issue.message) for issue in validate_workspace(before_ws,
                                                                                        now=context.now()).issues}
    problems = []
    after = validate_workspace(after_ws, now=context.now()).issues
    for dependent in dependents:
        for issue in _entity_issues(after, dependent):
            if issue.is_error and (issue.entity, issue.rule, issue.message) not in before:
                problems.append(f"{dependent.entity_type.value.capitalize()} {dependent.name} is not compatible "
                                f"with changes to {entity.entity_type.value} {entity.name}: {issue.message}")
    return problems


def _store_errors(context: Context, entity: Entity) -> list[Issue]:
    # A running entity stays schedulable when a newcomer collides with it: the newcomer is the invalid one.
    report = validate_workspace(context.store.workspace(), now=context.now(), incumbents=context.store.incumbents())
    return [issue for issue in _entity_issues(report.issues, entity) if issue.is_error]


def _validities(entity: Entity) -> list[datetime]:
    if isinstance(entity, (Feed, Process)):
        return [item.validity.end for item in entity.clusters]
    return []


def airflow_dags(context: Context, entity_type: EntityType, name: str) -> dict[str, dict[str, Any]]:
    """The DAGs Airflow has for an entity (every id it ever had), by id."""
    found: dict[str, dict[str, Any]] = {}
    for prefix in dag_prefixes(entity_type, name):
        found.update({str(dag["dag_id"]): dag for dag in context.airflow().dags(prefix)})
    return found


def status_of(context: Context, entity: Entity, dags: Mapping[str, Mapping[str, Any]] | None = None
              ) -> tuple[EntityStatus, list[dict[str, Any]]]:
    """The entity's status and, per DAG of its definition, whether Airflow has it and whether it is paused."""
    if not entity.entity_type.schedulable:
        return EntityStatus.SUBMITTED, []
    known = dags if dags is not None else airflow_dags(context, entity.entity_type, entity.name)
    rows = []
    paused = []
    for ref in entity_dags(entity):
        dag = known.get(ref.dag_id)
        rows.append({"dagId": ref.dag_id, "lifecycle": ref.lifecycle.value, "cluster": ref.cluster,
                     "exists": dag is not None, "paused": None if dag is None else bool(dag.get("is_paused"))})
        if dag is not None:
            paused.append(bool(dag.get("is_paused")))
    ended = all(end <= context.now() for end in _validities(entity)) if _validities(entity) else False
    state = context.store.schedule_state(entity.entity_type, entity.name)
    return entity_status(paused, state, all_ended=ended), rows


def reparse(context: Context) -> str | None:
    """Ask Airflow to re-parse the DAG file that holds the falcon DAGs now; a note when it cannot."""
    client = context.airflow()
    dags = [dag for dag in client.dags("falcon.") if not dag.get("is_stale")]
    if not dags:
        return "Airflow has no falcon DAG yet: the dag-processor picks the store up on its next scan"
    token = client.dag_details(str(dags[0]["dag_id"])).get("file_token")
    if not token:
        return "Airflow gave no file token: the dag-processor picks the change up on its next scan"
    client.request_reparse(str(token))
    return None


def set_paused(context: Context, dag_ids: Sequence[str], paused: bool, *, wait: float) -> list[str]:
    """Pause or unpause these DAGs, waiting at most ``wait`` seconds for Airflow to register missing ones
    (asking for a re-parse once). Returns the DAGs still missing."""
    client = context.airflow()
    remaining = list(dag_ids)
    deadline = time.monotonic() + wait
    asked = False
    while True:
        still = []
        for dag_id in remaining:
            dag = client.dag(dag_id)
            if dag is None:
                still.append(dag_id)
            elif bool(dag.get("is_paused")) != paused:
                client.set_paused(dag_id, paused)
        remaining = still
        if remaining and not asked:  # ask once for a parse of the store, then wait (when allowed to)
            asked = True
            try:
                reparse(context)
            except AirflowError as problem:
                context.warnings.append(f"could not ask Airflow to re-parse: {problem.message}")
        if not remaining or time.monotonic() >= deadline:
            return remaining
        time.sleep(max(0.0, min(POLL_SECONDS, deadline - time.monotonic())))


def kill_active_runs(context: Context, dag_id: str, reason: str) -> int:
    """Mark the DAG's queued and running runs failed with a KILLED note (running tasks are stopped)."""
    client = context.airflow()
    killed = 0
    for item in client.runs(dag_id, states=["queued", "running"]):
        line = marker_line("KILLED", item.get("queued_at"), context.user, iso(), reason)
        client.patch_run(dag_id, str(item["dag_run_id"]), state="failed", note=with_marker(item.get("note"), line))
        killed += 1
    return killed


def drop_dag(context: Context, dag_id: str) -> None:
    """Delete a DAG from Airflow (its runs too); waits a little while killed tasks are still stopping."""
    client = context.airflow()
    deadline = time.monotonic() + (0.0 if context.recovering else DROP_RETRY_SECONDS)
    while True:
        try:
            client.delete_dag(dag_id)
            return
        except AirflowError as problem:
            if problem.status != 409 or time.monotonic() >= deadline:
                raise
        time.sleep(1.0)


def _pending_message(missing_dags: Sequence[str]) -> str:
    return (f"Airflow has not registered DAG(s) {', '.join(missing_dags)} yet; the next falcon-airflow command "
            "finishes this once the dag-processor has parsed the store")


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
        raise StepPending(_pending_message(missing_dags))
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
            raise StepPending(_pending_message(missing_dags))
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


def _run(context: Context, journal: Journal) -> str | None:
    """Run a journaled action now; the message of a step that has to wait for Airflow, else ``None``."""
    try:
        run(context.book, journal, ACTIONS[journal.action], context)
    except StepPending as pending:
        return str(pending)
    return None


def _deleting(context: Context, stored: StoredEntity) -> dict[str, Any]:
    """The journal record of a delete: the definition's bytes as they are now, and where they are archived."""
    entity_type = stored.entity.entity_type.value
    return store_steps.change(context.store, entity_type, stored.entity.name, stored.path, new=None,
                              old=stored.read_bytes(), archive=True)


def _begin(context: Context, action: str, entity_type: EntityType, name: str, steps: Sequence[str], commit: str,
           data: Mapping[str, Any]) -> Journal:
    return context.book.begin(action, entity_type.value, name, steps, commit=commit, user=context.user,
                              data={**data, "do_as": context.do_as})


# -- actions -------------------------------------------------------------------------------------------------------

def submit(context: Context, options: Options, *, and_schedule: bool = False) -> Outcome:
    entity_type = rules.entity_type(options.required("type", "type"))
    options.required("file", "file")
    rules.check_colo_not_given(options)
    rules.properties(options.text("properties"))
    if and_schedule:
        _check_schedulable(entity_type, entity_type.value)
    check_entity_operation(context.store.safemode, "SUBMIT", entity_type)
    data, display = _read_file(options)
    parsed = _parse_definition(data, display, entity_type)
    entity = parsed.entity
    assert entity is not None
    existing = context.store.get(entity_type, entity.name)
    warnings: list[Issue] = []
    if existing is not None:
        if canonical(existing.entity) != canonical(entity):
            raise Refused(f"({entity_type.value}) {entity.name} already registered with configuration store. "
                          "Can't be submitted again. Try removing before submitting.")
        path = existing.path
        data = existing.read_bytes()  # the identical definition already stored stays as it is
    else:
        warnings = _validate_new(context, parsed, None)
        path = context.store.path_for_new(entity_type, entity.name)
    if not and_schedule:
        journal = _begin(context, "submit", entity_type, entity.name, ["write", "doas", "reparse"], "write",
                         store_steps.change(context.store, entity_type.value, entity.name, path, new=data, old=None,
                                            archive=False))
        _run(context, journal)
        outcome = succeeded(f"Submit successful ({entity_type.value}) {entity.name}", file=str(path))
    else:
        refs = [ref.dag_id for ref in entity_dags(entity)]
        journal = _begin(context, "submitAndSchedule", entity_type, entity.name,
                         ["write", "doas", "state", "reparse", "unpause"], "write",
                         {**store_steps.change(context.store, entity_type.value, entity.name, path, new=data,
                                               old=None, archive=False),
                          "state": EntityStatus.RUNNING.value, "dags": refs})
        pending = _run(context, journal)
        message = f"{entity.name}({entity_type.value}) scheduled successfully"
        if pending:
            outcome = Outcome(Status.PARTIAL, f"Submit successful ({entity_type.value}) {entity.name}; "
                                              f"scheduling pending: {pending}", {"file": str(path), "dags": refs})
        else:
            outcome = succeeded(message, file=str(path), dags=refs)
    outcome.warnings.extend(_describe(issue) for issue in warnings)
    return outcome


def validate(context: Context, options: Options) -> Outcome:
    entity_type = rules.entity_type(options.required("type", "type"))
    options.required("file", "file")
    rules.check_colo_not_given(options)
    data, display = _read_file(options)
    parsed = _parse_definition(data, display, entity_type)
    entity = parsed.entity
    assert entity is not None
    existing = context.store.get(entity_type, entity.name)
    warnings = _validate_new(context, parsed, existing.path if existing is not None else None)
    outcome = succeeded(f"Validated successfully ({entity_type.value.upper()}) {entity.name}")
    outcome.warnings.extend(_describe(issue) for issue in warnings)
    return outcome


def schedule(context: Context, options: Options) -> Outcome:
    given = options.required("type", "type")
    entity_type = rules.entity_type(given)
    name = options.required("name", "name")
    rules.properties(options.text("properties"))
    _check_schedulable(entity_type, given)
    stored = _require_stored(context, entity_type, name)
    check_entity_operation(context.store.safemode, "SCHEDULE", entity_type)
    errors = _store_errors(context, stored.entity)
    if errors:
        raise Refused(f"Entity schedule failed for {entity_type.value}: {name}",
                      details=[_describe(issue) for issue in errors])
    refs = [ref.dag_id for ref in entity_dags(stored.entity)]
    journal = _begin(context, "schedule", entity_type, name, ["state", "doas", "unpause"], "state",
                     {"state": EntityStatus.RUNNING.value, "dags": refs})
    pending = _run(context, journal)
    if pending:
        return Outcome(Status.PARTIAL, f"{name}({entity_type.value}) scheduled; {pending}", {"dags": refs})
    return succeeded(f"{name}({entity_type.value}) scheduled successfully", dags=refs)


def _is_active(context: Context, entity: Entity) -> bool:
    """Falcon's isActive: scheduled (running or suspended), or any DAG unpaused by other means."""
    if context.store.schedule_state(entity.entity_type, entity.name) is not None:
        return True
    status, _ = status_of(context, entity)
    return status is EntityStatus.RUNNING


def suspend(context: Context, options: Options) -> Outcome:
    given = options.required("type", "type")
    entity_type = rules.entity_type(given)
    name = options.required("name", "name")
    _check_schedulable(entity_type, given)
    stored = _require_stored(context, entity_type, name)
    check_entity_operation(context.store.safemode, "SUSPEND", entity_type)
    if not _is_active(context, stored.entity):
        raise Refused(f"{name}({entity_type.value}) is not scheduled")
    refs = [ref.dag_id for ref in entity_dags(stored.entity)]
    journal = _begin(context, "suspend", entity_type, name, ["state", "pause"], "state",
                     {"state": EntityStatus.SUSPENDED.value, "dags": refs})
    _run(context, journal)
    return succeeded(f"{name}({entity_type.value}) suspended successfully", dags=refs)


def resume(context: Context, options: Options) -> Outcome:
    given = options.required("type", "type")
    entity_type = rules.entity_type(given)
    name = options.required("name", "name")
    _check_schedulable(entity_type, given)
    stored = _require_stored(context, entity_type, name)
    check_entity_operation(context.store.safemode, "RESUME", entity_type)
    if not _is_active(context, stored.entity):
        raise Refused(f"{name}({entity_type.value}) is not scheduled")
    refs = [ref.dag_id for ref in entity_dags(stored.entity)]
    journal = _begin(context, "resume", entity_type, name, ["state", "unpause"], "state",
                     {"state": EntityStatus.RUNNING.value, "dags": refs})
    pending = _run(context, journal)
    if pending:
        return Outcome(Status.PARTIAL, f"{name}({entity_type.value}) resumed; {pending}", {"dags": refs})
    return succeeded(f"{name}({entity_type.value}) resumed successfully", dags=refs)


def delete(context: Context, options: Options) -> Outcome:
    entity_type = rules.entity_type(options.required("type", "type"))
    rules.check_colo_not_given(options)
    name = options.required("name", "name")
    stored = context.store.get(entity_type, name)
    if stored is None:
        return succeeded(f"{name}({entity_type.value}) doesn't exist. Nothing to do")
    check_entity_operation(context.store.safemode, "DELETE", entity_type)
    dependents = context.store.workspace().dependents(stored.entity)
    if dependents:
        refs = "\n".join(f"({item.name},{item.entity_type.value.upper()})" for item in dependents)
        raise Refused(f"{name}({entity_type.value.upper()}) cant be removed as it is referred by {refs}")
    if not entity_type.schedulable:
        journal = _begin(context, "delete", entity_type, name, ["archive", "forget"], "archive",
                         {**_deleting(context, stored), "dags": []})
        _run(context, journal)
        return succeeded(f"{name}({entity_type.value}) removed successfully")
    dags = sorted({ref.dag_id for ref in entity_dags(stored.entity)} | set(airflow_dags(context, entity_type, name)))
    journal = _begin(context, "delete", entity_type, name, ["pause", "archive", "kill", "drop", "forget", "reparse"],
                     "archive", {**_deleting(context, stored), "dags": dags})
    _run(context, journal)
    return succeeded(f"{name}({entity_type.value}) removed successfully (KILLED in WF_ENGINE)", dags=dags)


def update(context: Context, options: Options) -> Outcome:
    entity_type = rules.entity_type(options.required("type", "type"))
    options.required("file", "file")
    rules.check_colo_not_given(options)
    name = options.required("name", "name")
    data, display = _read_file(options)
    parsed = _parse_definition(data, display, entity_type)
    assert parsed.entity is not None
    new = parsed.entity
    check_entity_operation(context.store.safemode, "UPDATE", new.entity_type)
    stored = _require_stored(context, entity_type, name)
    old = stored.entity
    if old.entity_type is not new.entity_type or old.name != new.name:
        raise Refused(f"({old.entity_type.value}) {old.name} can't be updated with ({new.entity_type.value}) "
                      f"{new.name}")
    if canonical(old) == canonical(new):
        return succeeded(f"Updated successfully: ({entity_type.value}) {name} is unchanged")
    warnings = _validate_new(context, parsed, stored.path)
    problems = _dependent_regressions(context, parsed, stored.path)
    if problems:
        raise Refused(problems[0], details=problems)
    old_dags = {ref.dag_id for ref in entity_dags(old)}
    new_dags = {ref.dag_id for ref in entity_dags(new)}
    running = False
    if entity_type.schedulable:
        status, _ = status_of(context, old)
        running = status is EntityStatus.RUNNING
    dependents = [ref.dag_id for item in context.store.workspace().dependents(old) for ref in entity_dags(item)]
    journal = _begin(context, "update", entity_type, name, ["archive_old", "write", "doas", "reparse", "sync"],
                     "write", {**store_steps.change(context.store, entity_type.value, name, stored.path, new=data,
                                                    old=stored.read_bytes(), archive=True),
                               "removed_dags": sorted(old_dags - new_dags), "added_dags": sorted(new_dags - old_dags),
                               "running": running})
    pending = _run(context, journal)
    lines = ["Updated successfully"]
    if old_dags - new_dags:
        lines.append(f"deleted DAG(s) of removed clusters: {', '.join(sorted(old_dags - new_dags))}")
    if new_dags - old_dags:
        lines.append(f"new DAG(s): {', '.join(sorted(new_dags - old_dags))}"
                     + (" (unpaused: the entity is running)" if running else ""))
    if dependents:
        lines.append(f"re-parsed with it: {', '.join(sorted(set(dependents)))}")
    if pending:
        lines.append(f"pending: {pending}")
    payload = {"removedDags": sorted(old_dags - new_dags), "addedDags": sorted(new_dags - old_dags),
               "dependentDags": sorted(set(dependents))}
    outcome = Outcome(Status.PARTIAL if pending else Status.SUCCEEDED,
                      "Updated successfully" + (f"; {pending}" if pending else ""), payload, "\n".join(lines))
    outcome.warnings.extend(_describe(issue) for issue in warnings)
    return outcome


def touch(context: Context, options: Options) -> Outcome:
    entity_type = rules.entity_type(options.required("type", "type"))
    name = options.required("name", "name")
    stored = _require_stored(context, entity_type, name)
    check_entity_operation(context.store.safemode, "TOUCH", entity_type)
    note = reparse(context)
    refs = [ref.dag_id for ref in entity_dags(stored.entity)]
    outcome = succeeded(f"({entity_type.value}) {name} touched: Airflow re-parses its DAG(s) "
                        f"{', '.join(refs) or '(none)'}", dags=refs)
    if note:
        outcome.warnings.append(note)
    return outcome


def status(context: Context, options: Options) -> Outcome:
    entity_type = rules.entity_type(options.required("type", "type"))
    name = options.required("name", "name")
    unreadable = context.store.workspace().unreadable.get((entity_type, name))
    if unreadable is not None:  # in the store, but the schema refuses it: no DAG, and not "not found" either
        shown = UnreadableEntity.of(unreadable)
        return succeeded(invalid_text(list(shown.rules)),
                         text="\n".join([invalid_text(list(shown.rules)), *shown.messages]), dags=[],
                         entityStatus=EntityStatus.INVALID.value, rules=list(shown.rules), file=shown.file)
    stored = _require_stored(context, entity_type, name)
    current, rows = status_of(context, stored.entity)
    broken = invalid_entities(context.store.workspace(), context.now(),
                              context.store.incumbents()).get((entity_type.value, name))
    if broken:
        return succeeded(invalid_text(broken), dags=rows, entityStatus=EntityStatus.INVALID.value, rules=broken,
                         scheduled=current.value)
    message = current.value
    if options.flag("show_scheduler") and current is not EntityStatus.SUBMITTED:
        message += f" (scheduled on {SCHEDULER})"
    return succeeded(message, dags=rows)


def definition(context: Context, options: Options) -> Outcome:
    entity_type = rules.entity_type(options.required("type", "type"))
    rules.check_colo_not_given(options)
    name = options.required("name", "name")
    stored = _require_stored(context, entity_type, name)
    # Whoever may read the entity reads it without its secrets (a password text, a secret property); the stored
    # file keeps them for the runs that need them.
    text = redact_definition(stored.read_bytes())
    return succeeded(f"definition of ({entity_type.value}) {name}", text=text.rstrip("\n"), definition=text,
                     file=str(stored.path))


Listed = Entity | UnreadableEntity
"""What `entity -list` lists: the store's entities and the files naming one that the schema refuses."""


def _tags(entity: Listed) -> list[str]:
    return [f"{key}={value}" for key, value in entity.tag_pairs]


def _pipelines(entity: Listed) -> list[str]:
    return list(entity.pipelines) if isinstance(entity, Process) else []


def _clusters(entity: Listed) -> list[str]:
    if isinstance(entity, (Feed, Process)):
        return [item.name for item in entity.clusters]
    return []


def element_text(element: Mapping[str, Any]) -> str:
    """Falcon's ``EntityElement.toString``: ``(type) name(STATUS) - [tags] - [pipelines] - [clusters]``."""
    text = f"({element['type']}) {element['name']}"
    if element.get("status"):
        rules_broken = f": {', '.join(element['rules'])}" if element.get("rules") else ""
        text += f"({element['status']}{rules_broken})"
    for key in ("tag", "pipeline", "cluster"):
        if element.get(key):
            text += " - [" + ", ".join(element[key]) + "]"
    return text


def dependency(context: Context, options: Options) -> Outcome:
    entity_type = rules.entity_type(options.required("type", "type"))
    rules.check_colo_not_given(options)
    name = options.required("name", "name")
    stored = _require_stored(context, entity_type, name)
    workspace = context.store.workspace()
    entity = stored.entity
    elements: list[dict[str, Any]] = []
    for kind, other in workspace.dependencies(entity):
        tags = []
        if isinstance(entity, Process) and kind is EntityType.FEED:
            tags = ["Input"] * any(item.feed == other for item in entity.inputs) \
                + ["Output"] * any(item.feed == other for item in entity.outputs)
        elements.append({"type": kind.value, "name": other, "tag": tags, "relation": "uses"})
    for other_entity in workspace.dependents(entity):
        tags = []
        if isinstance(other_entity, Process) and entity_type is EntityType.FEED:
            tags = ["Input"] * any(item.feed == name for item in other_entity.inputs) \
                + ["Output"] * any(item.feed == name for item in other_entity.outputs)
        elements.append({"type": other_entity.entity_type.value, "name": other_entity.name, "tag": tags,
                         "relation": "used by"})
    text = "\n".join(element_text(item) for item in elements) or f"({entity_type.value}) {name} has no dependencies"
    return succeeded(f"dependencies of ({entity_type.value}) {name}", text=text, entity=elements)


def _subsequence(pattern: str, name: str) -> bool:
    position = 0
    for char in name:
        if position < len(pattern) and char == pattern[position]:
            position += 1
    return position == len(pattern)


def _filtered(context: Context, candidates: Iterable[Listed], filters: Mapping[str, list[str]], tags: str | None,
              nameseq: str | None, tagkeys: str | None, statuses: Mapping[tuple[str, str], str]) -> list[Listed]:
    chosen = []
    exact_tags = {item.strip() for item in (tags or "").split(",") if item.strip()}
    keywords = [item.strip().lower() for item in (tagkeys or "").split(",") if item.strip()]
    for entity in candidates:
        own_tags = set(_tags(entity))
        keep = True
        for key, values in filters.items():
            lowered = {value.lower() for value in values}
            if key == "TYPE":
                keep = entity.entity_type.value in lowered
            elif key == "NAME":
                keep = entity.name.lower() in lowered
            elif key == "STATUS":
                keep = statuses[(entity.entity_type.value, entity.name)].lower() in lowered
            elif key == "PIPELINES":
                if entity.entity_type is not EntityType.PROCESS:
                    raise Refused(f"Invalid filterBy key for non process entities {key}")
                keep = bool(set(_pipelines(entity)) & set(values))
            elif key == "CLUSTER":
                keep = bool(set(_clusters(entity)) & set(values))
            elif key == "TAGS":
                wanted = {item.strip() for value in values for item in value.split(",") if item.strip()}
                keep = wanted <= own_tags
            if not keep:
                break
        if keep and exact_tags and not exact_tags <= own_tags:
            keep = False
        if keep and nameseq and not _subsequence(nameseq.lower(), entity.name.lower()):
            keep = False
        if keep and keywords and not all(word in (entity.tags or "").lower() for word in keywords):
            keep = False
        if keep:
            chosen.append(entity)
    return chosen


def _statuses(context: Context, entities: Sequence[Listed]) -> dict[tuple[str, str], str]:
    dags = {str(dag["dag_id"]): dag for dag in context.airflow().dags("falcon.")} \
        if any(entity.entity_type.schedulable for entity in entities) else {}
    broken = invalid_entities(context.store.workspace(), context.now(), context.store.incumbents())
    return {(entity.entity_type.value, entity.name):
            EntityStatus.INVALID.value
            if (entity.entity_type.value, entity.name) in broken or isinstance(entity, UnreadableEntity)
            else status_of(context, entity, dags)[0].value
            for entity in entities}


def list_entities(context: Context, options: Options) -> Outcome:
    rules.check_colo_not_given(options)
    types = rules.entity_types(options.text("type"))
    chosen_fields = rules.fields(options.text("fields"))
    order = rules.order_by(options.text("order_by"), "entity")
    direction = rules.sort_order(options.text("sort_order"))
    filters = rules.filter_by(options.text("filter_by"), "entity")
    offset = options.integer("offset", "offset", 0) or 0
    num_results = options.integer("num_results", "numResults", None)
    stored: list[Entity | UnreadableEntity] = [*context.store.workspace().entities(),
                                               *unreadable_entities(context.store.workspace())]
    candidates = [entity for entity in context.visible(stored) if not types or entity.entity_type in types]
    need_status = "status" in chosen_fields or "STATUS" in filters
    statuses = _statuses(context, candidates) if need_status else {}
    broken_rules = (invalid_entities(context.store.workspace(), context.now(), context.store.incumbents())
                    if need_status else {})
    chosen = _filtered(context, candidates, filters, options.text("tags"), options.text("nameseq"),
                       options.text("tagkeys"), statuses)
    if order == "name":
        chosen.sort(key=lambda entity: entity.name, reverse=direction == "desc")
    total = len(chosen)
    shown = page(chosen, offset, num_results)
    elements = []
    for entity in shown:
        element: dict[str, Any] = {"type": entity.entity_type.value, "name": entity.name}
        if "status" in chosen_fields:
            element["status"] = statuses[(entity.entity_type.value, entity.name)]
            if element["status"] == EntityStatus.INVALID.value:
                element["rules"] = broken_rules.get((entity.entity_type.value, entity.name), [])
        if "tags" in chosen_fields:
            element["tag"] = _tags(entity)
        if "pipelines" in chosen_fields:
            element["pipeline"] = _pipelines(entity)
        if "clusters" in chosen_fields:
            element["cluster"] = _clusters(entity)
        elements.append(element)
    if not total:
        kind = options.text("type") or ""
        return succeeded(f"No entity of type ({kind}) found.", totalResults=0, entity=[])
    text = "\n".join([f"Total Results: {total}", *(element_text(item) for item in elements)])
    return succeeded(f"{total} entities", text=text, totalResults=total, entity=elements)


def summary(context: Context, options: Options) -> Outcome:
    given = options.required("type", "type")
    entity_type = rules.entity_type(given)
    if not entity_type.schedulable:
        raise Refused(f"Invalid entity type {entity_type.value.upper()} for EntitySummary API. Valid options are "
                      "feed or process")
    cluster = options.required("cluster", "cluster")
    chosen_fields = rules.fields(options.text("fields"))
    filters = rules.filter_by(options.text("filter_by"), "entity")
    order = rules.order_by(options.text("order_by"), "entity")
    direction = rules.sort_order(options.text("sort_order"))
    offset = options.integer("offset", "offset", 0) or 0
    num_results = options.integer("num_results", "numResults", None)
    num_instances = options.integer("num_instances", "numInstances", 7) or 7
    end = options.time("end") or context.now()
    start = options.time("start") or end - timedelta(days=2)
    candidates = [entity for entity in context.visible(context.store.workspace().entities())
                  if entity.entity_type is entity_type and cluster in _clusters(entity)]
    candidates = [entity for entity in candidates if isinstance(entity, (Feed, Process)) and any(
        item.name == cluster and item.validity.start <= end and item.validity.end >= start
        for item in entity.clusters)]
    statuses = _statuses(context, candidates)
    chosen = _filtered(context, candidates, filters, options.text("tags"), None, None, statuses)
    if order == "name":
        chosen.sort(key=lambda entity: entity.name, reverse=direction == "desc")
    summaries = []
    lines = []
    for entity in page(chosen, offset, num_results):
        refs = [ref for ref in entity_dags(entity, frozenset({DEFAULT_LIFECYCLE[entity_type]}))
                if ref.cluster == cluster]
        records = collect(context.airflow(), refs, start, end)[-num_instances:]
        instances = [{"instance": format_falcon_date(record.instance), "status": record.status.value,
                      "cluster": record.ref.cluster, "sourceCluster": record.ref.source_cluster,
                      "logFile": context.airflow().run_url(record.ref.dag_id, record.run_id)}
                     for record in reversed(records)]
        item: dict[str, Any] = {"name": entity.name, "type": entity_type.value,
                                "status": statuses[(entity_type.value, entity.name)], "instances": instances}
        if "tags" in chosen_fields:
            item["tags"] = _tags(entity)
        if "pipelines" in chosen_fields:
            item["pipelines"] = _pipelines(entity)
        summaries.append(item)
        lines.append(f"({entity_type.value}) {entity.name}({item['status']})")
        lines.extend(f"  {row['instance']}  {row['status']}" for row in instances)
    return succeeded(f"Entity Summary Result: {len(summaries)} {entity_type.value}(s) on {cluster}",
                     text="\n".join(lines) or "no entity", entitySummary=summaries)


def _guard_pending(context: Context, entity_type: str | None, name: str | None) -> None:
    """Refuse to change an entity while an interrupted action on it is still open."""
    for journal in context.book.pending():
        if (entity_type is None or journal.entity_type == entity_type) and (name is None or journal.name == name):
            raise Refused(f"an interrupted {journal.action} of {journal.subject} is not finished yet; run "
                          "'falcon-airflow entity -status' (or any command) once Airflow is reachable to finish it")


def guard(context: Context, options: Options) -> None:
    if options.given("name") and options.given("type"):
        _guard_pending(context, (options.text("type") or "").strip().lower(), options.text("name"))


def _update_dependents(context: Context, options: Options) -> Outcome:
    return update_cluster_dependents(context, options, reparse)


HANDLERS = {
    "submit": submit,
    "submitAndSchedule": lambda context, options: submit(context, options, and_schedule=True),
    "schedule": schedule, "suspend": suspend, "resume": resume, "delete": delete, "update": update,
    "touch": touch, "status": status, "definition": definition, "list": list_entities, "dependency": dependency,
    "summary": summary, "validate": validate, "lookup": lookup,
    "updateClusterDependents": _update_dependents, "slaAlert": sla_alert,
}
MUTATING = frozenset({"submit", "submitAndSchedule", "schedule", "suspend", "resume", "delete", "update", "touch"})


def handle(context: Context, options: Options) -> Outcome:
    action = options.action()
    if action in MUTATING:
        guard(context, options)
    handler = HANDLERS[action]
    result: Outcome = handler(context, options)
    return result

