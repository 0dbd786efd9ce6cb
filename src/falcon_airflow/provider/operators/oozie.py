"""One Airflow task per Oozie node: it runs the node, records what happened and follows the transition it took.

Every node task is a branch: it follows exactly the transitions Oozie would take (``ok`` or ``error`` of an action,
the first true ``case`` of a decision, every path of a fork) and skips the others. A node runs only when one of its
upstream tasks chose it - a task that merely succeeded is not enough, because a node can be the target of several
nodes (a shared ``fail`` kill) - and skips itself otherwise. A join goes on when every path of its fork arrived.

What each node did is kept in XCom (key ``oozie``): its status, the transition taken, the error code and message
of a failed action, the captured output of a shell action; ``wf:lastErrorNode``, ``wf:errorCode``,
``wf:actionData`` and the rest read it back. An action that fails is retried up to its ``retry-max`` (Airflow's
retries, ``retry-interval`` apart) before its error transition is taken; the action task itself then ends as
success with the failure in its log and XCom, and the run fails where Oozie's workflow would: at a kill node, with
the kill node's message. Clearing the run (Airflow UI, Clear) runs the workflow again from its start.

A sub-workflow is a nested task group: its end follows the caller's ``ok``, its kill nodes the caller's ``error``
(with the kill message as the error), as Oozie ends a sub-workflow action.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from airflow.sdk.bases.branch import BaseBranchOperator
from airflow.sdk.exceptions import AirflowFailException, AirflowSkipException

from falcon_airflow.compiler.specs import ProcessDagSpec
from falcon_airflow.instances.s3 import client_settings
from falcon_airflow.provider.hooks.oozie import ActionFailed, OozieEmailHook, OozieShellHook
from falcon_airflow.provider.operators.oozie_runtime import OozieFileSystem, WorkflowRun

XCOM_KEY = "oozie"
GROUP_PREFIX = "workflow."
"""Every node task of a process's workflow lives in this task group (nested groups for sub-workflows)."""


def _now() -> str:
    return datetime.now(UTC).isoformat()


def generation(context: Any) -> int:
    """How often the run was cleared: records of an earlier pass (a task the scheduler skipped this time keeps its
    old XCom) must not steer this one."""
    return int(getattr(context["dag_run"], "clear_number", 0) or 0)


class OozieNodeOperator(BaseBranchOperator):
    """Runs one node of an Oozie workflow (see the module's description).

    ``node`` is the compiled node (``OozieNode`` as a dict); ``levels`` the workflows from the process's down to
    the one holding the node (name, app path, parameters, the calling sub-workflow action's configuration and
    whether it propagates the caller's); ``targets`` the task ids its transitions lead to; ``falcon_conf``
    (templated) Falcon's workflow configuration of the run as JSON; ``arrivals`` how many fork paths a join waits
    for; ``spark_defaults`` the cluster's Spark master, deploy mode and connection id.

    ``run_as`` is who every action runs as (the process's checked ``-doAs`` user, else its ACL owner; ``None``: the
    deployment's own identity): Spark's ``--proxy-user`` of the actions on Spark, ``HADOOP_PROXY_USER`` of a shell
    command, WebHDFS's ``doas`` for ``<prepare>`` and ``fs:*`` on HDFS, and ``wf:user()``. ``file_roots`` are the
    local folders the actions may read and change files in, with ``[falcon] oozie_file_roots`` added when the task
    runs (:mod:`falcon_airflow.oozie.access`).
    """

    template_fields: Sequence[str] = ("falcon_conf", "lineage_instance")
    ui_color = "#f0e4ec"

    def __init__(self, *, node: dict[str, Any], levels: list[dict[str, Any]], targets: dict[str, Any],
                 falcon_conf: str, node_tasks: dict[str, list[str]], arrivals: int = 0,
                 user: str = "falcon", spark_defaults: dict[str, Any] | None = None, run_as: str | None = None,
                 file_roots: list[str] | None = None, falcon_lineage: ProcessDagSpec | None = None,
                 lineage_instance: str | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.falcon_lineage = falcon_lineage
        """Set on the workflow's own end node: its OpenLineage events carry the process instance's input and output
        feed instances, as a Spark process's workflow task does (``lineage_instance``, templated, is the instance)."""
        self.lineage_instance = lineage_instance
        self.node = node
        self.levels = levels
        self.targets = targets
        self.falcon_conf = falcon_conf
        self.node_tasks = node_tasks
        self.arrivals = arrivals
        self.user = user
        self.spark_defaults = spark_defaults or {"master": "local[*]", "deploy_mode": None, "connection": "spark"}
        self.run_as = run_as
        self.file_roots = list(file_roots or [])

    def action_roots(self) -> list[str]:
        """The folders the actions may use on this worker: the DAG's and the deployment's."""
        from airflow.configuration import conf

        from falcon_airflow.oozie.access import ROOTS_SETTING, configured_roots

        return [*self.file_roots, *configured_roots(conf.get("falcon", ROOTS_SETTING, fallback=""))]

    # -- OpenLineage: the process instance's datasets, on the workflow's end node -------------------------------

    def _openlineage(self) -> Any:
        if self.falcon_lineage is None:
            return None
        try:
            from falcon_airflow.provider.openlineage import operator_lineage, parse_instance

            return operator_lineage(self.falcon_lineage, instance=parse_instance(self.lineage_instance), report=None)
        except Exception:
            self.log.warning("could not compute the OpenLineage facets of %s", self.task_id, exc_info=True)
            return None

    def get_openlineage_facets_on_start(self) -> Any:
        return self._openlineage()

    def get_openlineage_facets_on_complete(self, task_instance: Any) -> Any:
        return self._openlineage()

    def get_openlineage_facets_on_failure(self, task_instance: Any) -> Any:
        return self._openlineage()

    # -- which upstream chose this node
    def _choosers(self, context: Any) -> int:
        ti = context["ti"]
        if not self.upstream_task_ids:
            return 1  # the workflow's first node in a process without inputs or outputs to wait for
        count = 0
        for upstream in self.upstream_task_ids:
            if not upstream.startswith(GROUP_PREFIX):
                count += 1  # the process's own steps before the workflow (inputs waited for, outputs cleared)
                continue
            record = ti.xcom_pull(task_ids=upstream, key=XCOM_KEY)
            if isinstance(record, dict) and record.get("generation") == generation(context) \
                    and self.task_id in record.get("chosen", ()):
                count += 1
        return count

    def execute(self, context: Any) -> Any:
        choosers = self._choosers(context)
        if choosers == 0:
            raise AirflowSkipException("the workflow did not take a transition to this node")
        kind = self.node["type"]
        if kind == "join" and choosers < self.arrivals:
            raise AirflowSkipException(f"only {choosers} of the {self.arrivals} paths of the fork reached this join")
        conf = json.loads(self.falcon_conf or "{}")
        # the workflow's configuration ends with the cluster's properties: its S3A client settings among them
        filesystem = OozieFileSystem(run_as=self.run_as, roots=self.action_roots(),
                                     storage_settings=client_settings(conf) or None)
        run = WorkflowRun(context=context, levels=self.levels, falcon_conf=conf, node_tasks=self.node_tasks,
                          user=self.run_as or self.user, xcom_key=XCOM_KEY, filesystem=filesystem)
        record: dict[str, Any] = {"node": self.node["name"], "started": _now(), "generation": generation(context)}
        if kind == "fork":
            chosen = list(self.targets["paths"])
            record["status"] = "OK"
        elif kind == "join":
            chosen = [self.targets["ok"]]
            record["status"] = "OK"
        elif kind == "decision":
            chosen, record["transition"] = self._decide(run)
            record["status"] = "OK"
        elif kind == "end":
            return self._end(context, run, record)
        elif kind == "kill":
            return self._kill(context, run, record)
        else:
            chosen = self._act(context, run, record)
        record["chosen"] = chosen
        record["ended"] = _now()
        context["ti"].xcom_push(key=XCOM_KEY, value=record)
        return self.do_branch(context, chosen)

    # -- control nodes
    def _decide(self, run: WorkflowRun) -> tuple[list[str], str]:
        for case in self.targets["cases"]:
            if run.predicate(case["predicate"]):
                self.log.info("case %r is true: to %s", case["predicate"], case["to"])
                return [case["task"]], case["to"]
        self.log.info("no case is true: default to %s", self.node.get("default"))
        return [self.targets["default"]], str(self.node.get("default"))

    def _end(self, context: Any, run: WorkflowRun, record: dict[str, Any]) -> Any:
        record.update(status="OK", ended=_now())
        if len(self.levels) > 1:  # a sub-workflow's end: the calling action succeeded
            record.update(node=self.levels[-1]["action"], chosen=[self.targets["ok"]],
                          transition=self.levels[-1]["ok"])
            context["ti"].xcom_push(key=XCOM_KEY, value=record)
            return self.do_branch(context, [self.targets["ok"]])
        record["chosen"] = list(self.downstream_task_ids)
        context["ti"].xcom_push(key=XCOM_KEY, value=record)
        self.log.info("workflow %s ended: SUCCEEDED", self.levels[-1]["name"])
        return None

    def _kill(self, context: Any, run: WorkflowRun, record: dict[str, Any]) -> Any:
        message = run.evaluate(self.node.get("message") or "")
        if len(self.levels) > 1:  # a sub-workflow's kill: the calling action failed with the message
            record.update(node=self.levels[-1]["action"], status="ERROR", error_code="E0729", error_message=message,
                          chosen=[self.targets["error"]], transition=self.levels[-1]["error"], ended=_now())
            self.log.error("sub-workflow %s killed at '%s': %s", self.levels[-1]["name"], self.node["name"], message)
            context["ti"].xcom_push(key=XCOM_KEY, value=record)
            return self.do_branch(context, [self.targets["error"]])
        record.update(status="KILLED", error_message=message, chosen=[], ended=_now())
        context["ti"].xcom_push(key=XCOM_KEY, value=record)
        raise AirflowFailException(f"workflow {self.levels[-1]['name']} killed at node '{self.node['name']}': "
                                   f"{message}")

    # -- actions
    def _act(self, context: Any, run: WorkflowRun, record: dict[str, Any]) -> list[str]:
        action = self.node["action"]
        try:
            data = self._run_action(action, run)
        except ActionFailed as failure:
            if context["ti"].try_number <= (self.retries or 0):
                raise  # Oozie's user retry: Airflow runs the action again after retry-interval
            self.log.error("action %s (%s) failed: [%s] %s", self.node["name"], action, failure.code,
                           failure.message)
            record.update(status="ERROR", error_code=failure.code, error_message=failure.message,
                          transition=self.node["error"])
            return [self.targets["error"]]
        external_id = data.pop("externalId", None) if action != "shell" else None
        record.update(status="OK", transition=self.node["ok"], data=data, external_id=external_id)
        return [self.targets["ok"]]

    def _run_action(self, action: str, run: WorkflowRun) -> dict[str, str]:
        body = self.node.get("body", {})
        prepare = body.get("prepare")
        if prepare:
            run.filesystem.prepare([run.evaluate(path) for path in prepare.get("delete", [])],
                                   [run.evaluate(path) for path in prepare.get("mkdir", [])])
        if action == "shell":
            from airflow.configuration import conf

            from falcon_airflow.provider.hooks.oozie import ENVIRONMENT_SETTING

            added = [item.strip() for item in conf.get("falcon", ENVIRONMENT_SETTING, fallback="").split(",")
                     if item.strip()]
            hook = OozieShellHook(roots=self.action_roots(), run_as=self.run_as, environment=added)
            result = hook.run(run.evaluate(body["exec"]), [run.evaluate(item) for item in body["arguments"]],
                              [run.evaluate(item) for item in body["env_vars"]],
                              [run.evaluate(item) for item in body["files"]],
                              [run.evaluate(item) for item in body["archives"]], bool(body["capture_output"]))
            return result.data
        if action == "email":
            attachments = [item.strip() for item in run.evaluate(body.get("attachment") or "").split(",")
                           if item.strip()]
            configuration = run.action_configuration(self.node.get("configuration", {}))
            sent = OozieEmailHook(configuration.get("oozie.email.smtp.connection", "smtp_default"),
                                  roots=self.action_roots()).send(
                to=run.evaluate(body.get("to") or ""), cc=run.evaluate(body.get("cc") or ""),
                bcc=run.evaluate(body.get("bcc") or ""), subject=run.evaluate(body.get("subject") or ""),
                body=run.evaluate(body.get("body") or ""), content_type=body.get("content_type"),
                attachments=attachments)
            self.log.info("e-mail sent to %s", ", ".join(sent))
            return {}
        from falcon_airflow.provider.operators.oozie_spark import run_spark_action

        return run_spark_action(self, action, body, run)
