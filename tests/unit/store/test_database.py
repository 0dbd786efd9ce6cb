"""The store on SQL tables: versions and history, compare-and-set changes, one revision per change, the snapshot
the DAG bundle lays out, journals, the audit trail and the lease (SQLite here; PostgreSQL in
tests/integration/store)."""

from __future__ import annotations

import threading
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import create_engine

from falcon_airflow.store import leases, tables
from falcon_airflow.store.database import ABSENT, DatabaseStore, StoreBusy, StoreConflict


@pytest.fixture
def store(tmp_path: Path) -> DatabaseStore:
    # as Airflow makes its SQLite engine: deferred transactions, the driver's own busy timeout
    engine = create_engine(f"sqlite:///{tmp_path / 'store.db'}")
    tables.metadata.create_all(engine)
    return DatabaseStore(engine)


def test_submit_update_delete_keep_every_version_in_order(store: DatabaseStore) -> None:
    first = store.put("feed", "clicks", b"<feed v='1'/>", user="ann", replaces=ABSENT, reason="submit")
    second = store.put("feed", "clicks", b"<feed v='2'/>", user="bob", replaces=b"<feed v='1'/>")
    assert second == first + 1
    current = store.current("feed", "clicks")
    assert current is not None and current.content == b"<feed v='2'/>" and current.submitted_by == "bob"
    third = store.remove("feed", "clicks", user="cid", replaces=b"<feed v='2'/>")
    assert store.current("feed", "clicks") is None
    history = store.history("feed", "clicks")
    assert [(version.content, version.retired_because, version.retired_by, version.retired) for version in history] == [
        (b"<feed v='1'/>", "update", "bob", second), (b"<feed v='2'/>", "delete", "cid", third)]
    # a name deleted is free again, and its history stays
    store.put("feed", "clicks", b"<feed v='3'/>", user="ann", replaces=ABSENT)
    assert len(store.history("feed", "clicks")) == 2


def test_a_change_that_finds_the_store_other_than_it_saw_is_refused_and_changes_nothing(store: DatabaseStore) -> None:
    store.put("process", "count", b"<a/>", user="ann", replaces=ABSENT)
    revision = store.revision()
    with pytest.raises(StoreConflict, match="already exists"):
        store.put("process", "count", b"<b/>", user="bob", replaces=ABSENT)
    with pytest.raises(StoreConflict, match="changed meanwhile by ann"):
        store.put("process", "count", b"<b/>", user="bob", replaces=b"<old/>")
    with pytest.raises(StoreConflict, match="not in the store"):
        store.remove("process", "other", user="bob", replaces=b"<a/>")
    assert store.revision() == revision
    current = store.current("process", "count")
    assert current is not None and current.content == b"<a/>"
    assert store.history("process", "count") == []


def test_the_same_submit_from_many_servers_at_once_makes_one_entity(store: DatabaseStore) -> None:
    outcomes: list[str] = []

    def submit(user: str) -> None:
        try:
            store.put("feed", "raced", f"<feed by='{user}'/>".encode(), user=user, replaces=ABSENT)
            outcomes.append("submitted")
        except StoreConflict:
            outcomes.append("refused")

    threads = [threading.Thread(target=submit, args=(f"user{index}",)) for index in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == ["refused"] * 7 + ["submitted"]
    assert [item.name for item in store.definitions()] == ["raced"]
    assert store.history("feed", "raced") == []


def test_states_raise_the_revision_only_when_they_change(store: DatabaseStore) -> None:
    start = store.revision()
    store.set_schedule_state("process", "count", "RUNNING", user="ann")
    store.set_schedule_state("process", "count", "RUNNING", user="ann")
    store.set_proxy_user("process", "count", "etl", action="schedule")
    assert store.revision() == start + 2
    assert (store.schedule_state("process", "count"), store.proxy_user("process", "count")) == ("RUNNING", "etl")
    store.set_schedule_state("process", "count", None, user="ann")
    assert store.schedule_state("process", "count") is None and store.proxy_user("process", "count") == "etl"


def test_safemode_is_a_setting_that_changes_no_dag(store: DatabaseStore) -> None:
    revision = store.revision()
    assert store.safemode is False
    store.set_safemode(True, user="admin")
    assert store.safemode is True and store.revision() == revision


def test_a_snapshot_holds_what_the_dags_depend_on_at_one_revision(store: DatabaseStore) -> None:
    store.put("cluster", "primary", b"<cluster/>", user="ann", replaces=ABSENT)
    store.put("process", "count", b"<process/>", user="ann", replaces=ABSENT)
    store.set_schedule_state("process", "count", "SUSPENDED", user="ann")
    store.set_proxy_user("process", "count", "etl", action="schedule")
    snapshot = store.snapshot()
    assert snapshot.revision == store.revision()
    assert [(item.kind, item.name, item.content) for item in snapshot.definitions] == [
        ("cluster", "primary", b"<cluster/>"), ("process", "count", b"<process/>")]
    assert snapshot.schedule_states == {("process", "count"): "SUSPENDED"}
    assert snapshot.proxy_users == {("process", "count"): "etl"}


def test_journals_and_audit_entries_come_back_in_order(store: DatabaseStore) -> None:
    store.save_journal("b", '{"step": 1}')
    store.save_journal("a", '{"step": 1}')
    store.save_journal("b", '{"step": 2}')
    assert [identifier for identifier, _ in store.journals()] == ["b", "a"]
    store.drop_journal("b")
    assert store.journals() == [("a", '{"step": 1}')]
    first = '{"action": "submit", "time": "2026-03-01T05:00:00Z", "user": "ann"}'
    second = '{"action": "delete", "time": "2026-03-02T05:00:00Z", "user": "bob"}'
    store.append_audit(first)
    store.append_audit(second)
    assert list(store.audit_lines()) == [first, second]
    assert list(store.audit_lines(start=datetime(2026, 3, 2, tzinfo=UTC))) == [second]


def test_the_lease_lets_one_holder_in_and_lapses_when_its_holder_died(store: DatabaseStore) -> None:
    with store.lease() as holder:
        assert holder
        with pytest.raises(StoreBusy), store.lease(wait_seconds=0.2):
            pass
    with store.lease():  # released on leaving
        pass
    # a holder killed before it released: its term ends, then another server takes over
    assert leases.take(store.engine, "store", "dead-server", term_seconds=-1)
    with store.lease(wait_seconds=1.0) as holder:
        assert holder != "dead-server"


def test_any_revision_reads_back_as_it_was(store: DatabaseStore) -> None:
    submitted = store.put("process", "count", b"<v1/>", user="ann", replaces=ABSENT)
    store.set_schedule_state("process", "count", "RUNNING", user="ann")
    scheduled = store.revision()
    store.put("process", "count", b"<v2/>", user="ann", replaces=b"<v1/>")
    store.set_schedule_state("process", "count", "SUSPENDED", user="bob")
    deleted = store.remove("process", "count", user="bob", replaces=b"<v2/>")
    assert store.snapshot(submitted).definitions[0].content == b"<v1/>"
    assert store.snapshot(submitted).schedule_states == {}
    assert store.snapshot(scheduled).schedule_states == {("process", "count"): "RUNNING"}
    assert store.snapshot(deleted - 1).schedule_states == {("process", "count"): "SUSPENDED"}
    assert store.snapshot(deleted - 1).definitions[0].content == b"<v2/>"
    assert store.snapshot(deleted).definitions == ()
    with pytest.raises(LookupError, match="no revision"):
        store.snapshot(deleted + 1)
