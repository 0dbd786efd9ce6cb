"""``falcon-airflow store import``: a folder's store copied into the tables - definitions with their archive,
extension jobs, states, safemode, the audit log - idempotently, conflicts reported and left alone, nothing copied
while an action of the folder is unfinished."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import create_engine
from tests.builders import ops_cluster, ops_feed

from falcon_airflow.operate.config_store import Store
from falcon_airflow.server.store_import import import_folder_store
from falcon_airflow.store import tables
from falcon_airflow.store.database import ABSENT, DatabaseStore

HDFS_JOB = """jobName=mirror-logs
jobClusterName=east
jobValidityStart=2026-01-01T00:00Z
jobValidityEnd=2027-01-01T00:00Z
jobFrequency=hours(1)
sourceDir=/data/in
sourceCluster=east
targetDir=/data/out
targetCluster=east
"""


@pytest.fixture
def database(tmp_path: Path) -> DatabaseStore:
    engine = create_engine(f"sqlite:///{tmp_path / 'airflow.db'}")
    tables.metadata.create_all(engine)
    return DatabaseStore(engine)


@pytest.fixture
def folder(tmp_path: Path) -> Store:
    root = tmp_path / "entities"
    (root / "clusters").mkdir(parents=True)
    (root / "feeds").mkdir()
    (root / "clusters" / "east.xml").write_text(ops_cluster("east"), encoding="utf-8")
    (root / "feeds" / "logs.xml").write_text(ops_feed("logs", days=3), encoding="utf-8")
    (root / "extensions" / "hdfs-mirroring").mkdir(parents=True)
    (root / "extensions" / "hdfs-mirroring" / "mirror-logs.properties").write_text(HDFS_JOB, encoding="utf-8")
    store = Store(root, tmp_path / "state")
    store.archive("feed", "logs", ops_feed("logs", days=1).encode(), reason="update", user="bob")
    store.set_schedule_state("feed", "logs", "SUSPENDED", user="bob")
    store.set_proxy_user("feed", "logs", "etl", action="schedule")
    store.set_safemode(True, user="admin")
    store.append_audit(json.dumps({"time": "2026-03-01T00:00:00Z", "user": "bob", "action": "update"}))
    return store


def test_everything_the_folder_kept_is_copied(folder: Store, database: DatabaseStore) -> None:
    report = import_folder_store(folder, database, user="admin")
    assert sorted(report.imported) == ["cluster east", "extension mirror-logs", "feed logs"]
    assert report.exit_code == 0
    logs = database.current("feed", "logs")
    assert logs is not None and logs.content == ops_feed("logs", days=3).encode()
    history = database.history("feed", "logs")
    assert [(version.content, version.retired_by, version.retired_because) for version in history] == [
        (ops_feed("logs", days=1).encode(), "bob", "update")]
    job = database.current("extension", "mirror-logs")
    assert job is not None and job.variant == "hdfs-mirroring"
    assert database.schedule_state("feed", "logs") == "SUSPENDED"
    assert database.proxy_user("feed", "logs") == "etl"
    assert database.safemode is True
    assert [json.loads(line)["user"] for line in database.audit_lines()] == ["bob"]
    # the copy of a version never was in force here: the snapshots show only what was imported as current
    assert [item.name for item in database.snapshot().definitions] == ["east", "mirror-logs", "logs"]


def test_a_second_run_changes_nothing(folder: Store, database: DatabaseStore) -> None:
    import_folder_store(folder, database, user="admin")
    revision = database.revision()
    report = import_folder_store(folder, database, user="admin")
    assert report.imported == [] and len(report.unchanged) == 3 and report.exit_code == 0
    assert database.revision() == revision
    assert len(list(database.audit_lines())) == 1 and len(database.history("feed", "logs")) == 1


def test_a_definition_the_store_holds_otherwise_is_left_alone(folder: Store, database: DatabaseStore) -> None:
    database.put("feed", "logs", b"<feed other='yes'/>", user="ann", replaces=ABSENT)
    report = import_folder_store(folder, database, user="admin")
    assert report.exit_code == 1
    assert report.conflicts == ["feed logs: the store holds another definition (submitted by ann); settle it by hand"]
    current = database.current("feed", "logs")
    assert current is not None and current.content == b"<feed other='yes'/>"


def test_nothing_is_copied_while_an_action_of_the_folder_is_unfinished(folder: Store,
                                                                        database: DatabaseStore) -> None:
    folder.save_journal("20260301T000000.000000Z-abcd", json.dumps({"id": "x"}))
    report = import_folder_store(folder, database, user="admin")
    assert report.exit_code == 1 and "unfinished action" in report.conflicts[0]
    assert database.definitions() == [] and database.revision() == 0


def test_airflow_falcon_store_import_is_a_nested_airflow_command() -> None:
    from falcon_airflow.cli.airflow import airflow_cli_commands

    [group] = airflow_cli_commands()
    [store_group] = [item for item in group.subcommands if item.name == "store"]
    [import_command] = store_group.subcommands
    assert import_command.name == "import"
    assert {flag for arg in import_command.args for flag in arg.flags} == {"--entities", "--state"}
