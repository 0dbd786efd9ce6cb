"""Which console actions make sense in which state: the instance actions by the instance's Falcon status, the entity
actions by the entity's schedule state. The page shows a button only for an action the server's authorization
allows the user and that these tables allow in the state shown; the instance route refuses one that does not.

The instance tables follow what ``instance -kill/-suspend/-resume/-rerun`` change (:mod:`..operate.instance_actions`):
a kill stops an active or suspended instance, a suspend an active one, a resume a suspended one, a rerun a finished
one (without ``-force``). The entity tables follow ``entity -schedule/-suspend/-resume``: a submitted entity is
scheduled, a running one suspended, a suspended one resumed; any may be deleted.
"""

from __future__ import annotations

from collections.abc import Iterable

from falcon_airflow.operate.states import ACTIVE, TERMINAL, InstanceStatus

INSTANCE_STATES: dict[str, frozenset[str]] = {
    "kill": frozenset(status.value for status in ACTIVE | {InstanceStatus.SUSPENDED}),
    "suspend": frozenset(status.value for status in ACTIVE),
    "resume": frozenset({InstanceStatus.SUSPENDED.value}),
    "rerun": frozenset(status.value for status in TERMINAL),
}
"""The instance statuses each instance action changes."""

SUBMITTED = "SUBMITTED"
ENTITY_STATES: dict[str, frozenset[str]] = {
    "schedule": frozenset({SUBMITTED}),
    "suspend": frozenset({"RUNNING"}),
    "resume": frozenset({"SUSPENDED"}),
    "delete": frozenset({SUBMITTED, "RUNNING", "SUSPENDED", "COMPLETED", "INVALID"}),
}
"""The entity states each entity action applies to (``SUBMITTED``: stored, never scheduled)."""


def instance_actions(status: str, allowed: Iterable[str]) -> list[str]:
    """The ``allowed`` instance actions that change an instance in ``status``, in the order given."""
    return [action for action in allowed if status.upper() in INSTANCE_STATES.get(action, frozenset())]


def entity_actions(state: str | None, allowed: Iterable[str]) -> list[str]:
    """The ``allowed`` entity actions that apply to an entity whose schedule state is ``state`` (``None``: only
    submitted); a cluster or datasource is never scheduled, so only its delete applies."""
    current = (state or SUBMITTED).upper()
    return [action for action in allowed if current in ENTITY_STATES.get(action, frozenset())]


def refusal(action: str, status: str) -> str | None:
    """Why ``action`` does not apply to an instance in ``status`` (``None``: it does)."""
    accepted = INSTANCE_STATES.get(action)
    if accepted is None or status.upper() in accepted:
        return None
    return f"{action} does not apply to a {status.upper()} instance (only {', '.join(sorted(accepted))})"
