"""The feed entity: a dataset that lands on a schedule at dated paths or table partitions, per cluster."""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from falcon_airflow.entities.base import (
    ACL,
    EntityType,
    Located,
    Notification,
    Property,
    Validity,
    ZonedEntity,
    properties_map,
)
from falcon_airflow.entities.catalog import TableUri, parse_table_uri
from falcon_airflow.timekeeping import Frequency, TimeUnit

DEFAULT_LIFECYCLE_POLICY = "AgeBasedDelete"
AGE_BASED_DELETE_LIMIT = "retention.policy.agebaseddelete.limit"


class FeedClusterType(StrEnum):
    SOURCE = "source"
    TARGET = "target"


class LocationType(StrEnum):
    DATA = "data"
    STATS = "stats"
    META = "meta"
    TMP = "tmp"


class StorageKind(StrEnum):
    FILESYSTEM = "filesystem"
    TABLE = "table"


class FeedLocation(Located):
    type: LocationType
    path: str


class CatalogTable(Located):
    uri: str

    def parsed(self) -> TableUri:
        """The URI's parts; raises :class:`falcon_airflow.errors.CatalogUriError` when malformed."""
        return parse_table_uri(self.uri)


class Partition(Located):
    name: str


class FeedSLA(Located):
    sla_low: Frequency
    sla_high: Frequency


class LateArrival(Located):
    cut_off: Frequency


class Retention(Located):
    limit: Frequency
    action: Literal["delete"] = "delete"
    type: Literal["instance"] = "instance"


class ExtractType(StrEnum):
    FULL = "full"
    INCREMENTAL = "incremental"


class MergePolicy(StrEnum):
    SNAPSHOT = "snapshot"
    APPEND = "append"


class Extract(Located):
    type: ExtractType
    delta_column: str | None = None
    merge_policy: MergePolicy


class LoadType(StrEnum):
    UPDATE_ONLY = "updateonly"
    ALLOW_INSERT = "allowinsert"


class Load(Located):
    type: LoadType


class FieldSelection(Located):
    mode: Literal["includes", "excludes"]
    fields: tuple[str, ...]


class DatasourceRef(Located):
    """The datasource side of an import (``source``) or export (``target``)."""

    name: str
    table_name: str
    version: int | None = None
    extract: Extract | None = None
    load: Load | None = None
    fields: FieldSelection | None = None


class Argument(Located):
    name: str  # lower-cased when read, as Falcon does
    value: str


class FeedImport(Located):
    source: DatasourceRef
    arguments: tuple[Argument, ...] = ()


class FeedExport(Located):
    target: DatasourceRef
    arguments: tuple[Argument, ...] = ()


class RetentionStage(Located):
    policy: str | None = None
    frequency: Frequency | None = None
    queue: str | None = None
    priority: str | None = None
    properties: tuple[Property, ...] = ()

    @property
    def effective_policy(self) -> str:
        return self.policy if self.policy and self.policy.strip() else DEFAULT_LIFECYCLE_POLICY


class Lifecycle(Located):
    retention_stage: RetentionStage | None = None


class FeedCluster(Located):
    name: str
    type: FeedClusterType | None = None
    partition: str | None = None
    delay: Frequency | None = None
    version: int = 0
    validity: Validity
    retention: Retention
    sla: FeedSLA | None = None
    import_policy: FeedImport | None = None
    export_policy: FeedExport | None = None
    locations: tuple[FeedLocation, ...] | None = None
    table: CatalogTable | None = None
    lifecycle: Lifecycle | None = None

    @property
    def is_source(self) -> bool:
        return self.type is FeedClusterType.SOURCE

    @property
    def is_target(self) -> bool:
        return self.type is FeedClusterType.TARGET


class FeedSchema(Located):
    location: str
    provider: str


class Feed(ZonedEntity):
    description: str | None = None
    partitions: tuple[Partition, ...] = ()
    groups: tuple[str, ...] = ()
    availability_flag: str | None = None
    frequency: Frequency
    sla: FeedSLA | None = None
    late_arrival: LateArrival | None = None
    clusters: tuple[FeedCluster, ...]
    locations: tuple[FeedLocation, ...] | None = None
    table: CatalogTable | None = None
    notification: Notification | None = None
    acl: ACL
    data_schema: FeedSchema
    properties: tuple[Property, ...] = ()
    lifecycle: Lifecycle | None = None

    @property
    def entity_type(self) -> EntityType:
        return EntityType.FEED

    @property
    def property_map(self) -> dict[str, str]:
        return properties_map(self.properties)

    def cluster(self, name: str) -> FeedCluster | None:
        return next((item for item in self.clusters if item.name == name), None)

    @property
    def sources(self) -> tuple[FeedCluster, ...]:
        return tuple(item for item in self.clusters if item.is_source)

    @property
    def targets(self) -> tuple[FeedCluster, ...]:
        return tuple(item for item in self.clusters if item.is_target)

    # -- storage, resolved per cluster (a cluster's own locations or table override the feed's) -------------

    @property
    def default_storage(self) -> StorageKind:
        return StorageKind.TABLE if self.table is not None else StorageKind.FILESYSTEM

    def storage_for(self, cluster: FeedCluster) -> StorageKind:
        if cluster.table is not None:
            return StorageKind.TABLE
        if cluster.locations:
            return StorageKind.FILESYSTEM
        return self.default_storage

    def locations_for(self, cluster: FeedCluster) -> tuple[FeedLocation, ...]:
        """A cluster's locations replace the feed's as a whole when it declares any."""
        if cluster.locations:
            return cluster.locations
        return self.locations or ()

    def location_for(self, cluster: FeedCluster, kind: LocationType) -> FeedLocation | None:
        return next((item for item in self.locations_for(cluster) if item.type is kind), None)

    def table_for(self, cluster: FeedCluster) -> CatalogTable | None:
        return cluster.table if cluster.table is not None else self.table

    def default_location(self, kind: LocationType) -> FeedLocation | None:
        return next((item for item in self.locations or () if item.type is kind), None)

    def sla_for(self, cluster: FeedCluster) -> FeedSLA | None:
        return cluster.sla if cluster.sla is not None else self.sla

    # -- lifecycle (cluster-level lifecycle wins over the feed's) -------------------------------------------

    def lifecycle_enabled(self, cluster: FeedCluster) -> bool:
        return cluster.lifecycle is not None or self.lifecycle is not None

    def retention_stage_for(self, cluster: FeedCluster) -> RetentionStage | None:
        if not self.lifecycle_enabled(cluster):
            return None
        if cluster.lifecycle is not None and cluster.lifecycle.retention_stage is not None:
            return cluster.lifecycle.retention_stage
        return self.lifecycle.retention_stage if self.lifecycle is not None else None

    def lifecycle_retention_frequency(self, cluster: FeedCluster) -> Frequency | None:
        """How often lifecycle retention runs: the stage's frequency, else max(feed frequency, hours(6))."""
        stage = self.retention_stage_for(cluster)
        if stage is None:
            return None
        if stage.frequency is not None:
            return stage.frequency
        six_hours = Frequency(unit=TimeUnit.HOURS, count=6)
        return self.frequency if self.frequency.millis > six_hours.millis else six_hours
