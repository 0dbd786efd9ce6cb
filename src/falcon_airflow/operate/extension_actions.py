"""Falcon's ``extension`` command: the three mirroring extensions and their jobs, kept in the store like entities.

A job is its properties file at ``<store>/extensions/<extension>/<jobName>.properties``; the dags/ loader compiles
it into DAG ``falcon.extension.<jobName>`` (see :mod:`falcon_airflow.compiler.extension`). Submitting, updating and
deleting a job are journaled like the entity actions (the store written, the old version archived under
``<state>/archive/extension/<jobName>/``); schedule, suspend and resume record the job's state and unpause or pause
its DAG; ``-instances`` lists its runs with Falcon's instance states.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from falcon_airflow.compiler.extension import extension_dag_id
from falcon_airflow.entities.extension import (
    DEFINITIONS,
    ENTITY_TYPE,
    ExtensionJob,
    ExtensionName,
    read_job,
)
from falcon_airflow.issues import Issue
from falcon_airflow.operate import entity_steps as entity
from falcon_airflow.operate import store_steps
from falcon_airflow.operate.context import Context
from falcon_airflow.operate.journal import ActionSteps, Journal, StepPending, run
from falcon_airflow.operate.lifecycles import DagRef, Lifecycle
from falcon_airflow.operate.options import Options
from falcon_airflow.operate.outcomes import Outcome, Refused, succeeded
from falcon_airflow.operate.runs import collect, page
from falcon_airflow.parsing.redaction import redact_properties_file
from falcon_airflow.timekeeping import parse_falcon_date
from falcon_airflow.validation.extensions import validate_job


def _extension(options: Options) -> ExtensionName:
    name = options.required("extension_name", "extensionName")
    try:
        return ExtensionName(name)
    except ValueError:
        known = ", ".join(item.value for item in ExtensionName)
        raise Refused(f"unknown extension '{name}'; known: {known}") from None


def _stored(context: Context) -> dict[str, tuple[ExtensionName, Path]]:
    """Job name to (extension, file) of every job in the store."""
    return context.store.extension_jobs()


def _require_job(context: Context, options: Options) -> tuple[str, ExtensionName, Path]:
    name = options.required("job_name", "jobName")
    found = _stored(context).get(name)
    if found is None:
        raise Refused(f"extension job {name} is not submitted")
    return name, found[0], found[1]


def _describe(issue: Issue) -> str:
    where = f"{issue.file}:{issue.line}" if issue.line else (issue.file or "")
    return f"{where}: [{issue.rule}] {issue.message}"


def _read_and_validate(context: Context, options: Options, extension: ExtensionName) -> tuple[ExtensionJob, str]:
    data, given = options.file_bytes()  # the bytes the authorization check judged
    file = Path(given)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as problem:
        raise Refused(f"cannot read {file}: not UTF-8 text ({problem.reason} at byte {problem.start})") from None
    job, issues = read_job(extension.value, text, str(file))
    if job is not None:
        workspace = context.store.workspace()
        issues = validate_job(job, workspace.clusters, workspace.feeds)
    errors = [issue for issue in issues if issue.is_error]
    if job is None or errors:
        raise Refused(f"{file} is not a valid {extension.value} job",
                      details=tuple(_describe(issue) for issue in errors))
    return job, text


def _text(context: Context, path: Path) -> str:
    """A stored job's properties (:class:`OSError` when it is gone, :class:`UnicodeDecodeError` when not text)."""
    data = context.store.read(path)
    if data is None:
        raise FileNotFoundError(f"{path} is no longer in the store")
    return data.decode("utf-8")


def _readable_job(context: Context, extension: ExtensionName, path: Path) -> ExtensionJob | None:
    """The stored job, or ``None`` when it no longer reads."""
    try:
        return read_job(extension.value, _text(context, path), str(path))[0]
    except (OSError, UnicodeDecodeError):
        return None


def _job_path(context: Context, extension: ExtensionName, name: str) -> Path:
    return context.store.extension_path(extension, name)


def _status(context: Context, name: str) -> str:
    state = context.store.schedule_state(ENTITY_TYPE, name)
    return state or "SUBMITTED"


# -- journal steps (the shared ones pause, unpause, kill, drop and re-parse DAGs) ------------------------------------

def step_state(context: Context, journal: Journal) -> dict[str, Any] | None:
    context.store.set_schedule_state(ENTITY_TYPE, journal.name, journal.data.get("state"), user=journal.user)
    return None


_WRITTEN = {"write": store_steps.probe_write}
_STATED = {"state": store_steps.probe_state}
ACTIONS: dict[str, ActionSteps[Context]] = {
    "extension-submit": ActionSteps[Context](do={"write": store_steps.step_write, "reparse": entity.step_reparse},
                                             probe=_WRITTEN),
    "extension-submitAndSchedule": ActionSteps[Context](do={
        "write": store_steps.step_write, "state": step_state, "reparse": entity.step_reparse,
        "unpause": entity.step_unpause}, probe=_WRITTEN),
    "extension-schedule": ActionSteps[Context](do={"state": step_state, "unpause": entity.step_unpause},
                                               probe=_STATED),
    "extension-suspend": ActionSteps[Context](do={"state": step_state, "pause": entity.step_pause}, probe=_STATED),
    "extension-resume": ActionSteps[Context](do={"state": step_state, "unpause": entity.step_unpause},
                                             probe=_STATED),
    "extension-update": ActionSteps[Context](do={"archive_old": store_steps.step_archive_old,
                                                 "write": store_steps.step_write, "reparse": entity.step_reparse},
                                             undo={"archive_old": store_steps.undo_archive_old}, probe=_WRITTEN),
    "extension-delete": ActionSteps[Context](do={
        "pause": entity.step_pause, "archive": store_steps.step_archive, "kill": entity.step_kill,
        "drop": entity.step_drop, "state": step_state, "reparse": entity.step_reparse},
        undo={"pause": entity.undo_pause, "archive": store_steps.undo_archive}, intent={"pause": entity.intent_pause},
        probe={"archive": store_steps.probe_archive}),
}
"""Journaled actions, by the name their journal carries (recovered with the entity actions); each commit step has
a probe, as the entity actions' have (see :mod:`falcon_airflow.operate.store_steps`)."""


def _journaled(context: Context, action: str, name: str, steps: Sequence[str], commit: str,
               data: Mapping[str, Any]) -> str | None:
    journal = context.book.begin(f"extension-{action}", ENTITY_TYPE, name, steps, commit=commit, user=context.user,
                                 data=dict(data))
    try:
        run(context.book, journal, ACTIONS[journal.action], context)
    except StepPending as pending:
        return str(pending)
    return None


def _finish(message: str, pending: str | None) -> Outcome:
    return succeeded(message if pending is None else f"{message}; {pending}")


# -- actions ---------------------------------------------------------------------------------------------------------

def enumerate_extensions(context: Context, options: Options) -> Outcome:
    rows = [{"name": name.value, "description": description} for name, (description, _) in DEFINITIONS.items()]
    text = "\n".join(f"{row['name']}: {row['description']}" for row in rows)
    return succeeded("extensions", text=text, extensions=rows)


def describe(context: Context, options: Options) -> Outcome:
    extension = _extension(options)
    description, properties = DEFINITIONS[extension]
    lines = [f"{extension.value}: {description}", ""]
    lines += [f"  {item.name}{' (required)' if item.required else ''}: {item.description} "
              f"(e.g. {item.example})" for item in properties]
    return succeeded(extension.value, text="\n".join(lines), description=description,
                     properties=[vars(item) for item in properties])


def definition(context: Context, options: Options) -> Outcome:
    given = options.text("job_name")
    if given:  # a job: its properties as stored
        name, _, path = _require_job(context, options)
        return succeeded(name, text=redact_properties_file(_text(context, path)).rstrip("\n"))
    extension = _extension(options)
    description, properties = DEFINITIONS[extension]
    document = {"shortDescription": description,
                "properties": [{"propertyName": item.name, "required": item.required,
                                "description": item.description, "example": item.example} for item in properties]}
    return succeeded(extension.value, text=json.dumps(document, indent=2), definition=document)


def validate(context: Context, options: Options) -> Outcome:
    extension = _extension(options)
    job, _ = _read_and_validate(context, options, extension)
    return succeeded(f"Validated successfully ({extension.value} job {job.name})")


def submit(context: Context, options: Options, *, and_schedule: bool = False) -> Outcome:
    extension = _extension(options)
    job, text = _read_and_validate(context, options, extension)
    given = options.text("job_name")
    if given and given != job.name:
        raise Refused(f"-jobName {given} differs from the file's jobName {job.name}")
    if job.name in _stored(context):
        raise Refused(f"extension job {job.name} is already submitted (use -update)")
    path = _job_path(context, extension, job.name)
    data = {**store_steps.change(context.store, ENTITY_TYPE, job.name, path, new=text.encode("utf-8"), old=None,
                                 archive=False), "dags": [extension_dag_id(job.name)]}
    if and_schedule:
        pending = _journaled(context, "submitAndSchedule", job.name, ("write", "state", "reparse", "unpause"),
                             "write", {**data, "state": "RUNNING"})
    else:
        pending = _journaled(context, "submit", job.name, ("write", "reparse"), "write", data)
    what = "submitted and scheduled" if and_schedule else "submitted"
    return _finish(f"{extension.value} job {job.name} {what}", pending)


def update(context: Context, options: Options) -> Outcome:
    extension = _extension(options)
    job, text = _read_and_validate(context, options, extension)
    stored = _stored(context).get(job.name)
    if stored is None:
        raise Refused(f"extension job {job.name} is not submitted")
    if stored[0] is not extension:
        raise Refused(f"job {job.name} is a {stored[0].value} job, not {extension.value}")
    context.store.check_changeable(stored[1])
    if _text(context, stored[1]) == text:
        return succeeded(f"{extension.value} job {job.name} is unchanged")
    pending = _journaled(context, "update", job.name, ("archive_old", "write", "reparse"), "write",
                         store_steps.change(context.store, ENTITY_TYPE, job.name, stored[1],
                                            new=text.encode("utf-8"), old=context.store.read(stored[1]), archive=True))
    return _finish(f"{extension.value} job {job.name} updated; runs from now on use it", pending)


def _state_change(context: Context, options: Options, action: str, state: str, steps: tuple[str, str]) -> Outcome:
    name, _, _ = _require_job(context, options)
    current = _status(context, name)
    if action == "schedule" and current != "SUBMITTED":
        return succeeded(f"extension job {name} is already scheduled ({current})")
    if action == "suspend" and current != "RUNNING":
        raise Refused(f"extension job {name} is {current}: only a running job is suspended")
    if action == "resume" and current != "SUSPENDED":
        raise Refused(f"extension job {name} is {current}: only a suspended job is resumed")
    pending = _journaled(context, action, name, steps, "state",
                         {"state": state, "dags": [extension_dag_id(name)]})
    return _finish(f"extension job {name} {action}d" if action != "suspend" else f"extension job {name} suspended",
                   pending)


def schedule(context: Context, options: Options) -> Outcome:
    return _state_change(context, options, "schedule", "RUNNING", ("state", "unpause"))


def suspend(context: Context, options: Options) -> Outcome:
    return _state_change(context, options, "suspend", "SUSPENDED", ("state", "pause"))


def resume(context: Context, options: Options) -> Outcome:
    return _state_change(context, options, "resume", "RUNNING", ("state", "unpause"))


def delete(context: Context, options: Options) -> Outcome:
    name, extension, path = _require_job(context, options)
    context.store.check_changeable(path)
    dag_id = extension_dag_id(name)
    dags = [dag_id] if context.airflow().dag(dag_id) is not None else []
    pending = _journaled(context, "delete", name, ("pause", "archive", "kill", "drop", "state", "reparse"),
                         "archive", {**store_steps.change(context.store, ENTITY_TYPE, name, path, new=None,
                                                          old=context.store.read(path), archive=True),
                                     "dags": dags, "state": None})
    return _finish(f"{extension.value} job {name} deleted (its definition archived)", pending)


def list_jobs(context: Context, options: Options) -> Outcome:
    wanted = options.text("extension_name")
    if wanted:
        _extension(options)
    rows = []
    for name, (extension, path) in sorted(_stored(context).items()):
        if wanted and extension.value != wanted:
            continue
        if context.may_read is not None and not context.may_read(_readable_job(context, extension, path)):
            continue  # as entity -list: only the jobs the user may read (a job that does not read: superusers)
        rows.append({"jobName": name, "extensionName": extension.value, "status": _status(context, name),
                     "dagId": extension_dag_id(name), "file": str(path)})
    text = "\n".join(f"{row['jobName']} ({row['extensionName']}) {row['status']}" for row in rows)
    return succeeded(f"{len(rows)} extension job(s)", text=text or "No extension jobs", jobs=rows)


def instances(context: Context, options: Options) -> Outcome:
    name, extension, path = _require_job(context, options)
    job, issues = read_job(extension.value, _text(context, path), str(path))
    if job is None:
        raise Refused(f"the stored job {name} no longer reads", details=tuple(_describe(issue) for issue in issues))
    start = parse_falcon_date(options.text("start") or job.start)
    end_text = options.text("end")
    end = parse_falcon_date(end_text) if end_text else min(parse_falcon_date(job.end), context.now())
    ref = DagRef(extension_dag_id(name), Lifecycle.EXECUTION, job.cluster, job.source_cluster)
    records = collect(context.airflow(), [ref], start, end)
    wanted = {item.strip().upper() for item in (options.text("instance_status") or "").split(",") if item.strip()}
    if wanted:
        records = [record for record in records if record.status.value in wanted]
    offset = int(options.text("offset") or 0)
    limit = options.text("num_results")
    shown = page(records, offset, int(limit) if limit else None)
    client = context.airflow()
    documents = [record.as_json(client) for record in shown]
    lines = [f"{document['instance']}  {document['status']:<10} {document['cluster']}  "
             f"{document.get('startTime') or '-'}  {document.get('endTime') or '-'}" for document in documents]
    return succeeded(f"instances of extension job {name}", text="\n".join(lines) or "No instances to display",
                     instances=documents)


def detail(context: Context, options: Options) -> Outcome:
    name, extension, _ = _require_job(context, options)
    dag = context.airflow().dag(extension_dag_id(name))
    document = {"jobName": name, "extensionName": extension.value, "status": _status(context, name),
                "dagId": extension_dag_id(name), "inAirflow": dag is not None,
                "paused": None if dag is None else bool(dag.get("is_paused")),
                "history": [str(item) for item in context.store.history(ENTITY_TYPE, name)]}
    return succeeded(name, text="\n".join(f"{key}: {value}" for key, value in document.items()), **document)


def submit_and_schedule(context: Context, options: Options) -> Outcome:
    return submit(context, options, and_schedule=True)


def handle(context: Context, options: Options) -> Outcome:
    """Run the extension action ``options`` names (as the declarations dispatch it)."""
    from falcon_airflow.operate.execution import dispatch

    return dispatch(context, options)
