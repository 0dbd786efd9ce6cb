"""The secure sandbox: Kerberized HDFS refuses a client without a ticket (RPC and WebHDFS), lets the owner write and
read with its keytab (RPC, and WebHDFS through SPNEGO), and keeps the outsider out of the owner's folder.

The Kerberos client is Hadoop's own (apps/HdfsAs.java, in one JVM per user), so this checks the clusters, not the
product's client code. The secure sandbox is the session's (conftest's ``secure`` fixture).
"""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.error
import urllib.request
import uuid
from pathlib import Path

import pytest
from tests.integration.sandbox.conftest import hdfs_as

from falcon_airflow.sandbox.secure import SecureEndpoints

# A group of its own: its KDC and clusters share nothing with the plain sandbox, so the two may run on two workers.
pytestmark = [pytest.mark.sandbox, pytest.mark.xdist_group("sandbox-secure")]


def test_a_client_without_a_ticket_is_refused(secure: SecureEndpoints) -> None:
    webhdfs = secure.webhdfs("a")
    # Simple authentication (user.name) is not accepted any more: SPNEGO or nothing.
    for url in (f"{webhdfs}/user/owner?op=LISTSTATUS", f"{webhdfs}/user/owner?op=LISTSTATUS&user.name=owner"):
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(url, timeout=30)
        assert refused.value.code == 401
        assert refused.value.headers.get("WWW-Authenticate") == "Negotiate"

    rpc = f"list={secure.namenode('a')}/user"
    over_http = f"list=webhdfs://{secure.webhdfs('a').split('//', 1)[1].split('/', 1)[0]}/user"
    answers = hdfs_as(secure, None, rpc, over_http)
    assert answers[rpc].startswith("error ")
    assert "Client cannot authenticate via:[TOKEN, KERBEROS]" in answers[rpc]
    assert answers[over_http].startswith("error ")
    assert "Authentication required" in answers[over_http]


def test_the_owner_writes_and_reads_and_the_outsider_is_kept_out(secure: SecureEndpoints) -> None:
    namenode = secure.namenode("b")
    web = "webhdfs://" + secure.webhdfs("b").split("//", 1)[1].split("/", 1)[0]
    written = f"write={namenode}/user/owner/feed/part-0=owned-bytes"
    read_rpc = f"read={namenode}/user/owner/feed/part-0"
    read_web = f"read={web}/user/owner/feed/part-0"
    owner = hdfs_as(secure, "owner", written, read_rpc, read_web)
    assert owner == {written: "ok written", read_rpc: "ok owned-bytes", read_web: "ok owned-bytes"}

    listed = f"list={web}/user/owner"
    outsider = hdfs_as(secure, "outsider", read_rpc, listed)
    for op in (read_rpc, listed):
        assert outsider[op].startswith("error org.apache.hadoop.security.AccessControlException Permission denied: "
                                       "user=outsider"), outsider[op]


@pytest.fixture
def as_airflow(secure: SecureEndpoints, monkeypatch: pytest.MonkeyPatch) -> SecureEndpoints:
    """An Airflow worker's environment against the secure sandbox: its Hadoop configuration, krb5.conf and the
    Airflow service principal's keytab (Airflow's [kerberos] settings)."""
    airflow = secure.kerberos.keytabs["airflow"]
    monkeypatch.setenv("HADOOP_CONF_DIR", secure.hadoop_conf_dir)
    monkeypatch.setenv("KRB5_CONFIG", secure.kerberos.krb5_conf)
    monkeypatch.setenv("KRB5CCNAME", "FILE:/nonexistent")  # nothing from the machine's own ticket cache
    monkeypatch.setenv("AIRFLOW__KERBEROS__PRINCIPAL", airflow.principal)
    monkeypatch.setenv("AIRFLOW__KERBEROS__KEYTAB", airflow.keytab)
    return secure


def test_the_airflow_side_reaches_kerberized_hdfs_with_the_service_keytab(as_airflow: SecureEndpoints) -> None:
    from falcon_airflow.instances.storage import exists, write_flag

    namenode = as_airflow.namenode("a")
    assert exists(f"{namenode}/user/airflow")
    name = f"_SUCCESS-{uuid.uuid4().hex[:8]}"  # new on a sandbox reused across runs too
    assert not exists(f"{namenode}/user/airflow/{name}")
    flag = write_flag(f"{namenode}/user/airflow", name)  # a write: CREATE, then the datanode's redirect
    assert exists(flag)
    # HDFS permissions apply to the service principal too: the owner's folder is not its to read.
    from falcon_airflow.instances.storage import StorageError

    with pytest.raises(StorageError, match="Permission denied: user=airflow"):
        exists(f"{namenode}/user/owner/anything")


def test_the_airflow_principal_acts_for_the_owner_as_its_proxy_user(as_airflow: SecureEndpoints,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    from falcon_airflow.instances.storage import StorageError, exists, write_flag

    namenode = as_airflow.namenode("a")
    monkeypatch.setenv("HADOOP_PROXY_USER", "owner")  # hadoop.proxyuser.airflow.* lets airflow act for anyone
    name = f"_SUCCESS-{uuid.uuid4().hex[:8]}"
    flag = write_flag(f"{namenode}/user/owner", name)
    assert exists(flag)
    monkeypatch.setenv("HADOOP_PROXY_USER", "outsider")
    with pytest.raises(StorageError, match="Permission denied: user=outsider"):
        exists(flag)


def test_a_missing_keytab_or_principal_is_a_clear_error(as_airflow: SecureEndpoints,
                                                        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from falcon_airflow.instances.storage import StorageError, exists

    namenode = as_airflow.namenode("b")
    missing = tmp_path / "missing.keytab"
    monkeypatch.setenv("AIRFLOW__KERBEROS__KEYTAB", str(missing))
    with pytest.raises(StorageError, match=f"airflow@FALCON.SANDBOX \\(keytab {missing}\\): the keytab is missing"):
        exists(f"{namenode}/user")
    # A keytab without the principal's key: the outsider's, for the airflow principal.
    outsider = as_airflow.kerberos.keytabs["outsider"].keytab
    monkeypatch.setenv("AIRFLOW__KERBEROS__KEYTAB", outsider)
    with pytest.raises(StorageError, match=f"cannot obtain a Kerberos ticket for HTTP@127.0.0.1 as principal "
                                           f"airflow@FALCON.SANDBOX \\(keytab {outsider}\\)"):
        exists(f"{namenode}/user")
    monkeypatch.delenv("AIRFLOW__KERBEROS__PRINCIPAL")
    with pytest.raises(StorageError, match="set AIRFLOW__KERBEROS__PRINCIPAL"):
        exists(f"{namenode}/user")


def test_status_prints_the_realm_kdc_krb5_conf_keytabs_and_yarn(secure: SecureEndpoints) -> None:
    state = Path(secure.kerberos.krb5_conf).parent
    done = subprocess.run([sys.executable, "-m", "falcon_airflow.cli", "sandbox", "status", "--state", str(state)],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    printed = json.loads(done.stdout)
    kerberos = printed["kerberos"]
    # The Kerberized YARN: its ResourceManager (the address its yarn-site.xml gives clients), its keytab private.
    assert printed["yarn"] == secure.yarn and secure.yarn.startswith("localhost:")
    yarn_site = (Path(secure.hadoop_conf_dir) / "yarn-site.xml").read_text(encoding="utf-8")
    assert f"<value>{secure.yarn}</value>" in yarn_site and "<value>yarn/localhost@FALCON.SANDBOX</value>" in yarn_site
    assert (state / "keytabs" / "yarn.keytab").stat().st_mode & 0o777 == 0o600
    # The Kerberized metastore: its URI and principal, its keytab private.
    assert printed["metastore"] == secure.metastore and secure.metastore.startswith("thrift://127.0.0.1:")
    assert printed["metastore_principal"] == f"hive/127.0.0.1@{secure.kerberos.realm}"
    assert (state / "keytabs" / "hive.keytab").stat().st_mode & 0o777 == 0o600
    assert kerberos["realm"] == secure.kerberos.realm
    assert kerberos["kdc"].startswith("127.0.0.1:")
    assert Path(kerberos["krb5_conf"]).read_text(encoding="utf-8").count(kerberos["kdc"]) == 1
    assert {user: Path(item["keytab"]).stat().st_mode & 0o777 for user, item in kerberos["keytabs"].items()} == {
        "airflow": 0o600, "owner": 0o600, "outsider": 0o600}
