"""Which Oozie actions run on falcon-airflow, what each becomes, and what to port the others to.

One table (:data:`ACTION_SUPPORT`) answers ``falcon-airflow oozie graph --support``, the documentation and the
validation rule ``FA020``: an action that cannot run here is an error when a Falcon process uses the workflow
(its instances could not run) and a warning for a bare ``workflow.xml`` (the definition itself is valid Oozie).
"""

from __future__ import annotations

from dataclasses import dataclass

from falcon_airflow.issues import Issue, Level
from falcon_airflow.oozie.model import ActionNode, FsAction, FsOperationKind, Workflow

UNSUPPORTED_RULE = "FA020"


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
