"""Feed export: one feed instance written into a database table over JDBC — Falcon's Sqoop export, on Spark.

Command line (``spark-submit --py-files <jobs zip> entry/db_export.py ARGS``)::

    --feed NAME --cluster NAME --instance yyyy-MM-ddTHH:mmZ --timezone ZONE
    --location TEMPLATE        the feed's data location with its storage base
    --url JDBC --driver CLASS --dialect postgres|mysql|sqlite|derby|hsql --table [schema.]TABLE
    --user NAME [--password-file PATH | --password-alias A --credential-provider P]   (see jdbc.py)
    --update-key a,b           Sqoop's --update-key: rows are matched on these columns
    --update-mode updateonly|allowinsert   with --update-key: update matches only, or also insert the others
    --num-mappers N            parallel writers into the staging table (default 4)
    --format parquet|orc|json|csv   how the instance is stored (default parquet)
    --input-null-string S --input-null-non-string S   csv instances: the text that stands for NULL
    --staging-lease-seconds S  how long other runs leave this run's staging table alone without a heartbeat
    --report PATH

Without ``--update-key`` the rows are inserted. Either way they first go, in parallel, into a staging table of
the run's own, ``<table>_fstg_<hash of feed, cluster, instance>_<run token>``, created like the target; then one
transaction records the instance in ``falcon_export_ledger`` and moves the rows into the target (INSERT … SELECT;
UPDATE … FROM/JOIN and INSERT … WHERE NOT EXISTS for updates). For an insert the ledger row comes first, as a plain
INSERT on its primary key: of two runs of one instance only one transaction can hold it (the database makes the
second wait for the first, then refuses it), so the check that the instance was not exported yet and the insert of
its rows are one atomic step - the loser inserts nothing and reports ``already_exported``. A run killed before the
commit leaves the target as it was (the database rolls the transaction back). Updates are idempotent and are
applied again; their ledger row is updated (locked) in their transaction.

Runs of one instance may overlap (a rerun beside the scheduled run, a retry beside a zombie try), so each run's
staging table is registered in ``falcon_export_staging`` with the run (its token, Airflow task try, lease) and a
heartbeat the run renews every quarter of its lease (``--staging-lease-seconds``, default 600; the driver hosts'
clocks are compared, so they must agree to well within a lease). A run drops only the staging tables of runs that
are over - heartbeat older than their lease, or an earlier try of the same Airflow task instance - and its own at
the end, whether it succeeded or failed.

Report: ``{"job", "feed", "cluster", "instance", "source", "table", "columns": [[name, type]], "rows", "inserted",
"updated", "mode", "already_exported", "stale_staging_dropped", "seconds"}`` (never a credential).
Exit 0 done, 1 failure (the target unchanged), 2 bad arguments.
"""

from __future__ import annotations

import argparse
import hashlib
import threading
import time
from collections.abc import Sequence
from contextlib import suppress
from typing import TYPE_CHECKING, Any

from falcon_airflow.core.paths import Template
from falcon_airflow.core.times import format_instant, parse_instant, parse_zone
from falcon_airflow.jobs import jdbc
from falcon_airflow.jobs.filesystem import HadoopFs
from falcon_airflow.jobs.frame import ArgumentParser, JobError, JobResult, UsageError, run_job, spark_session
from falcon_airflow.jobs.staging import DEFAULT_LEASE_SECONDS, RunOwner
from falcon_airflow.jobs.uris import parse_location

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

NAME = "db_export"
LEDGER = "falcon_export_ledger"
CLAIMS = "falcon_export_staging"
FORMATS = ("parquet", "orc", "json", "csv")


def parser() -> argparse.ArgumentParser:
    result = ArgumentParser(prog=NAME, description="Export one feed instance into a database table.")
    jdbc.add_instance_arguments(result)
    result.add_argument("--update-key", default=None)
    result.add_argument("--update-mode", default="updateonly", choices=("updateonly", "allowinsert"))
    result.add_argument("--num-mappers", type=int, default=4)
    result.add_argument("--format", default="parquet", choices=FORMATS)
    result.add_argument("--input-null-string", default=None)
    result.add_argument("--input-null-non-string", default=None)
    result.add_argument("--staging-lease-seconds", type=float, default=DEFAULT_LEASE_SECONDS)
    result.add_argument("--report", default=None)
    return result


def _instance_digest(table: str, feed: str, cluster: str, instance: str) -> str:
    return hashlib.sha1(f"{feed}|{cluster}|{instance}|{table}".encode()).hexdigest()[:10]


def staging_name(table: str, feed: str, cluster: str, instance: str, token: str) -> str:
    """The staging table of one run (``token``) of one (target, instance), in the target's schema, within 63
    characters (PostgreSQL): two runs of an instance never write into one staging table."""
    schema, _, bare = table.rpartition(".")
    name = f"{bare[:36]}_fstg_{_instance_digest(table, feed, cluster, instance)}_{token[:10].lower()}"
    return f"{schema}.{name}" if schema else name


def legacy_staging_name(table: str, feed: str, cluster: str, instance: str) -> str:
    """The one staging table per (target, instance) earlier versions used (dropped when found: their runs had no
    other way to clean up after a kill)."""
    schema, _, bare = table.rpartition(".")
    name = f"{bare[:40]}_fstg_{_instance_digest(table, feed, cluster, instance)}"
    return f"{schema}.{name}" if schema else name


def stale_staging(claims: Sequence[Sequence[str | None]], me: RunOwner, now: int) -> list[str]:
    """The staging tables of ``claims`` (rows of staging table, run owner, heartbeat in epoch milliseconds) whose
    runs are over: heartbeat older than the run's lease, or an earlier try of this run's Airflow task instance."""
    over = []
    for name, owner_text, heartbeat in claims:
        owner = RunOwner.from_text(owner_text or "")
        if name is None or (owner is not None and owner.token == me.token):
            continue
        seconds = owner.lease_seconds if owner is not None else DEFAULT_LEASE_SECONDS
        beat = int(heartbeat) if heartbeat and heartbeat.strip().lstrip("-").isdigit() else 0
        if (owner is not None and me.supersedes(owner)) or now - beat > seconds * 1000:
            over.append(name)
    return over


def create_like(dialect: str, staging: str, table: str) -> str:
    if dialect == "postgres":
        return f"CREATE TABLE {staging} (LIKE {table})"
    if dialect == "mysql":
        return f"CREATE TABLE {staging} LIKE {table}"
    if dialect == "hsql":
        return f"CREATE TABLE {staging} (LIKE {table})"
    return f"CREATE TABLE {staging} AS SELECT * FROM {table} WHERE 1 = 0"


def drop(dialect: str, staging: str) -> str:
    return f"DROP TABLE {staging}" if dialect == "derby" else f"DROP TABLE IF EXISTS {staging}"


def insert_sql(table: str, staging: str, columns: Sequence[str]) -> str:
    names = jdbc.quote_list(columns)
    return f"INSERT INTO {table} ({names}) SELECT {names} FROM {staging}"


def _match(keys: Sequence[str], left: str, right: str) -> str:
    return " AND ".join(f"{left}.{key} = {right}.{key}" for key in keys)


def update_sql(dialect: str, table: str, staging: str, columns: Sequence[str], keys: Sequence[str]) -> str:
    others = [name for name in columns if name.lower() not in {key.lower() for key in keys}]
    if not others:
        return ""
    if dialect == "postgres":
        sets = ", ".join(f"{name} = falcon_s.{name}" for name in others)
        return (f"UPDATE {table} AS falcon_t SET {sets} FROM {staging} AS falcon_s "
                f"WHERE {_match(keys, 'falcon_t', 'falcon_s')}")
    if dialect == "mysql":
        sets = ", ".join(f"falcon_t.{name} = falcon_s.{name}" for name in others)
        return (f"UPDATE {table} AS falcon_t JOIN {staging} AS falcon_s ON {_match(keys, 'falcon_t', 'falcon_s')} "
                f"SET {sets}")
    bare = table.rpartition(".")[2]
    match = " AND ".join(f"falcon_s.{key} = {bare}.{key}" for key in keys)
    sets = ", ".join(f"{name} = (SELECT falcon_s.{name} FROM {staging} falcon_s WHERE {match})" for name in others)
    return f"UPDATE {table} SET {sets} WHERE EXISTS (SELECT 1 FROM {staging} falcon_s WHERE {match})"


def insert_missing_sql(table: str, staging: str, columns: Sequence[str], keys: Sequence[str]) -> str:
    names = jdbc.quote_list(columns)
    picked = ", ".join(f"falcon_s.{name}" for name in columns)
    return (f"INSERT INTO {table} ({names}) SELECT {picked} FROM {staging} falcon_s WHERE NOT EXISTS "
            f"(SELECT 1 FROM {table} falcon_t WHERE {_match(keys, 'falcon_t', 'falcon_s')})")


def _ensure_table(handle: Any, name: str, columns: str) -> None:
    if _exists(handle, name):
        return
    try:
        jdbc.execute(handle, f"CREATE TABLE {name} ({columns})")
    except Exception:
        if not _exists(handle, name):  # another run created it meanwhile: fine
            raise


def ensure_ledger(handle: Any) -> None:
    _ensure_table(handle, LEDGER, "feed VARCHAR(200) NOT NULL, cluster VARCHAR(200) NOT NULL, "
                                  "target_table VARCHAR(200) NOT NULL, instance VARCHAR(20) NOT NULL, "
                                  "row_count BIGINT NOT NULL, PRIMARY KEY (feed, cluster, target_table, instance)")


def ensure_claims(handle: Any) -> None:
    _ensure_table(handle, CLAIMS, "staging_table VARCHAR(128) NOT NULL PRIMARY KEY, feed VARCHAR(200) NOT NULL, "
                                  "cluster VARCHAR(200) NOT NULL, target_table VARCHAR(200) NOT NULL, "
                                  "instance VARCHAR(20) NOT NULL, run_owner VARCHAR(1000) NOT NULL, "
                                  "heartbeat BIGINT NOT NULL")


def _now_ms() -> int:
    return int(time.time() * 1000)


def _duplicate_key(problem: BaseException) -> bool:
    """Whether a failed statement broke a unique key (SQLSTATE class 23; SQLite reports no state, only a
    message)."""
    java = getattr(problem, "java_exception", None)
    state = ""
    with suppress(Exception):
        state = str(java.getSQLState() or "") if java is not None else ""
    return state.startswith("23") or "UNIQUE constraint failed" in jdbc.java_message(problem)


def commit_instance(handle: Any, *, dialect: str, table: str, staging: str, columns: Sequence[str],
                    keys: Sequence[str], mode: str, ledger_key: str, ledger_values: str) -> tuple[int, int, int, bool]:
    """The transaction that makes the export real: (rows staged, inserted, updated, already exported).

    For an insert the ledger row is inserted first: the primary key lets one transaction per instance hold it,
    a concurrent one waits for it and is then refused (it has committed: the instance is exported) or let through
    (it rolled back) - never both insert. Updates lock their ledger row by updating it first."""
    handle.setAutoCommit(False)
    try:
        rows = int(jdbc.query(handle, f"SELECT COUNT(*) FROM {staging}")[0][0] or 0)
        inserted = updated = 0
        values = f"VALUES ({ledger_values}, {rows})"
        if mode == "insert":
            try:
                jdbc.execute(handle, f"INSERT INTO {LEDGER} (feed, cluster, target_table, instance, row_count) "
                                     f"{values}")
            except Exception as problem:
                if not _duplicate_key(problem):
                    raise
                handle.rollback()
                return 0, 0, 0, True
            inserted = jdbc.execute(handle, insert_sql(table, staging, columns))
        else:
            if not jdbc.execute(handle, f"UPDATE {LEDGER} SET row_count = {rows} WHERE {ledger_key}"):
                jdbc.execute(handle, f"INSERT INTO {LEDGER} (feed, cluster, target_table, instance, row_count) "
                                     f"{values}")
            statement = update_sql(dialect, table, staging, columns, keys)
            updated = jdbc.execute(handle, statement) if statement else 0
            if mode == "upsert":
                inserted = jdbc.execute(handle, insert_missing_sql(table, staging, columns, keys))
        handle.commit()
        return rows, inserted, updated, False
    except BaseException:
        handle.rollback()
        raise
    finally:
        handle.setAutoCommit(True)


class StagingClaim:
    """A run's staging table: registered in ``falcon_export_staging`` (with the run and a heartbeat renewed every
    quarter of its lease by a daemon thread on a connection of its own) for as long as the run uses it; dropped,
    with its registration, when the run leaves it."""

    def __init__(self, session: Any, args: argparse.Namespace, credentials: tuple[str | None, str | None],
                 staging: str, owner: RunOwner, key_values: str) -> None:
        self.session, self.args, self.credentials = session, args, credentials
        self.staging, self.owner, self.key_values = staging, owner, key_values
        self._stop = threading.Event()
        self._beat: threading.Thread | None = None

    def _connection(self) -> Any:
        return jdbc.connection(self.session, self.args, *self.credentials)

    def __enter__(self) -> StagingClaim:
        # registered before it exists: a staging table is never without the run that owns it
        with self._connection() as handle:
            jdbc.execute(handle, f"INSERT INTO {CLAIMS} (staging_table, feed, cluster, target_table, instance, "
                                 f"run_owner, heartbeat) VALUES ({_sql_text(self.staging)}, {self.key_values}, "
                                 f"{_sql_text(self.owner.to_text())}, {_now_ms()})")
            try:
                jdbc.execute(handle, create_like(self.args.dialect, self.staging, jdbc.table_name(self.args.table)))
            except BaseException:
                jdbc.execute(handle, f"DELETE FROM {CLAIMS} WHERE staging_table = {_sql_text(self.staging)}")
                raise
        self._beat = threading.Thread(target=self._renew, name="falcon-export-lease", daemon=True)
        self._beat.start()
        return self

    def _renew(self) -> None:
        interval = max(0.05, self.owner.lease_seconds / 4)
        with suppress(Exception), self._connection() as handle:  # a lost connection: the lease lapses, as it should
            while not self._stop.wait(interval):
                jdbc.execute(handle, f"UPDATE {CLAIMS} SET heartbeat = {_now_ms()} "
                                     f"WHERE staging_table = {_sql_text(self.staging)}")

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._beat is not None:
            self._beat.join(timeout=30)
        # the table first, its registration after: never a table without one. Best effort: a table left here has
        # a heartbeat that no longer moves, and the next run of the instance drops it once the lease has passed.
        with suppress(Exception), self._connection() as handle:
            if _exists(handle, self.staging):
                jdbc.execute(handle, drop(self.args.dialect, self.staging))
            jdbc.execute(handle, f"DELETE FROM {CLAIMS} WHERE staging_table = {_sql_text(self.staging)}")


def drop_stale_staging(handle: Any, dialect: str, ledger_key: str, legacy: str, me: RunOwner) -> list[str]:
    """Drop the staging tables of this instance whose runs are over (and the one earlier versions used); the
    staging tables of live runs stay. The tables dropped."""
    claims = jdbc.query(handle, f"SELECT staging_table, run_owner, heartbeat FROM {CLAIMS} WHERE {ledger_key}")
    dropped = []
    for name in stale_staging(claims, me, _now_ms()):
        if _exists(handle, name):
            jdbc.execute(handle, drop(dialect, name))
        jdbc.execute(handle, f"DELETE FROM {CLAIMS} WHERE staging_table = {_sql_text(name)}")
        dropped.append(name)
    if _exists(handle, legacy):
        jdbc.execute(handle, drop(dialect, legacy))
        dropped.append(legacy)
    return dropped


def _sql_text(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def run(args: argparse.Namespace, spark: SparkSession | None = None) -> JobResult:
    if args.num_mappers < 1:
        raise UsageError("--num-mappers must be at least 1")
    if args.staging_lease_seconds <= 0:
        raise UsageError("--staging-lease-seconds must be positive")
    table = jdbc.table_name(args.table)
    keys = [jdbc.column_name(name) for name in args.update_key.split(",")] if args.update_key else []
    mode = ("upsert" if args.update_mode == "allowinsert" else "update") if keys else "insert"
    instance = parse_instant(args.instance)
    instance_text = format_instant(instance)
    zone = parse_zone(args.timezone)
    source = str(parse_location(Template.parse(args.location).resolve(instance, zone), "instance"))
    owner = RunOwner.current(args.staging_lease_seconds)
    staging = staging_name(table, args.feed, args.cluster, instance_text, owner.token)
    ledger_key = (f"feed = {_sql_text(args.feed)} AND cluster = {_sql_text(args.cluster)} AND "
                  f"target_table = {_sql_text(table)} AND instance = {_sql_text(instance_text)}")
    key_values = (f"{_sql_text(args.feed)}, {_sql_text(args.cluster)}, {_sql_text(table)}, "
                  f"{_sql_text(instance_text)}")
    inserted = updated = 0
    already = False
    dropped: list[str] = []
    with spark_session(f"falcon-export-{args.feed}", spark) as session:
        user, password = jdbc.credentials(session, args)
        reader = session.read.format(args.format)
        if args.format == "csv":
            reader = reader.option("header", "true").option("inferSchema", "true")
            if args.input_null_string is not None:
                reader = reader.option("nullValue", args.input_null_string)
        fs = HadoopFs(session)
        if not fs.exists(source):
            raise JobError(f"feed instance {source} does not exist")
        frame = reader.load(source)
        with jdbc.connection(session, args, user, password) as handle:
            target_columns = jdbc.columns_of(handle, table)
            by_name = {name.lower(): name for name, _ in target_columns}
            missing = [name for name in frame.columns if name.lower() not in by_name]
            if missing:
                raise JobError(f"table {table} has no column(s) {', '.join(missing)} of the feed instance")
            absent_keys = [key for key in keys if key.lower() not in {c.lower() for c in frame.columns}]
            if absent_keys:
                raise JobError(f"update key column(s) {', '.join(absent_keys)} are not in the feed instance")
            columns = [by_name[name.lower()] for name in frame.columns]
            frame = frame.toDF(*columns)
            ensure_ledger(handle)
            ensure_claims(handle)
            # a committed insert of this instance: nothing to stage (the transaction below decides, this only
            # spares a run the copy when the answer is already known)
            if mode == "insert" and jdbc.query(handle, f"SELECT row_count FROM {LEDGER} WHERE {ledger_key}"):
                already = True
            else:
                dropped = drop_stale_staging(handle, args.dialect, ledger_key,
                                             legacy_staging_name(table, args.feed, args.cluster, instance_text), owner)
        rows = 0
        if not already:
            with StagingClaim(session, args, (user, password), staging, owner, key_values):
                options = jdbc.spark_options(args, user, password)
                options.update(jdbc.write_options(args.dialect))
                options.update(dbtable=staging, batchsize="10000", numPartitions=str(args.num_mappers))
                frame.repartition(args.num_mappers).write.format("jdbc").options(**options).mode("append").save()
                with jdbc.connection(session, args, user, password) as handle:
                    rows, inserted, updated, already = commit_instance(
                        handle, dialect=args.dialect, table=table, staging=staging, columns=columns, keys=keys,
                        mode=mode, ledger_key=ledger_key, ledger_values=key_values)
    report: dict[str, Any] = {
        "job": NAME, "feed": args.feed, "cluster": args.cluster, "instance": instance_text, "source": source,
        "table": table, "columns": [[name, kind] for name, kind in target_columns
                                    if name.lower() in {c.lower() for c in columns}],
        "rows": rows, "inserted": inserted, "updated": updated, "mode": mode, "already_exported": already,
        "stale_staging_dropped": dropped}
    summary = {key: report[key] for key in ("job", "feed", "instance", "table", "rows", "inserted", "updated",
                                            "already_exported")}
    return JobResult(summary=summary, report=report)


def _exists(handle: Any, relation: str) -> bool:
    try:
        jdbc.query(handle, f"SELECT 1 FROM {relation} WHERE 1 = 0")
        return True
    except Exception:
        return False


def main(argv: Sequence[str] | None = None, spark: SparkSession | None = None) -> int:
    return run_job(NAME, parser(), argv, lambda args: run(args, spark))

