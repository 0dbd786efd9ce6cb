"""Feed import: one feed instance read from a database table over JDBC — Falcon's Sqoop import, on Spark.

Command line (``spark-submit --py-files <jobs zip> entry/db_import.py ARGS``)::

    --feed NAME --cluster NAME --instance yyyy-MM-ddTHH:mmZ --timezone ZONE
    --location TEMPLATE        the feed's data location with its storage base (``file:///d/${YEAR}-${MONTH}``)
    --url JDBC --driver CLASS --dialect postgres|mysql|sqlite|derby|hsql --table [schema.]TABLE
    --user NAME [--password-file PATH | --password-alias A --credential-provider P]   (see jdbc.py)
    --columns a,b,c            Falcon's <fields><includes> (default: every column)
    --where SQL                a row filter, EL already resolved for the instance (Sqoop's --where)
    --query SQL                a free-form query instead of the table (Sqoop's --query; $CONDITIONS becomes 1 = 1)
    --split-by COLUMN --num-mappers N    Spark's partitionColumn / numPartitions; bounds queried first
    --boundary-query SQL       a query giving (min, max) of the split column instead of the one we write
    --fetch-size N             rows per round trip (default 10000)
    --format parquet|orc|json|csv   default parquet
    --direct                   Sqoop's direct mode, PostgreSQL only: each split streamed by the server's
                               ``COPY (...) TO STDOUT`` into a part file, no row passing through Spark; csv
                               feeds get the server's CSV, parquet feeds its rows converted by pyarrow
                               (copy_parquet.py; through Spark's JDBC source, with a line on standard error,
                               when that cannot be done: another database, a column type it does not convert)
    --availability-flag NAME   written after publishing (default _SUCCESS)
    --staging-lease-seconds S  how long other runs leave this run's staging alone without renewal (default 600)
    --report PATH

Direct mode (``--direct``, as Sqoop's direct connector for PostgreSQL): the server formats the rows (its CSV: RFC
4180 quoting, a header line per part file, values in PostgreSQL's text form, e.g. ``2026-03-01 05:00:00``) and the
driver's JVM copies the bytes from one connection per split into ``part-NNNNN.csv`` files through the Hadoop
FileSystem API; the row count is the one COPY reports. Staging, publishing and the flag are the same.

The import is a snapshot (Falcon's ``mergepolicy`` snapshot, its only supported one): the instance is replaced
whole. Rows go to ``<parent>/.<name>.falcon-staging-<run token>``; once written and counted, an existing instance
is renamed aside (``.<name>.falcon-old-<run token>``), the staging folder renamed to the instance - a rename that
refuses an instance another run published meanwhile, never one that nests into it -, the published folder checked
against what was staged, the old version deleted and only then the flag written. A reader sees the old complete
instance, none, or the new complete one. The run's lease (``.<name>.falcon-lease-<run token>``, renewed while it
lives, ``--staging-lease-seconds``, default 600) tells other runs its siblings are in use: a rerun removes only the
siblings of runs that are over (lease lapsed, or an earlier try of the same Airflow task instance), puts back a
version such a run left aside, and replaces the instance exactly (see ``RunStaging``). Only the instance
folder of the feed's template (and its ``.<name>.falcon-*`` siblings) is ever moved or deleted.

Report: ``{"job", "feed", "cluster", "instance", "target", "table", "columns": [[name, type]], "filter_columns",
"rows", "partitions", "bounds", "format", "availability_flag", "seconds"}`` (never a credential).
Exit 0 done, 1 failure (nothing published), 2 bad arguments.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from falcon_airflow.core.paths import Template
from falcon_airflow.core.times import format_instant, parse_instant, parse_zone
from falcon_airflow.jobs import copy_parquet, jdbc
from falcon_airflow.jobs.filesystem import HadoopFs
from falcon_airflow.jobs.frame import ArgumentParser, JobError, JobResult, UsageError, run_job, spark_session
from falcon_airflow.jobs.staging import DEFAULT_LEASE_SECONDS, RunOwner, RunStaging
from falcon_airflow.jobs.uris import parse_location

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

NAME = "db_import"
FORMATS = ("parquet", "orc", "json", "csv")
DEFAULT_FLAG = "_SUCCESS"
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_$]*")


def parser() -> argparse.ArgumentParser:
    result = ArgumentParser(prog=NAME, description="Import one feed instance from a database table.")
    jdbc.add_instance_arguments(result)
    result.add_argument("--columns", default=None)
    result.add_argument("--where", default=None)
    result.add_argument("--query", default=None)
    result.add_argument("--split-by", default=None)
    result.add_argument("--num-mappers", type=int, default=1)
    result.add_argument("--boundary-query", default=None)
    result.add_argument("--fetch-size", type=int, default=10000)
    result.add_argument("--format", default="parquet", choices=FORMATS)
    result.add_argument("--direct", action="store_true")
    result.add_argument("--availability-flag", default=None)
    result.add_argument("--staging-lease-seconds", type=float, default=DEFAULT_LEASE_SECONDS)
    result.add_argument("--report", default=None)
    return result


def source_relation(args: argparse.Namespace, columns: list[str] | None) -> str:
    """What Spark reads: the table, or a subquery when columns, a filter or a free-form query narrow it."""
    if args.query:
        text = args.query.strip().rstrip(";").replace("$CONDITIONS", "(1 = 1)")
        return f"({text}) falcon_source"
    table = jdbc.table_name(args.table)
    if not columns and not args.where:
        return table
    select = jdbc.quote_list(columns) if columns else "*"
    where = f" WHERE {args.where}" if args.where else ""
    return f"(SELECT {select} FROM {table}{where}) falcon_source"


def filter_columns(text: str | None, known: Sequence[str]) -> list[str]:
    """The table columns a filter mentions (words outside quotes that name a column), for column lineage."""
    if not text:
        return []
    unquoted = re.sub(r"'(?:[^']|'')*'", " ", text)
    names = {name.lower(): name for name in known}
    found = [names[word.lower()] for word in _WORD.findall(unquoted) if word.lower() in names]
    return list(dict.fromkeys(found))


def bounds(handle: Any, args: argparse.Namespace, relation: str, column: str) -> tuple[str, str] | None:
    """(min, max) of the split column, as the database writes them; ``None`` when the source has no rows."""
    statement = args.boundary_query or f"SELECT MIN({column}), MAX({column}) FROM {relation}"
    rows = jdbc.query(handle, statement)
    if not rows or rows[0][0] is None or rows[0][1] is None:
        return None
    return rows[0][0], rows[0][1]


def _spark_bound(value: str) -> str:
    """Spark parses numeric bounds as longs: an integral decimal ("12.0") loses its fraction."""
    if re.fullmatch(r"-?\d+\.0*", value):
        return value.split(".")[0]
    return value


def split_clauses(column: str, found: tuple[str, str] | None, mappers: int) -> list[str]:
    """One ``WHERE`` clause per split of an integral split column, covering every value (NULLs and values outside
    the bounds included) exactly once; one clause matching everything when there is nothing to split."""
    bounds_text = [_spark_bound(value) for value in found] if found is not None else []
    if mappers < 2 or not bounds_text or not all(re.fullmatch(r"-?\d+", value) for value in bounds_text):
        return ["1 = 1"]
    low, high = (int(value) for value in bounds_text)
    count = min(mappers, high - low + 1)
    if count < 2:
        return ["1 = 1"]
    edges = [low + (high - low + 1) * index // count for index in range(count + 1)]
    clauses = [f"({column} < {edges[1]} OR {column} IS NULL)"]
    clauses += [f"{column} >= {edges[index]} AND {column} < {edges[index + 1]}" for index in range(1, count - 1)]
    clauses.append(f"{column} >= {edges[count - 1]}")
    return clauses


def copy_direct(session: Any, args: argparse.Namespace, user: str | None, password: str | None, relation: str,
                clauses: list[str], fs: HadoopFs, staging: str) -> int:
    """Stream each split's rows as the server's CSV into its own part file of ``staging``: ``COPY (...) TO
    STDOUT`` on a connection of its own, the bytes going from the JDBC driver to the Hadoop output stream inside
    the JVM. Splits run side by side (one Python thread each, waiting on its JVM call). The rows COPY counted."""
    from concurrent.futures import ThreadPoolExecutor

    fs.mkdirs(staging)
    writer = fs.writer(staging)

    def copy_split(index: int, clause: str) -> int:
        statement = f"COPY (SELECT * FROM {relation} WHERE {clause}) TO STDOUT WITH (FORMAT csv, HEADER true)"
        stream = writer.create(fs.path(f"{staging}/part-{index:05d}.csv"), True)
        try:
            with jdbc.connection(session, args, user, password) as handle:
                try:
                    return int(handle.getCopyAPI().copyOut(statement, stream))
                except Exception as problem:
                    raise JobError(f"COPY of split {index + 1} failed: {jdbc.java_message(problem)}") from None
        finally:
            stream.close()

    with ThreadPoolExecutor(max_workers=len(clauses), thread_name_prefix="falcon-copy") as pool:
        counts = [pool.submit(copy_split, index, clause) for index, clause in enumerate(clauses)]
        return sum(future.result() for future in counts)


def parquet_plan(session: Any, handle: Any, args: argparse.Namespace, relation: str) -> copy_parquet.Plan | None:
    """The direct Parquet conversion of ``relation`` for ``--direct`` on a Parquet feed; ``None`` (with a line
    on standard error saying why) when the rows go through Spark's JDBC source instead."""
    if args.format != "parquet":
        return None
    reason = "the datasource is not PostgreSQL" if args.dialect != "postgres" else copy_parquet.available()
    if reason is None:
        found = copy_parquet.plan(copy_parquet.column_types(handle, relation),
                                  lambda key, default: str(session.conf.get(key, default)))
        if isinstance(found, copy_parquet.Plan):
            return found
        reason = found
    print(f"{NAME}: --direct: importing through Spark's JDBC source: {reason}", file=sys.stderr, flush=True)
    return None


@contextmanager
def _with_jvm(session: Any, args: argparse.Namespace, user: str | None, password: str | None) -> Iterator[Any]:
    with jdbc.connection(session, args, user, password) as handle:
        yield handle, session._jvm


def spark_copy(session: Any, args: argparse.Namespace, user: str | None, password: str | None, relation: str,
               split_by: str | None, found: tuple[str, str] | None, staging: str) -> tuple[int, int]:
    """Read the rows with Spark's JDBC source (split on ``split_by`` between the bounds ``found``) and write them
    to ``staging`` in the feed's format. (rows written, read partitions)."""
    options = jdbc.spark_options(args, user, password)
    options.update(dbtable=relation, fetchsize=str(args.fetch_size))
    partitions = 1
    if found is not None and split_by is not None:
        partitions = args.num_mappers
        options.update(partitionColumn=split_by, lowerBound=_spark_bound(found[0]),
                       upperBound=_spark_bound(found[1]), numPartitions=str(partitions))
    frame = session.read.format("jdbc").options(**options).load()
    writer = frame.write.format(args.format)
    reader = session.read.format(args.format)
    if args.format == "csv":
        writer, reader = writer.option("header", "true"), reader.option("header", "true")
    writer.save(staging)
    return reader.load(staging).count(), partitions  # Parquet and ORC count from their footers


def _belongs(target: str, location: str, instance: Any, zone: Any) -> None:
    resolved = Template.parse(location).resolve(instance, zone)
    if str(parse_location(resolved, "instance")) != target:
        raise JobError(f"{target} is not the instance folder of the feed's location {location}")


def run(args: argparse.Namespace, spark: SparkSession | None = None) -> JobResult:
    if args.num_mappers < 1:
        raise UsageError("--num-mappers must be at least 1")
    if args.staging_lease_seconds <= 0:
        raise UsageError("--staging-lease-seconds must be positive")
    if args.num_mappers > 1 and not args.split_by:
        raise UsageError("--num-mappers above 1 needs --split-by")
    if args.query and "$CONDITIONS" not in args.query:
        raise UsageError("--query must contain $CONDITIONS (as Sqoop's free-form query does)")
    instance = parse_instant(args.instance)
    zone = parse_zone(args.timezone)
    target = str(parse_location(Template.parse(args.location).resolve(instance, zone), "instance"))
    columns = [jdbc.column_name(name) for name in args.columns.split(",")] if args.columns else None
    split_by = jdbc.column_name(args.split_by) if args.split_by else None
    flag = args.availability_flag if args.availability_flag and args.availability_flag != "NA" else DEFAULT_FLAG
    if args.direct and args.format not in ("csv", "parquet"):
        raise UsageError(f"--direct writes csv or parquet feeds, not {args.format}")
    if args.direct and args.format == "csv" and args.dialect != "postgres":
        raise UsageError("--direct streams PostgreSQL's COPY output as CSV: it needs a postgres datasource, "
                         f"not {args.dialect}")
    with spark_session(f"falcon-import-{args.feed}", spark) as session:
        user, password = jdbc.credentials(session, args)
        relation = source_relation(args, columns)
        with jdbc.connection(session, args, user, password) as handle:
            table_columns = jdbc.columns_of(handle, jdbc.table_name(args.table)) if not args.query else []
            source_columns = jdbc.columns_of(handle, relation)
            found = bounds(handle, args, relation, split_by) if split_by and args.num_mappers > 1 else None
            direct_plan = parquet_plan(session, handle, args, relation) if args.direct else None
        fs = HadoopFs(session)
        _belongs(target, args.location, instance, zone)
        try:
            # this run's staging, lease and set-aside version carry its token; other runs' are left to them
            with RunStaging(fs, target, RunOwner.current(args.staging_lease_seconds)) as stage:
                notes = stage.recover()
                staging = stage.staging
                if isinstance(direct_plan, copy_parquet.Plan):
                    clauses = split_clauses(split_by or "", found, args.num_mappers)
                    partitions = len(clauses)
                    rows = copy_parquet.copy_splits(lambda: _with_jvm(session, args, user, password), relation,
                                                    clauses, direct_plan, fs, staging)
                elif args.direct and args.format == "csv":
                    clauses = split_clauses(split_by or "", found, args.num_mappers)
                    partitions = len(clauses)
                    rows = copy_direct(session, args, user, password, relation, clauses, fs, staging)
                else:
                    rows, partitions = spark_copy(session, args, user, password, relation, split_by, found, staging)
                stage.publish(expected=fs.content_summary(staging))
                fs.touch(f"{target}/{flag}")  # only after a verified publish: a refused one raised above
        finally:
            fs.close()
    known = [name for name, _ in (table_columns or source_columns)]
    report: dict[str, Any] = {
        "job": NAME, "feed": args.feed, "cluster": args.cluster, "instance": format_instant(instance),
        "target": target, "table": args.table, "query": bool(args.query),
        "columns": [[name, kind] for name, kind in source_columns],
        "filter_columns": filter_columns(args.where or args.query, known), "rows": rows,
        "partitions": partitions, "bounds": list(found) if found else None, "format": args.format,
        "direct": bool(args.direct) and (args.format == "csv" or isinstance(direct_plan, copy_parquet.Plan)),
        "availability_flag": flag, "recovered": notes}
    summary = {key: report[key] for key in ("job", "feed", "instance", "target", "rows", "partitions")}
    return JobResult(summary=summary, report=report)


def main(argv: Sequence[str] | None = None, spark: SparkSession | None = None) -> int:
    return run_job(NAME, parser(), argv, lambda args: run(args, spark))

