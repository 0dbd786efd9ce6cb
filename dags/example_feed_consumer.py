"""A DAG of your own that runs on a Falcon feed: one run per instance of ``click-counts`` on cluster ``primary``.

Falcon's DAGs record an asset event for every feed instance they make available, with the instance time as the
event's partition key (docs/notifications.md); a partition-aware schedule on the feed's asset runs once per
instance, and the run's ``partition_key`` says which one.
"""

from __future__ import annotations

from typing import Any

from airflow.sdk import DAG, PartitionedAssetTimetable, task

from falcon_airflow.provider.assets import feed_asset_named

# The asset itself, as Falcon's DAGs declare it (not Asset.ref): the Assets page lists this DAG under the feed.
CLICK_COUNTS = feed_asset_named("primary", "click-counts")

with DAG("example.click-counts-consumer", schedule=PartitionedAssetTimetable(assets=CLICK_COUNTS),
         tags=["example"], doc_md=__doc__):

    @task
    def report(dag_run: Any = None, triggering_asset_events: Any = None) -> dict[str, Any]:
        """What a consumer gets: the instance and where it is."""
        events = [event for asset_events in (triggering_asset_events or {}).values() for event in asset_events]
        paths = sorted({str((event.extra or {}).get("path")) for event in events})
        print(f"click-counts instance {dag_run.partition_key}: {', '.join(paths)}")
        return {"instance": dag_run.partition_key, "paths": paths}

    report()
