"""``entity -lookup`` (which feed owns a path) and ``entity -updateClusterDependents`` (re-deploy what uses a
cluster after the cluster changed), as Falcon had them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from falcon_airflow.core.paths import Template, join_storage
from falcon_airflow.entities import EntityType, StorageKind
from falcon_airflow.instances.feeds import FeedOnCluster
from falcon_airflow.operate import options as rules
from falcon_airflow.operate.context import Context
from falcon_airflow.operate.lifecycles import entity_dags
from falcon_airflow.operate.options import Options
from falcon_airflow.operate.outcomes import Outcome, Refused, succeeded
from falcon_airflow.timekeeping import format_falcon_date
from falcon_airflow.workspace import Workspace


def _owns(template: str, path: str, zone: Any) -> tuple[bool, str | None]:
    """Whether ``path`` is (inside) an instance of the location template, and that instance's time."""
    located = Template(template)
    if not located.is_dated:
        base = template.rstrip("/")
        return path == base or path.startswith(base + "/"), None
    moment = located.instance_time(path, zone)
    if moment is None:
        return False, None
    resolved = located.resolve(moment, zone).rstrip("/")
    if path.rstrip("/") == resolved or path.startswith(resolved + "/"):
        return True, format_falcon_date(moment)
    return False, None


def feeds_owning(workspace: Workspace, path: str) -> list[dict[str, Any]]:
    """Every (feed, cluster, location type) whose location holds ``path``; a plain path is tried as given and on
    each cluster's storage (as the runtime joins them)."""
    found = []
    for feed in workspace.feeds.values():
        for placement in feed.clusters:
            on_cluster = FeedOnCluster(feed, placement, workspace.clusters.get(placement.name))
            if on_cluster.storage is not StorageKind.FILESYSTEM:
                continue
            base = on_cluster.storage_base
            candidates = dict.fromkeys([path, join_storage(base, path)])
            if "://" not in path and base is not None and base.startswith("file:"):
                candidates[f"file://{path}"] = None  # a local path of the cluster's local storage
            for location in feed.locations_for(placement):
                templates = dict.fromkeys([location.path, join_storage(base, location.path)])
                for template in templates:
                    hit = next(((owned, moment) for candidate in candidates
                                for owned, moment in [_owns(template, candidate, feed.zone.zone)] if owned), None)
                    if hit is not None:
                        found.append({"feedName": feed.name, "clusterName": placement.name,
                                      "type": location.type.value.upper(), "location": location.path,
                                      "instance": hit[1]})
                        break
    return found


def lookup(context: Context, options: Options) -> Outcome:
    given = options.required("type", "type")
    if rules.entity_type(given) is not EntityType.FEED:
        raise Refused(f"lookup is only supported for feeds, not {given}", usage=True)
    path = options.required("path", "path").strip()
    found = feeds_owning(context.store.workspace(), path)
    if not found:
        return succeeded(f"No feed has a location that holds {path}", elements=[])
    lines = [f"{item['feedName']}  cluster {item['clusterName']}  {item['type']}  "
             f"{'instance ' + item['instance'] if item['instance'] else 'not dated'}  ({item['location']})"
             for item in found]
    return succeeded(f"{len(found)} feed location(s) hold {path}", text="\n".join(lines), elements=found)


def update_cluster_dependents(context: Context, options: Options,
                              reparse: Callable[[Context], str | None]) -> Outcome:
    """Falcon re-deployed the entities of a cluster after the cluster was updated; here their DAGs are re-parsed
    (the cluster's endpoints and locations are compiled into them)."""
    cluster = options.required("cluster", "cluster")
    workspace = context.store.workspace()
    if cluster not in workspace.clusters:
        raise Refused(f"{cluster} (cluster) not found")
    # allowed in safemode: Falcon's cluster update is done in safemode, then its dependents are updated
    chosen = [entity for entity in workspace.entities()
              if (EntityType.CLUSTER, cluster) in workspace.dependencies(entity)]
    note = reparse(context)
    updated = [{"type": entity.entity_type.value, "name": entity.name,
                "dags": [ref.dag_id for ref in entity_dags(entity)]} for entity in chosen]
    lines = [f"({item['type']}) {item['name']}: {', '.join(item['dags']) or '(no DAG)'}" for item in updated]
    outcome = succeeded(f"Updated {len(updated)} dependent(s) of cluster {cluster}",
                        text="\n".join([f"Updated {len(updated)} dependent(s) of cluster {cluster}", *lines]),
                        entities=updated)
    if note:
        outcome.warnings.append(note)
    return outcome
