"""``entity`` actions that change the store or the entity's DAGs: submit, validate, schedule, suspend, resume, delete,
update, touch and updateClusterDependents.

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
-validate                 the definition judged with the store, nothing written
========================  ==========================================================================================

Multi-step actions run under a journal (:mod:`falcon_airflow.operate.entity_steps`).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from falcon_airflow.entities import Entity, EntityType
from falcon_airflow.issues import Issue
from falcon_airflow.operate import options as rules
from falcon_airflow.operate import store_steps
from falcon_airflow.operate.context import Context
from falcon_airflow.operate.dag_control import airflow_dags, reparse, status_of, wait_until_parsed
from falcon_airflow.operate.entity_queries import describe_issue, require_stored
from falcon_airflow.operate.entity_steps import begin, deleting, run_journaled
from falcon_airflow.operate.lookup import update_cluster_dependents as _update_cluster_dependents
from falcon_airflow.operate.options import Options
from falcon_airflow.operate.outcomes import Outcome, Refused, Status, succeeded
from falcon_airflow.operate.safemode import check_entity_operation
from falcon_airflow.operate.states import EntityStatus
from falcon_airflow.parsing import ParsedFile, parse_bytes
from falcon_airflow.validation import validate_workspace
from falcon_airflow.workspace import Workspace


def canonical(entity: Entity) -> Any:
    """An entity's content without where it was read from, to tell an identical definition from a changed one."""

    def strip(value: Any) -> Any:
        if isinstance(value, dict):
            return {key: strip(item) for key, item in value.items() if key not in ("line", "source")}
        if isinstance(value, list):
            return [strip(item) for item in value]
        return value

    return strip(entity.model_dump(mode="json"))


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
                      details=[describe_issue(issue) for issue in errors])
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
        raise Refused(errors[0].message, details=[describe_issue(issue) for issue in found])
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


def unapplied_properties(given: dict[str, str]) -> list[str]:
    """What a submit or schedule says of its ``-properties``: Falcon passed them to the workflow engine (its
    scheduler choice, its coordinator's configuration); here Airflow schedules every entity and an instance's
    workflow sees the entity's own ``<properties>``, so none of them is applied, and the answer says so."""
    if not given:
        return []
    return [f"-properties {', '.join(sorted(given))} not applied: Airflow schedules every entity and an instance's "
            "workflow gets the entity's own <properties>; put the values there"]


def submit(context: Context, options: Options, *, and_schedule: bool = False) -> Outcome:
    entity_type = rules.entity_type(options.required("type", "type"))
    options.required("file", "file")
    rules.check_colo_not_given(options)
    given = rules.properties(options.text("properties"))
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
        journal = begin(context, "submit", entity_type, entity.name, ["write", "doas", "reparse"], "write",
                         store_steps.change(context.store, entity_type.value, entity.name, path, new=data, old=None,
                                            archive=False))
        run_journaled(context, journal)
        outcome = succeeded(f"Submit successful ({entity_type.value}) {entity.name}", file=str(path))
    else:
        refs = [ref.dag_id for ref in context.entity_dags(entity)]
        journal = begin(context, "submitAndSchedule", entity_type, entity.name,
                         ["write", "doas", "state", "reparse", "unpause"], "write",
                         {**store_steps.change(context.store, entity_type.value, entity.name, path, new=data,
                                               old=None, archive=False),
                          "state": EntityStatus.RUNNING.value, "dags": refs})
        pending = run_journaled(context, journal)
        message = f"{entity.name}({entity_type.value}) scheduled successfully"
        if pending:
            outcome = Outcome(Status.PARTIAL, f"Submit successful ({entity_type.value}) {entity.name}; "
                                              f"scheduling pending: {pending}", {"file": str(path), "dags": refs})
        else:
            outcome = succeeded(message, file=str(path), dags=refs)
    outcome.warnings.extend(describe_issue(issue) for issue in warnings)
    outcome.warnings.extend(unapplied_properties(given))
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
    outcome.warnings.extend(describe_issue(issue) for issue in warnings)
    return outcome


def schedule(context: Context, options: Options) -> Outcome:
    given = options.required("type", "type")
    entity_type = rules.entity_type(given)
    name = options.required("name", "name")
    properties = rules.properties(options.text("properties"))
    _check_schedulable(entity_type, given)
    stored = require_stored(context, entity_type, name)
    check_entity_operation(context.store.safemode, "SCHEDULE", entity_type)
    errors = _store_errors(context, stored.entity)
    if errors:
        raise Refused(f"Entity schedule failed for {entity_type.value}: {name}",
                      details=[describe_issue(issue) for issue in errors])
    refs = [ref.dag_id for ref in context.entity_dags(stored.entity)]
    journal = begin(context, "schedule", entity_type, name, ["state", "doas", "unpause"], "state",
                     {"state": EntityStatus.RUNNING.value, "dags": refs})
    pending = run_journaled(context, journal)
    if pending:
        outcome = Outcome(Status.PARTIAL, f"{name}({entity_type.value}) scheduled; {pending}", {"dags": refs})
    else:
        outcome = succeeded(f"{name}({entity_type.value}) scheduled successfully", dags=refs)
    outcome.warnings.extend(unapplied_properties(properties))
    return outcome


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
    stored = require_stored(context, entity_type, name)
    check_entity_operation(context.store.safemode, "SUSPEND", entity_type)
    if not _is_active(context, stored.entity):
        raise Refused(f"{name}({entity_type.value}) is not scheduled")
    refs = [ref.dag_id for ref in context.entity_dags(stored.entity)]
    journal = begin(context, "suspend", entity_type, name, ["state", "pause"], "state",
                     {"state": EntityStatus.SUSPENDED.value, "dags": refs})
    run_journaled(context, journal)
    return succeeded(f"{name}({entity_type.value}) suspended successfully", dags=refs)


def resume(context: Context, options: Options) -> Outcome:
    given = options.required("type", "type")
    entity_type = rules.entity_type(given)
    name = options.required("name", "name")
    _check_schedulable(entity_type, given)
    stored = require_stored(context, entity_type, name)
    check_entity_operation(context.store.safemode, "RESUME", entity_type)
    if not _is_active(context, stored.entity):
        raise Refused(f"{name}({entity_type.value}) is not scheduled")
    refs = [ref.dag_id for ref in context.entity_dags(stored.entity)]
    journal = begin(context, "resume", entity_type, name, ["state", "unpause"], "state",
                     {"state": EntityStatus.RUNNING.value, "dags": refs})
    pending = run_journaled(context, journal)
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
    context.store.check_changeable(stored.path)
    if not entity_type.schedulable:
        journal = begin(context, "delete", entity_type, name, ["archive", "forget"], "archive",
                         {**deleting(context, stored), "dags": []})
        run_journaled(context, journal)
        return succeeded(f"{name}({entity_type.value}) removed successfully")
    dags = sorted({ref.dag_id for ref in context.entity_dags(stored.entity)}
                  | set(airflow_dags(context, entity_type, name)))
    journal = begin(context, "delete", entity_type, name, ["pause", "archive", "kill", "drop", "forget", "reparse"],
                     "archive", {**deleting(context, stored), "dags": dags})
    run_journaled(context, journal)
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
    stored = require_stored(context, entity_type, name)
    context.store.check_changeable(stored.path)
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
    old_dags = {ref.dag_id for ref in context.entity_dags(old)}
    new_dags = {ref.dag_id for ref in context.entity_dags(new)}
    running = False
    if entity_type.schedulable:
        status, _ = status_of(context, old)
        running = status is EntityStatus.RUNNING
    dependents = [ref.dag_id for item in context.store.workspace().dependents(old) for ref in context.entity_dags(item)]
    journal = begin(context, "update", entity_type, name, ["archive_old", "write", "doas", "reparse", "sync"],
                     "write", {**store_steps.change(context.store, entity_type.value, name, stored.path, new=data,
                                                    old=stored.read_bytes(), archive=True),
                               "removed_dags": sorted(old_dags - new_dags), "added_dags": sorted(new_dags - old_dags),
                               "running": running})
    changed_at = context.now()
    pending = run_journaled(context, journal)
    # "From now on" holds from this answer on: the scheduler makes a running entity's runs from the DAGs Airflow
    # parsed last, so the answer waits for the parse of the new definition
    unparsed = (wait_until_parsed(context, sorted(old_dags & new_dags), since=changed_at, wait=context.wait_seconds)
                if running else [])
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
    outcome.warnings.extend(describe_issue(issue) for issue in warnings)
    if unparsed:
        outcome.warnings.append(f"Airflow has not parsed the new definition into DAG(s) {', '.join(unparsed)} yet: "
                                "runs it creates before it does use the previous one")
    return outcome


def touch(context: Context, options: Options) -> Outcome:
    entity_type = rules.entity_type(options.required("type", "type"))
    name = options.required("name", "name")
    stored = require_stored(context, entity_type, name)
    check_entity_operation(context.store.safemode, "TOUCH", entity_type)
    note = reparse(context)
    refs = [ref.dag_id for ref in context.entity_dags(stored.entity)]
    outcome = succeeded(f"({entity_type.value}) {name} touched: Airflow re-parses its DAG(s) "
                        f"{', '.join(refs) or '(none)'}", dags=refs)
    if note:
        outcome.warnings.append(note)
    return outcome


def submit_and_schedule(context: Context, options: Options) -> Outcome:
    return submit(context, options, and_schedule=True)


def update_cluster_dependents(context: Context, options: Options) -> Outcome:
    return _update_cluster_dependents(context, options, reparse)
