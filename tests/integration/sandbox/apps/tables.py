"""The test's own hands on the sandbox's metastore, independent of the product: ``create`` a partitioned Hive table
with some partitions, ``show`` what the metastore holds. Run with spark-submit on a Hive-enabled session.

    tables.py create DB=LOCATION ... DB.TABLE LOCATION DS/REGION ... [+ DB.TABLE LOCATION DS/REGION ...]
                                    databases, then each table with its partitions (10 rows each: id, page)
    tables.py drop DB.TABLE [DS/REGION ...] [+ ...]    the partitions listed, else the table (metadata only)
    tables.py show DB.TABLE ...                        (prints one JSON line)
"""

from __future__ import annotations

import json
import sys

from pyspark.sql import SparkSession


def create(spark: SparkSession, name: str, location: str, partitions: list[str]) -> None:
    spark.sql(f"CREATE EXTERNAL TABLE IF NOT EXISTS {name} (id INT, page STRING) "
              f"PARTITIONED BY (ds STRING, region STRING) STORED AS PARQUET LOCATION '{location}'")
    for spec in partitions:
        ds, region = spec.split("/")
        folder = f"{location}/ds={ds}/region={region}"
        spark.range(10).selectExpr("cast(id as int) as id", f"concat('/page/', id, '/{ds}') as page") \
            .coalesce(1).write.mode("overwrite").parquet(folder)
        spark.sql(f"ALTER TABLE {name} ADD IF NOT EXISTS PARTITION (ds='{ds}', region='{region}') "
                  f"LOCATION '{folder}'")


def drop(spark: SparkSession, name: str, partitions: list[str]) -> None:
    if not partitions:
        spark.sql(f"DROP TABLE IF EXISTS {name}")
    for spec in partitions:
        ds, region = spec.split("/")
        spark.sql(f"ALTER TABLE {name} DROP IF EXISTS PARTITION (ds='{ds}', region='{region}')")


def groups(arguments: list[str]) -> list[list[str]]:
    """Arguments split at ``+``."""
    found: list[list[str]] = [[]]
    for item in arguments:
        if item == "+":
            found.append([])
        else:
            found[-1].append(item)
    return [group for group in found if group]


def show(spark: SparkSession, names: list[str]) -> dict[str, object]:
    found: dict[str, object] = {}
    for name in names:
        if not spark.catalog.tableExists(name):
            found[name] = None
            continue
        details = {str(row[0]).strip(): str(row[1] or "").strip()
                   for row in spark.sql(f"DESCRIBE FORMATTED {name}").collect()}
        partitions = {}
        for row in spark.sql(f"SHOW PARTITIONS {name}").collect():
            spec = dict(part.split("=", 1) for part in str(row[0]).split("/"))
            where = " AND ".join(f"{key}='{value}'" for key, value in spec.items())
            rows = spark.sql(f"DESCRIBE FORMATTED {name} PARTITION "
                             f"({', '.join(f'{k}={v!r}' for k, v in spec.items())})").collect()
            section, located = "", None
            for item in rows:  # the partition's own Location, not the table's further down
                key = str(item[0]).strip()
                section = key if key.startswith("# ") else section
                if key == "Location" and section == "# Detailed Partition Information" and located is None:
                    located = str(item[1] or "").strip()
            partitions[str(row[0])] = {"location": located,
                                       "rows": spark.sql(f"SELECT * FROM {name} WHERE {where}").count()}
        found[name] = {"type": details.get("Type"), "location": details.get("Location"),
                       "columns": [field.name for field in spark.table(name).schema.fields],
                       "partitions": partitions}
    return found


def main() -> None:
    spark = SparkSession.builder.appName("sandbox-tables").enableHiveSupport().getOrCreate()
    try:
        if sys.argv[1] == "create":
            arguments = sys.argv[2:]
            while "=" in arguments[0]:
                database, location = arguments.pop(0).split("=", 1)
                spark.sql(f"CREATE DATABASE IF NOT EXISTS {database} LOCATION '{location}'")
            for table in groups(arguments):
                create(spark, table[0], table[1], table[2:])
        elif sys.argv[1] == "drop":
            for table in groups(sys.argv[2:]):
                drop(spark, table[0], table[1:])
        else:
            print("TABLES " + json.dumps(show(spark, sys.argv[2:])), flush=True)
    finally:
        spark.stop()


if __name__ == "__main__":
    main()
