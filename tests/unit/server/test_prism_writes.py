"""A colo server with ``[falcon] accept_writes_from`` takes entity changes only from its Prism: the proof the
Prism signs (``server/prism_identity.py``) and sends with every request (``server/prism/forwarding.py``)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx
import pytest
from tests.unit.server.served import JSON, Served, denied, serve

from falcon_airflow.server.prism.colo_access import ColoAccess
from falcon_airflow.server.prism.colos import Colo, PrismConfigurationError
from falcon_airflow.server.prism.forwarding import Forwarder, Identity
from falcon_airflow.server.prism_identity import HEADER, NotFromPrism, check, identity_key, prove, writes_refused

PRISM_SECRET = "prism-secret-for-colo-tests-7c"
KEY = identity_key(lambda section, key: PRISM_SECRET if key == "prism_secret" else None)
NOW = 1_800_000_000.0


def test_a_proof_names_the_prism_and_holds_a_few_minutes() -> None:
    assert KEY is not None
    proof = prove(KEY, "prism", now=NOW)
    check(KEY, proof, "prism", now=NOW + 299)
    with pytest.raises(NotFromPrism, match="expired"):
        check(KEY, proof, "prism", now=NOW + 301)
    with pytest.raises(NotFromPrism, match="comes from the Prism 'prism', not 'other'"):
        check(KEY, proof, "other", now=NOW)
    with pytest.raises(NotFromPrism, match="not signed with the Prism's key"):
        check(identity_key(lambda section, key: "another secret"), proof, "prism", now=NOW)
    with pytest.raises(NotFromPrism, match="not signed"):
        check(KEY, proof.replace("prism&", "prisn&"), "prisn", now=NOW)
    with pytest.raises(NotFromPrism, match="no X-Falcon-Prism header"):
        check(KEY, None, "prism", now=NOW)


def test_the_key_is_the_prism_secret_else_derived_from_the_shared_jwt_secret() -> None:
    from_jwt = identity_key(lambda section, key: "jwt" if (section, key) == ("api_auth", "jwt_secret") else None)
    assert from_jwt is not None and from_jwt != b"jwt" and from_jwt != KEY
    assert identity_key(lambda section, key: None) is None


def test_only_the_guarded_entity_actions_of_a_configured_colo_are_checked() -> None:
    def config(section: str, key: str) -> str | None:
        return {"accept_writes_from": "prism", "prism_secret": PRISM_SECRET}.get(key)

    assert writes_refused(lambda section, key: None, "entity", "submit", None) is None  # not configured
    assert writes_refused(config, "entity", "list", None) is None
    assert writes_refused(config, "instance", "kill", None) is None
    assert writes_refused(config, "entity", "schedule", prove(KEY or b"", "prism")) is None
    message = writes_refused(config, "entity", "delete", None)
    assert message is not None and message.startswith(
        "entity -delete is accepted on this colo only from the Prism 'prism' ([falcon] accept_writes_from): the "
        "request does not come from the Prism")


@pytest.fixture
def served(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Served:
    return serve(tmp_path, monkeypatch)


def test_a_colo_server_refuses_a_change_without_the_prism_s_proof(served: Served) -> None:
    settings = {"accept_writes_from": "prism", "prism_secret": PRISM_SECRET}
    client = served.client(**settings)
    headers = {"Authorization": "Bearer ops", "Accept": JSON}
    answer = client.post("/api/entities/schedule/feed/counts", headers=headers)
    assert "accepted on this colo only from the Prism 'prism'" in denied(answer)
    assert served.audit()[-1]["result"] == "REFUSED"
    assert client.get("/api/entities/status/feed/counts", headers=headers).status_code == 200  # reads are open
    command = client.post("/api/falcon-airflow/entity/schedule", headers=headers,
                          json={"options": {"type": "feed", "name": "counts"}})
    assert command.status_code == 403 and "accept_writes_from" in command.text

    answer = client.post("/api/entities/schedule/feed/counts",
                         headers={**headers, HEADER: prove(KEY or b"", "prism")})
    assert answer.status_code == 200, answer.text


def test_the_prism_sends_its_proof_and_its_tls_settings(tmp_path: Path) -> None:
    seen: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, text="ok")

    access = ColoAccess.from_config(lambda section, key: {"prism_secret": PRISM_SECRET}.get(key))
    forwarder = Forwarder(5.0, httpx.MockTransport(answer), access=access)

    async def send() -> None:
        async with forwarder.client() as http:
            await forwarder.send(http, Colo("east", "http://east/falcon"), "POST", "api/entities/schedule/feed/f",
                                 Identity("ops", "token"))

    asyncio.run(send())
    check(KEY, seen[0].headers[HEADER], "prism")
    assert ColoAccess.from_config(lambda section, key: None).key is None  # no secret: no proof
    with pytest.raises(PrismConfigurationError, match="go together"):
        ColoAccess.from_config(lambda section, key: "/x.pem" if key == "prism_client_cert" else None)
    with pytest.raises(PrismConfigurationError, match="prism_ca_file: no file"):
        ColoAccess.from_config(lambda section, key: str(tmp_path / "none.pem") if key == "prism_ca_file" else None)
