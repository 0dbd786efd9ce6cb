"""Oozie workflow definitions (``workflow.xml``): the model, the parser, validation, the graph and Oozie's EL.

Falcon's default workflow engine is Oozie, so a process without ``engine`` (or with ``engine="oozie"``) points at
an Oozie workflow. This package reads such workflows; the process DAG compiles the model into tasks.

Public names (stable; import them from ``falcon_airflow.oozie``):

Reading
    ``parse_workflow_file(path, display=None) -> ParsedWorkflow`` and ``parse_workflow_bytes(data, display)``:
    never raise for bad input. ``ParsedWorkflow`` has ``path``, ``workflow`` (a :class:`Workflow`, or ``None``
    when the document is not a readable workflow), ``name``, ``issues`` (rule = Oozie's error code) and
    ``has_errors``. ``is_workflow_root(element)`` and ``looks_like_workflow(data)`` tell workflows from other
    XML documents.

The model (frozen dataclasses; every element keeps its ``line``; text is kept as written, EL included)
    ``Workflow``: ``name``, ``namespace``, ``version`` (``"0.1"`` ... ``"1.0"``), ``file``, ``line``, ``start``
    (a ``StartNode``), ``nodes`` (document order, the start node first, named ``:start:``), ``parameters``
    (``Parameter``: ``name``, ``default`` — ``None`` when required —, ``required``), ``global_settings``
    (``GlobalSettings``: ``job_tracker``, ``name_node``, ``launcher``, ``job_xml``, ``configuration``),
    ``credentials`` (``Credential``: ``name``, ``type``, ``properties``), ``sla`` (``SlaInfo``); helpers
    ``node(name)``, ``actions``, ``configuration`` (the global one), ``parameter_defaults()``, ``edges()``.

    Nodes: ``StartNode(to)``, ``EndNode``, ``KillNode(message)``, ``DecisionNode(cases, default)`` with
    ``Case(predicate, to)``, ``ForkNode(paths)``, ``JoinNode(to)``, ``ActionNode(action_type, config, ok, error,
    retry_max, retry_interval, retry_policy, cred, sla)``. Every node has ``name``, ``line``, ``kind``
    (``NodeKind``), ``type_label`` (``start`` ... or ``action:<type>``) and ``transitions()`` (``Transition(to,
    kind: TransitionKind, line)``). ``AnyNode`` is their union.

    Action configurations (``ActionNode.config``; ``action_type`` is the action element's local name): all have
    ``element``, ``namespace``, ``line``. Hadoop actions (``HadoopActionConfig``) add ``job_tracker``,
    ``name_node``, ``prepare`` (``Prepare(deletes, mkdirs)``), ``launcher``, ``job_xml``, ``configuration``:
    ``ShellAction`` (exec, arguments, env_vars, files, archives, capture_output), ``SparkAction`` (master, mode,
    name, spark_class, jar, spark_opts, args, files, archives), ``HiveAction`` (script, query, params, arguments,
    files, archives), ``Hive2Action`` (+ jdbc_url, password), ``JavaAction`` (main_class, java_opts, args, files,
    archives, capture_output), ``DistcpAction`` (java_opts, args), ``SqoopAction`` (command, args, files,
    archives), ``PigAction`` (script, params, arguments, files, archives), ``MapReduceAction`` (streaming,
    pipes, config_class, files, archives), ``GitAction`` (git_uri, branch, key_path, destination_uri). Others:
    ``FsAction`` (name_node, job_xml, configuration, operations: ``FsOperation(kind: FsOperationKind, path,
    target, permissions, group, recursive, dir_files, skip_trash)``), ``EmailAction`` (to, cc, bcc, subject, body,
    content_type, attachment), ``SubWorkflowAction`` (app_path, propagate_configuration, configuration),
    ``SshAction`` (host, command, args, capture_output), ``OtherAction`` (an unknown action element: fields).
    ``Property(name, value, description)``; ``Configuration`` is a tuple of them; ``configuration_dict()``.

Judging, drawing, evaluating (their own modules)
    ``oozie.validate.validate_workflow_file(path, display, supplied=None, in_process=None) -> WorkflowReport``
    (everything ``validate`` says about one file); ``oozie.rules.check_workflow(workflow, supplied)`` (Oozie's
    structural rules, ``E07xx``); ``oozie.schema.validate_workflow_schema`` (``E0701``);
    ``oozie.support.ACTION_SUPPORT`` / ``support_of(action)`` (what runs here, ``FA020``);
    ``oozie.graph.graph_of(workflow)`` (the JSON of ``oozie graph``), ``to_dot``, ``to_svg``,
    ``support_of_workflow``; ``oozie.el`` (Oozie's EL: ``evaluate_text``, ``evaluate_value``,
    ``evaluate_predicate``, ``WorkflowContext``, ``ActionResult``, ``OozieFileSystem``, ``LocalFileSystem``).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# The public names are loaded on first use: the model's dozens of dataclasses cost every command's start-up tens of
# milliseconds, and most commands (validate of an estate without Oozie processes among them) never need them.
if TYPE_CHECKING:
    from falcon_airflow.oozie.model import (
        ACTION_CONFIG_TYPES,
        KNOWN_ACTION_TYPES,
        ActionConfig,
        ActionNode,
        AnyNode,
        Case,
        Configuration,
        Credential,
        DecisionNode,
        DistcpAction,
        EmailAction,
        EndNode,
        ForkNode,
        FsAction,
        FsOperation,
        FsOperationKind,
        GitAction,
        GlobalSettings,
        HadoopActionConfig,
        Hive2Action,
        HiveAction,
        JavaAction,
        JoinNode,
        KillNode,
        MapReduceAction,
        Node,
        NodeKind,
        OtherAction,
        Parameter,
        PigAction,
        Pipes,
        Prepare,
        Property,
        ShellAction,
        SlaInfo,
        SparkAction,
        SqoopAction,
        SshAction,
        StartNode,
        Streaming,
        SubWorkflowAction,
        Transition,
        TransitionKind,
        Workflow,
        configuration_dict,
    )
    from falcon_airflow.oozie.parse import (
        ParsedWorkflow,
        is_workflow_root,
        looks_like_workflow,
        parse_workflow_bytes,
        parse_workflow_file,
    )

__all__ = [
    "ACTION_CONFIG_TYPES",
    "KNOWN_ACTION_TYPES",
    "ActionConfig",
    "ActionNode",
    "AnyNode",
    "Case",
    "Configuration",
    "Credential",
    "DecisionNode",
    "DistcpAction",
    "EmailAction",
    "EndNode",
    "ForkNode",
    "FsAction",
    "FsOperation",
    "FsOperationKind",
    "GitAction",
    "GlobalSettings",
    "HadoopActionConfig",
    "Hive2Action",
    "HiveAction",
    "JavaAction",
    "JoinNode",
    "KillNode",
    "MapReduceAction",
    "Node",
    "NodeKind",
    "OtherAction",
    "Parameter",
    "ParsedWorkflow",
    "PigAction",
    "Pipes",
    "Prepare",
    "Property",
    "ShellAction",
    "SlaInfo",
    "SparkAction",
    "SqoopAction",
    "SshAction",
    "StartNode",
    "Streaming",
    "SubWorkflowAction",
    "Transition",
    "TransitionKind",
    "Workflow",
    "configuration_dict",
    "is_workflow_root",
    "looks_like_workflow",
    "parse_workflow_bytes",
    "parse_workflow_file",
]

def __getattr__(name: str) -> Any:
    """A public name of the package, imported from its module (the model, else the parser) the first time it is
    asked for."""
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    model = importlib.import_module("falcon_airflow.oozie.model")
    home = model if hasattr(model, name) else importlib.import_module("falcon_airflow.oozie.parse")
    value = getattr(home, name)
    globals()[name] = value
    return value
