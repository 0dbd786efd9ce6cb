"""Oozie's structural rules over a parsed workflow, each issue under Oozie's own error code.

What Oozie checks when a workflow is submitted, in its order:

1. parameters: a ``<parameters>`` name must not be empty (``E0739``); a required parameter (no ``<value>``) must
   be supplied (``E0738``) — by the job's configuration in Oozie, by the process's properties and Falcon's
   built-in properties here. A bare ``workflow.xml`` has no job configuration, so there it is a warning;
2. building the nodes, in document order: every action type must have an executor (``E0723``), Hadoop actions
   need a name node and a job tracker, from the action or from ``<global>`` (``E0701``), names are unique
   (``E0705``) and no node transitions to itself (``E0706``);
3. walking the graph from the start node: names are at most 128 characters (``E0724``), every transition target
   exists (``E0708``), there is no loop (``E0707``);
4. fork/join pairing (only when 1-3 passed, as it assumes a sound graph): as many forks as joins (``E0730``),
   each fork's paths meet at exactly one join (``E0733`` none, ``E0757`` several), a join belongs to one fork
   (``E0742`` reached outside any fork, ``E0758`` reached from two forks), no ``end`` inside a fork (``E0737``),
   a node is reached by at most one "ok" path unless a decision chooses between them (``E0743``), and a fork
   does not start the same node twice (``E0744``).

Nodes that the start node never reaches are not judged by Oozie; they are reported as a warning (``FA022``).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass

from falcon_airflow.issues import Issue, Level
from falcon_airflow.oozie.model import (
    ActionNode,
    AnyNode,
    DecisionNode,
    EndNode,
    ForkNode,
    HadoopActionConfig,
    JoinNode,
    KillNode,
    StartNode,
    Workflow,
)
from falcon_airflow.oozie.schema import action_schema_file

MAX_NODE_NAME_LENGTH = 128
UNREACHABLE_RULE = "FA022"

# Action types Oozie ships an executor for (an action element of any other type is E0723).
OOZIE_ACTION_TYPES = frozenset({
    "map-reduce", "pig", "sub-workflow", "fs", "java", "email", "shell", "hive", "hive2", "spark", "sqoop", "ssh",
    "distcp", "git",
})
# Executors that need a name node and a job tracker (Oozie's launcher-based actions).
_NEEDS_CLUSTER = frozenset({"map-reduce", "pig", "java", "shell", "hive", "hive2", "spark", "sqoop", "distcp", "git"})


@dataclass(frozen=True, slots=True)
class _Found:
    rule: str
    message: str
    line: int | None
    level: Level = Level.ERROR


class _Stop(Exception):
    """Raised inside the fork/join walk: Oozie stops at the first problem there, so do we."""

    def __init__(self, found: _Found) -> None:
        super().__init__(found.message)
        self.found = found


def _supported(action: ActionNode, workflow_namespace: str) -> bool:
    namespace = action.config.namespace or ""
    if action.action_type not in OOZIE_ACTION_TYPES:
        return False
    # an Oozie action type in a namespace that is no Oozie schema (e.g. <shell xmlns="uri:mine">) has no executor
    return namespace == workflow_namespace or action_schema_file(namespace) is not None


def _parameter_checks(workflow: Workflow, supplied: Mapping[str, str] | None) -> Iterator[_Found]:
    missing = []
    for parameter in workflow.parameters:
        if not parameter.name.strip():
            yield _Found("E0739", "a <parameters> property has an empty name", parameter.line)
            continue
        if parameter.required and (supplied is None or parameter.name not in supplied):
            missing.append(parameter)
    for parameter in missing:
        if supplied is None:
            yield _Found("E0738", f"parameter '{parameter.name}' is required (it has no <value>): the job that "
                         "runs this workflow must supply it", parameter.line, Level.WARNING)
        else:
            yield _Found("E0738", f"required parameter '{parameter.name}' has no <value> and is not supplied by "
                         "the process's <properties> or Falcon's workflow properties", parameter.line)


def _node_checks(workflow: Workflow) -> Iterator[_Found]:
    settings = workflow.global_settings
    seen: set[str] = set()
    for node in workflow.nodes:
        if isinstance(node, StartNode):
            continue
        if isinstance(node, ActionNode):
            if not _supported(node, workflow.namespace):
                where = f" in namespace '{node.config.namespace}'" if node.config.namespace else ""
                yield _Found("E0723", f"action '{node.name}': unsupported action type <{node.action_type}>{where}",
                             node.config.line or node.line)
            elif node.action_type in _NEEDS_CLUSTER and isinstance(node.config, HadoopActionConfig):
                if node.config.name_node is None and (settings is None or settings.name_node is None):
                    yield _Found("E0701", f"action '{node.name}': no <name-node> defined, neither in the action nor "
                                 "in <global>", node.config.line or node.line)
                if node.config.job_tracker is None and (settings is None or settings.job_tracker is None):
                    yield _Found("E0701", f"action '{node.name}': no <job-tracker> or <resource-manager> defined, "
                                 "neither in the action nor in <global>", node.config.line or node.line)
        if node.name in seen:
            yield _Found("E0705", f"node '{node.name}' is defined twice", node.line)
        seen.add(node.name)
        if any(transition.to == node.name for transition in node.transitions()):
            yield _Found("E0706", f"node '{node.name}' transitions to itself", node.line)


def _walk(workflow: Workflow) -> tuple[list[_Found], set[str]]:
    """Names, transition targets and loops over the nodes the start node reaches (Oozie's basic validation)."""
    found: list[_Found] = []
    reached: set[str] = set()
    done: set[str] = set()
    on_path: list[str] = []
    # iterative depth-first walk: (node, index of the next transition to follow)
    stack: list[tuple[AnyNode, int]] = [(workflow.start, 0)]
    on_path.append(workflow.start.name)
    reached.add(workflow.start.name)
    reported_loops: set[tuple[str, str]] = set()
    while stack:
        node, index = stack.pop()
        transitions = node.transitions()
        if index < len(transitions):
            stack.append((node, index + 1))
            transition = transitions[index]
            target = workflow.node(transition.to)
            if target is None:
                found.append(_Found("E0708", f"node '{node.name}' has an invalid transition to '{transition.to}': "
                                    "no node has that name", transition.line or node.line))
                continue
            if target.name in on_path:
                if target.name != node.name and (node.name, target.name) not in reported_loops:
                    reported_loops.add((node.name, target.name))
                    loop = " -> ".join([*on_path[on_path.index(target.name):], target.name])
                    found.append(_Found("E0707", f"loop detected at node '{target.name}': {loop}",
                                        transition.line or node.line))
                continue
            if target.name in done:
                continue
            if not isinstance(target, StartNode) and len(target.name) > MAX_NODE_NAME_LENGTH:
                found.append(_Found("E0724", f"node name '{target.name}' is {len(target.name)} characters long; "
                                    f"Oozie allows at most {MAX_NODE_NAME_LENGTH}", target.line))
            reached.add(target.name)
            on_path.append(target.name)
            stack.append((target, 0))
            continue
        done.add(node.name)
        on_path.pop()
    return found, reached


@contextmanager
def _deep_enough(depth: int) -> Iterator[None]:
    """The fork/join walk recurses once per node on a path; allow for the largest workflows Oozie accepts."""
    previous = sys.getrecursionlimit()
    sys.setrecursionlimit(max(previous, depth))
    try:
        yield
    finally:
        sys.setrecursionlimit(previous)


class _ForkJoinWalk:
    """Oozie's fork/join validation: which join closes each fork, and single "ok" paths into every node."""

    def __init__(self, workflow: Workflow) -> None:
        self.workflow = workflow
        self.fork_of_join: dict[str, str] = {}
        self.decision_parent: dict[str, str | None] = {}
        self.visited: set[str] = set()
        self.path: list[str] = []

    def node(self, name: str) -> AnyNode:
        found = self.workflow.node(name)
        assert found is not None  # the basic walk proved every reachable transition target exists
        return found

    def walk(self, node: AnyNode, fork: ForkNode | None, decision: str | None, ok_path: bool) -> None:
        name = node.name
        self.path.append(name)
        if ok_path and not isinstance(node, KillNode | JoinNode | EndNode):
            if name not in self.decision_parent:
                self.decision_parent[name] = decision
            else:
                parent = self.decision_parent[name]
                if (parent is None and decision is None) or parent != decision:
                    raise _Stop(_Found("E0743", f"node '{name}' is reached by more than one \"ok\" transition "
                                       "(only a decision may lead to one node along several paths)", node.line))
        if name in self.visited:
            self.path.remove(name)
            return
        if not isinstance(node, JoinNode | EndNode):
            self.visited.add(name)
        if isinstance(node, ForkNode):
            self._fork(node, fork, decision, ok_path)
        elif isinstance(node, JoinNode):
            if fork is None:
                raise _Stop(_Found("E0742", f"join '{name}' is reached outside any fork: no fork pairs with it",
                                   node.line))
            paired = self.fork_of_join.setdefault(name, fork.name)
            if paired != fork.name:
                raise _Stop(_Found("E0758", f"join '{name}' is reached from two forks: '{paired}' and "
                                   f"'{fork.name}'", node.line))
        elif isinstance(node, DecisionNode):
            parent = decision if decision is not None else name
            for transition in node.transitions():
                self.walk(self.node(transition.to), fork, parent, ok_path)
        elif isinstance(node, EndNode):
            if fork is not None:
                previous = self.path[-2] if len(self.path) > 1 else name
                raise _Stop(_Found("E0737", f"node '{previous}' goes to end node '{name}' inside fork "
                                   f"'{fork.name}': a fork's paths must meet at its join before the workflow ends",
                                   node.line))
        elif isinstance(node, ActionNode):
            self.walk(self.node(node.ok), fork, decision, ok_path)
            self.walk(self.node(node.error), fork, decision, False)
        elif isinstance(node, StartNode):
            self.walk(self.node(node.to), fork, decision, ok_path)
        self.path.remove(name)

    def _fork(self, node: ForkNode, fork: ForkNode | None, decision: str | None, ok_path: bool) -> None:
        for path in node.paths:
            target = self.node(path)
            if not isinstance(target, JoinNode | KillNode) and node.paths.count(path) > 1:
                raise _Stop(_Found("E0744", f"fork '{node.name}' starts node '{path}' more than once", node.line))
        for path in node.paths:
            self.walk(self.node(path), node, decision, ok_path)
        joins = sorted(join for join, paired in self.fork_of_join.items() if paired == node.name)
        if not joins:
            raise _Stop(_Found("E0733", f"fork '{node.name}' has no join: its paths never meet", node.line))
        if len(joins) > 1:
            raise _Stop(_Found("E0757", f"fork '{node.name}' has several joins: {', '.join(joins)}; all its paths "
                               "must meet at one join", node.line))
        join = self.node(joins[0])
        assert isinstance(join, JoinNode)
        self.walk(self.node(join.to), fork, decision, ok_path)


def _fork_join_checks(workflow: Workflow, reached: set[str]) -> Iterator[_Found]:
    forks = [node for node in workflow.nodes if isinstance(node, ForkNode) and node.name in reached]
    joins = [node for node in workflow.nodes if isinstance(node, JoinNode) and node.name in reached]
    if len(forks) != len(joins):
        line = (forks or joins)[0].line if (forks or joins) else None
        yield _Found("E0730", f"fork/join not in pair: {len(forks)} fork(s) and {len(joins)} join(s) are reached",
                     line)
        return
    walker = _ForkJoinWalk(workflow)
    try:
        with _deep_enough(len(workflow.nodes) * 4 + 1000):
            walker.walk(workflow.start, None, None, True)
    except _Stop as stop:
        yield stop.found


def check_workflow(workflow: Workflow, supplied: Mapping[str, str] | None = None) -> list[Issue]:
    """Oozie's rules over a parsed workflow. ``supplied``: the configuration that will run it (``None``: unknown,
    as for a bare ``workflow.xml``; then a required parameter is a warning, not an error)."""
    found: list[_Found] = list(_parameter_checks(workflow, supplied))
    building = list(_node_checks(workflow))
    found.extend(building)
    walked, reached = _walk(workflow)
    found.extend(walked)
    if not any(item.level is Level.ERROR for item in building + walked):
        found.extend(_fork_join_checks(workflow, reached))
    for node in workflow.nodes:
        if node.name not in reached and not isinstance(node, StartNode):
            found.append(_Found(UNREACHABLE_RULE, f"node '{node.name}' is never reached from the start node; Oozie "
                                "ignores it", node.line, Level.WARNING))
    return [Issue(item.level, item.rule, item.message, file=workflow.file, line=item.line, entity=workflow.name,
                  entity_type="workflow") for item in found]
