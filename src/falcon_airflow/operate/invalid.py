"""Entities that fail validation: Falcon would have refused them at submit; here they are in the store (dropped
in by hand, or made invalid by a change elsewhere or by time, P10) and produce no DAG. ``entity -status`` and
``entity -list`` show them as INVALID with the rule ids, so they are not mistaken for SUBMITTED - and so are files
that name an entity the schema refuses (:class:`UnreadableEntity`), which are not mistaken for missing."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from falcon_airflow.entities import EntityType
from falcon_airflow.parsing import ParsedFile
from falcon_airflow.validation import validate_workspace
from falcon_airflow.validation.incumbents import NO_INCUMBENTS, Incumbents
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


def invalid_entities(workspace: Workspace, now: datetime,
                     incumbents: Incumbents = NO_INCUMBENTS) -> dict[EntityKey, list[str]]:
    """(type, name) of every invalid entity -> the ids of the rules it breaks (sorted), including entities that
    are valid themselves but use an invalid one (FA101: they cannot be compiled either)."""
    found: dict[EntityKey, set[str]] = {}
    for unreadable in unreadable_entities(workspace):
        found[(unreadable.entity_type.value, unreadable.name)] = set(unreadable.rules)
    for issue in validate_workspace(workspace, now=now, incumbents=incumbents).issues:
        if issue.is_error and issue.entity and issue.entity_type:
            found.setdefault((issue.entity_type, issue.entity), set()).add(issue.rule)
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


def invalid_text(rules: list[str]) -> str:
    return f"INVALID ({', '.join(rules)}; falcon-airflow validate says why)"
