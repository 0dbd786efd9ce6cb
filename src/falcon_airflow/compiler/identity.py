"""Who the jobs of a DAG run as: one identity per entity, set on every job of every engine.

Falcon submitted every workflow of an entity (process, retention, replication, import, export) with Oozie's
``user.name`` set to the user who scheduled it, through Oozie's proxy-user mechanism; the entity never named a
user itself. Here the identity of an entity's jobs is, in this order:

1. the ``-doAs`` user recorded for it by the entity commands, which checked it against the proxy-user rules
   (:mod:`falcon_airflow.operate.authorization`);
2. else its ACL owner (an extension job's ``jobAclOwner``), the user Falcon's store gave every entity;
3. else the deployment's ``[falcon] default_job_user`` (the DAG builder applies it; without it such jobs run with
   the deployment's own identity, as they always did).

It becomes :attr:`~falcon_airflow.compiler.specs.DagSpecBase.run_as` and, in the same step, the ``proxy_user`` of
every Spark job of the spec (the workflow, the late-data re-run, the lifecycle jobs), so the two never differ. The
Oozie actions of a process take ``run_as`` (see :mod:`falcon_airflow.dags.oozie`). ``<spark-opts>`` and every
other place an entity could name a user are refused (rule FA035), so nothing else sets one.
"""

from __future__ import annotations

from falcon_airflow.compiler.specs import DagSpec, SparkJob
from falcon_airflow.compiler.templating import literal
from falcon_airflow.core.identity import is_user_name


def _job_as(job: SparkJob, user: str | None) -> SparkJob:
    # proxy_user is a templated field of the Spark operator: the name goes in as data
    return job.model_copy(update={"proxy_user": literal(user) if user else None})


def with_identity(spec: DagSpec, user: str | None) -> DagSpec:
    """``spec`` with ``user`` as the identity of every job (``None``: the deployment's own identity)."""
    update: dict[str, object] = {"run_as": user}
    job = getattr(spec, "job", None)  # an SLA monitor and an Oozie process have no Spark job of their own
    if job is not None:
        update["job"] = _job_as(job, user)
    late = getattr(spec, "late", None)
    if late is not None and late.rerun is not None:  # an Oozie workflow's re-run is its node tasks'
        update["late"] = late.model_copy(update={"rerun": _job_as(late.rerun, user)})
    return spec.model_copy(update=update)


def owner_identity(owner: str | None) -> str | None:
    """The ACL owner as the jobs' identity, when it names a user (FA037 reports one that does not)."""
    name = (owner or "").strip()
    return name if name and is_user_name(name) else None
