"""What every ``entity``, ``instance``, ``admin``, ``metadata`` and ``extension`` command passes before it changes
anything: who acts, whether they may (:mod:`falcon_airflow.operate.authorization`) and the audit line it leaves
(:mod:`falcon_airflow.operate.audit`).

Who acts is an :class:`Identity`: on the command line the Airflow login it gives (proven by the deployment's own
Airflow API) or the operating system account (:class:`LocalIdentity`); on Falcon's server the caller the server
authenticated (:class:`ServerIdentity`, from a :class:`Caller`), with the server's own ``[falcon]`` settings.

On the command line the ``[falcon]`` settings are Airflow's: under ``airflow falcon`` Airflow's configuration;
under ``falcon-airflow`` the ``AIRFLOW__FALCON__<KEY>`` environment variables, else the ``[falcon]`` section of
``$AIRFLOW_HOME/airflow.cfg`` (read as a file: the command line does not import Airflow). Keys:
``authorization_enabled`` (default false, as Falcon's), ``superusers``, ``superusergroup`` and ``admin.groups``
(default ``Admin``, Airflow's Admin role), ``admin.users``, ``proxyuser.<user>.hosts`` / ``.groups`` and
``groups.<user>`` (groups a user belongs to beyond their Airflow roles), ``open_impersonation``. ``-doAs`` follows
the proxy-user rules whether authorization is on or not: the user it records runs the entity's jobs.
"""

from __future__ import annotations

import configparser
import contextlib
import os
import socket
import sys
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import urlsplit

from falcon_airflow.core.identity import is_user_name
from falcon_airflow.entities import EntityType
from falcon_airflow.operate import audit, declarations
from falcon_airflow.operate.airflow_api import AirflowError
from falcon_airflow.operate.authorization import (
    ConfigLookup,
    Policy,
    Request,
    Target,
    authorize,
    check_proxy,
    entity_right,
    is_superuser,
    this_host,
    truthy,
)
from falcon_airflow.operate.context import Context, airflow_user, local_user
from falcon_airflow.operate.options import Options
from falcon_airflow.operate.outcomes import Refused

OPEN_IMPERSONATION = "open_impersonation"
"""``[falcon] open_impersonation``: with authorization off, ``True`` lets any user ``-doAs`` anybody (default
false: the proxy-user rules apply)."""
SUBMITTING = frozenset({"submit", "submitAndSchedule", "update"})
"""The entity actions that bring a definition, whose ACL is checked before it is stored."""


class Denied(Refused):
    """A command the acting user may not run (exit 1; audited as DENIED)."""


def airflow_settings(airflow_config: Callable[[str, str], str] | None) -> Callable[[str, str], str | None]:
    """The deployment's Airflow settings by (section, key), ``None`` when not set: ``AIRFLOW__<SECTION>__<KEY>``,
    else Airflow's configuration (under ``airflow falcon``), else ``$AIRFLOW_HOME/airflow.cfg`` read as a file."""
    parser: configparser.RawConfigParser | None = None
    if airflow_config is None:
        parser = configparser.RawConfigParser(strict=False, interpolation=None)
        home = Path(os.environ.get("AIRFLOW_HOME") or Path.home() / "airflow")
        config_file = Path(os.environ.get("AIRFLOW_CONFIG") or home / "airflow.cfg")
        with contextlib.suppress(OSError, configparser.Error):
            parser.read(config_file, encoding="utf-8")

    def lookup(section: str, key: str) -> str | None:
        value = os.environ.get(f"AIRFLOW__{section.upper()}__{key.upper()}")
        if value is None and airflow_config is not None:
            value = airflow_config(section, key) or None
        if value is None and parser is not None and parser.has_option(section, key):
            value = parser.get(section, key)
        return value

    return lookup


def falcon_config(airflow_config: Callable[[str, str], str] | None) -> ConfigLookup:
    """``[falcon]`` settings by key; ``None`` when not set."""
    settings = airflow_settings(airflow_config)
    return lambda key: settings("falcon", key)


DEFAULT_API_PORT = "8080"
LOOPBACK = frozenset({"localhost", "127.0.0.1", "::1"})


def deployment_api(airflow_config: Callable[[str, str], str] | None) -> str:
    """The deployment's own Airflow API: ``[api] base_url`` of its configuration, else (not set) the api-server on
    this host at ``[api] port``, as Airflow serves it."""
    settings = airflow_settings(airflow_config)
    configured = (settings("api", "base_url") or "").strip()
    if configured:
        return configured.rstrip("/")
    return f"http://localhost:{(settings('api', 'port') or '').strip() or DEFAULT_API_PORT}"


def _api_key(url: str) -> tuple[str, str, int | None, str] | None:
    """What makes two URLs one API: scheme, host (the loopback under any of its names), port (the scheme's default
    when none is written) and path, without a trailing slash; ``None`` for a URL that does not read."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    if not scheme or not host:
        return None
    host = "localhost" if host in LOOPBACK else host
    return scheme, host, port or {"http": 80, "https": 443}.get(scheme), parts.path.rstrip("/")


def same_api(url: str, deployment: str) -> bool:
    key = _api_key(url)
    return key is not None and key == _api_key(deployment)


def acting_user(context: Context) -> str:
    """The Airflow user the command authenticated as (else, with no Airflow login, the local user). A given token
    speaks for itself: its subject is the user, whatever ``FALCON_AIRFLOW_USER`` says."""
    settings = context.settings
    if settings.token:
        return airflow_user(replace(settings, user=None)) or local_user()
    return airflow_user(settings) or local_user()


@dataclass(frozen=True)
class Caller:
    """Who acts, as a server authenticated them: the user, the ``doAs`` user they asked for, the groups their
    authentication brought (an Airflow token's roles) and the names of the address the request came from."""

    user: str
    do_as: str | None = None
    groups: frozenset[str] = frozenset()
    hosts: frozenset[str] = frozenset()


class Identity(Protocol):
    """Who asks for a command, and how it is proven."""

    user: str
    do_as: str | None
    do_as_option: str
    """How the ``doAs`` user is named in messages (``-doAs`` on the command line)."""
    registered_first: bool
    """Falcon's authorization filter: with authorization on, a request naming an entity that is not in the store is
    refused before it runs (a delete of one goes through)."""

    def verify(self) -> None:
        """Prove the user (authorization trusts only a proven identity); :class:`Denied` when it cannot be."""

    def proxy(self) -> str:
        """Who gives ``doAs``, proven (with authorization off)."""

    def groups(self, user: str) -> frozenset[str]:
        """The user's groups."""

    def known_groups(self, user: str) -> frozenset[str] | None:
        """The user's groups, or ``None`` when nothing here knows them."""

    def hosts(self) -> Iterable[str]:
        """The names the request's origin goes by (``proxyuser.<user>.hosts``)."""


class LocalIdentity:
    """The user of a command run on this machine: the Airflow login it gives (checked with the deployment's own
    Airflow API), else the operating system account running it."""

    do_as_option = "-doAs"
    registered_first = False

    def __init__(self, context: Context, config: ConfigLookup, api: str) -> None:
        self.context = context
        self.config = config
        self.api = api
        self.user = acting_user(context)
        self.do_as = context.do_as
        self._groups: dict[str, frozenset[str]] = {}

    def known_groups(self, user: str) -> frozenset[str] | None:
        """The user's groups, or ``None`` when nothing here knows them (no ``[falcon] groups.<user>`` and no
        readable Airflow roles)."""
        configured = self.config(f"groups.{user}")
        try:
            roles = self.context.airflow().user_roles(user)
        except AirflowError:
            roles = None
        if configured is None and roles is None:
            return None
        return self.groups(user)

    def groups(self, user: str) -> frozenset[str]:
        """The user's Airflow roles (where the auth manager has roles and lets us read them) and the groups
        ``[falcon] groups.<user>`` gives."""
        if user not in self._groups:
            configured = frozenset(item.strip() for item in (self.config(f"groups.{user}") or "").split(",")
                                   if item.strip())
            try:
                roles = self.context.airflow().user_roles(user) or frozenset()
            except AirflowError:
                roles = frozenset()
            self._groups[user] = configured | roles
        return self._groups[user]

    def hosts(self) -> Iterable[str]:
        return this_host()

    def proxy(self) -> str:
        """Who gives ``-doAs``, proven: an Airflow login is checked with the deployment's Airflow API (a user name
        without its password proves nothing); with no Airflow login, the operating system account running the
        command (its user id, never ``$USER``)."""
        settings = self.context.settings
        if settings.token or settings.user:
            if not settings.token and not settings.password:
                raise Denied(f"Permission denied: -doAs {self.do_as} needs a proven identity, and "
                             f"FALCON_AIRFLOW_USER={settings.user} comes without FALCON_AIRFLOW_PASSWORD: set it, or "
                             "FALCON_AIRFLOW_TOKEN")
            self.verify()
            return self.user
        import pwd

        try:
            return pwd.getpwuid(os.getuid()).pw_name
        except KeyError:
            raise Denied(f"Permission denied: -doAs {self.do_as} needs a proven identity: user id {os.getuid()} has "
                         "no account name and no Airflow login is given (FALCON_AIRFLOW_USER and "
                         "FALCON_AIRFLOW_PASSWORD, or FALCON_AIRFLOW_TOKEN)") from None

    def verify(self) -> None:
        """Authorization trusts only a proven identity: the password or token is checked with Airflow first - with
        the deployment's own Airflow API. The command line chooses the URL it talks to (``-url``,
        ``FALCON_AIRFLOW_URL``); a server it chose would accept any password and name any roles, so another URL is
        refused before it is asked anything."""
        settings = self.context.settings
        if not same_api(settings.url, self.api):
            raise Denied(f"Permission denied: identity is proven only by this deployment's Airflow API ({self.api}, "
                         f"its [api] base_url), not by {settings.url}: drop -url and FALCON_AIRFLOW_URL, or name "
                         "that API")
        if not settings.token and not (settings.user and settings.password):
            raise Denied(f"Permission denied: authorization is enabled and {self.user} is not an Airflow login: set "
                         "FALCON_AIRFLOW_USER and FALCON_AIRFLOW_PASSWORD, or FALCON_AIRFLOW_TOKEN")
        try:
            self.context.airflow().authenticate()
        except AirflowError as problem:
            raise Denied(f"Permission denied: Airflow did not accept the credentials of {self.user}: "
                         f"{problem.message}") from None
        if settings.token and self.user.isdigit():
            raise Denied(f"Permission denied: the token names Airflow user id {self.user}, not a user name (the "
                         "FAB auth manager's tokens do): log in with FALCON_AIRFLOW_USER and FALCON_AIRFLOW_PASSWORD")


def resolves_to(host: str, addresses: frozenset[str]) -> bool:
    """Whether a host name resolves to one of ``addresses``."""
    try:
        return any(info[4][0] in addresses for info in socket.getaddrinfo(host, None))
    except OSError:
        return False


class ServerIdentity:
    """A caller the server authenticated: proven already. Their groups are the ones ``[falcon] groups.<user>`` of
    the server's configuration gives and the ones their authentication brought (an Airflow token's roles); the
    request's origin is its address, and every configured proxy host that resolves to it."""

    do_as_option = "doAs"
    registered_first = True

    def __init__(self, caller: Caller, config: ConfigLookup) -> None:
        self.caller = caller
        self.config = config
        self.user = caller.user
        self.do_as = caller.do_as

    def verify(self) -> None:
        return None

    def proxy(self) -> str:
        return self.user

    def groups(self, user: str) -> frozenset[str]:
        configured = frozenset(item.strip() for item in (self.config(f"groups.{user}") or "").split(",")
                               if item.strip())
        return configured | (self.caller.groups if user == self.caller.user else frozenset())

    def known_groups(self, user: str) -> frozenset[str] | None:
        if self.config(f"groups.{user}") is None and user != self.caller.user:
            return None
        return self.groups(user)

    def hosts(self) -> Iterable[str]:
        hosts = self.caller.hosts
        configured = self.config(f"proxyuser.{self.user}.hosts") or ""
        extra = {name.strip() for name in configured.split(",")
                 if name.strip() and name.strip() != "*" and resolves_to(name.strip(), hosts)}
        return hosts | extra


def _acl_of(entity: object) -> Any:
    return getattr(entity, "acl", None)


def _targets(context: Context, command: str, action: str, options: Options
             ) -> tuple[tuple[Target, ...], tuple[str, str] | None]:
    """The entities a command names: the stored one (-type/-name, or the cluster of -updateClusterDependents) and,
    for a definition given with -file, the ACL it brings (Falcon checks a submitted entity against its own ACL);
    and the (type, name) it names that the store does not hold."""
    from falcon_airflow.parsing import parse_bytes

    found: list[Target] = []
    missing: tuple[str, str] | None = None
    kind_text = (options.text("type") or "").strip().lower()
    named: tuple[str, str] | None = None
    if command == "entity" and action == "updateClusterDependents" and options.text("cluster"):
        named = ("cluster", (options.text("cluster") or "").strip())
    elif command in ("entity", "instance") and options.text("name") and kind_text and "," not in kind_text:
        named = (kind_text, (options.text("name") or "").strip())
    if named is not None:
        try:
            kind: EntityType | None = EntityType(named[0])
        except ValueError:
            kind = None  # a wrong type: the command says so
        stored = context.store.get(kind, named[1]) if kind is not None else None
        if stored is not None:
            found.append(Target(named[0], named[1], _acl_of(stored.entity)))
        elif kind is not None and (kind, named[1]) in context.store.workspace().unreadable:
            found.append(Target(named[0], named[1], None))  # a definition the schema refuses: no ACL to trust
        elif kind is not None:
            missing = named
    if command == "entity" and action in ("submit", "submitAndSchedule", "update", "validate") \
            and options.text("file"):
        # the bytes the action will use: Options reads the file once for both
        data, given = options.file_bytes()
        parsed = parse_bytes(data, given)
        if parsed.entity is not None:
            entity = parsed.entity
            found.append(Target(entity.entity_type.value, entity.name, _acl_of(entity)))
    if command == "extension":
        found += _extension_targets(context, action, options)
    return tuple(found), missing


EXTENSION_FILE_ACTIONS = frozenset({"submit", "submitAndSchedule", "update", "validate"})
"""The extension actions that bring a job's properties with -file."""


def _extension_targets(context: Context, action: str, options: Options) -> list[Target]:
    """The extension jobs a command names, as entity commands name entities: the stored job (``-jobName``, or the
    job an ``-update`` replaces) with its ACL, and a job given with ``-file`` with the ACL it brings. A stored job
    that no longer reads has no ACL to trust: superusers only."""
    from falcon_airflow.entities.extension import ENTITY_TYPE, read_job

    found: list[Target] = []
    names: list[str] = []
    if options.text("job_name"):
        names.append((options.text("job_name") or "").strip())
    if action in EXTENSION_FILE_ACTIONS and options.text("file") and options.text("extension_name"):
        data, given = options.file_bytes()  # the bytes the action will use
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            text = None  # the action says what is wrong with it
        job = read_job(options.text("extension_name") or "", text, given)[0] if text is not None else None
        if job is not None:
            found.append(Target(ENTITY_TYPE, job.name, job.acl))
            if action == "update":
                names.append(job.name)
    stored = context.store.extension_jobs()
    for name in dict.fromkeys(names):
        if name not in stored:
            continue  # the command says it is not submitted
        extension, path = stored[name]
        try:
            stored_bytes = context.store.read(path)
            job = (read_job(extension.value, stored_bytes.decode("utf-8"), str(path))[0]
                   if stored_bytes is not None else None)
        except (OSError, UnicodeDecodeError):
            job = None
        found.append(Target(ENTITY_TYPE, name, job.acl if job is not None else None))
    return found


class NotRegistered(Refused):
    """A request naming an entity that is not in the store, refused before it runs (Falcon's authorization filter,
    with authorization on)."""


@dataclass
class Gate:
    """One command's pass: who asks (:class:`Identity`), the ``doAs`` user, and its audit line."""

    context: Context
    command: str
    action: str
    options: Options
    identity: Identity
    config: ConfigLookup
    audit_id: str = field(default_factory=lambda: uuid.uuid4().hex)
    """Pairs the command's attempt line with its result line."""
    _begun: bool = False
    _unwritable: bool = False

    @classmethod
    def open(cls, context: Context, command: str, action: str, options: Options, identity: Identity,
             config: ConfigLookup, audit_id: str | None = None) -> Gate:
        with contextlib.suppress(OSError):  # a store this user may not write: record() says so
            context.store.prepare_audit()
        gate = cls(context, command, action, options, identity, config)
        if audit_id:
            gate.audit_id = audit_id
        return gate

    @property
    def user(self) -> str:
        return self.identity.user

    @property
    def do_as(self) -> str | None:
        return self.identity.do_as

    def check(self) -> None:
        """Refuse (:class:`Denied`) what the acting user may not do, before anything changes."""
        policy = Policy.load(self.config)
        if self.do_as is not None and not is_user_name(self.do_as):
            raise Denied(f"Permission denied: {self.identity.do_as_option} {self.do_as!r} is not a user name "
                         "(letters, digits and _ . @ -)")
        if not policy.enabled:
            self._check_do_as()
            return
        self.identity.verify()
        targets, missing = _targets(self.context, self.command, self.action, self.options)
        if missing is not None and self.identity.registered_first and self.action != "delete":
            raise NotRegistered(f"{missing[1]} ({missing[0]}) not found")
        request = Request(self.command, self.action, targets)
        try:
            subject = authorize(policy, self.config, self.identity.groups, user=self.user, do_as=self.do_as,
                                request=request, hosts=self.identity.hosts())
        except Refused as refusal:
            raise Denied(refusal.message) from None
        if not is_superuser(policy, subject):
            self.context.may_read = lambda entity: entity_right(_acl_of(entity), subject, write=False)
        if self.command in ("entity", "extension") and self.action in SUBMITTING:
            self._check_owner_in_group(request.targets)

    def _check_do_as(self) -> None:
        """With authorization off, ``-doAs U`` still follows Falcon's proxy-user rules: the user it records runs the
        entity's jobs (Spark's ``--proxy-user``), so who asks must be proven and may act as U only when
        ``proxyuser.<who>.hosts`` and ``.groups`` allow it - unless the deployment says in ``[falcon]
        open_impersonation = True`` that anybody may run jobs as anybody (authorization off only)."""
        if self.do_as is None:
            return
        if truthy(self.config(OPEN_IMPERSONATION)):
            return
        proxy = self.identity.proxy()
        if proxy == self.do_as:
            return
        try:
            check_proxy(self.config, proxy, self.do_as, self.identity.groups(self.do_as), self.identity.hosts())
        except Refused as refusal:
            raise Denied(f"{refusal.message} ({self.identity.do_as_option} is checked whether [falcon] "
                         f"authorization_enabled is on or not; [falcon] {OPEN_IMPERSONATION} = True lifts the check "
                         "with authorization off)") from None

    def _check_owner_in_group(self, targets: tuple[Target, ...]) -> None:
        """Falcon refused a definition whose ACL owner is not in its ACL group. The owner's groups are known from
        ``[falcon] groups.<owner>`` and, where the acting user may read users, the owner's Airflow roles; when
        neither says anything about the owner, the check cannot be made and is left out."""
        for target in targets:
            acl = target.acl
            if acl is None or not acl.owner or not acl.group:
                continue
            known = self.identity.known_groups(acl.owner)
            if known is not None and acl.group not in known:
                raise Denied(f"Permission denied: invalid ACL of {target.entity_type} {target.name}: group "
                             f"{acl.group} for user {acl.owner}: the owner is not in the group (its groups: "
                             f"{', '.join(sorted(known)) or 'none'})")

    def describe(self) -> dict[str, Any]:
        """What the command acts on, for its audit line: the given options its declaration marks ``audit``."""
        target: dict[str, Any] = {}
        for option in declarations.command(self.command).options:
            value = self.options.text(option.dest) if option.audit else None
            if value is not None and option.audit is not None:
                target[option.audit] = value
        return target

    def _append(self, result: str, reason: str | None) -> None:
        settings = self.context.settings
        entry = audit.Entry(self.context.now(), self.user, self.do_as, self.command, self.action, self.describe(),
                            result, reason, self.audit_id)
        audit.append(self.context.store, entry, (settings.password, settings.token))

    def begin(self) -> None:
        """The attempt line, before the command changes anything. The trail is what shows who did what: a command
        it cannot show does not run (:class:`~falcon_airflow.operate.outcomes.Refused`, nothing changed)."""
        try:
            self._append(audit.STARTED, None)
        except OSError as problem:
            self._unwritable = True
            raise Refused(f"refused: the audit log {self.context.store.audit_location} cannot be written "
                          f"({problem.strerror or problem}); nothing was changed") from None
        self._begun = True

    def record(self, result: str, reason: str | None = None) -> None:
        """The result line (after :meth:`begin`), or the only line of a command refused before it began."""
        if self._unwritable:
            return  # begin() said so, and the command did nothing
        try:
            self._append(result, reason)
        except OSError as problem:
            what = "the result of this command was" if self._begun else "this refusal was"
            print(f"warning: {what} not written to the audit log {self.context.store.audit_location}: "
                  f"{problem.strerror or problem}", file=sys.stderr)
