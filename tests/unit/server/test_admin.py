"""Falcon's admin resource on the server: its bodies (Falcon's property list, XML or JSON as Accept asks), the stack
dump, the settings, safemode in the store, and admin rights decided on the server."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ElementTree
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from falcon_airflow import __version__
from falcon_airflow.operate.config_store import Store
from falcon_airflow.server.app import create_app
from falcon_airflow.server.authentication import Caller
from falcon_airflow.server.configuration import MappingConfig

SECRET = "cookie-secret-for-admin-tests-9c"


async def tokens(token: str) -> Caller:
    """An auth manager whose tokens are ``<user>:<role>``."""
    user, _, role = token.partition(":")
    return Caller(user, "airflow", roles=frozenset({role}) if role else frozenset())


@pytest.fixture
def folders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("FALCON_STORE_DIR", str(tmp_path / "state"))
    monkeypatch.delenv("FALCON_ENTITIES_DIR", raising=False)
    (tmp_path / "entities").mkdir()
    yield tmp_path


def client(folders: Path, **falcon: str) -> TestClient:
    values = {"authentication": "simple", "authentication_secret": SECRET,
              "entities_dir": str(folders / "entities"), **falcon}
    config = MappingConfig({"falcon": values, "api": {"base_url": "http://127.0.0.1:8080"}})
    return TestClient(create_app(config=config, verify_token=tokens))


def as_user(token: str, accept: str = "application/json") -> dict[str, str]:
    return {"Authorization": f"Bearer {token}", "Accept": accept}


def audit(folders: Path) -> list[dict[str, Any]]:
    path = folders / "state" / "audit.log"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


# -- the routes -------------------------------------------------------------------------------------------------------

def test_version_names_the_server_its_mode_scheme_and_safemode(folders: Path) -> None:
    answer = client(folders).get("/api/admin/version", headers=as_user("joe"))
    assert answer.status_code == 200 and answer.headers["content-type"].startswith("application/json")
    properties = {item["key"]: item["value"] for item in answer.json()["properties"]}
    assert properties == {"Version": __version__, "Mode": "embedded", "Airflow": properties["Airflow"],
                          "authentication": "simple", "safemode": "false"}
    xml = client(folders).get("/api/admin/version", headers=as_user("joe", "text/xml"))
    assert xml.headers["content-type"].startswith("text/xml")
    assert "<properties><key>Version</key><value>" in xml.text
    assert client(folders).get("/api/admin/version", headers=as_user("joe", "*/*")).headers[
        "content-type"].startswith("text/xml")
    refused = client(folders).get("/api/admin/version", headers=as_user("joe", "text/plain"))
    assert refused.status_code == 406 and "text/xml, application/json" in refused.text
    stack = client(folders).get("/api/admin/stack", headers=as_user("joe", "application/json"))
    assert stack.status_code == 406


def test_stack_dumps_this_process_threads_and_tasks(folders: Path) -> None:
    answer = client(folders).get("/api/admin/stack", headers=as_user("joe", "text/plain"))
    assert answer.status_code == 200 and answer.headers["content-type"].startswith("text/plain")
    blocks = answer.text
    assert "MainThread\nState: " in blocks
    assert "State: RUNNING (this request)" in blocks or "State: RUNNABLE (this request)" in blocks
    assert "falcon_airflow.server.resources.admin.stack_dump(admin.py:" in blocks


@pytest.mark.parametrize("kind", ["build", "deploy", "startup", "runtime"])
def test_config_lists_the_servers_settings(folders: Path, kind: str) -> None:
    falcon = client(folders, authentication_token_validity="600", api_token="tok-a9f3e1c0d2b4")
    answer = falcon.get(f"/api/admin/config/{kind}", headers=as_user("joe"))
    assert answer.status_code == 200
    properties = {item["key"]: item.get("value") for item in answer.json()["properties"]}
    expected = {"build": {"build.version": __version__}, "deploy": {"deploy.mode": "embedded"},
                "startup": {"authentication": "simple", "authentication_secret": "********",
                            "authentication_token_validity": "600", "api_token": "********"},
                "runtime": {"safemode": "false", "authentication": "simple"}}[kind]
    assert expected.items() <= properties.items()
    assert SECRET not in answer.text and "tok-a9f3e1c0d2b4" not in answer.text


def test_config_of_another_type_is_answered_with_no_content(folders: Path) -> None:
    answer = client(folders).get("/api/admin/config/secrets", headers=as_user("joe"))
    assert answer.status_code == 204 and answer.content == b""


@pytest.mark.parametrize("method", ["GET", "POST"])
def test_set_safe_mode_changes_the_store_and_is_audited(folders: Path, method: str) -> None:
    falcon = client(folders)
    answer = falcon.request(method, "/api/admin/setSafeMode/TRUE", headers=as_user("ops"))
    assert answer.status_code == 200 and answer.text == "true"
    store = Store(folders / "entities", folders / "state")
    assert store.safemode is True
    assert store.read_doc("safemode.json")["by"] == "ops"
    version = falcon.get("/api/admin/version", headers=as_user("joe"))
    assert {"key": "safemode", "value": "true"} in version.json()["properties"]
    assert falcon.request(method, "/api/admin/setSafeMode/false", headers=as_user("ops")).text == "false"
    assert store.safemode is False
    results = [(line["action"], line["result"]) for line in audit(folders) if line["action"] == "setsafemode"]
    assert results == [("setsafemode", "STARTED"), ("setsafemode", "SUCCEEDED")] * 2


def test_an_invalid_safe_mode_is_refused_as_falcon_did(folders: Path) -> None:
    answer = client(folders).get("/api/admin/setSafeMode/maybe", headers=as_user("ops"))
    assert answer.status_code == 400 and answer.headers["content-type"].startswith("text/xml")
    result = ElementTree.fromstring(answer.content)
    assert (result.tag, result.findtext("status"), result.findtext("message")) == (
        "result", "FAILED", 'Invalid value "maybe" provided for safemode.')
    assert audit(folders)[-1]["result"] == "REFUSED"


def test_with_authorization_only_admins_run_admin_actions_but_version(folders: Path) -> None:
    falcon = client(folders, authorization_enabled="true", **{"admin.users": "ops", "groups.carol": "Admin"})
    assert falcon.get("/api/admin/version", headers=as_user("mallory")).status_code == 200
    for path in ("/api/admin/stack", "/api/admin/config/startup", "/api/admin/setSafeMode/true"):
        answer = falcon.get(path, headers=as_user("mallory", "*/*"))
        assert answer.status_code == 403, path
        assert answer.headers["content-type"].startswith("application/json")
        body = answer.json()
        assert body["errorCode"] == 403 and "mallory" in body["errorMessage"] and body["requestId"]
    assert Store(folders / "entities", folders / "state").safemode is False
    denied = [line for line in audit(folders) if line["result"] == "DENIED"]
    assert [line["action"] for line in denied] == ["stack", "config", "setsafemode"]
    # an admin user, a member of an admin group (configured, or an Airflow role)
    for who in ("ops", "carol", "dave:Admin"):
        assert falcon.get("/api/admin/setSafeMode/true", headers=as_user(who)).status_code == 200, who


def test_do_as_follows_the_proxy_user_rules_on_the_server(folders: Path) -> None:
    falcon = client(folders, **{"proxyuser.etl.hosts": "*", "proxyuser.etl.groups": "analysts",
                                "groups.bob": "analysts", "groups.eve": "finance"})
    assert falcon.get("/api/admin/version", params={"doAs": "bob"}, headers=as_user("etl")).status_code == 200
    answer = falcon.get("/api/admin/version", params={"doAs": "eve"}, headers=as_user("etl"))
    assert answer.status_code == 403 and "proxyuser.etl.groups" in answer.json()["errorMessage"]
    answer = falcon.get("/api/admin/version", params={"doAs": "bob"}, headers=as_user("joe"))
    assert answer.status_code == 403 and "not defined as a proxyuser" in answer.json()["errorMessage"]
    answer = falcon.get("/api/admin/version", params={"doAs": "b&b"}, headers=as_user("etl"))
    assert answer.status_code == 403 and "not a user name" in answer.json()["errorMessage"]
    lines = audit(folders)
    assert [(line["user"], line["doAs"], line["result"]) for line in lines if line["result"] != "STARTED"] == [
        ("etl", "bob", "SUCCEEDED"), ("etl", "eve", "DENIED"), ("joe", "bob", "DENIED"), ("etl", "b&b", "DENIED")]
    open_doors = client(folders, open_impersonation="true")
    assert open_doors.get("/api/admin/version", params={"doAs": "eve"}, headers=as_user("joe")).status_code == 200


def test_a_wrong_parameter_is_a_400_apiresult_never_a_422(folders: Path) -> None:
    falcon = client(folders)
    app = falcon.app

    @app.get("/api/probe")  # type: ignore[attr-defined,misc]
    def probe(n: int) -> int:
        return n

    answer = falcon.get("/api/probe", params={"n": "x"}, headers=as_user("joe"))
    assert answer.status_code == 400 and "<status>FAILED</status>" in answer.text and "n: " in answer.text


def test_an_unwritable_audit_trail_refuses_the_action(folders: Path) -> None:
    (folders / "state").mkdir()
    (folders / "state" / "audit.log").mkdir()  # a folder where the trail's file should be: appending fails
    answer = client(folders).get("/api/admin/setSafeMode/true", headers=as_user("ops"))
    assert answer.status_code == 503 and "cannot be written" in answer.text
    assert Store(folders / "entities", folders / "state").safemode is False
