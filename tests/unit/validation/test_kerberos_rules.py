"""Kerberos rules (FA090, FA091 always; FA092 with --check-environment): each fires on a broken Kerberized cluster
and stays silent on its near miss; a cluster without Kerberos properties is not concerned."""

from __future__ import annotations

from pathlib import Path

import pytest

from falcon_airflow.issues import Level

PROPERTY = '<property name="region" value="us-east"/>'
ROOT = '<cluster name="primary"'
REGISTRY = 'type="registry"'


def props(**settings: str) -> str:
    added = (f'\n        <property name="{name}" value="{value}"/>' for name, value in settings.items())
    return PROPERTY + "".join(added)


KERBEROS = {"hadoop.security.authentication": "kerberos"}
NAMENODE = {"dfs.namenode.kerberos.principal": "nn/_HOST@EXAMPLE.COM"}
METASTORE = {"hive.metastore.kerberos.principal": "hive/_HOST@EXAMPLE.COM", "hive.metastore.sasl.enabled": "true"}

FAILING = [
    pytest.param("FA090", {**KERBEROS, **METASTORE}, ROOT,
                 "cluster 'primary' is Kerberized (hadoop.security.authentication=kerberos, "
                 "hive.metastore.kerberos.principal, hive.metastore.sasl.enabled=true) but has no property "
                 "dfs.namenode.kerberos.principal", id="FA090-no-namenode-principal"),
    pytest.param("FA090", {**KERBEROS, "dfs.namenode.kerberos.principal": "nn host@EXAMPLE", **METASTORE},
                 'name="dfs.namenode.kerberos.principal"',
                 "property dfs.namenode.kerberos.principal of cluster 'primary' is not a Kerberos principal",
                 id="FA090-not-a-principal"),
    pytest.param("FA091", {**NAMENODE, "hive.metastore.sasl.enabled": "true"}, 'name="hive.metastore.sasl.enabled"',
                 "cluster 'primary' says hive.metastore.sasl.enabled=true but has no property "
                 "hive.metastore.kerberos.principal", id="FA091-sasl-without-principal"),
    pytest.param("FA091", {**KERBEROS, **NAMENODE}, REGISTRY,
                 "cluster 'primary' is Kerberized (hadoop.security.authentication=kerberos, "
                 "dfs.namenode.kerberos.principal) and has a registry interface, but no property "
                 "hive.metastore.kerberos.principal", id="FA091-registry-without-principal"),
]


@pytest.mark.parametrize(("rule", "settings", "marker", "fragment"), FAILING)
def test_a_broken_kerberized_cluster_reports_the_rule(ws, rule, settings, marker, fragment):
    report = ws.apply([("primary", PROPERTY, props(**settings))]).validate()
    ws.assert_reported(report, rule, "primary", marker, fragment)
    assert not report.valid


def test_the_metastore_principal_without_sasl_is_a_warning(ws):
    settings = {**KERBEROS, **NAMENODE, "hive.metastore.kerberos.principal": "hive/_HOST@EXAMPLE.COM"}
    report = ws.apply([("primary", PROPERTY, props(**settings))]).validate()
    ws.assert_reported(report, "FA091", "primary", 'name="hive.metastore.kerberos.principal"',
                       "names hive.metastore.kerberos.principal but not hive.metastore.sasl.enabled=true",
                       level=Level.WARNING)
    assert report.valid


def test_a_complete_kerberized_cluster_and_a_plain_one_pass(ws):
    ws.assert_clean(ws.validate())  # no Kerberos property: nothing to ask
    settings = {**KERBEROS, **NAMENODE, **METASTORE, "yarn.resourcemanager.principal": "rm/_HOST@EXAMPLE.COM"}
    ws.assert_clean(ws.apply([("primary", PROPERTY, props(**settings))]).validate())


def test_check_environment_needs_the_service_principal_and_a_readable_keytab(ws, monkeypatch, tmp_path: Path):
    settings = {**KERBEROS, **NAMENODE, **METASTORE}
    ws.apply([("primary", PROPERTY, props(**settings))])
    monkeypatch.delenv("AIRFLOW__KERBEROS__PRINCIPAL", raising=False)
    monkeypatch.delenv("AIRFLOW__KERBEROS__KEYTAB", raising=False)
    ws.assert_clean(ws.validate())  # opt-in only
    report = ws.validate(check_environment=True)
    (issue,) = [item for item in report.issues if item.rule == "FA092"]
    assert "cluster 'primary' is Kerberized" in issue.message and "set AIRFLOW__KERBEROS__PRINCIPAL" in issue.message
    missing = tmp_path / "airflow.keytab"
    monkeypatch.setenv("AIRFLOW__KERBEROS__PRINCIPAL", "airflow@EXAMPLE.COM")
    monkeypatch.setenv("AIRFLOW__KERBEROS__KEYTAB", str(missing))
    report = ws.validate(check_environment=True)
    (issue,) = [item for item in report.issues if item.rule == "FA092"]
    assert (f"cannot log in to the Kerberized cluster as principal airflow@EXAMPLE.COM (keytab {missing}): the "
            "keytab is missing or unreadable") in issue.message
