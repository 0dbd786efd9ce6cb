"""Falcon's default authorization provider and proxy-user rules, decision by decision."""

from __future__ import annotations

import pytest

from falcon_airflow.entities import ACL
from falcon_airflow.operate.authorization import (
    ConfigLookup,
    Policy,
    Request,
    Target,
    authorize,
    is_read,
)
from falcon_airflow.operate.outcomes import Refused

GROUPS = {"root": frozenset({"Admin"}), "ops": frozenset({"Op"}), "ann": frozenset({"analysts"}),
          "bob": frozenset({"Viewer"}), "carl": frozenset({"Viewer", "auditors"}), "dave": frozenset()}
ENABLED = Policy(enabled=True)


def config(values: dict[str, str]) -> ConfigLookup:
    return values.get


def groups(user: str) -> frozenset[str]:
    return GROUPS.get(user, frozenset())


def run(user: str, command: str, action: str, *targets: Target, do_as: str | None = None,
        policy: Policy = ENABLED, settings: dict[str, str] | None = None, hosts: tuple[str, ...] = ("here",)) -> str:
    subject = authorize(policy, config(settings or {}), groups, user=user, do_as=do_as,
                        request=Request(command, action, targets), hosts=hosts)
    return subject.name


def feed(permission: str = "*", owner: str = "ann", group: str = "analysts") -> Target:
    return Target("feed", "clicks", ACL(owner=owner, group=group, permission=permission))


# Falcon's table: (user, command, action, permission) -> allowed
TABLE = [
    ("ann", "entity", "suspend", "*", True),          # owner
    ("ann", "entity", "delete", "0700", True),        # owner, whatever the group may
    ("carl", "entity", "status", "*", False),         # outsider
    ("carl", "instance", "kill", "*", False),
    ("root", "entity", "delete", "0700", True),       # superuser (Airflow's Admin role by default)
    ("root", "instance", "rerun", "0700", True),
]


@pytest.mark.parametrize(("user", "command", "action", "permission", "allowed"), TABLE)
def test_owner_and_superuser_may_act_and_an_outsider_may_not(user: str, command: str, action: str,
                                                             permission: str, allowed: bool) -> None:
    if allowed:
        assert run(user, command, action, feed(permission)) == user
    else:
        with pytest.raises(Refused):
            run(user, command, action, feed(permission))


def test_the_group_reads_and_writes_as_the_permission_says() -> None:
    GROUPS["eve"] = frozenset({"analysts"})
    try:
        assert run("eve", "entity", "suspend", feed("*")) == "eve"       # Falcon's default permission: all
        assert run("eve", "instance", "logs", feed("0750")) == "eve"     # group r-x: reads
        with pytest.raises(Refused, match=r"missing the write right .*group=analysts has no write right"):
            run("eve", "instance", "kill", feed("0750"))
        with pytest.raises(Refused, match="missing the read right"):
            run("eve", "entity", "definition", feed("0700"))
        assert run("eve", "entity", "update", feed("rwxrwx---")) == "eve"
    finally:
        GROUPS.pop("eve")


def test_the_refusal_names_user_action_entity_and_right() -> None:
    with pytest.raises(Refused) as refusal:
        run("carl", "entity", "suspend", feed())
    assert refusal.value.message == (
        "Permission denied: user=carl may not entity -suspend feed clicks: missing the write right "
        "(not entity owner=ann and not in group=analysts)")


def test_an_entity_without_acl_is_for_superusers_only() -> None:
    bare = Target("cluster", "east", None)
    assert run("root", "entity", "update", bare) == "root"
    with pytest.raises(Refused, match="not entity owner=\\(none\\)"):
        run("ann", "entity", "update", bare)


def test_requests_naming_no_entity_are_open() -> None:
    assert run("dave", "entity", "list") == "dave"
    assert run("dave", "instance", "search") == "dave"
    assert run("dave", "metadata", "lineage") == "dave"


def test_admin_needs_admin_users_or_groups_except_version() -> None:
    assert run("dave", "admin", "version") == "dave"
    assert run("root", "admin", "setsafemode") == "root"
    with pytest.raises(Refused, match="user=ops does not have admin privilege for action=admin -setsafemode"):
        run("ops", "admin", "setsafemode")
    ops_admin = Policy(enabled=True, admin_groups=frozenset({"Op"}))
    assert run("ops", "admin", "audit", policy=ops_admin) == "ops"
    assert run("dave", "admin", "status", policy=Policy(enabled=True, admin_users=frozenset({"dave"}))) == "dave"
    # admins are not superusers: an entity's ACL still applies to them
    with pytest.raises(Refused):
        run("ops", "entity", "delete", feed(), policy=ops_admin)


def test_superusers_by_name_or_group() -> None:
    named = Policy(enabled=True, superusers=frozenset({"dave"}), superuser_groups=frozenset())
    assert run("dave", "entity", "delete", feed(), policy=named) == "dave"
    with pytest.raises(Refused):
        run("root", "entity", "delete", feed(), policy=named)  # Admin is no superuser group any more


def test_policy_defaults_are_falcons_with_airflows_admin_role() -> None:
    policy = Policy.load(config({}))
    assert not policy.enabled
    assert policy.superuser_groups == policy.admin_groups == frozenset({"Admin"})
    chosen = Policy.load(config({"authorization_enabled": "True", "admin.users": "a, b", "superusergroup": "",
                                 "admin.groups": "ops,Op"}))
    assert chosen.enabled and chosen.admin_users == {"a", "b"} and chosen.superuser_groups == frozenset()
    assert chosen.admin_groups == {"ops", "Op"}


def test_read_and_write_actions() -> None:
    assert is_read("entity", "status") and is_read("instance", "logs") and is_read("admin", "audit")
    assert not is_read("entity", "submit") and not is_read("instance", "rerun")
    assert not is_read("admin", "setsafemode") and not is_read("entity", "updateClusterDependents")


PROXY = {"proxyuser.ops.hosts": "here,there", "proxyuser.ops.groups": "analysts"}


def test_do_as_follows_the_proxyuser_rules() -> None:
    # allowed: ops may act as members of analysts from here; the request is then authorized as ann
    assert run("ops", "entity", "schedule", feed(), do_as="ann", settings=PROXY) == "ann"
    with pytest.raises(Refused, match=r"bob is not in proxyuser\.ops\.groups=analysts") as refusal:
        run("ops", "entity", "status", feed(), do_as="bob", settings=PROXY)
    assert "-doAs bob" in refusal.value.message
    with pytest.raises(Refused, match="unauthorized host for proxyuser=ops"):
        run("ops", "entity", "status", feed(), do_as="ann", settings=PROXY, hosts=("elsewhere",))
    with pytest.raises(Refused, match="ann is not defined as a proxyuser"):
        run("ann", "entity", "status", feed(), do_as="ops", settings=PROXY)
    wildcard = {"proxyuser.ops.hosts": "*", "proxyuser.ops.groups": "*"}
    assert run("ops", "entity", "status", feed(), do_as="ann", settings=wildcard, hosts=("elsewhere",)) == "ann"
    # acting as yourself is no impersonation
    assert run("ann", "entity", "status", feed(), do_as="ann") == "ann"


def test_do_as_is_authorized_as_the_impersonated_user() -> None:
    wildcard = {"proxyuser.ops.hosts": "*", "proxyuser.ops.groups": "*"}
    with pytest.raises(Refused, match="user=bob may not entity -suspend"):
        run("ops", "entity", "suspend", feed(), do_as="bob", settings=wildcard)
