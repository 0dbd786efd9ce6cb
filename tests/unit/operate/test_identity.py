"""Only the deployment's own Airflow API proves who acts: with authorization on, a command whose ``-url`` (or
``FALCON_AIRFLOW_URL``) names another server is refused before that server is asked anything; the same address
written another way (a trailing slash, the default port, the loopback by another name) is the same API."""

from __future__ import annotations

import pytest

from falcon_airflow.entities import EntityType

from .helpers import Kit

SCHEDULE = ("entity", "-type", "feed", "-name", "logs", "-schedule")


@pytest.fixture
def secured(pipeline: Kit, monkeypatch: pytest.MonkeyPatch) -> Kit:
    monkeypatch.setenv("AIRFLOW__FALCON__AUTHORIZATION_ENABLED", "True")
    monkeypatch.setenv("FALCON_AIRFLOW_USER", "ops")
    monkeypatch.setenv("FALCON_AIRFLOW_PASSWORD", "Pw-unit-identity-url")
    monkeypatch.delenv("FALCON_AIRFLOW_TOKEN", raising=False)
    for name in ("AIRFLOW__API__BASE_URL", "AIRFLOW__API__PORT"):
        monkeypatch.delenv(name, raising=False)
    pipeline.airflow.roles.update({"ops": frozenset({"Op"})})
    return pipeline


def run_at(kit: Kit, monkeypatch: pytest.MonkeyPatch, how: str, url: str) -> tuple[int, str, str]:
    if how == "option":
        return kit.run(*SCHEDULE, "-url", url)
    monkeypatch.setenv("FALCON_AIRFLOW_URL", url)
    return kit.run(*SCHEDULE)


@pytest.mark.parametrize("how", ["option", "environment"])
@pytest.mark.parametrize(("configured", "url"), [
    (None, "http://attacker.example:8080"),  # another host
    (None, "http://127.0.0.1:9999"),  # another port of this host: another server
    (None, "https://127.0.0.1:8080"),  # another scheme
    ("http://airflow.internal:8080", "http://127.0.0.1:8080"),  # a configured API elsewhere: the local one is not it
    ("https://airflow.internal", "https://airflow.internal.attacker.example"),
    ("https://airflow.internal/airflow", "https://airflow.internal/other"),  # another path on the host
], ids=["host", "port", "scheme", "configured-elsewhere", "look-alike-host", "path"])
def test_another_server_never_proves_who_acts(secured: Kit, monkeypatch: pytest.MonkeyPatch, how: str,
                                              configured: str | None, url: str) -> None:
    if configured is not None:
        monkeypatch.setenv("AIRFLOW__API__BASE_URL", configured)
    code, out, err = run_at(secured, monkeypatch, how, url)
    assert code == 1, (out, err)
    assert "Permission denied: identity is proven only by this deployment's Airflow API" in err
    assert url.rstrip("/") in err
    assert secured.airflow.calls == []  # the other server was not asked anything
    assert secured.context().store.schedule_state(EntityType.FEED, "logs") is None


@pytest.mark.parametrize("how", ["option", "environment"])
@pytest.mark.parametrize(("configured", "url"), [
    (None, "http://127.0.0.1:8080/"),
    (None, "http://localhost:8080"),
    ("http://airflow.internal:8080", "http://AIRFLOW.internal:8080/"),
    ("https://airflow.internal", "https://airflow.internal:443"),
    ("https://airflow.internal/airflow/", "https://airflow.internal/airflow"),
], ids=["trailing-slash", "loopback-name", "host-case", "default-port", "path"])
def test_the_deployments_api_written_another_way_is_the_same(secured: Kit, monkeypatch: pytest.MonkeyPatch,
                                                             how: str, configured: str | None, url: str) -> None:
    if configured is not None:
        monkeypatch.setenv("AIRFLOW__API__BASE_URL", configured)
    code, out, err = run_at(secured, monkeypatch, how, url)
    assert code == 0, (out, err)
    assert secured.context().store.schedule_state(EntityType.FEED, "logs") == "RUNNING"


def test_the_port_of_an_unset_base_url_is_the_api_servers(secured: Kit, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AIRFLOW__API__PORT", "8793")
    assert secured.run(*SCHEDULE, "-url", "http://127.0.0.1:8080")[0] == 1
    assert secured.run(*SCHEDULE, "-url", "http://127.0.0.1:8793")[0] == 0


def test_without_authorization_nobody_is_proven_and_any_server_is_used(pipeline: Kit,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AIRFLOW__FALCON__AUTHORIZATION_ENABLED", raising=False)
    monkeypatch.setenv("FALCON_AIRFLOW_USER", "ops")
    code, out, err = pipeline.run(*SCHEDULE, "-url", "http://another-airflow.example:8080")
    assert code == 0, (out, err)
