"""Feed export: one feed instance written into a database table over JDBC — Falcon's Sqoop export, on Spark.

Command line (``spark-submit --py-files common.py,jdbc.py,<core zip> db_export.py ARGS``)::

    --feed NAME --cluster NAME --instance yyyy-MM-ddTHH:mmZ --timezone ZONE
    --location TEMPLATE        the feed's data location with its storage base
    --url JDBC --driver CLASS --dialect postgres|mysql|sqlite|derby|hsql --table [schema.]TABLE
    --user NAME [--password-file PATH | --password-alias A --credential-provider P]   (see jdbc.py)
    --update-key a,b           Sqoop's --update-key: rows are matched on these columns
    --update-mode updateonly|allowinsert   with --update-key: update matches only, or also insert the others
    --num-mappers N            parallel writers into the staging table (default 4)
    --format parquet|orc|json|csv   how the instance is stored (default parquet)
    --input-null-string S --input-null-non-string S   csv instances: the text that stands for NULL
    --report PATH

Without ``--update-key`` the rows are inserted. Either way they first go, in parallel, into a staging table
``<table>_fstg_<hash of feed, cluster, instance>`` created like the target; then one transaction moves them into
the target (INSERT … SELECT; UPDATE … FROM/JOIN and INSERT … WHERE NOT EXISTS for updates) and records the instance
in ``falcon_export_ledger``. A run killed before the commit leaves the target as it was (the database rolls the
transaction back; the staging table is rebuilt by the rerun); a rerun of an inserted instance that was committed
finds it in the ledger and inserts nothing, so rows never land twice. Updates are idempotent and are applied again.

Report: ``{"job", "feed", "cluster", "instance", "source", "table", "columns": [[name, type]], "rows", "inserted",
"updated", "mode", "already_exported", "seconds"}`` (never a credential).
Exit 0 done, 1 failure (the target unchanged), 2 bad arguments.
"""

from __future__ import annotations

import argparse
import hashlib
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

try:
    from . import common, jdbc
except ImportError:  # run by spark-submit with --py-files common.py,jdbc.py
    import common  # type: ignore[import-not-found, no-redef]
    import jdbc  # type: ignore[import-not-found, no-redef]

from falcon_airflow.core.paths import Template
from falcon_airflow.core.times import format_instant, parse_instant, parse_zone

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

NAME = "db_export"
LEDGER = "falcon_export_ledger"
FORMATS = ("parquet", "orc", "json", "csv")


def parser() -> argparse.ArgumentParser:
    result = common.ArgumentParser(prog=NAME, description="Export one feed instance into a database table.")
    result.add_argument("--feed", required=True)
    result.add_argument("--cluster", required=True)
    result.add_argument("--instance", required=True)
    result.add_argument("--timezone", default="UTC")
    result.add_argument("--location", required=True)
    jdbc.add_connection_arguments(result)
    result.add_argument("--update-key", default=None)
    result.add_argument("--update-mode", default="updateonly", choices=("updateonly", "allowinsert"))
    result.add_argument("--num-mappers", type=int, default=4)
    result.add_argument("--format", default="parquet", choices=FORMATS)
    result.add_argument("--input-null-string", default=None)
    result.add_argument("--input-null-non-string", default=None)
    result.add_argument("--report", default=None)
    return result


def staging_name(table: str, feed: str, cluster: str, instance: str) -> str:
    """One staging table per (target, instance), in the target's schema, within 63 characters (PostgreSQL)."""
    digest = hashlib.sha1(f"{feed}|{cluster}|{instance}|{table}".encode()).hexdigest()[:10]
    schema, _, bare = table.rpartition(".")
    name = f"{bare[:40]}_fstg_{digest}"
    return f"{schema}.{name}" if schema else name


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


def _ledger_exists(handle: Any) -> bool:
    try:
        jdbc.query(handle, f"SELECT 1 FROM {LEDGER} WHERE 1 = 0")
        return True
    except Exception:
        return False


def ensure_ledger(handle: Any) -> None:
    if _ledger_exists(handle):
        return
    try:
        jdbc.execute(handle, f"CREATE TABLE {LEDGER} (feed VARCHAR(200) NOT NULL, cluster VARCHAR(200) NOT NULL, "
                             "target_table VARCHAR(200) NOT NULL, instance VARCHAR(20) NOT NULL, "
                             "row_count BIGINT NOT NULL, "
                             "PRIMARY KEY (feed, cluster, target_table, instance))")
    except Exception:
        if not _ledger_exists(handle):  # another run created it meanwhile: fine
            raise


def _sql_text(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def run(args: argparse.Namespace, spark: SparkSession | None = None) -> common.JobResult:
    if args.num_mappers < 1:
        raise common.UsageError("--num-mappers must be at least 1")
    table = jdbc.table_name(args.table)
    keys = [jdbc.column_name(name) for name in args.update_key.split(",")] if args.update_key else []
    mode = ("upsert" if args.update_mode == "allowinsert" else "update") if keys else "insert"
    instance = parse_instant(args.instance)
    instance_text = format_instant(instance)
    zone = parse_zone(args.timezone)
    source = str(common.parse_location(Template.parse(args.location).resolve(instance, zone), "instance"))
    staging = staging_name(table, args.feed, args.cluster, instance_text)
    ledger_key = (f"feed = {_sql_text(args.feed)} AND cluster = {_sql_text(args.cluster)} AND "
                  f"target_table = {_sql_text(table)} AND instance = {_sql_text(instance_text)}")
    inserted = updated = 0
    already = False
    with common.spark_session(f"falcon-export-{args.feed}", spark) as session:
        user, password = jdbc.credentials(session, args)
        reader = session.read.format(args.format)
        if args.format == "csv":
            reader = reader.option("header", "true").option("inferSchema", "true")
            if args.input_null_string is not None:
                reader = reader.option("nullValue", args.input_null_string)
        fs = common.HadoopFs(session)
        if not fs.exists(source):
            raise common.JobError(f"feed instance {source} does not exist")
        frame = reader.load(source)
        with jdbc.connection(session, args, user, password) as handle:
            target_columns = jdbc.columns_of(handle, table)
            by_name = {name.lower(): name for name, _ in target_columns}
            missing = [name for name in frame.columns if name.lower() not in by_name]
            if missing:
                raise common.JobError(f"table {table} has no column(s) {', '.join(missing)} of the feed instance")
            absent_keys = [key for key in keys if key.lower() not in {c.lower() for c in frame.columns}]
            if absent_keys:
                raise common.JobError(f"update key column(s) {', '.join(absent_keys)} are not in the feed instance")
            columns = [by_name[name.lower()] for name in frame.columns]
            frame = frame.toDF(*columns)
            ensure_ledger(handle)
            if mode == "insert" and jdbc.query(handle, f"SELECT row_count FROM {LEDGER} WHERE {ledger_key}"):
                already = True
            if _exists(handle, staging):  # left by a run killed before it finished
                jdbc.execute(handle, drop(args.dialect, staging))
            if not already:
                jdbc.execute(handle, create_like(args.dialect, staging, table))
        rows = 0
        if not already:
            options = jdbc.spark_options(args, user, password)
            options.update(jdbc.write_options(args.dialect))
            options.update(dbtable=staging, batchsize="10000", numPartitions=str(args.num_mappers))
            frame.repartition(args.num_mappers).write.format("jdbc").options(**options).mode("append").save()
            with jdbc.connection(session, args, user, password) as handle:
                handle.setAutoCommit(False)
                try:
                    rows = int(jdbc.query(handle, f"SELECT COUNT(*) FROM {staging}")[0][0] or 0)
                    if mode == "insert":
                        inserted = jdbc.execute(handle, insert_sql(table, staging, columns))
                    else:
                        statement = update_sql(args.dialect, table, staging, columns, keys)
                        updated = jdbc.execute(handle, statement) if statement else 0
                        if mode == "upsert":
                            inserted = jdbc.execute(handle, insert_missing_sql(table, staging, columns, keys))
                    jdbc.execute(handle, f"DELETE FROM {LEDGER} WHERE {ledger_key}")
                    jdbc.execute(handle, f"INSERT INTO {LEDGER} (feed, cluster, target_table, instance, row_count) "
                                         f"VALUES ({_sql_text(args.feed)}, {_sql_text(args.cluster)}, "
                                         f"{_sql_text(table)}, {_sql_text(instance_text)}, {rows})")
                    handle.commit()
                except BaseException:
                    handle.rollback()
                    raise
                finally:
                    handle.setAutoCommit(True)
                jdbc.execute(handle, drop(args.dialect, staging))
    report: dict[str, Any] = {
        "job": NAME, "feed": args.feed, "cluster": args.cluster, "instance": instance_text, "source": source,
        "table": table, "columns": [[name, kind] for name, kind in target_columns
                                    if name.lower() in {c.lower() for c in columns}],
        "rows": rows, "inserted": inserted, "updated": updated, "mode": mode, "already_exported": already}
    summary = {key: report[key] for key in ("job", "feed", "instance", "table", "rows", "inserted", "updated",
                                            "already_exported")}
    return common.JobResult(summary=summary, report=report)


def _exists(handle: Any, relation: str) -> bool:
    try:
        jdbc.query(handle, f"SELECT 1 FROM {relation} WHERE 1 = 0")
        return True
    except Exception:
        return False


def main(argv: Sequence[str] | None = None, spark: SparkSession | None = None) -> int:
    return common.run_job(NAME, parser(), argv, lambda args: run(args, spark))


if __name__ == "__main__":
    common.script_main(main)
