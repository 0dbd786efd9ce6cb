"""-doAs follows Falcon's proxy-user rules whether authorization is on or not: who asks is proven (an Airflow
login checked with Airflow, else the operating system account), and may act as another user only as
proxyuser.<who>.hosts/.groups allow, unless a deployment with authorization off sets open_impersonation. A refused
-doAs records nothing, so no job runs as that user."""

from __future__ import annotations

import os
import pwd

import pytest
from tests.builders import ops_process

from falcon_airflow.entities import EntityType

from .helpers import Kit

ACCOUNT = pwd.getpwuid(os.getuid()).pw_name
PASSWORD = "Pw-doas-3f9b2c-never-shown"


@pytest.fixture
def open_store(pipeline: Kit, monkeypatch: pytest.MonkeyPatch) -> Kit:
    """The pipeline with authorization off (the default) and no Airflow login: the OS account acts."""
    for name in ("FALCON_AIRFLOW_USER", "FALCON_AIRFLOW_PASSWORD", "FALCON_AIRFLOW_TOKEN",
                 "AIRFLOW__FALCON__AUTHORIZATION_ENABLED", "AIRFLOW__FALCON__OPEN_IMPERSONATION"):
        monkeypatch.delenv(name, raising=False)
    return pipeline


def _actions(kit: Kit) -> list[tuple[str, ...]]:
    draft = kit.draft("other.xml", ops_process("other", output="logs"))
    return [("entity", "-submit", "-type", "process", "-file", str(draft)),
            ("entity", "-schedule", "-type", "feed", "-name", "logs"),
            ("entity", "-submitAndSchedule", "-type", "process", "-file", str(draft))]


def _recorded(kit: Kit) -> set[str | None]:
    store = kit.context().store
    return {store.proxy_user(EntityType.PROCESS, "other"), store.proxy_user(EntityType.FEED, "logs")}


@pytest.mark.parametrize("index", range(3))
@pytest.mark.parametrize("do_as", ["hdfs", "root-ish", "alice"])
def test_with_authorization_off_do_as_needs_the_proxyuser_rules(open_store: Kit, index: int, do_as: str) -> None:
    if do_as == ACCOUNT:
        pytest.skip("the account acting as itself needs no rule")
    command = _actions(open_store)[index]
    code, _, err = open_store.run(*command, "-doAs", do_as)
    assert code == 1 and f"user={ACCOUNT}" in err and "is not defined as a proxyuser" in err, err
    assert "whether [falcon] authorization_enabled is on or not" in err
    assert _recorded(open_store) == {None}


@pytest.mark.parametrize("spoof", [{"USER": "hdfs", "LOGNAME": "hdfs"}, {"FALCON_AIRFLOW_USER": "hdfs"}])
def test_a_claimed_name_proves_nothing(open_store: Kit, monkeypatch: pytest.MonkeyPatch,
                                       spoof: dict[str, str]) -> None:
    for name, value in spoof.items():
        monkeypatch.setenv(name, value)
    code, _, err = open_store.run("entity", "-schedule", "-type", "feed", "-name", "logs", "-doAs", "hdfs")
    assert code == 1 and ("needs a proven identity" in err or "is not defined as a proxyuser" in err), err
    assert _recorded(open_store) == {None}


def test_an_airflow_login_is_checked_with_airflow(open_store: Kit, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FALCON_AIRFLOW_USER", "ops")
    monkeypatch.setenv("FALCON_AIRFLOW_PASSWORD", PASSWORD)
    monkeypatch.setenv("AIRFLOW__FALCON__PROXYUSER.OPS.HOSTS", "*")
    monkeypatch.setenv("AIRFLOW__FALCON__PROXYUSER.OPS.GROUPS", "etl-group")
    monkeypatch.setenv("AIRFLOW__FALCON__GROUPS.ETL", "etl-group")
    assert open_store.run("entity", "-schedule", "-type", "feed", "-name", "logs", "-doAs", "etl")[0] == 0
    assert "authenticate" in open_store.airflow.calls
    assert open_store.context().store.proxy_user(EntityType.FEED, "logs") == "etl"
    code, _, err = open_store.run("entity", "-schedule", "-type", "feed", "-name", "logs", "-doAs", "bob")
    assert code == 1 and "bob is not in proxyuser.ops.groups=etl-group" in err


@pytest.mark.parametrize(("hosts", "groups", "allowed"), [("*", "*", True), ("*", "analysts", True),
                                                           ("elsewhere", "*", False), ("*", "others", False)])
def test_the_proxyuser_rules_decide(open_store: Kit, monkeypatch: pytest.MonkeyPatch, hosts: str, groups: str,
                                    allowed: bool) -> None:
    monkeypatch.setenv(f"AIRFLOW__FALCON__PROXYUSER.{ACCOUNT.upper()}.HOSTS", hosts)
    monkeypatch.setenv(f"AIRFLOW__FALCON__PROXYUSER.{ACCOUNT.upper()}.GROUPS", groups)
    monkeypatch.setenv("AIRFLOW__FALCON__GROUPS.ALICE", "analysts")
    code = open_store.run("entity", "-schedule", "-type", "feed", "-name", "logs", "-doAs", "alice")[0]
    assert (code == 0) is allowed
    assert open_store.context().store.proxy_user(EntityType.FEED, "logs") == ("alice" if allowed else None)


def test_acting_as_oneself_needs_no_rule(open_store: Kit) -> None:
    assert open_store.run("entity", "-schedule", "-type", "feed", "-name", "logs", "-doAs", ACCOUNT)[0] == 0
    assert open_store.context().store.proxy_user(EntityType.FEED, "logs") == ACCOUNT


def test_open_impersonation_is_the_deployments_explicit_choice(open_store: Kit,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AIRFLOW__FALCON__OPEN_IMPERSONATION", "True")
    assert open_store.run("entity", "-schedule", "-type", "feed", "-name", "logs", "-doAs", "hdfs")[0] == 0
    assert open_store.context().store.proxy_user(EntityType.FEED, "logs") == "hdfs"


def test_open_impersonation_does_not_lift_the_rules_with_authorization_on(open_store: Kit,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AIRFLOW__FALCON__OPEN_IMPERSONATION", "True")
    monkeypatch.setenv("AIRFLOW__FALCON__AUTHORIZATION_ENABLED", "True")
    monkeypatch.setenv("FALCON_AIRFLOW_USER", "root")
    monkeypatch.setenv("FALCON_AIRFLOW_PASSWORD", PASSWORD)
    open_store.airflow.roles.update({"root": frozenset({"Admin"})})
    code, _, err = open_store.run("entity", "-schedule", "-type", "feed", "-name", "logs", "-doAs", "hdfs")
    assert code == 1 and "root is not defined as a proxyuser" in err
    assert open_store.context().store.proxy_user(EntityType.FEED, "logs") is None


@pytest.mark.parametrize("enabled", [False, True])
@pytest.mark.parametrize("do_as", ["{{ conn.db.password }}", "hdfs --conf x=y", "a b", "bob'"])
def test_a_do_as_that_is_no_user_name_is_refused(open_store: Kit, monkeypatch: pytest.MonkeyPatch, enabled: bool,
                                                 do_as: str) -> None:
    monkeypatch.setenv("AIRFLOW__FALCON__OPEN_IMPERSONATION", "True")
    if enabled:
        monkeypatch.setenv("AIRFLOW__FALCON__AUTHORIZATION_ENABLED", "True")
    code, _, err = open_store.run("entity", "-schedule", "-type", "feed", "-name", "logs", "-doAs", do_as)
    assert code == 1 and "is not a user name" in err
    assert open_store.context().store.proxy_user(EntityType.FEED, "logs") is None
