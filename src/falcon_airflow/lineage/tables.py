"""Lineage of imports and exports: the database table as an OpenLineage dataset, and its columns to the feed's.

Table names follow OpenLineage's naming spec: PostgreSQL ``postgres://{host}:{port}`` / ``{db}.{schema}.{table}``
(schema ``public`` when the table names none), MySQL and MariaDB ``mysql://{host}:{port}`` / ``{db}.{table}``; an
HSQLDB server ``hsqldb://{host}:{port}`` / ``{db}.{table}``; a file database (SQLite, Derby, HSQLDB ``file:``)
``{scheme}://{absolute file}`` / ``{table}``, which the spec leaves open. The JDBC URL's options and the
credentials never reach an event.

Import: input the table, output the feed instance whose ``columnLineage`` maps every column to the same table
column (DIRECT / IDENTITY) and, when a filter narrowed the rows, to the columns the filter reads (INDIRECT /
FILTER). Export: input the feed instance, output the table with the reverse IDENTITY mapping.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from openlineage.client.event_v2 import InputDataset, OutputDataset
from openlineage.client.facet_v2 import column_lineage_dataset

from falcon_airflow.compiler.specs import DatabaseSpec, TransferDagSpec
from falcon_airflow.core.databases.urls import JdbcUrlError, parse_jdbc_url
from falcon_airflow.core.lineage import PRODUCER
from falcon_airflow.core.naming import DatasetId
from falcon_airflow.core.secrets import redact_url
from falcon_airflow.lineage import facets as F
from falcon_airflow.lineage.datasets import (
    TaskLineage,
    _Datasets,
    _entity_facets,
    feed_dataset_facets,
    feed_schema,
    instance_location,
)
from falcon_airflow.lineage.schema import SchemaField
from falcon_airflow.timekeeping import parse_falcon_date

_SCHEMES = {"postgresql": "postgres", "mysql": "mysql", "mariadb": "mysql", "hsqldb": "hsqldb"}


def table_dataset_of(database: DatabaseSpec) -> DatasetId:
    """The OpenLineage identity of the datasource table (see the module docstring): host, port and database of
    the URL, never its user-info or options (masked as well, should a credential ever sit where a name is read)."""
    found = _table_dataset(database)
    return DatasetId(redact_url(found.namespace), redact_url(found.name))


def _table_dataset(database: DatabaseSpec) -> DatasetId:
    table = database.table.strip()
    try:
        url = parse_jdbc_url(database.url)
    except JdbcUrlError:
        return DatasetId(f"jdbc:{database.datasource}", table)
    if url.embedded:
        return DatasetId(f"{url.scheme}://{url.database or database.datasource}", table)
    scheme = _SCHEMES.get(url.scheme, url.scheme)
    namespace = f"{scheme}://{url.host}:{url.port}" if url.port else f"{scheme}://{url.host}"
    parts = table.split(".")
    if scheme == "postgres":
        if len(parts) == 1:
            parts = ["public", *parts]
        if len(parts) == 2:
            parts = [url.database or "postgres", *parts]
    elif len(parts) == 1 and url.database:
        parts = [url.database, *parts]
    return DatasetId(namespace, ".".join(parts))


def _columns(report: Mapping[str, Any] | None) -> list[SchemaField]:
    fields: list[SchemaField] = []
    for item in (report or {}).get("columns") or []:
        if isinstance(item, (list, tuple)) and len(item) == 2 and isinstance(item[0], str) and item[0]:
            fields.append((item[0], str(item[1]) if item[1] is not None else None))
    return fields


def column_lineage(fields: Sequence[SchemaField], source: DatasetId, filtered_by: Sequence[str],
                   description: str) -> column_lineage_dataset.ColumnLineageDatasetFacet:
    """Each field from the same field of ``source`` (IDENTITY), plus the filter's columns (INDIRECT FILTER)."""
    result: dict[str, column_lineage_dataset.Fields] = {}
    for name, _ in fields:
        inputs = [column_lineage_dataset.InputField(
            namespace=source.namespace, name=source.name, field=name,
            transformations=[column_lineage_dataset.Transformation(type="DIRECT", subtype="IDENTITY",
                                                                   description=description, masking=False)])]
        inputs += [column_lineage_dataset.InputField(
            namespace=source.namespace, name=source.name, field=column,
            transformations=[column_lineage_dataset.Transformation(type="INDIRECT", subtype="FILTER",
                                                                   description="rows chosen by the import's filter",
                                                                   masking=False)])
            for column in filtered_by]
        result[name] = column_lineage_dataset.Fields(inputFields=inputs)
    return column_lineage_dataset.ColumnLineageDatasetFacet(fields=result, dataset=[], producer=PRODUCER)


def _table_facets(table: DatasetId, fields: Sequence[SchemaField]) -> dict[str, Any]:
    facets: dict[str, Any] = {"dataSource": F.data_source_facet(table)}
    if fields:
        facets["schema"] = F.schema_facet(fields)
    return facets


def transfer_lineage(spec: TransferDagSpec, instance: datetime | None,
                     report: Mapping[str, Any] | None) -> TaskLineage:
    lineage = spec.lineage
    result = _entity_facets(lineage, spec.kind.upper())
    if report and report.get("instance"):
        instance = parse_falcon_date(str(report["instance"]))
    if instance is None:
        return result
    facts = (lineage.feeds if lineage is not None else {}).get(spec.feed)
    table = table_dataset_of(spec.database)
    columns = _columns(report)
    feed_fields = columns or feed_schema(facts) or []
    folder, dimensions = instance_location(spec.feed_binding, instance, lineage)
    statistics = None
    if report and report.get("rows") is not None:
        statistics = F.output_statistics_facet(None, None, int(report["rows"]))
    if spec.kind == "import":
        facets = feed_dataset_facets(folder, spec.feed, spec.cluster, facts, feed_fields or None)
        if feed_fields and not (report or {}).get("query"):
            filtered = [str(name) for name in (report or {}).get("filter_columns") or []]
            facets["columnLineage"] = column_lineage(
                feed_fields, table, filtered, f"imported from datasource {spec.database.datasource}")
        outputs = _Datasets()
        entry = outputs.add(folder, facets, dimensions)
        if entry is not None and statistics is not None:
            entry.extra_output_facets["outputStatistics"] = statistics
        result.inputs = [InputDataset(namespace=table.namespace, name=table.name,
                                      facets=_table_facets(table, columns))]
        result.outputs = outputs.outputs()
        return result
    inputs = _Datasets()
    inputs.add(folder, feed_dataset_facets(folder, spec.feed, spec.cluster, facts, feed_fields or None), dimensions)
    facets = _table_facets(table, columns)
    if columns:
        facets["columnLineage"] = column_lineage(columns, folder, (), f"exported from feed {spec.feed}")
    result.inputs = inputs.inputs()
    result.outputs = [OutputDataset(namespace=table.namespace, name=table.name, facets=facets,
                                    outputFacets={"outputStatistics": statistics} if statistics else {})]
    return result
