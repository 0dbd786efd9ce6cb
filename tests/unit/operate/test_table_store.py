"""Falcon's actions on the store in the database (``[falcon] store = database``): the same actions as on the folder,
run as the server runs them (a caller, files sent with the request), with the tables on SQLite. What the folder
tests check through files is checked here through the store: versions and their history, schedule states, the
journal that finishes an interrupted update, the audit trail, and two submits of one name at once."""

from __future__ import annotations

import textwrap
import threading
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine
from tests.builders import ops_cluster, ops_feed, ops_process

from falcon_airflow.operate import audit
from falcon_airflow.operate.execution import Caller, Deployment, execute
from falcon_airflow.operate.options import Options
from falcon_airflow.operate.outcomes import Outcome, Refused
from falcon_airflow.operate.settings import Settings
from falcon_airflow.operate.table_store import TableStore
from falcon_airflow.store import tables
from falcon_airflow.store.database import DatabaseStore

from .helpers import FakeAirflow

SETTINGS: dict[str, str] = {}


class Server:
    """One server of a deployment: its store in the shared database, its own entities folder, a fake Airflow."""

    def __init__(self, database: DatabaseStore, entities: Path, airflow: FakeAirflow) -> None:
        self.database, self.entities, self.airflow = database, entities, airflow

    def store(self) -> TableStore:
        return TableStore(self.database, self.entities)

    def deployment(self) -> Deployment:
        settings = Settings(url=FakeAirflow.base, entities=self.entities, wait_seconds=0.0)
        return Deployment(settings, SETTINGS.get, settings.url, airflow=lambda _s, _d: self.airflow,  # type: ignore[arg-type,return-value]
                          store=self.store)

    def act(self, command: str, action: str, user: str = "ann", file: str | None = None,
            **values: Any) -> Outcome:
        files = {"file": (textwrap.dedent(file).encode(), f"{action}.xml")} if file is not None else None
        options = Options(command, values, action=action, files=files, local_files=False)
        return execute(command, action, options, Caller(user), deployment=self.deployment())


@pytest.fixture
def database(tmp_path: Path) -> DatabaseStore:
    engine = create_engine(f"sqlite:///{tmp_path / 'airflow.db'}")
    tables.metadata.create_all(engine)
    return DatabaseStore(engine)


@pytest.fixture
def server(database: DatabaseStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Server:
    monkeypatch.setenv("FALCON_AIRFLOW_WAIT", "0")
    entities = tmp_path / "entities"
    entities.mkdir()
    return Server(database, entities, FakeAirflow())


def submit_pipeline(server: Server) -> None:
    server.act("entity", "submit", type="cluster", file=ops_cluster("east"))
    server.act("entity", "submit", type="feed", file=ops_feed("logs"))
    server.act("entity", "submit", type="feed", file=ops_feed("counts"))
    server.act("entity", "submit", type="process", file=ops_process("count"))


def test_submitted_definitions_live_in_the_tables_not_in_any_folder(server: Server, tmp_path: Path) -> None:
    submit_pipeline(server)
    assert [(item.kind, item.name) for item in server.database.definitions()] == [
        ("cluster", "east"), ("feed", "counts"), ("feed", "logs"), ("process", "count")]
    assert not any(path.is_file() for path in tmp_path.rglob("*.xml"))
    shown = server.act("entity", "definition", type="process", name="count")
    assert "<process" in (shown.text or "") + str(shown.payload)
    listed = server.act("entity", "list", type="feed")
    assert {"counts", "logs"} <= set(str(listed.payload).replace("'", " ").split()) or "counts" in (listed.text or "")


def test_update_and_delete_keep_every_version_with_who_and_why(server: Server) -> None:
    submit_pipeline(server)
    server.act("entity", "update", user="bob", type="feed", name="logs", file=ops_feed("logs", days=5))
    server.act("entity", "delete", user="cid", type="process", name="count")
    history = server.database.history("feed", "logs")
    assert [(version.retired_because, version.retired_by, version.submitted_by) for version in history] == [
        ("update", "bob", "ann")]
    current = server.database.current("feed", "logs")
    assert current is not None and current.submitted_by == "bob" and b"days(5)" in current.content
    assert server.database.current("process", "count") is None
    assert [(version.retired_because, version.retired_by) for version in
            server.database.history("process", "count")] == [("delete", "cid")]


def test_schedule_suspend_resume_are_the_store_s_states(server: Server) -> None:
    submit_pipeline(server)
    server.airflow.add_dag("falcon.process.count.east")
    server.act("entity", "schedule", type="process", name="count")
    assert server.database.schedule_state("process", "count") == "RUNNING"
    server.act("entity", "suspend", type="process", name="count")
    assert server.database.schedule_state("process", "count") == "SUSPENDED"
    status = server.act("entity", "status", type="process", name="count")
    assert "SUSPENDED" in status.message


def test_what_one_server_changes_the_other_sees(database: DatabaseStore, tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FALCON_AIRFLOW_WAIT", "0")
    airflow = FakeAirflow()
    first = Server(database, tmp_path / "a", airflow)
    second = Server(database, tmp_path / "b", airflow)
    submit_pipeline(first)
    airflow.add_dag("falcon.process.count.east")
    first.act("entity", "schedule", type="process", name="count")
    second.act("entity", "suspend", type="process", name="count")
    assert "SUSPENDED" in first.act("entity", "status", type="process", name="count").message
    second.act("admin", "setsafemode", setsafemode="true")
    with pytest.raises(Refused, match=r"(?i)safemode"):
        first.act("entity", "submit", type="feed", file=ops_feed("other"))


def test_the_same_definition_submitted_through_two_servers_at_once_makes_one_entity(
        database: DatabaseStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FALCON_AIRFLOW_WAIT", "0")
    airflow = FakeAirflow()
    servers = [Server(database, tmp_path / f"s{index}", airflow) for index in range(2)]
    servers[0].act("entity", "submit", type="cluster", file=ops_cluster("east"))
    answers: list[str] = []

    def submit(server: Server, owner: str) -> None:
        try:
            outcome = server.act("entity", "submit", user=owner, type="feed",
                                 file=ops_feed("logs").replace("<feed ", f"<feed description='{owner}' ", 1))
            answers.append(f"ok {outcome.message}")
        except Refused as refusal:
            answers.append(f"refused {refusal.message}")

    threads = [threading.Thread(target=submit, args=(server, f"user{index}"))
               for index, server in enumerate(servers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(answer.split()[0] for answer in answers) == ["ok", "refused"], answers
    assert "already registered" in next(answer for answer in answers if answer.startswith("refused"))
    assert [item.name for item in database.definitions("feed")] == ["logs"]
    assert database.history("feed", "logs") == []


def test_an_update_cut_short_after_its_write_is_finished_by_the_next_action(server: Server,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    from falcon_airflow.operate import entity_steps

    submit_pipeline(server)
    reparse = entity_steps.step_reparse

    def crash(*_args: object) -> None:
        raise KeyboardInterrupt  # the server dies between the write and the rest of the update

    monkeypatch.setattr(entity_steps, "step_reparse", crash)
    monkeypatch.setitem(entity_steps._UPDATE.do, "reparse", crash)  # type: ignore[index]
    with pytest.raises(KeyboardInterrupt):
        server.act("entity", "update", type="feed", name="logs", file=ops_feed("logs", days=5))
    assert len(server.database.journals()) == 1
    monkeypatch.setitem(entity_steps._UPDATE.do, "reparse", reparse)  # type: ignore[index]
    server.act("entity", "status", type="feed", name="logs")  # any action finishes it first
    assert server.database.journals() == []
    current = server.database.current("feed", "logs")
    assert current is not None and b"days(5)" in current.content
    assert [version.retired_because for version in server.database.history("feed", "logs")] == ["update"]


def test_every_request_is_in_the_audit_table(server: Server) -> None:
    server.act("entity", "submit", type="cluster", file=ops_cluster("east"))
    with pytest.raises(Refused):
        server.act("entity", "schedule", user="bob", type="feed", name="missing")
    lines = audit.commands(server.store())
    assert [(line["user"], line["action"], line["result"]) for line in lines] == [
        ("ann", "submit", "SUCCEEDED"), ("bob", "schedule", "REFUSED")]


def test_an_entity_of_the_entities_folder_is_seen_but_changed_only_there(server: Server) -> None:
    (server.entities / "east.xml").write_text(textwrap.dedent(ops_cluster("east")), encoding="utf-8")
    (server.entities / "counts.xml").write_text(textwrap.dedent(ops_feed("counts")), encoding="utf-8")
    server.act("entity", "submit", type="feed", file=ops_feed("logs"))  # the folder's cluster resolves
    with pytest.raises(Refused, match="entities folder"):
        server.act("entity", "delete", type="feed", name="counts")
    with pytest.raises(Refused, match="entities folder"):
        server.act("entity", "update", type="feed", name="counts", file=ops_feed("counts", days=4))
    assert (server.entities / "counts.xml").is_file() and server.database.journals() == []
    with pytest.raises(Refused, match=r"already registered|defined twice"):
        server.act("entity", "submit", type="cluster", file=ops_cluster("east", colo="elsewhere"))


def test_a_write_refuses_a_definition_another_server_changed_since_the_action_looked(server: Server) -> None:
    from falcon_airflow.operate.table_store import location

    store = server.store()
    store.write(location("feed", "raced"), b"<feed a='1'/>", replaces=None)
    with pytest.raises(Refused, match="already exists"):
        store.write(location("feed", "raced"), b"<feed b='1'/>", replaces=None)
    with pytest.raises(Refused, match="changed meanwhile"):
        store.write(location("feed", "raced"), b"<feed b='2'/>", replaces=b"<feed other='0'/>")
    current = server.database.current("feed", "raced")
    assert current is not None and current.content == b"<feed a='1'/>"


def test_an_action_sees_the_store_as_it_is_once_it_holds_the_lock(
        database: DatabaseStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What the authorization check read before the lock is not what the action decides on: a rival submitted
    through another server in between is seen, and refused as Falcon refused a second definition of a name."""
    from falcon_airflow.operate import gate

    monkeypatch.setenv("FALCON_AIRFLOW_WAIT", "0")
    airflow = FakeAirflow()
    first, second = Server(database, tmp_path / "a", airflow), Server(database, tmp_path / "b", airflow)
    first.act("entity", "submit", type="cluster", file=ops_cluster("east"))
    check = gate.Gate.check
    rival = ops_feed("logs", days=9)

    def check_then_rival(self: gate.Gate) -> None:
        check(self)
        monkeypatch.setattr(gate.Gate, "check", check)
        second.act("entity", "submit", user="bob", type="feed", file=rival)  # lands between the check and the lock

    monkeypatch.setattr(gate.Gate, "check", check_then_rival)
    with pytest.raises(Refused, match="already registered"):
        first.act("entity", "submit", type="feed", file=ops_feed("logs"))
    current = database.current("feed", "logs")
    assert current is not None and current.submitted_by == "bob" and b"days(9)" in current.content


def test_changes_reach_airflow_through_the_bundle_without_a_reparse_request(server: Server) -> None:
    """A re-parse of the store's DAG file would read the revision laid out before; the bundle's refresh brings the
    new one. So no request is made (and a slow Airflow never delays or garbles an answer)."""
    server.airflow.add_dag("falcon.feed.logs.retention.east", ("retention",))
    submit_pipeline(server)
    server.act("entity", "update", type="feed", name="logs", file=ops_feed("logs", days=5))
    assert server.airflow.reparse_requests == 0


def test_a_revision_is_read_once_per_process_and_a_change_anywhere_is_seen(
        database: DatabaseStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FALCON_AIRFLOW_WAIT", "0")
    airflow = FakeAirflow()
    first = Server(database, tmp_path / "a", airflow)
    second = Server(database, tmp_path / "b", airflow)
    (tmp_path / "a").mkdir()
    submit_pipeline(first)
    reads: list[int] = []
    definitions = DatabaseStore.definitions
    monkeypatch.setattr(DatabaseStore, "definitions",
                        lambda self, kind=None: reads.append(1) or definitions(self, kind))

    seen = [first.store().workspace() for _ in range(3)]
    assert len(reads) == 1 and seen[0] is seen[1] is seen[2]
    assert "logs" in seen[0].feeds

    # another server's change makes a new revision: the next request reads it
    second.act("entity", "update", user="bob", type="feed", name="logs", file=ops_feed("logs", days=5))
    reads.clear()
    after = first.store().workspace()
    assert after is not seen[0] and len(reads) == 1
    assert "days(5)" in (first.store().read(Path("store:feed/logs")) or b"").decode()

    # a file dropped into this server's entities folder makes another workspace, the store's revision unchanged
    (tmp_path / "a" / "extra.xml").write_text(textwrap.dedent(ops_cluster("west")))
    reads.clear()
    with_file = first.store().workspace()
    assert "west" in with_file.clusters and "west" not in after.clusters
