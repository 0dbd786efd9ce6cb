"""Late-data fingerprint: one number per input that changes when late data arrives — Falcon's ``LateDataHandler``.

Command line (``spark-submit --py-files <jobs zip> entry/fingerprint.py ARGS``)::

    --input NAME=URI[,URI…]    repeatable; URIs may be Hadoop globs (commas inside {a,b} are kept);
                               the literal ``null`` records nothing for that input, as in Falcon
    --table NAME=CATALOG_URI   repeatable; catalog:db:table#k=v;… with resolved values
    --report PATH

Metric (Falcon §6.3): a filesystem input's metric is the sum, over every match of every glob, of the content
length (``getContentSummary().getLength()``: the bytes of every file below the match); a missing path counts 0.
A table input's metric is the partition's create time in epoch seconds, 0 if the partition is absent. Comparing
two fingerprints of the same instance tells whether its inputs changed.

Output: a one-line JSON summary ``{"job": "fingerprint", "metrics": {…}, "seconds"}``; report ``{"job",
"metrics": {"NAME": value}, "inputs": {"NAME": [URI…]}, "tables": {"NAME": URI}, "seconds"}``.
Exit 0 done, 1 failure, 2 bad arguments.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from falcon_airflow.core.tables import TableUri
from falcon_airflow.jobs.catalog import parse_table_uri, partition_detail
from falcon_airflow.jobs.filesystem import HadoopFs
from falcon_airflow.jobs.frame import ArgumentParser, JobError, JobResult, UsageError, run_job, spark_session
from falcon_airflow.jobs.uris import split_paths, split_uri

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


def build_parser() -> argparse.ArgumentParser:
    parser = ArgumentParser(prog="fingerprint", description="Late-data metrics of instance inputs.")
    parser.add_argument("--input", action="append", default=[], metavar="NAME=URI[,URI...]")
    parser.add_argument("--table", action="append", default=[], metavar="NAME=CATALOG_URI")
    parser.add_argument("--report", metavar="PATH")
    return parser


def _named(text: str, option: str) -> tuple[str, str]:
    name, sep, value = text.partition("=")
    name = name.strip()
    if not sep or not name or not value.strip():
        raise UsageError(f"{option} {text!r}: expected NAME=VALUE")
    return name, value.strip()


def parse_inputs(args: argparse.Namespace) -> tuple[dict[str, list[str]], dict[str, TableUri]]:
    inputs: dict[str, list[str]] = {}
    tables: dict[str, TableUri] = {}
    for text in args.input:
        name, value = _named(text, "--input")
        if name in inputs or name in tables:
            raise UsageError(f"input name {name!r} given twice")
        uris = [] if value == "null" else split_paths(value)
        for uri in uris:
            location = split_uri(uri)
            if ".." in location.path.split("/"):
                raise UsageError(f"--input {text!r}: '..' is not allowed in paths")
        inputs[name] = uris
    for text in args.table:
        name, value = _named(text, "--table")
        if name in inputs or name in tables:
            raise UsageError(f"input name {name!r} given twice")
        table = parse_table_uri(value)
        if table.dated_keys:
            raise UsageError(f"--table {text!r}: partition values must be resolved (no ${{…}} left)")
        tables[name] = table
    if not inputs and not tables:
        raise UsageError("give at least one --input or --table")
    return inputs, tables


def usage(fs: HadoopFs, uris: Sequence[str]) -> int:
    """Bytes below every match of every glob (Falcon's ``getFileSize`` per path group)."""
    total = 0
    for uri in uris:
        for entry in fs.glob(uri):
            total += entry.length if not entry.is_dir else fs.content_length(entry.path)
    return total


def created_seconds(spark: SparkSession, table: TableUri) -> int:
    """The partition's create time (epoch seconds), 0 when the partition does not exist."""
    details = partition_detail(spark, table, dict(table.partitions))
    created = (details or {}).get("Created Time")
    if not created:
        return 0
    jvm: Any = spark._jvm
    formatter = jvm.java.text.SimpleDateFormat("EEE MMM dd HH:mm:ss zzz yyyy", jvm.java.util.Locale.US)
    try:
        return int(formatter.parse(created).getTime()) // 1000
    except Exception:
        raise JobError(f"cannot read the create time {created!r} of {table.partition_path()}") from None


def main(argv: Sequence[str] | None = None, spark: SparkSession | None = None) -> int:
    """Run the fingerprint job on ``argv`` (``spark`` defaults to the running session, or a new one)."""

    def body(args: argparse.Namespace) -> JobResult:
        inputs, tables = parse_inputs(args)
        metrics: dict[str, int] = {}
        with spark_session("falcon-late-data-fingerprint", spark, hive=bool(tables)) as session:
            fs = HadoopFs(session)
            for name, uris in inputs.items():
                if uris:
                    metrics[name] = usage(fs, uris)
            for name, table in tables.items():
                metrics[name] = created_seconds(session, table)
        report = {"job": "fingerprint", "metrics": metrics, "inputs": inputs,
                  "tables": {name: f"catalog:{table.database}:{table.table}#" + ";".join(
                      f"{key}={value}" for key, value in table.partitions) for name, table in tables.items()}}
        return JobResult({"job": "fingerprint", "metrics": metrics}, report)

    return run_job("fingerprint", build_parser(), argv, body)

