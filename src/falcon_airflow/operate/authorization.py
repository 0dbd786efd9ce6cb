"""Who may do what: Falcon's default authorization provider and proxy-user rules, for every command.

Falcon checked each REST request before it ran (``falcon.security.authorization.enabled``):

* a superuser (the user the server ran as, or a member of ``superusergroup``) may do anything;
* ``admin`` requests other than ``version`` need an admin user or a member of an admin group;
* a request naming an entity (status, definition, schedule, suspend, delete, every instance action ...) needs
  the entity's ACL owner or a member of its ACL group; a submitted or updated definition is checked against its
  own ACL, so nobody submits an entity they could not operate afterwards;
* requests naming no entity (list, summary, lookup, search) and lineage/metadata are open to every user;
* ``-doAs U`` by an authenticated user P (P != U) needs ``proxyuser.P.hosts`` to hold this host (or ``*``) and
  ``proxyuser.P.groups`` to hold one of U's groups (or ``*``); the request is then authorized as U.

Here the ACL group's rights follow the ACL ``permission`` (``*``, octal or symbolic), as they do on the Airflow
side (``[falcon] dag_access_control``): the group may run the read actions when the permission lets it read and
the changing actions when it lets it write; the owner may do both. With Falcon's default permission ``*`` that is
exactly Falcon's rule.

:func:`authorize` decides; it never changes anything and raises :class:`~falcon_airflow.operate.outcomes.Refused`
naming the user, the action, the entity and the missing right.
"""

from __future__ import annotations

import socket
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from falcon_airflow.compiler.common import group_access_of
from falcon_airflow.entities import ACL
from falcon_airflow.operate import declarations
from falcon_airflow.operate.outcomes import Refused

ConfigLookup = Callable[[str], str | None]
"""A ``[falcon]`` setting by key (``None``: not set)."""

GroupLookup = Callable[[str], frozenset[str]]
"""A user's groups (their Airflow roles and the groups ``[falcon] groups.<user>`` gives them)."""

DEFAULT_ADMIN_GROUP = "Admin"
"""Airflow's Admin role: admin and superuser by default, as it may do anything on the Airflow side too."""

OPEN_ADMIN_ACTIONS = frozenset({"version"})
"""Falcon's provider lets every user ask the version."""


def is_read(command: str, action: str) -> bool:
    """Whether the action only reads (Falcon's GET requests), as its declaration says; an action nobody declared
    changes something."""
    try:
        return declarations.action(command, action).right == "read"
    except KeyError:
        return False


def _names(value: str | None) -> frozenset[str]:
    return frozenset(item.strip() for item in (value or "").split(",") if item.strip())


def truthy(value: str | None) -> bool:
    return (value or "").strip().lower() in ("true", "1", "yes", "on")


@dataclass(frozen=True)
class Policy:
    """The ``[falcon]`` authorization settings (Falcon's ``falcon.security.authorization.*``)."""

    enabled: bool = False
    superusers: frozenset[str] = frozenset()
    superuser_groups: frozenset[str] = frozenset({DEFAULT_ADMIN_GROUP})
    admin_users: frozenset[str] = frozenset()
    admin_groups: frozenset[str] = frozenset({DEFAULT_ADMIN_GROUP})

    @classmethod
    def load(cls, config: ConfigLookup) -> Policy:
        def chosen(key: str, default: frozenset[str]) -> frozenset[str]:
            value = config(key)
            return default if value is None else _names(value)

        return cls(enabled=truthy(config("authorization_enabled")),
                   superusers=chosen("superusers", frozenset()),
                   superuser_groups=chosen("superusergroup", frozenset({DEFAULT_ADMIN_GROUP})),
                   admin_users=chosen("admin.users", frozenset()),
                   admin_groups=chosen("admin.groups", frozenset({DEFAULT_ADMIN_GROUP})))


@dataclass(frozen=True)
class Subject:
    """The user a request is authorized as, with their groups."""

    name: str
    groups: frozenset[str]


@dataclass(frozen=True)
class Target:
    """The entity a request acts on (``None`` fields: the request names none, or it is not in the store)."""

    entity_type: str
    name: str
    acl: ACL | None


def is_superuser(policy: Policy, subject: Subject) -> bool:
    return subject.name in policy.superusers or bool(subject.groups & policy.superuser_groups)


def is_admin(policy: Policy, subject: Subject) -> bool:
    return (is_superuser(policy, subject) or subject.name in policy.admin_users
            or bool(subject.groups & policy.admin_groups))


def entity_right(acl: ACL | None, subject: Subject, *, write: bool) -> bool:
    """Whether the ACL lets ``subject`` read (``write`` False) or change the entity."""
    if acl is None:
        return False
    if acl.owner and subject.name == acl.owner:
        return True
    access = group_access_of(acl)
    if access is None or access.group not in subject.groups:
        return False
    return access.can_edit if write else access.can_read


def check_admin(policy: Policy, subject: Subject, command: str, action: str) -> None:
    if action in OPEN_ADMIN_ACTIONS or is_admin(policy, subject):
        return
    raise Refused(f"Permission denied: user={subject.name} does not have admin privilege for action={command} "
                  f"-{action} (needs one of admin.users, admin.groups {sorted(policy.admin_groups)} or a "
                  "superuser)")


def check_entity(policy: Policy, subject: Subject, command: str, action: str, target: Target) -> None:
    if is_superuser(policy, subject):
        return
    write = not is_read(command, action)
    if entity_right(target.acl, subject, write=write):
        return
    right = "write" if write else "read"
    acl = target.acl
    owner = acl.owner if acl is not None and acl.owner else "(none)"
    group = acl.group if acl is not None and acl.group else "(none)"
    permission = acl.permission if acl is not None else "(no ACL)"
    in_group = acl is not None and bool(acl.group) and acl.group in subject.groups
    why = (f"group={group} has no {right} right in permission={permission}" if in_group
           else f"not entity owner={owner} and not in group={group}")
    raise Refused(f"Permission denied: user={subject.name} may not {command} -{action} {target.entity_type} "
                  f"{target.name}: missing the {right} right ({why})")


def check_proxy(config: ConfigLookup, proxy: str, do_as: str, do_as_groups: frozenset[str],
                hosts: Iterable[str]) -> None:
    """Falcon's ``ProxyUserService.validate``: ``proxy`` may act as ``do_as`` from one of ``hosts``."""
    if do_as == proxy:
        return
    configured_hosts = config(f"proxyuser.{proxy}.hosts")
    configured_groups = config(f"proxyuser.{proxy}.groups")
    if configured_hosts is None or configured_groups is None:
        raise Refused(f"Permission denied: user={proxy} may not act as -doAs {do_as}: {proxy} is not defined as a "
                      f"proxyuser ([falcon] proxyuser.{proxy}.hosts and proxyuser.{proxy}.groups)")
    allowed_hosts = {item.lower() for item in _names(configured_hosts)}
    if "*" not in allowed_hosts and not allowed_hosts & {host.lower() for host in hosts}:
        raise Refused(f"Permission denied: unauthorized host for proxyuser={proxy} acting as -doAs {do_as} "
                      f"(proxyuser.{proxy}.hosts={configured_hosts})")
    allowed_groups = _names(configured_groups)
    if "*" not in allowed_groups and not allowed_groups & do_as_groups:
        raise Refused(f"Permission denied: proxyuser={proxy} may not act as -doAs {do_as}: {do_as} is not in "
                      f"proxyuser.{proxy}.groups={configured_groups}")


def this_host() -> frozenset[str]:
    """The names this machine answers to: the request comes from here."""
    names = {"localhost", "127.0.0.1"}
    try:
        host = socket.gethostname()
        names.update({host, socket.getfqdn(host)})
        names.update(info[4][0] for info in socket.getaddrinfo(host, None) if isinstance(info[4][0], str))
    except OSError:
        pass
    return frozenset(name for name in names if name)


@dataclass(frozen=True)
class Request:
    """One command: what it does and to what (``target`` None: it names no entity)."""

    command: str
    action: str
    targets: tuple[Target, ...] = ()


def authorize(policy: Policy, config: ConfigLookup, groups: GroupLookup, *, user: str, do_as: str | None,
              request: Request, hosts: Iterable[str] | None = None) -> Subject:
    """The subject the request runs as, when it may run; :class:`Refused` otherwise. Nothing is changed."""
    if do_as and do_as != user:
        check_proxy(config, user, do_as, groups(do_as), this_host() if hosts is None else hosts)
    subject = Subject(do_as or user, groups(do_as or user))
    if request.command == "admin":
        check_admin(policy, subject, request.command, request.action)
        return subject
    for target in request.targets:
        check_entity(policy, subject, request.command, request.action, target)
    return subject
