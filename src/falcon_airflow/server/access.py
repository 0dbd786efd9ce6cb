"""Whether an authenticated caller may run an action, decided on the server, and the audit line every request
leaves.

The rules are :mod:`falcon_airflow.operate.authorization`'s (Falcon's default authorization provider and proxy-user
rules), read from the server's own ``[falcon]`` settings and applied to the user :mod:`.authentication` proved:

* ``doAs`` must be a user name, and the caller may act as another user only as ``proxyuser.<caller>.hosts`` (the
  address the request comes from) and ``.groups`` allow - with ``authorization_enabled`` off too, unless
  ``open_impersonation`` is on;
* with ``authorization_enabled`` on: admin actions but ``version`` need an admin, entity actions the ACL's rights.

A caller's groups are the Airflow roles its Airflow token carries and the groups ``[falcon] groups.<user>`` gives.

Every request that reaches an action is in the audit trail (:mod:`falcon_airflow.operate.audit`, in the store's
state folder): an attempt line before it acts - a request whose attempt cannot be written is refused and changes
nothing - and its result; a denied request leaves its one ``DENIED`` line.
"""

from __future__ import annotations

import contextlib
import socket
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from falcon_airflow.core.identity import is_user_name
from falcon_airflow.operate import audit
from falcon_airflow.operate.authorization import (
    ConfigLookup,
    Policy,
    Request,
    Subject,
    Target,
    authorize,
    check_proxy,
    truthy,
)
from falcon_airflow.operate.gate import OPEN_IMPERSONATION
from falcon_airflow.operate.outcomes import Refused
from falcon_airflow.server.authentication import Caller
from falcon_airflow.server.configuration import ServerContext

DENIED = "DENIED"


class Denied(Exception):
    """The caller may not run the action (403); nothing was changed."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class AuditUnavailable(Exception):
    """The attempt could not be written to the audit trail: the action does not run."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def client_hosts(address: str | None) -> frozenset[str]:
    """The names a request's address goes by, for ``proxyuser.<user>.hosts``: the address, and for the loopback
    also ``localhost``."""
    if not address:
        return frozenset()
    names = {address}
    if address in ("127.0.0.1", "::1"):
        names.add("localhost")
    return frozenset(names)


def _resolves_to(host: str, addresses: frozenset[str]) -> bool:
    try:
        return any(info[4][0] in addresses for info in socket.getaddrinfo(host, None))
    except OSError:
        return False


def user_groups(falcon: ConfigLookup, user: str, caller: Caller) -> frozenset[str]:
    """``user``'s groups: its configured ``groups.<user>``, and the caller's roles when ``user`` is the caller."""
    configured = frozenset(item.strip() for item in (falcon(f"groups.{user}") or "").split(",") if item.strip())
    return configured | (caller.roles if user == caller.user else frozenset())


def request_hosts(falcon: ConfigLookup, user: str, address: str | None) -> frozenset[str]:
    """The request's address and every host configured in ``proxyuser.<user>.hosts`` that resolves to it."""
    hosts = client_hosts(address)
    configured = falcon(f"proxyuser.{user}.hosts") or ""
    extra = {name.strip() for name in configured.split(",")
             if name.strip() and name.strip() != "*" and _resolves_to(name.strip(), hosts)}
    return hosts | extra


@dataclass
class Admission:
    """One request on its way to an action: who asks, for whom, what, and its audit lines."""

    context: ServerContext
    caller: Caller
    command: str
    action: str
    do_as: str | None = None
    address: str | None = None
    target: dict[str, Any] = field(default_factory=dict)
    targets: tuple[Target, ...] = ()
    id: str = ""
    """Pairs the request's audit lines (the request's id; a new one when empty)."""

    def __post_init__(self) -> None:
        if not self.id:
            self.id = uuid.uuid4().hex

    def groups(self, user: str) -> frozenset[str]:
        return user_groups(self.context.falcon, user, self.caller)

    def _hosts(self) -> frozenset[str]:
        return request_hosts(self.context.falcon, self.caller.user, self.address)

    def decide(self) -> Subject:
        """The subject the action runs as; :class:`Denied` (audited) when it may not run."""
        try:
            return self._decide()
        except Denied as denial:
            self.record(DENIED, denial.message)
            raise

    def _decide(self) -> Subject:
        user, do_as = self.caller.user, self.do_as
        if do_as is not None and not is_user_name(do_as):
            raise Denied(f"Permission denied: doAs {do_as!r} is not a user name (letters, digits and _ . @ -)")
        policy = Policy.load(self.context.falcon)
        if not policy.enabled:
            if do_as and do_as != user and not truthy(self.context.falcon(OPEN_IMPERSONATION)):
                try:
                    check_proxy(self.context.falcon, user, do_as, self.groups(do_as), self._hosts())
                except Refused as refusal:
                    raise Denied(refusal.message) from None
            return Subject(do_as or user, self.groups(do_as or user))
        try:
            return authorize(policy, self.context.falcon, self.groups, user=user, do_as=do_as,
                             request=Request(self.command, self.action, self.targets), hosts=self._hosts())
        except Refused as refusal:
            raise Denied(refusal.message) from None

    def record(self, result: str, reason: str | None = None) -> None:
        entry = audit.Entry(datetime.now(UTC), self.caller.user, self.do_as, self.command, self.action,
                            dict(self.target), result, reason, self.id)
        audit.append(self.context.open_store(), entry)

    @contextlib.contextmanager
    def acting(self) -> Iterator[None]:
        """The attempt line, the action, its result line: ``SUCCEEDED``, or ``FAILED`` with the error's message."""
        try:
            self.record(audit.STARTED)
        except OSError as problem:
            raise AuditUnavailable(f"refused: the audit trail ({self.context.open_store().audit_location}) cannot be "
                                   "written "
                                   f"({problem.strerror or problem}); nothing was changed") from None
        try:
            yield
        except BaseException as problem:
            message = getattr(problem, "message", None) or f"{type(problem).__name__}: {problem}"
            with contextlib.suppress(OSError):
                self.record("REFUSED" if isinstance(problem, Refused) else "FAILED", str(message))
            raise
        with contextlib.suppress(OSError):
            self.record("SUCCEEDED")


def refused_login(context: ServerContext, claimed: str | None, address: str | None, path: str, method: str,
                  message: str) -> None:
    """An unauthenticated request in the audit trail (the name it claimed, if any)."""
    entry = audit.Entry(datetime.now(UTC), claimed or "-", None, "authenticate", method,
                        {"path": path, "address": address or "-"}, "UNAUTHENTICATED", message, uuid.uuid4().hex)
    with contextlib.suppress(OSError):
        audit.append(context.open_store(), entry)
