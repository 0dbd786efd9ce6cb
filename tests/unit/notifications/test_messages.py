"""Falcon's messages of an instance end, and sending them to a broker that is down."""

from __future__ import annotations

import json
import logging
import socket
from datetime import UTC, datetime

import pytest

from falcon_airflow.notifications.broker import map_body, publish, stomp_address
from falcon_airflow.notifications.messages import (
    SYSTEM_TOPIC,
    FeedInstance,
    InstanceEnd,
    falcon_time,
    instance_messages,
)

NOW = datetime(2026, 3, 1, 9, 7, 30, tzinfo=UTC)


def end(**changes: object) -> InstanceEnd:
    values: dict[str, object] = dict(
        entity="agg", entity_type="PROCESS", operation="GENERATE", cluster="corp",
        nominal_time=datetime(2026, 3, 1, 8, tzinfo=UTC), succeeded=True, workflow_id="dag@run", run_id=0,
        user="falcon", broker_url="tcp://broker:61616",
        outputs=(FeedInstance("clicks", "/c/2026/03/01/08"), FeedInstance("raw", "/r/2026/03/01/08")))
    values.update(changes)
    return InstanceEnd(**values)  # type: ignore[arg-type]


def test_falcon_times_are_minutes_with_dashes_in_utc() -> None:
    assert falcon_time(datetime(2026, 3, 1, 8, 5, 59, tzinfo=UTC)) == "2026-03-01-08-05"


def test_the_system_topic_gets_one_message_and_the_entity_topic_one_per_output() -> None:
    sent = instance_messages(end(), NOW)
    assert [topic for topic, _ in sent] == [SYSTEM_TOPIC, "FALCON.agg", "FALCON.agg"]
    system = sent[0][1]
    assert (system["feedNames"], system["feedInstancePaths"]) == ("clicks,raw", "/c/2026/03/01/08,/r/2026/03/01/08")
    assert [(message["feedNames"], message["feedInstancePaths"]) for _, message in sent[1:]] == [
        ("clicks", "/c/2026/03/01/08"), ("raw", "/r/2026/03/01/08")]
    assert system["nominalTime"] == "2026-03-01-08-00" and system["timeStamp"] == "2026-03-01-09-07"
    assert system["status"] == "SUCCEEDED" and system["brokerTTL"] == "4320" and "logFile" not in system


def test_an_instance_without_outputs_sends_the_system_message_only() -> None:
    sent = instance_messages(end(outputs=(), succeeded=False), NOW)
    assert len(sent) == 1
    assert (sent[0][1]["feedNames"], sent[0][1]["feedInstancePaths"], sent[0][1]["status"]) == (
        "NONE", "IGNORE", "FAILED")


def test_the_stomp_connector_is_found_from_the_openwire_endpoint() -> None:
    assert stomp_address("tcp://mq.example:61616?daemon=true").host == "mq.example"
    assert stomp_address("tcp://mq.example:61616", 61999).port == 61999
    assert stomp_address("failover:(tcp://a:61616,tcp://b:61616)").host == "a"
    assert (stomp_address("stomp://mq:6000").host, stomp_address("stomp://mq:6000").port) == ("mq", 6000)
    with pytest.raises(ValueError, match="names no broker"):
        stomp_address("not an endpoint")


def test_the_map_body_is_what_activemq_reads_into_a_map_message() -> None:
    assert json.loads(map_body({"a": "1", "b": "x\"y"})) == {
        "map": {"entry": [{"string": ["a", "1"]}, {"string": ["b", "x\"y"]}]}}


def test_a_broker_that_is_down_is_retried_then_logged_and_never_raises(caplog: pytest.LogCaptureFixture) -> None:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    pauses: list[float] = []
    with caplog.at_level(logging.WARNING):
        sent = publish(f"stomp://127.0.0.1:{port}", instance_messages(end(), NOW), ttl_minutes=5, attempts=3,
                       pause=1.5, timeout=2, sleep=pauses.append)
    assert sent is False
    assert pauses == [1.5, 3.0]
    assert sum("failed, attempt" in record.getMessage() for record in caplog.records) == 3
    assert any(record.levelno == logging.ERROR and "did not take them" in record.getMessage()
               for record in caplog.records)
