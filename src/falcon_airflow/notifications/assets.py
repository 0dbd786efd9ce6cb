"""What an Airflow asset of a feed is called and what its events carry (no Airflow import).

One asset per feed and cluster, named and located by the feed's logical dataset as lineage names it
(``falcon://C/F``, see :func:`falcon_airflow.core.naming.feed_dataset`): Airflow keeps names and URIs unique among
active assets and makes a task fail whose inlet or outlet is an inactive asset, so the identity must not move when
the data does (a new storage endpoint, a changed location template). The data location template (storage base
joined, e.g. ``file:///srv/data/clicks/${YEAR}/${MONTH}``; a table feed's ``catalog:db:table``) is the asset's
``extra["location"]``.

An event is one instance becoming available: its partition key is the instance time as Falcon writes it
(``2026-03-01T05:00Z``), and its ``extra`` repeats it beside the path, feed, cluster and what made it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from falcon_airflow.core.naming import feed_dataset
from falcon_airflow.timekeeping import format_falcon_date


@dataclass(frozen=True)
class FeedAssetId:
    name: str
    uri: str
    location: str


def feed_asset_id(feed: str, cluster: str, location: str) -> FeedAssetId:
    """The asset of ``feed`` on ``cluster`` whose data location template (storage base joined) is ``location``."""
    where = location.strip()
    if where.startswith("catalog:"):
        where = where.partition("#")[0]  # the partition spec is per instance; the table is the data set
    elif "://" not in where and where.startswith("/"):
        where = f"file://{where}"
    identity = feed_dataset(cluster, feed).uri
    return FeedAssetId(name=identity, uri=identity, location=where)


def instance_event_extra(*, feed: str, cluster: str, instance: datetime, path: str | None,
                         operation: str, entity: str, entity_type: str) -> dict[str, str]:
    """The ``extra`` of the asset event of one feed instance that became available.

    ``operation`` is Falcon's (``GENERATE`` for a process output, ``REPLICATE`` for a replica); ``entity`` and
    ``entity_type`` the entity whose run made it (the process, or the feed for a replication)."""
    extra = {"feed": feed, "cluster": cluster, "instance": format_falcon_date(instance),
             "operation": operation, "entity": entity, "entityType": entity_type}
    if path:
        extra["path"] = path
    return extra
