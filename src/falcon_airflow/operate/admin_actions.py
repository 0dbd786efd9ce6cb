"""``admin``: safemode (persisted in the store), Airflow's health and the versions."""

from __future__ import annotations

from falcon_airflow import __version__
from falcon_airflow.operate.airflow_api import AirflowError
from falcon_airflow.operate.context import Context
from falcon_airflow.operate.options import Options
from falcon_airflow.operate.outcomes import Outcome, Status, succeeded, usage_error


def set_safemode(context: Context, value: str) -> Outcome:
    chosen = value.strip().lower()
    if chosen not in ("true", "false"):
        raise usage_error(f"Invalid value for -setsafemode: {value} (expected true or false)")
    context.store.set_safemode(chosen == "true", user=context.user)
    return succeeded(f"Falcon server safemode set to : {chosen}", safemode=chosen == "true")


def set_safemode_action(context: Context, options: Options) -> Outcome:
    """``-setsafemode true|false``."""
    return set_safemode(context, options.text("setsafemode") or "")


def status(context: Context, options: Options | None = None) -> Outcome:
    url = context.settings.url
    safemode = context.store.safemode
    try:
        health = context.airflow().health()
    except AirflowError as problem:
        return Outcome(Status.FAILED, f"Falcon server doesn't seem to be running on {url}",
                       {"safemode": safemode, "error": problem.message})
    database = str((health.get("metadatabase") or {}).get("status") or "unknown")
    components = {name: (value or {}).get("status") for name, value in health.items() if isinstance(value, dict)}
    lines = [f"{name}: {value or 'unknown'}" for name, value in sorted(components.items())]
    lines.append(f"safemode: {str(safemode).lower()}")
    if database != "healthy":
        message = f"Falcon server is not fully operational (on {url}). Please check log files."
        return Outcome(Status.FAILED, message, {"health": components, "safemode": safemode},
                       "\n".join([message, *lines]))
    message = f"Falcon server is running (on {url})"
    return succeeded(message, text="\n".join([message, *lines]), health=components, safemode=safemode)


def version(context: Context, options: Options | None = None) -> Outcome:
    info = context.airflow().version()
    airflow_version = str(info.get("version", "unknown"))
    message = f"Falcon server build version: falcon-airflow {__version__} on Apache Airflow {airflow_version}"
    return succeeded(message, properties={"falcon-airflow": __version__, "airflow": airflow_version,
                                          "airflow-git": info.get("git_version")})


ACTIVE_STATES = ("running", "queued", "deferred", "up_for_reschedule", "up_for_retry", "scheduled")


def stack(context: Context, options: Options | None = None) -> Outcome:
    """Falcon's ``-stack`` dumped the server's threads to see what it was doing; Airflow has no thread dump, so
    this shows what it is doing: each component's health and latest heartbeat, and every task instance that
    runs, waits in a queue, is deferred to the triggerer or waits for a retry or its next poke."""
    health = context.airflow().health()
    active = context.airflow().active_task_instances(ACTIVE_STATES)
    lines = ["Components:"]
    for name, value in sorted(health.items()):
        if isinstance(value, dict):
            beat = next((value[key] for key in value if key.startswith("latest") and value[key]), None)
            lines.append(f"  {name}: {value.get('status') or 'unknown'}" + (f" (heartbeat {beat})" if beat else ""))
    lines.append(f"Task instances at work: {len(active)}")
    rows = [("State", "DAG", "Run", "Task", "Try", "Since", "Host", "Pid")]
    rows += [(str(ti.get("state")), str(ti.get("dag_id")), str(ti.get("dag_run_id")), str(ti.get("task_id")),
              str(ti.get("try_number") or "-"), str(ti.get("start_date") or ti.get("queued_when") or "-"),
              str(ti.get("hostname") or "-"), str(ti.get("pid") or "-")) for ti in active]
    if active:
        widths = [max(len(row[column]) for row in rows) for column in range(len(rows[0]))]
        lines += ["  " + "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
                  for row in rows]
    keys = ("dag_id", "dag_run_id", "task_id", "state", "try_number", "start_date", "hostname", "pid")
    return succeeded("what Airflow is doing", text="\n".join(lines), health=health,
                     taskInstances=[{key: ti.get(key) for key in keys} for ti in active])


def audit_trail(context: Context, options: Options) -> Outcome:
    """``-audit``: the audit log's lines, narrowed by ``-start``, ``-end`` and ``-user``."""
    from falcon_airflow.operate import audit

    # one row per command: its attempt and its result, paired
    entries = audit.commands(context.store, start=options.time("start"), end=options.time("end"),
                             user=options.text("user"))
    lines = []
    for entry in entries:
        who = str(entry.get("user")) + (f" (doAs {entry['doAs']})" if entry.get("doAs") else "")
        what = " ".join(str(entry[key]) for key in ("type", "name", "extensionName", "jobName", "start", "end",
                                                     "cluster") if entry.get(key))
        reason = f": {entry['reason']}" if entry.get("reason") else ""
        if entry.get("result") == audit.STARTED:
            reason = ": no result recorded (the command was interrupted, or is still running)"
        lines.append(f"{entry.get('time')}  {who}  {entry.get('command')} -{entry.get('action')} {what}  "
                     f"{entry.get('result')}{reason}".rstrip())
    return succeeded(f"{len(entries)} audited commands", text="\n".join(lines) if lines else "no audited commands",
                     entries=entries)


def handle(context: Context, options: Options) -> Outcome:
    """Run the admin action ``options`` names (as the declarations dispatch it)."""
    from falcon_airflow.operate.execution import dispatch

    return dispatch(context, options)
