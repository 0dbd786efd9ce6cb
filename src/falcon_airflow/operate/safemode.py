"""Falcon's safemode, persisted in the store (``admin -setsafemode true|false``).

What Falcon refuses (``AbstractEntityManager.verifySafemodeOperation``, ``AbstractInstanceManager``), with its
messages, and what falcon-airflow therefore refuses:

==============================================  ===============  =====================================================
operation                                       in safemode      outside safemode
==============================================  ===============  =====================================================
entity submit, submitAndSchedule, schedule,     refused          allowed
resume, delete, touch
entity update of a feed/process/datasource      refused          allowed
entity update of a cluster                      allowed          refused ("only allowed ... during safemode")
entity suspend (feed, process)                  allowed          allowed
entity validate, status, definition, list,      allowed          allowed
dependency, summary
instance resume                                 refused          allowed
other instance operations                       allowed          allowed
==============================================  ===============  =====================================================

Safemode gates the commands of this package; Airflow's own UI and API are not gated (and Airflow keeps running
retries and late-data checks, which Falcon held back in safemode).
"""

from __future__ import annotations

from falcon_airflow.entities import EntityType
from falcon_airflow.operate.outcomes import Refused

UPDATE_ONLY_CLUSTERS = "Entity operation UPDATE is only allowed on cluster entities during safemode"


def check_entity_operation(safemode: bool, operation: str, entity_type: EntityType) -> None:
    """Raise Falcon's refusal when ``operation`` (SUBMIT, SCHEDULE, UPDATE ...) is not allowed now."""
    if not safemode:
        if operation == "UPDATE" and entity_type is EntityType.CLUSTER:
            raise Refused(UPDATE_ONLY_CLUSTERS)
        return
    if operation == "UPDATE":
        if entity_type is EntityType.CLUSTER:
            return
        raise Refused(UPDATE_ONLY_CLUSTERS)
    if operation == "SUSPEND":
        if entity_type is EntityType.CLUSTER:
            raise Refused("Entity operation SUSPEND is not allowed on cluster entity")
        return
    raise Refused(f"Entity operation {operation} not allowed during safemode")


def check_instance_operation(safemode: bool, operation: str) -> None:
    if safemode and operation == "RESUME":
        raise Refused("Instance operation RESUME cannot be performed when server is in safemode")
