"""``entity -lookup`` (which feed owns a path or a table partition) and ``entity -updateClusterDependents``
(re-deploy what uses a cluster after the cluster changed), as Falcon had them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from falcon_airflow.core.paths import Template, join_storage
from falcon_airflow.core.tables import TableUri
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


def _table_owns(table: TableUri, given: str, zone: Any) -> tuple[bool, str | None]:
    """Whether a catalog URI (``catalog:db:table`` or ``catalog:db:table#k=v;...``) names the feed's table or one
    of its instances' partitions, and that instance's time. Hive keeps database and table names in lower case."""
    path, _, fragment = given.strip().partition("#")
    parts = path.split(":")
    if len(parts) != 3 or parts[0] != "catalog":
        return False, None
    if (parts[1].strip().lower(), parts[2].strip().lower()) != (table.database.lower(), table.table.lower()):
        return False, None
    partition = dict(spec.split("=", 1) for spec in fragment.split(";") if "=" in spec)
    partition = {key.strip(): value.strip() for key, value in partition.items()}
    if not partition:
        return True, None  # the table itself
    if any(partition.get(key) != value for key, value in table.static_partitions.items()):
        return False, None  # another feed's slice of the table
    if not table.dated_keys:
        return True, None
    if any(key not in partition for key in table.dated_keys):
        return False, None
    moment = table.dated_template().instance_time("/".join(f"{key}={partition[key]}" for key in table.dated_keys),
                                                   zone)
    if moment is None or table.resolve(moment, zone) != {key: partition.get(key, "") for key, _ in
                                                         table.partitions}:
        return False, None
    return True, format_falcon_date(moment)


def feeds_owning(workspace: Workspace, path: str) -> list[dict[str, Any]]:
    """Every (feed, cluster, location type) whose location holds ``path``; a plain path is tried as given and on
    each cluster's storage (as the runtime joins them). A catalog URI is looked up among the table feeds."""
    found = []
    for feed in workspace.feeds.values():
        for placement in feed.clusters:
            on_cluster = FeedOnCluster(feed, placement, workspace.clusters.get(placement.name))
            if on_cluster.storage is StorageKind.TABLE:
                table = on_cluster.table
                owned, moment = _table_owns(table, path, feed.zone.zone) if table is not None else (False, None)
                if owned and table is not None:
                    found.append({"feedName": feed.name, "clusterName": placement.name, "type": "TABLE",
                                  "location": f"catalog:{table.database}:{table.table}#{table.partition_spec}",
                                  "instance": moment})
                continue
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
