"""The stock Apache Falcon 0.9 CLI against Falcon's server inside a real Airflow api-server
(``-url http://127.0.0.1:<port>/falcon``): its own authentication handshake, ``admin -version``, ``-stack`` and
``-status`` printing what Falcon's CLI printed; refused requests (no credentials, a tampered, foreign or expired
cookie, a bad Airflow token) answered 401; Airflow's own tokens accepted; with ``[falcon] authentication = airflow``
the stock CLI's handshake is refused. Everything it did, and everything refused, is in the audit trail."""

from __future__ import annotations

import configparser
import json
import os
import pwd
import re
import urllib.error
import urllib.request
from importlib.metadata import version as installed_version
from typing import Any

import pytest
from tests.integration.operate.harness import AirflowServer

from falcon_airflow import __version__
from falcon_airflow.server import authentication as auth
from falcon_airflow.server.configuration import MappingConfig

from .conftest import StockCli

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("airflow-falcon-server")]

# the user the stock client names in its handshake: Java's user.name, the operating system account
OS_USER = pwd.getpwuid(os.getuid()).pw_name
VERSION_LINE = re.compile(r"^Falcon server build version: (\{.*\})$", re.MULTILINE)


def falcon_url(server: AirflowServer) -> str:
    return f"{server.url}/falcon"


def audit(server: AirflowServer) -> list[dict[str, Any]]:
    path = server.home.parent / "state" / "audit.log"
    return [json.loads(line) for line in path.read_text().splitlines()]


def call(server: AirflowServer, path: str, *, method: str = "GET", headers: dict[str, str] | None = None,
         data: bytes | None = None) -> tuple[int, dict[str, str], list[tuple[str, str]], str]:
    """(status, headers by lower-case name, the raw header list as sent, body)."""
    request = urllib.request.Request(f"{server.url}{path}", method=method, headers=headers or {}, data=data)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            raw = list(response.getheaders())
            return response.status, {k.lower(): v for k, v in raw}, raw, response.read().decode()
    except urllib.error.HTTPError as refused:
        raw = list(refused.headers.items())
        return refused.code, {k.lower(): v for k, v in raw}, raw, refused.read().decode()


def cookie_settings(server: AirflowServer) -> auth.AuthenticationSettings:
    """The cookie key as any api-server of this deployment derives it: from the home's [api_auth] jwt_secret."""
    parser = configparser.RawConfigParser(interpolation=None)
    parser.read(server.home / "airflow.cfg")
    jwt_secret = parser.get("api_auth", "jwt_secret")
    assert jwt_secret, "airflow db migrate writes a random jwt_secret into a new home's airflow.cfg"
    return auth.AuthenticationSettings.from_config(MappingConfig({
        "falcon": {"authentication": "simple"}, "api_auth": {"jwt_secret": jwt_secret}}).get)


def test_admin_version_through_the_stock_cli(simple_server: AirflowServer, stock_cli: StockCli) -> None:
    done = stock_cli("admin", "-version", url=falcon_url(simple_server))
    assert done.returncode == 0, done.stdout + done.stderr
    printed = VERSION_LINE.search(done.stdout)
    assert printed, done.stdout
    properties = {item["key"]: item["value"] for item in json.loads(printed.group(1))["properties"]}
    assert properties == {"Version": __version__, "Mode": "embedded",
                          "Airflow": installed_version("apache-airflow"), "authentication": "simple",
                          "safemode": "false"}
    # the CLI authenticated itself with the OPTIONS handshake, as its operating system user
    lines = [line for line in audit(simple_server) if line.get("action") == "version"]
    assert (lines[-1]["user"], lines[-1]["result"]) == (OS_USER, "SUCCEEDED")


def test_admin_stack_and_status_through_the_stock_cli(simple_server: AirflowServer, stock_cli: StockCli) -> None:
    done = stock_cli("admin", "-stack", url=falcon_url(simple_server))
    assert done.returncode == 0, done.stdout + done.stderr
    assert re.search(r"^MainThread\nState: \S", done.stdout, re.MULTILINE), done.stdout[:2000]
    # the request's own frames and the api-server's serving loop, one frame a line as Falcon printed them
    assert re.search(r"^falcon_airflow\.server\.resources\.admin\.stack_dump\(admin\.py:\d+\)$", done.stdout,
                     re.MULTILINE), done.stdout[:3000]
    assert re.search(r"^uvicorn\.\S+\(\w+\.py:\d+\)$", done.stdout, re.MULTILINE), done.stdout[:3000]
    status = stock_cli("admin", "-status", url=falcon_url(simple_server))
    assert status.returncode == 0, status.stdout + status.stderr
    assert status.stdout.strip() == f"Falcon server is running (on {falcon_url(simple_server)})"


def test_unauthenticated_and_tampered_requests_are_refused(simple_server: AirflowServer) -> None:
    status, headers, _, body = call(simple_server, "/falcon/api/admin/version")
    assert status == 401 and "PseudoAuth" in headers["www-authenticate"]
    assert "<message>Authentication required</message>" in body

    # the handshake, as hadoop-auth's client makes it: the cookie header spelled as Java's client looks it up
    status, headers, raw, _ = call(simple_server, "/falcon/api/options?user.name=tester", method="OPTIONS")
    assert status == 200
    [cookie_header] = [value for name, value in raw if name == "Set-Cookie"]
    cookie = re.match(r'hadoop\.auth=("u=tester&p=tester&t=simple&e=\d+&s=[^"]+")', cookie_header)
    assert cookie, cookie_header
    assert "Path=/falcon" in cookie_header and "HttpOnly" in cookie_header
    status, _, _, body = call(simple_server, "/falcon/api/admin/version",
                              headers={"Cookie": f"hadoop.auth={cookie.group(1)}", "Accept": "application/json"})
    assert status == 200 and '"safemode"' in body

    forged = cookie.group(1).replace("u=tester&p=tester", "u=admin&p=admin")
    status, headers, _, body = call(simple_server, "/falcon/api/admin/version",
                                    headers={"Cookie": f"hadoop.auth={forged}"})
    assert status == 401 and "Invalid signature" in body
    assert headers["set-cookie"].startswith("hadoop.auth=;")

    # the deployment's key, derived from its jwt_secret: a cookie signed with it holds, an expired one does not
    settings = cookie_settings(simple_server)
    _, fresh = auth.issue(settings, "other-node-user")
    status, _, _, _ = call(simple_server, "/falcon/api/admin/version", headers={"Cookie": f'hadoop.auth="{fresh}"'})
    assert status == 200
    _, stale = auth.issue(settings, "tester", now=1_000_000.0)
    status, _, _, body = call(simple_server, "/falcon/api/admin/version", headers={"Cookie": f'hadoop.auth="{stale}"'})
    assert status == 401 and "AuthenticationToken expired" in body
    other = auth.AuthenticationSettings("simple", b"not-this-deployments-key")
    _, foreign = auth.issue(other, "tester")
    status, _, _, body = call(simple_server, "/falcon/api/admin/version",
                              headers={"Cookie": f'hadoop.auth="{foreign}"'})
    assert status == 401 and "Invalid signature" in body

    refused = [line for line in audit(simple_server) if line["result"] == "UNAUTHENTICATED"]
    assert [line["reason"] for line in refused][-4:] == [
        "Authentication required", "Invalid signature", "AuthenticationToken expired", "Invalid signature"]
    assert any(line["user"] == "other-node-user" and line["result"] == "SUCCEEDED" for line in audit(simple_server))


def airflow_token(server: AirflowServer) -> str:
    status, _, _, body = call(server, "/auth/token", method="POST", headers={"Content-Type": "application/json"},
                              data=json.dumps({"username": "admin", "password": "admin"}).encode())
    assert status in (200, 201), body
    return str(json.loads(body)["access_token"])


def test_airflow_tokens_are_accepted_in_both_schemes(simple_server: AirflowServer,
                                                     airflow_only_server: AirflowServer) -> None:
    for server in (simple_server, airflow_only_server):
        token = airflow_token(server)
        status, _, _, body = call(server, "/falcon/api/admin/config/runtime",
                                  headers={"Authorization": f"Bearer {token}", "Accept": "application/json"})
        assert status == 200, body
        assert audit(server)[-1]["user"] == "admin"
        status, _, _, body = call(server, "/falcon/api/admin/version",
                                  headers={"Authorization": f"Bearer {token[:-4]}AAAA"})
        assert status == 401 and "Invalid JWT token" in body


def test_with_airflow_tokens_only_the_stock_clis_handshake_is_refused(airflow_only_server: AirflowServer,
                                                                      stock_cli: StockCli) -> None:
    done = stock_cli("admin", "-version", url=falcon_url(airflow_only_server))
    assert done.returncode != 0
    assert "Could not authenticate, Authentication failed, status: 401" in done.stderr, done.stderr
    status, _, _, _ = call(airflow_only_server, "/falcon/api/admin/version?user.name=tester")
    assert status == 401
