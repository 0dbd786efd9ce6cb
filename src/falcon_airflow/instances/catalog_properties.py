"""Falcon's catalog properties of a process's table inputs and outputs for one instance.

Falcon gave every workflow reading or writing a catalog table these properties, named ``falcon_<name>_<property>``
(Oozie's ``coord:dataInPartitionFilter`` / ``dataOutPartitions`` / ``dataOutPartitionValue`` evaluated for the
instance): the workflow configuration of Oozie workflows, the parameters of Hive scripts, the arguments of Spark
applications. Computed here once so that every engine gets the same values.
"""

from __future__ import annotations

from datetime import datetime

from falcon_airflow.core.tables import TableUri
from falcon_airflow.instances.bindings import InputBinding, OutputBinding

INPUT_PROPERTIES = ("storage_type", "catalog_url", "database", "table", "partition_filter_hive",
                    "partition_filter_pig", "partition_filter_java")
"""A table input's properties."""
OUTPUT_PROPERTIES = ("storage_type", "catalog_url", "database", "table", "partitions_hive", "partitions_pig",
                     "partitions_java")
"""A table output's properties, besides one ``dated_partition_value_<key>`` per partition key whose value is dated."""
ENGINES = ("hive", "pig", "java")


def table_uri(binding: InputBinding | OutputBinding) -> TableUri:
    return TableUri.parse(binding.feed.location)


def partition_filter(binding: InputBinding, instance: datetime, engine: str = "hive") -> str:
    """The partition filter of a table input for a process instance, one parenthesised clause per feed instance,
    ``OR``-joined: ``(ds='2026030105' AND region='us')``; for Pig the comparison is ``==``."""
    equals = "==" if engine == "pig" else "="
    uri = table_uri(binding)
    clauses = []
    for moment in binding.resolve(instance).instances:
        values = uri.resolve(moment, binding.feed.zone)
        clauses.append("(" + " AND ".join(f"{key}{equals}'{value}'" for key, value in values.items()) + ")")
    return " OR ".join(clauses)


def _shared(binding: InputBinding | OutputBinding, uri: TableUri) -> dict[str, str]:
    return {"storage_type": "TABLE", "catalog_url": binding.feed.metastore or "", "database": uri.database,
            "table": uri.table}


def _output_partitions(binding: OutputBinding, instance: datetime, uri: TableUri) -> dict[str, str]:
    moment = binding.time(instance)
    values = uri.resolve(moment, binding.feed.zone) if moment is not None else {}
    dated = {key: value for key, value in values.items() if key in uri.dated_keys}
    every = ",".join(f"{key}={value}" for key, value in values.items())
    found = {"partitions_pig": every, "partitions_java": every,
             "partitions_hive": ",".join(f"{key}='{value}'" for key, value in dated.items())}
    found.update({f"dated_partition_value_{key}": value for key, value in dated.items()})
    return found


def catalog_properties(binding: InputBinding | OutputBinding, instance: datetime) -> dict[str, str]:
    """The properties of a table input or output for a process instance, without the ``falcon_<name>_`` prefix.

    Both: ``storage_type`` (``TABLE``), ``catalog_url`` (the cluster's registry), ``database``, ``table``. An input
    adds its partition filter per engine; an output adds its partitions for Pig and Java actions
    (``ds=2026030105,region=us``), ``dated_partition_value_<key>`` for each dated key, and for Hive the dated keys
    alone, quoted (``ds='2026030105'``), as an ``INSERT ... PARTITION (...)`` clause takes them.
    """
    uri = table_uri(binding)
    found = _shared(binding, uri)
    if isinstance(binding, InputBinding):
        found.update({f"partition_filter_{engine}": partition_filter(binding, instance, engine)
                      for engine in ENGINES})
    else:
        found.update(_output_partitions(binding, instance, uri))
    return found


def catalog_property(binding: InputBinding | OutputBinding, instance: datetime, name: str) -> str:
    """One of :func:`catalog_properties` (``""`` for a name it does not have), computing only that one: a task
    renders one template per property, so an input's three filters are not each resolved for every property."""
    uri = table_uri(binding)
    shared = _shared(binding, uri)
    if name in shared:
        return shared[name]
    if isinstance(binding, InputBinding):
        engine = name.removeprefix("partition_filter_")
        return partition_filter(binding, instance, engine) if engine in ENGINES and engine != name else ""
    return _output_partitions(binding, instance, uri).get(name, "")
