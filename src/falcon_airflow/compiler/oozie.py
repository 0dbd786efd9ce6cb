"""An Oozie workflow (the parsed model) to the :class:`OozieWorkflowSpec` the process DAG runs.

What is decided here, as Oozie decides it when it submits the workflow:

* every node becomes one task, named after the node; the start node is the group's entry (``start``);
* each action's configuration is ``<global><configuration>`` overlaid with its own ``<configuration>``;
* relative files of actions (shell ``<file>``, the spark ``<jar>``, the hive ``<script>``, the java action's
  ``lib/`` jars) resolve against the workflow application folder, as Oozie resolves them against ``wf:appPath``;
* a sub-workflow is read and compiled in place, as a nested group; ``${wf:appPath()}`` and ``${nameNode}`` in its
  ``app-path`` are known now, anything else in it must be too (there is no run yet to evaluate it against);
* actions that cannot run here are refused with the reason (validation reports them first).

Nothing here imports Airflow; the result is plain data (the golden-test surface).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from falcon_airflow.compiler.oozie_spec import OozieCase, OozieNode, OozieWorkflowSpec
from falcon_airflow.errors import FalconAirflowError
from falcon_airflow.oozie import (
    ActionNode,
    DecisionNode,
    DistcpAction,
    EmailAction,
    EndNode,
    ForkNode,
    FsAction,
    Hive2Action,
    HiveAction,
    JavaAction,
    JoinNode,
    KillNode,
    ShellAction,
    SparkAction,
    SubWorkflowAction,
    Workflow,
    configuration_dict,
    parse_workflow_file,
)
from falcon_airflow.oozie.support import support_of

MAX_DEPTH = 8
"""Sub-workflows nested deeper than this are refused (Oozie's default ``oozie.action.subworkflow.max.depth`` 50 is
meant for recursion, which a compiled graph cannot do)."""

_UNSAFE_ID = re.compile(r"[^A-Za-z0-9_.-]")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:")


class OozieCompileError(FalconAirflowError):
    """A workflow that cannot be compiled (an action that cannot run here, a sub-workflow that cannot be read)."""


def task_id_of(name: str) -> str:
    """A node name as an Airflow task id: Oozie names are mostly valid already; anything else becomes ``_``."""
    return _UNSAFE_ID.sub("_", name).strip(".") or "_"


def workflow_file(path: str) -> Path:
    """The ``workflow.xml`` of an application path (a folder holding one, or the file itself)."""
    local = Path(path.removeprefix("file://")) if path.startswith(("file://", "/")) else Path(path)
    return local / "workflow.xml" if local.is_dir() else local


def app_folder(path: str) -> str:
    """``wf:appPath``: the application folder, whether the process names the folder or its workflow.xml."""
    stripped = path.rstrip("/")
    return stripped.rsplit("/", 1)[0] if stripped.endswith(".xml") else stripped


def resolve_file(app_path: str, path: str) -> str:
    """An action's file: absolute paths and URIs as written, relative ones below the application folder.

    A ``#name`` suffix (the link name Oozie gives the file in the working folder) is kept.
    """
    target, mark, link = path.partition("#")
    target = target.strip()
    if "${" in target or target.startswith("/") or _SCHEME.match(target):
        return path.strip()
    return f"{app_path.rstrip('/')}/{target}{mark}{link}"


def _files(app_path: str, paths: tuple[str, ...]) -> list[str]:
    return [resolve_file(app_path, item) for item in paths if item.strip()]


def _lib_jars(app_path: str) -> list[str]:
    """The jars of the application's ``lib/`` folder, which Oozie puts on every action's class path."""
    folder = Path(app_path.removeprefix("file://")) / "lib"
    return sorted(str(jar) for jar in folder.glob("*.jar")) if folder.is_dir() else []


def _operations(action: FsAction) -> list[dict[str, object]]:
    return [{"op": item.kind.value, "path": item.path.strip(), "target": item.target.strip() if item.target else None,
             "permissions": item.permissions, "group": item.group, "recursive": item.recursive,
             "dir_files": item.dir_files, "skip_trash": item.skip_trash} for item in action.operations]


def _body(node: ActionNode, app_path: str, workflow: Workflow) -> dict[str, object]:
    # the refusals (and what to port to) are oozie.support's, the table validation's FA020 and `oozie graph
    # --support` read too, so what the compiler refuses is what validation reported
    support = support_of(node)
    if not support.runs:
        raise OozieCompileError(f"action '{node.name}' ({node.action_type}) cannot run here: {support.reason}",
                                file=workflow.file, line=node.line)
    config = node.config
    global_name_node = workflow.global_settings.name_node if workflow.global_settings else None
    if isinstance(config, ShellAction):
        return {"exec": config.exec, "arguments": list(config.arguments), "env_vars": list(config.env_vars),
                "files": _files(app_path, config.files), "archives": _files(app_path, config.archives),
                "capture_output": config.capture_output}
    if isinstance(config, FsAction):
        # paths without a scheme resolve against the action's (else the global) name-node once EL is evaluated
        return {"operations": _operations(config), "name_node": config.name_node or global_name_node}
    if isinstance(config, (HiveAction, Hive2Action)):
        return {"script": resolve_file(app_path, config.script) if config.script else None,
                "query": config.query, "params": list(config.params), "arguments": list(config.arguments)}
    if isinstance(config, SparkAction):
        return {"master": config.master, "mode": config.mode, "name": config.name, "class": config.spark_class,
                "jar": resolve_file(app_path, config.jar) if config.jar else "", "spark_opts": config.spark_opts,
                "args": list(config.args), "files": _files(app_path, config.files),
                "archives": _files(app_path, config.archives)}
    if isinstance(config, JavaAction):
        return {"main_class": config.main_class, "java_opts": list(config.java_opts), "args": list(config.args),
                "jars": _lib_jars(app_path), "files": _files(app_path, config.files),
                "capture_output": config.capture_output}
    if isinstance(config, EmailAction):
        return {"to": config.to, "cc": config.cc, "bcc": config.bcc, "subject": config.subject, "body": config.body,
                "content_type": config.content_type, "attachment": config.attachment}
    if isinstance(config, DistcpAction):
        return {"args": list(config.args), "java_opts": config.java_opts}
    # oozie.support says this type runs, but nothing above compiles it: a gap in the compiler, not in the workflow
    raise OozieCompileError(f"action '{node.name}' ({node.action_type}) is listed as supported but has no "
                            "compiled form here", file=workflow.file, line=node.line)


def _number(text: str | None, default: int, what: str, node: ActionNode, workflow: Workflow) -> int:
    if text is None or not text.strip():
        return default
    try:
        return max(0, int(text.strip()))
    except ValueError:
        raise OozieCompileError(f"action '{node.name}': {what} '{text}' is not a number (EL is not supported here)",
                                file=workflow.file, line=node.line) from None


def _sub_app_path(action: SubWorkflowAction, parent_app: str, name_node: str | None, node: ActionNode,
                  workflow: Workflow) -> str:
    path = action.app_path.strip().replace("${wf:appPath()}", parent_app)
    if name_node:
        path = path.replace("${nameNode}", name_node.rstrip("/"))
    if "${" in path:
        raise OozieCompileError(f"sub-workflow '{node.name}': app-path '{action.app_path}' must be known when the "
                                "DAG is built (only ${wf:appPath()} and ${nameNode} are replaced)",
                                file=workflow.file, line=node.line)
    if not path.startswith("/") and not _SCHEME.match(path):
        path = f"{parent_app.rstrip('/')}/{path}"
    return path


def join_arrivals(workflow: Workflow) -> dict[str, int]:
    """For each join, how many fork paths meet there: the paths of the fork it closes (nested forks count once)."""
    closing: dict[str, str | None] = {}

    def walk(name: str, depth: int) -> str | None:
        node = workflow.node(name)
        if node is None or depth > len(workflow.nodes):
            return None
        if isinstance(node, JoinNode):
            return node.name
        if isinstance(node, ForkNode):
            inner = join_of(node, depth + 1)
            joined = workflow.node(inner) if inner else None
            return walk(joined.to, depth + 1) if isinstance(joined, JoinNode) else None
        if isinstance(node, ActionNode):
            return walk(node.ok, depth + 1)
        if isinstance(node, DecisionNode):
            for target in (*(case.to for case in node.cases), node.default):
                found = walk(target, depth + 1)
                if found:
                    return found
        return None

    def join_of(fork: ForkNode, depth: int) -> str | None:
        if fork.name not in closing:
            closing[fork.name] = next((found for path in fork.paths if (found := walk(path, depth))), None)
        return closing[fork.name]

    arrivals: dict[str, int] = {}
    for node in workflow.nodes:
        if isinstance(node, ForkNode):
            join = join_of(node, 0)
            if join:
                arrivals[join] = len(node.paths)
    return arrivals


def compile_workflow(workflow: Workflow, app_path: str, *, group_id: str = "workflow", name_node: str | None = None,
                     depth: int = 0) -> OozieWorkflowSpec:
    """The spec of a parsed workflow whose application folder is ``app_path`` (``wf:appPath``)."""
    global_conf = configuration_dict(workflow.configuration)
    arrivals = join_arrivals(workflow)
    nodes: list[OozieNode] = []
    for node in workflow.nodes:
        common: dict[str, Any] = {"name": node.name, "task_id": task_id_of(node.name), "line": node.line}
        if isinstance(node, EndNode):
            nodes.append(OozieNode(type="end", **common))
        elif isinstance(node, KillNode):
            nodes.append(OozieNode(type="kill", message=node.message, **common))
        elif isinstance(node, DecisionNode):
            nodes.append(OozieNode(type="decision", cases=tuple(OozieCase(predicate=case.predicate, to=case.to)
                                                                 for case in node.cases),
                                   default=node.default, **common))
        elif isinstance(node, ForkNode):
            nodes.append(OozieNode(type="fork", paths=node.paths, **common))
        elif isinstance(node, JoinNode):
            nodes.append(OozieNode(type="join", ok=node.to, arrivals=arrivals.get(node.name, 1), **common))
        elif isinstance(node, ActionNode):
            nodes.append(_action(node, workflow, app_path, global_conf, group_id, name_node, depth, common))
    return OozieWorkflowSpec(name=workflow.name, app_path=app_path, file=workflow.file, start=workflow.start.to,
                             parameters=workflow.parameter_defaults(),
                             required=tuple(item.name for item in workflow.parameters if item.required),
                             nodes=tuple(nodes), group_id=group_id)


def _action(node: ActionNode, workflow: Workflow, app_path: str, global_conf: dict[str, str], group_id: str,
            name_node: str | None, depth: int, common: dict[str, Any]) -> OozieNode:
    config = node.config
    retry = {"retry_max": _number(node.retry_max, 0, "retry-max", node, workflow),
             "retry_interval_minutes": _number(node.retry_interval, 10, "retry-interval", node, workflow)}
    if isinstance(config, SubWorkflowAction):
        if depth >= MAX_DEPTH:
            raise OozieCompileError(f"sub-workflow '{node.name}' nests deeper than {MAX_DEPTH} workflows",
                                    file=workflow.file, line=node.line)
        child_app = app_folder(_sub_app_path(config, app_path, name_node, node, workflow))
        parsed = parse_workflow_file(workflow_file(child_app))
        if parsed.workflow is None or parsed.has_errors:
            first = next((issue for issue in parsed.issues if issue.is_error), None)
            reason = f": {first.message}" if first is not None else ""
            raise OozieCompileError(f"sub-workflow '{node.name}': {workflow_file(child_app)} is not a valid "
                                    f"workflow{reason}", file=workflow.file, line=node.line)
        child = compile_workflow(parsed.workflow, child_app, group_id=f"{group_id}.{common['task_id']}",
                                 name_node=name_node, depth=depth + 1)
        return OozieNode(type="action", action="sub-workflow", ok=node.ok, error=node.error,
                         configuration=configuration_dict(config.configuration), sub_workflow=child,
                         propagate_configuration=config.propagate_configuration, **common, **retry)
    action_type = node.action_type
    body = _body(node, app_path, workflow)
    prepare = getattr(config, "prepare", None)
    if prepare is not None and (prepare.deletes or prepare.mkdirs):
        # Oozie empties and creates these before the action starts (each retry too)
        body["prepare"] = {"delete": [path.strip() for path in prepare.deletes],
                           "mkdir": [path.strip() for path in prepare.mkdirs]}
    own = configuration_dict(getattr(config, "configuration", ()))
    return OozieNode(type="action", action=action_type, ok=node.ok, error=node.error, body=body,
                     configuration={**global_conf, **own}, **common, **retry)
