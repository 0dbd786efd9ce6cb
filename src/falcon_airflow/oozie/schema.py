"""Schema validation of workflow definitions against the XSDs shipped in ``schemas/`` (rule ``E0701``).

The workflow schema of each version (``uri:oozie:workflow:0.1`` ... ``1.0``) checks the workflow's own elements and
lets an action element from another namespace (shell, hive, spark, ...) and ``<sla:info>`` through; each of those is
then checked against the schema of its own namespace, element by element, so that one table maps namespaces to
schemas. An action element in a namespace that is no Oozie action at all is left to the rules (``E0723``,
unsupported action type), as Oozie reports it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from copy import deepcopy
from functools import cache
from importlib import resources
from typing import Protocol, cast

from lxml import etree

from falcon_airflow.issues import Issue, Level
from falcon_airflow.parsing.secure import source_line

SCHEMA_RULE = "E0701"
_ACTION_NAMESPACE = re.compile(r"^uri:oozie:([a-z0-9-]+)-action:(\d+\.\d+)$")
_SLA_NAMESPACE = re.compile(r"^uri:oozie:sla:(\d+\.\d+)$")
_WORKFLOW_NAMESPACE = re.compile(r"^uri:oozie:workflow:(\d+\.\d+(?:\.\d+)?)$")
_CLARK = re.compile(r"\{[^}]*\}")
_EXPECTED = re.compile(r"Expected is(?: one of)? \( (.*?) \)\.")


class _LogEntry(Protocol):
    @property
    def message(self) -> str: ...

    @property
    def line(self) -> int: ...


def _schema_names() -> frozenset[str]:
    folder = resources.files("falcon_airflow.oozie") / "schemas"
    return frozenset(item.name for item in folder.iterdir() if item.name.endswith(".xsd"))


@cache
def _available() -> frozenset[str]:
    return _schema_names()


@cache
def _schema(file_name: str) -> etree.XMLSchema:
    folder = resources.files("falcon_airflow.oozie") / "schemas"
    # as_file: the schemas include common.xsd by relative location, so libxml2 needs them as real files
    with resources.as_file(folder / file_name) as path:
        parser = etree.XMLParser(resolve_entities=False, no_network=True)
        return etree.XMLSchema(etree.parse(str(path), parser))


def workflow_versions() -> tuple[str, ...]:
    """Workflow schema versions this project knows, oldest first."""
    versions = [name[len("workflow-"):-len(".xsd")] for name in _available() if name.startswith("workflow-")]
    return tuple(sorted(versions, key=lambda v: tuple(int(part) for part in v.split("."))))


def action_schema_file(namespace: str) -> str | None:
    """The shipped schema of an action namespace (``uri:oozie:shell-action:0.2`` -> ``shell-action-0.2.xsd``)."""
    matched = _ACTION_NAMESPACE.match(namespace)
    if not matched:
        return None
    name = f"{matched[1]}-action-{matched[2]}.xsd"
    return name if name in _available() else None


def known_action_namespace_type(namespace: str) -> str | None:
    """The action type an ``uri:oozie:<type>-action:<version>`` namespace names, whatever its version."""
    matched = _ACTION_NAMESPACE.match(namespace)
    if not matched:
        return None
    prefix = f"{matched[1]}-action-"
    return matched[1] if any(name.startswith(prefix) for name in _available()) else None


def _rewrite(message: str) -> str:
    text = _CLARK.sub("", message).strip()
    text = _EXPECTED.sub(lambda m: "expected " + ", ".join(f"<{item.strip()}>" for item in m[1].split(",")) + ".",
                         text)
    text = re.sub(r"^Element '([^']+)', attribute '([^']+)': ", r"attribute '\2' of <\1>: ", text)
    text = re.sub(r"^Element '([^']+)': ", r"<\1>: ", text)
    text = text.replace("This element is not expected.", "this element is not expected here;")
    text = text.replace("Missing child element(s).", "missing child element(s);")
    return text.rstrip(";")


def _issues_of(schema: etree.XMLSchema, element: etree._Element, display: str, name: str | None,
               what: str) -> list[Issue]:
    if schema.validate(element):
        return []
    issues: list[Issue] = []
    seen: set[tuple[int, str]] = set()
    for entry in cast("Iterable[_LogEntry]", schema.error_log):
        sentence = _rewrite(entry.message)
        key = (entry.line, sentence)
        if key in seen:
            continue
        seen.add(key)
        issues.append(Issue(Level.ERROR, SCHEMA_RULE, f"{what}: {sentence}", file=display,
                            line=entry.line or source_line(element), entity=name, entity_type="workflow"))
    if not issues:
        issues.append(Issue(Level.ERROR, SCHEMA_RULE, f"{what} does not match its schema", file=display,
                            line=source_line(element), entity=name, entity_type="workflow"))
    return issues


def _elements(parent: etree._Element) -> list[etree._Element]:
    return [child for child in parent if isinstance(child.tag, str)]


def _check_sla(element: etree._Element, display: str, name: str | None) -> list[Issue]:
    namespace = etree.QName(element).namespace or ""
    matched = _SLA_NAMESPACE.match(namespace)
    file_name = f"sla-{matched[1]}.xsd" if matched else ""
    if file_name not in _available():
        return [Issue(Level.ERROR, SCHEMA_RULE, f"<sla:info> in unknown namespace '{namespace}'", file=display,
                      line=source_line(element), entity=name, entity_type="workflow")]
    return _issues_of(_schema(file_name), element, display, name, "SLA")


_HADOOP_ACTIONS = frozenset({"map-reduce", "pig", "java", "shell", "hive", "hive2", "spark", "sqoop", "distcp", "git"})


def _global_cluster(root: etree._Element, namespace: str) -> tuple[str | None, str | None]:
    """``<global>``'s job tracker (or resource manager) and name node, when the workflow has them."""
    found = root.find(f"{{{namespace}}}global")
    if found is None:
        return None, None
    values: dict[str, str] = {}
    for child in _elements(found):
        values.setdefault(etree.QName(child).localname, (child.text or "").strip())
    return values.get("job-tracker", values.get("resource-manager")), values.get("name-node")


def _with_global(part: etree._Element, job_tracker: str | None, name_node: str | None) -> etree._Element:
    """The action element as Oozie judges it: where it runs first, taken from ``<global>`` when the action has none.

    Oozie completes a Hadoop action with ``<global>``'s job tracker and name node before it judges the action, so
    an action of an early schema version (where both are required) is valid without them when the workflow has a
    ``<global>`` that gives them; and it reads them wherever they stand in the action.
    """
    if etree.QName(part).localname not in _HADOOP_ACTIONS:
        return part
    namespace = etree.QName(part).namespace
    copy = deepcopy(part)
    cluster = [child for child in _elements(copy)
               if etree.QName(child).localname in ("job-tracker", "resource-manager", "name-node")]
    tracker = next((child for child in cluster if etree.QName(child).localname != "name-node"), None)
    node = next((child for child in cluster if etree.QName(child).localname == "name-node"), None)
    if tracker is None and job_tracker is not None:
        # the git action names it <resource-manager> only; the others accept <job-tracker> in every version
        name = "resource-manager" if etree.QName(part).localname == "git" else "job-tracker"
        tracker = etree.Element(etree.QName(namespace, name).text)
        tracker.text = job_tracker
    if node is None and name_node is not None:
        node = etree.Element(etree.QName(namespace, "name-node").text)
        node.text = name_node
    for position, child in enumerate(item for item in (tracker, node) if item is not None):
        copy.insert(position, child)  # lxml moves an element that is already a child
    return copy


def validate_workflow_schema(root: etree._Element, display: str, name: str | None) -> list[Issue]:
    """Schema issues of a ``<workflow-app>`` (empty when it matches); the caller checked it is one."""
    namespace = etree.QName(root).namespace or ""
    matched = _WORKFLOW_NAMESPACE.match(namespace)
    file_name = f"workflow-{matched[1]}.xsd" if matched else ""
    if file_name not in _available():
        known = ", ".join(workflow_versions())
        return [Issue(Level.ERROR, SCHEMA_RULE,
                      f"unknown workflow schema version '{namespace}'; known versions: {known}", file=display,
                      line=source_line(root), entity=name, entity_type="workflow")]
    issues = _issues_of(_schema(file_name), root, display, name, "workflow")
    job_tracker, name_node = _global_cluster(root, namespace)
    for child in _elements(root):
        local = etree.QName(child).localname
        if local == "info":
            issues.extend(_check_sla(child, display, name))
        if local != "action":
            continue
        for index, part in enumerate(_elements(child)):
            part_namespace = etree.QName(part).namespace or ""
            if etree.QName(part).localname == "info" and _SLA_NAMESPACE.match(part_namespace):
                issues.extend(_check_sla(part, display, name))
                continue
            if index != 0 or part_namespace == namespace:
                continue
            action_file = action_schema_file(part_namespace)
            if action_file is not None:
                what = f"action '{child.get('name', '')}'"
                checked = _with_global(part, job_tracker, name_node)
                issues.extend(_issues_of(_schema(action_file), checked, display, name, what))
            elif known_action_namespace_type(part_namespace):
                issues.append(Issue(Level.ERROR, SCHEMA_RULE,
                                    f"action '{child.get('name', '')}': unknown schema version '{part_namespace}'",
                                    file=display, line=source_line(part), entity=name, entity_type="workflow"))
    return issues
