"""The store's tables come from ``airflow db migrate`` and its migrations match :mod:`falcon_airflow.store.tables`,
on SQLite (make run) and PostgreSQL (production); the store works on PostgreSQL as it does on SQLite."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import uuid
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import create_engine, inspect, text
from tests.builders import ops_cluster
from tests.integration.airflow_database import airflow_database
from tests.integration.databases.servers import Server

from falcon_airflow.store import tables
from falcon_airflow.store.database import ABSENT, DatabaseStore, StoreConflict

AIRFLOW = str(Path(sys.executable).with_name("airflow"))


def _migrate(home: Path, url: str, *extra: str) -> subprocess.CompletedProcess[str]:
    # the provider info's db-managers names the store's manager: nothing to configure
    env = {**os.environ, "AIRFLOW_HOME": str(home), "AIRFLOW__DATABASE__SQL_ALCHEMY_CONN": url,
           "AIRFLOW__CORE__LOAD_EXAMPLES": "False"}
    env.pop("AIRFLOW__DATABASE__EXTERNAL_DB_MANAGERS", None)
    return subprocess.run([AIRFLOW, "db", "migrate", *extra], capture_output=True, text=True, env=env,
                          timeout=600, check=False)


def _differences(url: str) -> list[object]:
    engine = create_engine(url)
    with engine.connect() as connection:
        context = MigrationContext.configure(connection, opts={
            "compare_type": True, "include_object": lambda _o, name, kind, *_: not (
                kind == "table" and name not in tables.metadata.tables)})
        return list(compare_metadata(context, tables.metadata))


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'airflow.db'}"
    server: Server = request.getfixturevalue("airflow_postgres")
    return airflow_database(server, f"store_{uuid.uuid4().hex[:8]}")


@pytest.mark.parametrize("use_migration_files", [False, True], ids=["from-tables", "from-migrations"])
def test_airflow_db_migrate_makes_the_store_s_tables(database_url: str, tmp_path: Path,
                                                      use_migration_files: bool) -> None:
    extra = ("--use-migration-files",) if use_migration_files else ()
    done = _migrate(tmp_path, database_url, *extra)
    assert done.returncode == 0, done.stderr[-3000:]
    engine = create_engine(database_url)
    names = set(inspect(engine).get_table_names())
    assert set(tables.metadata.tables) <= names and "alembic_version_falcon" in names
    with engine.connect() as connection:
        assert connection.execute(text("SELECT revision FROM falcon_store_revision WHERE id = 1")).scalar() == 0
        assert connection.execute(text("SELECT version_num FROM alembic_version_falcon")).scalar() == "f1a0c0de0002"
    assert _differences(database_url) == []
    # a second run is an upgrade with nothing to do
    again = _migrate(tmp_path, database_url)
    assert again.returncode == 0, again.stderr[-3000:]


def test_the_store_on_postgresql(airflow_postgres: Server, tmp_path: Path) -> None:
    url = airflow_database(airflow_postgres, f"store_{uuid.uuid4().hex[:8]}")
    assert _migrate(tmp_path, url).returncode == 0
    store = DatabaseStore(create_engine(url))
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
    store.set_schedule_state("feed", "raced", "RUNNING", user="ann")
    snapshot = store.snapshot()
    assert [item.name for item in snapshot.definitions] == ["raced"]
    assert snapshot.schedule_states == {("feed", "raced"): "RUNNING"} and snapshot.revision == 2


def test_store_import_copies_a_folder_into_the_migrated_database(tmp_path: Path) -> None:
    """The documented migration of a local store: ``airflow db migrate``, then ``falcon-airflow store import``."""
    url = f"sqlite:///{tmp_path / 'airflow.db'}"
    assert _migrate(tmp_path, url).returncode == 0
    entities = tmp_path / "entities"
    (entities / "clusters").mkdir(parents=True)
    (entities / "clusters" / "east.xml").write_text(ops_cluster("east"), encoding="utf-8")
    (entities / "clusters" / "broken.xml").write_text('<cluster name="broken" xmlns="uri:falcon:cluster:0.1"/>',
                                                       encoding="utf-8")
    env = {**os.environ, "AIRFLOW_HOME": str(tmp_path), "AIRFLOW__DATABASE__SQL_ALCHEMY_CONN": url,
           "AIRFLOW__CORE__LOAD_EXAMPLES": "False"}
    program = str(Path(sys.executable).with_name("falcon-airflow"))
    command = [program, "store", "import", "--entities", str(entities), "--state", str(tmp_path / "state")]
    first = subprocess.run(command, capture_output=True, text=True, env=env, timeout=300, check=False)
    assert first.returncode == 0, first.stderr[-2000:]
    assert "imported cluster east" in first.stdout and "imported cluster broken" in first.stdout
    again = subprocess.run(command, capture_output=True, text=True, env=env, timeout=300, check=False)
    assert again.returncode == 0 and "already in the store: cluster east" in again.stdout
    store = DatabaseStore(create_engine(url))
    assert [(item.kind, item.name) for item in store.definitions()] == [("cluster", "broken"), ("cluster", "east")]
