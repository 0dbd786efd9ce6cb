"""EL in a workflow document: every ``${...}`` in element text and attribute values must parse.

A syntax error is an error (``FA023``) with the line and the character in the text: Oozie would fail the action
(or the decision) that holds it when it runs. A call to a function that Oozie's workflow EL does not have is a
warning (``FA024``): a server may register extra functions, but this project cannot evaluate it.
"""

from __future__ import annotations

from collections.abc import Iterator

from lxml import etree

from falcon_airflow.errors import ELSyntaxError
from falcon_airflow.issues import Issue, Level
from falcon_airflow.oozie.el import FUNCTIONS, functions_called, parse_template
from falcon_airflow.parsing.secure import source_line

SYNTAX_RULE = "FA023"
UNKNOWN_FUNCTION_RULE = "FA024"


def _texts(root: etree._Element) -> Iterator[tuple[etree._Element, str, str, int | None]]:
    """(element, what, text, line of the text's start) for every text and attribute value of the document."""
    for element in root.iter():
        if not isinstance(element.tag, str):  # comments and processing instructions are not evaluated
            continue
        local = etree.QName(element).localname
        line = source_line(element)
        for name, value in element.attrib.items():
            yield element, f"attribute '{etree.QName(name).localname}' of <{local}>", str(value), line
        if element.text and "${" in element.text:
            yield element, f"<{local}>", element.text, line
        for child in element:
            if child.tail and "${" in child.tail:
                yield element, f"<{local}>", child.tail, source_line(child)


def expression_issues(root: etree._Element, display: str, workflow: str | None) -> list[Issue]:
    issues: list[Issue] = []
    for _element, what, text, line in _texts(root):
        if "${" not in text:
            continue
        try:
            template = parse_template(text)
        except ELSyntaxError as problem:
            offset = problem.position or 0
            at = (line + text.count("\n", 0, offset)) if line is not None else None
            column = offset - (text.rfind("\n", 0, offset) + 1) + 1
            snippet = text.strip()
            snippet = snippet if len(snippet) <= 80 else snippet[:77] + "..."
            issues.append(Issue(Level.ERROR, SYNTAX_RULE,
                                f"EL syntax error in {what}: {problem.message} (column {column} of '{snippet}')",
                                file=display, line=at, entity=workflow, entity_type="workflow"))
            continue
        for expression in template.expressions:
            for call in functions_called(expression):
                if call.qualified_name not in FUNCTIONS:
                    issues.append(Issue(Level.WARNING, UNKNOWN_FUNCTION_RULE,
                                        f"{what} calls '{call.qualified_name}', which is not an Oozie workflow EL "
                                        "function; falcon-airflow cannot evaluate it", file=display, line=line,
                                        entity=workflow, entity_type="workflow"))
    return issues
