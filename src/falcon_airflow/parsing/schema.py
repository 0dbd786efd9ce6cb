"""Schema validation of entity documents against the XSDs shipped in ``schemas/``.

The XSDs are compiled once per process (libxml2 through lxml: fast, and it reports every line). libxml2's messages
name elements with their namespace and often say one thing twice (a facet message, then a type message); we
rewrite them into one sentence a user can act on.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache
from importlib import resources
from typing import Protocol, cast

from lxml import etree

from falcon_airflow.entities.base import EntityType
from falcon_airflow.issues import Issue, Level
from falcon_airflow.parsing.secure import source_line

_TYPE_DESCRIPTIONS = {
    "frequency-type": "frequency: minutes(N), hours(N), days(N) or months(N) with N >= 1",
    "date-time-type": "date: yyyy-MM-ddTHH:mmZ in UTC",
    "IDENTIFIER": "name: a letter, then letters, digits or '-' (no '_', '.' or spaces)",
    "KEY_VALUE_PAIR": "tag list: key=value items separated by commas",
    "group-type": "group list: names separated by single commas, without spaces",
    "PIPELINE_LIST": "pipeline list: names of letters, digits, '_' or '+', separated by commas or spaces",
    "non-empty-string": "value: it must not be empty",
    "xs:int": "integer",
    "xs:boolean": "boolean (true or false)",
    "xs:unsignedShort": "number from 0 to 65535",
}
_LOCAL_TYPES = {
    "<parallel>": "number of parallel instances: an integer from 1 to 12",
    "attribute 'attempts' of <retry>": "number of attempts: an integer from 1 to 65535",
}
_XS = "http://www.w3.org/2001/XMLSchema"
_NAMESPACE = re.compile(r"\{uri:falcon:[a-z]+:0\.1\}")
_SUBJECT = re.compile(r"^Element '([^']+)'(?:, attribute '([^']+)')?: (.*)$", re.DOTALL)
_ATOMIC = re.compile(r"^'(.*)' is not a valid value of the (?:local )?(?:atomic|union|list) type(?: '([^']+)')?\.$",
                     re.DOTALL)
_ENUMERATION = re.compile(r"^\[facet 'enumeration'\] The value '(.*)' is not an element of the set \{(.*)\}\.$",
                          re.DOTALL)
_FACET_PATTERN = re.compile(r"^\[facet 'pattern'\] The value '(.*)' is not accepted by the pattern '(.*)'\.$",
                            re.DOTALL)
_OTHER_FACET = re.compile(r"^\[facet '[^']+'\] ")
_EXPECTED = re.compile(r"Expected is(?: one of)? \( (.*) \)\.")


@cache
def _schema(entity_type: EntityType) -> etree.XMLSchema:
    folder = resources.files("falcon_airflow.parsing") / "schemas"
    with resources.as_file(folder / f"{entity_type.value}.xsd") as path:
        parser = etree.XMLParser(resolve_entities=False, no_network=True)
        return etree.XMLSchema(etree.parse(str(path), parser))


def schema_for(entity_type: EntityType) -> etree.XMLSchema:
    return _schema(entity_type)


@cache
def _type_of_pattern() -> dict[str, str]:
    """Pattern text -> name of the simple type that declares it, read from the shipped XSDs."""
    names: dict[str, str] = {}
    folder = resources.files("falcon_airflow.parsing") / "schemas"
    for item in folder.iterdir():
        if not item.name.endswith(".xsd"):
            continue
        tree = etree.fromstring(item.read_bytes(), etree.XMLParser(resolve_entities=False, no_network=True))
        for simple in tree.iter(f"{{{_XS}}}simpleType"):
            for pattern in simple.iter(f"{{{_XS}}}pattern"):
                if simple.get("name"):
                    names[pattern.get("value", "")] = simple.get("name", "")
    return names


def _describe_type(type_name: str | None) -> str | None:
    if not type_name:
        return None
    return _TYPE_DESCRIPTIONS.get(type_name, _TYPE_DESCRIPTIONS.get(type_name.split(":")[-1]))


def _rewrite(raw: str) -> tuple[str, str] | None:
    """(subject, sentence) for one libxml2 message; an empty sentence when a sibling message says it better."""
    message = _NAMESPACE.sub("", raw).strip()
    subject_match = _SUBJECT.match(message)
    if subject_match is None:
        return "", message
    element, attribute, detail = subject_match.groups()
    subject = f"attribute '{attribute}' of <{element}>" if attribute else f"<{element}>"
    pattern = _FACET_PATTERN.match(detail)
    if pattern:
        described = _describe_type(_type_of_pattern().get(pattern[2]))
        return subject, f"{subject}: '{pattern[1]}' is not a valid {described or 'value'}"
    enumeration = _ENUMERATION.match(detail)
    if enumeration:
        allowed = ", ".join(value.strip().strip("'") for value in enumeration[2].split(","))
        return subject, f"{subject}: '{enumeration[1]}' is not one of {allowed}"
    atomic = _ATOMIC.match(detail)
    if atomic:
        described = _describe_type(atomic[2])
        if atomic[2] is None:  # an anonymous type: say what the element or attribute takes
            described = _LOCAL_TYPES.get(subject, "value here")
        return subject, f"{subject}: '{atomic[1]}' is not a valid {described or 'value'}"
    detail = _OTHER_FACET.sub("", detail)
    detail = _EXPECTED.sub(lambda m: "Expected " + ", ".join(f"<{item.strip()}>" for item in m[1].split(",")) + ".",
                           detail)
    detail = detail.replace("This element is not expected.", "this element is not expected here.")
    detail = detail.replace("Missing child element(s).", "missing child element(s).")
    return subject, f"{subject}: {detail}"


class _LogEntry(Protocol):
    """What we read of an lxml ``_LogEntry`` (lxml-stubs declare the error log as an empty, non-iterable class)."""

    @property
    def message(self) -> str: ...

    @property
    def line(self) -> int: ...


def validate_against_schema(root: etree._Element, entity_type: EntityType, display: str,
                            entity_name: str | None) -> list[Issue]:
    schema = schema_for(entity_type)
    if schema.validate(root):
        return []
    issues: list[Issue] = []
    seen: set[tuple[int, str]] = set()
    for entry in cast("Iterable[_LogEntry]", schema.error_log):
        rewritten = _rewrite(entry.message)
        if rewritten is None or not rewritten[1]:
            continue
        subject, sentence = rewritten
        # libxml2 may report one bad value twice (facet, then type): keep the first sentence per subject and line
        key = (entry.line, subject or sentence)
        if key in seen:
            continue
        seen.add(key)
        issues.append(Issue(Level.ERROR, "XSD", sentence, file=display, line=entry.line or None,
                            entity=entity_name, entity_type=entity_type.value))
    if not issues:  # never report "invalid" without a reason
        issues.append(Issue(Level.ERROR, "XSD", "document does not match the schema", file=display,
                            line=source_line(root), entity=entity_name, entity_type=entity_type.value))
    return issues
