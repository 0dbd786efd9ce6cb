"""The secure sandbox's record: what status prints, and how a state folder is told secure."""

from __future__ import annotations

import json
from pathlib import Path

from falcon_airflow.sandbox import HdfsEndpoint, Sandbox
from falcon_airflow.sandbox.kerberos import realm_for
from falcon_airflow.sandbox.secure import SecureEndpoints, SecureSandbox, is_secure


def _endpoints(state: Path) -> SecureEndpoints:
    return SecureEndpoints(hdfs=(HdfsEndpoint(name="a", namenode="hdfs://127.0.0.1:1",
                                              webhdfs="http://127.0.0.1:2/webhdfs/v1"),),
                           hadoop_conf_dir=str(state / "hadoop-conf"),
                           kerberos=realm_for("FALCON.SANDBOX", 88, state))


def test_the_endpoints_name_realm_kdc_krb5_conf_and_keytabs_and_round_trip(tmp_path: Path) -> None:
    endpoints = _endpoints(tmp_path)
    shown = endpoints.as_json()
    assert shown["secure"] is True
    assert shown["kerberos"]["realm"] == "FALCON.SANDBOX"
    assert shown["kerberos"]["kdc"] == "127.0.0.1:88"
    assert shown["kerberos"]["krb5_conf"] == str(tmp_path / "krb5.conf")
    assert shown["kerberos"]["keytabs"]["owner"] == {"principal": "owner@FALCON.SANDBOX",
                                                     "keytab": str(tmp_path / "keytabs" / "owner.keytab")}
    assert SecureEndpoints.from_json(json.loads(json.dumps(shown))) == endpoints
    assert endpoints.namenode("a") == "hdfs://127.0.0.1:1"


def test_a_state_folder_is_secure_only_when_its_record_says_so(tmp_path: Path) -> None:
    assert not is_secure(tmp_path)  # no record
    record = {"services": [{"name": "hdfs", "pid": 2 ** 22 + 7, "log": str(tmp_path / "logs" / "hdfs.log")}],
              "endpoints": _endpoints(tmp_path).as_json()}
    (tmp_path / "sandbox.json").write_text(json.dumps(record), encoding="utf-8")
    assert is_secure(tmp_path)
    loaded = SecureSandbox.load(tmp_path)
    assert loaded.endpoints == _endpoints(tmp_path)
    assert loaded.dead_services() == ["hdfs"]
    # The plain sandbox reads the same record's processes, so `sandbox down` stops either kind.
    assert [item.name for item in Sandbox.load(tmp_path).services] == ["hdfs"]
    (tmp_path / "sandbox.json").write_text(json.dumps({"services": [], "endpoints": {"hdfs": []}}),
                                           encoding="utf-8")
    assert not is_secure(tmp_path)
