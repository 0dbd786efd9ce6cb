"""The rule registry: every validation rule is a function registered with its id and the entity type it judges.

A rule receives the :class:`RuleContext` (workspace, the time "now", options) and one entity, and yields
:class:`Finding` objects. The runner adds the rule id, file and entity, so a rule only says what is wrong and on
which line. Rules never raise on bad input; if one crashes anyway, the runner turns that into an issue.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TypeVar

from falcon_airflow.entities import Entity, EntityType
from falcon_airflow.issues import Level
from falcon_airflow.validation.incumbents import NO_INCUMBENTS, Incumbents
from falcon_airflow.workspace import Workspace


@dataclass(frozen=True, slots=True)
class Finding:
    message: str
    line: int | None = None
    level: Level = Level.ERROR


@dataclass(frozen=True)
class RuleContext:
    workspace: Workspace
    now: datetime
    check_environment: bool = False
    # Folders given to validate: the runtime takes relative workflow paths from the entities folder first.
    entities_dirs: tuple[Path, ...] = ()
    # What already runs (the loader's and the store's records): a pairwise rule blames only the newcomer.
    incumbents: Incumbents = NO_INCUMBENTS


E = TypeVar("E", bound=Entity)
Check = Callable[[RuleContext, E], Iterable[Finding]]


@dataclass(frozen=True)
class Rule:
    id: str
    entity_type: EntityType
    summary: str
    check: Callable[[RuleContext, Entity], Iterable[Finding]]
    environment: bool = False
    # The rule builds an index over the whole workspace on first use (and keeps it for the workspace): run on
    # several cores, all its checks go to one process, so that the index is built once.
    workspace_index: bool = False


RULES: list[Rule] = []


def rule(rule_id: str, entity_type: EntityType, summary: str, *, environment: bool = False,
         workspace_index: bool = False) -> Callable[[Check[E]], Check[E]]:
    """Register a rule. ``environment=True`` rules look outside the files and run only when asked;
    ``workspace_index=True`` rules index the whole workspace once (see :class:`Rule`)."""

    def register(check: Check[E]) -> Check[E]:
        RULES.append(Rule(rule_id, entity_type, summary, check, environment,  # type: ignore[arg-type]
                          workspace_index))
        return check

    return register


def error(message: str, line: int | None = None) -> Finding:
    return Finding(message, line, Level.ERROR)


def warning(message: str, line: int | None = None) -> Finding:
    return Finding(message, line, Level.WARNING)
