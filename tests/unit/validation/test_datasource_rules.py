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


# -- FA040-FA042: which secrets a datasource may name ([falcon] datasource_connections, datasource_credential_roots;
# the tests' deployment allows /secure, see conftest.CREDENTIAL_SETTINGS) -------------------------------------------

ALIAS_LINE = "<passwordAlias>"
SHOP_ADMIN = "<alias>shop.admin</alias>"
KEYSTORE = "<providerPath>jceks://hdfs/secure/shop.jceks</providerPath>"
WRITER_FILE = "<passwordFile>/secure/writer.password</passwordFile>"
READONLY = '<interface type="readonly" endpoint="jdbc:mysql://db.east.example:3306/shop">'

SECRET_REFUSED = [
    pytest.param("FA040", [("mysql", KEYSTORE, "<providerPath>jceks://file/etc/security/all.jceks</providerPath>")],
                 ALIAS_LINE, "is not under a folder [falcon] datasource_credential_roots = '/secure' allows",
                 id="FA040-keystore-outside-the-roots"),
    pytest.param("FA040", [("mysql", KEYSTORE, "<providerPath>jceks://hdfs/secure/../etc/all.jceks</providerPath>")],
                 ALIAS_LINE, "goes up with '..'", id="FA040-keystore-dot-dot"),
    pytest.param("FA040", [("mysql", SHOP_ADMIN, "<alias>airflow_db</alias>"),
                           ("mysql", KEYSTORE, "<providerPath>user:///</providerPath>")],
                 ALIAS_LINE, "not an Airflow connection [falcon] datasource_connections = 'falcon_datasource_*'",
                 id="FA040-metadata-db-connection"),
    pytest.param("FA041", [("mysql", WRITER_FILE, "<passwordFile>/home/airflow/airflow.cfg</passwordFile>")],
                 FILE, "'/home/airflow/airflow.cfg' is not under a folder [falcon] datasource_credential_roots",
                 id="FA041-worker-config"),
    pytest.param("FA041", [("mysql", WRITER_FILE, "<passwordFile>/secure/../etc/shadow</passwordFile>")],
                 FILE, "goes up with '..'", id="FA041-dot-dot"),
    pytest.param("FA041", [("mysql", WRITER_FILE, "<passwordFile>/secure/%2e%2e/etc/shadow</passwordFile>")],
                 FILE, "goes up with '..'", id="FA041-encoded-dot-dot"),
    pytest.param("FA041", [("mysql", WRITER_FILE, "<passwordFile>/securex/writer.password</passwordFile>")],
                 FILE, "is not under a folder", id="FA041-sibling-prefix"),
    pytest.param("FA042", [("mysql", READONLY,
                            READONLY.replace("//db.east", "//reader:Pa55word@db.east"))],
                 READONLY.split(":3306")[0].split(" endpoint")[0], "carries user-info with a password",
                 id="FA042-userinfo"),
    pytest.param("FA042", [("mysql", READONLY, READONLY.replace("/shop", "/shop?user=reader&amp;password=Pa55word"))],
                 '<interface type="readonly"', "carries option 'password'", id="FA042-query-password"),
    pytest.param("FA042", [("mysql", READONLY, READONLY.replace("/shop", "/shop?trustStorePassword=Pa55word"))],
                 '<interface type="readonly"', "carries option 'trustStorePassword'", id="FA042-store-password"),
]


@pytest.mark.parametrize(("rule", "edits", "marker", "fragment"), SECRET_REFUSED)
def test_a_secret_the_deployment_does_not_allow_is_refused(ws, rule, edits, marker, fragment):
    report = ws.apply(edits).validate()
    issue = ws.assert_reported(report, rule, "mysql", marker, fragment)
    assert "Pa55word" not in issue.message
    assert not report.valid


SECRET_ALLOWED = [
    pytest.param([("mysql", SHOP_ADMIN, "<alias>falcon_datasource_shop</alias>"),
                  ("mysql", KEYSTORE, "<providerPath>jceks://file/etc/security/all.jceks</providerPath>")],
                 id="FA040-allowed-connection-whatever-the-keystore"),
    pytest.param([("mysql", KEYSTORE, "<providerPath>localjceks://file/secure/shop.jceks</providerPath>")],
                 id="FA040-keystore-under-a-root"),
    pytest.param([("mysql", WRITER_FILE, "<passwordFile>hdfs://nn.east.example:8020/secure/w.pw</passwordFile>")],
                 id="FA041-qualified-path-under-a-bare-root"),
    pytest.param([("mysql", READONLY, READONLY.replace("//db.east", "//reader@db.east"))],
                 id="FA042-user-name-alone"),
]


@pytest.mark.parametrize("edits", SECRET_ALLOWED)
def test_a_secret_within_the_allow_lists_is_clean(ws, edits):
    ws.assert_clean(ws.apply(edits).validate())


def test_another_deployment_decides_otherwise(ws, monkeypatch):
    monkeypatch.setenv("AIRFLOW__FALCON__DATASOURCE_CREDENTIAL_ROOTS", "")
    monkeypatch.setenv("AIRFLOW__FALCON__DATASOURCE_CONNECTIONS", "shop.*")
    report = ws.validate()
    ws.assert_reported(report, "FA041", "mysql", FILE, "datasource_credential_roots is not set")
    assert "FA040" not in ws.rules(report)  # shop.admin is a connection this deployment allows
