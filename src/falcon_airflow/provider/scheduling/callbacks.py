"""Callbacks Airflow calls for Falcon SLAs (``shouldStartIn``, ``shouldEndIn``)."""

from __future__ import annotations

import logging
from typing import Any

log = logging.getLogger(__name__)


async def sla_missed(context: Any = None, **details: Any) -> None:
    """A Falcon SLA miss (deadline alert): logged in the triggerer with the entity, instance and SLA."""
    log.warning("Falcon SLA missed: %s %s instance %s exceeded %s=%s", details.get("entity_type", "process"),
                details.get("entity"), details.get("instance", "?"), details.get("sla"), details.get("limit"))
