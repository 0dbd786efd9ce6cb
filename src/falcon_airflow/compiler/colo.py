"""Which DAGs a deployment runs when it is one colo of a distributed (Prism) deployment.

In Falcon's distributed mode every colo's server held the whole definition of a feed or process, but each
scheduled only the parts for the clusters of its own colo: a feed's retention on a cluster runs in that cluster's
colo, a replication into a target cluster runs in the target's colo (it pulls from the source), a process instance
runs in its cluster's colo. Here each colo is its own Airflow deployment, given its colo by ``[falcon] colo``; with
none, one deployment runs every colo's DAGs (the embedded mode).

The choice is made on the compiled specs, never on the definitions, so validation stays whole-workspace and the
compile memo (whose outcomes do not depend on the colo) stays valid when a deployment's colo changes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from falcon_airflow.compiler.specs import DagSpec, ReplicationDagSpec
from falcon_airflow.entities import Cluster


def spec_cluster(spec: DagSpec) -> str:
    """The cluster whose colo runs the DAG: a replication's target (it pulls from its source), else the DAG's
    cluster (an extension job's ``jobClusterName``)."""
    if isinstance(spec, ReplicationDagSpec):
        return spec.target_cluster
    return spec.cluster


def in_colo(cluster: str, clusters: Mapping[str, Cluster], colo: str | None) -> bool:
    """Whether a DAG for ``cluster`` runs in ``colo``; every DAG does when the deployment has no colo. A cluster
    without a definition runs nowhere in particular, so no colo claims it."""
    if not colo:
        return True
    known = clusters.get(cluster)
    return known is not None and known.colo == colo


def select_colo(specs: Iterable[DagSpec], clusters: Mapping[str, Cluster], colo: str | None) -> list[DagSpec]:
    """The specs this colo's deployment builds."""
    return [spec for spec in specs if in_colo(spec_cluster(spec), clusters, colo)]


def normalized_colo(configured: str | None) -> str | None:
    """``[falcon] colo`` as the selection reads it: blank means no colo."""
    return (configured or "").strip() or None
