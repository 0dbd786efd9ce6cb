"""Catalog tables: SQL for table URIs (Falcon ``CatalogStorage``: plain identifiers, quoted values) and what
Spark SQL's ``DESCRIBE FORMATTED`` and ``SHOW PARTITIONS`` say of a table and its partitions.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING
from urllib.parse import unquote

from falcon_airflow.core.errors import RuleError
from falcon_airflow.core.paths import Template
from falcon_airflow.core.tables import TableUri
from falcon_airflow.jobs.frame import JobError, UsageError

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


_IDENTIFIER = re.compile(r"[A-Za-z0-9_]+")


def check_identifier(name: str) -> str:
    if not _IDENTIFIER.fullmatch(name):
        raise UsageError(f"{name!r} is not a plain identifier (letters, digits, underscore)")
    return name


def sql_string(value: str) -> str:
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def parse_table_uri(text: str) -> TableUri:
    """Falcon's table URI (:class:`falcon_airflow.core.tables.TableUri`), with plain identifiers only (they go into
    SQL) and the partition values' variables in the ``${X}`` spelling."""
    try:
        table = TableUri.parse(text)
        partitions = tuple((check_identifier(key), Template.parse(value).text) for key, value in table.partitions)
    except RuleError as error:
        raise UsageError(str(error)) from None
    return TableUri(check_identifier(table.database), check_identifier(table.table), partitions)


def qualified(table: TableUri) -> str:
    return f"`{table.database}`.`{table.table}`"


def spec_sql(table: TableUri, partition: dict[str, str] | None = None) -> str:
    """``PARTITION (`k`='v', …)`` for ``partition`` (default: the URI's own values, which must be resolved)."""
    values = partition if partition is not None else dict(table.partitions)
    return "PARTITION (" + ", ".join(f"`{check_identifier(key)}`={sql_string(value)}"
                                      for key, value in values.items()) + ")"


def parse_partition_name(name: str) -> dict[str, str]:
    """``ds=2015%3A01/region=us`` (SHOW PARTITIONS, Hive path escaping) as a dict."""
    result = {}
    for part in name.split("/"):
        key, _, value = part.partition("=")
        result[unquote(key)] = unquote(value)
    return result


def describe(spark: SparkSession, statement: str) -> list[tuple[str, str]]:
    """(col_name, data_type) rows of a ``DESCRIBE FORMATTED`` statement."""
    return [(str(row[0] or "").strip(), str(row[1] or "").strip()) for row in spark.sql(statement).collect()]


def _detail(rows: list[tuple[str, str]], name: str, section: str) -> str | None:
    inside = False
    for key, value in rows:
        if key.startswith("# "):
            inside = key == section
            continue
        if inside and key == name:
            return value
    return None


def table_detail(spark: SparkSession, table: TableUri, name: str) -> str | None:
    """A row of the table's detailed information (``Location``, ``Type``)."""
    try:
        rows = describe(spark, f"DESCRIBE FORMATTED {qualified(table)}")
    except Exception as error:
        raise JobError(f"table {table.database}.{table.table} cannot be read: {_first_line(error)}") from None
    return _detail(rows, name, "# Detailed Table Information")


def list_partitions(spark: SparkSession, table: TableUri) -> list[dict[str, str]]:
    try:
        rows = spark.sql(f"SHOW PARTITIONS {qualified(table)}").collect()
    except Exception as error:
        raise JobError(f"partitions of {table.database}.{table.table} cannot be listed: {_first_line(error)}") from None
    return [parse_partition_name(str(row[0])) for row in rows]


def partition_detail(spark: SparkSession, table: TableUri, partition: dict[str, str],
                     check: bool = True) -> dict[str, str] | None:
    """The detailed information rows of one partition (``Location``, ``Created Time``), ``None`` if absent.

    ``partition`` must name every partition column; ``check=False`` skips the existence check (the caller just
    listed the partition).
    """
    if check and partition not in list_partitions(spark, table):
        return None
    rows = describe(spark, f"DESCRIBE FORMATTED {qualified(table)} {spec_sql(table, partition)}")
    details: dict[str, str] = {}
    inside = False
    for key, value in rows:
        if key.startswith("# "):
            inside = key == "# Detailed Partition Information"
            continue
        if inside and key:
            details[key] = value
    return details


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__
