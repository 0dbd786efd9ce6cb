"""The frozen model of an Oozie workflow definition (``workflow.xml``).

Plain frozen dataclasses (standard library only), built once by :mod:`falcon_airflow.oozie.parse` and then only
read. Every node, case, property and file-system operation keeps the line it came from, so a rule or a runtime
error can point at the element. Text values are kept exactly as written, EL expressions (``${...}``) included:
evaluating them is the runtime's job (:mod:`falcon_airflow.oozie.el`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from enum import StrEnum
from typing import ClassVar


class NodeKind(StrEnum):
    START = "start"
    END = "end"
    KILL = "kill"
    DECISION = "decision"
    FORK = "fork"
    JOIN = "join"
    ACTION = "action"


class TransitionKind(StrEnum):
    """What an edge of the workflow graph is: the ``kind`` of ``oozie graph``'s edges."""

    START = "start"  # the start node to the first node
    OK = "ok"
    ERROR = "error"
    CASE = "case"  # a decision's <case>
    DEFAULT = "default"  # a decision's <default>
    FORK = "fork"  # a fork to each of its paths
    JOIN = "join"  # a join to its 'to'


@dataclass(frozen=True, slots=True)
class Transition:
    to: str
    kind: TransitionKind
    line: int | None = None


@dataclass(frozen=True, slots=True)
class Property:
    """One ``<property>`` of a ``<configuration>`` (or of a credential, or the launcher's settings)."""

    name: str
    value: str
    description: str | None = None
    line: int | None = None


Configuration = tuple[Property, ...]


def configuration_dict(configuration: Configuration) -> dict[str, str]:
    """A configuration as a dict; a name given twice keeps its last value (as Hadoop's Configuration does)."""
    return {item.name: item.value for item in configuration}


@dataclass(frozen=True, slots=True)
class Parameter:
    """One ``<parameters><property>``: ``default`` is ``None`` when the parameter is required (no ``<value>``)."""

    name: str
    default: str | None
    description: str | None = None
    line: int | None = None

    @property
    def required(self) -> bool:
        return self.default is None


@dataclass(frozen=True, slots=True)
class Credential:
    name: str
    type: str
    properties: Configuration = ()
    line: int | None = None


@dataclass(frozen=True, slots=True)
class GlobalSettings:
    """``<global>``: defaults every Hadoop action inherits (its own values win)."""

    job_tracker: str | None = None  # <job-tracker> or <resource-manager>
    name_node: str | None = None
    launcher: Configuration = ()
    job_xml: tuple[str, ...] = ()
    configuration: Configuration = ()
    line: int | None = None


@dataclass(frozen=True, slots=True)
class SlaInfo:
    """``<sla:info>`` (uri:oozie:sla:0.1 or 0.2): its child elements by local name, in document order."""

    namespace: str
    fields: tuple[tuple[str, str], ...]
    line: int | None = None

    def get(self, name: str) -> str | None:
        return next((value for key, value in self.fields if key == name), None)


@dataclass(frozen=True, slots=True)
class Prepare:
    """``<prepare>``: paths deleted, then folders created, before a Hadoop action runs."""

    deletes: tuple[str, ...] = ()
    mkdirs: tuple[str, ...] = ()
    line: int | None = None


# -- action configurations -------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class ActionConfig:
    """The action's own element (its first child). ``element`` is its local name, ``namespace`` its XML namespace."""

    TYPE: ClassVar[str] = ""

    element: str
    namespace: str | None = None
    line: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class HadoopActionConfig(ActionConfig):
    """Elements every Hadoop (launcher-based) action shares."""

    job_tracker: str | None = None  # <job-tracker> or <resource-manager>
    name_node: str | None = None
    prepare: Prepare | None = None
    launcher: Configuration = ()
    job_xml: tuple[str, ...] = ()
    configuration: Configuration = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class ShellAction(HadoopActionConfig):
    TYPE: ClassVar[str] = "shell"

    exec: str = ""
    arguments: tuple[str, ...] = ()
    env_vars: tuple[str, ...] = ()  # NAME=VALUE as written
    files: tuple[str, ...] = ()
    archives: tuple[str, ...] = ()
    capture_output: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class SparkAction(HadoopActionConfig):
    TYPE: ClassVar[str] = "spark"

    master: str | None = None
    mode: str | None = None
    name: str = ""
    spark_class: str | None = None  # <class>
    jar: str = ""
    spark_opts: str | None = None
    args: tuple[str, ...] = ()
    files: tuple[str, ...] = ()
    archives: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class HiveAction(HadoopActionConfig):
    TYPE: ClassVar[str] = "hive"

    script: str | None = None
    query: str | None = None
    params: tuple[str, ...] = ()  # NAME=VALUE as written
    arguments: tuple[str, ...] = ()
    files: tuple[str, ...] = ()
    archives: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class Hive2Action(HadoopActionConfig):
    TYPE: ClassVar[str] = "hive2"

    jdbc_url: str = ""
    password: str | None = None
    script: str | None = None
    query: str | None = None
    params: tuple[str, ...] = ()
    arguments: tuple[str, ...] = ()
    files: tuple[str, ...] = ()
    archives: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class JavaAction(HadoopActionConfig):
    TYPE: ClassVar[str] = "java"

    main_class: str = ""
    java_opts: tuple[str, ...] = ()  # <java-opts> (one string) or each <java-opt>
    args: tuple[str, ...] = ()
    files: tuple[str, ...] = ()
    archives: tuple[str, ...] = ()
    capture_output: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class DistcpAction(HadoopActionConfig):
    TYPE: ClassVar[str] = "distcp"

    java_opts: str | None = None
    args: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class SqoopAction(HadoopActionConfig):
    TYPE: ClassVar[str] = "sqoop"

    command: str | None = None
    args: tuple[str, ...] = ()
    files: tuple[str, ...] = ()
    archives: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class PigAction(HadoopActionConfig):
    TYPE: ClassVar[str] = "pig"

    script: str = ""
    params: tuple[str, ...] = ()
    arguments: tuple[str, ...] = ()
    files: tuple[str, ...] = ()
    archives: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Streaming:
    mapper: str | None = None
    reducer: str | None = None
    record_reader: str | None = None
    record_reader_mapping: tuple[str, ...] = ()
    env: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Pipes:
    map: str | None = None
    reduce: str | None = None
    inputformat: str | None = None
    partitioner: str | None = None
    writer: str | None = None
    program: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class MapReduceAction(HadoopActionConfig):
    TYPE: ClassVar[str] = "map-reduce"

    streaming: Streaming | None = None
    pipes: Pipes | None = None
    config_class: str | None = None
    files: tuple[str, ...] = ()
    archives: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class GitAction(HadoopActionConfig):
    TYPE: ClassVar[str] = "git"

    git_uri: str = ""
    branch: str | None = None
    key_path: str | None = None
    destination_uri: str = ""


class FsOperationKind(StrEnum):
    DELETE = "delete"
    MKDIR = "mkdir"
    MOVE = "move"
    CHMOD = "chmod"
    TOUCHZ = "touchz"
    CHGRP = "chgrp"
    SETREP = "setrep"  # workflow 0.5 only


@dataclass(frozen=True, slots=True)
class FsOperation:
    """One operation of an ``fs`` action, in document order (Oozie runs them in that order).

    ``path`` is the operated path (``source`` for ``move``); ``target`` only for ``move``; ``permissions`` only for
    ``chmod``; ``group`` only for ``chgrp``; ``recursive``/``dir_files`` for ``chmod``/``chgrp`` (``dir_files``:
    Oozie's ``dir-files`` attribute, default true: also change the files directly inside a folder); ``skip_trash``
    for ``delete``; ``replication_factor`` (as written) only for ``setrep``.
    """

    kind: FsOperationKind
    path: str
    target: str | None = None
    permissions: str | None = None
    group: str | None = None
    recursive: bool = False
    dir_files: bool = True
    skip_trash: bool = False
    line: int | None = None
    replication_factor: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class FsAction(ActionConfig):
    TYPE: ClassVar[str] = "fs"

    name_node: str | None = None
    job_xml: tuple[str, ...] = ()
    configuration: Configuration = ()
    operations: tuple[FsOperation, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class EmailAction(ActionConfig):
    TYPE: ClassVar[str] = "email"

    to: str = ""  # comma-separated, as written
    cc: str | None = None
    bcc: str | None = None
    subject: str = ""
    body: str = ""
    content_type: str | None = None
    attachment: str | None = None  # comma-separated paths, as written


@dataclass(frozen=True, slots=True, kw_only=True)
class SubWorkflowAction(ActionConfig):
    TYPE: ClassVar[str] = "sub-workflow"

    app_path: str = ""
    propagate_configuration: bool = False
    configuration: Configuration = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class SshAction(ActionConfig):
    TYPE: ClassVar[str] = "ssh"

    host: str = ""
    command: str = ""
    args: tuple[str, ...] = ()  # <args> or <arg>
    capture_output: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class OtherAction(ActionConfig):
    """An action element this project does not know (a custom action executor's): its children as text."""

    fields: tuple[tuple[str, str], ...] = ()


ACTION_CONFIG_TYPES: tuple[type[ActionConfig], ...] = (
    ShellAction, SparkAction, HiveAction, Hive2Action, JavaAction, DistcpAction, SqoopAction, PigAction,
    MapReduceAction, GitAction, FsAction, EmailAction, SubWorkflowAction, SshAction,
)
KNOWN_ACTION_TYPES: frozenset[str] = frozenset(kind.TYPE for kind in ACTION_CONFIG_TYPES)


# -- nodes -------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class Node:
    KIND: ClassVar[NodeKind]

    name: str
    line: int | None = None

    @property
    def kind(self) -> NodeKind:
        return self.KIND

    @property
    def type_label(self) -> str:
        """The node's ``type`` in ``oozie graph``: its kind, or ``action:<action type>``."""
        return self.KIND.value

    def transitions(self) -> tuple[Transition, ...]:
        return ()


@dataclass(frozen=True, slots=True, kw_only=True)
class StartNode(Node):
    """``<start to="...">``; it has no name in the XML, Oozie calls it ``:start:``."""

    KIND: ClassVar[NodeKind] = NodeKind.START

    name: str = ":start:"
    to: str

    def transitions(self) -> tuple[Transition, ...]:
        return (Transition(self.to, TransitionKind.START, self.line),)


@dataclass(frozen=True, slots=True, kw_only=True)
class EndNode(Node):
    KIND: ClassVar[NodeKind] = NodeKind.END


@dataclass(frozen=True, slots=True, kw_only=True)
class KillNode(Node):
    KIND: ClassVar[NodeKind] = NodeKind.KILL

    message: str = ""


@dataclass(frozen=True, slots=True)
class Case:
    """One ``<case to="...">predicate</case>``: the predicate is EL text as written (whitespace trimmed)."""

    predicate: str
    to: str
    line: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class DecisionNode(Node):
    KIND: ClassVar[NodeKind] = NodeKind.DECISION

    cases: tuple[Case, ...] = ()
    default: str = ""
    default_line: int | None = None

    def transitions(self) -> tuple[Transition, ...]:
        cases = tuple(Transition(case.to, TransitionKind.CASE, case.line) for case in self.cases)
        return (*cases, Transition(self.default, TransitionKind.DEFAULT, self.default_line))


@dataclass(frozen=True, slots=True, kw_only=True)
class ForkNode(Node):
    KIND: ClassVar[NodeKind] = NodeKind.FORK

    paths: tuple[str, ...] = ()

    def transitions(self) -> tuple[Transition, ...]:
        return tuple(Transition(path, TransitionKind.FORK, self.line) for path in self.paths)


@dataclass(frozen=True, slots=True, kw_only=True)
class JoinNode(Node):
    KIND: ClassVar[NodeKind] = NodeKind.JOIN

    to: str

    def transitions(self) -> tuple[Transition, ...]:
        return (Transition(self.to, TransitionKind.JOIN, self.line),)


@dataclass(frozen=True, slots=True, kw_only=True)
class ActionNode(Node):
    """``<action>``: ``action_type`` is the local name of its first child (``shell``, ``spark``, ``fs``, ...)."""

    KIND: ClassVar[NodeKind] = NodeKind.ACTION

    action_type: str
    config: ActionConfig
    ok: str
    error: str
    ok_line: int | None = None
    error_line: int | None = None
    retry_max: str | None = None  # as written: may be an EL expression
    retry_interval: str | None = None  # minutes, as written
    retry_policy: str | None = None
    cred: str | None = None  # comma-separated credential names, as written
    sla: SlaInfo | None = None

    @property
    def type_label(self) -> str:
        return f"action:{self.action_type}"

    @property
    def credentials(self) -> tuple[str, ...]:
        return tuple(name.strip() for name in (self.cred or "").split(",") if name.strip())

    def transitions(self) -> tuple[Transition, ...]:
        return (Transition(self.ok, TransitionKind.OK, self.ok_line),
                Transition(self.error, TransitionKind.ERROR, self.error_line))


AnyNode = StartNode | EndNode | KillNode | DecisionNode | ForkNode | JoinNode | ActionNode


# -- the workflow ----------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Workflow:
    """A parsed ``workflow.xml``.

    ``nodes`` holds every node in document order, the start node first (named ``:start:``); node names are unique
    once the definition is valid (the parser keeps duplicates so that validation can report them).
    ``version`` is the schema version from the namespace (``0.1`` ... ``1.0``).
    """

    name: str
    namespace: str
    version: str
    file: str
    line: int | None
    start: StartNode
    nodes: tuple[AnyNode, ...]
    parameters: tuple[Parameter, ...] = ()
    global_settings: GlobalSettings | None = None
    credentials: tuple[Credential, ...] = ()
    sla: SlaInfo | None = None
    _by_name: dict[str, AnyNode] = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        for node in self.nodes:
            self._by_name.setdefault(node.name, node)

    def node(self, name: str) -> AnyNode | None:
        return self._by_name.get(name)

    @property
    def actions(self) -> tuple[ActionNode, ...]:
        return tuple(node for node in self.nodes if isinstance(node, ActionNode))

    @property
    def configuration(self) -> Configuration:
        """The ``<global><configuration>`` every action starts from (empty without ``<global>``)."""
        return self.global_settings.configuration if self.global_settings else ()

    def parameter_defaults(self) -> dict[str, str]:
        return {item.name: item.default for item in self.parameters if item.default is not None}

    def edges(self) -> Iterator[tuple[AnyNode, Transition]]:
        for node in self.nodes:
            for transition in node.transitions():
                yield node, transition
