"""The Kerberos login of spark-submit: which file systems get delegation tokens, which login goes where."""

from __future__ import annotations

from pathlib import Path

import pytest

from falcon_airflow.instances.storage import StorageError
from falcon_airflow.provider.hooks.spark_kerberos import FILESYSTEMS_CONF, hadoop_filesystems, spark_kerberos

KERBEROS = {"hadoop.security.authentication": "kerberos"}


def test_every_hdfs_file_system_the_arguments_name_once_in_order() -> None:
    arguments = ["--source", "hdfs://nn-a:8020/data/x/2026", "--target=hdfs://nn-b:8020/data/x,hdfs://nn-a:8020/y",
                 "s3a://bucket/z", "webhdfs://web:9870/p", "/local/path", 3]
    assert hadoop_filesystems(arguments) == ["hdfs://nn-a:8020", "hdfs://nn-b:8020", "webhdfs://web:9870"]


def test_nothing_applies_without_kerberos(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AIRFLOW__KERBEROS__PRINCIPAL", raising=False)
    assert spark_kerberos("owner", ["hdfs://nn:8020/x"], {"hadoop.security.authentication": "simple"}) is None
    assert spark_kerberos("owner", ["hdfs://nn:8020/x"], {}) is None


def test_a_proxy_user_takes_the_ticket_cache_and_no_principal(monkeypatch: pytest.MonkeyPatch,
                                                                tmp_path: Path) -> None:
    keytab = tmp_path / "airflow.keytab"
    keytab.write_bytes(b"\x05\x02")
    monkeypatch.setenv("AIRFLOW__KERBEROS__PRINCIPAL", "airflow@REALM")
    monkeypatch.setenv("AIRFLOW__KERBEROS__KEYTAB", str(keytab))
    monkeypatch.setenv("KRB5_CONFIG", "/etc/falcon/krb5.conf")
    monkeypatch.setenv("SPARK_SUBMIT_OPTS", "-Xss4m")
    login = spark_kerberos("owner", ["hdfs://a:1/x", "hdfs://b:2/y"], KERBEROS)
    assert login is not None
    assert login.principal_and_keytab == (None, None)
    assert login.submit_conf() == {FILESYSTEMS_CONF: "hdfs://a:1,hdfs://b:2"}
    assert login.submit_environment(tmp_path / "cc") == {
        "KRB5CCNAME": f"FILE:{tmp_path / 'cc'}",
        "SPARK_SUBMIT_OPTS": "-Xss4m -Djava.security.krb5.conf=/etc/falcon/krb5.conf"}
    # Without a proxy user (the deployment's own identity): --principal/--keytab, so Spark renews its login.
    own = spark_kerberos(None, [], KERBEROS)
    assert own is not None and own.principal_and_keytab == ("airflow@REALM", str(keytab))
    assert own.submit_conf() == {}


def test_a_missing_setting_or_keytab_names_both(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("AIRFLOW__KERBEROS__PRINCIPAL", "airflow@REALM")
    monkeypatch.delenv("AIRFLOW__KERBEROS__KEYTAB", raising=False)
    with pytest.raises(StorageError, match=r"set AIRFLOW__KERBEROS__PRINCIPAL .* and AIRFLOW__KERBEROS__KEYTAB"):
        spark_kerberos("owner", [], KERBEROS)
    missing = tmp_path / "none.keytab"
    monkeypatch.setenv("AIRFLOW__KERBEROS__KEYTAB", str(missing))
    with pytest.raises(StorageError, match=f"as principal airflow@REALM \\(keytab {missing}\\): the keytab is "
                                           "missing or unreadable"):
        spark_kerberos("owner", [], KERBEROS)
