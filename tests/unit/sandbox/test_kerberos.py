"""The secure sandbox's client configuration: krb5.conf, the Hadoop site files, the realm record."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ElementTree
from pathlib import Path

from falcon_airflow.sandbox.kerberos import (
    Realm,
    core_site,
    hdfs_site,
    krb5_conf,
    parse_kdc_line,
    realm_for,
    site_xml,
)


def test_the_kdc_line_gives_realm_and_port() -> None:
    log = "SLF4J: no binding\nKDC FALCON.SANDBOX 127.0.0.1:41393\nCLUSTER a hdfs://127.0.0.1:1\n"
    assert parse_kdc_line(log) == ("FALCON.SANDBOX", 41393)
    assert parse_kdc_line("SLF4J: no binding\n") is None


def test_krb5_conf_names_the_kdc_on_loopback_over_tcp_without_dns() -> None:
    text = krb5_conf("FALCON.SANDBOX", 41393)
    assert "default_realm = FALCON.SANDBOX" in text
    assert "kdc = 127.0.0.1:41393" in text
    assert "udp_preference_limit = 1" in text  # the KDC listens on TCP only
    assert "rdns = false" in text  # HTTP/127.0.0.1 stays HTTP/127.0.0.1
    assert "dns_lookup_kdc = false" in text


def test_hdfs_site_names_the_namenode_principal_sasl_and_every_namenode() -> None:
    properties = hdfs_site("R.EXAMPLE", {"a": (1001, 1002), "b": (2001, 2002)})
    assert properties["dfs.namenode.kerberos.principal"] == "hdfs/localhost@R.EXAMPLE"
    assert properties["dfs.data.transfer.protection"] == "authentication"
    assert properties["dfs.namenode.rpc-address.a"] == "127.0.0.1:1001"
    assert properties["dfs.namenode.http-address.b"] == "127.0.0.1:2002"
    assert core_site() == {"hadoop.security.authentication": "kerberos"}


def test_site_xml_is_hadoop_configuration_with_escaped_values() -> None:
    root = ElementTree.fromstring(site_xml({"x.y": "a<b&c", "z": "1"}))
    found = {item.findtext("name"): item.findtext("value") for item in root.iter("property")}
    assert found == {"x.y": "a<b&c", "z": "1"}


def test_the_realm_record_names_each_users_principal_and_keytab_and_round_trips(tmp_path: Path) -> None:
    realm = realm_for("FALCON.SANDBOX", 41393, tmp_path)
    assert realm.kdc == "127.0.0.1:41393"
    assert realm.krb5_conf == str(tmp_path / "krb5.conf")
    assert {user: (item.principal, item.keytab) for user, item in realm.keytabs.items()} == {
        user: (f"{user}@FALCON.SANDBOX", str(tmp_path / "keytabs" / f"{user}.keytab"))
        for user in ("airflow", "owner", "outsider")}
    assert Realm.from_json(json.loads(json.dumps(realm.as_json()))) == realm
