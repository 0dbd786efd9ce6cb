"""What an instance end tells the world: Falcon's JMS messages on the cluster's broker (see
:mod:`falcon_airflow.notifications.messages` and :mod:`~falcon_airflow.notifications.broker`).

:func:`instance_end_callbacks` gives a DAG's callbacks: the success one goes on the task that ends an instance
(the process's ``mark_outputs_available``, else ``workflow``; ``replicate``; ``retention``), the failure one on every
task (Airflow calls it once, for the task whose last try failed). A callback never fails the task: whatever goes
wrong is logged.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from falcon_airflow.compiler.specs import (
    ExtensionDagSpec,
    ProcessDagSpec,
    ReplicationDagSpec,
    RetentionDagSpec,
    TransferDagSpec,
)
from falcon_airflow.compiler.templating import literal_text
from falcon_airflow.notifications.broker import DEFAULT_STOMP_PORT, publish
from falcon_airflow.notifications.mail import instance_mail
from falcon_airflow.notifications.messages import DEFAULT_TTL_MINUTES, FeedInstance, InstanceEnd, instance_messages
from falcon_airflow.provider.macros import instance, replicated_instance

log = logging.getLogger(__name__)
AnnouncedSpec = ProcessDagSpec | ReplicationDagSpec | RetentionDagSpec | TransferDagSpec | ExtensionDagSpec
_KINDS: dict[type, tuple[str, str]] = {ProcessDagSpec: ("PROCESS", "GENERATE"),
                                       ExtensionDagSpec: ("PROCESS", "GENERATE"),  # as Falcon's generated process
                                       ReplicationDagSpec: ("FEED", "REPLICATE"),
                                       RetentionDagSpec: ("FEED", "DELETE")}
"""Falcon's entity type and operation of each kind of DAG."""


def stomp_port() -> int:
    try:
        from airflow.configuration import conf

        return conf.getint("falcon", "broker_stomp_port", fallback=DEFAULT_STOMP_PORT)
    except Exception:
        return DEFAULT_STOMP_PORT


def _outputs(spec: AnnouncedSpec, moment: datetime, context: Any, succeeded: bool) -> list[FeedInstance]:
    if isinstance(spec, ProcessDagSpec):
        found = [binding.resolve(moment) for binding in spec.outputs]
        return [FeedInstance(item.feed, item.path) for item in found if item.path]
    if isinstance(spec, ReplicationDagSpec):
        replica = instance(replicated_instance(spec.source_feed, context["dag_run"], spec.delay_minutes))
        return [FeedInstance(spec.feed, spec.target_feed.path(replica))]
    if isinstance(spec, ExtensionDagSpec):  # the mirror it wrote
        return [FeedInstance(spec.job_name, spec.target)] if succeeded and spec.target else []
    if isinstance(spec, TransferDagSpec):  # the instance imported or exported
        moved = instance(replicated_instance(spec.feed_binding, context["dag_run"], 0))
        return [FeedInstance(spec.feed, spec.feed_binding.path(moved))]
    if not succeeded:
        return []
    report = context["ti"].xcom_pull(task_ids="retention") or {}
    return [FeedInstance(spec.feed, str(item["path"])) for item in report.get("evicted") or [] if item.get("path")]


def _inputs(spec: AnnouncedSpec, moment: datetime) -> list[FeedInstance]:
    if not isinstance(spec, ProcessDagSpec):
        return []
    found = []
    for binding in spec.inputs:
        resolved = binding.resolve(moment)
        found.append(FeedInstance(resolved.feed, ",".join(resolved.paths) or "IGNORE"))
    return found


def run_started(run: Any, ti: Any) -> datetime | None:
    """When the run whose end is announced started: the DAG run's start, as Falcon's workflow start.

    A run cannot start before Airflow may run it (its ``run_after``): a start before that is not a start time but
    a placeholder (``dag.test()`` and ``airflow dags test`` give the run its logical date, a nominal instance time
    that may lie months back), and counting from it would report months for a run of a minute. Then, and when the
    run has no start, the current task try's start is the earliest start known for sure."""
    started: datetime | None = getattr(run, "start_date", None)
    run_after: datetime | None = getattr(run, "run_after", None)
    if started is not None and (run_after is None or started >= run_after):
        return started
    task_started: datetime | None = getattr(ti, "start_date", None)
    return task_started


def instance_end(spec: AnnouncedSpec, context: Any, *, succeeded: bool) -> InstanceEnd:
    """Falcon's view of the instance a task's run belongs to, at its end."""
    run = context["dag_run"]
    ti = context["ti"]
    moment = instance(run)
    kind = ("FEED", spec.kind.upper()) if isinstance(spec, TransferDagSpec) else _KINDS[type(spec)]
    entity = spec.source.name
    cluster = spec.target_cluster if isinstance(spec, ReplicationDagSpec) else spec.cluster
    started = run_started(run, ti)
    return InstanceEnd(
        entity=entity, entity_type=kind[0], operation=kind[1], cluster=cluster, nominal_time=moment,
        succeeded=succeeded, workflow_id=f"{run.dag_id}@{run.run_id}", run_id=max(0, int(ti.try_number or 1) - 1),
        user=spec.owner, broker_url=spec.messaging.broker_url if spec.messaging else "",
        broker_ttl_minutes=spec.messaging.ttl_minutes if spec.messaging else DEFAULT_TTL_MINUTES,
        outputs=_outputs(spec, moment, context, succeeded), inputs=_inputs(spec, moment),
        log_dir=str(getattr(ti, "log_url", "") or ""),
        engine=spec.engine if isinstance(spec, ProcessDagSpec) else "",
        # the job's name is template text in the spec (entity text escaped): the mail shows it as written
        workflow_name=literal_text(spec.job.name) if spec.job is not None else spec.dag_id, started=started,
        ended=datetime.now(UTC))


@dataclass(frozen=True)
class InstanceEndCallback:
    """A task callback (Airflow calls it with the task's context) that announces the instance's end."""

    spec: AnnouncedSpec
    succeeded: bool

    def __call__(self, context: Any) -> None:
        try:
            end = instance_end(self.spec, context, succeeded=self.succeeded)
        except Exception:
            log.exception("the end of an instance of %s was not announced", self.spec.dag_id)
            return
        if self.spec.messaging is not None:
            try:
                publish(end.broker_url, instance_messages(end, datetime.now(UTC)),
                        ttl_minutes=end.broker_ttl_minutes, stomp_port=stomp_port(), logger=log)
            except Exception:
                log.exception("Falcon messages of %s not sent", end.workflow_id)
        if self.spec.emails:
            try:
                send_instance_mail(self.spec.emails, end, context)
            except Exception:
                log.exception("the mail of %s was not sent to %s", end.workflow_id, ", ".join(self.spec.emails))


def run_url(context: Any) -> str:
    try:
        from urllib.parse import quote

        from airflow.configuration import conf

        base = conf.get("api", "base_url", fallback="").rstrip("/")
        run = context["dag_run"]
        return f"{base}/dags/{quote(run.dag_id)}/runs/{quote(run.run_id)}" if base else ""
    except Exception:
        return ""


def send_instance_mail(recipients: Sequence[str], end: InstanceEnd, context: Any) -> None:
    """The instance's mail through Airflow's email backend (``[email]``, ``[smtp]`` and the SMTP connection)."""
    from airflow.utils.email import send_email

    mail = instance_mail(end, run_url=run_url(context), log_url=end.log_dir)
    send_email(to=list(recipients), subject=mail.subject, html_content=mail.html)
    log.info("mail sent to %s: %s", ", ".join(recipients), mail.subject)


def instance_end_callbacks(spec: AnnouncedSpec) -> tuple[InstanceEndCallback, InstanceEndCallback] | None:
    """(on success of the last task, on failure of any task), or ``None`` when there is nothing to announce."""
    if spec.messaging is None and not spec.emails:
        return None
    return InstanceEndCallback(spec, True), InstanceEndCallback(spec, False)


def announce_instance_ends(dag: Any, spec: AnnouncedSpec, end_task: Any) -> None:
    """Give every task of ``dag`` the failure callback and the task that ends an instance (a task or its id) the
    success one."""
    callbacks = instance_end_callbacks(spec)
    if callbacks is None:
        return
    success, failure = callbacks
    for task in dag.tasks:
        task.on_failure_callback = [*_as_list(task.on_failure_callback), failure]
    end = dag.get_task(end_task) if isinstance(end_task, str) else end_task
    end.on_success_callback = [*_as_list(end.on_success_callback), success]


def _as_list(value: Any) -> list[Any]:
    if value is None:
        return []
    return list(value) if isinstance(value, list | tuple) else [value]
