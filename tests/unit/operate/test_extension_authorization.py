"""``extension`` commands pass the same authorization as entity commands: a job's ACL (``jobAclOwner``,
``jobAclGroup``, ``jobAclPermission``) decides who may read and change it, a submitted or updated job is checked
against the ACL it brings, superusers may do anything, listings show what the user may read."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest

from falcon_airflow.entities.extension import ENTITY_TYPE

from .helpers import Kit

JOB = """\
jobName=sales-dr
jobClusterName=west
jobValidityStart=2026-05-01T00:00Z
jobValidityEnd=2026-05-03T00:00Z
jobFrequency=hours(1)
sourceCluster=east
sourceDir=/data/sales
targetCluster=west
targetDir=/backup/sales
jobAclOwner=ops
jobAclGroup=users
jobAclPermission={permission}
"""
DAG = "falcon.extension.sales-dr"


def job_text(*, owner: str | None = "ops", group: str | None = "users", permission: str = "*",
             target: str = "/backup/sales", name: str = "sales-dr") -> str:
    lines = []
    for line in JOB.format(permission=permission).splitlines():
        if line.startswith("jobAclOwner=") and owner != "ops":
            line = f"jobAclOwner={owner}" if owner else ""
        if line.startswith("jobAclGroup=") and group != "users":
            line = f"jobAclGroup={group}" if group else ""
        line = line.replace("targetDir=/backup/sales", f"targetDir={target}").replace("sales-dr", name)
        if line:
            lines.append(line)
    return "\n".join(lines) + "\n"


@pytest.fixture
def secured(pipeline: Kit, monkeypatch: pytest.MonkeyPatch) -> Kit:
    """The pipeline with authorization on and ops's job sales-dr running; roles as FAB would give them."""
    monkeypatch.setenv("AIRFLOW__FALCON__AUTHORIZATION_ENABLED", "True")
    monkeypatch.setenv("FALCON_AIRFLOW_PASSWORD", "Pw-unit-extension-acl")
    monkeypatch.delenv("FALCON_AIRFLOW_TOKEN", raising=False)
    monkeypatch.setenv("AIRFLOW__FALCON__GROUPS.OPS", "users")
    pipeline.airflow.roles.update({"root": frozenset({"Admin"}), "ops": frozenset({"Op"}),
                                   "carl": frozenset({"Viewer"}), "uma": frozenset({"Viewer"})})
    stored = pipeline.root / "extensions" / "hdfs-mirroring" / "sales-dr.properties"
    stored.parent.mkdir(parents=True)
    stored.write_text(job_text(), encoding="utf-8")
    pipeline.airflow.add_dag(DAG, ("mirror",), paused=False)
    pipeline.context().store.set_schedule_state(ENTITY_TYPE, "sales-dr", "RUNNING", user="ops")
    return pipeline


def as_user(monkeypatch: pytest.MonkeyPatch, user: str) -> None:
    monkeypatch.setenv("FALCON_AIRFLOW_USER", user)


def stored_job(kit: Kit) -> str:
    return (kit.root / "extensions" / "hdfs-mirroring" / "sales-dr.properties").read_text(encoding="utf-8")


def state(kit: Kit) -> str | None:
    return kit.context().store.schedule_state(ENTITY_TYPE, "sales-dr")


def command(kit: Kit, action: str) -> tuple[str, ...]:
    """The argv of an extension action on sales-dr (an update moves its target folder)."""
    if action == "update":
        moved = kit.draft("sales-dr.properties", job_text(target="/backup/elsewhere"))
        return ("extension", "-update", "-extensionName", "hdfs-mirroring", "-file", str(moved))
    if action == "instances":
        return ("extension", "-instances", "-jobName", "sales-dr", "-start", "2026-05-01T00:00Z",
                "-end", "2026-05-01T02:00Z")
    return ("extension", f"-{action}", "-jobName", "sales-dr")


WRITES = ("update", "delete", "suspend", "schedule", "resume")
READS = ("definition", "detail", "instances")


@pytest.mark.parametrize("action", WRITES + READS)
def test_an_outsider_may_neither_change_nor_read_another_users_job(secured: Kit, monkeypatch: pytest.MonkeyPatch,
                                                                   action: str) -> None:
    if action == "resume":
        secured.context().store.set_schedule_state(ENTITY_TYPE, "sales-dr", "SUSPENDED", user="ops")
    before = (stored_job(secured), state(secured))
    as_user(monkeypatch, "carl")
    code, out, err = secured.run(*command(secured, action))
    assert code == 1, (out, err)
    right = "write" if action in WRITES else "read"
    assert (f"Permission denied: user=carl may not extension -{action} extension sales-dr: missing the {right} "
            "right (not entity owner=ops and not in group=users)") in err
    assert (stored_job(secured), state(secured)) == before
    assert set(secured.airflow.calls) <= {"authenticate", "user_roles"}
    assert secured.airflow.dags_by_id[DAG]["is_paused"] is False


@pytest.mark.parametrize("user", ["ops", "uma", "root"], ids=["owner", "group-member", "superuser"])
@pytest.mark.parametrize("action", ["update", "suspend", "delete", "detail"])
def test_the_owner_a_member_of_the_group_and_a_superuser_may(secured: Kit, monkeypatch: pytest.MonkeyPatch,
                                                             user: str, action: str) -> None:
    monkeypatch.setenv("AIRFLOW__FALCON__GROUPS.UMA", "users")
    as_user(monkeypatch, user)
    code, out, err = secured.run(*command(secured, action))
    assert code == 0, (out, err)
    if action == "update":
        assert "targetDir=/backup/elsewhere" in stored_job(secured)
    if action == "suspend":
        assert state(secured) == "SUSPENDED"
    if action == "delete":
        assert not (secured.root / "extensions" / "hdfs-mirroring" / "sales-dr.properties").exists()


@pytest.mark.parametrize(("permission", "reads", "writes"), [("0x750", True, False), ("rw-r-----", True, False),
                                                             ("0700", False, False), ("*", True, True)])
def test_the_group_has_what_the_permission_gives(secured: Kit, monkeypatch: pytest.MonkeyPatch, permission: str,
                                                 reads: bool, writes: bool) -> None:
    stored = secured.root / "extensions" / "hdfs-mirroring" / "sales-dr.properties"
    stored.write_text(job_text(permission=permission), encoding="utf-8")
    monkeypatch.setenv("AIRFLOW__FALCON__GROUPS.UMA", "users")
    as_user(monkeypatch, "uma")
    assert (secured.run(*command(secured, "detail"))[0] == 0) is reads
    assert (secured.run(*command(secured, "suspend"))[0] == 0) is writes
    assert (state(secured) == "SUSPENDED") is writes


@pytest.mark.parametrize(("owner", "group", "allowed"), [
    ("carl", "carls", True),  # carl's own job
    ("ops", "users", False),  # a job carl could not operate afterwards
    (None, None, False),  # no ACL: for superusers only, as an entity without one
    (None, "users", False),  # a group carl is not in
])
@pytest.mark.parametrize("action", ["submit", "submitAndSchedule", "validate"])
def test_a_submitted_job_is_checked_against_the_acl_it_brings(secured: Kit, monkeypatch: pytest.MonkeyPatch,
                                                              owner: str | None, group: str | None, allowed: bool,
                                                              action: str) -> None:
    monkeypatch.setenv("AIRFLOW__FALCON__GROUPS.CARL", "carls")
    as_user(monkeypatch, "carl")
    draft = secured.draft("carl-dr.properties", job_text(owner=owner, group=group, name="carl-dr"))
    code, out, err = secured.run("extension", f"-{action}", "-extensionName", "hdfs-mirroring", "-file", str(draft))
    stored = secured.root / "extensions" / "hdfs-mirroring" / "carl-dr.properties"
    if allowed:
        assert code == 0 or "scheduling pending" in out, (out, err)
    else:
        assert code == 1 and "Permission denied: user=carl may not extension" in err, (out, err)
        assert not stored.exists()


def test_listings_show_only_the_jobs_the_user_may_read(secured: Kit, monkeypatch: pytest.MonkeyPatch) -> None:
    other = secured.root / "extensions" / "hdfs-mirroring" / "carl-dr.properties"
    other.write_text(job_text(owner="carl", group="carls", name="carl-dr"), encoding="utf-8")

    def listed(user: str) -> list[str]:
        as_user(monkeypatch, user)
        code, document = secured.json("extension", "-list")
        assert code == 0, document
        return sorted(row["jobName"] for row in document["jobs"])

    assert listed("root") == ["carl-dr", "sales-dr"]
    assert listed("carl") == ["carl-dr"]
    assert listed("ops") == ["sales-dr"]


_OPENS: dict[str, Any] = {}


def _hook(event: str, args: tuple[Any, ...]) -> None:
    if event != "open" or not _OPENS or _OPENS.get("busy") or not args or not isinstance(args[0], (str, Path)):
        return
    if os.path.realpath(os.fspath(args[0])) != _OPENS["path"]:
        return
    _OPENS["count"] += 1
    if _OPENS["count"] == 2:  # between the check and a second read, the file becomes another job
        _OPENS["busy"] = True
        Path(_OPENS["path"]).write_text(_OPENS["swap"], encoding="utf-8")
        _OPENS["busy"] = False


sys.addaudithook(_hook)


def test_the_update_uses_the_bytes_the_check_judged(secured: Kit, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AIRFLOW__FALCON__GROUPS.UMA", "users")
    as_user(monkeypatch, "uma")
    checked = job_text(target="/backup/checked")
    draft = secured.draft("sales-dr.properties", checked)
    _OPENS.update(path=os.path.realpath(draft), count=0, busy=False,
                  swap=job_text(owner="uma", group="umas", target="/backup/taken"))
    try:
        code, out, err = secured.run("extension", "-update", "-extensionName", "hdfs-mirroring", "-file", str(draft))
    finally:
        opened = _OPENS["count"]
        _OPENS.clear()
    assert opened == 1 and code == 0, (out, err)
    assert stored_job(secured) == checked
