"""make run's SQLite metadata database: write-ahead logging switched on once, on the file itself."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from falcon_airflow.provider.embedded_database import CONNECT_ARGS, main


def journal_mode(database: Path) -> str:
    with sqlite3.connect(database) as connection:
        return str(connection.execute("PRAGMA journal_mode").fetchone()[0])


def test_the_database_file_keeps_write_ahead_logging(tmp_path: Path) -> None:
    database = tmp_path / "airflow.db"
    with sqlite3.connect(database) as connection:
        connection.execute("CREATE TABLE dag (dag_id TEXT)")
    assert journal_mode(database) == "delete"
    assert main([str(database)]) == 0
    assert journal_mode(database) == "wal"  # a new connection sees it: it is the file's mode, not the session's
    assert main([str(database)]) == 0  # and switching again changes nothing


def test_a_missing_database_is_an_error_that_names_it(tmp_path: Path, capsys) -> None:
    assert main([str(tmp_path / "airflow.db")]) == 1
    assert f"{tmp_path / 'airflow.db'}: no such SQLite database" in capsys.readouterr().err
    assert not (tmp_path / "airflow.db").exists()  # never created by the check


def test_writers_wait_longer_than_sqlites_default() -> None:
    assert CONNECT_ARGS["timeout"] > 5
