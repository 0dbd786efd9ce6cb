"""A validated workspace compiled into DagSpecs.

Only entities without validation errors compile, and a process compiles only when every feed it uses does: a DAG
built on a broken definition would read or delete the wrong data. What is left out is reported as issues (with the
file and line of the entity), so the loader can show it in the Airflow UI.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import partial
from pathlib import Path

from falcon_airflow.compiler.extension import compile_extension
from falcon_airflow.compiler.feed import compile_replication, compile_retention
from falcon_airflow.compiler.process import compile_process
from falcon_airflow.compiler.sla import compile_feed_sla, compile_process_sla
from falcon_airflow.compiler.spark_options import SparkOptionsError
from falcon_airflow.compiler.specs import DagSpec
from falcon_airflow.compiler.store_state import StoreState, apply_store_state
from falcon_airflow.compiler.transfer import compile_export, compile_import
from falcon_airflow.entities import Entity, EntityType, Process
from falcon_airflow.entities.extension import ENTITY_TYPE as EXTENSION
from falcon_airflow.errors import FalconAirflowError
from falcon_airflow.issues import Issue, Level
from falcon_airflow.validation import Report, validate_workspace
from falcon_airflow.validation.extensions import read_jobs
from falcon_airflow.workspace import Workspace

COMPILE_RULE = "FA100"


def _compile_extensions(workspace: Workspace, entities_dir: Path, issues: list[Issue],
                        store_state: StoreState | None) -> list[DagSpec]:
    jobs, found = read_jobs(entities_dir, workspace.clusters)
    issues.extend(found)
    specs: list[DagSpec] = []
    for job in jobs:
        try:
            spec: DagSpec = compile_extension(workspace.clusters, job)
        except (FalconAirflowError, ValueError) as problem:
            message = problem.message if isinstance(problem, FalconAirflowError) else str(problem)
            issues.append(Issue(Level.ERROR, COMPILE_RULE, f"cannot compile extension job {job.name}: {message}",
                                job.file, job.line, job.name, EXTENSION))
            continue
        specs.append(apply_store_state(spec, store_state) if store_state is not None else spec)
    return specs


@dataclass(frozen=True)
class Compilation:
    specs: tuple[DagSpec, ...]
    report: Report
    """Validation issues plus compile issues (rule FA100) and entities left out (rule FA101)."""


def _issue(entity: Entity, rule: str, message: str) -> Issue:
    return Issue(Level.ERROR, rule, message, entity.source.file, entity.source.line, entity.name,
                 entity.entity_type.value)


def compile_workspace(workspace: Workspace, *, entities_dir: Path | None = None, catchup_default: bool = True,
                      now: datetime | None = None, store_state: StoreState | None = None) -> Compilation:
    moment = now or datetime.now(UTC)
    report = validate_workspace(workspace, now=moment)
    broken: set[tuple[str | None, str | None]] = {(issue.entity_type, issue.entity) for issue in report.issues
                                                  if issue.is_error and issue.entity}
    broken |= {(parsed.entity_type.value, parsed.entity_name) for parsed in workspace.files
               if parsed.has_errors and parsed.entity_type is not None}
    issues = list(report.issues)
    specs: list[DagSpec] = []

    def left_out(entity: Entity) -> bool:
        if (entity.entity_type.value, entity.name) in broken:
            return True
        if isinstance(entity, Process):
            bad = [name for name in entity.feed_names if (EntityType.FEED.value, name) in broken]
            if bad:
                issues.append(_issue(entity, "FA101", f"process '{entity.name}' is not scheduled because feed(s) "
                                     f"{', '.join(bad)} are invalid"))
                return True
        return False

    def attempt(entity: Entity, build: Callable[[], DagSpec | None]) -> None:
        try:
            spec = build()
            if spec is None:
                return
            specs.append(apply_store_state(spec, store_state) if store_state is not None else spec)
        except (FalconAirflowError, SparkOptionsError, ValueError) as problem:
            message = problem.message if isinstance(problem, FalconAirflowError) else str(problem)
            issues.append(_issue(entity, COMPILE_RULE, f"cannot compile {entity.describe()}: {message}"))

    for feed in workspace.feeds.values():
        if left_out(feed):
            continue
        for placement in feed.clusters:
            attempt(feed, partial(compile_retention, workspace.clusters, feed, placement, entities_dir=entities_dir))
        for placement in feed.clusters:  # a database import or export per cluster that declares one
            if placement.import_policy is not None:
                attempt(feed, partial(compile_import, workspace.clusters, workspace.datasources, feed, placement,
                                      entities_dir=entities_dir))
            if placement.export_policy is not None:
                attempt(feed, partial(compile_export, workspace.clusters, workspace.datasources, feed, placement,
                                      entities_dir=entities_dir))
        for target in feed.targets:
            for source in feed.sources:
                attempt(feed, partial(compile_replication, workspace.clusters, feed, source, target,
                                      catchup_default=catchup_default, entities_dir=entities_dir))
        for placement in feed.clusters:  # SLA monitoring where the feed declares an SLA
            attempt(feed, partial(compile_feed_sla, workspace.clusters, feed, placement))
    for process in workspace.processes.values():
        if left_out(process):
            continue
        for process_placement in process.clusters:
            attempt(process, partial(compile_process, workspace, process, process_placement,
                                     entities_dir=entities_dir, catchup_default=catchup_default, now=moment))
            attempt(process, partial(compile_process_sla, workspace.clusters, process, process_placement))
    if entities_dir is not None:
        specs += _compile_extensions(workspace, entities_dir, issues, store_state)
    return Compilation(tuple(specs), Report(report.files, tuple(sorted(issues, key=Issue.sort_key))))
