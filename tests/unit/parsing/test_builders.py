"""Entity models built from valid XML: Falcon's defaults, typed values, and where every piece came from."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from falcon_airflow.entities import (
    Cluster,
    ClusterLocationName,
    Datasource,
    Feed,
    FeedClusterType,
    InterfaceType,
    LocationType,
    PolicyType,
    Process,
    WorkflowEngine,
)
from falcon_airflow.issues import Level
from falcon_airflow.parsing import ParsedFile, parse_bytes, parse_file
from falcon_airflow.timekeeping import Frequency, TimeUnit


def build(text: str, display: str = "entity.xml") -> ParsedFile:
    parsed = parse_bytes(text.encode("utf-8"), display)
    assert parsed.entity is not None, parsed.issues
    return parsed


def test_feed_defaults(documents: dict[str, str]) -> None:
    feed = build(documents["feed"]).entity
    assert isinstance(feed, Feed)

    assert feed.timezone == "UTC"
    assert feed.version == 0
    assert feed.acl.permission == "*"
    assert (feed.acl.owner, feed.acl.group) == ("falcon", "users")
    [cluster] = feed.clusters
    assert cluster.version == 0
    assert cluster.retention.type == "instance"
    assert cluster.retention.action == "delete"
    assert cluster.delay is None
    assert cluster.partition is None
    assert feed.notification is None
    assert feed.lifecycle is None


def test_process_defaults(documents: dict[str, str]) -> None:
    process = build(documents["process"]).entity
    assert isinstance(process, Process)

    assert process.timezone == "UTC"
    assert process.version == 0
    assert process.workflow.engine is WorkflowEngine.OOZIE
    assert process.workflow.version == "1.0"
    assert process.workflow.name is None
    assert process.workflow_name == "count-clicks-workflow"
    assert process.workflow.lib_paths == ()
    assert process.clusters[0].version == 0
    assert process.acl is None
    assert process.retry is not None
    assert process.retry.on_timeout is False
    assert process.inputs[0].optional is False
    assert process.inputs[0].partition is None


def test_acl_permission_defaults_to_star_for_every_entity_type(documents: dict[str, str]) -> None:
    process_text = documents["process"].replace("</process>", '    <ACL owner="someone"/>\n</process>')

    cluster = build(documents["cluster"]).entity
    process = build(process_text).entity

    assert isinstance(cluster, Cluster) and cluster.acl is not None
    assert isinstance(process, Process) and process.acl is not None
    assert cluster.acl.permission == "*"
    assert process.acl.permission == "*"
    assert process.acl.group is None


def test_explicit_values_override_the_defaults(documents: dict[str, str]) -> None:
    text = (documents["process"]
            .replace('<process name="count-clicks"', '<process name="count-clicks" version="4"')
            .replace("<frequency>hours(1)</frequency>", "<frequency>hours(1)</frequency>\n"
                                                        "    <timezone>Europe/Paris</timezone>")
            .replace("<workflow path=", '<workflow name="wf" version="2.1" engine="spark" lib="/a.jar, /b.jar" path=')
            .replace('attempts="3"', 'attempts="3" onTimeout="true"'))

    process = build(text).entity
    assert isinstance(process, Process)

    assert process.version == 4
    assert process.timezone == "Europe/Paris"
    assert (process.workflow.name, process.workflow.version) == ("wf", "2.1")
    assert process.workflow.engine is WorkflowEngine.SPARK
    assert process.workflow.lib_paths == ("/a.jar", "/b.jar")
    assert process.retry is not None and process.retry.on_timeout is True


def test_feed_values_are_typed(documents: dict[str, str]) -> None:
    feed = build(documents["feed"]).entity
    assert isinstance(feed, Feed)

    assert feed.frequency == Frequency(unit=TimeUnit.HOURS, count=1)
    assert feed.late_arrival is not None and str(feed.late_arrival.cut_off) == "hours(3)"
    assert feed.groups == ("clicks",)
    assert feed.tag_pairs == (("source", "web"), ("format", "csv"))
    [cluster] = feed.clusters
    assert cluster.type is FeedClusterType.SOURCE
    assert cluster.validity.start == datetime(2026, 1, 1, tzinfo=UTC)
    assert cluster.validity.end == datetime(2099, 12, 31, tzinfo=UTC)
    assert str(cluster.retention.limit) == "days(2)"
    assert feed.locations is not None
    assert [location.type for location in feed.locations] == [LocationType.DATA, LocationType.STATS]
    assert feed.data_schema.provider == "csv"


def test_cluster_and_datasource_values_are_typed(documents: dict[str, str]) -> None:
    cluster = build(documents["cluster"]).entity
    datasource = build(documents["datasource"]).entity
    assert isinstance(cluster, Cluster)
    assert isinstance(datasource, Datasource)

    assert cluster.version == 0
    assert [item.type for item in cluster.interfaces] == [InterfaceType.READONLY, InterfaceType.WRITE,
                                                          InterfaceType.SPARK]
    staging = cluster.location(ClusterLocationName.STAGING)
    assert staging is not None and staging.path == "/falcon/staging"
    assert cluster.expression_variables()["cluster.region"] == "eu"
    assert datasource.version == 0
    assert datasource.driver.jars == ("/libs/mysql-connector-java.jar",)
    credential = datasource.interfaces[0].credential
    assert credential is not None and credential.user_name == "reader"


def test_entity_remembers_its_file_and_line(tmp_path: Path, documents: dict[str, str], line_of) -> None:
    path = tmp_path / "feeds" / "raw-clicks.xml"
    path.parent.mkdir()
    text = "<!-- a comment\n     over two lines -->\n" + documents["feed"].split("\n", 1)[1]
    path.write_text(text, encoding="utf-8")

    as_given = parse_file(path)
    shown = parse_file(path, display="feeds/raw-clicks.xml")

    assert as_given.path == str(path)
    assert as_given.entity is not None and as_given.entity.source.file == str(path)
    feed = shown.entity
    assert isinstance(feed, Feed)
    assert shown.path == "feeds/raw-clicks.xml"
    assert feed.source.file == "feeds/raw-clicks.xml"
    assert feed.source.line == line_of(text, "<feed ") == 3
    cluster = feed.clusters[0]
    assert cluster.line == line_of(text, '<cluster name="primary"')
    assert cluster.validity.line == line_of(text, "<validity")
    assert cluster.retention.line == line_of(text, "<retention")
    assert feed.acl.line == line_of(text, "<ACL ")
    assert feed.data_schema.line == line_of(text, "<schema ")
    assert feed.locations is not None
    assert [location.line for location in feed.locations] == [line_of(text, '<location type="data"'),
                                                              line_of(text, '<location type="stats"')]


def test_process_elements_remember_their_lines(documents: dict[str, str], line_of) -> None:
    text = documents["process"]
    process = build(text).entity
    assert isinstance(process, Process)

    assert process.source.line == line_of(text, "<process ")
    assert process.inputs[0].line == line_of(text, "<input ")
    assert process.outputs[0].line == line_of(text, "<output ")
    assert process.workflow.line == line_of(text, "<workflow ")
    assert process.retry is not None and process.retry.line == line_of(text, "<retry ")
    assert process.retry.policy is PolicyType.PERIODIC


def test_unknown_time_zone_is_a_warning_and_keeps_the_entity(documents: dict[str, str], line_of) -> None:
    text = documents["feed"].replace("<late-arrival", "<timezone>Mars/Olympus_Mons</timezone>\n    <late-arrival")

    parsed = parse_bytes(text.encode("utf-8"), "feed.xml")

    assert isinstance(parsed.entity, Feed)
    assert parsed.entity.timezone == "Mars/Olympus_Mons"
    assert not parsed.has_errors
    [issue] = parsed.issues
    assert (issue.level, issue.rule, issue.line) == (Level.WARNING, "FA003", line_of(text, "<timezone>"))
    assert "Mars/Olympus_Mons" in issue.message
    assert (issue.file, issue.entity, issue.entity_type) == ("feed.xml", "raw-clicks", "feed")


@pytest.mark.parametrize("zone", ["UTC", "GMT", "Europe/Paris", "America/Los_Angeles", "IST", "PST"])
def test_known_time_zones_are_accepted_silently(documents: dict[str, str], zone: str) -> None:
    text = documents["process"].replace("<inputs>", f"<timezone>{zone}</timezone>\n    <inputs>")

    parsed = build(text)

    assert parsed.issues == ()
    assert isinstance(parsed.entity, Process) and parsed.entity.timezone == zone


def test_models_are_frozen(documents: dict[str, str]) -> None:
    feed = build(documents["feed"]).entity
    assert isinstance(feed, Feed)

    with pytest.raises(ValueError, match="frozen"):
        feed.name = "renamed"  # type: ignore[misc]
