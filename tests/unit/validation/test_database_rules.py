"""FA011: an imported or exported feed whose datasource cannot be used here is an error, never a silent skip."""

from __future__ import annotations

import pytest

DRIVER = "<clazz>com.mysql.jdbc.Driver</clazz>"
READ = '<interface type="readonly" endpoint="jdbc:mysql://db.east.example:3306/shop">'

FAILING = [
    pytest.param([("mysql", DRIVER, "<clazz>oracle.jdbc.OracleDriver</clazz>")],
                 "driver class 'oracle.jdbc.OracleDriver' is not one falcon-airflow ships", 2,
                 id="unknown-driver-class"),
    pytest.param([("mysql", 'type="mysql"', 'type="teradata"')],
                 "datasource type 'teradata' does not fit driver class 'com.mysql.jdbc.Driver'", 2,
                 id="unsupported-database"),
    pytest.param([("mysql", READ, '<interface type="readonly" endpoint="jdbc:postgresql://db:5432/shop">')],
                 "is a jdbc:postgresql: URL, which driver class 'com.mysql.jdbc.Driver' does not accept", 1,
                 id="url-of-another-database"),
    pytest.param([("mysql", READ, '<interface type="readonly" endpoint="mysql://db.east.example:3306/shop">')],
                 "is not a JDBC URL", 1, id="not-a-jdbc-url"),
]


@pytest.mark.parametrize(("edits", "fragment", "count"), FAILING)
def test_unusable_datasource_is_an_error(ws, edits, fragment, count):
    report = ws.apply(edits).validate()
    found = [issue for issue in report.issues if issue.rule == "FA011"]
    assert len(found) == count, ws.describe(report)
    assert all(issue.entity == "customers" and issue.is_error for issue in found)
    assert fragment in found[0].message
    assert not report.valid


def test_missing_interface_for_the_direction(ws):
    report = ws.apply([("mysql", '<interface type="write" endpoint="jdbc:mysql://db.east.example:3306/shop">',
                        '<interface type="readonly" endpoint="jdbc:mysql://db.east.example:3306/shop">')]).validate()
    found = [issue for issue in report.issues if issue.rule == "FA011"]
    assert [issue.message for issue in found] == [
        "export of feed 'customers' on cluster 'primary' needs the write interface of datasource 'mysql-db', "
        "which declares none"], ws.describe(report)


PASSING = [
    pytest.param([("mysql", DRIVER, "<clazz>org.mariadb.jdbc.Driver</clazz>")], id="mariadb-driver"),
    pytest.param([("mysql", DRIVER, "<clazz>org.postgresql.Driver</clazz>"), ("mysql", 'type="mysql"',
                  'type="postgres"'),
                  ("mysql", READ, '<interface type="readonly" endpoint="jdbc:postgresql://db:5432/shop">'),
                  ("mysql", '<interface type="write" endpoint="jdbc:mysql://db.east.example:3306/shop">',
                   '<interface type="write" endpoint="jdbc:postgresql://db/shop">')], id="postgres"),
    pytest.param([("mysql", 'type="mysql"', 'type="generic"')], id="generic-type"),
]


@pytest.mark.parametrize("edits", PASSING)
def test_usable_datasource_is_clean(ws, edits):
    report = ws.apply(edits).validate()
    assert "FA011" not in ws.rules(report), ws.describe(report)
    ws.assert_clean(report)
