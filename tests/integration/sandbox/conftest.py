"""One sandbox of real services (two HDFS clusters, S3, a Hive metastore, Spark standalone) per test session.

``FALCON_SANDBOX_STATE=DIR`` uses a sandbox already started with ``falcon-airflow sandbox up --state DIR`` (and
leaves it running) instead of starting one.
"""

from __future__ import annotations

import json
import os
import subprocess
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.integration.airflow.conftest import airflow_db, entities  # noqa: F401  (fixtures used here too)
from tests.integration.airflow.test_lineage import event_log  # noqa: F401

from falcon_airflow.jvm import jar_group
from falcon_airflow.sandbox import Endpoints, Sandbox
from falcon_airflow.sandbox.secure import SecureEndpoints, SecureSandbox

APPS = Path(__file__).resolve().parent / "apps"


@pytest.fixture(scope="session")
def sandbox(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Endpoints]:
    given = os.environ.get("FALCON_SANDBOX_STATE")
    box = Sandbox.load(Path(given)) if given else Sandbox(tmp_path_factory.mktemp("sandbox"))
    endpoints = box.endpoints if given else box.start()
    assert endpoints is not None
    previous = os.environ.get("HADOOP_CONF_DIR")
    os.environ["HADOOP_CONF_DIR"] = endpoints.hadoop_conf_dir  # Airflow-side hdfs:// goes through WebHDFS
    try:
        yield endpoints
    finally:
        if previous is None:
            os.environ.pop("HADOOP_CONF_DIR", None)
        else:
            os.environ["HADOOP_CONF_DIR"] = previous
        if not given:
            box.stop()


@pytest.fixture(scope="session")
def secure(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SecureEndpoints]:
    """The secure sandbox (KDC, two Kerberized HDFS clusters), one for every secure test of the session (they run in
    the xdist group ``sandbox-secure``, on one worker). ``FALCON_SECURE_SANDBOX_STATE=DIR`` uses one already started
    with ``falcon-airflow sandbox up --secure --state DIR`` (and leaves it running) instead of starting one."""
    given = os.environ.get("FALCON_SECURE_SANDBOX_STATE")
    box = SecureSandbox.load(Path(given)) if given else SecureSandbox(tmp_path_factory.mktemp("secure-sandbox"))
    endpoints = box.endpoints if given else box.start()
    assert endpoints is not None
    try:
        yield endpoints
    finally:
        if not given:
            box.stop()


def hdfs_as(endpoints: SecureEndpoints, user: str | None, *ops: str) -> dict[str, str]:
    """Run ``ops`` (apps/HdfsAs.java) as ``user`` of the secure sandbox, logged in from its keytab (``"hdfs"``: the
    namenodes' principal, HDFS's superuser; ``None``: no Kerberos credentials): op -> its line."""
    if user is None:
        login = ["-", "-"]
    elif user == "hdfs":
        login = [endpoints.kerberos.hdfs_principal, str(Path(endpoints.kerberos.krb5_conf).parent / "keytabs" /
                                                        "hdfs.keytab")]
    else:
        entry = endpoints.kerberos.keytabs[user]
        login = [entry.principal, entry.keytab]
    jars = jar_group("minicluster")[0].parent
    done = subprocess.run(
        ["java", f"-Djava.security.krb5.conf={endpoints.kerberos.krb5_conf}", "-cp",
         f"{endpoints.hadoop_conf_dir}:{jars / '*'}", str(APPS / "HdfsAs.java"), *login, *ops],
        capture_output=True, text=True, timeout=120, check=False,
        env={**os.environ, "KRB5CCNAME": "FILE:/nonexistent"})  # never a ticket cache of the machine's user
    assert done.returncode == 0, done.stderr[-3000:]
    answers = {}
    for line in done.stdout.splitlines():
        status, op, *rest = line.split(" ", 2)
        answers[op] = f"{status} {rest[0] if rest else ''}"
    assert set(answers) == set(ops), done.stdout + done.stderr[-3000:]
    return answers


class WebHdfs:
    """Just enough of the WebHDFS REST API to seed and check data on a sandbox cluster, independently of the
    product's own file-system code."""

    def __init__(self, base: str) -> None:
        self.base = base.rstrip("/")

    def _call(self, method: str, path: str, op: str, data: bytes | None = None, **params: str) -> Any:
        query = "&".join([f"op={op}", "user.name=falcon", *(f"{key}={value}" for key, value in params.items())])
        url = f"{self.base}{path}?{query}"
        request = urllib.request.Request(url, method=method, data=data)
        with urllib.request.urlopen(request, timeout=60) as response:  # redirects to the datanode are followed
            return response.read()

    def put(self, path: str, content: bytes) -> None:
        # CREATE answers with a redirect to a datanode, which takes the bytes
        request = urllib.request.Request(f"{self.base}{path}?op=CREATE&overwrite=true&user.name=falcon",
                                         method="PUT")
        opener = urllib.request.build_opener(_NoRedirect())
        with opener.open(request, timeout=60) as response:
            location = response.headers["Location"]
        with urllib.request.urlopen(urllib.request.Request(location, method="PUT", data=content),
                                    timeout=60) as created:
            created.read()

    def read(self, path: str) -> bytes:
        data: bytes = self._call("GET", path, "OPEN")
        return data

    def exists(self, path: str) -> bool:
        try:
            self._call("GET", path, "GETFILESTATUS")
        except urllib.error.HTTPError as problem:
            if problem.code == 404:
                return False
            raise
        return True

    def files(self, path: str) -> dict[str, bytes]:
        """Every file below ``path`` (relative name -> content)."""
        found: dict[str, bytes] = {}
        listing = json.loads(self._call("GET", path, "LISTSTATUS"))["FileStatuses"]["FileStatus"]
        for item in listing:
            child = f"{path.rstrip('/')}/{item['pathSuffix']}"
            if item["type"] == "DIRECTORY":
                found.update({f"{item['pathSuffix']}/{name}": data for name, data in self.files(child).items()})
            else:
                found[item["pathSuffix"]] = self.read(child)
        return found

    def checksum(self, path: str) -> str:
        answer = json.loads(self._call("GET", path, "GETFILECHECKSUM"))
        return str(answer["FileChecksum"]["bytes"])


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None

    def http_error_307(self, req: Any, fp: Any, code: int, msg: str, headers: Any) -> Any:
        return fp


class S3:
    """Objects of the sandbox bucket over plain HTTP. The sandbox's server checks no signature, but it needs the
    access key in an Authorization header to treat a request as the owner's (objects written through S3A are
    private)."""

    def __init__(self, endpoint: str, bucket: str, access_key: str) -> None:
        self.base = f"{endpoint.rstrip('/')}/{bucket}"
        self.headers = {"Authorization": f"AWS4-HMAC-SHA256 Credential={access_key}/20260101/us-east-1/s3/"
                                         "aws4_request, SignedHeaders=host, Signature=0"}

    def _open(self, url: str, method: str = "GET", data: bytes | None = None) -> bytes:
        request = urllib.request.Request(url, method=method, data=data, headers=self.headers)
        with urllib.request.urlopen(request, timeout=60) as response:
            content: bytes = response.read()
            return content

    def put(self, key: str, content: bytes) -> None:
        self._open(f"{self.base}/{key.lstrip('/')}", "PUT", content)

    def read(self, key: str) -> bytes:
        return self._open(f"{self.base}/{key.lstrip('/')}")

    def keys(self, prefix: str) -> list[str]:
        import xml.etree.ElementTree as ElementTree

        root = ElementTree.fromstring(self._open(f"{self.base}?list-type=2&prefix={prefix.lstrip('/')}"))
        return sorted(element.text or "" for element in root.iter() if element.tag.endswith("Key"))
