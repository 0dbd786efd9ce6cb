"""Oozie workflows in a validation run: those Oozie processes use, and bare ``workflow.xml`` files.

A process with ``engine="oozie"`` (or no engine: Oozie is Falcon's default) runs the workflow at its ``path``: an
app folder holding ``workflow.xml``, or the file itself, found where the runtime looks (the entities folder first,
then the cluster's storage when it is local). That workflow is validated as the process will run it: actions
that cannot run here are errors (``FA020``), and a required ``<parameters>`` entry must be given by the process's
``<properties>`` or by Falcon's workflow properties. A workflow that is missing where it can be looked for (the
entities folder, storage on this machine) is an error, ``FA021``; one on storage this machine cannot read (HDFS,
S3) is judged when the DAG is built.

``workflow.xml`` files given to validate (or found in the folders given) that no process uses are validated
alone: their definition is judged, and actions that cannot run here are only warnings.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from falcon_airflow.entities import Process, WorkflowEngine
from falcon_airflow.issues import Issue, Level
from falcon_airflow.parsing import ParsedFile
from falcon_airflow.validation.registry import RuleContext
from falcon_airflow.validation.workflow_paths import in_entities_folder, local_path
from falcon_airflow.workspace import Workspace

if TYPE_CHECKING:
    from falcon_airflow.oozie import SubWorkflowAction

# The Oozie package is imported by the functions that read a workflow, when there is one: its model costs every
# validation's start-up tens of milliseconds, and most estates have few Oozie processes or none.

NOT_FOUND_RULE = "FA021"
WORKFLOW_FILE = "workflow.xml"

# The properties Falcon gives every workflow it runs (besides each input and output name and the process's own
# <properties>): a required workflow parameter named like one of these is supplied.
FALCON_WORKFLOW_PROPERTIES = frozenset({
    "nominalTime", "timeStamp", "feedNames", "feedInstancePaths", "falconInputFeeds", "falconInPaths",
    "falconInputNames", "falconInputFeedStorageTypes", "falconOutputFeeds", "falconOutPaths", "falconOutputNames",
    "falconOutputFeedStorageTypes", "srcClusterName", "cluster", "entityName", "entityType", "operation",
    "userWorkflowName", "userWorkflowVersion", "userWorkflowEngine", "logDir", "queueName", "jobPriority",
    "nameNode", "jobTracker", "workflowEngineUrl", "userJMSNotificationEnabled", "systemJMSNotificationEnabled",
    "brokerImplClass", "brokerUrl", "brokerTTL", "userBrokerImplClass", "userBrokerUrl", "datasource",
})


def is_oozie_process(process: Process) -> bool:
    return process.workflow.engine is WorkflowEngine.OOZIE


def _supplied(process: Process) -> dict[str, str]:
    supplied = {name: "" for name in FALCON_WORKFLOW_PROPERTIES}
    supplied.update({item.name: "" for item in process.inputs})
    supplied.update({item.name: "" for item in process.outputs})
    supplied.update(process.property_map)
    return supplied


def _workflow_file(found: Path) -> Path:
    return found / WORKFLOW_FILE if found.is_dir() else found


def locate(context: RuleContext, process: Process) -> tuple[Path | None, list[Issue]]:
    """The local ``workflow.xml`` of an Oozie process, or the issue that says why there is none."""
    path = process.workflow.path.strip()

    def issue(level: Level, message: str) -> list[Issue]:
        return [Issue(level, NOT_FOUND_RULE, message, process.source.file, process.workflow.line, process.name,
                      process.entity_type.value)]

    if not path:
        return None, issue(Level.ERROR, f"process '{process.name}' runs an Oozie workflow but its <workflow> has no "
                                        "path")
    found = in_entities_folder(context, process, path)
    looked: list[str] = []
    if found is None:
        for item in process.clusters:
            cluster = context.workspace.clusters.get(item.name)
            if cluster is None:
                continue
            local = local_path(cluster, path)
            if local is None:
                continue
            if local.exists():
                found = local
                break
            else:
                looked.append(str(local))
    if found is not None:
        workflow = _workflow_file(found)
        if workflow.is_file():
            return workflow, []
        return None, issue(Level.ERROR, f"the Oozie workflow of process '{process.name}' is the folder {found}, "
                                        f"which has no {WORKFLOW_FILE}")
    if looked:
        return None, issue(Level.ERROR, f"the Oozie workflow '{path}' of process '{process.name}' does not exist in "
                                        f"the entities folder or on the cluster (looked for {', '.join(looked)})")
    # on storage this machine cannot read (HDFS, S3): judged when the DAG runs; --check-environment's P6 says so
    return None, []


def _display(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def _unique(issues: Iterable[Issue]) -> Iterator[Issue]:
    seen: set[tuple[object, ...]] = set()
    for issue in issues:
        key = (issue.level, issue.rule, issue.message, issue.file, issue.line)
        if key not in seen:
            seen.add(key)
            yield issue


def with_workflow_files(workspace: Workspace) -> Workspace:
    """The workspace with unreadable files that are Oozie workflows marked as such, so that their problems are
    reported as Oozie reports them (E0701) rather than as entity files'."""
    files = []
    for item in workspace.files:
        if item.entity is None and not item.oozie_workflow and item.issues and _looks_like_workflow(item.path):
            item = ParsedFile(item.path, None, None, item.entity_name, (), oozie_workflow=True)
        files.append(item)
    return replace(workspace, files=tuple(files))


def _looks_like_workflow(path: str) -> bool:
    from falcon_airflow.oozie import looks_like_workflow

    try:
        with open(path, "rb") as handle:
            return looks_like_workflow(handle.read(4096))
    except OSError:
        return False


MAX_SUB_WORKFLOW_DEPTH = 50  # Oozie's default oozie.action.subworkflow.max.depth


def _sub_workflow_file(context: RuleContext, process: Process, parent_file: Path,
                       action: SubWorkflowAction) -> tuple[Path | None, list[str]]:
    """Where a sub-workflow's ``workflow.xml`` is on this machine, and where it was looked for.

    ``${wf:appPath()}`` is the parent's folder; a relative app-path is below it, as Oozie resolves it. An app-path
    that still holds EL, or lies on storage this machine cannot read, is judged when the DAG is built.
    """
    folder = parent_file.parent
    written = action.app_path.strip()
    path = written.replace("${wf:appPath()}", str(folder))
    if not path or "${" in path:
        return None, []
    candidates: list[Path] = []
    if path.startswith("file://"):
        candidates.append(Path(path.removeprefix("file://")))
    elif "://" in path:
        return None, []
    elif not path.startswith("/"):
        candidates.append(folder / path)
    elif written != path or Path(path).exists():  # below the parent's folder, or a path on this machine
        candidates.append(Path(path))
    else:
        for item in process.clusters:
            cluster = context.workspace.clusters.get(item.name)
            local = local_path(cluster, path) if cluster is not None else None
            if local is not None:
                candidates.append(local)
    for candidate in candidates:
        if candidate.exists():
            return _workflow_file(candidate), []
    return None, [str(candidate) for candidate in candidates]


def _shown(files: Iterable[ParsedFile], path: Path) -> str:
    """How a workflow file is named in issues: as validate found it when it was among the paths given."""
    return next((item.path for item in files if Path(item.path).resolve() == path.resolve()), None) or _display(path)


def _process_workflow(context: RuleContext, process: Process, workflow: Path, files: Sequence[ParsedFile],
                      supplied: dict[str, str], seen: set[Path], depth: int = 0) -> list[Issue]:
    """A process's workflow and, below it, every sub-workflow found on this machine."""
    from falcon_airflow.oozie import SubWorkflowAction, configuration_dict
    from falcon_airflow.oozie.validate import validate_workflow_file

    seen.add(workflow.resolve())
    shown = _shown(files, workflow)
    report = validate_workflow_file(workflow, shown, supplied=supplied, in_process=process.name)
    issues = list(report.issues)
    if report.workflow is None or depth >= MAX_SUB_WORKFLOW_DEPTH:
        return issues
    for action in report.workflow.actions:
        if not isinstance(action.config, SubWorkflowAction):
            continue
        child, looked = _sub_workflow_file(context, process, workflow, action.config)
        if child is None:
            if looked:
                issues.append(Issue(Level.ERROR, NOT_FOUND_RULE,
                                    f"sub-workflow action '{action.name}' of process '{process.name}' runs "
                                    f"'{action.config.app_path}', which does not exist (looked for "
                                    f"{', '.join(looked)})", shown, action.config.line or action.line,
                                    report.workflow.name, "workflow"))
            continue
        if not child.is_file():
            issues.append(Issue(Level.ERROR, NOT_FOUND_RULE, f"sub-workflow action '{action.name}' runs the folder "
                                f"{child.parent}, which has no {WORKFLOW_FILE}", shown,
                                action.config.line or action.line, report.workflow.name, "workflow"))
            continue
        if child.resolve() in seen:
            continue
        # the child sees the caller's configuration only with <propagate-configuration/>, plus its <configuration>
        inherited = dict(supplied) if action.config.propagate_configuration else {}
        inherited.update(configuration_dict(action.config.configuration))
        issues.extend(_process_workflow(context, process, child, files, inherited, seen, depth + 1))
    return issues


def workflow_issues(context: RuleContext, files: Sequence[ParsedFile] = ()) -> list[Issue]:
    """Issues of the workflows Oozie processes use (with their sub-workflows), then of the bare workflow files no
    process uses."""
    issues: list[Issue] = []
    used: set[Path] = set()
    for process in context.workspace.processes.values():
        if not is_oozie_process(process):
            continue
        workflow, problems = locate(context, process)
        issues.extend(problems)
        if workflow is None:
            continue
        issues.extend(_process_workflow(context, process, workflow, files, _supplied(process), used))
    for item in files:
        if item.oozie_workflow and Path(item.path).resolve() not in used:
            from falcon_airflow.oozie.validate import validate_workflow_file

            issues.extend(validate_workflow_file(item.path, item.path).issues)
    return list(_unique(issues))
