"""The mail of an instance end, as Falcon's ``<notification type="email" to="..."/>`` asks (no Airflow import).

Subject and body name the entity, the instance, its status, how long it ran, what it wrote, and where to look:
the Airflow run and the task's log.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape

from falcon_airflow.notifications.messages import InstanceEnd
from falcon_airflow.timekeeping import format_falcon_date


@dataclass(frozen=True)
class Mail:
    subject: str
    html: str


def _duration(end: InstanceEnd) -> str:
    if end.started is None or end.ended is None:
        return "unknown"
    seconds = max(0, int((end.ended - end.started).total_seconds()))
    hours, rest = divmod(seconds, 3600)
    minutes, seconds = divmod(rest, 60)
    return f"{hours}h {minutes:02d}m {seconds:02d}s" if hours else f"{minutes}m {seconds:02d}s"


def instance_mail(end: InstanceEnd, *, run_url: str = "", log_url: str = "") -> Mail:
    status = "SUCCEEDED" if end.succeeded else "FAILED"
    instance = format_falcon_date(end.nominal_time)
    subject = f"Falcon {end.entity_type.lower()} {end.entity} instance {instance} on {end.cluster}: {status}"
    rows = [("Entity", f"{end.entity_type.lower()} {end.entity}"), ("Operation", end.operation),
            ("Cluster", end.cluster), ("Instance", instance), ("Status", status), ("Duration", _duration(end)),
            ("Run", end.workflow_id), ("Attempt", str(end.run_id + 1))]
    rows += [(f"Output {item.feed}", item.path) for item in end.outputs]
    table = "".join(f"<tr><th align='left'>{escape(name)}</th><td>{escape(value)}</td></tr>" for name, value in rows)
    links = "".join(f"<li><a href='{escape(url)}'>{escape(label)}</a></li>"
                    for label, url in (("The Airflow run", run_url), ("The task's log", log_url)) if url)
    html = f"<p>{escape(subject)}</p><table>{table}</table>" + (f"<ul>{links}</ul>" if links else "")
    return Mail(subject=subject, html=html)
