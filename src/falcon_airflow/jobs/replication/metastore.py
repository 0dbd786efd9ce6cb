"""A table replication's metastores: the one the session uses, and another one reached through its thrift API."""

from __future__ import annotations

from contextlib import suppress
from typing import TYPE_CHECKING, Any

from falcon_airflow.core.tables import TableUri
from falcon_airflow.jobs.frame import JobError, first_line

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


def session_metastore(spark: SparkSession) -> str | None:
    """The ``thrift://`` metastore the session's Hive catalog uses, if any."""
    for key in ("spark.hadoop.hive.metastore.uris", "spark.sql.hive.metastore.uris"):
        with suppress(Exception):
            value = spark.conf.get(key, None)
            if value:
                return str(value).split(",")[0].strip()
    value = spark.sparkContext._jsc.hadoopConfiguration().get("hive.metastore.uris")
    return str(value).split(",")[0].strip() if value else None


def same_metastore(one: str, other: str | None) -> bool:
    return other is not None and one.rstrip("/") == other.rstrip("/")


# Table parameters that describe one table's data, not its shape: a copy starts without them.
_DATA_PARAMETERS = ("numFiles", "numRows", "rawDataSize", "totalSize", "COLUMN_STATS_ACCURATE", "transient_lastDdlTime",
                    "numFilesErasureCoded", "spark.sql.statistics.totalSize", "spark.sql.statistics.numRows")


class ThriftMetastore:
    """A Hive metastore reached through its thrift API from the driver's JVM (Hive's own client, in Spark's jars),
    for a table replication between two metastores (one Spark session has one Hive catalog): the source table and
    partition are read from the source's, and a missing target table is created in the target's from that
    definition."""

    def __init__(self, spark: SparkSession, uri: str) -> None:
        jvm = spark.sparkContext._jvm
        assert jvm is not None
        self.jvm = jvm
        conf = jvm.org.apache.hadoop.hive.conf.HiveConf()
        conf.set("hive.metastore.uris", uri)
        self.uri = uri
        try:
            self.client = jvm.org.apache.hadoop.hive.metastore.HiveMetaStoreClient(conf)
        except Exception as error:
            raise JobError(f"metastore {uri} cannot be reached: {first_line(error)}") from None

    def __enter__(self) -> ThriftMetastore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.client.close()

    def table(self, table: TableUri) -> Any:
        try:
            return self.client.getTable(table.database, table.table)
        except Exception as error:
            raise JobError(f"table {table.database}.{table.table} cannot be read from {self.uri}: "
                           f"{first_line(error)}") from None

    def partition_location(self, table: TableUri, spec: dict[str, str]) -> str | None:
        keys = [column.getName() for column in self.table(table).getPartitionKeys()]
        if sorted(keys) != sorted(spec):
            raise JobError(f"table {table.database}.{table.table} is partitioned by {', '.join(keys)}; the "
                           f"feed names {', '.join(spec)}")
        try:  # py4j turns the Python list of values into a java.util.List
            partition = self.client.getPartition(table.database, table.table, [spec[key] for key in keys])
        except Exception as error:
            if "NoSuchObjectException" in str(error):
                return None
            raise JobError(f"partition {table.partition_path()} of {table.database}.{table.table} cannot be "
                           f"read from {self.uri}: {first_line(error)}") from None
        return str(partition.getSd().getLocation())

    def create_like(self, source: Any, target: TableUri, location: str,
                    marks: dict[str, str] | None = None) -> None:
        """Create ``target`` as an external table with ``source``'s columns, partition keys and storage; ``marks``
        are table parameters added (who made it)."""
        table = source.deepCopy()
        table.setDbName(target.database)
        table.setTableName(target.table)
        table.setTableType("EXTERNAL_TABLE")
        parameters = table.getParameters()
        if parameters is None:
            table.setParameters(self.jvm.java.util.HashMap())
            parameters = table.getParameters()
        for name in _DATA_PARAMETERS:
            parameters.remove(name)
        parameters.put("EXTERNAL", "TRUE")
        for name, value in (marks or {}).items():
            parameters.put(name, value)
        storage = table.getSd()
        storage.setLocation(location)
        serde = storage.getSerdeInfo().getParameters()
        if serde is not None and serde.containsKey("path"):  # a Spark data source table keeps its path here too
            serde.put("path", location)
        try:
            self.client.createTable(table)
        except Exception as error:
            if "AlreadyExistsException" in str(error):
                return  # created meanwhile by another run: the same shape
            raise JobError(f"table {target.database}.{target.table} cannot be created in {self.uri}: "
                           f"{first_line(error)}") from None
