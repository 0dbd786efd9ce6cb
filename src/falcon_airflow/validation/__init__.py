"""Validation: Falcon's rules run over a workspace, every problem collected into one :class:`Report`.

Stages, in order, as Falcon ran them: reading and schema (per file, see :mod:`falcon_airflow.parsing`), then the
entity rules (C*, F*, P*, D* and the project's FA*), each over every entity of its type. One run reports every
problem; a rule that crashes becomes an issue of its own rather than a traceback.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cached_property
from pathlib import Path

from falcon_airflow.bulk import collector_paused
from falcon_airflow.entities import Entity, EntityType
from falcon_airflow.issues import Issue, Level
from falcon_airflow.oozie import parse_workflow_file
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


def _rule_issues(context: RuleContext, by_type: dict[object, list[Rule]], entities: list[Entity],
                 workers: int | None) -> list[Issue]:
    """Every rule's issues for every entity, in entity order; with helpers, each takes a run of the entities (the
    first run is this process's) and its issues come back in their place."""
    global _SHARED
    helpers = helper_count(len(entities), workers)
    _SHARED = (context, by_type, entities)
    try:
        if helpers == 0:
            return _issues_between(0, len(entities))
        bounds = _runs(entities, helpers + 1)
        found: list[Issue] = []
        done = 0
        try:
            with forked_pool(helpers) as pool:
                handed = [pool.submit(_issues_between, start, end) for start, end in bounds[1:]]
                found, done = _issues_between(*bounds[0]), bounds[0][1]
                for future, (_, end) in zip(handed, bounds[1:], strict=True):
                    found.extend(future.result())
                    done = end
        except (BrokenProcessPool, OSError):  # a helper could not start or died (memory): the rest runs here
            found.extend(_issues_between(done, len(entities)))
        return found
    finally:
        _SHARED = None


# A feed's rules cost about three times a process's (FA009, FA010, FA060 walk every location and duration).
_WEIGHTS = {EntityType.FEED: 3}


def _runs(entities: list[Entity], parts: int) -> list[tuple[int, int]]:
    """``parts`` consecutive runs of the entities with about the same work each."""
    weights = [_WEIGHTS.get(entity.entity_type, 1) for entity in entities]
    share = sum(weights) / parts
    bounds: list[tuple[int, int]] = []
    start, done = 0, 0.0
    for index, weight in enumerate(weights):
        done += weight
        if done >= share * (len(bounds) + 1) and len(bounds) < parts - 1:
            bounds.append((start, index + 1))
            start = index + 1
    bounds.append((start, len(entities)))
    return [bounds[0], *(run for run in bounds[1:] if run[0] < run[1])]


def _issues_between(start: int, end: int) -> list[Issue]:
    assert _SHARED is not None, "set by _rule_issues"
    context, by_type, entities = _SHARED
    found: list[Issue] = []
    with collector_paused():
        for entity in entities[start:end]:
            rules = by_type.get(entity.entity_type)
            if rules:
                found.extend(_entity_issues(rules, context, entity))
    return found


def _entity_issues(rules: list[Rule], context: RuleContext, entity: Entity) -> Iterator[Issue]:
    """What each rule, in order, finds in one entity (its file, line and names read once for all its rules)."""
    source = entity.source
    name = entity.name
    kind = entity.entity_type.value
    for rule in rules:
        try:
            findings = list(rule.check(context, entity))
        except Exception as crash:  # a rule must never hide the others; report the crash where it happened
            yield Issue(Level.ERROR, rule.id, f"rule {rule.id} ({rule.summary}) could not be checked: "
                        f"{type(crash).__name__}: {crash}", source.file, source.line, name, kind)
            continue
        for finding in findings:
            yield Issue(finding.level, rule.id, finding.message, source.file, finding.line or source.line, name,
                        kind)
