"""``workflow.xml`` to :class:`~falcon_airflow.oozie.model.Workflow`, on the project's hardened XML reader.

The same refusals as entity files (size limit, no DTD, no entity expansion, UTF-8 text only), then the workflow
schema of the document's namespace, then the model. Issues use Oozie's error codes as their ``rule``: ``E0701``
for a document that is not a valid workflow definition (XML and schema errors alike, as Oozie reports them).

The builder reads elements by local name and tolerates what the schema would refuse (it never raises on a
well-formed document), so that callers that skip the schema still get a model.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypedDict

from lxml import etree

from falcon_airflow.issues import Issue, Level
from falcon_airflow.oozie.model import (
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
    Hive2Action,
    HiveAction,
    JavaAction,
    JoinNode,
    KillNode,
    MapReduceAction,
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
    Workflow,
)
from falcon_airflow.oozie.schema import SCHEMA_RULE, validate_workflow_schema
from falcon_airflow.parsing.secure import MAX_ENTITY_FILE_BYTES, LoadedXml, load_xml_file, parse_xml_bytes, source_line

WORKFLOW_NAMESPACE = re.compile(r"^uri:oozie:workflow:(\d+\.\d+(?:\.\d+)?)$")
SLA_NAMESPACES = frozenset({"uri:oozie:sla:0.1", "uri:oozie:sla:0.2"})

_Element = etree._Element


@dataclass(frozen=True, slots=True)
class ParsedWorkflow:
    """What reading one workflow file gave: the model when the document is a workflow, and the issues found."""

    path: str
    workflow: Workflow | None
    name: str | None
    issues: tuple[Issue, ...]

    @property
    def has_errors(self) -> bool:
        return any(issue.is_error for issue in self.issues)


def is_workflow_root(root: _Element) -> bool:
    """Whether an element is an Oozie ``<workflow-app>`` (any ``uri:oozie:workflow:*`` namespace)."""
    qname = etree.QName(root)
    return qname.localname == "workflow-app" and bool(WORKFLOW_NAMESPACE.match(qname.namespace or ""))


def looks_like_workflow(data: bytes) -> bool:
    """A cheap sniff (no parsing) for callers that must route files: does the root look like ``<workflow-app>``?"""
    head = data[:4096]
    return bool(re.search(rb"<(?:[A-Za-z_][\w.-]*:)?workflow-app[\s>/]", head))


# -- small readers -----------------------------------------------------------------------------------------------------


def _local(element: _Element) -> str:
    tag = element.tag
    if not isinstance(tag, str):  # comments and processing instructions
        return ""
    return etree.QName(tag).localname


def _children(element: _Element, name: str | None = None) -> list[_Element]:
    return [child for child in element if isinstance(child.tag, str) and (name is None or _local(child) == name)]


def _child(element: _Element, name: str) -> _Element | None:
    found = _children(element, name)
    return found[0] if found else None


def _text(element: _Element | None) -> str | None:
    if element is None:
        return None
    return "".join(str(piece) for piece in element.itertext()).strip()


def _texts(element: _Element, name: str) -> tuple[str, ...]:
    return tuple(_text(child) or "" for child in _children(element, name))


def _child_text(element: _Element, name: str) -> str | None:
    return _text(_child(element, name))


def _flag(element: _Element, name: str) -> bool:
    return _child(element, name) is not None


def _bool_attribute(element: _Element, name: str, default: bool) -> bool:
    value = element.get(name)
    if value is None:
        return default
    return value.strip().lower() == "true"


def _properties(element: _Element | None) -> Configuration:
    if element is None:
        return ()
    items: list[Property] = []
    for prop in _children(element, "property"):
        items.append(Property(name=_child_text(prop, "name") or "", value=_child_text(prop, "value") or "",
                              description=_child_text(prop, "description"), line=source_line(prop)))
    return tuple(items)


def _prepare(element: _Element | None) -> Prepare | None:
    if element is None:
        return None
    return Prepare(deletes=tuple(item.get("path", "") for item in _children(element, "delete")),
                   mkdirs=tuple(item.get("path", "") for item in _children(element, "mkdir")),
                   line=source_line(element))


def _job_tracker(element: _Element) -> str | None:
    found = _child_text(element, "job-tracker")
    return found if found is not None else _child_text(element, "resource-manager")


class _BaseFields(TypedDict):
    element: str
    namespace: str | None
    line: int | None


class _HadoopFields(_BaseFields):
    job_tracker: str | None
    name_node: str | None
    prepare: Prepare | None
    launcher: Configuration
    job_xml: tuple[str, ...]
    configuration: Configuration


def _hadoop_common(element: _Element) -> _HadoopFields:
    return {
        "element": _local(element),
        "namespace": etree.QName(element).namespace,
        "line": source_line(element),
        "job_tracker": _job_tracker(element),
        "name_node": _child_text(element, "name-node"),
        "prepare": _prepare(_child(element, "prepare")),
        "launcher": _launcher(_child(element, "launcher")),
        "job_xml": _texts(element, "job-xml"),
        "configuration": _properties(_child(element, "configuration")),
    }


def _launcher(element: _Element | None) -> Configuration:
    """``<launcher>`` (workflow 1.0): its settings (memory, vcores, queue, ...) as name/value pairs."""
    if element is None:
        return ()
    return tuple(Property(name=_local(child), value=_text(child) or "", line=source_line(child))
                 for child in _children(element))


def _base(element: _Element) -> _BaseFields:
    return {"element": _local(element), "namespace": etree.QName(element).namespace, "line": source_line(element)}


# -- action builders ---------------------------------------------------------------------------------------------------


def _shell(element: _Element) -> ActionConfig:
    return ShellAction(**_hadoop_common(element),
                       exec=_child_text(element, "exec") or "", arguments=_texts(element, "argument"),
                       env_vars=_texts(element, "env-var"), files=_texts(element, "file"),
                       archives=_texts(element, "archive"), capture_output=_flag(element, "capture-output"))


def _spark(element: _Element) -> ActionConfig:
    return SparkAction(**_hadoop_common(element),
                       master=_child_text(element, "master"), mode=_child_text(element, "mode"),
                       name=_child_text(element, "name") or "", spark_class=_child_text(element, "class"),
                       jar=_child_text(element, "jar") or "", spark_opts=_child_text(element, "spark-opts"),
                       args=_texts(element, "arg"), files=_texts(element, "file"),
                       archives=_texts(element, "archive"))


def _hive(element: _Element) -> ActionConfig:
    return HiveAction(**_hadoop_common(element),
                      script=_child_text(element, "script"), query=_child_text(element, "query"),
                      params=_texts(element, "param"), arguments=_texts(element, "argument"),
                      files=_texts(element, "file"), archives=_texts(element, "archive"))


def _hive2(element: _Element) -> ActionConfig:
    return Hive2Action(**_hadoop_common(element),
                       jdbc_url=_child_text(element, "jdbc-url") or "", password=_child_text(element, "password"),
                       script=_child_text(element, "script"), query=_child_text(element, "query"),
                       params=_texts(element, "param"), arguments=_texts(element, "argument"),
                       files=_texts(element, "file"), archives=_texts(element, "archive"))


def _java(element: _Element) -> ActionConfig:
    opts = _child_text(element, "java-opts")
    java_opts = (opts,) if opts is not None else _texts(element, "java-opt")
    return JavaAction(**_hadoop_common(element),
                      main_class=_child_text(element, "main-class") or "", java_opts=java_opts,
                      args=_texts(element, "arg"), files=_texts(element, "file"),
                      archives=_texts(element, "archive"), capture_output=_flag(element, "capture-output"))


def _distcp(element: _Element) -> ActionConfig:
    return DistcpAction(**_hadoop_common(element),
                        java_opts=_child_text(element, "java-opts"), args=_texts(element, "arg"))


def _sqoop(element: _Element) -> ActionConfig:
    return SqoopAction(**_hadoop_common(element),
                       command=_child_text(element, "command"), args=_texts(element, "arg"),
                       files=_texts(element, "file"), archives=_texts(element, "archive"))


def _pig(element: _Element) -> ActionConfig:
    return PigAction(**_hadoop_common(element),
                     script=_child_text(element, "script") or "", params=_texts(element, "param"),
                     arguments=_texts(element, "argument"), files=_texts(element, "file"),
                     archives=_texts(element, "archive"))


def _map_reduce(element: _Element) -> ActionConfig:
    streaming_element = _child(element, "streaming")
    pipes_element = _child(element, "pipes")
    streaming = None
    if streaming_element is not None:
        streaming = Streaming(mapper=_child_text(streaming_element, "mapper"),
                              reducer=_child_text(streaming_element, "reducer"),
                              record_reader=_child_text(streaming_element, "record-reader"),
                              record_reader_mapping=_texts(streaming_element, "record-reader-mapping"),
                              env=_texts(streaming_element, "env"))
    pipes = None
    if pipes_element is not None:
        pipes = Pipes(**{name.replace("-", "_"): _child_text(pipes_element, name)
                         for name in ("map", "reduce", "inputformat", "partitioner", "writer", "program")})
    return MapReduceAction(**_hadoop_common(element),
                           streaming=streaming, pipes=pipes, config_class=_child_text(element, "config-class"),
                           files=_texts(element, "file"), archives=_texts(element, "archive"))


def _git(element: _Element) -> ActionConfig:
    return GitAction(**_hadoop_common(element),
                     git_uri=_child_text(element, "git-uri") or "", branch=_child_text(element, "branch"),
                     key_path=_child_text(element, "key-path"),
                     destination_uri=_child_text(element, "destination-uri") or "")


def _fs_operation(item: _Element) -> FsOperation | None:
    name = _local(item)
    try:
        kind = FsOperationKind(name)
    except ValueError:
        return None
    line = source_line(item)
    if kind is FsOperationKind.MOVE:
        return FsOperation(kind, item.get("source", ""), target=item.get("target", ""), line=line)
    if kind is FsOperationKind.CHMOD:
        return FsOperation(kind, item.get("path", ""), permissions=item.get("permissions", ""),
                           recursive=_child(item, "recursive") is not None,
                           dir_files=_bool_attribute(item, "dir-files", True), line=line)
    if kind is FsOperationKind.CHGRP:
        return FsOperation(kind, item.get("path", ""), group=item.get("group", ""),
                           recursive=_child(item, "recursive") is not None,
                           dir_files=_bool_attribute(item, "dir-files", True), line=line)
    if kind is FsOperationKind.SETREP:
        return FsOperation(kind, item.get("path", ""), replication_factor=item.get("replication-factor"), line=line)
    if kind is FsOperationKind.DELETE:
        return FsOperation(kind, item.get("path", ""), skip_trash=_bool_attribute(item, "skip-trash", False),
                           line=line)
    return FsOperation(kind, item.get("path", ""), line=line)


def _fs(element: _Element) -> ActionConfig:
    operations = tuple(op for op in (_fs_operation(child) for child in _children(element)) if op is not None)
    return FsAction(**_base(element),
                    name_node=_child_text(element, "name-node"), job_xml=_texts(element, "job-xml"),
                    configuration=_properties(_child(element, "configuration")), operations=operations)


def _email(element: _Element) -> ActionConfig:
    return EmailAction(**_base(element),
                       to=_child_text(element, "to") or "", cc=_child_text(element, "cc"),
                       bcc=_child_text(element, "bcc"), subject=_child_text(element, "subject") or "",
                       # workflow 0.1's embedded <email> calls its body <message>
                       body=_child_text(element, "body") or _child_text(element, "message") or "",
                       content_type=_child_text(element, "content_type"),
                       attachment=_child_text(element, "attachment"))


def _sub_workflow(element: _Element) -> ActionConfig:
    return SubWorkflowAction(**_base(element),
                             app_path=_child_text(element, "app-path") or "",
                             propagate_configuration=_flag(element, "propagate-configuration"),
                             configuration=_properties(_child(element, "configuration")))


def _ssh(element: _Element) -> ActionConfig:
    args = _texts(element, "args") + _texts(element, "arg")
    return SshAction(**_base(element),
                     host=_child_text(element, "host") or "", command=_child_text(element, "command") or "",
                     args=args, capture_output=_flag(element, "capture-output"))


def _other(element: _Element) -> ActionConfig:
    fields = tuple((_local(child), _text(child) or "") for child in _children(element))
    return OtherAction(**_base(element), fields=fields)


_ACTION_BUILDERS: dict[str, Callable[[_Element], ActionConfig]] = {
    "shell": _shell, "spark": _spark, "hive": _hive, "hive2": _hive2, "java": _java, "distcp": _distcp,
    "sqoop": _sqoop, "pig": _pig, "map-reduce": _map_reduce, "git": _git, "fs": _fs, "email": _email,
    "sub-workflow": _sub_workflow, "ssh": _ssh,
}


def build_action_config(element: _Element) -> ActionConfig:
    return _ACTION_BUILDERS.get(_local(element), _other)(element)


# -- nodes and the workflow ----------------------------------------------------------------------------------------


def _sla(element: _Element) -> SlaInfo | None:
    for child in _children(element, "info"):
        namespace = etree.QName(child).namespace or ""
        if namespace in SLA_NAMESPACES:
            fields = tuple((_local(item), _text(item) or "") for item in _children(child))
            return SlaInfo(namespace=namespace, fields=fields, line=source_line(child))
    return None


def _action(element: _Element) -> ActionNode:
    body = next((child for child in _children(element) if _local(child) not in ("ok", "error", "info")), None)
    ok = _child(element, "ok")
    error = _child(element, "error")
    if body is None:
        config: ActionConfig = OtherAction(element="", line=source_line(element))
    else:
        config = build_action_config(body)
    return ActionNode(
        name=element.get("name", ""), line=source_line(element), action_type=config.element, config=config,
        ok=ok.get("to", "") if ok is not None else "", error=error.get("to", "") if error is not None else "",
        ok_line=source_line(ok) if ok is not None else None,
        error_line=source_line(error) if error is not None else None,
        retry_max=element.get("retry-max"), retry_interval=element.get("retry-interval"),
        retry_policy=element.get("retry-policy"), cred=element.get("cred"), sla=_sla(element),
    )


def _decision(element: _Element) -> DecisionNode:
    switch = _child(element, "switch")
    cases: list[Case] = []
    default, default_line = "", None
    if switch is not None:
        for case in _children(switch, "case"):
            cases.append(Case(predicate=_text(case) or "", to=case.get("to", ""), line=source_line(case)))
        found = _child(switch, "default")
        if found is not None:
            default, default_line = found.get("to", ""), source_line(found)
    return DecisionNode(name=element.get("name", ""), line=source_line(element), cases=tuple(cases),
                        default=default, default_line=default_line)


def _node(element: _Element) -> AnyNode | None:
    kind = _local(element)
    name = element.get("name", "")
    line = source_line(element)
    if kind == "end":
        return EndNode(name=name, line=line)
    if kind == "kill":
        return KillNode(name=name, line=line, message=_child_text(element, "message") or "")
    if kind == "decision":
        return _decision(element)
    if kind == "fork":
        return ForkNode(name=name, line=line, paths=tuple(path.get("start", "") for path in _children(element, "path")))
    if kind == "join":
        return JoinNode(name=name, line=line, to=element.get("to", ""))
    if kind == "action":
        return _action(element)
    return None


def _parameters(element: _Element | None) -> tuple[Parameter, ...]:
    if element is None:
        return ()
    return tuple(Parameter(name=_child_text(prop, "name") or "", default=_child_text(prop, "value"),
                           description=_child_text(prop, "description"), line=source_line(prop))
                 for prop in _children(element, "property"))


def _global(element: _Element | None) -> GlobalSettings | None:
    if element is None:
        return None
    return GlobalSettings(job_tracker=_job_tracker(element), name_node=_child_text(element, "name-node"),
                          launcher=_launcher(_child(element, "launcher")), job_xml=_texts(element, "job-xml"),
                          configuration=_properties(_child(element, "configuration")), line=source_line(element))


def _credentials(element: _Element | None) -> tuple[Credential, ...]:
    if element is None:
        return ()
    return tuple(Credential(name=item.get("name", ""), type=item.get("type", ""), properties=_properties(item),
                            line=source_line(item)) for item in _children(element, "credential"))


def build_workflow(root: _Element, display: str) -> Workflow:
    """The model of a ``<workflow-app>`` element (the caller checked :func:`is_workflow_root`)."""
    namespace = etree.QName(root).namespace or ""
    matched = WORKFLOW_NAMESPACE.match(namespace)
    start_element = _child(root, "start")
    start = StartNode(to=start_element.get("to", "") if start_element is not None else "",
                      line=source_line(start_element) if start_element is not None else None)
    nodes: list[AnyNode] = [start]
    for child in _children(root):
        node = _node(child)
        if node is not None:
            nodes.append(node)
    return Workflow(
        name=root.get("name", ""), namespace=namespace, version=matched.group(1) if matched else "",
        file=display, line=source_line(root), start=start, nodes=tuple(nodes),
        parameters=_parameters(_child(root, "parameters")), global_settings=_global(_child(root, "global")),
        credentials=_credentials(_child(root, "credentials")), sla=_sla(root),
    )


def _not_a_workflow(root: _Element, display: str) -> Issue:
    qname = etree.QName(root)
    where = f"namespace '{qname.namespace}'" if qname.namespace else "no namespace"
    return Issue(Level.ERROR, SCHEMA_RULE,
                 f"root element <{qname.localname}> with {where} is not an Oozie workflow; expected <workflow-app> "
                 "in uri:oozie:workflow:0.1 ... uri:oozie:workflow:1.0", file=display, line=source_line(root),
                 entity=root.get("name"), entity_type="workflow")


def _as_oozie(issues: tuple[Issue, ...]) -> tuple[Issue, ...]:
    """The XML reader's refusals (worded for entity files), under Oozie's code for an unreadable definition."""
    def reworded(message: str) -> str:
        return (message.replace("a Falcon entity XML text file", "an Oozie workflow XML text file")
                .replace("a Falcon entity XML document", "an Oozie workflow definition")
                .replace("entity files are limited", "workflow files are limited")
                .replace("entity files must", "workflow files must"))

    return tuple(Issue(issue.level, SCHEMA_RULE, reworded(issue.message), file=issue.file, line=issue.line,
                       entity_type="workflow") for issue in issues)


def from_loaded(loaded: LoadedXml, display: str) -> ParsedWorkflow:
    if loaded.root is None:
        return ParsedWorkflow(display, None, None, _as_oozie(loaded.issues))
    root = loaded.root
    name = root.get("name")
    if not is_workflow_root(root):
        return ParsedWorkflow(display, None, name, (_not_a_workflow(root, display),))
    schema_issues = validate_workflow_schema(root, display, name)
    if schema_issues:
        return ParsedWorkflow(display, None, name, tuple(schema_issues))
    return ParsedWorkflow(display, build_workflow(root, display), name, ())


def parse_workflow_file(path: str | os.PathLike[str], display: str | None = None) -> ParsedWorkflow:
    """Read one ``workflow.xml``; never raises for bad input. ``display`` is how issues name the file."""
    shown = display if display is not None else os.fspath(path)
    return from_loaded(load_xml_file(path, shown), shown)


def parse_workflow_bytes(data: bytes, display: str = "<string>") -> ParsedWorkflow:
    """Read a workflow held in memory (size-limited like files)."""
    if len(data) > MAX_ENTITY_FILE_BYTES:
        issue = Issue(Level.ERROR, SCHEMA_RULE, f"document is larger than {MAX_ENTITY_FILE_BYTES:,} bytes",
                      file=display, entity_type="workflow")
        return ParsedWorkflow(display, None, None, (issue,))
    return from_loaded(parse_xml_bytes(data, display), display)
