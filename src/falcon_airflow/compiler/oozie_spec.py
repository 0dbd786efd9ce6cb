"""The compiled form of an Oozie workflow inside a process DagSpec: one node per Oozie node, EL kept as written.

Everything the run needs is decided here: which task runs which node, where each transition leads, the merged
configuration of each action (``<global>`` then the action's own), the defaults of ``<parameters>``, the files of
the workflow application resolved to absolute URIs, and every sub-workflow compiled in place. EL (``${...}``) is
evaluated per run by the operators, because Oozie evaluates it when the action starts: ``wf:actionData`` of an
earlier action, ``fs:exists`` and Falcon's per-instance properties (``${input}``, ``${nominalTime}``) are only
known then.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from falcon_airflow.compiler.specs import Spec, resolve_forward_references

NodeType = Literal["action", "decision", "fork", "join", "kill", "end"]
ActionType = Literal["shell", "fs", "hive", "hive2", "spark", "java", "email", "distcp", "sub-workflow"]


class OozieCase(Spec):
    predicate: str
    to: str


class OozieNode(Spec):
    """One Oozie node as one Airflow task (``task_id`` is the node name made safe for Airflow)."""

    name: str
    task_id: str
    type: NodeType
    action: ActionType | None = None
    line: int | None = None
    ok: str | None = None
    """Action: the node its ``ok`` transition names; join: its ``to``."""
    error: str | None = None
    cases: tuple[OozieCase, ...] = ()
    default: str | None = None
    paths: tuple[str, ...] = ()
    message: str | None = None
    """Kill: the message, EL as written."""
    body: dict[str, Any] = Field(default_factory=dict)
    """Action: what the runner needs (command, arguments, operations, script, ...), EL as written."""
    configuration: dict[str, str] = Field(default_factory=dict)
    """Action: ``<global><configuration>`` overlaid with the action's ``<configuration>`` (EL as written)."""
    arrivals: int = 0
    """Join: how many paths of its fork must reach it before the workflow goes on."""
    retry_max: int = 0
    retry_interval_minutes: int = 10
    sub_workflow: OozieWorkflowSpec | None = None
    propagate_configuration: bool = False


class OozieWorkflowSpec(Spec):
    """A workflow application: its nodes (start excluded: ``start`` names the first node) and its defaults."""

    name: str
    app_path: str
    """The workflow application folder (``wf:appPath``); relative files of actions are resolved against it."""
    file: str
    start: str
    parameters: dict[str, str] = Field(default_factory=dict)
    """``<parameters>`` defaults (required parameters have none and must come from the job configuration)."""
    required: tuple[str, ...] = ()
    nodes: tuple[OozieNode, ...]
    spark_master: str = "local[*]"
    """The cluster's Spark master (and deploy mode) for spark, hive, java, fs and distcp actions."""
    spark_deploy_mode: str | None = None
    group_id: str = "workflow"
    """The Airflow task group holding the nodes (sub-workflows nest their groups inside the caller's)."""

    def node(self, name: str) -> OozieNode:
        return next(node for node in self.nodes if node.name == name)


OozieNode.model_rebuild()

# ProcessDagSpec names this module's OozieWorkflowSpec: complete it now that the class exists.
resolve_forward_references()
