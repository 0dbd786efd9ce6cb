"""The state of one Oozie workflow run as its node tasks see it: the job configuration, what earlier nodes did, and
the EL evaluation of the workflow's text against both.

The job configuration of the process's workflow is Falcon's (``macros.falcon_workflow_conf``: ``${input}``,
``${nominalTime}``, the process's properties ...) with the ``<parameters>`` defaults filling what it lacks; a
required parameter that nothing sets fails the run (Oozie's ``E0738``). A sub-workflow's is the caller's when it
propagates the configuration, else empty, overlaid with the sub-workflow action's ``<configuration>`` (evaluated in
the caller), then its own parameter defaults.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from airflow.sdk.exceptions import AirflowFailException

from falcon_airflow.errors import FalconAirflowError
from falcon_airflow.instances.storage import remote_exists


class OozieFileSystem:
    """``fs:*`` EL functions' and ``<prepare>``'s view of storage: local paths and ``file://`` directly, other
    schemes (``hdfs://``, ``s3a://``) through fsspec. Sizes as Oozie gives them: ``-1`` for a missing path
    (``dir_size``: or not a folder, and only the files directly inside count); a folder's own length is 0.

    It acts as the job's identity, as Oozie did as the workflow's user: on HDFS through WebHDFS's ``doas`` (the
    worker's own login proxying ``run_as``, which needs the deployment's ``hadoop.proxyuser`` settings, as Spark's
    ``--proxy-user`` does). On the worker's disk, where no Hadoop user applies, only paths below ``roots`` are
    looked at or changed (:mod:`falcon_airflow.oozie.access`). On S3 the cluster's S3A client settings
    (``storage_settings``: endpoint, path style, region) apply, with the deployment's own AWS credentials."""

    def __init__(self, run_as: str | None = None, roots: Sequence[str] | None = None,
                 storage_settings: Mapping[str, str] | None = None) -> None:
        self.run_as = run_as
        self.roots = tuple(roots) if roots is not None else None
        """``None``: no restriction (the file system of a caller that is no action, e.g. a test's)."""
        self.storage_settings = storage_settings

    def _fs(self, path: str) -> tuple[Any, str]:
        from urllib.parse import unquote, urlsplit

        from falcon_airflow.instances.storage import StorageError, local_path, remote_location

        local = local_path(path)
        if local is not None:
            from fsspec.implementations.local import LocalFileSystem

            if self.roots is not None:
                from falcon_airflow.oozie.access import OutsideRoots, checked_path

                try:
                    checked_path(path, self.roots, "path")
                except OutsideRoots as refusal:
                    raise StorageError(str(refusal)) from None
            return LocalFileSystem(), str(local)
        parts = urlsplit(path)
        if parts.scheme == "hdfs" and self.run_as:
            from fsspec import filesystem

            from falcon_airflow.instances.webhdfs import http_address, webhdfs_user

            host, port = http_address(parts.netloc)
            return (filesystem("webhdfs", host=host, port=port, user=webhdfs_user(), proxy_to=self.run_as),
                    unquote(parts.path) or "/")
        return remote_location(path, self.storage_settings)

    def exists(self, path: str) -> bool:
        fs, where = self._fs(path)
        if any(char in where for char in "*?["):
            return bool(fs.glob(where))
        return remote_exists(fs, where, path)

    def is_dir(self, path: str) -> bool:
        fs, where = self._fs(path)
        return remote_exists(fs, where, path) and bool(fs.isdir(where))

    def file_size(self, path: str) -> int:
        fs, where = self._fs(path)
        if not remote_exists(fs, where, path):
            return -1
        return 0 if fs.isdir(where) else int(fs.size(where))

    def dir_size(self, path: str) -> int:
        fs, where = self._fs(path)
        if not remote_exists(fs, where, path) or not fs.isdir(where):
            return -1
        return sum(int(item.get("size") or 0) for item in fs.ls(where, detail=True) if item.get("type") == "file")

    def block_size(self, path: str) -> int:
        fs, where = self._fs(path)
        if not remote_exists(fs, where, path):
            return -1
        if fs.isdir(where):
            return 0
        info = fs.info(where)
        return int(info.get("blocksize") or info.get("block_size") or LOCAL_BLOCK_SIZE)


    def prepare(self, deletes: list[str], mkdirs: list[str]) -> None:
        """An action's ``<prepare>``: delete the paths (recursively; a missing one is no error), then create the
        folders, as Oozie does before the action starts. Paths must name a file system (a scheme) or be absolute."""
        from falcon_airflow.instances.storage import StorageError
        from falcon_airflow.provider.hooks.oozie import ActionFailed

        for path in [*deletes, *mkdirs]:
            if not path.strip() or not (path.startswith("/") or "://" in path):
                raise ActionFailed("E0701", f"<prepare> path '{path}' is not absolute")
        try:
            located = [(path, *self._fs(path)) for path in [*deletes, *mkdirs]]  # every path judged before any change
        except StorageError as refusal:
            raise ActionFailed("E0701", f"<prepare>: {refusal.message}") from None
        for path, fs, where in located[:len(deletes)]:
            if remote_exists(fs, where, path):
                fs.rm(where, recursive=True)
        for _, fs, where in located[len(deletes):]:
            fs.makedirs(where, exist_ok=True)


LOCAL_BLOCK_SIZE = 32 * 1024 * 1024
"""Hadoop's local file system reports 32 MiB blocks (``fs.local.block.size``)."""


@dataclass
class WorkflowRun:
    """What a node task knows of its workflow run (built per task execution)."""

    context: Any
    levels: list[dict[str, Any]]
    falcon_conf: dict[str, str]
    node_tasks: dict[str, list[str]]
    user: str
    xcom_key: str
    filesystem: OozieFileSystem = field(default_factory=OozieFileSystem)

    @property
    def dag_id(self) -> str:
        return str(self.context["dag_run"].dag_id)

    @property
    def run_id(self) -> str:
        return str(self.context["dag_run"].run_id)

    # -- configuration
    @cached_property
    def conf(self) -> dict[str, str]:
        conf = self._conf()
        # Oozie's user.name is the user the workflow runs as; Falcon set it last, so no property overrides it
        conf["user.name"] = self.user
        return conf

    def _conf(self) -> dict[str, str]:
        conf: dict[str, str] = {}
        for depth, level in enumerate(self.levels):
            if depth == 0:
                conf = dict(self.falcon_conf)
            else:
                caller = WorkflowRun(self.context, self.levels[:depth], self.falcon_conf, self.node_tasks, self.user,
                                     self.xcom_key, self.filesystem)
                inherited = dict(conf) if level.get("propagate") else {}
                for name, value in level.get("configuration", {}).items():
                    inherited[name] = caller.evaluate(value)
                conf = inherited
            for name, value in level.get("parameters", {}).items():
                conf.setdefault(name, value)
            missing = [name for name in level.get("required", ()) if name not in conf]
            if missing:
                raise AirflowFailException(f"E0738: workflow {level['name']}: the following parameters are "
                                           f"required but were not set: {', '.join(missing)}")
        return conf

    def action_configuration(self, configuration: Mapping[str, str]) -> dict[str, str]:
        return {name: self.evaluate(value) for name, value in configuration.items()}

    # -- what earlier nodes did
    @cached_property
    def records(self) -> dict[str, dict[str, Any]]:
        """Node name to what it recorded in this pass of the run (a sub-workflow action: its group's last word)."""
        ti = self.context["ti"]
        current = int(getattr(self.context["dag_run"], "clear_number", 0) or 0)
        found: dict[str, dict[str, Any]] = {}
        for node, task_ids in self.node_tasks.items():
            for task_id in task_ids:
                value = ti.xcom_pull(task_ids=task_id, key=self.xcom_key)
                if not isinstance(value, dict) or value.get("generation") != current:
                    continue  # never ran in this pass, or recorded by an earlier pass before a Clear
                if node not in found or value.get("ended", "") > found[node].get("ended", ""):
                    found[node] = value
        return found

    def last_error_node(self) -> str:
        failed = [record for record in self.records.values() if record.get("status") == "ERROR"]
        return str(max(failed, key=lambda record: str(record.get("ended", "")))["node"]) if failed else ""

    # -- names the operators use in logs and records
    def wf_name(self) -> str:
        return str(self.levels[-1]["name"])

    # -- EL
    @cached_property
    def el_context(self) -> Any:
        """The workflow job as Oozie's EL sees it: configuration, what the nodes did, the file system."""
        from falcon_airflow.oozie.el import ActionResult, WorkflowContext

        actions = {}
        for node, record in self.records.items():
            status = {"OK": "SUCCEEDED", "ERROR": "FAILED"}.get(str(record.get("status")), record.get("status"))
            actions[node] = ActionResult(transition=record.get("transition"), external_id=record.get("external_id"),
                                         tracker_uri=record.get("tracker_uri"), external_status=status,
                                         error_code=record.get("error_code"),
                                         error_message=record.get("error_message"), data=record.get("data") or {})
        level = self.levels[-1]
        conf = self.conf
        return WorkflowContext(id=f"{self.run_id}@{level['name']}", name=str(level["name"]),
                               app_path=str(level["app_path"]), user=self.user,
                               group=conf.get("group.name", self.user),
                               run=int(getattr(self.context["dag_run"], "clear_number", 0) or 0), conf=conf,
                               actions=actions, last_error_node=self.last_error_node() or None, fs=self.filesystem)

    def evaluate(self, text: str) -> str:
        """Text with its ``${...}`` expressions evaluated (Oozie's EL, against this run)."""
        from falcon_airflow.oozie.el import evaluate_text

        if "${" not in text:
            return text
        try:
            return str(evaluate_text(text, self.el_context))
        except FalconAirflowError as problem:
            raise AirflowFailException(f"EL error in {text!r}: {problem}") from problem

    def predicate(self, text: str) -> bool:
        from falcon_airflow.oozie.el import evaluate_predicate

        try:
            return bool(evaluate_predicate(text, self.el_context))
        except FalconAirflowError as problem:
            raise AirflowFailException(f"EL error in decision {text!r}: {problem}") from problem
