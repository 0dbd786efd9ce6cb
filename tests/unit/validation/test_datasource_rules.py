"""Datasource rules (D2, FA007): broken datasources report the rule, near misses pass."""

from __future__ import annotations

import pytest

TEXT = '<credential type="password-text">'
FILE = '<credential type="password-file">'
ALIAS = '<credential type="password-alias">'
FETCH_SIZE = '<property name="fetchSize" value="1000"/>'
USE_SSL = '<property name="useSSL" value="true"/>'

# The XSD already requires userName and exactly one secret element; D2 catches a type that names another secret.
FAILING = [
    pytest.param("D2", [("mysql", TEXT, ALIAS)], (ALIAS, 1),
                 "credential of the readonly interface of datasource 'mysql-db' has type 'password-alias', which "
                 "needs userName and passwordAlias (alias, providerPath)", id="D2-readonly-alias-without-alias"),
    pytest.param("D2", [("mysql", FILE, TEXT)], (TEXT, 2),
                 "credential of the write interface of datasource 'mysql-db' has type 'password-text', which needs "
                 "userName and passwordText", id="D2-write-text-without-text"),
    pytest.param("D2", [("mysql", ALIAS, FILE)], (FILE, 2),
                 "default credential of datasource 'mysql-db' has type 'password-file', which needs userName and "
                 "passwordFile", id="D2-default-file-without-file"),
    pytest.param("FA007", [("mysql", FETCH_SIZE, FETCH_SIZE + '\n        <property name="fetchSize" value="50"/>')],
                 ('name="fetchSize"', 2), "property 'fetchSize' is defined more than once in datasource 'mysql-db'",
                 id="FA007-duplicate-name"),
    pytest.param("FA007", [("mysql", USE_SSL, USE_SSL + '\n                <property name=" " value="x"/>')],
                 'name=" "', "property name must not be blank in the write interface of datasource 'mysql-db'",
                 id="FA007-blank-interface-property"),
]


@pytest.mark.parametrize(("rule", "edits", "marker", "fragment"), FAILING)
def test_broken_datasource_reports_the_rule(ws, rule, edits, marker, fragment):
    report = ws.apply(edits).validate()
    ws.assert_reported(report, rule, "mysql", marker, fragment)
    assert not report.valid


PASSING = [
    # Falcon checked for missing tags (null), not for empty text.
    pytest.param("D2", [("mysql", "<userName>reader</userName>", "<userName></userName>")], id="D2-empty-user-name"),
    pytest.param("D2", [("mysql", "<passwordText>secret</passwordText>", "<passwordText/>")],
                 id="D2-empty-password-text"),
    pytest.param("FA007", [("mysql", USE_SSL, '<property name="fetchSize" value="10"/>')],
                 id="FA007-same-name-in-another-scope"),
    pytest.param("FA007", [("mysql", FETCH_SIZE, '<property name="fetchSize" value=""/>')], id="FA007-empty-value"),
]


@pytest.mark.parametrize(("rule", "edits"), PASSING)
def test_near_miss_datasource_is_clean(ws, rule, edits):
    report = ws.apply(edits).validate()
    assert rule not in ws.rules(report)
    ws.assert_clean(report)
