"""Entities that fail validation: Falcon would have refused them at submit; here they are in the store (dropped
in by hand, or made invalid by a change elsewhere or by time, P10) and produce no DAG. ``entity -status`` and
``entity -list`` show them as INVALID with the rule ids, so they are not mistaken for SUBMITTED."""

from __future__ import annotations

from datetime import datetime

from falcon_airflow.validation import validate_workspace
from falcon_airflow.workspace import Workspace

DEPENDS_ON_INVALID = "FA101"
"""The compiler's id for an entity left out because something it uses is invalid."""

EntityKey = tuple[str, str]


def invalid_entities(workspace: Workspace, now: datetime) -> dict[EntityKey, list[str]]:
    """(type, name) of every invalid entity -> the ids of the rules it breaks (sorted), including entities that
    are valid themselves but use an invalid one (FA101: they cannot be compiled either)."""
    found: dict[EntityKey, set[str]] = {}
    for issue in validate_workspace(workspace, now=now).issues:
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
