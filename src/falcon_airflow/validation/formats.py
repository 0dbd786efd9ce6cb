"""A validation :class:`~falcon_airflow.validation.Report` written for people and for CI servers.

* ``text``: one line per issue, ``file:line: level [rule] type 'name': message``, then a summary;
* ``json``: the contract other tools rely on (``valid``, ``files``, ``issues``; see :func:`as_json`);
* ``junit``: JUnit XML, one test case per file, so CI servers show each file as a test;
* ``github``: GitHub Actions workflow commands (``::error file=...,line=...::...``) that annotate the diff.
"""

from __future__ import annotations

import json
from json.encoder import encode_basestring_ascii
from typing import Any

from falcon_airflow.issues import Issue
from falcon_airflow.validation import Report

FORMATS = ("text", "json", "junit", "github")


def as_dict(report: Report) -> dict[str, Any]:
    files = []
    for parsed in report.files:
        entities = [{"type": parsed.entity_type.value, "name": parsed.entity_name}] \
            if parsed.entity_type is not None and parsed.entity_name is not None else []
        files.append({"path": parsed.path, "entities": entities,
                      "valid": not any(issue.is_error for issue in report.issues_of(parsed.path))})
    issues = [{"level": issue.level.value, "rule": issue.rule, "file": issue.file, "line": issue.line,
               "entity": issue.entity, "message": issue.message} for issue in report.issues]
    return {"valid": report.valid, "files": files, "issues": issues}


def as_json(report: Report) -> str:
    return _indented(as_dict(report))


def _indented(value: Any, depth: int = 0) -> str:
    """``json.dumps(value, indent=2)``, character for character, for the JSON types a report holds; written out
    because json's indenting encoder is pure Python and took most of the time of writing a 10,000-file report.
    Anything else (a float, a key that is not text) is left to json itself."""
    if isinstance(value, str):
        return encode_basestring_ascii(value)
    if value is None or isinstance(value, (bool, int)):
        return "null" if value is None else "true" if value is True else "false" if value is False else repr(value)
    inner = "\n" + "  " * (depth + 1)
    if isinstance(value, list):
        if not value:
            return "[]"
        return "[" + inner + ("," + inner).join(_indented(item, depth + 1) for item in value) + "\n" \
            + "  " * depth + "]"
    if isinstance(value, dict) and all(isinstance(key, str) for key in value):
        if not value:
            return "{}"
        return "{" + inner + ("," + inner).join(f"{encode_basestring_ascii(key)}: {_indented(item, depth + 1)}"
                                                for key, item in value.items()) + "\n" + "  " * depth + "}"
    return json.dumps(value, indent=2).replace("\n", "\n" + "  " * depth)


def _subject(issue: Issue) -> str:
    if issue.entity and issue.entity_type:
        return f" {issue.entity_type} '{issue.entity}':"
    if issue.entity:
        return f" '{issue.entity}':"
    return ""


def as_text(report: Report) -> str:
    lines = [f"{issue.location()}: {issue.level.value} [{issue.rule}]{_subject(issue)} {issue.message}"
             for issue in report.issues]
    errors = sum(1 for issue in report.issues if issue.is_error)
    warnings = len(report.issues) - errors
    entities = sum(1 for parsed in report.files if parsed.entity is not None)
    verdict = "valid" if report.valid else "invalid"
    lines.append(f"{verdict}: {len(report.files)} file(s), {entities} entit{'y' if entities == 1 else 'ies'}, "
                 f"{errors} error(s), {warnings} warning(s)")
    return "\n".join(lines)


def as_junit(report: Report) -> str:
    """One ``testsuite``; a ``testcase`` per file whose errors are ``failure`` elements, warnings in system-out.

    Issues that belong to no file (rare: a workspace-level problem) go into a test case of their own.
    """
    from xml.sax.saxutils import escape, quoteattr  # here: the module imports urllib.request, HTTP and TLS

    cases: list[str] = []
    failures = 0
    paths = [parsed.path for parsed in report.files]
    known = set(paths)
    orphans = [issue for issue in report.issues if issue.file not in known]
    groups = [(path, report.issues_of(path)) for path in paths]
    if orphans:
        groups.append(("<workspace>", orphans))
    for path, issues in groups:
        errors = [issue for issue in issues if issue.is_error]
        warnings = [issue for issue in issues if not issue.is_error]
        body = []
        for issue in errors:
            text = f"{issue.location()}: [{issue.rule}]{_subject(issue)} {issue.message}"
            body.append(f'      <failure type={quoteattr(issue.rule)} message={quoteattr(issue.message)}>'
                        f"{escape(text)}</failure>")
        if warnings:
            text = "\n".join(f"{issue.location()}: warning [{issue.rule}] {issue.message}" for issue in warnings)
            body.append(f"      <system-out>{escape(text)}</system-out>")
        failures += 1 if errors else 0
        inner = ("\n" + "\n".join(body) + "\n    ") if body else ""
        cases.append(f'    <testcase classname="falcon-airflow.validate" name={quoteattr(path)}>{inner}</testcase>')
    header = (f'<testsuite name="falcon-airflow validate" tests="{len(groups)}" failures="{failures}" '
              f'errors="0" skipped="0">')
    return "\n".join(['<?xml version="1.0" encoding="UTF-8"?>', "<testsuites>", "  " + header, *cases,
                      "  </testsuite>", "</testsuites>"])


def _escape_property(value: str) -> str:
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A").replace(":", "%3A") \
        .replace(",", "%2C")


def _escape_data(value: str) -> str:
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def as_github(report: Report) -> str:
    lines = []
    for issue in report.issues:
        command = "error" if issue.is_error else "warning"
        properties = []
        if issue.file:
            properties.append(f"file={_escape_property(issue.file)}")
        if issue.line:
            properties.append(f"line={issue.line}")
        # The entity in the title: a rule like P9 names another entity in its message, so say whose issue it is.
        whose = f" ({issue.entity_type} {issue.entity})" if issue.entity else ""
        properties.append(f"title={_escape_property(f'falcon-airflow {issue.rule}{whose}')}")
        lines.append(f"::{command} {','.join(properties)}::{_escape_data(issue.message)}")
    errors = sum(1 for issue in report.issues if issue.is_error)
    lines.append(f"falcon-airflow validate: {'valid' if report.valid else 'invalid'}, {errors} error(s), "
                 f"{len(report.issues) - errors} warning(s) in {len(report.files)} file(s)")
    return "\n".join(lines)


def render(report: Report, output_format: str) -> str:
    return {"text": as_text, "json": as_json, "junit": as_junit, "github": as_github}[output_format](report)
