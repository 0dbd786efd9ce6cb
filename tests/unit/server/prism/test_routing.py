from __future__ import annotations

import pytest

from falcon_airflow.server.prism.routing import (
    DefinitionUnreadable,
    UnknownCluster,
    applicable_colos,
    read_definition,
)

CLUSTER = b'<cluster xmlns="uri:falcon:cluster:0.1" name="primary" colo="east"><interfaces/></cluster>'
FEED = b"""<feed xmlns="uri:falcon:feed:0.1" name="clicks"><frequency>hours(1)</frequency>
  <clusters><cluster name="primary" type="source"/><cluster name="backup" type="target"/></clusters></feed>"""
COLOS = {"primary": "east", "backup": "west", "spare": "east"}


def test_a_cluster_is_read_with_its_colo() -> None:
    definition = read_definition("cluster", CLUSTER)
    assert (definition.name, definition.colo, definition.clusters) == ("primary", "east", ("primary",))


def test_a_feed_names_its_clusters() -> None:
    assert read_definition("feed", FEED).clusters == ("primary", "backup")


@pytest.mark.parametrize(("kind", "content", "problem"), [
    ("feed", b"<feed", "not well-formed"),
    ("feed", b'<feed xmlns="uri:falcon:feed:0.1"/>', "has no name"),
    ("process", FEED, "is a <feed>, not a process"),
])
def test_a_definition_that_cannot_be_routed_says_why(kind: str, content: bytes, problem: str) -> None:
    with pytest.raises(DefinitionUnreadable, match=problem):
        read_definition(kind, content)


def test_clusters_and_datasources_go_to_every_colo() -> None:
    for kind, content in (("cluster", CLUSTER), ("datasource", b'<datasource name="d"/>')):
        definition = read_definition(kind, content)
        assert applicable_colos(definition, kind, ("east", "west", "north"), COLOS.get) == ("east", "west", "north")


def test_a_feed_goes_to_the_colos_of_its_clusters_in_the_prisms_order() -> None:
    feed = read_definition("feed", FEED)
    assert applicable_colos(feed, "feed", ("west", "north", "east"), COLOS.get) == ("west", "east")
    only_east = read_definition("feed", FEED.replace(b"backup", b"spare"))
    assert applicable_colos(only_east, "feed", ("west", "east"), COLOS.get) == ("east",)


def test_an_entity_the_prism_has_no_record_of_goes_everywhere() -> None:
    assert applicable_colos(None, "process", ("east", "west"), COLOS.get) == ("east", "west")


def test_a_cluster_the_prism_does_not_know_is_refused() -> None:
    feed = read_definition("feed", FEED.replace(b"backup", b"elsewhere"))
    with pytest.raises(UnknownCluster, match="names cluster elsewhere, which the Prism does not know"):
        applicable_colos(feed, "feed", ("east", "west"), COLOS.get)
