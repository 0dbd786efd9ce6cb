"""Builders of the OpenLineage facets falcon-airflow reports (openlineage-python ``facet_v2`` classes).

=====================  =================  ===========================================================================
facet                  where              what it says
=====================  =================  ===========================================================================
``nominalTime``        run                the instance window [instance, next instance)
``tags``               run, job, dataset  Falcon tags ``key=value``, ``pipeline=<name>``, ``group=<name>``; source
                                          ``FALCON``
``ownership``          job, dataset       the entity's ACL owner as ``user:<owner>``
``symlinks``           dataset            the logical feed ``falcon://<cluster>`` / ``<feed>`` (type ``FEED``); a
                                          table's ``db.table`` for a partition folder (type ``TABLE``)
``subset``             input / output     which feed instance(s): a partition condition with dimensions ``feed``,
                                          ``cluster``, ``instance`` (``yyyy-MM-ddTHH:mmZ``) and, where they apply,
                                          ``input``, ``output``, ``partition``, ``location``
``lifecycleStateChange`` dataset          ``DROP`` for an evicted instance, ``RENAME`` (with the previous identity)
                                          for an archived one
``columnLineage``      dataset            ``DIRECT``/``IDENTITY`` field to field, for a replicated instance whose
                                          schema is known
``schema``             dataset            the feed's declared schema, when it can be read
``jobType``            job                ``BATCH`` / ``FALCON`` / ``PROCESS``, ``RETENTION`` or ``REPLICATION``
``dataSource``         dataset            the storage the dataset lives in (its namespace)
``outputStatistics``   output             bytes and files a replication wrote
=====================  =================  ===========================================================================

This module imports openlineage-python but neither Airflow nor Spark.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from openlineage.client.facet_v2 import (
    base_subset_dataset,
    column_lineage_dataset,
    datasource_dataset,
    job_type_job,
    lifecycle_state_change_dataset,
    nominal_time_run,
    output_statistics_output_dataset,
    ownership_dataset,
    ownership_job,
    schema_dataset,
    symlinks_dataset,
    tags_dataset,
    tags_job,
    tags_run,
)

from falcon_airflow.core.lineage import PRODUCER
from falcon_airflow.core.naming import FEED_SYMLINK_TYPE, DatasetId, feed_dataset
from falcon_airflow.core.times import format_timestamp
from falcon_airflow.lineage.schema import SchemaField

TAG_SOURCE = "FALCON"
INTEGRATION = "FALCON"
LIFECYCLE_STATES = ("ALTER", "CREATE", "DROP", "OVERWRITE", "RENAME", "TRUNCATE")

Tag = tuple[str, str]


def nominal_time(start: datetime, end: datetime | None) -> nominal_time_run.NominalTimeRunFacet:
    """The instance window: nominal start inclusive, end (the next instance) exclusive."""
    return nominal_time_run.NominalTimeRunFacet(nominalStartTime=format_timestamp(start),
                                                nominalEndTime=format_timestamp(end) if end is not None else None,
                                                producer=PRODUCER)


def owner_name(owner: str) -> str:
    """OpenLineage suggests URNs for owners: a Falcon ACL owner is a user."""
    return owner if ":" in owner else f"user:{owner}"


def ownership_job_facet(owner: str | None) -> ownership_job.OwnershipJobFacet | None:
    if not owner:
        return None
    return ownership_job.OwnershipJobFacet(owners=[ownership_job.Owner(name=owner_name(owner), type="OWNER")],
                                           producer=PRODUCER)


def ownership_dataset_facet(owner: str | None) -> ownership_dataset.OwnershipDatasetFacet | None:
    if not owner:
        return None
    return ownership_dataset.OwnershipDatasetFacet(
        owners=[ownership_dataset.Owner(name=owner_name(owner), type="OWNER")], producer=PRODUCER)


def falcon_tags(tags: Iterable[Sequence[str]] = (), pipelines: Iterable[str] = (),
                groups: Iterable[str] = ()) -> list[Tag]:
    """Entity tags, then ``pipeline=<name>`` and ``group=<name>``, without repeats, in order."""
    pairs: list[Tag] = [(str(item[0]), str(item[1])) for item in tags]
    pairs += [("pipeline", name) for name in pipelines]
    pairs += [("group", name) for name in groups]
    return list(dict.fromkeys(pairs))


def tags_run_facet(pairs: Sequence[Tag]) -> tags_run.TagsRunFacet | None:
    if not pairs:
        return None
    return tags_run.TagsRunFacet(tags=[tags_run.TagsRunFacetFields(key=key, value=value, source=TAG_SOURCE)
                                       for key, value in pairs], producer=PRODUCER)


def tags_job_facet(pairs: Sequence[Tag]) -> tags_job.TagsJobFacet | None:
    if not pairs:
        return None
    return tags_job.TagsJobFacet(tags=[tags_job.TagsJobFacetFields(key=key, value=value, source=TAG_SOURCE)
                                       for key, value in pairs], producer=PRODUCER)


def tags_dataset_facet(pairs: Sequence[Tag]) -> tags_dataset.TagsDatasetFacet | None:
    if not pairs:
        return None
    return tags_dataset.TagsDatasetFacet(
        tags=[tags_dataset.TagsDatasetFacetFields(key=key, value=value, source=TAG_SOURCE) for key, value in pairs],
        producer=PRODUCER)


def job_type_facet(job_type: str) -> job_type_job.JobTypeJobFacet:
    """``PROCESS``, ``RETENTION`` or ``REPLICATION``: what kind of Falcon work a job does."""
    return job_type_job.JobTypeJobFacet(processingType="BATCH", integration=INTEGRATION, jobType=job_type,
                                        producer=PRODUCER)


def lifecycle_facet(state: str, previous: DatasetId | None = None) -> (
        lifecycle_state_change_dataset.LifecycleStateChangeDatasetFacet):
    """A dataset's lifecycle change; ``previous`` names what a RENAME moved."""
    if state not in LIFECYCLE_STATES:
        raise ValueError(f"lifecycle state {state!r} is not one of {', '.join(LIFECYCLE_STATES)}")
    identifier = (lifecycle_state_change_dataset.PreviousIdentifier(name=previous.name, namespace=previous.namespace)
                  if previous is not None else None)
    return lifecycle_state_change_dataset.LifecycleStateChangeDatasetFacet(
        lifecycleStateChange=lifecycle_state_change_dataset.LifecycleStateChange(state),
        previousIdentifier=identifier, producer=PRODUCER)


def drop_facet() -> lifecycle_state_change_dataset.LifecycleStateChangeDatasetFacet:
    """Retention evicted the instance."""
    return lifecycle_facet("DROP")


def symlinks_facet(*identifiers: tuple[DatasetId, str]) -> symlinks_dataset.SymlinksDatasetFacet:
    return symlinks_dataset.SymlinksDatasetFacet(
        identifiers=[symlinks_dataset.Identifier(namespace=item.namespace, name=item.name, type=kind)
                     for item, kind in identifiers], producer=PRODUCER)


def feed_symlink(cluster: str, feed: str) -> tuple[DatasetId, str]:
    return feed_dataset(cluster, feed), FEED_SYMLINK_TYPE


def data_source_facet(dataset: DatasetId) -> datasource_dataset.DatasourceDatasetFacet:
    """The storage a dataset lives in: its namespace, as a URI (the local file system is ``file:///``)."""
    uri = dataset.namespace if "://" in dataset.namespace else f"{dataset.namespace}:///"
    return datasource_dataset.DatasourceDatasetFacet(name=dataset.namespace, uri=uri, producer=PRODUCER)


def _partitions(instances: Sequence[Mapping[str, Any]]) -> base_subset_dataset.PartitionSubsetCondition:
    return base_subset_dataset.PartitionSubsetCondition(partitions=[
        base_subset_dataset.Partition(dimensions={key: value for key, value in dimensions.items() if value is not None},
                                      identifier=str(dimensions.get("instance") or "") or None)
        for dimensions in instances])


def input_subset_facet(instances: Sequence[Mapping[str, Any]]) -> base_subset_dataset.InputSubsetInputDatasetFacet:
    """Which feed instances a run read: one partition per instance (dimensions feed, cluster, instance ...)."""
    return base_subset_dataset.InputSubsetInputDatasetFacet(inputCondition=_partitions(instances), producer=PRODUCER)


def output_subset_facet(
        instances: Sequence[Mapping[str, Any]]) -> base_subset_dataset.OutputSubsetOutputDatasetFacet:
    """Which feed instances a run wrote (or dropped)."""
    return base_subset_dataset.OutputSubsetOutputDatasetFacet(outputCondition=_partitions(instances),
                                                              producer=PRODUCER)


def schema_facet(fields: Sequence[SchemaField]) -> schema_dataset.SchemaDatasetFacet:
    return schema_dataset.SchemaDatasetFacet(
        fields=[schema_dataset.SchemaDatasetFacetFields(name=name, type=kind, ordinal_position=position)
                for position, (name, kind) in enumerate(fields, 1)], producer=PRODUCER)


def identity_column_lineage(fields: Sequence[SchemaField], source: DatasetId,
                            description: str = "copied unchanged") -> column_lineage_dataset.ColumnLineageDatasetFacet:
    """Every field of the output is the same field of ``source``, unchanged (DIRECT / IDENTITY)."""
    return column_lineage_dataset.ColumnLineageDatasetFacet(
        fields={name: column_lineage_dataset.Fields(inputFields=[column_lineage_dataset.InputField(
            namespace=source.namespace, name=source.name, field=name,
            transformations=[column_lineage_dataset.Transformation(type="DIRECT", subtype="IDENTITY",
                                                                   description=description, masking=False)])])
                for name, _ in fields},
        dataset=[], producer=PRODUCER)


def output_statistics_facet(size: int | None, files: int | None, rows: int | None = None) -> (
        output_statistics_output_dataset.OutputStatisticsOutputDatasetFacet):
    return output_statistics_output_dataset.OutputStatisticsOutputDatasetFacet(rowCount=rows, size=size,
                                                                               fileCount=files, producer=PRODUCER)
