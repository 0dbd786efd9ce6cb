"""Running one action, for the command line and for Falcon's server alike.

:func:`execute` runs a declared action (:mod:`falcon_airflow.operate.declarations`) for a caller: it decides whether
the caller may (:class:`~falcon_airflow.operate.gate.Gate`, with the deployment's ``[falcon]`` settings), writes the
attempt to the audit trail before anything changes, finishes or undoes what an interrupted action left half done
(the journal), holds the store's lock when the action changes the store, runs the action's handler and records its
result. It returns the :class:`~falcon_airflow.operate.outcomes.Outcome` or raises what refused or failed it
(:class:`~falcon_airflow.operate.outcomes.Refused`, :class:`~falcon_airflow.operate.gate.Denied`,
:class:`~falcon_airflow.operate.airflow_api.AirflowError`); printing is the command line's business.

Who the caller is comes from the one who asks: ``caller`` ``None`` is the user of a command run on this machine (its
Airflow login, proven by the deployment's own Airflow API, else the operating system account); a
:class:`~falcon_airflow.operate.gate.Caller` is someone Falcon's server authenticated, decided on with the server's
configuration only.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass

from falcon_airflow.operate import declarations
from falcon_airflow.operate.airflow_api import AirflowClient, AirflowError
from falcon_airflow.operate.authorization import ConfigLookup
from falcon_airflow.operate.config_store import ConfigStore, Store
from falcon_airflow.operate.context import Context
from falcon_airflow.operate.gate import (
    Caller,
    Denied,
    Gate,
    Identity,
    LocalIdentity,
    ServerIdentity,
    deployment_api,
    falcon_config,
)
from falcon_airflow.operate.journal import ActionSteps, recover
from falcon_airflow.operate.options import Options
from falcon_airflow.operate.outcomes import Outcome, Refused
from falcon_airflow.operate.settings import Settings

__all__ = ["Caller", "Deployment", "dispatch", "execute"]

ClientFactory = Callable[[Settings, bool], AirflowClient]
"""How a deployment reaches Airflow: a client for the settings (and the debug switch)."""
StoreFactory = Callable[[], ConfigStore]
"""How a deployment opens its configuration store for one action."""


@dataclass(frozen=True)
class Deployment:
    """Where actions run: the store and Airflow (``settings``), the ``[falcon]`` settings that decide who may do
    what, and the deployment's own Airflow API (the one that proves a login given on the command line)."""

    settings: Settings
    falcon: ConfigLookup
    api: str = ""
    airflow: ClientFactory | None = None
    """How the actions reach Airflow; ``None``: its REST API at ``settings.url`` with the settings' credentials."""
    store: StoreFactory | None = None
    """Where the configuration store is; ``None``: the entities folder and the state folder of ``settings``."""

    def open_store(self) -> ConfigStore:
        return self.store() if self.store is not None else Store(self.settings.entities, self.settings.state)

    @classmethod
    def local(cls, *, url: str | None = None, entities: str | None = None,
              airflow_config: Callable[[str, str], str] | None = None) -> Deployment:
        """The deployment a command on this machine works with: the store and Airflow its options, environment and
        (under ``airflow falcon``) Airflow's configuration name."""
        settings = Settings.resolve(url=url, entities=entities, airflow_config=airflow_config)
        return cls(settings, falcon_config(airflow_config), deployment_api(airflow_config))


def dispatch(context: Context, options: Options, action_name: str | None = None) -> Outcome:
    """Run the handler the declarations give the action (``action_name``, else the one ``options`` names), after
    the command's guard when the action takes the lock. No authorization, audit or lock: :func:`execute` does
    those."""
    declared = declarations.command(options.command)
    action = declared.action(action_name or options.action())
    if action.lock and declared.guard is not None:
        guard: Callable[[Context, Options], None] = declarations.load(declared.guard)  # type: ignore[assignment]
        guard(context, options)
    return action.load()(context, options)


def journaled_actions() -> dict[str, ActionSteps[Context]]:
    """The journaled steps of every command's multi-step actions, by the name their journal carries."""
    found: dict[str, ActionSteps[Context]] = {}
    for declared in declarations.commands().values():
        if declared.journal is not None:
            table: Mapping[str, ActionSteps[Context]] = declarations.load(declared.journal)  # type: ignore[assignment]
            found.update(table)
    return found


@contextlib.contextmanager
def _locked(context: Context, needed: bool) -> Iterator[None]:
    if needed:
        with context.store.lock():
            yield
    else:
        yield


def _context(deployment: Deployment, caller: Caller | None, options: Options, debug: bool) -> Context:
    settings = deployment.settings
    if caller is None:
        context = Context.create(settings, do_as=options.text("do_as"), debug=debug, store=deployment.open_store())
    else:
        context = Context(settings=settings, store=deployment.open_store(), user=caller.do_as or caller.user,
                          do_as=caller.do_as, debug=debug)
    context.store.act_as(context.user)
    if deployment.airflow is not None:
        context._client = deployment.airflow(settings, debug)
    return context


def _recover(context: Context, notes: Callable[[str], None] | None) -> None:
    context.recovering = True
    try:
        found, _ = recover(context.book, journaled_actions(), context, failures=(AirflowError, Refused, OSError))
    finally:
        context.recovering = False
    context.store.forget_cache()
    for note in found:
        if notes is not None:
            notes(note)


def execute(command: str, action: str, options: Options, caller: Caller | None = None, *, deployment: Deployment,
            debug: bool = False, notes: Callable[[str], None] | None = None, audit_id: str | None = None) -> Outcome:
    """Run ``command -action`` with ``options`` for ``caller`` in ``deployment``; see the module's documentation.

    ``notes`` receives what the journal recovery says it finished or undid; ``audit_id`` pairs the audit lines with
    the caller's request (a new id when not given)."""
    declared = declarations.action(command, action)
    context = _context(deployment, caller, options, debug)
    identity: Identity = (ServerIdentity(caller, deployment.falcon) if caller is not None
                          else LocalIdentity(context, deployment.falcon, deployment.api))
    gate = Gate.open(context, command, action, options, identity, deployment.falcon, audit_id)
    try:
        # Who acts and whether they may: checked before anything changes, and audited. The attempt is in the audit
        # trail before anything changes, or the action does not run at all.
        gate.check()
        gate.begin()
        with _locked(context, declared.lock or bool(context.book.pending())):
            # what the authorization check read was read before the lock: another server (or command) may have
            # changed the store since, and the action must see the store as it is while it holds the lock
            context.store.forget_cache()
            if context.book.pending():
                _recover(context, notes)
            outcome = dispatch(context, options, action)
    except Refused as refusal:
        gate.record("DENIED" if isinstance(refusal, Denied) else "REFUSED", refusal.message)
        raise
    except AirflowError as problem:
        gate.record("FAILED", problem.message)
        raise
    except BaseException as problem:
        gate.record("FAILED", f"{type(problem).__name__}: {problem}")
        raise
    gate.record(outcome.status.value, None if outcome.exit_code == 0 else outcome.message)
    outcome.warnings[:0] = context.warnings
    return outcome

