"""An SLA miss, told as Falcon told its SLA alerts: the tag ``Missed SLA Low`` / ``Missed SLA High``, a message on
the entity's topic and on the system topic, and a mail (no Airflow import).

Falcon's names: a feed misses ``slaLow`` / ``slaHigh`` (its instance is not available by nominal time + each); a
process misses ``shouldStartIn`` (Low) / ``shouldEndIn`` (High). The message keys are those of Falcon's instance
messages, with ``operation`` ``SLA_MISS`` and ``status`` the tag's words (``MISSED_SLA_LOW``).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from html import escape

from falcon_airflow.notifications.mail import Mail
from falcon_airflow.notifications.messages import (
    BROKER_IMPL_CLASS,
    SYSTEM_TOPIC,
    entity_topic,
    falcon_time,
)
from falcon_airflow.timekeeping import format_falcon_date

LOW_TAG = "Missed SLA Low"
HIGH_TAG = "Missed SLA High"
TAGS = {"slaLow": LOW_TAG, "shouldStartIn": LOW_TAG, "slaHigh": HIGH_TAG, "shouldEndIn": HIGH_TAG}


@dataclass(frozen=True)
class SlaMiss:
    entity: str
    entity_type: str
    """``FEED`` or ``PROCESS``."""
    cluster: str
    nominal_time: datetime
    sla: str
    """Falcon's attribute: ``slaLow``, ``slaHigh``, ``shouldStartIn``, ``shouldEndIn``."""
    limit: str
    """The SLA as written (``hours(2)``)."""
    deadline: datetime
    user: str
    workflow_id: str
    broker_url: str = ""
    broker_ttl_minutes: int = 0
    detail: str = ""

    @property
    def tag(self) -> str:
        return TAGS[self.sla]


def sla_text(miss: SlaMiss) -> str:
    return (f"{miss.tag}: {miss.entity_type.lower()} {miss.entity} instance {format_falcon_date(miss.nominal_time)} "
            f"on {miss.cluster} missed {miss.sla} {miss.limit} (deadline {format_falcon_date(miss.deadline)})"
            + (f": {miss.detail}" if miss.detail else ""))


def sla_messages(miss: SlaMiss, now: datetime) -> list[tuple[str, dict[str, str]]]:
    """(topic, map message): the system topic and the entity's topic."""
    message = {
        "entityName": miss.entity, "entityType": miss.entity_type, "operation": "SLA_MISS",
        "cluster": miss.cluster, "nominalTime": falcon_time(miss.nominal_time), "timeStamp": falcon_time(now),
        "status": miss.tag.upper().replace(" ", "_"), "sla": miss.sla,
        "slaLimit": miss.limit, "slaDeadline": falcon_time(miss.deadline), "workflowId": miss.workflow_id,
        "workflowUser": miss.user, "brokerUrl": miss.broker_url, "brokerImplClass": BROKER_IMPL_CLASS,
        "brokerTTL": str(miss.broker_ttl_minutes),
    }
    return [(SYSTEM_TOPIC, dict(message)), (entity_topic(miss.entity), dict(message))]


def sla_mail(miss: SlaMiss, *, run_url: str = "") -> Mail:
    instance = format_falcon_date(miss.nominal_time)
    subject = f"Falcon {miss.entity_type.lower()} {miss.entity} instance {instance} on {miss.cluster}: {miss.tag}"
    rows = [("Entity", f"{miss.entity_type.lower()} {miss.entity}"), ("Cluster", miss.cluster),
            ("Instance", instance), ("SLA", f"{miss.sla} {miss.limit}"),
            ("Deadline", format_falcon_date(miss.deadline)), ("Monitor run", miss.workflow_id)]
    if miss.detail:
        rows.append(("Detail", miss.detail))
    table = "".join(f"<tr><th align='left'>{escape(name)}</th><td>{escape(value)}</td></tr>" for name, value in rows)
    link = f"<p><a href='{escape(run_url)}'>The Airflow run</a></p>" if run_url else ""
    return Mail(subject=subject, html=f"<p>{escape(subject)}</p><table>{table}</table>{link}")
