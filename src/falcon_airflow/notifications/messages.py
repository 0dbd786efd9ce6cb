"""Falcon's JMS messages of an instance end, as maps of strings (no Airflow import).

Falcon sent two kinds of message when an instance ended (its post-processing step):

* on the system topic ``FALCON.ENTITY.TOPIC``: one message for the instance, ``feedNames`` and
  ``feedInstancePaths`` holding every output feed and path, comma-separated;
* on the entity's topic ``FALCON.<entity name>``: one message per output feed instance (a process's outputs, the
  replica, every instance a retention evicted), none when there is nothing (a process without outputs).

The keys are Falcon's workflow execution arguments (``entityName``, ``entityType``, ``operation``, ``status``,
``nominalTime``, ``timeStamp``, ``cluster``, ``workflowUser``, ``workflowId``, ``runId``, ``feedNames``,
``feedInstancePaths``, ``logDir``, ``brokerUrl``, ``brokerImplClass``, ``brokerTTL``, ...); times are written
``yyyy-MM-dd-HH-mm`` in UTC as Falcon's nominal times were. ``logFile`` is left out, as Falcon left it out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

SYSTEM_TOPIC = "FALCON.ENTITY.TOPIC"
TOPIC_PREFIX = "FALCON."
BROKER_IMPL_CLASS = "org.apache.activemq.ActiveMQConnectionFactory"
DEFAULT_TTL_MINUTES = 3 * 24 * 60
"""Falcon's message time to live when the entity sets none (``broker.ttl``, minutes): three days."""
SUCCEEDED = "SUCCEEDED"
FAILED = "FAILED"


def falcon_time(moment: datetime) -> str:
    """``2026-03-01-05-00``: how Falcon wrote nominal times and time stamps in its messages (UTC)."""
    return moment.astimezone(UTC).strftime("%Y-%m-%d-%H-%M")


def entity_topic(entity: str) -> str:
    return f"{TOPIC_PREFIX}{entity}"


@dataclass(frozen=True)
class FeedInstance:
    feed: str
    path: str


@dataclass(frozen=True)
class InstanceEnd:
    """What is known when an instance of an entity ends."""

    entity: str
    entity_type: str
    """``PROCESS`` or ``FEED``."""
    operation: str
    """``GENERATE`` (a process), ``REPLICATE``, ``DELETE`` (retention), ``IMPORT``, ``EXPORT``."""
    cluster: str
    nominal_time: datetime
    succeeded: bool
    workflow_id: str
    run_id: int
    user: str
    broker_url: str
    broker_ttl_minutes: int = DEFAULT_TTL_MINUTES
    outputs: Sequence[FeedInstance] = ()
    inputs: Sequence[FeedInstance] = ()
    log_dir: str = ""
    engine: str = ""
    workflow_name: str = ""
    started: datetime | None = None
    ended: datetime | None = None
    extra: dict[str, str] = field(default_factory=dict)


def _message(end: InstanceEnd, now: datetime) -> dict[str, str]:
    message = {
        "entityName": end.entity, "entityType": end.entity_type, "operation": end.operation,
        "cluster": end.cluster, "nominalTime": falcon_time(end.nominal_time), "timeStamp": falcon_time(now),
        "status": SUCCEEDED if end.succeeded else FAILED, "workflowId": end.workflow_id, "runId": str(end.run_id),
        "workflowUser": end.user, "logDir": end.log_dir, "brokerUrl": end.broker_url,
        "brokerImplClass": BROKER_IMPL_CLASS, "brokerTTL": str(end.broker_ttl_minutes),
    }
    if end.engine:
        message["userWorkflowEngine"] = end.engine
    if end.workflow_name:
        message["userWorkflowName"] = end.workflow_name
    if end.started is not None:
        message["workflowStartTime"] = falcon_time(end.started)
    if end.ended is not None:
        message["workflowEndTime"] = falcon_time(end.ended)
    if end.started is not None and end.ended is not None:
        message["workflowDuration"] = str(int((end.ended - end.started).total_seconds() * 1000))
    if end.inputs:
        message["falconInputFeeds"] = "#".join(item.feed for item in end.inputs)
        message["falconInPaths"] = "#".join(item.path for item in end.inputs)
    message.update(end.extra)
    return message


def system_message(end: InstanceEnd, now: datetime) -> dict[str, str]:
    """The one message on ``FALCON.ENTITY.TOPIC``: every feed once (a feed's own runs name the feed; a process
    that wrote nothing ``NONE``), every instance path."""
    message = _message(end, now)
    feeds = ",".join(dict.fromkeys(item.feed for item in end.outputs))
    message["feedNames"] = feeds or ("NONE" if end.entity_type == "PROCESS" else end.entity)
    message["feedInstancePaths"] = ",".join(item.path for item in end.outputs) or "IGNORE"
    return message


def entity_messages(end: InstanceEnd, now: datetime) -> list[dict[str, str]]:
    """The messages on ``FALCON.<entity>``: one per output feed instance."""
    messages = []
    for item in end.outputs:
        message = _message(end, now)
        message["feedNames"] = item.feed
        message["feedInstancePaths"] = item.path
        messages.append(message)
    return messages


def instance_messages(end: InstanceEnd, now: datetime) -> list[tuple[str, dict[str, str]]]:
    """(topic, message) of everything an instance end sends, system topic first."""
    return [(SYSTEM_TOPIC, system_message(end, now)),
            *((entity_topic(end.entity), message) for message in entity_messages(end, now))]
