"""Sending Falcon's messages to the cluster's ActiveMQ broker over STOMP (no Airflow import).

Each message goes as a JSON map with ActiveMQ's ``jms-map-json`` transformation and no ``content-length`` header
(with one, ActiveMQ keeps the frame as bytes), so a JMS consumer receives a ``MapMessage`` as Falcon's producer
sent it: persistent, expiring after the entity's ``broker.ttl`` minutes.

The cluster's ``messaging`` interface names the broker as Falcon users wrote it, usually its OpenWire URL
(``tcp://host:61616``, ``failover:(tcp://a:61616,tcp://b:61616)``): the STOMP connector is on the same host at
``stomp_port`` (ActiveMQ's default 61613). A ``stomp://host:port`` endpoint is used as it is.

A broker that is down never fails the instance: sending is tried ``attempts`` times with a growing pause, then the
failure is logged (Falcon logged and went on too).
"""

from __future__ import annotations

import json
import logging
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

log = logging.getLogger(__name__)

DEFAULT_STOMP_PORT = 61613
_FIRST_ADDRESS = re.compile(r"(?:failover:)?\(?\s*([a-z+]+://[^,)\s]+)", re.IGNORECASE)


@dataclass(frozen=True)
class StompAddress:
    host: str
    port: int


def stomp_address(endpoint: str, stomp_port: int = DEFAULT_STOMP_PORT) -> StompAddress:
    """Where to reach the STOMP connector of the broker a ``messaging`` endpoint names (its first address)."""
    match = _FIRST_ADDRESS.match(endpoint.strip())
    if match is None:
        raise ValueError(f"messaging endpoint '{endpoint}' names no broker address (e.g. tcp://host:61616)")
    parts = urlsplit(match.group(1))
    if not parts.hostname:
        raise ValueError(f"messaging endpoint '{endpoint}' names no host")
    if parts.scheme.lower().startswith("stomp") and parts.port:
        return StompAddress(parts.hostname, parts.port)
    return StompAddress(parts.hostname, stomp_port)


def map_body(message: dict[str, str]) -> str:
    """A map as ActiveMQ's ``jms-map-json`` transformation reads it into a MapMessage."""
    return json.dumps({"map": {"entry": [{"string": [key, value]} for key, value in message.items()]}})


def _send_all(address: StompAddress, messages: Sequence[tuple[str, dict[str, str]]], ttl_ms: int,
              timeout: float) -> None:
    import stomp

    connection = stomp.Connection([(address.host, address.port)], auto_content_length=False, timeout=timeout,
                                  reconnect_attempts_max=1)
    connection.connect(wait=True)
    try:
        expires = int(time.time() * 1000) + ttl_ms
        for topic, message in messages:
            connection.send(destination=f"/topic/{topic}", body=map_body(message),
                            headers={"transformation": "jms-map-json", "persistent": "true",
                                     "expires": str(expires)})
    finally:
        connection.disconnect()  # waits for the broker's receipt: every frame before it was taken


def publish(endpoint: str, messages: Sequence[tuple[str, dict[str, str]]], *, ttl_minutes: int,
            stomp_port: int = DEFAULT_STOMP_PORT, attempts: int = 3, pause: float = 2.0, timeout: float = 10.0,
            sleep: Callable[[float], Any] = time.sleep, logger: logging.Logger | None = None) -> bool:
    """Send ``(topic, map)`` messages; ``True`` when the broker took them all, ``False`` (logged) when it did not."""
    out = logger or log
    if not messages:
        return True
    try:
        address = stomp_address(endpoint, stomp_port)
    except ValueError as problem:
        out.error("Falcon messages not sent: %s", problem)
        return False
    for attempt in range(1, attempts + 1):
        try:
            _send_all(address, messages, ttl_minutes * 60 * 1000, timeout)
        except Exception as problem:
            out.warning("sending %d Falcon message(s) to %s (STOMP %s:%d) failed, attempt %d of %d: %s",
                        len(messages), endpoint, address.host, address.port, attempt, attempts, problem)
            if attempt < attempts:
                sleep(pause * attempt)
            continue
        for topic, message in messages:
            out.info("Falcon message sent to %s: %s", topic, message)
        return True
    out.error("Falcon messages not sent: the broker %s did not take them after %d attempts; the instance goes on",
              endpoint, attempts)
    return False
