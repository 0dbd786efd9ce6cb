"""The asset identity of a feed on a cluster and the extra of an instance's event."""

from __future__ import annotations

from datetime import UTC, datetime

from falcon_airflow.notifications.assets import feed_asset_id, instance_event_extra


def test_a_feed_is_named_and_identified_by_its_logical_dataset_in_the_falcon_feed_group() -> None:
    found = feed_asset_id("clicks", "primary")
    assert (found.name, found.uri, found.group) == ("falcon://primary/clicks", "falcon://primary/clicks",
                                                    "falcon-feed")


def test_two_clusters_give_two_assets() -> None:
    one, two = feed_asset_id("f", "a"), feed_asset_id("f", "b")
    assert one.name != two.name and one.uri != two.uri


def test_the_extra_carries_the_instance_in_falcon_form_and_the_path() -> None:
    extra = instance_event_extra(feed="f", cluster="c", instance=datetime(2026, 3, 1, 5, tzinfo=UTC),
                                 path="file:///d/2026/03/01/05", operation="REPLICATE", entity="f",
                                 entity_type="FEED")
    assert extra == {"feed": "f", "cluster": "c", "instance": "2026-03-01T05:00Z", "operation": "REPLICATE",
                     "entity": "f", "entityType": "FEED", "path": "file:///d/2026/03/01/05"}
    assert "path" not in instance_event_extra(feed="f", cluster="c", instance=datetime(2026, 3, 1, tzinfo=UTC),
                                              path=None, operation="GENERATE", entity="p", entity_type="PROCESS")
