"""The SQLite metadata database ``make run`` starts Airflow on, made fit for five processes writing at once.

SQLite lets one writer in at a time. With its defaults (rollback journal, a 5 s busy wait) a reader blocks the
writers too, and an api-server request that meets a long scheduler transaction fails with "database is locked",
which the REST API answers as HTTP 500. Write-ahead logging lets readers and the writer run side by side, and a
longer busy wait lets writers queue instead of failing. Production deployments use PostgreSQL; none of this
applies there.
"""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

# ``[database] sql_alchemy_connect_args`` names this dict: the sqlite3 driver's busy wait, in seconds.
CONNECT_ARGS = {"timeout": 60}


def use_write_ahead_log(database: Path) -> str:
    """Switch the database file to write-ahead logging (a property of the file, kept across connections)."""
    with sqlite3.connect(database, timeout=CONNECT_ARGS["timeout"]) as connection:
        (mode,) = connection.execute("PRAGMA journal_mode=WAL").fetchone()
    return str(mode)


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m falcon_airflow.provider.embedded_database AIRFLOW_DB_FILE", file=sys.stderr)
        return 2
    database = Path(argv[0])
    if not database.is_file():
        print(f"{database}: no such SQLite database (run airflow db migrate first)", file=sys.stderr)
        return 1
    mode = use_write_ahead_log(database)
    if mode.lower() != "wal":
        print(f"{database}: SQLite kept journal mode {mode!r} instead of 'wal'", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
