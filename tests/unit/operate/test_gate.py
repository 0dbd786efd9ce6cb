"""Every command passes the gate: the acting user, Falcon's authorization, -doAs rules and the audit trail."""

from __future__ import annotations

import base64
import json
import stat
from pathlib import Path

import pytest
from tests.builders import ops_feed

from falcon_airflow.entities import EntityType
from falcon_airflow.operate import audit

from .helpers import Kit

PASSWORD = "Pw-unit-7c1e9a-never-shown"


@pytest.fixture
def secured(pipeline: Kit, monkeypatch: pytest.MonkeyPatch) -> Kit:
    """The pipeline with authorization on; roles as the FAB auth manager would give them."""
    monkeypatch.setenv("AIRFLOW__FALCON__AUTHORIZATION_ENABLED", "True")
    monkeypatch.setenv("FALCON_AIRFLOW_PASSWORD", PASSWORD)
    monkeypatch.delenv("FALCON_AIRFLOW_TOKEN", raising=False)
    pipeline.airflow.roles.update({"root": frozenset({"Admin"}), "ops": frozenset({"Op"}),
                                   "carl": frozenset({"Viewer"}), "uma": frozenset({"Viewer"})})
    return pipeline


def as_user(monkeypatch: pytest.MonkeyPatch, user: str) -> None:
    monkeypatch.setenv("FALCON_AIRFLOW_USER", user)


def audit_lines(kit: Kit) -> list[dict[str, object]]:
    """One entry per command: its attempt and result lines paired."""
    return audit.commands(kit.context().store)


def test_an_outsider_is_refused_before_anything_changes(secured: Kit, monkeypatch: pytest.MonkeyPatch) -> None:
    as_user(monkeypatch, "carl")
    before = sorted(path.name for path in secured.context().store.meta.glob("*"))
    code, out, err = secured.run("entity", "-type", "feed", "-name", "logs", "-schedule")
    assert code == 1 and not out
    assert ("ERROR: Permission denied: user=carl may not entity -schedule feed logs: missing the write right "
            "(not entity owner=ops and not in group=users)") in err
    context = secured.context()
    assert context.store.schedule_state(EntityType.FEED, "logs") is None
    assert set(secured.airflow.calls) <= {"authenticate", "user_roles"}  # who carl is, nothing else
    assert sorted(path.name for path in context.store.meta.glob("*")) == sorted({*before, "audit.log"})
    (entry,) = audit_lines(secured)
    assert entry["user"] == "carl" and entry["result"] == "DENIED" and entry["action"] == "schedule"
    assert entry["type"] == "feed" and entry["name"] == "logs" and "missing the write right" in str(entry["reason"])


def test_the_owner_and_a_member_of_the_group_may_act(secured: Kit, monkeypatch: pytest.MonkeyPatch) -> None:
    as_user(monkeypatch, "ops")
    assert secured.run("entity", "-type", "feed", "-name", "logs", "-schedule")[0] == 0
    assert secured.context().store.schedule_state(EntityType.FEED, "logs") == "RUNNING"
    as_user(monkeypatch, "uma")
    monkeypatch.setenv("AIRFLOW__FALCON__GROUPS.UMA", "users")  # uma is in the ACL group
    assert secured.run("entity", "-type", "feed", "-name", "logs", "-suspend")[0] == 0
    assert [entry["result"] for entry in audit_lines(secured)] == ["SUCCEEDED", "SUCCEEDED"]


def test_submit_is_checked_against_the_acl_it_brings(secured: Kit, monkeypatch: pytest.MonkeyPatch) -> None:
    as_user(monkeypatch, "carl")
    draft = secured.draft("other.xml", ops_feed("other"))
    code, _, err = secured.run("entity", "-type", "feed", "-file", str(draft), "-submit")
    assert code == 1 and "user=carl may not entity -submit feed other" in err
    assert secured.context().store.get(EntityType.FEED, "other") is None
    as_user(monkeypatch, "root")  # Airflow's Admin role: a superuser
    # Falcon's parser: the ACL owner (ops, role Op) must be in the ACL group (users)
    code, _, err = secured.run("entity", "-type", "feed", "-file", str(draft), "-submit")
    assert code == 1 and ("invalid ACL of feed other: group users for user ops: the owner is not in the group "
                          "(its groups: Op)") in err
    assert secured.context().store.get(EntityType.FEED, "other") is None
    monkeypatch.setenv("AIRFLOW__FALCON__GROUPS.OPS", "users")
    assert secured.run("entity", "-type", "feed", "-file", str(draft), "-submit")[0] == 0


def test_admin_actions_need_an_admin(secured: Kit, monkeypatch: pytest.MonkeyPatch) -> None:
    as_user(monkeypatch, "ops")
    code, _, err = secured.run("admin", "-setsafemode", "true")
    assert code == 1 and "user=ops does not have admin privilege for action=admin -setsafemode" in err
    assert not secured.context().store.safemode
    as_user(monkeypatch, "root")
    assert secured.run("admin", "-setsafemode", "true")[0] == 0
    assert secured.context().store.safemode


def test_do_as_needs_the_proxyuser_rules(secured: Kit, monkeypatch: pytest.MonkeyPatch) -> None:
    as_user(monkeypatch, "root")
    code, _, err = secured.run("entity", "-type", "feed", "-name", "logs", "-schedule", "-doAs", "ops")
    assert code == 1 and "root is not defined as a proxyuser" in err
    assert secured.context().store.proxy_user(EntityType.FEED, "logs") is None  # no Spark --proxy-user
    monkeypatch.setenv("AIRFLOW__FALCON__PROXYUSER.ROOT.HOSTS", "*")
    monkeypatch.setenv("AIRFLOW__FALCON__PROXYUSER.ROOT.GROUPS", "Op")
    assert secured.run("entity", "-type", "feed", "-name", "logs", "-schedule", "-doAs", "ops")[0] == 0
    assert secured.context().store.proxy_user(EntityType.FEED, "logs") == "ops"
    entries = audit_lines(secured)
    assert [(entry["user"], entry["doAs"], entry["result"]) for entry in entries] == [
        ("root", "ops", "DENIED"), ("root", "ops", "SUCCEEDED")]


def test_admin_audit_lists_and_narrows(secured: Kit, monkeypatch: pytest.MonkeyPatch) -> None:
    as_user(monkeypatch, "carl")
    secured.run("entity", "-type", "feed", "-name", "logs", "-suspend")
    secured.run("entity", "-type", "feed", "-list")
    as_user(monkeypatch, "root")
    code, document = secured.json("admin", "-audit", "-user", "carl")
    assert code == 0
    assert [(entry["action"], entry["result"]) for entry in document["entries"]] == [
        ("suspend", "DENIED"), ("list", "SUCCEEDED")]
    code, out, _ = secured.run("admin", "-audit", "-start", "2000-01-01T00:00Z", "-end", "2000-01-02T00:00Z")
    assert code == 0 and out.strip() == "no audited commands"
    code, out, _ = secured.run("admin", "-audit")
    assert "carl  entity -suspend feed logs  DENIED: Permission denied" in out
    as_user(monkeypatch, "carl")
    assert secured.run("admin", "-audit")[0] == 1  # the trail is for admins


def test_off_by_default_yet_audited(pipeline: Kit, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AIRFLOW__FALCON__AUTHORIZATION_ENABLED", raising=False)
    as_user(monkeypatch, "carl")
    assert pipeline.run("entity", "-type", "feed", "-name", "logs", "-schedule")[0] == 0
    assert [entry["user"] for entry in audit_lines(pipeline)] == ["carl"]
    assert "user_roles" not in pipeline.airflow.calls


def test_store_and_audit_are_their_owners_only(secured: Kit, monkeypatch: pytest.MonkeyPatch) -> None:
    as_user(monkeypatch, "ops")
    assert secured.run("entity", "-type", "feed", "-name", "logs", "-schedule")[0] == 0
    meta = secured.context().store.meta
    assert stat.S_IMODE(meta.stat().st_mode) == 0o700
    for path in meta.rglob("*"):
        if path.is_file() and path.name != "lock":
            assert stat.S_IMODE(path.stat().st_mode) == 0o600, path


def test_secrets_are_never_printed_or_logged(secured: Kit, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    as_user(monkeypatch, "carl")
    printed: list[str] = []
    for argv in (("entity", "-type", "feed", "-name", "logs", "-suspend", "-debug"),
                 ("entity", "-type", "feed", "-name", "logs", "-status", "-json"),
                 ("instance", "-type", "feed", "-name", "nothing", "-kill", "-start", "2026-01-01T00:00Z"),
                 ("admin", "-status"), ("entity", "-type", "feed", "-list", "-doAs", PASSWORD)):
        _, out, err = secured.run(*argv)
        printed += [out, err]
    as_user(monkeypatch, "root")
    printed += list(secured.run("admin", "-audit"))[1:]
    assert audit_lines(secured)
    assert not any(PASSWORD in text for text in printed)
    for path in tmp_path.rglob("*"):
        if path.is_file():
            assert PASSWORD.encode() not in path.read_bytes(), path


def token_for(subject: str) -> str:
    def part(document: dict[str, str]) -> str:
        return base64.urlsafe_b64encode(json.dumps(document).encode()).decode().rstrip("=")

    return f"{part({'alg': 'none'})}.{part({'sub': subject})}.signature"


def test_only_a_proven_airflow_login_is_authorized(secured: Kit, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FALCON_AIRFLOW_USER", raising=False)
    code, _, err = secured.run("entity", "-type", "feed", "-name", "logs", "-status")
    assert code == 1 and "is not an Airflow login" in err
    # a token speaks for its subject, whatever FALCON_AIRFLOW_USER claims
    monkeypatch.delenv("FALCON_AIRFLOW_PASSWORD")
    monkeypatch.setenv("FALCON_AIRFLOW_TOKEN", token_for("carl"))
    as_user(monkeypatch, "ops")
    code, _, err = secured.run("entity", "-type", "feed", "-name", "logs", "-suspend")
    assert code == 1 and "user=carl may not entity -suspend" in err
    monkeypatch.setenv("FALCON_AIRFLOW_TOKEN", token_for("7"))  # the FAB auth manager's tokens carry the user id
    code, _, err = secured.run("entity", "-type", "feed", "-name", "logs", "-status")
    assert code == 1 and "names Airflow user id 7, not a user name" in err
    assert [entry["result"] for entry in audit_lines(secured)] == ["DENIED"] * 3


def test_listings_show_only_what_the_user_may_read(secured: Kit, monkeypatch: pytest.MonkeyPatch) -> None:
    """Falcon's entity list, summary and instance search leave out the entities the user has no read right on."""
    def listed(*argv: str) -> list[str]:
        code, document = secured.json(*argv)
        assert code == 0, document
        return sorted(item["name"] for item in document.get("entity") or [])

    everything = ["count", "counts", "east", "logs", "west"]
    as_user(monkeypatch, "root")  # a superuser sees everything
    assert listed("entity", "-list") == everything
    as_user(monkeypatch, "carl")  # in no ACL group, owner of nothing
    assert listed("entity", "-list") == []
    assert listed("entity", "-list", "-type", "feed") == []
    code, document = secured.json("instance", "-search", "-type", "feed")
    assert code == 0 and document.get("instances", []) == [], document
    as_user(monkeypatch, "ops")  # the owner of the feeds (the process is analytics')
    assert listed("entity", "-list", "-type", "feed,process") == ["counts", "logs"]
    as_user(monkeypatch, "uma")
    monkeypatch.setenv("AIRFLOW__FALCON__GROUPS.UMA", "users")  # the ACL group reads
    assert set(listed("entity", "-list", "-type", "feed,process")) == {"count", "counts", "logs"}
