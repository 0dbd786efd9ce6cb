"""Import and export against real PostgreSQL and MariaDB: 1,000,000 rows read by 4 Spark tasks and checked row for
row (count and an order-independent checksum), written back with insert and with upsert, and an export whose
Spark driver is killed with SIGKILL mid-way and then re-run, which leaves every row exactly once."""

from __future__ import annotations

import contextlib
import csv
import hashlib
import json
import os
import signal
import stat
import time
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from tests.integration.databases import servers, submit
from tests.integration.databases.conftest import ROWS

pytestmark = pytest.mark.xdist_group("databases")

INSTANCE = "2026-02-01T00:00Z"
KILL_TIMEOUT_SECONDS = 300


def instance_folder(root: Path) -> Path:
    return root / "orders" / "2026-02-01"


def common_arguments(server: servers.Server, root: Path, table: str) -> list[str]:
    dialect = "postgres" if server.kind == "postgres" else "mysql"
    return ["--feed", "orders", "--cluster", "local", "--instance", INSTANCE, "--timezone", "UTC",
            "--location", f"file://{root}/orders/${{YEAR}}-${{MONTH}}-${{DAY}}", "--url", server.url,
            "--driver", server.driver, "--dialect", dialect, "--table", table, "--user", server.user]


def password_file(folder: Path, server: servers.Server) -> Path:
    path = folder / "password"
    path.write_text(server.password + "\n")
    path.chmod(stat.S_IRUSR | stat.S_IWUSR)
    return path


def credentials_file(folder: Path, server: servers.Server) -> Path:
    """What the Airflow task writes for a password-text credential."""
    path = folder / "credentials.json"
    path.write_text(json.dumps({"user": server.user, "password": server.password}))
    path.chmod(stat.S_IRUSR | stat.S_IWUSR)
    return path


def run(job: str, server: servers.Server, arguments: list[str], **options: Any) -> dict[str, Any]:
    done = submit.submit(job, server.driver, arguments, **options)
    output = done.stdout + done.stderr
    assert done.returncode == 0, output[-4000:]
    assert server.password not in output
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def row_text(values: tuple[Any, ...]) -> str:
    identifier, customer, amount, placed, note = values
    return f"{identifier}|{customer}|{amount}|{placed:%Y-%m-%d %H:%M:%S}|{note or ''}"


def instance_fingerprint(folder: Path) -> tuple[int, int]:
    """(rows, sum of the first 32 bits of each row's MD5) of the Parquet instance."""
    table = pq.read_table(folder, columns=["id", "customer", "amount", "placed", "note"])
    total = 0
    for values in zip(*(table.column(name).to_pylist() for name in table.column_names), strict=True):
        total += int(hashlib.md5(row_text(values).encode()).hexdigest()[:8], 16)
    return table.num_rows, total


def table_fingerprint(server: servers.Server, table: str, where: str = "1 = 1") -> tuple[int, int]:
    if server.kind == "postgres":
        text = ("id || '|' || customer || '|' || amount || '|' || to_char(placed, 'YYYY-MM-DD HH24:MI:SS') "
                "|| '|' || coalesce(note, '')")
        digest = f"('x' || substr(md5({text}), 1, 8))::bit(32)::bigint"
    else:
        text = ("CONCAT(id, '|', customer, '|', amount, '|', DATE_FORMAT(placed, '%Y-%m-%d %H:%i:%s'), '|', "
                "COALESCE(note, ''))")
        digest = f"CAST(CONV(SUBSTR(MD5({text}), 1, 8), 16, 10) AS UNSIGNED)"
    count, total = server.sql(f"SELECT COUNT(*), COALESCE(SUM({digest}), 0) FROM {table} WHERE {where}").split()
    return int(count), int(total)


def like(server: servers.Server, table: str) -> None:
    if server.kind == "postgres":
        server.sql(f"CREATE TABLE {table} (LIKE orders INCLUDING ALL)")
    else:
        server.sql(f"CREATE TABLE {table} LIKE orders")


def import_instance(server: servers.Server, root: Path, secrets: Path) -> dict[str, Any]:
    arguments = [*common_arguments(server, root, "orders"), "--split-by", "id", "--num-mappers", "4"]
    if server.kind == "postgres":
        return run("db_import.py", server, [*arguments, "--password-file", str(password_file(secrets, server))],
                   credential_roots=[secrets])
    return run("db_import.py", server, arguments, credentials=credentials_file(secrets, server))


@pytest.fixture(scope="module")
def postgres_instance(postgres: servers.Server,
                      tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    """The PostgreSQL table imported once for the tests of this module: (storage root, job summary)."""
    folder = tmp_path_factory.mktemp("postgres")
    root = folder / "storage"
    return root, import_instance(postgres, root, folder)


def check_import(server: servers.Server, root: Path, summary: dict[str, Any]) -> None:
    assert summary["rows"] == ROWS and summary["partitions"] == 4
    folder = instance_folder(root)
    assert (folder / "_SUCCESS").exists()
    assert len(list(folder.glob("part-*.parquet"))) == 4
    assert instance_fingerprint(folder) == table_fingerprint(server, "orders")


def check_insert_and_upsert(server: servers.Server, root: Path, tmp_path: Path) -> None:
    secrets = credentials_file(tmp_path, server)
    expected = table_fingerprint(server, "orders")
    like(server, "orders_copy")
    summary = run("db_export.py", server, common_arguments(server, root, "orders_copy"), credentials=secrets)
    assert (summary["inserted"], summary["already_exported"]) == (ROWS, False)
    assert table_fingerprint(server, "orders_copy") == expected

    like(server, "orders_upsert")  # half the rows stale, one row the feed does not have
    server.sql("INSERT INTO orders_upsert SELECT id, 'stale', 0, placed, NULL FROM orders WHERE id % 2 = 0")
    server.sql(f"INSERT INTO orders_upsert VALUES ({ROWS + 7}, 'kept', 1.5, '2030-01-01 00:00:00', NULL)")
    summary = run("db_export.py", server, [*common_arguments(server, root, "orders_upsert"), "--update-key", "id",
                                           "--update-mode", "allowinsert"], credentials=secrets)
    assert (summary["updated"], summary["inserted"]) == (ROWS // 2, ROWS // 2)
    assert table_fingerprint(server, "orders_upsert", f"id <= {ROWS}") == expected
    assert table_fingerprint(server, "orders_upsert", f"id > {ROWS}")[0] == 1


def test_postgres_import_then_export_with_insert_and_upsert(
        postgres: servers.Server, postgres_instance: tuple[Path, dict[str, Any]], tmp_path: Path) -> None:
    root, summary = postgres_instance
    check_import(postgres, root, summary)
    check_insert_and_upsert(postgres, root, tmp_path)


def test_postgres_direct_import_streams_copy_into_csv_part_files(postgres: servers.Server, tmp_path: Path) -> None:
    root = tmp_path / "storage"
    arguments = [*common_arguments(postgres, root, "orders"), "--split-by", "id", "--num-mappers", "4", "--direct",
                 "--format", "csv", "--password-file", str(password_file(tmp_path, postgres))]
    summary = run("db_import.py", postgres, arguments, credential_roots=[tmp_path])
    assert summary["rows"] == ROWS and summary["partitions"] == 4
    folder = instance_folder(root)
    assert (folder / "_SUCCESS").exists() and not list(root.glob("orders/.*"))  # published, no staging left
    parts = sorted(folder.glob("part-*.csv"))
    assert len(parts) == 4
    rows, total = 0, 0
    for part in parts:
        with part.open(newline="") as handle:
            reader = csv.reader(handle)
            assert next(reader) == ["id", "customer", "amount", "placed", "note"]  # a header per part file
            for identifier, customer, amount, placed, note in reader:
                text = f"{identifier}|{customer}|{amount}|{placed}|{note}"
                total += int(hashlib.md5(text.encode()).hexdigest()[:8], 16)
                rows += 1
    assert (rows, total) == table_fingerprint(postgres, "orders")


def parquet_table(folder: Path, key: str) -> pa.Table:
    """The instance's rows (part files only: flags and Spark's marker files are not data), ordered by ``key``."""
    return pq.read_table(folder).sort_by(key)


def same_parquet(direct: Path, spark: Path, key: str) -> None:
    """The direct import reads back with the schema and the values of Spark's JDBC import."""
    ours, theirs = parquet_table(direct, key), parquet_table(spark, key)
    assert ours.schema.remove_metadata() == theirs.schema.remove_metadata()
    assert ours.num_rows == theirs.num_rows
    for name in theirs.column_names:
        assert ours.column(name).combine_chunks().equals(theirs.column(name).combine_chunks()), name


def test_postgres_direct_import_of_a_parquet_feed_reads_back_as_the_spark_import(
        postgres: servers.Server, postgres_instance: tuple[Path, dict[str, Any]], tmp_path: Path) -> None:
    spark_root, _ = postgres_instance
    root = tmp_path / "storage"
    arguments = [*common_arguments(postgres, root, "orders"), "--split-by", "id", "--num-mappers", "4", "--direct",
                 "--password-file", str(password_file(tmp_path, postgres))]
    done = submit.submit("db_import.py", postgres.driver, arguments, credential_roots=[tmp_path])
    assert done.returncode == 0, (done.stdout + done.stderr)[-4000:]
    assert "importing through Spark" not in done.stdout + done.stderr
    summary = json.loads(done.stdout.strip().splitlines()[-1])
    assert summary["rows"] == ROWS and summary["partitions"] == 4
    folder = instance_folder(root)
    assert (folder / "_SUCCESS").exists() and not list(root.glob("orders/.*"))  # published, no staging left
    assert sorted(part.name for part in folder.glob("part-*")) == [f"part-{i:05d}.parquet" for i in range(4)]
    assert instance_fingerprint(folder) == table_fingerprint(postgres, "orders")
    same_parquet(folder, instance_folder(spark_root), "id")


def test_postgres_direct_parquet_keeps_every_type_and_null_as_spark_and_falls_back_on_others(
        postgres: servers.Server, tmp_path: Path) -> None:
    postgres.sql("CREATE TABLE typed (id INTEGER, big BIGINT, price NUMERIC(10,3), ratio DOUBLE PRECISION, "
                 "small REAL, flag BOOLEAN, day DATE, at TIMESTAMP, name VARCHAR(20), body TEXT)")
    postgres.sql("INSERT INTO typed VALUES "
                 "(1, 9007199254740993, -1234567.125, 0.1, 1.5, true, '2026-02-28', "
                 "'2026-03-01 05:00:00.123456', 'a,b', 'line one\nline \"two\"'), "
                 "(2, -1, 0.001, -1e300, -0.25, false, '1970-01-01', '1999-12-31 23:59:59', '', ''), "
                 "(3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL), "
                 "(NULL, 5, 7, '-Infinity', 'Infinity', true, '2000-02-29', '2000-02-29 12:00:00.5', 'NULL', ' x ')")
    secret = str(password_file(tmp_path, postgres))
    folders = {}
    for mode, extra in (("spark", []), ("direct", ["--direct"])):
        root = tmp_path / mode
        arguments = [*common_arguments(postgres, root, "typed"), "--split-by", "id", "--num-mappers", "2",
                     "--password-file", secret, *extra]
        summary = run("db_import.py", postgres, arguments, credential_roots=[tmp_path])
        assert summary["rows"] == 4
        folders[mode] = instance_folder(root)
    same_parquet(folders["direct"], folders["spark"], "big")
    values = parquet_table(folders["direct"], "big").to_pylist()
    assert [row["name"] for row in values] == ["", "NULL", "a,b", None]  # NULL and '' stay apart

    postgres.sql("CREATE TABLE zoned (id INTEGER, at TIMESTAMPTZ)")
    postgres.sql("INSERT INTO zoned VALUES (1, '2026-03-01 05:00:00+02')")
    root = tmp_path / "zoned"
    arguments = [*common_arguments(postgres, root, "zoned"), "--direct", "--password-file", secret]
    done = submit.submit("db_import.py", postgres.driver, arguments, credential_roots=[tmp_path])
    assert done.returncode == 0, (done.stdout + done.stderr)[-4000:]
    assert "--direct: importing through Spark's JDBC source: column at is timestamptz" in done.stdout + done.stderr
    assert pq.read_table(instance_folder(root)).num_rows == 1


def test_mariadb_import_then_export_with_insert_and_upsert(mariadb: servers.Server, tmp_path: Path) -> None:
    root = tmp_path / "storage"
    check_import(mariadb, root, import_instance(mariadb, root, tmp_path))
    check_insert_and_upsert(mariadb, root, tmp_path)


def test_export_killed_mid_way_then_rerun_leaves_every_row_once(
        postgres: servers.Server, postgres_instance: tuple[Path, dict[str, Any]], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    root, _ = postgres_instance
    # try 1 of the export task is killed; try 2 knows the staging table of try 1 is no live run's
    monkeypatch.setenv("AIRFLOW_CTX_DAG_ID", "falcon.feed.orders.export.local")
    monkeypatch.setenv("AIRFLOW_CTX_DAG_RUN_ID", "scheduled__2026-02-01T00:00:00+00:00")
    monkeypatch.setenv("AIRFLOW_CTX_TASK_ID", "export")
    monkeypatch.setenv("AIRFLOW_CTX_TRY_NUMBER", "1")
    expected = table_fingerprint(postgres, "orders")
    like(postgres, "orders_killed")
    # Spark commits each writer's rows into the staging table when the writer ends: 4 writers on 2 task slots make
    # the first half visible while the second half is still being written, which is when the driver is killed.
    arguments = [*common_arguments(postgres, root, "orders_killed"), "--num-mappers", "4"]
    secrets = credentials_file(tmp_path, postgres)
    process = submit.start("db_export.py", postgres.driver, arguments, log=tmp_path / "killed.log",
                           credentials=secrets)
    staged = 0
    deadline = time.monotonic() + KILL_TIMEOUT_SECONDS
    try:
        while time.monotonic() < deadline and process.poll() is None:
            found = postgres.sql("SELECT c.relname FROM pg_class c WHERE c.relname LIKE 'orders_killed_fstg_%' "
                                 "AND c.relkind = 'r'").split()
            if found:
                staged = int(postgres.sql(f"SELECT COUNT(*) FROM {found[0]}").strip() or 0)
                if staged > 0:  # Spark's writers have committed some batches into the staging table
                    break
            time.sleep(0.2)
        assert process.poll() is None, (tmp_path / "killed.log").read_text()[-3000:]
        os.kill(process.pid, signal.SIGKILL)  # the spark-submit JVM is the Spark driver
    finally:
        if process.poll() is None:
            time.sleep(0.5)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)  # and the Python driver it started
        process.wait(timeout=60)
    assert 0 < staged < ROWS
    assert table_fingerprint(postgres, "orders_killed")[0] == 0  # nothing half-visible

    monkeypatch.setenv("AIRFLOW_CTX_TRY_NUMBER", "2")
    summary = run("db_export.py", postgres, arguments, credentials=secrets)
    assert summary["inserted"] == ROWS
    assert table_fingerprint(postgres, "orders_killed") == expected
    again = run("db_export.py", postgres, arguments, credentials=secrets)  # a rerun of a committed export
    assert (again["inserted"], again["already_exported"]) == (0, True)
    assert table_fingerprint(postgres, "orders_killed") == expected
    leftovers = postgres.sql("SELECT COUNT(*) FROM pg_class WHERE relname LIKE 'orders_killed_fstg_%'").strip()
    assert leftovers == "0"
