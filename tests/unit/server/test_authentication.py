"""Falcon's simple scheme as hadoop-auth's server side answers it (the OPTIONS handshake, the signed hadoop.auth
cookie, its checks on every request) and Airflow's tokens, as the Falcon server applies them."""

from __future__ import annotations

import hashlib
import hmac
import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from falcon_airflow.server import authentication as auth
from falcon_airflow.server.app import create_app
from falcon_airflow.server.authentication import (
    AUTH_COOKIE,
    AuthenticationFailed,
    AuthenticationSettings,
    Caller,
    Token,
)
from falcon_airflow.server.configuration import MappingConfig

SECRET = "cookie-secret-for-tests-3b1f"
JWT_SECRET = "jwt-secret-of-the-deployment-77a"
VALID_TOKEN = "airflow-token-of-alice"
EXPIRED_TOKEN = "airflow-token-expired"


def settings(**falcon: str) -> AuthenticationSettings:
    return AuthenticationSettings.from_config(MappingConfig({"falcon": falcon}).get)


async def fake_airflow(token: str) -> Caller:
    """Airflow's auth manager, as far as these tests need it: one good token, one expired, the rest invalid."""
    if token == VALID_TOKEN:
        return Caller("alice", auth.AIRFLOW, roles=frozenset({"Op"}))
    if token == EXPIRED_TOKEN:
        raise AuthenticationFailed("Token Expired")
    raise AuthenticationFailed("Invalid JWT token")


def server(tmp_path: Path, scheme: str = "simple", **falcon: str) -> TestClient:
    values = {"authentication": scheme, "entities_dir": str(tmp_path / "entities"), **falcon}
    if "authentication_secret" not in falcon:
        values["authentication_secret"] = SECRET
    config = MappingConfig({"falcon": values, "api": {"base_url": "http://127.0.0.1:8080"}})
    return TestClient(create_app(config=config, verify_token=fake_airflow))


@pytest.fixture(autouse=True)
def own_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("FALCON_STORE_DIR", str(tmp_path / "state"))
    monkeypatch.delenv("FALCON_ENTITIES_DIR", raising=False)
    (tmp_path / "entities").mkdir()
    yield


def handshake(client: TestClient, user: str = "joe") -> str:
    """The stock client's OPTIONS api/options?user.name=U (no cookie yet); the cookie value it keeps (quotes
    included)."""
    answer = TestClient(client.app).options(f"/api/options?user.name={user}")
    assert answer.status_code == 200, answer.text
    header = answer.headers["set-cookie"]
    match = re.match(r'hadoop\.auth=("[^"]*")', header)
    assert match, header
    return match.group(1)


def version(client: TestClient, cookie: str | None = None, **params: str) -> tuple[int, str]:
    headers = {"Accept": "application/json"}
    if cookie is not None:
        headers["Cookie"] = f"{AUTH_COOKIE}={cookie}"
    answer = client.get("/api/admin/version", headers=headers, params=params)
    return answer.status_code, answer.text


# -- the token and its signature --------------------------------------------------------------------------------------

def test_the_token_has_exactly_the_attributes_hadoop_auth_clients_require() -> None:
    token, signed = auth.issue(settings(authentication="simple", authentication_secret=SECRET), "joe", now=1000.0)
    assert token.text() == f"u=joe&p=joe&t=simple&e={1000 * 1000 + 36000 * 1000}"
    text, _, signature = signed.rpartition("&s=")
    assert text == token.text()
    expected = hmac.new(SECRET.encode(), text.encode(), hashlib.sha256).digest()
    import base64

    assert base64.b64decode(signature) == expected
    # what AuthToken.parse on the client accepts: u, p, t, e and nothing else besides the signature
    assert Token.parse(text) == token
    with pytest.raises(AuthenticationFailed, match="missing attributes"):
        Token.parse("u=joe&p=joe&t=simple")
    with pytest.raises(AuthenticationFailed, match="missing attributes"):
        Token.parse(text + "&x=1")
    with pytest.raises(AuthenticationFailed, match="Invalid authentication token"):
        Token.parse("u=joe&p&t=simple&e=1")


@pytest.mark.parametrize("tamper", [
    lambda signed: signed.replace("u=joe&p=joe", "u=root&p=root"),          # another user, same signature
    lambda signed: signed.replace("&e=", "&e=9"),                           # a longer life
    lambda signed: signed.rsplit("&s=", 1)[0] + "&s=" + "A" * 44,           # a made-up signature
    lambda signed: signed.rsplit("&s=", 1)[0],                              # no signature at all
    lambda signed: signed.replace("t=simple", "t=kerberos"),                # another type
])
def test_a_tampered_cookie_is_refused(tamper: object) -> None:
    chosen = settings(authentication="simple", authentication_secret=SECRET)
    _, signed = auth.issue(chosen, "joe")
    assert auth.read_cookie(chosen, signed) == "joe"
    assert auth.read_cookie(chosen, f'"{signed}"') == "joe"
    with pytest.raises(AuthenticationFailed):
        auth.read_cookie(chosen, tamper(signed))  # type: ignore[operator]


def test_an_expired_cookie_is_refused_and_validity_is_configurable() -> None:
    chosen = settings(authentication="simple", authentication_secret=SECRET, authentication_token_validity="60")
    token, signed = auth.issue(chosen, "joe", now=1000.0)
    assert token.expires == 1060 * 1000
    assert auth.read_cookie(chosen, signed, now=1059.0) == "joe"
    with pytest.raises(AuthenticationFailed, match="AuthenticationToken expired"):
        auth.read_cookie(chosen, signed, now=1061.0)


def test_a_cookie_signed_with_another_secret_is_refused() -> None:
    _, signed = auth.issue(settings(authentication="simple", authentication_secret="another-secret-xyz"), "joe")
    with pytest.raises(AuthenticationFailed, match="Invalid signature"):
        auth.read_cookie(settings(authentication="simple", authentication_secret=SECRET), signed)


def test_the_key_derived_from_the_jwt_secret_is_shared_by_a_deployment_and_is_not_the_jwt_secret() -> None:
    def derived(jwt_secret: str) -> AuthenticationSettings:
        return AuthenticationSettings.from_config(
            MappingConfig({"falcon": {"authentication": "simple"}, "api_auth": {"jwt_secret": jwt_secret}}).get)

    first, second = derived(JWT_SECRET), derived(JWT_SECRET)
    assert first.secret is not None and first.secret != JWT_SECRET.encode()
    _, signed = auth.issue(first, "joe")
    assert auth.read_cookie(second, signed) == "joe"  # two api-servers of one deployment
    with pytest.raises(AuthenticationFailed, match="Invalid signature"):
        auth.read_cookie(derived("the-jwt-secret-of-another-deployment"), signed)
    # an own secret wins over the derived one
    own = AuthenticationSettings.from_config(MappingConfig({"falcon": {
        "authentication": "simple", "authentication_secret": SECRET}, "api_auth": {"jwt_secret": JWT_SECRET}}).get)
    assert own.secret == SECRET.encode()


@pytest.mark.parametrize(("falcon", "message"), [
    ({"authentication": "kerberos", "authentication_secret": SECRET}, "must be one of simple, airflow"),
    ({"authentication": "simple"}, "neither is set"),
    ({"authentication": "simple", "authentication_secret": SECRET, "authentication_token_validity": "ten"},
     "whole number of seconds"),
    ({"authentication": "simple", "authentication_secret": SECRET, "authentication_token_validity": "0"},
     "must be positive"),
])
def test_settings_that_cannot_work_are_refused(falcon: dict[str, str], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        settings(**falcon)


def test_without_a_setting_only_airflow_tokens_are_accepted() -> None:
    chosen = AuthenticationSettings.from_config(MappingConfig({}).get)
    assert chosen.scheme == "airflow" and chosen.secret is None


def test_the_cookie_header_is_written_as_hadoop_auth_writes_it() -> None:
    header = auth.cookie_header("u=joe&p=joe&t=simple&e=1&s=x", 1795859905610, path="/falcon", secure=False)
    assert header == ('hadoop.auth="u=joe&p=joe&t=simple&e=1&s=x"; Path=/falcon; '
                      "Expires=Sat, 28-Nov-2026 09:58:25 GMT; HttpOnly")
    assert auth.cookie_header(None, 0, path="/", secure=True) == (
        "hadoop.auth=; Path=/; Expires=Thu, 01-Jan-1970 00:00:00 GMT; Secure; HttpOnly")
    assert auth.cookies_of('a=1; hadoop.auth="u=x&s=y=="; hadoop.auth=second') == {
        "a": "1", "hadoop.auth": '"u=x&s=y=="'}


def test_roles_are_read_from_either_kind_of_auth_manager_user() -> None:
    class Role:
        def __init__(self, name: str) -> None:
            self.name = name

    class FabUser:
        roles = (Role("Admin"), Role("Op"))

    class SimpleUser:
        role = "admin"

    assert auth.roles_of(FabUser()) == {"Admin", "Op"}
    assert auth.roles_of(SimpleUser()) == {"admin"}
    assert auth.roles_of(object()) == frozenset()


# -- the requests -----------------------------------------------------------------------------------------------------

def test_the_options_handshake_answers_with_a_signed_cookie_the_next_requests_carry(tmp_path: Path) -> None:
    client = server(tmp_path)
    answer = client.options("/api/options?user.name=joe&user.name=joe")  # the pseudo authenticator's second try
    assert answer.status_code == 200 and answer.content == b""
    header = answer.headers["set-cookie"]
    assert re.fullmatch(r'hadoop\.auth="u=joe&p=joe&t=simple&e=\d+&s=[A-Za-z0-9+/=]+"; Path=/; '
                        r"Expires=\w{3}, \d\d-\w{3}-\d{4} \d\d:\d\d:\d\d GMT; HttpOnly", header), header
    expires = int(re.search(r"&e=(\d+)", header).group(1))  # type: ignore[union-attr]
    assert abs(expires - (time.time() + 36000) * 1000) < 60_000
    fresh = TestClient(client.app)  # no cookie jar: the cookie is sent as the Falcon client sends it
    status, body = version(fresh, handshake(client))
    assert status == 200 and '"authentication","value":"simple"' in body
    assert "set-cookie" not in fresh.get("/api/admin/version", headers={
        "Cookie": f"{AUTH_COOKIE}={handshake(client)}"}).headers


def test_a_request_without_credentials_is_refused_with_401(tmp_path: Path) -> None:
    client = server(tmp_path)
    answer = client.get("/api/admin/version")
    assert answer.status_code == 401
    assert "PseudoAuth" in answer.headers["www-authenticate"]
    assert "<status>FAILED</status><message>Authentication required</message>" in answer.text
    answer = client.options("/api/options")
    assert answer.status_code == 401


@pytest.mark.parametrize(("query", "status", "message"), [
    ("user.name=", 400, "Param user.name can't be empty"),
    ("user.name=a%26b", 400, "is not a user name"),
    ("user.name=%22joe%22", 400, "is not a user name"),
])
def test_a_user_name_that_is_not_one_is_refused(tmp_path: Path, query: str, status: int, message: str) -> None:
    answer = server(tmp_path).options(f"/api/options?{query}")
    assert answer.status_code == status and message in answer.text
    assert "set-cookie" not in answer.headers


def test_a_tampered_or_foreign_cookie_is_refused_and_cleared(tmp_path: Path) -> None:
    client = server(tmp_path)
    cookie = handshake(client, "joe")
    forged = cookie.replace("u=joe&p=joe", "u=admin&p=admin")
    status, body = version(TestClient(client.app), forged)
    assert status == 401 and "Invalid signature" in body
    answer = TestClient(client.app).get("/api/admin/version", headers={"Cookie": f"{AUTH_COOKIE}={forged}"})
    assert answer.headers["set-cookie"].startswith("hadoop.auth=; ")  # as hadoop-auth clears a refused cookie
    other = server(tmp_path, authentication_secret="the-secret-of-another-server")
    status, body = version(other, cookie)
    assert status == 401 and "Invalid signature" in body


def test_a_bad_cookie_with_a_user_name_authenticates_anew_as_hadoop_auth_does(tmp_path: Path) -> None:
    client = TestClient(server(tmp_path).app)
    answer = client.get("/api/admin/version", params={"user.name": "joe"},
                        headers={"Cookie": f'{AUTH_COOKIE}="u=admin&p=admin&t=simple&e=1&s=bad"'})
    assert answer.status_code == 200
    assert answer.headers["set-cookie"].startswith('hadoop.auth="u=joe&p=joe&t=simple&e=')


def test_an_airflow_token_wins_over_a_cookie_and_a_bad_one_is_refused(tmp_path: Path) -> None:
    client = server(tmp_path)
    cookie = handshake(client, "joe")
    answer = TestClient(client.app).get("/api/admin/stack", headers={
        "Authorization": f"Bearer {VALID_TOKEN}", "Cookie": f"{AUTH_COOKIE}={cookie}"})
    assert answer.status_code == 200
    assert _audit_users(tmp_path)[-1] == "alice"
    for token, message in ((EXPIRED_TOKEN, "Token Expired"), ("garbage", "Invalid JWT token")):
        answer = TestClient(client.app).get("/api/admin/version", headers={
            "Authorization": f"Bearer {token}", "Cookie": f"{AUTH_COOKIE}={cookie}"})
        assert answer.status_code == 401 and message in answer.text


def test_the_airflow_scheme_ignores_cookies_and_user_names(tmp_path: Path) -> None:
    simple = server(tmp_path)
    cookie = handshake(simple, "joe")
    client = server(tmp_path, "airflow")
    assert client.options("/api/options?user.name=joe").status_code == 401
    status, body = version(client, cookie)
    assert status == 401 and "Airflow token" in body
    answer = client.get("/api/admin/version", params={"user.name": "joe"})
    assert answer.status_code == 401 and answer.headers["www-authenticate"] == "Bearer"
    answer = client.get("/api/admin/version", headers={"Authorization": f"Bearer {VALID_TOKEN}",
                                                       "Accept": "application/json"})
    assert answer.status_code == 200 and '"authentication","value":"airflow"' in answer.text


def test_refused_logins_are_in_the_audit_trail(tmp_path: Path) -> None:
    client = server(tmp_path)
    client.get("/api/admin/version", headers={"Cookie": f'{AUTH_COOKIE}="u=root&p=root&t=simple&e=1&s=x"'})
    client.get("/api/admin/stack")
    import json

    lines = [json.loads(line) for line in (tmp_path / "state" / "audit.log").read_text().splitlines()]
    assert [(line["result"], line["path"], line["reason"]) for line in lines] == [
        ("UNAUTHENTICATED", "/api/admin/version", "Invalid signature"),
        ("UNAUTHENTICATED", "/api/admin/stack", "Authentication required")]


def _audit_users(tmp_path: Path) -> list[str]:
    import json

    return [json.loads(line)["user"] for line in (tmp_path / "state" / "audit.log").read_text().splitlines()]
