"""Feed instances as Airflow assets: the assets of a DAG's inputs and outputs, and the event of an instance.

A process DAG's workflow task declares its input feeds' assets as inlets, the task that marks its outputs available
declares the output feeds' assets as outlets, and a replication's copy declares the source feed's asset as inlet and
the target's as outlet: the Assets view shows who makes and who reads every feed. When a task with outlets succeeds,
:func:`announce_instances` gives each outlet's event the instance it made (see
:mod:`falcon_airflow.notifications.assets`): the partition key, and the ``extra``.

A partitioned event triggers only DAGs with a partition-aware schedule (Airflow's rule), e.g.
``PartitionedAssetTimetable(assets=feed_asset_named("primary", "click-counts"))``, whose runs get the instance as
``partition_key``. ``[falcon] asset_partition_keys = False`` sends unpartitioned events instead, for DAGs scheduled
with ``schedule=[feed_asset_named(...)]``; the instance is in the event's ``extra`` either way. A DAG scheduled on
the asset itself (rather than on ``Asset.ref(name=...)``, which Airflow resolves at run time only) is listed among
the asset's "Scheduled Dags" on the Assets page.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from airflow.sdk import Asset

from falcon_airflow.instances.bindings import FeedBinding
from falcon_airflow.notifications.assets import feed_asset_id, instance_event_extra


def feed_asset_named(cluster: str, feed: str) -> Asset:
    """The asset of ``feed`` on ``cluster``, as Falcon's DAGs declare it: what a DAG of your own is scheduled on,
    ``schedule=PartitionedAssetTimetable(assets=feed_asset_named("primary", "click-counts"))``."""
    identity = feed_asset_id(feed, cluster)
    return Asset(name=identity.name, uri=identity.uri, group=identity.group)


def feed_asset(feed: FeedBinding) -> Asset:
    """The asset of a feed on one cluster."""
    return feed_asset_named(feed.cluster, feed.feed)


def distinct_assets(feeds: Iterable[FeedBinding]) -> list[Asset]:
    """The assets of ``feeds``, each once, in order."""
    found: dict[str, Asset] = {}
    for feed in feeds:
        asset = feed_asset(feed)
        found.setdefault(asset.name, asset)
    return list(found.values())


def partition_keys_enabled() -> bool:
    try:
        from airflow.configuration import conf

        return conf.getboolean("falcon", "asset_partition_keys", fallback=True)
    except Exception:
        return True


def announce_instances(context: Any, made: Iterable[tuple[FeedBinding, datetime, str | None]], *, operation: str,
                       entity: str, entity_type: str, log: Any = None) -> list[dict[str, str]]:
    """Describe the event of each outlet asset: ``made`` holds (feed, instance, path) of each instance made."""
    events = context.get("outlet_events")
    announced = []
    partitioned = partition_keys_enabled()
    for feed, moment, path in made:
        extra = instance_event_extra(feed=feed.feed, cluster=feed.cluster, instance=moment, path=path,
                                     operation=operation, entity=entity, entity_type=entity_type)
        if events is not None:
            accessor = events[feed_asset(feed)]
            accessor.extra = dict(extra)
            if partitioned:
                accessor.add_partitions(extra["instance"])
        if log is not None:
            log.info("feed %s instance %s is available on %s: asset event %s", feed.feed, extra["instance"],
                     feed.cluster, extra)
        announced.append(extra)
    return announced
