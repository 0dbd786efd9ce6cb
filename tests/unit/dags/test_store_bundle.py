"""The store's DAG bundle against Falcon's server (the real app and store, over Starlette's test transport): each
revision a version folder written whole, the dag-processor's path switched at once, a worker's revision laid out on
demand, and a failed fetch that changes nothing."""

from __future__ import annotations

import socket
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import create_engine
from tests.builders import cluster, feed

from falcon_airflow.dags.store_bundle import FalconStoreBundle, StoreFetchError
from falcon_airflow.dags.store_layout import DAG_FILE
from falcon_airflow.server import store_access
from falcon_airflow.server.app import create_app
from falcon_airflow.server.authentication import Caller
from falcon_airflow.server.configuration import MappingConfig
from falcon_airflow.store import tables
from falcon_airflow.store.database import ABSENT, DatabaseStore

SECRET = "the-deployment-s-jwt-secret"


async def tokens(token: str) -> Caller:
    return Caller(token, "airflow")


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> DatabaseStore:
    engine = create_engine(f"sqlite:///{tmp_path / 'store.db'}")
    tables.metadata.create_all(engine)
    database = DatabaseStore(engine)
    monkeypatch.setattr(store_access, "database_store", lambda: database)
    monkeypatch.setenv("FALCON_STORE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("FALCON_ENTITIES_DIR", str(tmp_path / "entities"))
    monkeypatch.setenv("AIRFLOW__DAG_PROCESSOR__DAG_BUNDLE_STORAGE_PATH", str(tmp_path / "bundles"))
    monkeypatch.setenv("AIRFLOW__API_AUTH__JWT_SECRET", SECRET)
    return database


def serve(monkeypatch: pytest.MonkeyPatch, secret: str = SECRET) -> None:
    """The bundle's requests go to Falcon's app (as mounted: the bundle's store_url is the app's root)."""
    config = MappingConfig({"falcon": {"store": "database"}, "api_auth": {"jwt_secret": secret}})
    app = create_app(config=config, verify_token=tokens)
    monkeypatch.setattr(FalconStoreBundle, "_client", lambda self: TestClient(app, base_url="http://falcon.test"))


def bundle(version: str | None = None, **kwargs: object) -> FalconStoreBundle:
    return FalconStoreBundle(name="falcon-store", version=version, store_url="http://falcon.test",
                             refresh_interval=5, **kwargs)  # type: ignore[arg-type]


def test_each_revision_is_a_version_and_the_path_switches_to_the_newest(
        store: DatabaseStore, monkeypatch: pytest.MonkeyPatch) -> None:
    serve(monkeypatch)
    first = store.put("cluster", "c1", cluster("c1").encode(), user="ann", replaces=ABSENT)
    processor = bundle()
    processor.initialize()
    assert processor.get_current_version().version == str(first)  # type: ignore[union-attr]
    assert processor.path == processor.base_dir / "current"
    assert processor.path.resolve() == (processor.versions_dir / str(first)).resolve()
    assert (processor.path / DAG_FILE).is_file() and (processor.path / "entities" / "clusters" / "c1.xml").is_file()
    second = store.put("feed", "in", feed("in").encode(), user="ann", replaces=ABSENT)
    processor.refresh()
    assert processor.get_current_version().version == str(second)  # type: ignore[union-attr]
    assert (processor.path / "entities" / "feeds" / "in.xml").is_file()
    assert (processor.versions_dir / str(first) / DAG_FILE).is_file()  # a parse that resolved it still finds it
    # a worker runs a task of the first version: that revision, as it was
    worker = bundle(version=str(first))
    worker.initialize()
    assert worker.path == processor.versions_dir / str(first)
    assert worker.get_current_version().version == str(first)  # type: ignore[union-attr]
    assert not (worker.path / "entities" / "feeds").exists()
    with pytest.raises(ValueError, match="not refreshed"):
        worker.refresh()


def test_a_worker_lays_out_a_revision_this_machine_never_had(store: DatabaseStore,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    serve(monkeypatch)
    first = store.put("cluster", "c1", cluster("c1").encode(), user="ann", replaces=ABSENT)
    store.put("feed", "in", feed("in").encode(), user="ann", replaces=ABSENT)
    worker = bundle(version=str(first))
    worker.initialize()
    assert sorted(path.name for path in worker.versions_dir.iterdir()) == [str(first)]
    assert (worker.path / "entities" / "clusters" / "c1.xml").read_bytes() == cluster("c1").encode()
    with pytest.raises(StoreFetchError, match=r"404.*no revision 99"):
        bundle(version="99").initialize()
    with pytest.raises(ValueError, match="revision number"):
        bundle(version="../1")


def test_a_failed_fetch_changes_nothing(store: DatabaseStore, monkeypatch: pytest.MonkeyPatch) -> None:
    serve(monkeypatch)
    first = store.put("cluster", "c1", cluster("c1").encode(), user="ann", replaces=ABSENT)
    processor = bundle()
    processor.initialize()
    store.put("feed", "in", feed("in").encode(), user="ann", replaces=ABSENT)
    serve(monkeypatch, secret="another-deployment")  # the server no longer accepts the bundle's token
    with pytest.raises(StoreFetchError, match="answered 401: Invalid FalconBundle token signature"):
        processor.refresh()
    assert processor.get_current_version().version == str(first)  # type: ignore[union-attr]
    assert sorted(path.name for path in processor.versions_dir.iterdir()) == [str(first)]
    # a dag-processor that restarts meanwhile parses what it laid out before
    again = bundle()
    again.initialize()
    assert again.get_current_version().version == str(first)  # type: ignore[union-attr]
    # ... and one that never had a version says why it has none
    monkeypatch.setenv("AIRFLOW__DAG_PROCESSOR__DAG_BUNDLE_STORAGE_PATH", str(processor.base_dir.parent / "new"))
    with pytest.raises(StoreFetchError, match="401"):
        bundle().initialize()


def test_the_answer_is_bounded(store: DatabaseStore, monkeypatch: pytest.MonkeyPatch) -> None:
    serve(monkeypatch)
    store.put("cluster", "c1", cluster("c1").encode(), user="ann", replaces=ABSENT)
    with pytest.raises(StoreFetchError, match="max_bytes"):
        bundle(max_bytes=200).initialize()


def test_a_server_out_of_reach_is_a_fetch_error(store: DatabaseStore) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    unreachable = FalconStoreBundle(name="falcon-store", store_url=f"http://127.0.0.1:{port}/falcon", timeout=5)
    with pytest.raises(StoreFetchError, match=rf"cannot fetch the Falcon store from http://127.0.0.1:{port}/falcon"):
        unreachable.refresh()


def test_without_a_secret_the_bundle_says_what_to_set(store: DatabaseStore, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AIRFLOW__API_AUTH__JWT_SECRET", "")
    with pytest.raises(StoreFetchError, match=r"store_bundle_secret.*jwt_secret"):
        bundle().refresh()


def test_old_versions_go_unless_a_task_here_holds_them(store: DatabaseStore, monkeypatch: pytest.MonkeyPatch,
                                                        tmp_path: Path) -> None:
    from airflow.dag_processing.bundles import base

    monkeypatch.setattr(base, "STALE_BUNDLE_TRACKING_FOLDER", tmp_path / "bundles" / "_tracking")
    serve(monkeypatch)
    processor = bundle(keep_versions=2)
    revisions = []
    for name in ("a", "b", "c", "d"):
        revisions.append(store.put("cluster", name, cluster(name).encode(), user="ann", replaces=ABSENT))
        if name == "b":  # a task of this machine runs on revision b (Airflow's BundleVersionLock)
            held = base.get_bundle_tracking_file("falcon-store", str(revisions[-1]))
            held.parent.mkdir(parents=True)
            held.write_text("2026-01-01T00:00:00+00:00")
        processor.refresh()
    assert sorted(int(path.name) for path in processor.versions_dir.iterdir()) == revisions[1:]


def test_the_url_defaults_to_the_api_server_s_base_url(monkeypatch: pytest.MonkeyPatch) -> None:
    from falcon_airflow.dags.store_bundle import store_url

    monkeypatch.setenv("AIRFLOW__API__BASE_URL", "https://airflow.example.com/")
    monkeypatch.delenv("AIRFLOW__FALCON__STORE_URL", raising=False)
    assert store_url() == "https://airflow.example.com/falcon"
    monkeypatch.setenv("AIRFLOW__FALCON__STORE_URL", "http://api-server:8080/falcon/")
    assert store_url() == "http://api-server:8080/falcon"
    assert store_url("http://other/falcon") == "http://other/falcon"


def test_httpx_is_what_the_bundle_speaks() -> None:
    assert isinstance(FalconStoreBundle(name="x", store_url="http://x")._client(), httpx.Client)
