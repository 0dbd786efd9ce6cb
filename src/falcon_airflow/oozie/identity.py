"""Two rules over a workflow's actions: they never choose whom they run as (``FA035``), and they name no local file
outside the application folder that they could not use (``FA036``).

``FA035`` (error): a ``<spark>`` action's ``<spark-opts>``, a ``<java>`` or ``<distcp>`` action's JVM options, any
action's (or ``<global>``) ``<configuration>``, and a ``<shell>`` action's ``<env-var>`` that set the user or the
login (``--proxy-user``, ``spark.kerberos.keytab``, ``HADOOP_USER_NAME`` ...; :mod:`falcon_airflow.core.identity`).
Every action runs as the process's checked ``-doAs`` user, else its ACL owner.

``FA036``: the local files an action reads or changes (``<file>``, ``<archive>``, ``<script>``, ``<jar>``, e-mail
attachments, ``file://`` paths of ``<fs>`` and ``<prepare>``): a ``..`` segment is an error (the runtime refuses
it); an absolute path outside the application folder is a warning, as it is used only when the deployment lists a
root holding it (:mod:`falcon_airflow.oozie.access`). Text holding EL is judged when the action runs.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from urllib.parse import unquote

from falcon_airflow.core.identity import (
    identity_environment,
    identity_java_options,
    identity_setting,
    spark_opts_identity_problems,
)
from falcon_airflow.issues import Issue, Level
from falcon_airflow.oozie.access import OutsideRoots, checked_path, has_parent_segment, local_path
from falcon_airflow.oozie.model import (
    ActionNode,
    DistcpAction,
    EmailAction,
    FsAction,
    HadoopActionConfig,
    Hive2Action,
    HiveAction,
    JavaAction,
    Property,
    ShellAction,
    SparkAction,
    Workflow,
)

IDENTITY_RULE = "FA035"
FILES_RULE = "FA036"


def _configuration_problems(properties: tuple[Property, ...]) -> Iterator[tuple[str, int | None]]:
    for item in properties:
        reason = identity_setting(item.name, item.value)
        if reason is not None and "${" not in item.name:
            yield reason, item.line


def _action_identity(action: ActionNode) -> Iterator[tuple[str, int | None]]:
    config = action.config
    line = config.line or action.line
    if isinstance(config, SparkAction):
        for problem in spark_opts_identity_problems(config.spark_opts):
            yield f"<spark-opts>: {problem}", line
    if isinstance(config, (JavaAction, DistcpAction)):
        options = config.java_opts if isinstance(config.java_opts, tuple) else (config.java_opts or "",)
        for text in options:
            if (found := identity_java_options(text)) is not None:
                yield f"<java-opts>: {found}", line
    if isinstance(config, ShellAction):
        for item in config.env_vars:
            name, _, value = item.partition("=")
            if (refused := identity_environment(name, value)) is not None:
                yield f"<env-var> {name.strip()}: {refused}", line
    for setting, at in _configuration_problems(getattr(config, "configuration", ())):
        yield f"<configuration>: {setting}", at or line


def identity_issues(workflow: Workflow) -> list[Issue]:
    """``FA035`` for every place of the workflow that would choose whom its actions run as."""
    found: list[tuple[str, int | None]] = [(f"<global><configuration>: {reason}", line)
                                           for reason, line in _configuration_problems(workflow.configuration)]
    for action in workflow.actions:
        found += [(f"action '{action.name}' {reason}", line) for reason, line in _action_identity(action)]
    return [Issue(Level.ERROR, IDENTITY_RULE, f"{reason}; every action runs as the process's -doAs user, else its "
                  "ACL owner, never as the workflow says", workflow.file, line, workflow.name, "workflow")
            for reason, line in found]


def _named_files(action: ActionNode) -> Iterator[tuple[str, str]]:
    """(what, path as written) of every local file the action reads or changes."""
    config = action.config
    for item in getattr(config, "files", ()):
        yield "<file>", item.partition("#")[0]
    for item in getattr(config, "archives", ()):
        yield "<archive>", item.partition("#")[0]
    if isinstance(config, (HiveAction, Hive2Action)) and config.script:
        yield "<script>", config.script
    if isinstance(config, SparkAction) and config.jar:
        yield "<jar>", config.jar
    if isinstance(config, EmailAction):
        for item in (config.attachment or "").split(","):
            if item.strip():
                yield "<attachment>", item.strip()
    if isinstance(config, FsAction):
        for operation in config.operations:
            yield f"<{operation.kind.value}>", operation.path
            if operation.target:
                yield f"<{operation.kind.value}> target", operation.target
    prepare = config.prepare if isinstance(config, HadoopActionConfig) else None
    if prepare is not None:
        for path in (*prepare.deletes, *prepare.mkdirs):
            yield "<prepare>", path


def file_issues(workflow: Workflow) -> list[Issue]:
    """``FA036`` for the local files of the workflow's actions (see the module's description)."""
    folder = str(Path(workflow.file).resolve().parent)
    issues: list[Issue] = []
    for action in workflow.actions:
        line = action.config.line or action.line
        fs_paths = isinstance(action.config, FsAction)
        for what, written in _named_files(action):
            text = written.strip()
            if not text or "${" in text:
                continue
            try:
                path = local_path(text)
            except OutsideRoots as problem:
                issues.append(Issue(Level.ERROR, FILES_RULE, f"action '{action.name}' {problem}", workflow.file,
                                    line, workflow.name, "workflow"))
                continue
            scheme_less = not text.startswith("file:")
            if path is None or ((fs_paths or what == "<prepare>") and scheme_less):
                continue  # remote, or a path on the action's name-node: the job's user decides
            if not path.startswith("/"):
                path = unquote(path)  # joined to the application's URI, where it is read percent-decoded
            if has_parent_segment(path):
                issues.append(Issue(Level.ERROR, FILES_RULE, f"action '{action.name}' {what} '{written}' has a '..' "
                                    "segment: an action's files are named without one, and it is refused when "
                                    "the action runs", workflow.file, line, workflow.name, "workflow"))
                continue
            absolute = path if path.startswith("/") else f"{folder}/{path}"
            try:
                checked_path(absolute, [folder], what)
            except OutsideRoots:
                issues.append(Issue(Level.WARNING, FILES_RULE, f"action '{action.name}' {what} '{written}' is "
                                    "outside the workflow application folder: it is used only when it lies below "
                                    "the process's own storage or a root in [falcon] oozie_file_roots",
                                    workflow.file, line, workflow.name, "workflow"))
    return issues
