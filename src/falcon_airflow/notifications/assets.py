"""What an Airflow asset of a feed is called and what its events carry (no Airflow import).

One asset per feed and cluster, named and located by the feed's logical dataset as lineage names it
(``falcon://C/F``, see :func:`falcon_airflow.core.naming.feed_dataset`), in the group ``falcon-feed``, and nothing
else: Airflow keeps names and URIs unique among active assets and makes a task fail whose inlet or outlet is an
inactive asset, so the identity must not move when the data does (a new storage endpoint, a changed location
template); and every DAG file that declares an asset rewrites its group and ``extra``, so a DAG of a user's own
that is scheduled on the feed (:func:`falcon_airflow.provider.assets.feed_asset_named`) declares the very same
asset from the two names alone. Where an instance is, is in its event (``extra["path"]``).

An event is one instance becoming available: its partition key is the instance time as Falcon writes it
(``2026-03-01T05:00Z``), and its ``extra`` repeats it beside the path, feed, cluster and what made it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from falcon_airflow.core.naming import feed_dataset
from falcon_airflow.timekeeping import format_falcon_date

FEED_ASSET_GROUP = "falcon-feed"


@dataclass(frozen=True)
class FeedAssetId:
    name: str
    uri: str
    group: str = FEED_ASSET_GROUP


def feed_asset_id(feed: str, cluster: str) -> FeedAssetId:
    """The asset of ``feed`` on ``cluster``."""
    identity = feed_dataset(cluster, feed).uri
    return FeedAssetId(name=identity, uri=identity)


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
