"""A validated workspace compiled into DagSpecs.

Only entities without validation errors compile, and a process compiles only when every feed it uses does: a DAG
built on a broken definition would read or delete the wrong data. What is left out is reported as issues (with the
file and line of the entity), so the loader can show it in the Airflow UI.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any

from falcon_airflow.compiler.colo import normalized_colo, select_colo
from falcon_airflow.compiler.extension import compile_extension
from falcon_airflow.compiler.feed import compile_replication, compile_retention
from falcon_airflow.compiler.identity import owner_identity, with_identity
from falcon_airflow.compiler.process import compile_process
from falcon_airflow.compiler.sla import compile_feed_sla, compile_process_sla
from falcon_airflow.compiler.spark_options import SparkOptionsError
from falcon_airflow.compiler.specs import DagSpec
from falcon_airflow.compiler.store_state import StoreState, apply_store_state
from falcon_airflow.compiler.transfer import compile_export, compile_import
from falcon_airflow.entities import Entity, EntityType, Feed, Process
from falcon_airflow.entities.extension import ENTITY_TYPE as EXTENSION
from falcon_airflow.errors import FalconAirflowError
from falcon_airflow.issues import Issue, Level
from falcon_airflow.parsing import ParsedFile
from falcon_airflow.validation import Report, validate_workspace
from falcon_airflow.validation.extensions import ExtensionFile, read_jobs
from falcon_airflow.validation.incumbents import NO_INCUMBENTS
from falcon_airflow.workspace import Workspace

COMPILE_RULE = "FA100"


def identity_of(owner: str | None) -> str | None:
    """The ACL owner as the identity of the entity's jobs (:mod:`falcon_airflow.compiler.identity`); an owner that
    is no user name is refused rather than dropped, which would leave the jobs to the deployment's own identity."""
    if owner and owner.strip() and owner_identity(owner) is None:
        raise ValueError(f"its ACL owner '{owner}' is not a user name its jobs could run as")
    return owner_identity(owner)


def _compile_extensions(workspace: Workspace, entities_dir: Path | None, issues: list[Issue],
                        store_state: StoreState | None, more: Sequence[ExtensionFile] = ()) -> list[DagSpec]:
    jobs, found = read_jobs(entities_dir, workspace.clusters, workspace.feeds, more=more)
    issues.extend(found)
    specs: list[DagSpec] = []
    for job in jobs:
        try:
            spec: DagSpec = with_identity(compile_extension(workspace.clusters, job, workspace.feeds),
                                          identity_of(job.owner))
        except (FalconAirflowError, ValueError) as problem:
            message = problem.message if isinstance(problem, FalconAirflowError) else str(problem)
            issues.append(Issue(Level.ERROR, COMPILE_RULE, f"cannot compile extension job {job.name}: {message}",
                                job.file, job.line, job.name, EXTENSION))
            continue
        except Exception as problem:  # a failure compiling one job must not take the other DAGs down
            issues.append(Issue(Level.ERROR, COMPILE_RULE, f"cannot compile extension job {job.name}: "
                                f"{type(problem).__name__}: {problem}", job.file, job.line, job.name, EXTENSION))
            continue
        specs.append(apply_store_state(spec, store_state) if store_state is not None else spec)
    return specs


EntityOutcome = tuple[tuple[DagSpec, ...], tuple[Issue, ...]]
"""What compiling one entity gave: its specs (before the store's records are applied) and its compile issues."""


@dataclass
class CompileMemo:
    """The outcomes of an earlier compilation, reused for every entity whose inputs are byte for byte the same.

    An entity's inputs are the files of the entity itself, of every cluster and datasource, of the Oozie workflows
    beside the entities, and, for a process, of the feeds it names: a process compiles against a workspace holding
    only those (see :func:`_process_view`), so nothing else can change its outcome. The caller keeps a memo for one
    moment's inputs that are not files (package version, day, catch-up default, folder)."""

    digests: Mapping[str, str]
    """Content hash of each file, by the name the workspace gives it (an entity's ``source.file``)."""
    previous: Mapping[str, EntityOutcome] = field(default_factory=dict)
    recorded: dict[str, EntityOutcome] = field(default_factory=dict)
    reused: int = 0

    _shared: tuple[int, str | None] | None = field(default=None, repr=False)

    def _shared_files(self, workspace: Workspace) -> str | None:
        """The hash of the files every entity compiles from (clusters, datasources, Oozie workflows), once per
        workspace."""
        if self._shared is None or self._shared[0] != id(workspace):
            names = sorted([*(item.source.file for item in workspace.clusters.values()),
                            *(item.source.file for item in workspace.datasources.values()),
                            *(parsed.path for parsed in workspace.files if parsed.oozie_workflow)])
            self._shared = (id(workspace), self._hash(names, hashlib.sha256(b"shared")))
        return self._shared[1]

    def _hash(self, names: list[str], digest: Any) -> str | None:
        for name in names:
            known = self.digests.get(name)
            if known is None:
                return None
            digest.update(f"\0{name}\0{known}".encode())
        return str(digest.hexdigest())

    def key(self, workspace: Workspace, entity: Entity) -> str | None:
        """The entity's inputs as one hash; ``None`` when a file of them has no digest (nothing to reuse)."""
        shared = self._shared_files(workspace)
        if shared is None:
            return None
        named = [workspace.feeds[name].source.file for name in entity.feed_names if name in workspace.feeds] \
            if isinstance(entity, Process) else []
        return self._hash([entity.source.file, *named],
                          hashlib.sha256(f"{entity.entity_type.value}:{entity.name}:{shared}".encode()))


def _process_view(workspace: Workspace, process: Process) -> Workspace:
    """What a process compiles against: the clusters, the datasources and the feeds it names, nothing else."""
    return Workspace(files=(), clusters=workspace.clusters, datasources=workspace.datasources,
                     feeds={name: workspace.feeds[name] for name in process.feed_names if name in workspace.feeds},
                     processes={process.name: process})


@dataclass(frozen=True)
class Compilation:
    specs: tuple[DagSpec, ...]
    report: Report
    """Validation issues plus compile issues (rule FA100) and entities left out (rule FA101)."""
    compiled: frozenset[tuple[str, str]] = frozenset()
    """``(type, name)`` of every entity that compiled to a DAG, in any colo: what runs, for the incumbents of rules
    FA008 and FA009, which every colo must judge alike whichever DAGs it builds itself."""


def _issue(entity: Entity, rule: str, message: str) -> Issue:
    return Issue(Level.ERROR, rule, message, entity.source.file, entity.source.line, entity.name,
                 entity.entity_type.value)


@dataclass(frozen=True)
class Judgement:
    """What validation of the whole workspace decides about compiling each entity: the validation issues, the
    entities with errors and the processes left out for an invalid feed (rule FA101). Compiling any entity needs
    this and nothing else of the entities outside its own inputs, so a shard of the entities compiles from it
    alone (:mod:`falcon_airflow.dags.shard_compile`)."""

    issues: tuple[Issue, ...]
    """The validation issues and one FA101 issue per process left out for an invalid feed."""
    files: tuple[ParsedFile, ...]
    broken: frozenset[tuple[str | None, str | None]]
    """``(type, name)`` of every entity with an error of its own."""
    left_out: frozenset[tuple[str, str]]
    """``(type, name)`` of every entity that does not compile: the broken ones and the processes naming one."""
    moment: datetime


def judge_workspace(workspace: Workspace, *, now: datetime | None = None,
                    store_state: StoreState | None = None) -> Judgement:
    """Validate the workspace and say which entities are left out of the compilation."""
    moment = now or datetime.now(UTC)
    # With the store's records, a pairwise rule (FA008, FA009) blames only the entity that arrived last.
    report = validate_workspace(workspace, now=moment,
                                incumbents=store_state.incumbents() if store_state is not None else NO_INCUMBENTS)
    broken: set[tuple[str | None, str | None]] = {(issue.entity_type, issue.entity) for issue in report.issues
                                                  if issue.is_error and issue.entity}
    broken |= {(parsed.entity_type.value, parsed.entity_name) for parsed in workspace.files
               if parsed.has_errors and parsed.entity_type is not None}
    issues = list(report.issues)
    left_out: set[tuple[str, str]] = set()
    for entity in workspace.entities():
        key = (entity.entity_type.value, entity.name)
        if key in broken:
            left_out.add(key)
        elif isinstance(entity, Process):
            bad = [name for name in entity.feed_names if (EntityType.FEED.value, name) in broken]
            if bad:
                issues.append(_issue(entity, "FA101", f"process '{entity.name}' is not scheduled because feed(s) "
                                     f"{', '.join(bad)} are invalid"))
                left_out.add(key)
    return Judgement(tuple(issues), report.files, frozenset(broken), frozenset(left_out), moment)


def compile_entities(workspace: Workspace, entities: Sequence[Entity], judgement: Judgement, *,
                     entities_dir: Path | None = None, catchup_default: bool = True,
                     store_state: StoreState | None = None, memo: CompileMemo | None = None,
                     ) -> tuple[list[DagSpec], list[Issue]]:
    """Compile ``entities`` (feeds and processes of ``workspace``, which must hold at least their inputs: the
    clusters, the datasources, the Oozie workflows and the feeds each process names) as the judgement allows; the
    specs (the store's records applied, every colo) and the compile issues. With ``memo``, an entity whose inputs
    are unchanged since the memo's compilation gets that compilation's outcome instead of compiling again."""
    moment = judgement.moment
    issues: list[Issue] = []
    specs: list[DagSpec] = []

    def attempt(entity: Entity, build: Callable[[], DagSpec | None], made: list[DagSpec],
                found: list[Issue]) -> None:
        try:
            spec = build()
            if spec is not None:
                made.append(with_identity(spec, identity_of(getattr(getattr(entity, "acl", None), "owner", None))))
        except (FalconAirflowError, SparkOptionsError, ValueError) as problem:
            message = problem.message if isinstance(problem, FalconAirflowError) else str(problem)
            found.append(_issue(entity, COMPILE_RULE, f"cannot compile {entity.describe()}: {message}"))
        except Exception as problem:  # a failure compiling one entity must not take the others' DAGs down
            found.append(_issue(entity, COMPILE_RULE, f"cannot compile {entity.describe()}: "
                                f"{type(problem).__name__}: {problem}"))

    def compile_entity(entity: Entity, builds: Callable[[], list[Callable[[], DagSpec | None]]]) -> None:
        key = memo.key(workspace, entity) if memo is not None else None
        outcome = memo.previous.get(key) if memo is not None and key is not None else None
        if outcome is None:
            made: list[DagSpec] = []
            found: list[Issue] = []
            for build in builds():
                attempt(entity, build, made, found)
            outcome = (tuple(made), tuple(found))
        elif memo is not None:
            memo.reused += 1
        if memo is not None and key is not None:
            memo.recorded[key] = outcome
        made_specs, found_issues = outcome
        specs.extend(apply_store_state(spec, store_state) if store_state is not None else spec for spec in made_specs)
        issues.extend(found_issues)

    def feed_builds(feed: Feed) -> list[Callable[[], DagSpec | None]]:
        builds: list[Callable[[], DagSpec | None]] = [
            partial(compile_retention, workspace.clusters, feed, placement, entities_dir=entities_dir)
            for placement in feed.clusters]
        for placement in feed.clusters:  # a database import or export per cluster that declares one
            if placement.import_policy is not None:
                builds.append(partial(compile_import, workspace.clusters, workspace.datasources, feed, placement,
                                      entities_dir=entities_dir))
            if placement.export_policy is not None:
                builds.append(partial(compile_export, workspace.clusters, workspace.datasources, feed, placement,
                                      entities_dir=entities_dir))
        builds += [partial(compile_replication, workspace.clusters, feed, source, target,
                           catchup_default=catchup_default, entities_dir=entities_dir)
                   for target in feed.targets for source in feed.sources]
        # SLA monitoring where the feed declares an SLA
        builds += [partial(compile_feed_sla, workspace.clusters, feed, placement) for placement in feed.clusters]
        return builds

    def process_builds(process: Process) -> list[Callable[[], DagSpec | None]]:
        view = _process_view(workspace, process)
        builds: list[Callable[[], DagSpec | None]] = []
        for placement in process.clusters:
            builds.append(partial(compile_process, view, process, placement, entities_dir=entities_dir,
                                  catchup_default=catchup_default, now=moment))
            builds.append(partial(compile_process_sla, view.clusters, process, placement))
        return builds

    for entity in entities:
        if (entity.entity_type.value, entity.name) in judgement.left_out:
            continue
        if isinstance(entity, Feed):
            compile_entity(entity, partial(feed_builds, entity))
        elif isinstance(entity, Process):
            compile_entity(entity, partial(process_builds, entity))
    return specs, issues


def compile_workspace(workspace: Workspace, *, entities_dir: Path | None = None, catchup_default: bool = True,
                      now: datetime | None = None, store_state: StoreState | None = None,
                      memo: CompileMemo | None = None, extension_jobs: Sequence[ExtensionFile] = (),
                      colo: str | None = None) -> Compilation:
    """Validate, then compile every entity without errors. With ``memo``, an entity whose inputs are unchanged
    since the memo's compilation gets that compilation's outcome instead of compiling again. The extension jobs
    are those of ``entities_dir`` and ``extension_jobs`` (the store's, laid out elsewhere). With ``colo`` (the
    deployment's ``[falcon] colo``), only the DAGs that run in that colo are kept (:mod:`.colo`); the report
    still covers the whole workspace."""
    judgement = judge_workspace(workspace, now=now, store_state=store_state)
    specs, compile_issues = compile_entities(
        workspace, [*workspace.feeds.values(), *workspace.processes.values()], judgement,
        entities_dir=entities_dir, catchup_default=catchup_default, store_state=store_state, memo=memo)
    issues = [*judgement.issues, *compile_issues]
    if entities_dir is not None or extension_jobs:
        specs += _compile_extensions(workspace, entities_dir, issues, store_state, extension_jobs)
    kept = select_colo(specs, workspace.clusters, normalized_colo(colo))
    return Compilation(tuple(kept), Report(judgement.files, tuple(sorted(issues, key=Issue.sort_key))),
                       frozenset((spec.source.type, spec.source.name) for spec in specs))
