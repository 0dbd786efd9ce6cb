"""Which Airflow DAGs carry an entity, per Falcon lifecycle.

=============  ==========================================  ================================================
lifecycle      Falcon                                      DAG
=============  ==========================================  ================================================
EXECUTION      a process's coordinator                     ``falcon.process.<name>.<cluster>``
EVICTION       a feed's retention coordinator              ``falcon.feed.<name>.retention.<cluster>``
REPLICATION    a feed's replication coordinator            ``falcon.feed.<name>.replication.<source>.<target>``
IMPORT         a feed's import coordinator                 ``falcon.feed.<name>.import.<cluster>``
EXPORT         a feed's export coordinator                 ``falcon.feed.<name>.export.<cluster>``
=============  ==========================================  ================================================

A feed has an IMPORT or EXPORT DAG only on the clusters that declare ``<import>`` or ``<export>``.

The ids are the compiler's (:mod:`falcon_airflow.compiler.common`, :mod:`falcon_airflow.compiler.transfer`); they
are computed from the definition, so they are known before Airflow has parsed the entity. Entity names cannot
contain dots (Falcon's name pattern), so ``falcon.process.<name>.`` is an exact prefix for the DAGs an entity ever
had, including those of clusters a later update removed (for a feed, one prefix per kind of DAG).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from falcon_airflow.compiler.common import process_dag_id, replication_dag_id, retention_dag_id, sla_dag_id
from falcon_airflow.compiler.transfer import export_dag_id, import_dag_id
from falcon_airflow.entities import Entity, EntityType, Feed, Process


class Lifecycle(StrEnum):
    EXECUTION = "EXECUTION"
    EVICTION = "EVICTION"
    REPLICATION = "REPLICATION"
    IMPORT = "IMPORT"
    EXPORT = "EXPORT"

    @property
    def entity_type(self) -> EntityType:
        return EntityType.PROCESS if self is Lifecycle.EXECUTION else EntityType.FEED


DEFAULT_LIFECYCLE = {EntityType.PROCESS: Lifecycle.EXECUTION, EntityType.FEED: Lifecycle.REPLICATION}


@dataclass(frozen=True)
class DagRef:
    """One DAG of an entity: its id, lifecycle, the cluster it runs for and (replication) the source cluster."""

    dag_id: str
    lifecycle: Lifecycle
    cluster: str
    source_cluster: str | None = None
    sla_monitor: bool = False
    """The entity's SLA monitor on ``cluster``: no lifecycle of Falcon's, though suspended, resumed and deleted with
    the entity (``lifecycle`` is the one its misses are about: a feed's instances, a process's runs)."""

    @property
    def purpose(self) -> str:
        """What the DAG does, as pages and listings name it: its lifecycle, or ``SLA``."""
        return "SLA" if self.sla_monitor else self.lifecycle.value


def entity_dags(entity: Entity, lifecycles: frozenset[Lifecycle] | None = None) -> list[DagRef]:
    """The DAGs the current definition of ``entity`` compiles to, limited to ``lifecycles`` when given."""
    wanted = lifecycles if lifecycles is not None else frozenset(Lifecycle)
    found: list[DagRef] = []
    if isinstance(entity, Process) and Lifecycle.EXECUTION in wanted:
        found += [DagRef(process_dag_id(entity.name, item.name), Lifecycle.EXECUTION, item.name)
                  for item in entity.clusters]
    if isinstance(entity, Feed):
        if Lifecycle.EVICTION in wanted:
            found += [DagRef(retention_dag_id(entity.name, item.name), Lifecycle.EVICTION, item.name)
                      for item in entity.clusters]
        if Lifecycle.REPLICATION in wanted:
            found += [DagRef(replication_dag_id(entity.name, source.name, target.name), Lifecycle.REPLICATION,
                             target.name, source.name)
                      for target in entity.targets for source in entity.sources]
        if Lifecycle.IMPORT in wanted:
            found += [DagRef(import_dag_id(entity.name, item.name), Lifecycle.IMPORT, item.name)
                      for item in entity.clusters if item.import_policy is not None]
        if Lifecycle.EXPORT in wanted:
            found += [DagRef(export_dag_id(entity.name, item.name), Lifecycle.EXPORT, item.name)
                      for item in entity.clusters if item.export_policy is not None]
    if lifecycles is None:  # the whole entity (schedule, suspend, delete ...): its SLA monitors too
        found += _sla_dags(entity)
    return found


def _sla_dags(entity: Entity) -> list[DagRef]:
    if isinstance(entity, Feed):
        return [DagRef(sla_dag_id("feed", entity.name, item.name), Lifecycle.EVICTION, item.name, sla_monitor=True)
                for item in entity.clusters if entity.sla_for(item) is not None]
    if isinstance(entity, Process):
        return [DagRef(sla_dag_id("process", entity.name, item.name), Lifecycle.EXECUTION, item.name,
                       sla_monitor=True)
                for item in entity.clusters if (item.sla or entity.sla) is not None]
    return []


def dag_prefixes(entity_type: EntityType, name: str) -> list[str]:
    """Prefixes of every DAG id an entity of this type and name may have had."""
    if entity_type is EntityType.PROCESS:
        return [f"falcon.process.{name}."]
    if entity_type is EntityType.FEED:
        return [f"falcon.feed.{name}.{kind}." for kind in ("retention", "replication", "import", "export", "sla")]
    return []


def describe_dag(dag_id: str) -> DagRef | None:
    """A DagRef from a DAG id alone (for DAGs of clusters a definition no longer has)."""
    parts = dag_id.split(".")
    if len(parts) == 4 and parts[:2] == ["falcon", "process"]:
        return DagRef(dag_id, Lifecycle.EXECUTION, parts[3])
    if len(parts) == 5 and parts[:2] == ["falcon", "feed"] and parts[3] == "retention":
        return DagRef(dag_id, Lifecycle.EVICTION, parts[4])
    if len(parts) == 5 and parts[:2] == ["falcon", "feed"] and parts[3] in ("import", "export"):
        return DagRef(dag_id, Lifecycle(parts[3].upper()), parts[4])
    if len(parts) == 6 and parts[:2] == ["falcon", "feed"] and parts[3] == "replication":
        return DagRef(dag_id, Lifecycle.REPLICATION, parts[5], parts[4])
    return None
