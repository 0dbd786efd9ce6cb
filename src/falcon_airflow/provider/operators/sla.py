"""The alert of an SLA monitor: runs only when the check before it was skipped (the miss), and tells it - a log
line, Falcon's message on the cluster's broker, a mail to the entity's notification list. What it returns (XCom)
and its success are the record ``entity -slaAlert`` reads."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from airflow.sdk import BaseOperator

from falcon_airflow.notifications.sla import SlaMiss, sla_mail, sla_messages, sla_text
from falcon_airflow.provider.macros import instance
from falcon_airflow.timekeeping import format_falcon_date, parse_falcon_date

log = logging.getLogger(__name__)


class SlaMissOperator(BaseOperator):
    """Reports one missed SLA of the run's instance. Telling never fails the task: a broker or a mail server that
    is down is logged, and the miss stays recorded."""

    template_fields: Sequence[str] = ("deadline",)
    ui_color = "#fde8e8"

    def __init__(self, *, entity: str, entity_type: str, cluster: str, sla: str, limit: str, deadline: str,
                 owner_name: str, emails: Sequence[str] = (), broker_url: str = "", broker_ttl_minutes: int = 0,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.entity = entity
        self.entity_type = entity_type
        self.cluster = cluster
        self.sla = sla
        self.limit = limit
        self.deadline = deadline
        self.owner_name = owner_name
        self.emails = list(emails)
        self.broker_url = broker_url
        self.broker_ttl_minutes = broker_ttl_minutes

    def execute(self, context: Any) -> dict[str, str]:
        run = context["dag_run"]
        miss = SlaMiss(entity=self.entity, entity_type=self.entity_type, cluster=self.cluster,
                       nominal_time=instance(run), sla=self.sla, limit=self.limit,
                       deadline=parse_falcon_date(self.deadline), user=self.owner_name,
                       workflow_id=f"{run.dag_id}@{run.run_id}", broker_url=self.broker_url,
                       broker_ttl_minutes=self.broker_ttl_minutes)
        self.log.warning("Falcon SLA: %s", sla_text(miss))
        if self.broker_url:
            try:
                from falcon_airflow.notifications.broker import publish
                from falcon_airflow.provider.instance_end import stomp_port

                publish(self.broker_url, sla_messages(miss, datetime.now(UTC)),
                        ttl_minutes=self.broker_ttl_minutes, stomp_port=stomp_port(), logger=log)
            except Exception:
                self.log.exception("the Falcon message of the SLA miss was not sent")
        if self.emails:
            try:
                from airflow.utils.email import send_email

                from falcon_airflow.provider.instance_end import run_url

                mail = sla_mail(miss, run_url=run_url(context))
                send_email(to=self.emails, subject=mail.subject, html_content=mail.html)
            except Exception:
                self.log.exception("the mail of the SLA miss was not sent to %s", ", ".join(self.emails))
        return {"tag": miss.tag, "sla": miss.sla, "limit": miss.limit,
                "instance": format_falcon_date(miss.nominal_time), "deadline": self.deadline}
