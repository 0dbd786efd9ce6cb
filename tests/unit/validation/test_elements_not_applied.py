"""FA080 on the base workspace: what Falcon's own test data uses that falcon-airflow does not apply, each element
named with why (the rule's every element is tested in tests/unit/parsing/test_schema_coverage.py)."""

from __future__ import annotations

import re

from tests.unit.validation.conftest import EntityWorkspace

from falcon_airflow.issues import Level
from falcon_airflow.validation import validate_paths


def _subject(message: str) -> str:
    return re.split(r" (?:is|are) not applied", message)[0]


def test_the_base_workspace_is_told_what_is_not_applied(ws: EntityWorkspace) -> None:
    ws.validate()
    report = validate_paths([str(ws.root)], now=ws.now)
    found = sorted((issue.entity, _subject(issue.message)) for issue in report.issues
                   if issue.rule == "FA080")
    assert found == [
        ("mysql-db", "<jar> '/libs/mysql-connector.jar' of its <driver>"),
        ("mysql-db", "<properties>"),
        ("mysql-db", "<properties> of the write interface"),
        ("primary", '<location name="temp">'),
    ]
    assert {issue.level for issue in report.issues if issue.rule == "FA080"} == {Level.WARNING}
    assert report.valid


def test_what_is_applied_is_not_reported(ws: EntityWorkspace) -> None:
    ws.apply([("primary", '<location name="temp" path="/tmp"/>', ""),
              ("mysql", "/libs/mysql-connector.jar", "/libs/mariadb-java-client.jar")])
    ws.validate()
    report = validate_paths([str(ws.root)], now=ws.now)
    assert [_subject(issue.message) for issue in report.issues if issue.rule == "FA080"] == [
        "<properties> of the write interface", "<properties>"]
