"""What the entity commands recorded beside the XML, applied to compiled specs.

The XML says what an entity is; two facts about how it runs live in the config store instead, because Falcon kept
them outside the definition too: the ``-doAs`` user its jobs run as (Spark's ``--proxy-user``) and whether it was
scheduled (a new DAG of a RUNNING entity starts unpaused, of a SUSPENDED one paused). The loader reads them from
the store; the compiler stays pure and only receives them as values.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from falcon_airflow.compiler.specs import DagSpec, ProcessDagSpec, SparkJob

EntityKey = tuple[str, str]
"""(entity type, name), e.g. ``("process", "count-clicks")``."""


@dataclass(frozen=True)
class StoreState:
    proxy_users: Mapping[EntityKey, str] = field(default_factory=dict)
    """The ``-doAs`` user recorded per entity."""
    schedule_states: Mapping[EntityKey, str] = field(default_factory=dict)
    """``RUNNING`` or ``SUSPENDED`` per entity that was scheduled; absent while it is only submitted."""


def _with_proxy_user(job: SparkJob, user: str | None) -> SparkJob:
    # A --proxy-user written in the entity's own spark-opts is the more specific choice and wins.
    if user is None or job.proxy_user is not None:
        return job
    return job.model_copy(update={"proxy_user": user})


def apply_store_state(spec: DagSpec, state: StoreState) -> DagSpec:
    """The spec with the entity's recorded proxy user on every Spark job and its paused-at-creation flag."""
    key = (spec.source.type, spec.source.name)
    user = state.proxy_users.get(key)
    schedule_state = state.schedule_states.get(key)
    update: dict[str, object] = {"job": _with_proxy_user(spec.job, user)}
    if isinstance(spec, ProcessDagSpec) and spec.late is not None:
        update["late"] = spec.late.model_copy(update={"rerun": _with_proxy_user(spec.late.rerun, user)})
    if schedule_state == "RUNNING":
        update["paused_upon_creation"] = False
    elif schedule_state == "SUSPENDED":
        update["paused_upon_creation"] = True
    return spec.model_copy(update=update)
