"""Validation: Falcon's rules run over a workspace, every problem collected into one :class:`Report`.

Stages, in order, as Falcon ran them: reading and schema (per file, see :mod:`falcon_airflow.parsing`), then the
entity rules (C*, F*, P*, D* and the project's FA*), each over every entity of its type. One run reports every
problem; a rule that crashes becomes an issue of its own rather than a traceback.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cached_property
from pathlib import Path

from falcon_airflow.bulk import collector_paused
from falcon_airflow.entities import Entity, EntityType
from falcon_airflow.issues import Issue, Level
from falcon_airflow.parsing import ParsedFile
from falcon_airflow.parsing.parallel import forked_pool, helper_count
from falcon_airflow.validation import (  # noqa: F401  (importing a rule module registers its rules)
    calendar_rules,
    cluster_rules,
    database_rules,
    datasource_rules,
    environment_rules,
    feed_rules,
    identity_rules,
    kerberos_rules,
    process_rules,
    sharing_rules,
)
from falcon_airflow.validation.extensions import read_jobs
from falcon_airflow.validation.incumbents import NO_INCUMBENTS, Incumbents
from falcon_airflow.validation.oozie_workflows import with_workflow_files, workflow_issues
from falcon_airflow.validation.registry import RULES, Rule, RuleContext
from falcon_airflow.workspace import Workspace

__all__ = ["RULES", "Report", "Rule", "validate_paths", "validate_workspace"]


@dataclass(frozen=True)
class Report:
    """The outcome of one validation run: the files read and every issue found, in file and line order."""

    files: tuple[ParsedFile, ...]
    issues: tuple[Issue, ...]

    @property
    def valid(self) -> bool:
        return not any(issue.is_error for issue in self.issues)

    def issues_of(self, display: str) -> list[Issue]:
        return list(self._issues_by_file.get(display, ()))

    @cached_property
    def _issues_by_file(self) -> dict[str | None, list[Issue]]:
        # indexed once: the report formats ask for every file's issues, which was quadratic in a large estate
        index: dict[str | None, list[Issue]] = {}
        for issue in self.issues:
            index.setdefault(issue.file, []).append(issue)
        return index

    def strict(self) -> Report:
        """The same report with every warning raised to an error (``--strict``)."""
        raised = tuple(Issue(Level.ERROR, i.rule, i.message, i.file, i.line, i.entity, i.entity_type)
                       for i in self.issues)
        return Report(self.files, raised)


def validate_workspace(workspace: Workspace, *, now: datetime | None = None, check_environment: bool = False,
                       entities_dirs: Sequence[Path] = (), incumbents: Incumbents = NO_INCUMBENTS,
                       workers: int | None = 1) -> Report:
    """Run every rule over every entity of the workspace; parse issues of its files come first.

    ``entities_dirs`` are the entities folders the workspace came from (environment checks look there first for
    relative workflow paths, as the runtime does); ``incumbents`` what the store says already runs (see
    :mod:`falcon_airflow.validation.incumbents`); ``workers`` > 1 (``None``: as many as pay) runs the rules of a
    large workspace's entities on several cores, with the same report."""
    context = RuleContext(workspace, now or datetime.now(UTC), check_environment, tuple(entities_dirs), incumbents)
    issues: list[Issue] = [issue for parsed in workspace.files for issue in parsed.issues]
    issues.extend(workspace.issues)
    by_type: dict[object, list[Rule]] = {}
    for rule in RULES:  # in registration order, so each entity's issues come in the same order as rule by rule
        if not rule.environment or check_environment:
            by_type.setdefault(rule.entity_type, []).append(rule)
    issues.extend(_rule_issues(context, by_type, list(workspace.entities()), workers))
    issues.extend(workflow_issues(context, workspace.files))
    return Report(workspace.files, tuple(sorted(issues, key=Issue.sort_key)))


def validate_paths(paths: Sequence[str], *, schema_only: bool = False, now: datetime | None = None,
                   check_environment: bool = False, workers: int | None = 1) -> Report:
    """Validate files and folders as one workspace; ``schema_only`` judges each file alone (reading and XSD).
    ``workers`` as for :meth:`Workspace.load` (``None``: read on as many cores as pay; the report is the same).

    Raises :class:`falcon_airflow.errors.UsageError` when a path does not exist.
    """
    workspace = with_workflow_files(Workspace.load(paths, workers=workers))
    if schema_only:
        from falcon_airflow.oozie import parse_workflow_file  # only here: the Oozie model is slow to import

        issues = [issue for parsed in workspace.files for issue in parsed.issues]
        issues += [issue for parsed in workspace.files if parsed.oozie_workflow
                   for issue in parse_workflow_file(parsed.path, parsed.path).issues]
        return Report(workspace.files, tuple(sorted(issues, key=Issue.sort_key)))
    folders = [Path(path).resolve() for path in paths if Path(path).is_dir()]
    report = validate_workspace(workspace, now=now, check_environment=check_environment, entities_dirs=folders,
                                workers=workers)
    # the extension jobs kept in the folders, judged against the same clusters
    extra = [issue for folder in folders for issue in read_jobs(folder, workspace.clusters, workspace.feeds)[1]]
    if not extra:
        return report
    return Report(report.files, tuple(sorted((*report.issues, *extra), key=Issue.sort_key)))


# What forked rule helpers read: set just before they start, so each inherits it instead of receiving a copy.
_SHARED: tuple[RuleContext, dict[object, list[Rule]], list[Entity]] | None = None
# On a rich estate the rules that index the whole workspace (FA008, FA009) are about a third of the rules' work
# (benchmarks/validate_estate.py): the helper that runs them takes that much less of the other rules.
_INDEXED_SHARE = 0.35
# (entity position, rule position, issue): what a helper hands back, put in serial order here
_Placed = tuple[int, int, Issue]


def _rule_issues(context: RuleContext, by_type: dict[object, list[Rule]], entities: list[Entity],
                 workers: int | None) -> list[Issue]:
    """Every rule's issues for every entity, in entity order, each entity's in rule order. With helpers, the
    first one runs the rules that index the whole workspace for every entity (so each index is built once, not
    once per process) and every process a run of the entities for the other rules; the issues are put back in the
    order one process finds them."""
    global _SHARED
    helpers = helper_count(len(entities), workers)
    _SHARED = (context, by_type, entities)
    try:
        if helpers == 0:
            return [issue for _, _, issue in _issues_between(0, len(entities), None)]
        # each process's part of the work is 1 / parts; the first helper's indexed rules are already a share of it
        parts = helpers + 1
        bounds = _runs(entities, parts, first_helper_share=max(0.0, 1 - _INDEXED_SHARE * parts))
        try:
            with forked_pool(helpers) as pool:
                handed = [pool.submit(_issues_between, 0, len(entities), True)]
                handed += [pool.submit(_issues_between, start, end, False) for start, end in bounds[1:]]
                found = _issues_between(*bounds[0], False)
                for future in handed:
                    found.extend(future.result())
        except (BrokenProcessPool, OSError):  # a helper could not start or died (memory): all of it runs here
            found = _issues_between(0, len(entities), None)
        found.sort(key=lambda placed: (placed[0], placed[1]))  # stable: a rule's own findings keep their order
        return [issue for _, _, issue in found]
    finally:
        _SHARED = None


# Besides FA008 and FA009 (run apart), a feed's rules cost about 1.6 times a process's (FA010 and FA060 walk every
# location and duration; measured on the rich estate of benchmarks/validate_estate.py).
_WEIGHTS = {EntityType.FEED: 1.6}


def _runs(entities: list[Entity], parts: int, *, first_helper_share: float = 1.0) -> list[tuple[int, int]]:
    """``parts`` consecutive runs of the entities with about the same work each; the second run (the first
    helper's) is ``first_helper_share`` of the others' when that helper has other work too."""
    weights = [_WEIGHTS.get(entity.entity_type, 1.0) for entity in entities]
    shares = [1.0] * parts
    if parts > 1:
        shares[1] = first_helper_share
    total = sum(shares)
    limits = list(itertools.accumulate(sum(weights) * share / total for share in shares))
    bounds: list[tuple[int, int]] = []
    start, done = 0, 0.0
    for index, weight in enumerate(weights):
        done += weight
        if len(bounds) < parts - 1 and done >= limits[len(bounds)]:
            bounds.append((start, index + 1))
            start = index + 1
    bounds.append((start, len(entities)))
    return [bounds[0], *(run for run in bounds[1:] if run[0] < run[1])]


def _issues_between(start: int, end: int, indexed: bool | None) -> list[_Placed]:
    """The issues of entities ``start`` to ``end``: of the rules that index the workspace (``indexed`` True), of
    the others (False) or of all (None)."""
    assert _SHARED is not None, "set by _rule_issues"
    context, by_type, entities = _SHARED
    chosen = {kind: [(order, rule) for order, rule in enumerate(rules)
                     if indexed is None or rule.workspace_index is indexed] for kind, rules in by_type.items()}
    found: list[_Placed] = []
    with collector_paused():
        for position in range(start, end):
            entity = entities[position]
            rules = chosen.get(entity.entity_type)
            if rules:
                found.extend((position, order, issue) for order, issue in _entity_issues(rules, context, entity))
    return found


def _entity_issues(rules: list[tuple[int, Rule]], context: RuleContext, entity: Entity) -> Iterator[tuple[int, Issue]]:
    """What each rule, in order, finds in one entity, with the rule's position (its file, line and names read once
    for all its rules)."""
    source = entity.source
    name = entity.name
    kind = entity.entity_type.value
    for order, rule in rules:
        try:
            findings = list(rule.check(context, entity))
        except Exception as crash:  # a rule must never hide the others; report the crash where it happened
            yield order, Issue(Level.ERROR, rule.id, f"rule {rule.id} ({rule.summary}) could not be checked: "
                               f"{type(crash).__name__}: {crash}", source.file, source.line, name, kind)
            continue
        for finding in findings:
            yield order, Issue(finding.level, rule.id, finding.message, source.file, finding.line or source.line,
                               name, kind)
