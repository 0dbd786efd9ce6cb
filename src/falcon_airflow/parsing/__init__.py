"""Entity XML to entity models: the first stage of the pipeline.

``parse_file`` never raises for bad input: it returns a :class:`ParsedFile` whose ``issues`` say what is wrong
(rule ``XML`` for unreadable or refused input, ``XSD`` for schema errors), and whose ``entity`` is set only when
the file is a valid entity document.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar, cast

from lxml import etree
from pydantic import ValidationError

from falcon_airflow.entities import Entity, EntityType
from falcon_airflow.issues import Issue, Level
from falcon_airflow.parsing.builders import Values, build_entity, entity_from_values, read_entity
from falcon_airflow.parsing.schema import validate_against_schema
from falcon_airflow.parsing.secure import (
    MAX_ENTITY_FILE_BYTES,
    LoadedXml,
    load_xml_file,
    parse_xml_bytes,
    source_line,
)

__all__ = ["MAX_ENTITY_FILE_BYTES", "ParsedFile", "parse_bytes", "parse_file"]

T = TypeVar("T")
# what makes an entity (or its values) of a schema-valid document: (it, the issues found on the way)
_Build = Callable[[etree._Element, EntityType, str], tuple[T | None, list[Issue]]]
_BY_LOCAL_NAME = {entity_type.value: entity_type for entity_type in EntityType}


@dataclass(frozen=True, slots=True)
class ParsedFile:
    path: str
    entity: Entity | None
    entity_type: EntityType | None
    entity_name: str | None
    issues: tuple[Issue, ...]
    # an Oozie workflow definition (<workflow-app>), not an entity: validation reads it with falcon_airflow.oozie
    oozie_workflow: bool = False

    @property
    def has_errors(self) -> bool:
        return any(issue.is_error for issue in self.issues)


def identify(root: etree._Element, display: str) -> tuple[EntityType | None, Issue | None]:
    """Which entity type a root element declares, or an issue explaining why it is none of them."""
    qname = etree.QName(root)
    entity_type = _BY_LOCAL_NAME.get(qname.localname)
    if entity_type is not None and qname.namespace == entity_type.namespace:
        return entity_type, None
    expected = "; ".join(f"<{item.value}> in {item.namespace}" for item in EntityType)
    if entity_type is not None:
        found = f"namespace '{qname.namespace}'" if qname.namespace else "no namespace"
        message = f"root element <{qname.localname}> has {found}; it must be in {entity_type.namespace}"
    else:
        where = f" in namespace '{qname.namespace}'" if qname.namespace else " (no namespace)"
        message = f"root element <{qname.localname}>{where} is not a Falcon entity; expected one of: {expected}"
    return None, Issue(Level.ERROR, "XSD", message, file=display, line=source_line(root), entity=root.get("name"))


def is_oozie_workflow(root: etree._Element) -> bool:
    """An Oozie ``<workflow-app>`` (any ``uri:oozie:workflow:*`` version): not an entity, and no error either."""
    qname = etree.QName(root)
    return qname.localname == "workflow-app" and (qname.namespace or "").startswith("uri:oozie:workflow:")


def _from_loaded(loaded: LoadedXml, display: str) -> ParsedFile:
    parsed, entity = _read(loaded, display, build_entity)
    if entity is None:
        return parsed
    # mypy joins the union build_entity gives into its base class: it is one of the four entity models
    return ParsedFile(parsed.path, cast("Entity", entity), parsed.entity_type, parsed.entity_name, parsed.issues)


def _read(loaded: LoadedXml, display: str, build: _Build[T]) -> tuple[ParsedFile, T | None]:
    """What a file holds, without its entity, and what ``build`` makes of a schema-valid entity document."""
    if loaded.root is None:
        return ParsedFile(display, None, None, None, loaded.issues), None
    root = loaded.root
    name = root.get("name")
    if is_oozie_workflow(root):  # an Oozie workflow kept beside the entities: the compiler and validate read it
        return ParsedFile(display, None, None, name, (), oozie_workflow=True), None
    entity_type, problem = identify(root, display)
    if entity_type is None:
        return ParsedFile(display, None, None, name, (problem,) if problem else ()), None
    schema_issues = validate_against_schema(root, entity_type, display, name)
    if schema_issues:
        return ParsedFile(display, None, entity_type, name, tuple(schema_issues)), None
    try:
        built, issues = build(root, entity_type, display)
    except (ValidationError, ValueError, AssertionError) as error:  # the XSD should make this unreachable
        return _unreadable(display, entity_type, name, source_line(root), error), None
    return ParsedFile(display, None, entity_type, name, tuple(issues)), built


def _unreadable(display: str, entity_type: EntityType, name: str | None, line: int | None,
                error: Exception) -> ParsedFile:
    issue = Issue(Level.ERROR, "XSD", f"cannot read the {entity_type.value}: {error}", file=display,
                  line=line, entity=name, entity_type=entity_type.value)
    return ParsedFile(display, None, entity_type, name, (issue,))


def read_file_values(path: str, display: str) -> tuple[ParsedFile, Values | None]:
    """:func:`parse_file` stopped short of the model: the file without its entity, and the entity's plain values
    (see :func:`finish_values`). A helper process reading files hands these over: cheaper to write out and to
    read back than the models."""
    return _read(load_xml_file(path, display), display, read_entity)


def finish_values(parsed: ParsedFile, values: Values) -> ParsedFile:
    """The :class:`ParsedFile` :func:`parse_file` gives, from what :func:`read_file_values` gave."""
    assert parsed.entity_type is not None, "values are read for an entity document"
    try:
        entity = entity_from_values(values, parsed.entity_type)
    except (ValidationError, ValueError, AssertionError) as error:  # as _read says, from the same values
        return _unreadable(parsed.path, parsed.entity_type, parsed.entity_name, values["source"]["line"], error)
    return ParsedFile(parsed.path, entity, parsed.entity_type, parsed.entity_name, parsed.issues)


def parse_file(path: str | os.PathLike[str], display: str | None = None) -> ParsedFile:
    """Parse one entity file. ``display`` is how issues name the file (default: the path as given)."""
    shown = display if display is not None else os.fspath(path)
    return _from_loaded(load_xml_file(path, shown), shown)


def parse_read_file(data: bytes, display: str) -> ParsedFile:
    """What :func:`parse_file` gives for a file whose bytes, read within the size limit, are ``data``."""
    return _from_loaded(parse_xml_bytes(data, display), display)


def parse_bytes(data: bytes, display: str = "<string>") -> ParsedFile:
    """Parse entity XML held in memory (size-limited like files)."""
    if len(data) > MAX_ENTITY_FILE_BYTES:
        issue = Issue(Level.ERROR, "XML", f"document is larger than {MAX_ENTITY_FILE_BYTES:,} bytes", file=display)
        return ParsedFile(display, None, None, None, (issue,))
    return _from_loaded(parse_xml_bytes(data, display), display)
