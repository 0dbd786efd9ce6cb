"""Falcon's entity resource on the server (``api/entities/...``): every route runs its declared action for the
authenticated caller against the server's store, answers with Falcon's bodies (XML or JSON as Accept asks), refuses
with Falcon's status codes, and decides and audits on the server."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ElementTree
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from httpx import Response
from tests.builders import ops_cluster, ops_feed, ops_process
from tests.unit.operate.helpers import FakeAirflow, Kit

from falcon_airflow.entities import EntityType
from falcon_airflow.operate import declarations
from falcon_airflow.operate.config_store import Store
from falcon_airflow.operate.context import Context
from falcon_airflow.operate.declarations import Action, Route
from falcon_airflow.operate.options import Options
from falcon_airflow.operate.outcomes import Outcome, succeeded
from falcon_airflow.server.app import create_app
from falcon_airflow.server.authentication import Caller
from falcon_airflow.server.configuration import MappingConfig
from falcon_airflow.server.resources.declared import MAX_BODY_BYTES

SECRET = "cookie-secret-for-entity-tests-4f"
XML = "text/xml"
JSON = "application/json"


async def tokens(token: str) -> Caller:
    """An auth manager whose tokens are ``<user>:<role>``."""
    user, _, role = token.partition(":")
    return Caller(user, "airflow", roles=frozenset({role}) if role else frozenset())


@dataclass
class Server:
    kit: Kit
    state: Path
    settings: dict[str, str]

    def client(self, **falcon: str) -> TestClient:
        values = {"authentication": "simple", "authentication_secret": SECRET, "entities_dir": str(self.kit.root),
                  **self.settings, **falcon}
        config = MappingConfig({"falcon": values, "api": {"base_url": FakeAirflow.base}})
        return TestClient(create_app(config=config, verify_token=tokens))

    def call(self, method: str, path: str, *, user: str = "ops", accept: str = XML, body: str | bytes | None = None,
             **falcon: str) -> Response:
        params = {key: value for key, value in falcon.items() if key.startswith("q_")}
        settings = {key: value for key, value in falcon.items() if not key.startswith("q_")}
        query = {key[2:]: value for key, value in params.items()}
        return self.client(**settings).request(
            method, f"/api/entities/{path}", params=query, content=body,
            headers={"Authorization": f"Bearer {user}", "Accept": accept, "Content-Type": "text/xml"})

    def store(self) -> Store:
        return Store(self.kit.root, self.state)

    def audit(self) -> list[dict[str, Any]]:
        path = self.state / "audit.log"
        return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


@pytest.fixture
def server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Server]:
    """The operate tests' pipeline in the server's store (clusters east and west, feeds logs and counts, process
    count; ACL owner ops, group users), Airflow in memory."""
    airflow = FakeAirflow()
    root = tmp_path / "store"
    root.mkdir()
    (tmp_path / "inbox").mkdir()
    monkeypatch.setattr(Context, "airflow", lambda self: airflow)
    monkeypatch.setenv("FALCON_AIRFLOW_WAIT", "0")
    monkeypatch.setenv("FALCON_STORE_DIR", str(tmp_path / "state"))
    monkeypatch.delenv("FALCON_ENTITIES_DIR", raising=False)
    kit = Kit(root, airflow, tmp_path / "inbox")
    kit.write("clusters/east.xml", ops_cluster("east", colo="here"))
    kit.write("clusters/west.xml", ops_cluster("west", colo="there"))
    kit.write("feeds/logs.xml", ops_feed("logs"))
    kit.write("feeds/counts.xml", ops_feed("counts", west=True))
    kit.write("processes/count.xml", ops_process("count"))
    airflow.add_dag("falcon.process.count.east")
    airflow.add_dag("falcon.feed.logs.retention.east", ("retention",))
    airflow.add_dag("falcon.feed.counts.retention.east", ("retention",))
    airflow.add_dag("falcon.feed.counts.retention.west", ("retention",))
    airflow.add_dag("falcon.feed.counts.replication.east.west", ("wait_for_source", "replicate"))
    yield Server(kit, tmp_path / "state", {})


def result(answer: Response) -> tuple[str | None, str | None, str | None]:
    """An APIResult's (status, message, requestId) read from its XML."""
    assert answer.headers["content-type"].startswith(XML), answer.text
    root = ElementTree.fromstring(answer.content)
    assert root.tag == "result"
    return root.findtext("status"), root.findtext("message"), root.findtext("requestId")


def refused(answer: Response) -> str:
    """The message of a refused call: 400 with APIResult FAILED as text/xml."""
    assert answer.status_code == 400, answer.text
    status, message, _ = result(answer)
    assert status == "FAILED"
    return message or ""


def denied(answer: Response, status: int = 403) -> str:
    assert answer.status_code == status, answer.text
    assert answer.headers["content-type"].startswith(JSON)
    body = answer.json()
    assert body["errorCode"] == status and body["requestId"]
    return str(body["errorMessage"])


NEW_FEED = ops_feed("clicks")


# -- submit, validate, update ---------------------------------------------------------------------------------------

def test_submit_stores_the_posted_definition(server: Server) -> None:
    answer = server.call("POST", "submit/feed", body=NEW_FEED)
    assert answer.status_code == 200
    status, message, request_id = result(answer)
    assert (status, message) == ("SUCCEEDED", "falcon/default/Submit successful (feed) clicks\n\n")
    assert request_id and request_id.startswith("falcon/default/")
    stored = server.store().get(EntityType.FEED, "clicks")
    assert stored is not None and stored.read_bytes() == NEW_FEED.encode()
    lines = [(line["user"], line["action"], line["result"]) for line in server.audit()]
    assert lines == [("ops", "submit", "STARTED"), ("ops", "submit", "SUCCEEDED")]
    assert server.audit()[0]["id"] == server.audit()[1]["id"]


def test_submit_answers_json_when_asked(server: Server) -> None:
    answer = server.call("POST", "submit/feed", body=NEW_FEED, accept=JSON)
    assert answer.status_code == 200 and answer.headers["content-type"].startswith(JSON)
    body = answer.json()
    assert body["status"] == "SUCCEEDED" and body["message"] == "falcon/default/Submit successful (feed) clicks\n\n"


def test_submit_refuses_an_invalid_definition_with_400_and_nothing_stored(server: Server) -> None:
    message = refused(server.call("POST", "submit/feed", body="<feed name='broken'", accept=JSON))
    assert message.startswith("default/Invalid feed definition: not well-formed XML")
    assert "(request body):1: error [XML]" in message
    assert server.store().get(EntityType.FEED, "broken") is None
    message = refused(server.call("POST", "submit/process", body=NEW_FEED))
    assert "defines a feed, not a process" in message
    assert server.audit()[-1]["result"] == "REFUSED"


def test_submit_of_an_existing_name_is_refused_as_falcon_did(server: Server) -> None:
    changed = ops_feed("logs", days=3)
    message = refused(server.call("POST", "submit/feed", body=changed))
    assert "(feed) logs already registered with configuration store" in message


def test_a_body_larger_than_the_bound_is_refused_unread(server: Server) -> None:
    answer = server.call("POST", "submit/feed", body=b"<" * (MAX_BODY_BYTES + 1))
    assert f"larger than {MAX_BODY_BYTES:,} bytes" in refused(answer)
    assert server.audit()[-1]["result"] == "REFUSED" and server.audit()[-1]["action"] == "submit"


def test_a_file_option_never_reads_a_path_on_the_server(server: Server, tmp_path: Path) -> None:
    secret = tmp_path / "secret.xml"
    secret.write_text(ops_feed("stolen"))
    answer = server.call("POST", "submit/feed", body=b"", q_file=str(secret))
    assert server.store().get(EntityType.FEED, "stolen") is None
    assert answer.status_code == 400


def test_validate_judges_the_definition_with_the_store(server: Server) -> None:
    status, message, _ = result(server.call("POST", "validate/feed", body=NEW_FEED))
    assert (status, message) == ("SUCCEEDED", "default/Validated successfully (FEED) clicks\n")
    assert server.store().get(EntityType.FEED, "clicks") is None
    orphan = ops_process("orphan", feed="missing-feed")
    assert "missing-feed" in refused(server.call("POST", "validate/process", body=orphan))


def test_update_replaces_the_definition_and_archives_the_old_one(server: Server) -> None:
    changed = ops_feed("logs", days=3)
    status, message, _ = result(server.call("POST", "update/feed/logs", body=changed))
    assert status == "SUCCEEDED" and message and message.startswith("falcon/update/default/Updated successfully")
    stored = server.store().get(EntityType.FEED, "logs")
    assert stored is not None and stored.read_bytes() == changed.encode()
    assert server.store().history(EntityType.FEED, "logs")
    assert "ghost (feed) not found" in refused(server.call("POST", "update/feed/ghost", body=ops_feed("ghost")))
    message = refused(server.call("POST", "update/feed/logs", body=ops_feed("counts")))
    assert "can't be updated with (feed) counts" in message


# -- schedule, suspend, resume, delete, touch -------------------------------------------------------------------------

def test_schedule_suspend_resume_through_the_api(server: Server) -> None:
    airflow = server.kit.airflow
    status, message, _ = result(server.call("POST", "schedule/process/count"))
    assert (status, message) == ("SUCCEEDED", "default/count(process) scheduled successfully\n")
    assert airflow.dags_by_id["falcon.process.count.east"]["is_paused"] is False
    assert result(server.call("GET", "status/process/count"))[1] == "default/RUNNING\n"
    status, message, _ = result(server.call("POST", "suspend/process/count", q_colo="*"))
    assert (status, message) == ("SUCCEEDED", "default/count(process) suspended successfully\n")
    assert airflow.dags_by_id["falcon.process.count.east"]["is_paused"] is True
    assert server.call("GET", "status/process/count", accept=JSON).json()["message"] == "default/SUSPENDED\n"
    assert result(server.call("POST", "resume/process/count"))[1] == "default/count(process) resumed successfully\n"
    assert server.store().schedule_state(EntityType.PROCESS, "count") == "RUNNING"


def test_actions_on_an_unknown_entity_are_400(server: Server) -> None:
    for method, path in (("POST", "schedule/process/ghost"), ("POST", "suspend/feed/ghost"),
                         ("GET", "status/feed/ghost"), ("GET", "definition/feed/ghost"),
                         ("GET", "dependencies/feed/ghost"), ("POST", "touch/feed/ghost")):
        assert "ghost (" in refused(server.call(method, path)), path


def test_a_cluster_cannot_be_scheduled(server: Server) -> None:
    assert "cannot be Scheduled" in refused(server.call("POST", "schedule/cluster/east"))


def test_delete_removes_what_nothing_refers_to(server: Server) -> None:
    message = refused(server.call("DELETE", "delete/feed/logs"))
    assert "cant be removed as it is referred by" in message and "(count,PROCESS)" in message
    status, message, _ = result(server.call("DELETE", "delete/process/count"))
    assert status == "SUCCEEDED" and message and "count(process) removed successfully" in message
    assert server.store().get(EntityType.PROCESS, "count") is None
    assert "falcon.process.count.east" not in server.kit.airflow.dags_by_id
    status, message, _ = result(server.call("DELETE", "delete/process/count"))
    assert status == "SUCCEEDED" and message and "doesn't exist. Nothing to do" in message


def test_touch_and_update_cluster_dependents_ask_airflow_to_reparse(server: Server) -> None:
    status, message, _ = result(server.call("POST", "touch/process/count"))
    assert status == "SUCCEEDED" and message and "(process) count touched" in message
    status, message, _ = result(server.call("POST", "updateClusterDependents/east", q_skipDryRun="true"))
    assert status == "SUCCEEDED" and message and message.startswith("falcon/updateClusterDependents/default/")
    assert server.kit.airflow.reparse_requests >= 2


def test_safemode_refuses_changes_on_the_server(server: Server) -> None:
    server.store().set_safemode(True, user="admin")
    assert "safemode" in refused(server.call("POST", "schedule/process/count")).lower()
    assert result(server.call("GET", "status/process/count"))[0] == "SUCCEEDED"


# -- queries ----------------------------------------------------------------------------------------------------------

def test_status_and_definition(server: Server) -> None:
    status, message, _ = result(server.call("GET", "status/feed/logs", q_showScheduler="true"))
    assert (status, message) == ("SUCCEEDED", "default/SUBMITTED\n")
    answer = server.call("GET", "definition/feed/logs")
    assert answer.status_code == 200 and answer.headers["content-type"].startswith(XML)
    definition = ElementTree.fromstring(answer.content)
    assert definition.tag.endswith("feed") and definition.get("name") == "logs"


def test_list_with_filters_order_and_paging(server: Server) -> None:
    answer = server.call("GET", "list/feed,process", q_fields="status,clusters", q_orderBy="name",
                         q_sortOrder="desc")
    assert answer.status_code == 200 and answer.headers["content-type"].startswith(XML)
    root = ElementTree.fromstring(answer.content)
    assert root.tag == "entities" and root.findtext("totalResults") == "3"
    rows = [(item.findtext("type"), item.findtext("name"), item.findtext("status")) for item in root.iter("entity")]
    assert rows == [("FEED", "logs", "SUBMITTED"), ("FEED", "counts", "SUBMITTED"), ("PROCESS", "count", "SUBMITTED")]
    page = server.call("GET", "list", accept=JSON, q_filterBy="TYPE:cluster", q_orderBy="name", q_numResults="1")
    body = page.json()
    # Jersey's mapped notation: numbers as strings, a list of one item as the item
    assert body["totalResults"] == "2" and body["entity"] == {"type": "CLUSTER", "name": "east"}
    assert server.call("GET", "list/", accept=JSON).json()["totalResults"] == "5"
    assert "Invalid filterBy argument : COLOR" in refused(server.call("GET", "list", q_filterBy="COLOR:red"))
    assert 'sortOrder should be "asc" or "desc"' in refused(server.call("GET", "list", q_sortOrder="up"))
    assert server.call("GET", "list", q_colo="*").status_code == 200  # Falcon's resource ignores colo here


def test_accept_picks_the_type_and_406_when_none_fits(server: Server) -> None:
    assert server.call("GET", "list", accept="*/*").headers["content-type"].startswith(XML)
    assert server.call("GET", "status/feed/logs", accept="text/plain").headers["content-type"].startswith(
        "text/plain")
    before = server.audit()
    not_acceptable = server.call("GET", "list", accept="text/plain")
    assert not_acceptable.status_code == 406 and "text/xml, application/json" in not_acceptable.text
    assert server.audit() == before  # refused before it ran


def test_dependencies_summary_lookup_and_sla_alert(server: Server) -> None:
    answer = server.call("GET", "dependencies/feed/logs")
    root = ElementTree.fromstring(answer.content)
    rows = {(item.findtext("type"), item.findtext("name"), item.findtext("tags/tag")) for item in root.iter("entity")}
    assert ("process", "count", "Input") in rows and ("cluster", "east", None) in rows
    summary = server.call("GET", "summary/process", accept=JSON, q_cluster="east", q_start="2026-05-01T00:00Z",
                          q_end="2026-05-02T00:00Z")
    assert summary.status_code == 200, summary.text
    assert summary.json()["message"] == "Entity Summary Result"
    assert "Missing argument : cluster" in refused(server.call("GET", "summary/process"))
    lookup = server.call("GET", "lookup/feed", accept=JSON, q_path="/logs/2026/05/01/03")
    assert lookup.status_code == 200 and lookup.json()["message"] == "default/SUCCESS\n", lookup.text
    assert lookup.json()["elements"] == {"feedName": "logs", "locationType": "data", "clusterName": "east"}
    assert server.call("GET", "lookup/feed", accept=JSON, q_path="/no/such/path").json().get("elements") is None
    sla = server.call("GET", "sla-alert/feed", accept=JSON, q_name="logs", q_start="2026-05-01T00:00Z",
                      q_end="2026-05-01T02:00Z")
    assert sla.status_code == 200 and sla.json()["status"] == "SUCCEEDED", sla.text
    assert sla.json()["message"] == "default/Success!\n"
    # without a name, as Falcon's server answered: every entity of the type
    every = server.call("GET", "sla-alert/feed", accept=JSON, q_start="2026-05-01T00:00Z")
    assert every.status_code == 200 and every.json()["status"] == "SUCCEEDED", every.text
    assert "needs -start" in refused(server.call("GET", "sla-alert/feed", q_name="logs"))


# -- authorization on the server ------------------------------------------------------------------------------------

def test_with_authorization_an_outsider_is_refused_403_and_nothing_changes(server: Server) -> None:
    secured = {"authorization_enabled": "true"}
    message = denied(server.call("POST", "schedule/process/count", user="mallory", **secured))
    assert "user=mallory may not entity -schedule process count" in message
    assert server.store().schedule_state(EntityType.PROCESS, "count") is None
    assert server.kit.airflow.dags_by_id["falcon.process.count.east"]["is_paused"] is True
    assert "user=mallory may not entity -status" in denied(server.call("GET", "status/process/count",
                                                                       user="mallory", **secured))
    message = denied(server.call("POST", "submit/feed", user="mallory", body=NEW_FEED, **secured))
    assert "may not entity -submit feed clicks" in message
    assert server.store().get(EntityType.FEED, "clicks") is None
    # the owner, a member of the ACL's group, a superuser (an Airflow Admin) may
    assert server.call("POST", "schedule/process/count", user="analytics", **secured).status_code == 200
    assert server.call("GET", "status/process/count", user="uma", **secured, **{"groups.uma": "users"}
                       ).status_code == 200
    assert server.call("POST", "suspend/process/count", user="root:Admin", **secured).status_code == 200
    results = [(line["user"], line["action"], line["result"]) for line in server.audit() if line["result"] != "STARTED"]
    assert results == [("mallory", "schedule", "DENIED"), ("mallory", "status", "DENIED"),
                       ("mallory", "submit", "DENIED"), ("analytics", "schedule", "SUCCEEDED"),
                       ("uma", "status", "SUCCEEDED"), ("root", "suspend", "SUCCEEDED")]


def test_the_callers_environment_changes_nothing(server: Server, monkeypatch: pytest.MonkeyPatch) -> None:
    """What a client's own environment would say is not the server's configuration."""
    monkeypatch.setenv("AIRFLOW__FALCON__AUTHORIZATION_ENABLED", "false")
    monkeypatch.setenv("AIRFLOW__FALCON__OPEN_IMPERSONATION", "true")
    denied(server.call("POST", "schedule/process/count", user="mallory", authorization_enabled="true"))
    denied(server.call("GET", "status/feed/logs", user="mallory", q_doAs="ops"))


def test_with_authorization_an_unknown_entity_is_the_filters_400(server: Server) -> None:
    secured = {"authorization_enabled": "true"}
    assert denied(server.call("GET", "status/feed/ghost", **secured), status=400) == "ghost (feed) not found"
    status, message, _ = result(server.call("DELETE", "delete/feed/ghost", **secured))
    assert status == "SUCCEEDED" and message and "doesn't exist" in message


def test_do_as_follows_the_proxy_user_rules(server: Server) -> None:
    rules = {"proxyuser.etl.hosts": "*", "proxyuser.etl.groups": "users", "groups.ops": "users",
             "groups.eve": "finance"}
    answer = server.call("POST", "schedule/process/count", user="etl", q_doAs="ops", **rules)
    assert answer.status_code == 200, answer.text
    assert server.store().proxy_user(EntityType.PROCESS, "count") == "ops"
    message = denied(server.call("POST", "suspend/process/count", user="etl", q_doAs="eve", **rules))
    assert "proxyuser.etl.groups" in message
    assert "not defined as a proxyuser" in denied(server.call("GET", "status/feed/logs", user="joe", q_doAs="ops"))
    assert "not a user name" in denied(server.call("GET", "status/feed/logs", user="etl", q_doAs="a b", **rules))
    lines = [(line["user"], line["doAs"], line["action"], line["result"]) for line in server.audit()
             if line["result"] != "STARTED"]
    assert lines == [("etl", "ops", "schedule", "SUCCEEDED"), ("etl", "eve", "suspend", "DENIED"),
                     ("joe", "ops", "status", "DENIED"), ("etl", "a b", "status", "DENIED")]


# -- the routes come from the declarations ----------------------------------------------------------------------------

def test_every_entity_action_of_falcons_resource_has_its_route(server: Server) -> None:
    app = server.client().app
    paths = {(method, route.path) for route in app.routes for method in getattr(route, "methods", ())}
    for action in declarations.command("entity").actions:
        assert action.routes, action.key
        for route in action.routes:
            assert (route.method, route.path) in paths
    assert {("POST", "/api/entities/submit/{type}"), ("DELETE", "/api/entities/delete/{type}/{name}"),
            ("GET", "/api/entities/list"), ("GET", "/api/entities/list/{type}"),
            ("GET", "/api/entities/sla-alert/{type}"), ("POST", "/api/entities/updateClusterDependents/{cluster}"),
            ("GET", "/api/entities/dependencies/{type}/{name}")} <= paths


def echo(context: Context, options: Options) -> Outcome:
    name = options.required("name", "name")
    return succeeded(f"{options.required('type', 'type')} {name} asked by {context.user}")


def test_a_declared_action_gets_its_route(server: Server, monkeypatch: pytest.MonkeyPatch) -> None:
    entity = declarations.command("entity")
    echo_action = Action("entity", "echo", "say who asks about an entity", f"{__name__}:echo", "read",
                         required=("type", "name"), routes=(Route("GET", "/api/entities/echo/{type}/{name}",
                                                                  answer="entity.status"),))
    monkeypatch.setitem(declarations.commands(), "entity", replace(entity, actions=(*entity.actions, echo_action)))
    status, message, _ = result(server.call("GET", "echo/feed/logs", user="uma"))
    assert (status, message) == ("SUCCEEDED", "default/feed logs asked by uma\n")
    assert [(line["action"], line["result"]) for line in server.audit()] == [("echo", "STARTED"),
                                                                           ("echo", "SUCCEEDED")]


def broken(context: Context, options: Options) -> Outcome:
    raise RuntimeError("the store's disk went away")


def test_a_fault_of_the_server_is_falcons_500_and_audited(server: Server, monkeypatch: pytest.MonkeyPatch) -> None:
    entity = declarations.command("entity")
    status = entity.action("status")
    monkeypatch.setitem(declarations.commands(), "entity", replace(entity, actions=tuple(
        replace(item, handler=f"{__name__}:broken") if item is status else item for item in entity.actions)))
    answer = server.call("GET", "status/feed/logs")
    assert answer.status_code == 500 and answer.headers["content-type"].startswith(XML)
    assert result(answer)[:2] == ("FAILED", "RuntimeError: the store's disk went away")
    assert [(line["action"], line["result"]) for line in server.audit()] == [("status", "STARTED"),
                                                                           ("status", "FAILED")]
