"""Tags of every entity type are applied: entity -list chooses by them (-tags, -filterBy TAGS:), as
Falcon's listing did (the coverage table, falcon_airflow.validation.coverage, points here)."""

from __future__ import annotations

from tests.builders import ops_cluster, ops_datasource, ops_feed

from .helpers import Kit


def test_list_chooses_clusters_datasources_feeds_and_processes_by_their_tags(pipeline: Kit) -> None:
    pipeline.write("clusters/east.xml", ops_cluster("east", colo="here").replace(
        "<interfaces>", "<tags>owner=ops, tier=gold</tags>\n  <interfaces>", 1))
    pipeline.write("datasources/shop.xml", ops_datasource("shop").replace(
        '<interfaces>', "<tags>owner=ops, tier=silver</tags>\n  <interfaces>", 1))
    pipeline.write("feeds/logs.xml", ops_feed("logs").replace(
        "<availabilityFlag>", "<tags>owner=ops</tags>\n  <availabilityFlag>", 1))
    code, document = pipeline.json("entity", "-list", "-tags", "owner=ops")
    assert code == 0
    assert [(item["type"], item["name"]) for item in document["entity"]] == [
        ("cluster", "east"), ("datasource", "shop"), ("feed", "logs")]
    code, document = pipeline.json("entity", "-list", "-filterBy", "TAGS:tier=gold")
    assert [(item["type"], item["name"]) for item in document["entity"]] == [("cluster", "east")]
