"""From operate outcomes to Falcon's bodies: the real actions run against the in-memory Airflow of the operate tests,
their outcomes go through the converters, and the bodies say what Falcon's server said."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from tests.builders import ops_cluster, ops_feed, ops_process
from tests.unit.operate.helpers import FakeAirflow, Kit

from falcon_airflow.operate import entity_actions, instance_actions, metadata
from falcon_airflow.operate.context import Context
from falcon_airflow.operate.options import Options
from falcon_airflow.operate.outcomes import Outcome, Refused, Status
from falcon_airflow.server.bodies import from_outcome, refusal_message, render
from falcon_airflow.server.bodies.conversion import CONVERTERS, consolidated, display_size, instance_status
from falcon_airflow.server.bodies.results import (
    APIResult,
    Edge,
    EntityDefinition,
    EntityList,
    EntitySummaryResult,
    FeedInstanceResult,
    InstanceDependencyResult,
    InstancesResult,
    InstancesSummaryResult,
    JsonDocument,
    LineageGraphResult,
    PlainText,
    PropertyList,
    ResultStatus,
    TriageResult,
)

DAG = "falcon.process.count.east"
T3 = datetime(2026, 5, 1, 3, tzinfo=UTC)
T4 = datetime(2026, 5, 1, 4, tzinfo=UTC)
WINDOW = {"start": "2026-05-01T00:00Z", "end": "2026-05-01T10:00Z"}


@pytest.fixture
def pipeline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Kit]:
    """The operate tests' pipeline: clusters east and west, feeds logs and counts, process count."""
    airflow = FakeAirflow()
    root = tmp_path / "store"
    root.mkdir()
    (tmp_path / "inbox").mkdir()
    monkeypatch.setattr(Context, "airflow", lambda self: airflow)
    monkeypatch.setenv("FALCON_AIRFLOW_WAIT", "0")
    kit = Kit(root, airflow, tmp_path / "inbox")
    kit.write("clusters/east.xml", ops_cluster("east", colo="here"))
    kit.write("clusters/west.xml", ops_cluster("west", colo="there"))
    kit.write("feeds/logs.xml", ops_feed("logs"))
    kit.write("feeds/counts.xml", ops_feed("counts", west=True))
    kit.write("processes/count.xml", ops_process("count"))
    airflow.add_dag(DAG)
    airflow.add_dag("falcon.feed.logs.retention.east", ("retention",))
    yield kit


HANDLERS = {"entity": entity_actions.handle, "instance": instance_actions.handle, "metadata": metadata.handle}


def run(kit: Kit, command: str, action: str, **values: Any) -> Outcome:
    outcome: Outcome = HANDLERS[command](kit.context(), Options(command, {f"act_{action}": True, **values}))
    return outcome


def test_entity_list_is_falcons_entity_list(pipeline: Kit) -> None:
    body = from_outcome("entity.list", run(pipeline, "entity", "list", fields="status,tags,clusters",
                                           order_by="name"))
    assert isinstance(body, EntityList)
    assert body.total_results == 5
    assert [(item.type, item.name) for item in body.entities] == [
        ("PROCESS", "count"), ("FEED", "counts"), ("CLUSTER", "east"), ("FEED", "logs"), ("CLUSTER", "west")]
    process = body.entities[0]
    assert process.status == "SUBMITTED" and process.clusters == ("east",) and process.pipelines is None
    assert body.entities[2].clusters == ()  # asked for and empty: an empty wrapper, as Falcon wrote it
    content, media_type = render(body, "xml")
    assert media_type == "text/xml"
    assert b"<entity><type>PROCESS</type><name>count</name><status>SUBMITTED</status><tags/>" in content
    empty = from_outcome("entity.list", run(pipeline, "entity", "list", type="datasource"))
    assert render(empty, "xml")[0].endswith(b"<entities><totalResults>0</totalResults></entities>")


def test_entity_dependencies_keep_falcons_lower_case_types_and_tags(pipeline: Kit) -> None:
    body = from_outcome("entity.dependency", run(pipeline, "entity", "dependency", type="process", name="count"))
    assert isinstance(body, EntityList)
    by_name = {item.name: item for item in body.entities}
    assert by_name["logs"].type == "feed" and by_name["logs"].tags == ("Input",)
    assert by_name["counts"].tags == ("Output",)
    assert by_name["east"].type == "cluster" and by_name["east"].tags == ()
    assert body.total_results == len(body.entities)


def test_entity_status_and_definition(pipeline: Kit) -> None:
    status = from_outcome("entity.status", run(pipeline, "entity", "status", type="process", name="count"),
                          request_id="r-1")
    assert status == APIResult(ResultStatus.SUCCEEDED, "default/SUBMITTED\n", "default/r-1\n")
    definition = from_outcome("entity.definition", run(pipeline, "entity", "definition", type="feed",
                                                       name="logs"))
    assert isinstance(definition, EntityDefinition)
    assert definition.xml == (pipeline.root / "feeds/logs.xml").read_text()
    assert render(definition, "xml") == (definition.xml.encode(), "text/xml")


def test_entity_summary_answers_with_falcons_words(pipeline: Kit) -> None:
    done = pipeline.airflow.add_run(DAG, T3, state="success")
    pipeline.airflow.set_tis(done, wait_for_input="success", clear_outputs="success", workflow="success",
                             mark_outputs_available="success")
    outcome = run(pipeline, "entity", "summary", type="process", cluster="east", start="2026-05-01T00:00Z",
                  end="2026-05-01T10:00Z", fields="tags")
    body = from_outcome("entity.summary", outcome, request_id="r-2")
    assert isinstance(body, EntitySummaryResult)
    assert (body.message, body.request_id) == ("Entity Summary Result", "r-2")  # not merged
    (summary,) = body.summaries
    assert (summary.name, summary.type, summary.status) == ("count", "PROCESS", "SUBMITTED")
    assert [(row.instance, row.status, row.cluster) for row in summary.instances] == [
        ("2026-05-01T03:00Z", "SUCCEEDED", "east")]


def test_instance_status_is_an_instances_result(pipeline: Kit) -> None:
    done = pipeline.airflow.add_run(DAG, T3, state="success")
    pipeline.airflow.set_tis(done, wait_for_input="success", clear_outputs="success", workflow="success",
                             mark_outputs_available="success")
    pipeline.airflow.add_run(DAG, T4)
    outcome = run(pipeline, "instance", "status", type="process", name="count", **WINDOW)
    body = from_outcome("instance.status", outcome, request_id="r-3")
    assert isinstance(body, InstancesResult)
    assert (body.status, body.message, body.request_id) == (ResultStatus.SUCCEEDED, "default/STATUS\n",
                                                            "default/r-3\n")
    assert [(item.instance, item.status, item.cluster) for item in body.instances] == [
        ("2026-05-01T03:00Z", "SUCCEEDED", "east"), ("2026-05-01T04:00Z", "WAITING", "east")]
    first = body.instances[0]
    assert first.log_file == f"http://airflow.test/dags/{DAG}/runs/{done.run_id}"
    assert [action.action for action in first.actions] == ["wait_for_input", "clear_outputs", "workflow",
                                                          "mark_outputs_available"]
    document = json.loads(render(body, "json")[0])
    assert document["instances"][0]["runId"] == first.run_id
    assert document["message"] == "default/STATUS\n"


def test_instance_kill_and_summary(pipeline: Kit) -> None:
    running = pipeline.airflow.add_run(DAG, T4, state="running")
    pipeline.airflow.set_tis(running, wait_for_input="success", clear_outputs="success", workflow="running")
    killed = from_outcome("instance.kill", run(pipeline, "instance", "kill", type="process", name="count",
                                               **WINDOW))
    assert isinstance(killed, InstancesResult)
    assert killed.message == "default/KILL\n"
    assert [(item.instance, item.status) for item in killed.instances] == [("2026-05-01T04:00Z", "KILLED")]
    summary = from_outcome("instance.summary", run(pipeline, "instance", "summary", type="process", name="count",
                                                   **WINDOW))
    assert isinstance(summary, InstancesSummaryResult)
    assert summary.message == "default/SUMMARY\n"
    assert [(item.cluster, item.counts) for item in summary.summaries] == [("east", (("KILLED", 1),))]


def test_metadata_list_and_lineage(pipeline: Kit) -> None:
    listed = from_outcome("metadata.list", run(pipeline, "metadata", "list", type="FEED_ENTITY"))
    assert listed == JsonDocument({"results": ["counts", "logs"], "totalSize": 2})
    relations = from_outcome("metadata.relations", run(pipeline, "metadata", "relations", type="PROCESS_ENTITY",
                                                       name="count"))
    assert isinstance(relations, JsonDocument)
    members: dict[str, Any] = dict(relations.members)
    assert (members["name"], members["type"]) == ("count", "PROCESS_ENTITY")
    assert {"name": "logs", "type": "FEED_ENTITY", "label": "input"} in members["inVertices"]
    assert list(members)[-2:] == ["inVertices", "outVertices"]


def test_the_lineage_graph_joins_processes_through_feeds() -> None:
    outcome = Outcome(Status.SUCCEEDED, "lineage of pipeline daily", {
        "nodes": [{"id": "process:count", "type": "process", "name": "count"},
                  {"id": "process:report", "type": "process", "name": "report"},
                  {"id": "feed:counts", "type": "feed", "name": "counts"},
                  {"id": "feed:logs", "type": "feed", "name": "logs"}],
        "edges": [{"from": "feed:logs", "to": "process:count", "label": "input"},
                  {"from": "process:count", "to": "feed:counts", "label": "output"},
                  {"from": "feed:counts", "to": "process:report", "label": "input"}]})
    body = from_outcome("metadata.lineage", outcome)
    assert body == LineageGraphResult(("count", "report"), (Edge("count", "report", "counts"),))


def test_messages_are_merged_as_falcons_colo_proxies_merged_them() -> None:
    def answer(action: str, message: str, **context: Any) -> APIResult:
        body = from_outcome(action, Outcome(Status.SUCCEEDED, message), request_id="r", **context)
        assert isinstance(body, APIResult)
        return body

    assert answer("entity.submit", "Submit successful (feed) logs").message == (
        "falcon/default/Submit successful (feed) logs\n\n")
    assert answer("entity.delete", "logs(feed) removed successfully").request_id == "falcon/default/r\n\n"
    assert answer("entity.update", "Updated successfully").message == "falcon/update/default/Updated successfully\n\n"
    assert answer("entity.suspend", "count(process) suspended successfully").message == (
        "default/count(process) suspended successfully\n")
    both = answer("entity.submitAndSchedule", "count(process) scheduled successfully", entity_type="process",
                  name="count")
    assert both.message == ("schedule/default/count(process) scheduled successfully\n\n"
                            "submit/falcon/default/Submit successful (process) count\n\n\n")
    assert both.request_id == "schedule/default/r\n\nsubmit/falcon/default/r\n\n\n"
    assert answer("entity.submitAndSchedule", "count(process) scheduled successfully").message == (
        "default/count(process) scheduled successfully\n")
    assert answer("extension.schedule", "extension job m scheduled").message == "extension job m scheduled"
    warned = Outcome(Status.SUCCEEDED, "Submit successful (feed) logs", warnings=["FA055: coarse folder"])
    assert from_outcome("entity.submit", warned).message == (  # type: ignore[union-attr]
        "falcon/default/Submit successful (feed) logs\nFA055: coarse folder\n\n")
    assert consolidated("m") == "m"


def test_a_refusal_is_merged_once_under_the_colo_when_a_proxy_carried_it() -> None:
    refused = Refused("logs (feed) not found", details=("line 3: bad",))
    assert refusal_message("entity.suspend", refused) == "default/logs (feed) not found\nline 3: bad\n"
    assert refusal_message("entity.submit", refused) == "default/logs (feed) not found\nline 3: bad\n"
    assert refusal_message("entity.list", refused) == "logs (feed) not found\nline 3: bad"


def test_statuses_falcon_09_did_not_have() -> None:
    assert instance_status("TIMEDOUT") == "FAILED"
    assert instance_status("KILLED_OR_IGNORED") == "KILLED"
    assert instance_status("WAITING") == "WAITING"
    assert instance_status(None) is None
    body = from_outcome("instance.running", Outcome(Status.SUCCEEDED, "running", {"instances": [
        {"instance": "2026-05-01T04:00Z", "status": "TIMEDOUT", "cluster": "east", "runId": 2,
         "startTime": "2026-05-01T04:01Z", "endTime": None, "actions": []}]}))
    assert isinstance(body, InstancesResult)
    assert body.message == "default/Running Instances\n"
    (item,) = body.instances
    assert (item.status, item.run_id, item.start_time) == ("FAILED", 2, datetime(2026, 5, 1, 4, 1, tzinfo=UTC))


def test_search_names_each_instance_by_its_entity() -> None:
    body = from_outcome("instance.search", Outcome(Status.SUCCEEDED, "1 instance(s) matched", {"instances": [
        {"entityType": "process", "entityName": "count", "instance": "2026-05-01T04:00Z", "status": "RUNNING",
         "cluster": "east"}]}))
    assert isinstance(body, InstancesResult)
    assert body.message == "Instances Search Results"
    assert body.instances[0].instance == "count/2026-05-01T04:00Z"


def test_listing_dependencies_triage_and_params() -> None:
    listing = from_outcome("instance.listing", Outcome(Status.SUCCEEDED, "listing", {"instances": [
        {"instance": "2026-05-01T04:00Z", "cluster": "east", "uri": "file:///x/04", "status": "AVAILABLE",
         "size": 3 * 1024 * 1024 + 5, "creationTime": "2026-05-01T04:10Z"},
        {"cluster": "east", "status": "UNKNOWN", "details": "table feeds are listed by their partitions"}]}))
    assert isinstance(listing, FeedInstanceResult)
    first, second = listing.instances
    assert (first.size, first.size_h, first.creation_time) == (
        3 * 1024 * 1024 + 5, "3 MB", int(datetime(2026, 5, 1, 4, 10, tzinfo=UTC).timestamp() * 1000))
    assert (second.size, second.size_h, second.instance) == (-1, None, None)
    dependencies = from_outcome("instance.dependency", Outcome(Status.SUCCEEDED, "Success!", {"dependencies": [
        {"entityName": "logs", "entityType": "feed", "cluster": "east", "instanceTime": "2026-05-01T04:00Z",
         "tags": "Input"}]}))
    assert isinstance(dependencies, InstanceDependencyResult)
    assert dependencies.dependencies[0].entity_type == "FEED"
    triage = from_outcome("instance.triage", Outcome(Status.SUCCEEDED, "triage", {"triageGraphs": [
        {"vertices": ["PROCESS/count@east/2026-05-01T04:00Z[WAITING]"], "edges": []}]}))
    assert isinstance(triage, TriageResult) and triage.graphs[0].vertices[0].endswith("[WAITING]")
    params = from_outcome("instance.params", Outcome(Status.SUCCEEDED, "parameters", {"instances": [
        {"instance": "2026-05-01T04:00Z", "cluster": "east", "status": "SUCCEEDED", "params": {
            "nominalTime": "2026-05-01T04:00Z", "conf": {"a": 1, "b": None}, "renderedFields": {"workflow": {
                "application_args": ["--x", "1"]}}}}]}))
    assert isinstance(params, InstancesResult)
    assert [(pair.key, pair.value) for pair in params.instances[0].wf_params] == [
        ("nominalTime", "2026-05-01T04:00Z"), ("conf.a", "1"), ("conf.b", None),
        ("renderedFields.workflow.application_args", '["--x", "1"]')]


def test_admin_and_extension_bodies() -> None:
    version = from_outcome("admin.version", Outcome(Status.SUCCEEDED, "v", {"properties": {
        "falcon-airflow": "0.1.0", "airflow": "3.3.2", "airflow-git": None}}), authentication="simple")
    assert version == PropertyList((("Version", "0.1.0"), ("Mode", "embedded"), ("Airflow", "3.3.2"),
                                    ("authentication", "simple")))
    assert from_outcome("admin.stack", Outcome(Status.SUCCEEDED, "m", text="Components:")) == PlainText("Components:")
    assert from_outcome("admin.setsafemode", Outcome(Status.SUCCEEDED, "m", {"safemode": True})) == PlainText("true")
    extensions = from_outcome("extension.enumerate", Outcome(Status.SUCCEEDED, "extensions", {"extensions": [
        {"name": "hdfs-mirroring", "description": "copies folders"}]}))
    assert render(extensions, "json")[0] == (
        b'{"extensions":[{"name":"hdfs-mirroring","type":"Trusted extension","description":"copies folders"}],'
        b'"totalResults":1}')
    jobs = from_outcome("extension.list", Outcome(Status.SUCCEEDED, "1", {"jobs": [{"jobName": "m1"}]}))
    assert render(jobs, "xml")[0].endswith(b"<job><jobName>m1</jobName><jobEntities><totalResults>0</totalResults>"
                                           b"</jobEntities></job></jobs></extensionJobList>")
    instances = from_outcome("extension.instances", Outcome(Status.SUCCEEDED, "i", {"instances": [
        {"instance": "2026-05-01T04:00Z", "status": "RUNNING", "cluster": "east"}]}), job_name="m1",
        extension_name="hdfs-mirroring")
    assert b'"entityProfile":{"type":"hdfs-mirroring","name":"m1"}' in render(instances, "json")[0]


def test_every_converter_is_reachable_and_unknown_calls_are_refused() -> None:
    assert {key.split(".")[0] for key in CONVERTERS} == {"entity", "instance", "admin", "metadata", "extension"}
    with pytest.raises(KeyError, match="no Falcon body"):
        from_outcome("entity.nothing", Outcome(Status.SUCCEEDED, "m"))
    assert display_size(0) == "0 bytes" and display_size(1023) == "1023 bytes" and display_size(1 << 40) == "1 TB"
