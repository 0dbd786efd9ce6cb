"""Falcon's server in a test: the operate tests' pipeline in its store (clusters east and west in colos here and
there, feeds logs and counts, process count; ACL owner ops, group users), Airflow in memory, and calls made as a
user with an Airflow-style bearer token ``<user>[:<role>]``."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from httpx import Response
from tests.builders import ops_cluster, ops_feed, ops_process
from tests.unit.operate.helpers import FakeAirflow, Kit

from falcon_airflow.operate.context import Context
from falcon_airflow.server.app import create_app
from falcon_airflow.server.authentication import Caller
from falcon_airflow.server.configuration import MappingConfig

SECRET = "cookie-secret-for-resource-tests-7d"
XML = "text/xml"
JSON = "application/json"
TEXT = "text/plain"


async def tokens(token: str) -> Caller:
    """An auth manager whose tokens are ``<user>:<role>``."""
    user, _, role = token.partition(":")
    return Caller(user, "airflow", roles=frozenset({role}) if role else frozenset())


@dataclass
class Served:
    kit: Kit
    state: Path

    @property
    def airflow(self) -> FakeAirflow:
        return self.kit.airflow

    def client(self, **falcon: str) -> TestClient:
        values = {"authentication": "simple", "authentication_secret": SECRET, "entities_dir": str(self.kit.root),
                  **falcon}
        config = MappingConfig({"falcon": values, "api": {"base_url": FakeAirflow.base}})
        return TestClient(create_app(config=config, verify_token=tokens))

    def call(self, method: str, path: str, *, user: str = "ops", accept: str = JSON, body: str | bytes | None = None,
             params: dict[str, Any] | list[tuple[str, str]] | None = None, settings: dict[str, str] | None = None
             ) -> Response:
        return self.client(**(settings or {})).request(
            method, path, params=params, content=body,
            headers={"Authorization": f"Bearer {user}", "Accept": accept, "Content-Type": "text/xml"})

    def audit(self) -> list[dict[str, Any]]:
        path = self.state / "audit.log"
        return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def serve(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Served:
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
    return Served(kit, tmp_path / "state")


def refused(answer: Response, status: int = 400) -> str:
    """The message of a refused call: APIResult FAILED as text/xml."""
    assert answer.status_code == status, answer.text
    assert answer.headers["content-type"].startswith(XML), answer.text
    root = ElementTree.fromstring(answer.content)
    assert (root.tag, root.findtext("status")) == ("result", "FAILED"), answer.text
    return root.findtext("message") or ""


def denied(answer: Response, status: int = 403) -> str:
    """The message of a call the authorization filter stopped: its JSON object."""
    assert answer.status_code == status, answer.text
    assert answer.headers["content-type"].startswith(JSON)
    body = answer.json()
    assert body["errorCode"] == status and body["requestId"]
    return str(body["errorMessage"])
