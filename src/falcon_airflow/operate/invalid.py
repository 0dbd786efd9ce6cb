"""Entities that fail validation: Falcon would have refused them at submit; here they are in the store (dropped
in by hand, or made invalid by a change elsewhere or by time, P10) and produce no DAG. ``entity -status`` and
``entity -list`` show them as INVALID with the rule ids, so they are not mistaken for SUBMITTED - and so are files
that name an entity the schema refuses (:class:`UnreadableEntity`), which are not mistaken for missing."""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta

from falcon_airflow.entities import EntityType
from falcon_airflow.issues import Level
from falcon_airflow.parsing import ParsedFile
from falcon_airflow.validation import RULES, validate_workspace
from falcon_airflow.validation.incumbents import NO_INCUMBENTS, Incumbents
from falcon_airflow.validation.registry import RuleContext
from falcon_airflow.workspace import Workspace

DEPENDS_ON_INVALID = "FA101"
"""The compiler's id for an entity left out because something it uses is invalid."""

EntityKey = tuple[str, str]


@dataclass(frozen=True)
class UnreadableEntity:
    """A stored file that names an entity (type and name) the schema or the model refused: listed and shown as
    INVALID in its place. It has no tags, clusters or pipelines to list, and no ACL anyone can rely on, so with
    authorization on only superusers see it (as an entity without an ACL)."""

    entity_type: EntityType
    name: str
    file: str
    line: int | None
    rules: tuple[str, ...]
    messages: tuple[str, ...]
    acl: None = None
    tags: None = None
    tag_pairs: tuple[tuple[str, str], ...] = ()

    @classmethod
    def of(cls, parsed: ParsedFile) -> UnreadableEntity:
        assert parsed.entity_type is not None and parsed.entity_name is not None
        errors = [issue for issue in parsed.issues if issue.is_error]
        lines = [issue.line for issue in errors if issue.line is not None]
        return cls(parsed.entity_type, parsed.entity_name, parsed.path, min(lines) if lines else None,
                   tuple(sorted({issue.rule for issue in errors})),
                   tuple(f"{issue.file}:{issue.line}: {issue.rule}: {issue.message}" if issue.line is not None
                         else f"{issue.file}: {issue.rule}: {issue.message}" for issue in errors))


def unreadable_entities(workspace: Workspace) -> list[UnreadableEntity]:
    return [UnreadableEntity.of(parsed) for parsed in workspace.unreadable.values()]


NOW_RULES = frozenset({"P10", "FA006"})
"""The rules whose verdict moves with the time alone (P10 evaluates an input's start now; FA006 evaluates the
expressions of a process without clusters at now): run again on every call, the others' verdicts are kept per
workspace (:func:`invalid_entities`)."""
KEPT_FOR = timedelta(days=1)
"""How long the other rules' verdicts are kept for one workspace: FA060 also judges a retention limit from now
(whether it reaches back before the calendar's year 1), which moves with the time too, by a day in a day."""


def direct_errors(workspace: Workspace, now: datetime, incumbents: Incumbents = NO_INCUMBENTS,
                  ) -> dict[EntityKey, set[str]]:
    """(type, name) -> the rules each entity breaks itself (schema and model errors of unreadable files too)."""
    found: dict[EntityKey, set[str]] = {}
    for unreadable in unreadable_entities(workspace):
        found[(unreadable.entity_type.value, unreadable.name)] = set(unreadable.rules)
    for issue in validate_workspace(workspace, now=now, incumbents=incumbents).issues:
        if issue.is_error and issue.entity and issue.entity_type:
            found.setdefault((issue.entity_type, issue.entity), set()).add(issue.rule)
    return found


def _now_rule_errors(workspace: Workspace, now: datetime, incumbents: Incumbents) -> dict[EntityKey, set[str]]:
    """What the :data:`NOW_RULES` find wrong now (a rule that crashes counts as broken, as validation reports it)."""
    context = RuleContext(workspace, now, False, (), incumbents)
    rules = [rule for rule in RULES if rule.id in NOW_RULES and not rule.environment]
    found: dict[EntityKey, set[str]] = {}
    for entity in workspace.entities():
        for rule in rules:
            if rule.entity_type is not entity.entity_type:
                continue
            try:
                broken = any(finding.level is Level.ERROR for finding in rule.check(context, entity))
            except Exception:  # validation reports a crashing rule as an error of the entity
                broken = True
            if broken:
                found.setdefault((entity.entity_type.value, entity.name), set()).add(rule.id)
    return found


def with_dependents(workspace: Workspace, direct: Mapping[EntityKey, Iterable[str]]) -> dict[EntityKey, list[str]]:
    """``direct`` and every entity that uses an invalid one (FA101: it cannot be compiled either), rules sorted."""
    found = {key: set(rules) for key, rules in direct.items()}
    changed = True
    while changed:  # a process using a feed that uses an invalid cluster is left out too
        changed = False
        for entity in workspace.entities():
            key = (entity.entity_type.value, entity.name)
            if key in found:
                continue
            if any((kind.value, name) in found for kind, name in workspace.dependencies(entity)):
                found[key] = {DEPENDS_ON_INVALID}
                changed = True
    return {key: sorted(rules) for key, rules in found.items()}


@dataclass
class _Verdicts:
    """What validation said of one workspace (held here, so that its id names it while it is kept)."""

    workspace: Workspace
    incumbents: Incumbents
    at: datetime
    kept: dict[EntityKey, set[str]]
    """Every rule's errors but the :data:`NOW_RULES`'."""
    last_now: dict[EntityKey, set[str]] | None = None
    last_answer: dict[EntityKey, list[str]] | None = None


_verdicts: dict[int, _Verdicts] = {}
_verdicts_lock = threading.Lock()
WORKSPACES_KEPT = 4


def invalid_entities(workspace: Workspace, now: datetime,
                     incumbents: Incumbents = NO_INCUMBENTS) -> dict[EntityKey, list[str]]:
    """(type, name) of every invalid entity -> the ids of the rules it breaks (sorted), including entities that
    are valid themselves but use an invalid one (FA101: they cannot be compiled either).

    A store keeps one workspace per revision of its content (and makes another when it changes), so the verdicts of
    the rules that depend on the workspace alone are kept per workspace and incumbents, for :data:`KEPT_FOR`; the
    :data:`NOW_RULES` run on every call. The answer is the one a whole validation now gives."""
    with _verdicts_lock:
        known = _verdicts.get(id(workspace))
    if (known is None or known.workspace is not workspace or known.incumbents != incumbents
            or not known.at <= now <= known.at + KEPT_FOR):
        direct = direct_errors(workspace, now, incumbents)
        kept = {key: rules - NOW_RULES for key, rules in direct.items() if rules - NOW_RULES}
        known = _Verdicts(workspace, incumbents, now, kept)
        with _verdicts_lock:
            while len(_verdicts) >= WORKSPACES_KEPT:
                _verdicts.pop(next(iter(_verdicts)))
            _verdicts[id(workspace)] = known
    fresh = _now_rule_errors(workspace, now, incumbents)
    answer = known.last_answer
    if answer is None or fresh != known.last_now:
        merged = {key: set(rules) for key, rules in known.kept.items()}
        for key, rules in fresh.items():
            merged.setdefault(key, set()).update(rules)
        answer = with_dependents(workspace, merged)
        known.last_now, known.last_answer = fresh, answer
    return {key: list(rules) for key, rules in answer.items()}


def invalid_text(rules: list[str]) -> str:
    return f"INVALID ({', '.join(rules)}; falcon-airflow validate says why)"
