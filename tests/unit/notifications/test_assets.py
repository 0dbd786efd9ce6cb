"""The asset identity of a feed on a cluster and the extra of an instance's event."""

from __future__ import annotations

from datetime import UTC, datetime

from falcon_airflow.notifications.assets import feed_asset_id, instance_event_extra


def test_a_feed_is_named_and_identified_by_its_logical_dataset_and_located_by_its_template() -> None:
    found = feed_asset_id("clicks", "primary", "hdfs://nn:8020/data/clicks/${YEAR}/${MONTH}")
    assert (found.name, found.uri, found.location) == (
        "falcon://primary/clicks", "falcon://primary/clicks", "hdfs://nn:8020/data/clicks/${YEAR}/${MONTH}")


def test_the_identity_stays_when_the_data_moves() -> None:
    before = feed_asset_id("f", "c", "file:///old/f/${YEAR}")
    after = feed_asset_id("f", "c", "hdfs://nn/new/f/${YEAR}")
    assert (before.name, before.uri) == (after.name, after.uri) and before.location != after.location


def test_a_plain_path_becomes_a_file_uri_and_a_table_loses_its_partition_spec() -> None:
    assert feed_asset_id("f", "c", "/data/f/${YEAR}").location == "file:///data/f/${YEAR}"
    assert feed_asset_id("t", "c", "catalog:db:clicks#ds=${YEAR}${MONTH}").location == "catalog:db:clicks"


def test_two_clusters_give_two_assets() -> None:
    one = feed_asset_id("f", "a", "file:///a/f/${YEAR}")
    two = feed_asset_id("f", "b", "file:///b/f/${YEAR}")
    assert one.name != two.name and one.uri != two.uri


def test_the_extra_carries_the_instance_in_falcon_form_and_the_path() -> None:
    extra = instance_event_extra(feed="f", cluster="c", instance=datetime(2026, 3, 1, 5, tzinfo=UTC),
                                 path="file:///d/2026/03/01/05", operation="REPLICATE", entity="f",
                                 entity_type="FEED")
    assert extra == {"feed": "f", "cluster": "c", "instance": "2026-03-01T05:00Z", "operation": "REPLICATE",
                     "entity": "f", "entityType": "FEED", "path": "file:///d/2026/03/01/05"}
    assert "path" not in instance_event_extra(feed="f", cluster="c", instance=datetime(2026, 3, 1, tzinfo=UTC),
                                              path=None, operation="GENERATE", entity="p", entity_type="PROCESS")
