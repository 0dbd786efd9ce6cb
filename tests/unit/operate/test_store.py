"""The store: atomic writes, the archive, safemode and schedule/doAs records, the lock, and hidden folders."""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path

import pytest
from tests.builders import ops_cluster, ops_feed

from falcon_airflow.compiler.store_state import (
    recorded_proxy_user,
    recorded_schedule_state,
    state_files,
    state_folder,
)
from falcon_airflow.dags.loader import _entity_files
from falcon_airflow.entities import EntityType
from falcon_airflow.operate.config_store import Store, stamp, write_atomic
from falcon_airflow.operate.outcomes import Refused

from .helpers import Kit


def test_write_atomic_replaces_whole_content_and_leaves_no_temporary_file(tmp_path: Path) -> None:
    target = tmp_path / "feeds" / "logs.xml"
    write_atomic(target, b"first")
    write_atomic(target, b"second version")

    assert target.read_bytes() == b"second version"
    assert sorted(path.name for path in target.parent.iterdir()) == ["logs.xml"]


def test_write_atomic_keeps_the_old_content_when_the_write_fails(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "logs.xml"
    write_atomic(target, b"old")

    def broken(source: object, destination: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", broken)
    with pytest.raises(OSError, match="disk full"):
        write_atomic(target, b"new")

    assert target.read_bytes() == b"old"
    assert [path.name for path in tmp_path.iterdir()] == ["logs.xml"]


def test_temporary_files_are_hidden_from_the_loader_and_the_workspace(kit: Kit) -> None:
    kit.write("clusters/east.xml", ops_cluster())
    (kit.root / "clusters" / ".east.xml.123.tmp").write_text("<half")
    (kit.root / ".archive" / "feed" / "logs").mkdir(parents=True)
    (kit.root / ".archive" / "feed" / "logs" / "20260101T000000.000000Z.xml").write_text(ops_feed())

    assert [path.name for path in _entity_files(kit.root)] == ["east.xml"]
    assert [entity.name for entity in Store(kit.root).workspace().entities()] == ["east"]


def test_archive_keeps_every_version_with_its_reason(kit: Kit) -> None:
    store = Store(kit.root)
    source = kit.write("feeds/logs.xml", ops_feed())
    first = store.archive(EntityType.FEED, "logs", b"v1", reason="update", user="alice", source=source)
    second = store.archive(EntityType.FEED, "logs", b"v2", reason="delete", user="bob", source=source)

    assert [path.read_bytes() for path in store.history(EntityType.FEED, "logs")] == [b"v1", b"v2"]
    assert first.parent == store.archive_root / "feed" / "logs"
    info = json.loads(second.with_suffix(".json").read_text())
    assert info == {"type": "feed", "name": "logs", "reason": "delete", "user": "bob",
                    "archived": info["archived"], "source": "feeds/logs.xml"}


def test_stamps_sort_in_time_order() -> None:
    earlier = stamp()
    time.sleep(0.002)
    assert stamp() > earlier


def test_new_definitions_go_to_the_type_folder_without_overwriting(kit: Kit) -> None:
    store = Store(kit.root)
    assert store.path_for_new(EntityType.FEED, "logs") == kit.root / "feeds" / "logs.xml"
    kit.write("feeds/logs.xml", ops_cluster("logs"))  # a file of that name holding something else
    assert store.path_for_new(EntityType.FEED, "logs") == kit.root / "feeds" / "logs-2.xml"


def test_get_finds_entities_wherever_they_are_in_the_folder(kit: Kit) -> None:
    path = kit.write("team-a/anything.xml", ops_feed("logs"))
    stored = Store(kit.root).get(EntityType.FEED, "logs")
    assert stored is not None
    assert stored.path == path
    assert stored.key == "feed/logs"


def test_safemode_schedule_state_and_proxy_user_persist(kit: Kit) -> None:
    store = Store(kit.root)
    assert store.safemode is False
    store.set_safemode(True, user="admin")
    store.set_schedule_state(EntityType.FEED, "logs", "RUNNING", user="admin")
    store.set_proxy_user(EntityType.PROCESS, "count", "alice", action="submit")

    again = Store(kit.root)
    assert again.safemode is True
    assert again.schedule_state(EntityType.FEED, "logs") == "RUNNING"
    assert recorded_schedule_state(kit.root, "feed", "logs") == "RUNNING"
    assert recorded_proxy_user(kit.root, "process", "count") == "alice"
    assert recorded_proxy_user(kit.root, "process", "other") is None
    assert [path.name for path in state_files(kit.root)] == ["schedule.json", "doas.json"] * 2  # new and old place

    again.set_schedule_state(EntityType.FEED, "logs", None, user="admin")
    again.set_proxy_user(EntityType.PROCESS, "count", None, action="delete")
    assert Store(kit.root).schedule_state(EntityType.FEED, "logs") is None
    assert recorded_proxy_user(kit.root, "process", "count") is None


def test_recorded_state_readers_never_raise(tmp_path: Path) -> None:
    (tmp_path / ".falcon").mkdir()
    (tmp_path / ".falcon" / "doas.json").write_text("{not json")
    assert recorded_proxy_user(tmp_path, "process", "count") is None
    assert recorded_schedule_state(tmp_path / "missing", "feed", "logs") is None


def test_an_unreadable_store_document_is_refused_with_its_path(kit: Kit) -> None:
    (kit.root / ".falcon").mkdir()
    (kit.root / ".falcon" / "safemode.json").write_text("{broken")
    with pytest.raises(Refused, match=r"safemode\.json is unreadable"):
        _ = Store(kit.root).safemode


def test_the_lock_serialises_commands(kit: Kit) -> None:
    store = Store(kit.root)
    entered = threading.Event()
    release = threading.Event()

    def hold() -> None:
        with Store(kit.root).lock():
            entered.set()
            release.wait(5)

    holder = threading.Thread(target=hold)
    holder.start()
    assert entered.wait(5)
    try:
        with pytest.raises(Refused, match="another falcon-airflow command is changing the store"), \
                store.lock(wait_seconds=0.2):
            pass
    finally:
        release.set()
        holder.join(5)
    with store.lock(wait_seconds=1):
        pass


def test_archiving_the_same_version_twice_for_the_same_reason_keeps_one_copy(kit: Kit) -> None:
    store = Store(kit.root)
    first = store.archive(EntityType.FEED, "logs", b"v1", reason="update", user="alice")
    again = store.archive(EntityType.FEED, "logs", b"v1", reason="update", user="alice")  # a step repeated
    deleted = store.archive(EntityType.FEED, "logs", b"v1", reason="delete", user="alice")
    assert again == first
    assert deleted != first
    assert len(store.history(EntityType.FEED, "logs")) == 2


def test_the_state_lives_outside_the_entities_folder(kit: Kit, monkeypatch: pytest.MonkeyPatch,
                                                     tmp_path: Path) -> None:
    store = Store(kit.root)
    store.set_schedule_state(EntityType.FEED, "logs", "RUNNING", user="admin")
    assert not (kit.root / ".falcon").exists() and not (kit.root / ".archive").exists()
    home = Path(os.environ["AIRFLOW_HOME"]).resolve()
    assert store.meta.is_relative_to(home / "falcon" / "store")
    assert recorded_schedule_state(kit.root, "feed", "logs") == "RUNNING"
    assert state_folder(kit.root) == store.meta
    assert state_folder(tmp_path / "other") != store.meta  # one state folder per entities folder

    monkeypatch.setenv("FALCON_STORE_DIR", str(tmp_path / "chosen"))
    assert Store(kit.root).meta == (tmp_path / "chosen").resolve()
    monkeypatch.delenv("FALCON_STORE_DIR")
    assert state_folder(kit.root, str(tmp_path / "configured")) == (tmp_path / "configured").resolve()


def test_state_kept_in_the_entities_folder_is_migrated(kit: Kit) -> None:
    legacy = kit.root / ".falcon"
    (legacy / "journal").mkdir(parents=True)
    (legacy / "schedule.json").write_text(json.dumps({"feed/logs": {"state": "SUSPENDED"}}))
    (legacy / "journal" / "one.json").write_text("{}")
    (legacy / "lock").write_text("")
    (kit.root / ".archive" / "feed" / "logs").mkdir(parents=True)
    (kit.root / ".archive" / "feed" / "logs" / "20260101T000000.000000Z.xml").write_text("<feed/>")
    # the loader reads the old place until a command moves it
    assert recorded_schedule_state(kit.root, "feed", "logs") == "SUSPENDED"

    store = Store(kit.root)
    assert store.schedule_state(EntityType.FEED, "logs") == "SUSPENDED"
    assert (store.meta / "journal" / "one.json").exists()
    assert (store.archive_root / "feed" / "logs" / "20260101T000000.000000Z.xml").read_text() == "<feed/>"
    assert not legacy.exists() and not (kit.root / ".archive").exists()
    assert recorded_schedule_state(kit.root, "feed", "logs") == "SUSPENDED"
    assert Store(kit.root).meta == store.meta  # nothing left to move
