"""The import/export task resolves only the credentials the deployment allows ([falcon] datasource_connections,
datasource_credential_roots): an Airflow connection outside the allow-list is never looked up, a connection gives
its password only to the host it names, a password file or keystore outside the roots is refused before anything is
submitted, and the job is told the roots."""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

import pytest

from falcon_airflow.core.databases.credentials import ROOTS_ENV, CredentialPolicy
from falcon_airflow.provider.operators import database as module
from falcon_airflow.provider.operators.database import CredentialError, DatabaseTransferOperator, resolve_secret
from falcon_airflow.provider.operators.spark import FalconSparkSubmitOperator


def spec(**credential: Any) -> dict[str, Any]:
    return {"datasource": "shop", "datasource_file": "/entities/shop.xml", "interface": "readonly",
            "url": "jdbc:postgresql://db.example:5432/shop", "owner": "ana", "user": "reader", **credential}


def alias(name: str, provider: str = "jceks://file/etc/security/all.jceks") -> dict[str, Any]:
    return spec(credential_type="password-alias", password_alias=name, credential_provider=provider)


@pytest.fixture
def connections(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """Airflow connections by id; every lookup is recorded in ``looked_up``."""
    known: dict[str, Any] = {"looked_up": []}

    def lookup(conn_id: str) -> Any:
        known["looked_up"].append(conn_id)
        return known.get(conn_id)

    monkeypatch.setattr(module, "airflow_connection", lookup)
    return known


def connection(conn_id: str, host: str | None = None, port: int | None = None) -> SimpleNamespace:
    return SimpleNamespace(conn_id=conn_id, login="svc", password="Pa55word", host=host, port=port)


DEFAULT = CredentialPolicy.from_settings(None, None)
OWNER_BOUND = CredentialPolicy.from_settings("falcon_ds_{owner}_*", "/secure/{owner}")


@pytest.mark.parametrize(("conn_id", "policy"), [
    pytest.param("airflow_db", DEFAULT, id="metadata-db"),
    pytest.param("aws_default", DEFAULT, id="another-pipelines-connection"),
    pytest.param("falcon_ds_bob_shop", OWNER_BOUND, id="another-owners-connection"),
])
def test_a_connection_outside_the_allow_list_is_never_looked_up(connections: dict[str, Any], conn_id: str,
                                                                 policy: CredentialPolicy) -> None:
    connections[conn_id] = connection(conn_id)
    with pytest.raises(CredentialError) as refused:
        resolve_secret(alias(conn_id), policy)
    message = str(refused.value)
    assert connections["looked_up"] == []
    assert "datasource 'shop' (/entities/shop.xml)" in message and "rule FA040" in message
    assert "datasource_connections" in message and "datasource_credential_roots" in message
    assert "Pa55word" not in message


@pytest.mark.parametrize(("conn_id", "policy"), [
    pytest.param("falcon_datasource_shop", DEFAULT, id="default-prefix"),
    pytest.param("falcon_ds_ana_shop", OWNER_BOUND, id="owners-own"),
])
def test_an_allowed_connection_gives_its_login_and_password(connections: dict[str, Any], conn_id: str,
                                                            policy: CredentialPolicy) -> None:
    connections[conn_id] = connection(conn_id, host="db.example")
    assert resolve_secret(alias(conn_id), policy) == ("svc", "Pa55word")


@pytest.mark.parametrize(("host", "port", "url"), [
    pytest.param("db.example", None, "jdbc:postgresql://attacker.example:5432/shop", id="another-host"),
    pytest.param("db.example", 5432, "jdbc:postgresql://db.example:6543/shop", id="another-port"),
    pytest.param("db.example", None, "jdbc:sqlite:/tmp/collect.db", id="a-local-file"),
])
def test_a_connection_names_the_only_host_its_password_goes_to(connections: dict[str, Any], host: str,
                                                               port: int | None, url: str) -> None:
    connections["falcon_datasource_shop"] = connection("falcon_datasource_shop", host=host, port=port)
    with pytest.raises(CredentialError, match="rule FA040"):
        resolve_secret({**alias("falcon_datasource_shop"), "url": url}, DEFAULT)


@pytest.mark.parametrize(("path", "reason"), [
    pytest.param("/home/airflow/airflow/airflow.cfg", "not under", id="worker-config"),
    pytest.param("/secure/ana/../bob/shop.password", "goes up", id="dot-dot"),
    pytest.param("/secure/ana/%2e%2e/bob/shop.password", "goes up", id="encoded-dot-dot"),
    pytest.param("/secure/bob/shop.password", "not under", id="another-owners-folder"),
])
def test_a_password_file_outside_the_roots_is_refused(path: str, reason: str) -> None:
    with pytest.raises(CredentialError) as refused:
        resolve_secret(spec(credential_type="password-file", password_file=path), OWNER_BOUND)
    assert "rule FA041" in str(refused.value) and reason in str(refused.value)


def test_a_keystore_under_the_roots_is_left_to_the_job(connections: dict[str, Any]) -> None:
    found = resolve_secret(alias("shop.admin", "localjceks://file/secure/ana/shop.jceks"), OWNER_BOUND)
    assert found is None and connections["looked_up"] == []
    assert resolve_secret(spec(credential_type="password-file", password_file="/secure/ana/pw"), OWNER_BOUND) is None


def test_the_job_is_told_the_owners_roots(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(module, "deployment_policy", lambda: OWNER_BOUND)
    seen: dict[str, Any] = {}

    def execute(self: FalconSparkSubmitOperator, context: Any) -> None:
        seen.update(self.env_vars or {})

    monkeypatch.setattr(FalconSparkSubmitOperator, "execute", execute)
    task = DatabaseTransferOperator(task_id="import", database=spec(credential_type="password-file",
                                                                    password_file="/secure/ana/pw"),
                                    application="job.py", master="local[1]", env_vars={"KEEP": "1"})
    task.execute({})
    assert json.loads(seen[ROOTS_ENV]) == ["/secure/ana"] and seen["KEEP"] == "1"
    assert task.env_vars == {"KEEP": "1"}


def test_a_refused_credential_submits_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(module, "deployment_policy", lambda: DEFAULT)
    monkeypatch.setattr(FalconSparkSubmitOperator, "execute", lambda self, context: pytest.fail("submitted"))
    task = DatabaseTransferOperator(task_id="import", database=spec(credential_type="password-file",
                                                                    password_file="/etc/passwd"),
                                    application="job.py", master="local[1]")
    with pytest.raises(CredentialError, match="datasource_credential_roots is not set"):
        task.execute({})


def test_the_worker_reads_the_policy_from_airflows_configuration(monkeypatch: pytest.MonkeyPatch) -> None:
    assert module.deployment_policy() == CredentialPolicy(("falcon_datasource_*",), ())  # the provider's defaults
    monkeypatch.setenv("AIRFLOW__FALCON__DATASOURCE_CONNECTIONS", "falcon_ds_{owner}_*")
    monkeypatch.setenv("AIRFLOW__FALCON__DATASOURCE_CREDENTIAL_ROOTS", "/secure/{owner}")
    assert module.deployment_policy() == OWNER_BOUND
