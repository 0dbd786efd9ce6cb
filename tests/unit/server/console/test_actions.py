"""The console's actions: which ones the server offers a user, the write token a browser session needs, and the
actions themselves run as the REST API runs them (authorization, audit trail), refused when forged."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from tests.unit.operate.helpers import FakeRun
from tests.unit.server.served import Served, serve

from falcon_airflow.operate.config_store import Store
from falcon_airflow.server.console import write_token


@pytest.fixture
def served(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Served:
    return serve(tmp_path, monkeypatch)


def browser(served: Served, user: str = "ops", **settings: str) -> TestClient:
    """A browser signed in to Airflow's UI as ``user``: Airflow's session cookie only."""
    client = served.client(authentication="airflow", **settings)
    client.cookies.set("_token", user)
    return client


def schedule_state(served: Served) -> str | None:
    return Store(served.kit.root, served.state).schedule_state("feed", "logs")


def signed(client: TestClient) -> dict[str, str]:
    answer = client.get("/console/api/write-token")
    assert answer.status_code == 200, answer.text
    assert answer.headers["cache-control"] == "no-store"
    body = answer.json()
    return {body["header"]: body["token"]}


def test_every_action_is_offered_without_authorization_and_only_what_applies(served: Served) -> None:
    client = browser(served)
    feed = client.get("/console/api/actions/feed/logs").json()
    # submitted, never scheduled: schedule and delete apply, suspend and resume do not
    assert (feed["status"], feed["entity"]) == ("SUBMITTED", ["schedule", "delete"])
    assert feed["instance"] == ["kill", "rerun", "suspend", "resume"]
    assert feed["instanceStates"]["resume"] == ["SUSPENDED"]
    cluster = client.get("/console/api/actions/cluster/east").json()
    assert (cluster["entity"], cluster["instance"]) == (["delete"], [])
    assert client.get("/console/api/actions/feed/nothing").status_code == 404
    assert client.get("/console/api/actions/table/logs").status_code == 400


def test_with_authorization_the_acl_decides_what_is_offered(served: Served) -> None:
    owner = browser(served, "ops", authorization_enabled="True")
    assert owner.get("/console/api/actions/feed/logs").json()["entity"] == ["schedule", "delete"]
    outsider = browser(served, "carl", authorization_enabled="True")
    assert outsider.get("/console/api/actions/feed/logs").status_code == 403
    member = browser(served, "uma:users", authorization_enabled="True")  # the ACL group, permission *
    assert member.get("/console/api/actions/process/count").json()["instance"] == ["kill", "rerun", "suspend",
                                                                                   "resume"]
    admin = browser(served, "root:Admin", authorization_enabled="True")  # Airflow's Admin role: a superuser
    assert admin.get("/console/api/actions/feed/logs").json()["entity"][-1] == "delete"


def test_a_suspend_from_the_console_is_the_entity_commands_and_audited(served: Served) -> None:
    client = browser(served)
    assert client.post("/console/api/actions/feed/logs/schedule", headers=signed(client)).status_code == 200
    answer = client.post("/console/api/actions/feed/logs/suspend", headers=signed(client))
    assert answer.status_code == 200, answer.text
    assert answer.json()["status"] == "SUCCEEDED"
    assert schedule_state(served) == "SUSPENDED"
    lines = [line for line in served.audit() if line.get("action") == "suspend"]
    assert [(line["user"], line["command"], line["result"]) for line in lines] == [
        ("ops", "entity", "STARTED"), ("ops", "entity", "SUCCEEDED")]
    assert (lines[0]["type"], lines[0]["name"]) == ("feed", "logs") and lines[0]["id"] == lines[1]["id"]
    refused = client.post("/console/api/actions/feed/logs/touch", headers=signed(client))
    assert refused.status_code == 400 and "does not touch" in refused.json()["error"]


def test_a_forged_write_is_refused(served: Served) -> None:
    client = browser(served)
    # the cookie alone: what another site can make the browser send
    cookie_only = client.post("/console/api/actions/feed/logs/schedule")
    assert cookie_only.status_code == 403 and "write token" in cookie_only.text
    assert client.post("/api/entities/schedule/feed/logs").status_code == 403  # the REST API alike
    wrong = client.post("/console/api/actions/feed/logs/schedule", headers={write_token.HEADER: "99999999999.abc"})
    assert wrong.status_code == 403
    # a token of another session (another user's) does not carry over
    other = browser(served, "carl")
    assert client.post("/console/api/actions/feed/logs/schedule", headers=signed(other)).status_code == 403
    expired = write_token.issue("ops", "ops", now=0).token
    assert client.post("/console/api/actions/feed/logs/schedule",
                       headers={write_token.HEADER: expired}).status_code == 403
    assert schedule_state(served) is None  # nothing changed
    # a bearer token is not a cookie: no write token is given for it, none is needed with it
    bearer = served.client(authentication="airflow")
    assert bearer.get("/console/api/write-token", headers={"Authorization": "Bearer ops"}).status_code == 400
    assert bearer.post("/console/api/actions/feed/logs/schedule",
                       headers={"Authorization": "Bearer ops"}).status_code == 200


def test_a_user_without_rights_is_refused_by_the_action_itself(served: Served) -> None:
    outsider = browser(served, "carl", authorization_enabled="True")
    answer = outsider.post("/console/api/actions/feed/logs/suspend", headers=signed(outsider))
    assert answer.status_code == 403 and "user=carl may not entity -suspend feed logs" in answer.json()["error"]
    assert [line["result"] for line in served.audit() if line.get("action") == "suspend"] == ["DENIED"]


def test_instance_actions_take_their_window(served: Served) -> None:
    client = browser(served)
    headers = signed(client)
    missing = client.post("/console/api/actions/process/count/instances/kill", headers=headers, json={})
    assert missing.status_code == 400 and "start is required" in missing.json()["error"]
    assert client.post("/console/api/actions/cluster/east/instances/kill", headers=headers,
                       json={"start": "2026-01-01T00:00Z", "end": "2026-01-01T00:00Z"}).status_code == 400
    assert client.post("/console/api/actions/process/count/instances/explode", headers=headers,
                       json={"start": "2026-01-01T00:00Z", "end": "2026-01-01T00:00Z"}).status_code == 400


def test_the_entity_buttons_follow_its_state(served: Served) -> None:
    client = browser(served)

    def offered() -> tuple[str, list[str]]:
        answer = client.get("/console/api/actions/feed/logs").json()
        return answer["status"], answer["entity"]

    assert offered() == ("SUBMITTED", ["schedule", "delete"])
    assert client.post("/console/api/actions/feed/logs/schedule", headers=signed(client)).status_code == 200
    assert offered() == ("RUNNING", ["suspend", "delete"])
    assert client.post("/console/api/actions/feed/logs/suspend", headers=signed(client)).status_code == 200
    assert offered() == ("SUSPENDED", ["resume", "delete"])


def running_instance(served: Served, at: datetime) -> FakeRun:
    run = served.airflow.add_run("falcon.process.count.east", at, state="running",
                                 task_states={"wait_for_input": "success", "clear_outputs": "success",
                                              "workflow": "running"})
    return run


def test_a_kill_of_a_running_instance_succeeds_and_marks_its_run_failed(served: Served) -> None:
    run = running_instance(served, datetime(2026, 1, 1, 0, tzinfo=UTC))
    client = browser(served)
    answer = client.post("/console/api/actions/process/count/instances/kill", headers=signed(client),
                         json={"instance": "2026-01-01T00:00Z", "cluster": "east"})
    assert answer.status_code == 200, answer.text
    assert answer.json()["status"] == "SUCCEEDED"
    assert run.state == "failed" and served.airflow.states(run)["workflow"] == "failed"
    assert "[falcon-airflow] KILLED" in (run.note or "")
    kills = [line for line in served.audit() if line.get("action") == "kill"]
    assert [(line["user"], line["command"], line["result"]) for line in kills] == [
        ("ops", "instance", "STARTED"), ("ops", "instance", "SUCCEEDED")]


def test_an_instance_action_its_state_does_not_allow_is_refused_and_changes_nothing(served: Served) -> None:
    run = served.airflow.add_run("falcon.process.count.east", datetime(2026, 1, 1, 0, tzinfo=UTC), state="success",
                                 task_states={task: "success" for task in ("wait_for_input", "clear_outputs",
                                                                           "workflow", "mark_outputs_available")})
    client = browser(served)
    calls = len(served.airflow.calls)
    for action in ("kill", "suspend", "resume"):
        answer = client.post(f"/console/api/actions/process/count/instances/{action}", headers=signed(client),
                             json={"instance": "2026-01-01T00:00Z", "cluster": "east"})
        assert answer.status_code == 409, answer.text
        assert f"{action} does not apply to a SUCCEEDED instance" in answer.json()["error"]
    assert run.state == "success"
    assert not [call for call in served.airflow.calls[calls:] if call.startswith(("patch_run", "clear"))]
    assert not [line for line in served.audit() if line.get("action") in ("kill", "suspend", "resume")]
    gone = client.post("/console/api/actions/process/count/instances/kill", headers=signed(client),
                       json={"instance": "2026-01-01T05:00Z"})
    assert gone.status_code == 404 and "no instance 2026-01-01T05:00Z" in gone.json()["error"]
    rerun = client.post("/console/api/actions/process/count/instances/rerun", headers=signed(client),
                        json={"instance": "2026-01-01T00:00Z", "cluster": "east"})
    assert rerun.status_code == 200, rerun.text
    assert run.state == "queued"  # cleared: the scheduler runs it again


def test_the_buttons_script_is_served_with_the_page_and_fetches_nothing_remote(served: Served) -> None:
    from importlib import resources

    client = browser(served)
    page = client.get("/console/").text
    assert 'src="static/actions.js"' in page
    script = client.get("/console/static/actions.js")
    assert script.status_code == 200 and script.headers["content-type"].startswith("text/javascript")
    assert "api/write-token" in script.text and "innerHTML" not in script.text  # messages are text only
    static = resources.files("falcon_airflow.server.console").joinpath("static")
    for asset in static.iterdir():
        text = asset.read_text(encoding="utf-8").replace("http://www.w3.org/", "")  # XML namespaces name, not fetch
        assert "://" not in text, asset.name  # no CDN: every asset is in the package


def test_a_feed_cell_s_kill_acts_on_the_lifecycle_of_its_run(served: Served) -> None:
    run = served.airflow.add_run("falcon.feed.counts.replication.east.west", datetime(2026, 1, 1, 0, tzinfo=UTC),
                                 state="running", task_states={"wait_for_source": "success", "replicate": "running"})
    client = browser(served)
    asked = {"instance": "2026-01-01T00:00Z", "cluster": "west", "lifecycle": "REPLICATION"}
    rerun = client.post("/console/api/actions/feed/counts/instances/rerun", headers=signed(client), json=asked)
    assert rerun.status_code == 409 and "rerun does not apply to a RUNNING instance" in rerun.json()["error"]
    killed = client.post("/console/api/actions/feed/counts/instances/kill", headers=signed(client), json=asked)
    assert killed.status_code == 200, killed.text
    assert run.state == "failed"
