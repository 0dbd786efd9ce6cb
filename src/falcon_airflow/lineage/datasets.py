"""The OpenLineage datasets and facets of our tasks: a process instance, a retention run, a replication run.

Each function returns a :class:`TaskLineage` (inputs, outputs, run and job facets) that the Airflow side wraps in
the provider's ``OperatorLineage``. A feed instance is the physical dataset of its folder (or, for a catalog
table, the table) named by :mod:`~falcon_airflow.core.naming`, with:

* ``symlinks``: the logical feed ``falcon://<cluster>`` / ``<feed>`` (type ``FEED``);
* ``subset`` (input or output facet): the instance, as a partition with dimensions ``feed``, ``cluster``,
  ``instance`` and what else applies (``input``/``output`` name, ``partition``, ``location`` type);
* ``ownership``, ``tags`` (feed tags and groups), ``dataSource``, and ``schema`` when the feed's declared schema
  can be read.

No Airflow or Spark import here.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from openlineage.client.event_v2 import InputDataset, OutputDataset

from falcon_airflow.compiler.specs import (
    ExtensionDagSpec,
    FeedFacts,
    LineageSpec,
    ProcessDagSpec,
    ReplicationDagSpec,
    RetentionDagSpec,
)
from falcon_airflow.core.naming import (
    TABLE_SYMLINK_TYPE,
    DatasetId,
    location_dataset,
    metastore_namespace,
    table_dataset,
)
from falcon_airflow.core.times import format_instant
from falcon_airflow.instances.bindings import FeedBinding
from falcon_airflow.lineage import facets as F
from falcon_airflow.lineage.schema import SchemaField, read_schema
from falcon_airflow.timekeeping import Frequency, parse_falcon_date, resolve_zone
from falcon_airflow.timekeeping.grid import InstanceGrid

log = logging.getLogger(__name__)

MAX_DATASETS = 2000
"""At most this many datasets per event side: a retention that evicts years of instances reports the first ones
(and says how many it left out in the log), so that one event stays a reasonable size."""


@dataclass
class TaskLineage:
    inputs: list[InputDataset] = field(default_factory=list)
    outputs: list[OutputDataset] = field(default_factory=list)
    run_facets: dict[str, Any] = field(default_factory=dict)
    job_facets: dict[str, Any] = field(default_factory=dict)


def _set(facets: dict[str, Any], key: str, facet: Any) -> None:
    if facet is not None:
        facets[key] = facet


def _entity_facets(lineage: LineageSpec | None, job_type: str, *, groups: Iterable[str] = ()) -> TaskLineage:
    """Run and job facets from the entity: tags (with pipelines and groups), owner, job type."""
    result = TaskLineage()
    pairs: list[F.Tag] = []
    if lineage is not None:
        pairs = F.falcon_tags(lineage.tags, lineage.pipelines, [*lineage.groups, *groups])
        _set(result.job_facets, "ownership", F.ownership_job_facet(lineage.owner))
    _set(result.run_facets, "tags", F.tags_run_facet(pairs))
    _set(result.job_facets, "tags", F.tags_job_facet(pairs))
    result.job_facets["jobType"] = F.job_type_facet(job_type)
    return result


@dataclass
class _Entry:
    """One dataset being assembled: its facets and the instances (subset partitions) it stands for."""

    dataset: DatasetId
    facets: dict[str, Any]
    instances: list[dict[str, Any]] = field(default_factory=list)
    extra_output_facets: dict[str, Any] = field(default_factory=dict)


class _Datasets:
    """Datasets keyed by identity, in order: two instances of one table become one dataset with two partitions."""

    def __init__(self) -> None:
        self.entries: dict[DatasetId, _Entry] = {}
        self.left_out = 0

    def add(self, dataset: DatasetId, facets: dict[str, Any], instance: dict[str, Any]) -> _Entry | None:
        entry = self.entries.get(dataset)
        if entry is None:
            if len(self.entries) >= MAX_DATASETS:
                self.left_out += 1
                return None
            entry = self.entries[dataset] = _Entry(dataset, facets)
        entry.instances.append(instance)
        return entry

    def inputs(self) -> list[InputDataset]:
        return [InputDataset(namespace=entry.dataset.namespace, name=entry.dataset.name, facets=entry.facets,
                             inputFacets={"subset": F.input_subset_facet(entry.instances)})
                for entry in self.entries.values()]

    def outputs(self) -> list[OutputDataset]:
        return [OutputDataset(namespace=entry.dataset.namespace, name=entry.dataset.name, facets=entry.facets,
                              outputFacets={"subset": F.output_subset_facet(entry.instances),
                                            **entry.extra_output_facets})
                for entry in self.entries.values()]


def table_namespace(lineage: LineageSpec | None, cluster: str) -> str:
    return metastore_namespace((lineage.catalogs if lineage else {}).get(cluster), cluster)


def instance_location(binding: FeedBinding, moment: datetime,
                      lineage: LineageSpec | None) -> tuple[DatasetId, dict[str, Any]]:
    """A feed instance's dataset and the subset dimensions that tell the instance: for a file feed its folder, for
    a table feed the table (the partition values in the dimensions)."""
    dimensions: dict[str, Any] = {"feed": binding.feed, "cluster": binding.cluster,
                                  "instance": format_instant(moment)}
    location = binding.path(moment)
    if binding.storage == "table":
        from falcon_airflow.entities.catalog import parse_table_uri

        uri = parse_table_uri(location)
        dimensions["partition"] = uri.partition_spec
        return table_dataset(uri.database, uri.table, table_namespace(lineage, binding.cluster)), dimensions
    return location_dataset(location), dimensions


def feed_dataset_facets(dataset: DatasetId, feed: str, cluster: str, facts: FeedFacts | None,
                        schema: list[SchemaField] | None = None) -> dict[str, Any]:
    """The dataset facets of an instance of ``feed`` on ``cluster``."""
    facets: dict[str, Any] = {"symlinks": F.symlinks_facet(F.feed_symlink(cluster, feed)),
                              "dataSource": F.data_source_facet(dataset)}
    if facts is not None:
        _set(facets, "ownership", F.ownership_dataset_facet(facts.owner))
        _set(facets, "tags", F.tags_dataset_facet(F.falcon_tags(facts.tags, groups=facts.groups)))
    if schema:
        facets["schema"] = F.schema_facet(schema)
    return facets


def feed_schema(facts: FeedFacts | None) -> list[SchemaField] | None:
    return read_schema(facts.schema_location, facts.schema_provider) if facts is not None else None


# -- process instance ------------------------------------------------------------------------------------------------


def next_instance(start: str, frequency: str, timezone: str, moment: datetime) -> datetime:
    grid = InstanceGrid.of(parse_falcon_date(start), Frequency.parse(frequency), resolve_zone(timezone).zone)
    return grid.instance(grid.index_at_or_before(moment) + 1)


def process_lineage(spec: ProcessDagSpec, instance: datetime,
                    exists: Callable[[str], bool] | None = None) -> TaskLineage:
    """What a process instance reads (each input's feed instances) and writes (each output's instance)."""
    lineage = spec.lineage
    result = _entity_facets(lineage, "PROCESS")
    result.run_facets["nominalTime"] = F.nominal_time(
        instance, next_instance(spec.schedule.start, spec.schedule.frequency, spec.schedule.timezone, instance))
    feeds = lineage.feeds if lineage is not None else {}
    schemas: dict[str, list[SchemaField] | None] = {}

    def schema_of(feed: str) -> list[SchemaField] | None:
        if feed not in schemas:
            schemas[feed] = feed_schema(feeds.get(feed))
        return schemas[feed]

    inputs = _Datasets()
    for item in spec.inputs:
        resolved = item.resolve(instance, exists)
        for moment in resolved.instances:
            if item.optional and exists is not None and not _present(exists, item.feed.marker(moment)):
                continue  # an optional instance that is not there is not read (Falcon's dataIn skips it)
            dataset, dimensions = instance_location(item.feed, moment, lineage)
            dimensions["input"] = item.name
            if item.partition and item.feed.storage != "table":
                dimensions["partition"] = item.partition
            inputs.add(dataset, feed_dataset_facets(dataset, item.feed.feed, item.feed.cluster,
                                                    feeds.get(item.feed.feed), schema_of(item.feed.feed)), dimensions)
    outputs = _Datasets()
    for output in spec.outputs:
        written = output.time(instance)
        if written is None:
            continue
        dataset, dimensions = instance_location(output.feed, written, lineage)
        dimensions["output"] = output.name
        outputs.add(dataset, feed_dataset_facets(dataset, output.feed.feed, output.feed.cluster,
                                                 feeds.get(output.feed.feed), schema_of(output.feed.feed)), dimensions)
    result.inputs, result.outputs = inputs.inputs(), outputs.outputs()
    return result


def _present(exists: Callable[[str], bool], location: str) -> bool:
    try:
        return exists(location)
    except Exception:  # cannot tell: report it, as the workflow was given it
        return True


# -- retention -------------------------------------------------------------------------------------------------------


def retention_lineage(spec: RetentionDagSpec, report: Mapping[str, Any] | None) -> TaskLineage:
    """One output per evicted instance: ``lifecycleStateChange`` DROP (deleted) or RENAME from the instance to where
    it was archived; a catalog partition is its folder (symlinked to the table), else the table itself."""
    lineage = spec.lineage
    result = _entity_facets(lineage, "RETENTION")
    if not report:
        return result
    facts = (lineage.feeds if lineage is not None else {}).get(spec.feed)
    outputs = _Datasets()
    for record in report.get("evicted") or []:
        dimensions: dict[str, Any] = {"feed": spec.feed, "cluster": spec.cluster, "instance": record.get("instance"),
                                      "location": record.get("type")}
        path = record.get("path")
        symlinks = [F.feed_symlink(spec.cluster, spec.feed)]
        table = None
        if record.get("partition"):
            dimensions["partition"] = record["partition"]
            table = _table_of(spec, lineage)
        if path:
            dataset = location_dataset(str(path))
            if table is not None:
                symlinks.append((table, TABLE_SYMLINK_TYPE))
        elif table is not None:
            dataset = table
        else:
            continue
        facets: dict[str, Any] = {"symlinks": F.symlinks_facet(*symlinks), "dataSource": F.data_source_facet(dataset)}
        if facts is not None:
            _set(facets, "ownership", F.ownership_dataset_facet(facts.owner))
        archived = record.get("archived_to")
        if archived:
            target = location_dataset(str(archived))
            # the archived copy is no longer an instance of the feed: no feed symlink, the previous identity says
            # which instance it was
            facets = {"lifecycleStateChange": F.lifecycle_facet("RENAME", previous=dataset),
                      "dataSource": F.data_source_facet(target)}
            dataset = target
        else:
            facets["lifecycleStateChange"] = F.drop_facet()
        outputs.add(dataset, facets, dimensions)
    if outputs.left_out:
        log.warning("lineage of retention %s reports %d evicted datasets and leaves out %d", spec.dag_id,
                    len(outputs.entries), outputs.left_out)
    result.outputs = outputs.outputs()
    return result


def _table_of(spec: RetentionDagSpec, lineage: LineageSpec | None) -> DatasetId | None:
    if not spec.table:
        return None
    from falcon_airflow.entities.catalog import parse_table_uri

    uri = parse_table_uri(spec.table)
    return table_dataset(uri.database, uri.table, table_namespace(lineage, spec.cluster))


# -- replication -----------------------------------------------------------------------------------------------------


def replication_lineage(spec: ReplicationDagSpec, instance: datetime | None,
                        report: Mapping[str, Any] | None) -> TaskLineage:
    """The source instance copied to the target instance; every field of a known schema copied unchanged
    (``columnLineage`` DIRECT/IDENTITY); the bytes and files written from the job's report."""
    lineage = spec.lineage
    result = _entity_facets(lineage, "REPLICATION")
    if report and report.get("instance"):
        instance = parse_falcon_date(str(report["instance"]))
    if instance is None:
        return result
    facts = (lineage.feeds if lineage is not None else {}).get(spec.feed)
    # The declared schema when it can be read here, else the one the job read from the copy it published.
    schema = feed_schema(facts) or _reported_schema(report)
    source, source_dimensions = instance_location(spec.source_feed, instance, lineage)
    target, target_dimensions = instance_location(spec.target_feed, instance, lineage)
    if report and spec.source_feed.storage != "table":
        sources = [location_dataset(str(item)) for item in report.get("sources") or []]
        if len(sources) == 1:
            source = sources[0]
        if report.get("target"):
            target = location_dataset(str(report["target"]))
    inputs, outputs = _Datasets(), _Datasets()
    inputs.add(source, feed_dataset_facets(source, spec.feed, spec.source_cluster, facts, schema), source_dimensions)
    target_facets = feed_dataset_facets(target, spec.feed, spec.target_cluster, facts, schema)
    if schema:
        target_facets["columnLineage"] = F.identity_column_lineage(
            schema, source, description=f"replicated from cluster {spec.source_cluster}")
    entry = outputs.add(target, target_facets, target_dimensions)
    if entry is not None and report and "bytes" in report:
        entry.extra_output_facets["outputStatistics"] = F.output_statistics_facet(
            _int(report.get("bytes")), _int(report.get("files")))
    result.inputs, result.outputs = inputs.inputs(), outputs.outputs()
    return result


def extension_lineage(spec: ExtensionDagSpec, report: Mapping[str, Any] | None) -> TaskLineage:
    """A mirror run: the folders (or tables) read on the source cluster and written on the target, as the job's
    report names them; each written dataset with the bytes and files it holds after the run."""
    result = _entity_facets(spec.lineage, "EXTENSION")
    if not report:
        return result
    inputs, outputs = _Datasets(), _Datasets()
    run = {"extension": spec.extension, "job": spec.job_name, "instance": str(report.get("instance") or "")}
    if spec.extension == "hive-mirroring":
        source_ns = table_namespace(spec.lineage, spec.source_cluster)
        target_ns = table_namespace(spec.lineage, spec.target_cluster)
        for table in report.get("tables") or []:
            name = str(table.get("table") or "")
            if not name:
                continue
            inputs.add(DatasetId(source_ns, name), {}, {**run, "cluster": spec.source_cluster})
            entry = outputs.add(DatasetId(target_ns, name), {}, {**run, "cluster": spec.target_cluster})
            if entry is not None:
                entry.extra_output_facets["outputStatistics"] = F.output_statistics_facet(
                    _int(table.get("bytes")), _int(table.get("files")))
    else:
        copies = report.get("copies") or [report]
        for source, target, copy in zip(report.get("sources") or [], report.get("targets") or [], copies,
                                        strict=False):
            inputs.add(location_dataset(str(source)), {}, {**run, "cluster": spec.source_cluster})
            entry = outputs.add(location_dataset(str(target)), {}, {**run, "cluster": spec.target_cluster})
            if entry is not None:
                entry.extra_output_facets["outputStatistics"] = F.output_statistics_facet(
                    _int(copy.get("bytes")), _int(copy.get("files")))
    result.inputs, result.outputs = inputs.inputs(), outputs.outputs()
    return result


def _reported_schema(report: Mapping[str, Any] | None) -> list[SchemaField] | None:
    """``report["schema"]``: ``[[name, type], ...]`` of the replicated instance, as the replication job read it."""
    fields: list[SchemaField] = []
    for item in (report or {}).get("schema") or []:
        if isinstance(item, (list, tuple)) and len(item) == 2 and isinstance(item[0], str) and item[0]:
            fields.append((item[0], str(item[1]) if item[1] is not None else None))
    return fields or None


def _int(value: Any) -> int | None:
    try:
        return int(value) if value is not None else None
    except (TypeError, ValueError):
        return None
