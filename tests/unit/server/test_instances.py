"""Falcon's instance resource on the server (``api/instance/...``): each route runs its declared action for the
authenticated caller against the server's store and Airflow, answers with Falcon's result types in JSON (the only
type Falcon's instance resource produced), reads a changing call's properties body as Falcon's client sends it,
and refuses, denies and audits as Falcon's server did."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

import pytest
from tests.builders import ops_datasource, ops_transfer_feed

from .served import JSON, XML, Served, denied, refused, serve

DAG = "falcon.process.count.east"
T3 = datetime(2026, 5, 1, 3, tzinfo=UTC)
T4 = datetime(2026, 5, 1, 4, tzinfo=UTC)
T5 = datetime(2026, 5, 1, 5, tzinfo=UTC)
WINDOW = {"start": "2026-05-01T00:00Z", "end": "2026-05-01T10:00Z", "colo": "*"}
REQUEST_ID = re.compile(r"default/[0-9a-f]{32}\n")


@pytest.fixture
def served(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Served:
    served = serve(tmp_path, monkeypatch)
    done = served.airflow.add_run(DAG, T3, state="success")
    served.airflow.set_tis(done, wait_for_input="success", clear_outputs="success", workflow="success",
                           mark_outputs_available="success")
    running = served.airflow.add_run(DAG, T4, state="running")
    served.airflow.set_tis(running, wait_for_input="success", clear_outputs="success", workflow="running")
    served.airflow.add_run(DAG, T5)
    return served


def test_status_answers_an_instances_result(served: Served) -> None:
    answer = served.call("GET", "/api/instance/status/process/count", params=WINDOW)
    assert answer.status_code == 200 and answer.headers["content-type"].startswith(JSON)
    body = answer.json()
    assert (body["status"], body["message"]) == ("SUCCEEDED", "default/STATUS\n")
    assert REQUEST_ID.fullmatch(body["requestId"])
    rows = [(item["instance"], item["status"], item["cluster"], item["runId"]) for item in body["instances"]]
    assert rows == [("2026-05-01T03:00Z", "SUCCEEDED", "east", 0), ("2026-05-01T04:00Z", "RUNNING", "east", 0),
                    ("2026-05-01T05:00Z", "WAITING", "east", 0)]
    first = body["instances"][0]
    assert first["logFile"].startswith(f"http://airflow.test/dags/{DAG}/runs/")
    assert [(item["action"], item["status"]) for item in first["actions"]][:3] == [
        ("wait_for_input", "SUCCESS"), ("clear_outputs", "SUCCESS"), ("workflow", "SUCCESS")]
    # the 0.10 client's list, and Falcon's paging and ordering parameters
    listed = served.call("GET", "/api/instance/list/process/count",
                         params={**WINDOW, "orderBy": "status", "sortOrder": "desc", "numResults": "2"}).json()
    assert [item["status"] for item in listed["instances"]] == ["WAITING", "SUCCEEDED"]
    filtered = served.call("GET", "/api/instance/status/process/count",
                           params={**WINDOW, "filterBy": "STATUS:RUNNING"}).json()
    assert [item["instance"] for item in filtered["instances"]] == ["2026-05-01T04:00Z"]
    # JSON only: a client asking for XML gets 406 before anything runs
    assert served.call("GET", "/api/instance/status/process/count", accept=XML, params=WINDOW).status_code == 406


def test_running_summary_logs_and_params(served: Served) -> None:
    running = served.call("GET", "/api/instance/running/process/count").json()
    assert running["message"] == "default/Running Instances\n"
    assert [item["instance"] for item in running["instances"]] == ["2026-05-01T04:00Z"]

    summary = served.call("GET", "/api/instance/summary/process/count", params=WINDOW)
    assert summary.status_code == 200
    # natural JSON of a Map: one "entry" key per entry, so read the raw text
    assert summary.text.startswith('{"status":"SUCCEEDED","message":"default/SUMMARY\\n","requestId":"default/')
    entries = re.findall(r'"entry":\{"key":"(\w+)","value":"(\d+)"\}', summary.text)
    assert sorted(entries) == [("RUNNING", "1"), ("SUCCEEDED", "1"), ("WAITING", "1")]
    assert '"cluster":"east"' in summary.text

    logs = served.call("GET", "/api/instance/logs/process/count",
                       params={"start": "2026-05-01T03:00Z", "end": "2026-05-01T03:00Z"}).json()
    [instance] = logs["instances"]
    workflow = next(item for item in instance["actions"] if item["action"] == "workflow")
    assert workflow["logFile"].endswith("/tasks/workflow?try_number=1")

    params = served.call("GET", "/api/instance/params/process/count", params={"start": "2026-05-01T03:00Z"}).json()
    assert params["message"] == "default/PARAMS\n"
    pairs = {item["key"]: item["value"] for item in params["instances"][0]["wfParams"]}
    assert pairs["nominalTime"] == "2026-05-01T03:00Z" and pairs["entityName"] == "count"


def test_dependencies_triage_listing_and_search(served: Served) -> None:
    dependencies = served.call("GET", "/api/instance/dependencies/process/count",
                               params={"instanceTime": "2026-05-01T03:00Z"}).json()
    assert dependencies["message"] == "default/Success!\n"
    assert {(item["entityName"], item["entityType"], item["tags"]) for item in dependencies["dependencies"]} == {
        ("logs", "FEED", "Input"), ("counts", "FEED", "Output")}

    triage = served.call("GET", "/api/instance/triage/process/count", params={"start": "2026-05-01T05:00Z"})
    assert triage.status_code == 200, triage.text
    graphs = triage.json()["triageGraphs"]
    assert any("name: count, type: PROCESS, cluster: east, instanceTime: 2026-05-01T05:00Z" in vertex
               for graph in graphs for vertex in graph["vertices"])

    window = {"start": "2026-05-01T02:00Z", "end": "2026-05-01T04:00Z"}
    undeployed = served.call("GET", "/api/instance/listing/feed/logs", params=window).json()
    assert undeployed["message"] == "default/Success\n" and "instances" not in undeployed  # nothing expected yet
    served.airflow.add_run("falcon.feed.logs.retention.east", T3, state="success")
    listing = served.call("GET", "/api/instance/listing/feed/logs", params=window).json()
    assert listing["message"] == "default/Success\n"
    assert [(item["instance"], item["status"]) for item in listing["instances"]] == [
        ("2026-05-01T03:00Z", "MISSING"), ("2026-05-01T04:00Z", "MISSING")]  # mapped JSON: all strings

    search = served.call("GET", "/api/instance/search",
                         params={"type": "process", "start": "2026-05-01T00:00Z", "end": "2026-05-01T10:00Z"})
    assert search.status_code == 200, search.text
    assert {item["instance"] for item in search.json()["instances"]} >= {"count/2026-05-01T03:00Z"}


def test_lifecycles_come_as_repeated_parameters(served: Served) -> None:
    served.airflow.add_run("falcon.feed.counts.retention.west", T3, state="success")
    served.airflow.add_run("falcon.feed.counts.replication.east.west", T3, state="running")
    answer = served.call("GET", "/api/instance/status/feed/counts",
                         params=[("start", "2026-05-01T03:00Z"), ("end", "2026-05-01T03:00Z"),
                                 ("lifecycle", "EVICTION"), ("lifecycle", "REPLICATION")])
    assert answer.status_code == 200, answer.text
    found = {(item["cluster"], item.get("sourceCluster"), item["status"]) for item in answer.json()["instances"]}
    assert found == {("west", None, "SUCCEEDED"), ("west", "east", "WAITING")}  # retention, then replication



def test_import_and_export_lifecycles_choose_a_feeds_import_and_export_dags(served: Served) -> None:
    served.kit.write("datasources/shop.xml", ops_datasource("shop"))
    served.kit.write("feeds/orders.xml", ops_transfer_feed("orders", datasource="shop"))
    served.airflow.add_dag("falcon.feed.orders.import.east", ("import",))
    served.airflow.add_dag("falcon.feed.orders.export.west", ("wait_for_instance", "export"))
    imported = served.airflow.add_run("falcon.feed.orders.import.east", T3, state="running")
    served.airflow.set_tis(imported, **{"import": "running"})
    served.airflow.add_run("falcon.feed.orders.export.west", T4)
    one = {"start": "2026-05-01T03:00Z", "end": "2026-05-01T04:00Z"}
    answer = served.call("GET", "/api/instance/status/feed/orders", params={**one, "lifecycle": "import"})
    assert answer.status_code == 200, answer.text
    assert [(item["cluster"], item["status"]) for item in answer.json()["instances"]] == [("east", "RUNNING")]
    both = served.call("GET", "/api/instance/status/feed/orders",
                       params=[*one.items(), ("lifecycle", "IMPORT"), ("lifecycle", "EXPORT")]).json()
    assert {(item["cluster"], item["instance"]) for item in both["instances"]} == {
        ("east", "2026-05-01T03:00Z"), ("west", "2026-05-01T04:00Z")}

    killed = served.call("POST", "/api/instance/kill/feed/orders", params={**one, "lifecycle": "IMPORT"})
    assert killed.status_code == 200, killed.text
    assert [(item["cluster"], item["status"]) for item in killed.json()["instances"]] == [("east", "KILLED")]
    assert served.airflow.runs("falcon.feed.orders.export.west")[0]["state"] == "queued"  # EXPORT not chosen

def test_kill_reads_the_clusters_from_the_properties_body(served: Served) -> None:
    one = {"start": "2026-05-01T04:00Z", "end": "2026-05-01T04:00Z"}
    # another cluster: nothing of this entity runs there, nothing is killed
    elsewhere = served.call("POST", "/api/instance/kill/process/count", params=one,
                            body="falcon.instance.action.clusters=west\n")
    assert elsewhere.status_code == 200 and "instances" not in elsewhere.json()  # natural JSON: no empty array
    assert served.airflow.runs(DAG, first=T4, last=T4)[0]["state"] == "running"

    answer = served.call("POST", "/api/instance/kill/process/count", params=one,
                         body="# from the client\nfalcon.instance.action.clusters = east\n")
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["message"] == "default/KILL\n"
    assert [(item["instance"], item["status"], item["details"]) for item in body["instances"]] == [
        ("2026-05-01T04:00Z", "KILLED", "killed")]
    run = served.airflow.runs(DAG, first=T4, last=T4)[0]
    assert run["state"] == "failed" and "KILLED by ops" in run["note"]
    lines = [line for line in served.audit() if line["command"] == "instance" and line["action"] == "kill"]
    assert [(line["user"], line["result"]) for line in lines][-2:] == [("ops", "STARTED"), ("ops", "SUCCEEDED")]

    # a POST needs both ends of its window (Falcon's message)
    assert "Missing argument : end" in refused(served.call("POST", "/api/instance/kill/process/count",
                                                           params={"start": "2026-05-01T04:00Z"}))


def test_rerun_and_its_properties(served: Served) -> None:
    one = {"start": "2026-05-01T03:00Z", "end": "2026-05-01T03:00Z"}
    # properties other than the clusters are a rerun's overrides, which a cleared Airflow run cannot take
    message = refused(served.call("POST", "/api/instance/rerun/process/count", params=one,
                                  body="falcon.instance.action.clusters=east\nqueueName=urgent\n"))
    assert message.startswith("default/-file (properties overrides for a rerun) is not supported on Airflow")
    assert served.airflow.runs(DAG, first=T3, last=T3)[0]["state"] == "success"

    before = served.call("GET", "/api/instance/status/process/count", params=one).json()["instances"]
    assert [item["runId"] for item in before] == [0]
    answer = served.call("POST", "/api/instance/rerun/process/count", params={**one, "force": "true"})
    assert answer.status_code == 200, answer.text
    [instance] = answer.json()["instances"]
    assert instance["details"].startswith("rerun") and instance["status"] in ("WAITING", "READY", "RUNNING")
    assert instance["runId"] == 1  # Falcon's run number: one more per rerun, from the rerun on
    after = served.call("GET", "/api/instance/status/process/count", params=one).json()["instances"]
    assert [item["runId"] for item in after] == [1]


def test_refusals_unknown_entities_and_bad_values(served: Served) -> None:
    assert refused(served.call("GET", "/api/instance/status/process/nothing")) == (
        "default/nothing (process) not found\n")
    assert "Instance management functions don't apply to Cluster entities" in refused(
        served.call("GET", "/api/instance/status/cluster/east"))
    assert "sortOrder" in refused(served.call("GET", "/api/instance/status/process/count",
                                              params={"sortOrder": "sideways"}))
    assert "Incorrect lifecycle: EVICTION for given type: process" in refused(
        served.call("GET", "/api/instance/status/process/count", params={"lifecycle": "EVICTION"}))
    assert "Invalid life cycle values" in refused(served.call("GET", "/api/instance/status/process/count",
                                                              params={"lifecycle": "SOMETIMES"}))


def test_authorization_is_decided_on_the_server(served: Served) -> None:
    on = {"authorization_enabled": "true"}
    one = {"start": "2026-05-01T04:00Z", "end": "2026-05-01T04:00Z"}
    # neither owner (analytics) nor in the ACL group (users) nor a superuser: refused, nothing changed
    message = denied(served.call("POST", "/api/instance/kill/process/count", user="mallory", params=one,
                                 settings=on))
    assert "mallory" in message and "count" in message
    assert served.airflow.runs(DAG, first=T4, last=T4)[0]["state"] == "running"
    # a member of the ACL group may read and kill
    assert served.call("GET", "/api/instance/status/process/count", user="bob:users", params=WINDOW,
                       settings=on).status_code == 200
    # doAs outside the proxy-user rules is refused, authorization on or off
    impersonating = {**one, "doAs": "analytics"}
    assert "proxyuser" in denied(served.call("POST", "/api/instance/kill/process/count", user="mallory",
                                             params=impersonating))
    assert served.airflow.runs(DAG, first=T4, last=T4)[0]["state"] == "running"
    results = [(line["user"], line["action"], line["result"]) for line in served.audit()]
    assert results.count(("mallory", "kill", "DENIED")) == 2
    # an entity that does not exist, with authorization on: the filter's 400
    assert "nothing" in denied(served.call("GET", "/api/instance/status/process/nothing", settings=on), 400)


def test_suspend_then_resume(served: Served) -> None:
    one = {"start": "2026-05-01T05:00Z", "end": "2026-05-01T05:00Z"}
    suspended = served.call("POST", "/api/instance/suspend/process/count", params=one)
    assert suspended.status_code == 200, suspended.text
    body = suspended.json()
    assert body["message"] == "default/SUSPEND\n"
    assert [(item["status"], item["details"]) for item in body["instances"]] == [("SUSPENDED", "suspended")]
    resumed = served.call("POST", "/api/instance/resume/process/count", params=one).json()
    assert resumed["message"] == "default/RESUME\n"
    assert [(item["status"], item["details"]) for item in resumed["instances"]] == [("WAITING", "resumed")]
    # in safemode nothing is resumed, as Falcon's server refused it
    served.call("POST", "/api/instance/suspend/process/count", params=one)
    assert served.call("GET", "/api/admin/setSafeMode/true", user="admin:Admin").status_code == 200
    assert "safemode" in refused(served.call("POST", "/api/instance/resume/process/count", params=one)).lower()
