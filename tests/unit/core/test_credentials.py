"""The deployment's allow-lists for datasource credentials: which Airflow connections a password-alias may resolve,
under which folders a password file or a keystore may lie (decoded, normalised, no '..')."""

from __future__ import annotations

from pathlib import Path

import pytest

from falcon_airflow.core.databases.credentials import (
    CredentialPolicy,
    _file_lookup,
    configured_policy,
    resolved_under,
)


def policy(connections: str | None = None, roots: str | None = None) -> CredentialPolicy:
    return CredentialPolicy.from_settings(connections, roots)


@pytest.mark.parametrize(("connections", "conn_id", "owner", "allowed"), [
    pytest.param(None, "falcon_datasource_shop", None, True, id="default-prefix"),
    pytest.param(None, "airflow_db", None, False, id="default-refuses-the-metadata-db"),
    pytest.param(None, "aws_default", "ana", False, id="default-refuses-another-connection"),
    pytest.param(None, "falcon_datasource", None, False, id="default-needs-the-whole-prefix"),
    pytest.param("", "falcon_datasource_shop", None, False, id="empty-allows-none"),
    pytest.param("falcon_ds_{owner}_*", "falcon_ds_ana_shop", "ana", True, id="owner-own"),
    pytest.param("falcon_ds_{owner}_*", "falcon_ds_bob_shop", "ana", False, id="owner-other"),
    pytest.param("falcon_ds_{owner}_*", "falcon_ds_bob_shop", "*", False, id="owner-glob-does-not-widen"),
    pytest.param("falcon_ds_{owner}_*", "falcon_ds_bob_shop", "b?b", False, id="owner-question-mark"),
    pytest.param("falcon_ds_{owner}_*", "falcon_ds__shop", None, False, id="owner-missing"),
    pytest.param("shop_reader, falcon_ds_*", "shop_reader", None, True, id="exact-id-in-a-list"),
])
def test_connection_allow_list(connections: str | None, conn_id: str, owner: str | None, allowed: bool) -> None:
    assert policy(connections).connection_allowed(conn_id, owner) is allowed


ROOTS = "/secure/db, hdfs://nn:8020/vault/{owner}"


@pytest.mark.parametrize(("path", "owner", "reason"), [
    pytest.param("/secure/db/shop.password", "ana", None, id="under-a-root"),
    pytest.param("/secure/db/./team//shop.password", "ana", None, id="dot-and-double-slash"),
    pytest.param("hdfs://nn:8020/vault/ana/shop.password", "ana", None, id="owner-root"),
    pytest.param("/secure/db/../../etc/airflow.cfg", "ana", "goes up", id="dot-dot"),
    pytest.param("/secure/db/%2e%2e/%2e%2e/etc/passwd", "ana", "goes up", id="encoded-dot-dot"),
    pytest.param("/secure/db%2f..%2f..%2fetc/passwd", "ana", "goes up", id="encoded-slashes"),
    pytest.param("/secure/dbx/shop.password", "ana", "not under", id="prefix-is-not-a-folder"),
    pytest.param("/home/airflow/airflow.cfg", "ana", "not under", id="outside"),
    pytest.param("hdfs://nn:8020/vault/bob/shop.password", "ana", "not under", id="another-owners-root"),
    pytest.param("hdfs://nn:8020/vault/ana/x", "../bob", "not under", id="owner-with-separator"),
    pytest.param("s3a://bucket/secure/db/x", "ana", None, id="bare-root-any-scheme-textually"),
    pytest.param("hdfs://other:8020/vault/ana/x", "ana", "not under", id="another-name-node"),
    pytest.param("", "ana", "empty", id="empty"),
])
def test_password_file_roots(path: str, owner: str, reason: str | None) -> None:
    problem = policy(roots=ROOTS).file_problem(path, owner)
    if reason is None:
        assert problem is None
    else:
        assert problem is not None and reason in problem
        assert "datasource_credential_roots" in problem or "refused" in problem


@pytest.mark.parametrize("path", ["/secure/x", "/etc/passwd", "hdfs://nn/x"])
def test_no_roots_allow_no_file(path: str) -> None:
    problem = policy().file_problem(path, "ana")
    assert problem is not None and "datasource_credential_roots is not set" in problem


@pytest.mark.parametrize(("provider", "allowed"), [
    pytest.param("jceks://hdfs@nn:8020/vault/ana/shop.jceks", True, id="nested-hdfs"),
    pytest.param("localjceks://file/secure/db/shop.jceks", True, id="local-file"),
    pytest.param("jceks://file/etc/security/all.jceks", False, id="outside"),
    pytest.param("jceks://file/secure/db/../../etc/all.jceks", False, id="dot-dot"),
    pytest.param("user:///", False, id="user-credentials"),
    pytest.param("jceks://file/secure/db/a.jceks,jceks://file/etc/b.jceks", False, id="one-of-a-list-outside"),
])
def test_credential_provider_keystores(provider: str, allowed: bool) -> None:
    assert (policy(roots=ROOTS).provider_problem(provider, "ana") is None) is allowed


@pytest.mark.parametrize(("path", "roots", "inside"), [
    pytest.param("file:///secure/db/p", ["file:///secure/db"], True, id="same"),
    pytest.param("file:///secure/dbx/p", ["file:///secure/db"], False, id="sibling-prefix"),
    pytest.param("hdfs://nn:8020/secure/db/p", ["file:///secure/db"], False, id="another-file-system"),
    pytest.param("hdfs://nn:8020/secure/db/p", ["hdfs://nn2:8020/secure/db"], False, id="another-authority"),
    pytest.param("file:///etc/passwd", [], False, id="no-roots"),
])
def test_resolved_paths_compare_exactly(path: str, roots: list[str], inside: bool) -> None:
    assert resolved_under(path, roots) is inside


def test_without_airflow_the_settings_come_from_the_environment_else_airflow_cfg(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "airflow.cfg").write_text("[falcon]\ndatasource_credential_roots = /from/file\n"
                                          "datasource_connections = from_file_*\n")
    monkeypatch.setenv("AIRFLOW_CONFIG", str(tmp_path / "airflow.cfg"))
    monkeypatch.delenv("AIRFLOW__FALCON__DATASOURCE_CREDENTIAL_ROOTS", raising=False)
    monkeypatch.setenv("AIRFLOW__FALCON__DATASOURCE_CONNECTIONS", "from_env_*")
    assert configured_policy(_file_lookup()) == CredentialPolicy(("from_env_*",), ("/from/file",))
    assert configured_policy(lambda key: None) == CredentialPolicy(("falcon_datasource_*",), ())
