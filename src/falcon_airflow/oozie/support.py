"""Which Oozie actions run on falcon-airflow, what each becomes, and what to port the others to.

One table (:data:`ACTION_SUPPORT`) answers ``falcon-airflow oozie graph --support``, the documentation and the
validation rule ``FA020``: an action that cannot run here is an error when a Falcon process uses the workflow
(its instances could not run) and a warning for a bare ``workflow.xml`` (the definition itself is valid Oozie).
"""

from __future__ import annotations

from dataclasses import dataclass

from falcon_airflow.issues import Issue, Level
from falcon_airflow.oozie.model import (
    ActionNode,
    DistcpAction,
    FsAction,
    FsOperationKind,
    Hive2Action,
    HiveAction,
    JavaAction,
    SparkAction,
    Workflow,
)
from falcon_airflow.oozie.rule_ids import NOT_APPLIED_RULE, UNSUPPORTED_RULE


@dataclass(frozen=True, slots=True)
class ActionSupport:
    action_type: str
    runs: bool
    becomes: str  # what the action is here (runs) or why it cannot run (refused)
    advice: str | None = None  # what to port a refused action to

    @property
    def reason(self) -> str:
        """Why a refused action cannot run, and what to port it to: the text of ``FA020`` and of the compiler's
        refusal, so the two always say the same."""
        return f"{self.becomes}; {self.advice}" if self.advice else self.becomes


ACTION_SUPPORT: dict[str, ActionSupport] = {item.action_type: item for item in (
    ActionSupport("spark", True, "spark-submit through the project's Spark hook; master and deploy mode from the "
                  "cluster entity unless the action gives them"),
    ActionSupport("hive", True, "the script on Spark SQL (as engine=\"hive\"), with <param> substitution"),
    ActionSupport("hive2", True, "the script on Spark SQL (the JDBC URL is not used), with <param> substitution"),
    ActionSupport("shell", True, "the command on the worker with its arguments, environment and files; "
                  "<capture-output/> read as Java properties for wf:actionData"),
    ActionSupport("java", True, "the main class on Spark's driver (spark-submit --class) with its arguments"),
    ActionSupport("fs", True, "mkdir, delete, move, chmod, touchz, chgrp through the Hadoop FileSystem API of the "
                  "cluster (HDFS, S3, file://)"),
    ActionSupport("email", True, "an e-mail through Airflow's SMTP connection (to, cc, bcc, subject, body, "
                  "content type, attachments)"),
    ActionSupport("distcp", True, "the project's replication copier (a Spark job)"),
    ActionSupport("sub-workflow", True, "the child workflow as a nested task group (propagate-configuration "
                  "passes the parent's configuration)"),
    ActionSupport("sqoop", False, "a Sqoop command line runs as MapReduce jobs, and there is no MapReduce here",
                  "move the transfer to the feed: an <import> from a datasource or an <export> to one runs as a "
                  "Spark JDBC job here (docs/import-export.md); or read/write over JDBC in a <spark> action"),
    ActionSupport("map-reduce", False, "there is no MapReduce runtime here (Spark only)",
                  "port the mapper and reducer to a Spark job (a <spark> action or engine=\"spark\"); a streaming "
                  "job's scripts can run unchanged through RDD.pipe in PySpark"),
    ActionSupport("pig", False, "there is no Pig runtime here",
                  "port the Pig Latin script to Spark SQL (a <hive> action or engine=\"hive\") or to PySpark"),
    ActionSupport("ssh", False, "workers do not open SSH sessions to other hosts",
                  "run the command in a <shell> action on the worker, or call the remote system's API from a "
                  "<java> or <spark> action"),
    ActionSupport("git", False, "workers do not clone repositories while a workflow runs",
                  "ship the files with the workflow (deploy them beside workflow.xml) or fetch them in a <shell> "
                  "action"),
)}


SETREP_SUPPORT = ActionSupport(
    "fs", False, "its <setrep> (a block replication factor) has no equivalent on the file systems this project "
    "writes through", "drop <setrep> and set replication in the storage's own configuration (dfs.replication)")


def support_of(action: ActionNode) -> ActionSupport:
    if isinstance(action.config, FsAction) and any(op.kind is FsOperationKind.SETREP
                                                   for op in action.config.operations):
        return SETREP_SUPPORT
    known = ACTION_SUPPORT.get(action.action_type)
    if known is not None:
        return known
    return ActionSupport(action.action_type, False, f"<{action.action_type}> is not an Oozie action type this "
                         "project knows (a custom action executor)",
                         "replace it with a <shell>, <java> or <spark> action that does the same work")


def support_issues(workflow: Workflow, *, in_process: str | None = None) -> list[Issue]:
    """``FA020`` for every action that cannot run here: an error when ``in_process`` names the Falcon process
    that uses the workflow, a warning for a bare workflow."""
    issues: list[Issue] = []
    for action in workflow.actions:
        support = support_of(action)
        if support.runs:
            continue
        user = f"process '{in_process}' uses this workflow, but " if in_process else ""
        issues.append(Issue(Level.ERROR if in_process else Level.WARNING, UNSUPPORTED_RULE,
                            f"{user}action '{action.name}' (<{action.action_type}>) cannot run on falcon-airflow: "
                            f"{support.reason}", file=workflow.file,
                            line=action.config.line or action.line, entity=workflow.name, entity_type="workflow"))
    return issues


# -- FA025: what a workflow may say that the node-by-node runtime does not apply -------------------------------------

_JOB_XML = "<job-xml> is not applied: no Hadoop job configuration file is read; put the settings in <configuration>"
_LAUNCHER = ("<launcher> is not applied: there is no Oozie launcher job; actions run on the Airflow worker or as "
             "Spark applications of the cluster's Spark master")
_CREDENTIALS = ("<credentials> are not applied: no delegation tokens are fetched; actions run as the process's "
                "identity with the deployment's own Hadoop and metastore credentials")
_CRED = ("attribute 'cred' is not applied: no delegation tokens are fetched; the action runs as the process's "
         "identity")
_RETRY_POLICY = ("attribute 'retry-policy' is not applied: a failed action is retried every retry-interval "
                 "minutes (Airflow's fixed retry delay), never with an exponential back-off")
_SLA = ("<sla:info> is not applied: Oozie's SLA events are not emitted; give the Falcon process an <sla> "
        "(shouldStartIn, shouldEndIn), which falcon-airflow monitors")
_HIVE_FILES = ("<{kind}> of a {action} action is not applied: the script runs on Spark SQL in the worker's "
               "Spark application, which ships no files or archives")
_HIVE_ARGUMENT = ("<argument> of a {action} action is not applied: the script runs on Spark SQL, which takes no "
                  "Hive command-line options; use <param> for variables")
_JDBC_URL = ("<jdbc-url> of a hive2 action is not applied: the script runs on Spark SQL with the cluster's "
             "metastore, not through HiveServer2")
_PASSWORD = "<password> of a hive2 action is not applied: no HiveServer2 connection is opened"
_SPARK_ARCHIVE = ("<archive> of a spark action is not applied: only <file>s are shipped (spark-submit --files); "
                  "unpack the archive in the application or list its files")
_JAVA_FILES = ("<{kind}> of a java action is not applied: the main class runs on Spark's driver with the "
               "application's lib/ jars only")
_JAVA_CAPTURE = ("<capture-output/> of a java action is not applied: the main class's output is not read for "
                 "wf:actionData")
_DISTCP_OPTS = ("<java-opts> of a distcp action is not applied: the copy runs as the project's replication job, "
                "which takes no JVM options from the workflow")


def not_applied_issues(workflow: Workflow) -> list[Issue]:
    """``FA025`` (warnings): every element of the workflow that this runtime accepts but does not apply, naming
    the element and why, so nobody relies on it unknowingly (the table in
    :mod:`falcon_airflow.validation.coverage` lists them)."""
    found: list[tuple[str, int | None]] = []
    if workflow.credentials:
        found.append((_CREDENTIALS, workflow.credentials[0].line))
    if workflow.sla is not None:
        found.append((_SLA, workflow.sla.line))
    settings = workflow.global_settings
    if settings is not None:
        if settings.job_xml:
            found.append(("<global>: " + _JOB_XML, settings.line))
        if settings.launcher:
            found.append(("<global>: " + _LAUNCHER, settings.line))
    for action in workflow.actions:
        if not support_of(action).runs:
            continue  # FA020 refuses the whole action
        found.extend((f"action '{action.name}': {message}", line) for message, line in _action_findings(action))
    return [Issue(Level.WARNING, NOT_APPLIED_RULE, message, file=workflow.file, line=line or workflow.line,
                  entity=workflow.name, entity_type="workflow") for message, line in found]


def _action_findings(action: ActionNode) -> list[tuple[str, int | None]]:
    config = action.config
    line = config.line or action.line
    found: list[tuple[str, int | None]] = []
    if action.cred:
        found.append((_CRED, action.line))
    if action.retry_policy:
        found.append((_RETRY_POLICY, action.line))
    if action.sla is not None:
        found.append((_SLA, action.sla.line or action.line))
    if getattr(config, "job_xml", ()):
        found.append((_JOB_XML, line))
    if getattr(config, "launcher", ()):
        found.append((_LAUNCHER, line))
    if isinstance(config, (HiveAction, Hive2Action)):
        kind = config.TYPE
        if config.files:
            found.append((_HIVE_FILES.format(kind="file", action=kind), line))
        if config.archives:
            found.append((_HIVE_FILES.format(kind="archive", action=kind), line))
        if config.arguments:
            found.append((_HIVE_ARGUMENT.format(action=kind), line))
    if isinstance(config, Hive2Action):
        if config.jdbc_url.strip():
            found.append((_JDBC_URL, line))
        if config.password is not None:
            found.append((_PASSWORD, line))
    if isinstance(config, SparkAction) and config.archives:
        found.append((_SPARK_ARCHIVE, line))
    if isinstance(config, JavaAction):
        if config.files:
            found.append((_JAVA_FILES.format(kind="file"), line))
        if config.archives:
            found.append((_JAVA_FILES.format(kind="archive"), line))
        if config.capture_output:
            found.append((_JAVA_CAPTURE, line))
    if isinstance(config, DistcpAction) and config.java_opts:
        found.append((_DISTCP_OPTS, line))
    return found
