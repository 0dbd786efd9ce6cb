"""``api/store/``: the store's snapshots for the DAG bundle, served to a bundle token only (never to a user, never
without one), while every other route keeps Falcon's user authentication."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import create_engine

from falcon_airflow.server import store_access
from falcon_airflow.server.app import create_app
from falcon_airflow.server.authentication import Caller
from falcon_airflow.server.configuration import MappingConfig
from falcon_airflow.store import tables
from falcon_airflow.store.bundle_token import authorization, bundle_key
from falcon_airflow.store.database import ABSENT, DatabaseStore
from falcon_airflow.store.wire import read_snapshot_document

JWT_SECRET = "jwt-secret-of-the-deployment"


async def tokens(token: str) -> Caller:
    return Caller(token, "airflow")


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> DatabaseStore:
    engine = create_engine(f"sqlite:///{tmp_path / 'store.db'}")
    tables.metadata.create_all(engine)
    database = DatabaseStore(engine)
    monkeypatch.setattr(store_access, "database_store", lambda: database)
    monkeypatch.setenv("FALCON_STORE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("FALCON_ENTITIES_DIR", str(tmp_path))
    return database


def client(store: str = "database", **falcon: str) -> TestClient:
    config = MappingConfig({"falcon": {"store": store, **falcon}, "api_auth": {"jwt_secret": JWT_SECRET}})
    return TestClient(create_app(config=config, verify_token=tokens))


def bundle_header(secret: str = JWT_SECRET) -> dict[str, str]:
    return {"Authorization": authorization(bundle_key(lambda section, key: secret if key == "jwt_secret" else None))}


def test_the_snapshot_as_of_a_revision(store: DatabaseStore) -> None:
    first = store.put("feed", "clicks", b"<feed v='1'/>", user="ann", replaces=ABSENT)
    store.set_schedule_state("feed", "clicks", "RUNNING", user="ann")
    store.put("feed", "clicks", b"<feed v='2'/>", user="bob", replaces=b"<feed v='1'/>")
    store.set_proxy_user("feed", "clicks", "etl", action="submit")
    store.put("extension", "mirror", b"jobName=mirror\n", user="ann", replaces=ABSENT, variant="hdfs-mirroring")
    served = client()
    newest = served.get("/api/store/revision", headers=bundle_header())
    assert newest.status_code == 200 and newest.json() == {"revision": store.revision(), "store": store.store_id()}
    answer = served.get("/api/store/snapshot", headers=bundle_header())
    assert answer.status_code == 200 and answer.headers["content-type"] == "application/json"
    document = answer.json()
    assert document["revision"] == store.revision()
    assert [(item["kind"], item["name"], item["variant"], base64.b64decode(item["content"]))
            for item in document["definitions"]] == [("extension", "mirror", "hdfs-mirroring", b"jobName=mirror\n"),
                                                     ("feed", "clicks", None, b"<feed v='2'/>")]
    assert document["schedule_states"] == [{"kind": "feed", "name": "clicks", "state": "RUNNING"}]
    assert document["proxy_users"] == [{"kind": "feed", "name": "clicks", "user": "etl"}]
    older = read_snapshot_document(served.get("/api/store/snapshot", params={"revision": str(first)},
                                              headers=bundle_header()).json())
    assert older.revision == first and [item.content for item in older.definitions] == [b"<feed v='1'/>"]
    assert not older.schedule_states and not older.proxy_users


def test_a_revision_the_store_never_had_is_404_and_a_wrong_one_400(store: DatabaseStore) -> None:
    served = client()
    missing = served.get("/api/store/snapshot", params={"revision": "99"}, headers=bundle_header())
    assert missing.status_code == 404 and "no revision 99" in missing.json()["error"]
    wrong = served.get("/api/store/snapshot", params={"revision": "-1"}, headers=bundle_header())
    assert wrong.status_code == 400


@pytest.mark.parametrize("headers", [
    {}, {"Authorization": "Bearer admin"}, {"Cookie": 'hadoop.auth="u=a&p=a&t=simple&e=-1&s=x"'},
    {"Authorization": "FalconBundle 1.0"},
])
def test_without_a_bundle_token_nothing_is_served(store: DatabaseStore, headers: dict[str, str]) -> None:
    store.put("feed", "clicks", b"<feed secret='1'/>", user="ann", replaces=ABSENT)
    served = client(authentication="simple", authentication_secret="cookie-secret")
    for path in ("/api/store/snapshot", "/api/store/revision", "/api/store/snapshot?user.name=admin"):
        answer = served.get(path, headers=headers)
        assert answer.status_code == 401 and answer.headers["www-authenticate"] == "FalconBundle"
        assert b"secret" not in answer.content and b"revision\":" not in answer.content


def test_a_token_of_another_deployment_is_refused(store: DatabaseStore) -> None:
    answer = client().get("/api/store/snapshot", headers=bundle_header("another-secret"))
    assert answer.status_code == 401 and "signature" in answer.json()["error"]


def test_the_bundle_token_opens_nothing_else(store: DatabaseStore) -> None:
    served = client()
    for path in ("/api/admin/version", "/api/admin/stack", "/api/store/snapshot/", "/api/store/../admin/stack",
                 "/api/entities/list/feed"):
        answer = served.get(path, headers=bundle_header())
        assert answer.status_code == 401, path
    assert served.post("/api/store/snapshot", headers=bundle_header()).status_code == 401


def test_a_server_keeping_the_store_in_files_says_so(store: DatabaseStore) -> None:
    answer = client(store="folder").get("/api/store/snapshot", headers=bundle_header())
    assert answer.status_code == 409 and "[falcon] store = folder" in answer.json()["error"]


def test_without_a_secret_the_store_is_not_served(store: DatabaseStore) -> None:
    config = MappingConfig({"falcon": {"store": "database"}})
    answer = TestClient(create_app(config=config, verify_token=tokens)).get(
        "/api/store/snapshot", headers=bundle_header())
    assert answer.status_code == 503 and "jwt_secret" in answer.json()["error"]
