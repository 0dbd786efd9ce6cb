"""How the server's actions reach Airflow: as ``[falcon] airflow_user``, with a token the api-server's own auth
manager issues, else with the caller's own Airflow token; never with anything of the caller's environment."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from falcon_airflow.operate.airflow_api import AirflowError
from falcon_airflow.operate.settings import Settings
from falcon_airflow.server import airflow_access, airflow_listings
from falcon_airflow.server.airflow_access import ServerAirflowClient, client_factory, issue_token

JWT_SECRET = "a-jwt-secret-of-the-deployment-long-enough-for-hmac-sha512-0123456789abcdef"


@pytest.fixture
def auth_manager(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Any]:
    """Airflow's simple auth manager with two users, as the api-server holds it."""
    from airflow.api_fastapi import app
    from airflow.api_fastapi.auth.managers.simple.simple_auth_manager import SimpleAuthManager

    monkeypatch.setenv("AIRFLOW__CORE__SIMPLE_AUTH_MANAGER_USERS", "admin:admin,carl:viewer")
    monkeypatch.setenv("AIRFLOW__API_AUTH__JWT_SECRET", JWT_SECRET)
    manager = SimpleAuthManager()
    monkeypatch.setattr(app, "get_auth_manager", lambda: manager)
    yield manager


def test_the_auth_manager_issues_the_service_users_token(auth_manager: Any) -> None:
    token = issue_token("admin")
    claims = asyncio.run(auth_manager._get_token_validator().avalidated_claims(token))
    user = auth_manager.deserialize_user(claims)
    assert (user.get_name(), user.role) == ("admin", "admin")
    assert claims["exp"] - claims["iat"] == airflow_access.TOKEN_SECONDS
    with pytest.raises(AirflowError, match=r"airflow_user = nobody: Airflow.s auth manager .* knows no such user"):
        issue_token("nobody")


def settings(tmp_path: Path) -> Settings:
    return Settings(url="http://127.0.0.1:8793", entities=tmp_path, token="from-the-environment", user="env-user",
                    password="env-password")


def sent_authorization(client: ServerAirflowClient, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The Authorization header of each call the client makes (answered with an empty JSON object)."""
    seen: list[str] = []

    def send(method: str, url: str, body: bytes | None, headers: dict[str, str]) -> Any:
        seen.append(headers["Authorization"])
        return {}

    monkeypatch.setattr(client, "_send", send)
    client.request("GET", "/dags")
    return seen


def test_the_service_user_comes_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    issued: list[str] = []

    def issue(user: str) -> str:
        issued.append(user)
        return f"token-of-{user}"

    client = client_factory("falcon-svc", "callers-token", issue)(settings(tmp_path), False)
    assert sent_authorization(client, monkeypatch) == ["Bearer token-of-falcon-svc"]  # type: ignore[arg-type]
    assert issued == ["falcon-svc"]
    # nothing of the settings' own credentials is used
    assert (client.settings.token, client.settings.user, client.settings.password) == (None, None, None)


def test_without_a_service_user_the_callers_airflow_token_is_used(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    client = client_factory(None, "callers-token")(settings(tmp_path), False)
    assert sent_authorization(client, monkeypatch) == ["Bearer callers-token"]  # type: ignore[arg-type]


def test_with_neither_the_action_cannot_reach_airflow(tmp_path: Path) -> None:
    client = client_factory(None, None)(settings(tmp_path), False)
    with pytest.raises(AirflowError, match=r"set \[falcon\] airflow_user"):
        client.request("GET", "/dags")


def test_a_server_acting_as_its_own_user_reads_runs_from_the_database(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    read: list[tuple[str, str]] = []
    monkeypatch.setattr(airflow_listings, "dag_runs", lambda dag_id, **window: read.append(("runs", dag_id)) or [])
    monkeypatch.setattr(airflow_listings, "runs_task_instances",
                        lambda dag_id, **window: read.append(("tis", dag_id)) or [])
    moment = datetime(2026, 1, 1, tzinfo=UTC)

    service = client_factory("falcon-svc", None, lambda user: "token")(settings(tmp_path), False)
    assert service.runs("d", first=moment, last=moment) == []
    assert service.runs_task_instances("d", first=moment, last=moment) == []
    assert read == [("runs", "d"), ("tis", "d")]

    # a caller's own token: Airflow's auth manager decides what that caller may read, through the REST API
    caller = client_factory(None, "callers-token")(settings(tmp_path), False)
    assert sent_authorization(caller, monkeypatch) == ["Bearer callers-token"]  # type: ignore[arg-type]
    monkeypatch.setattr(type(caller), "_pages", lambda self, path, key, params: read.append(("rest", path)) or [])
    caller.runs("d", first=moment, last=moment)
    assert read[-1] == ("rest", "/dags/d/dagRuns")
