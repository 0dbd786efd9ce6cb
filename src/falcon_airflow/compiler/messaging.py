"""The broker an entity's instance ends are announced on (Falcon's JMS messages, see
:mod:`falcon_airflow.notifications.messages`)."""

from __future__ import annotations

from collections.abc import Mapping

from falcon_airflow.compiler.specs import MessagingSpec
from falcon_airflow.entities.cluster import Cluster, InterfaceType

TTL_PROPERTY = "broker.ttl"
DEFAULT_TTL_MINUTES = 3 * 24 * 60


def messaging_of(cluster: Cluster | None, properties: Mapping[str, str]) -> MessagingSpec | None:
    """The cluster's ``messaging`` interface with the entity's message time to live; ``None`` without one."""
    interface = cluster.interface(InterfaceType.MESSAGING) if cluster is not None else None
    if interface is None or not interface.endpoint.strip():
        return None
    text = properties.get(TTL_PROPERTY, "").strip()
    ttl = int(text) if text.isdigit() and int(text) > 0 else DEFAULT_TTL_MINUTES
    return MessagingSpec(broker_url=interface.endpoint.strip(), ttl_minutes=ttl)
