"""A feed as it lives on one cluster: its instance grid, its storage and the concrete path of each instance."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from functools import cached_property
from urllib.parse import urlsplit

from falcon_airflow.core.locations import availability_marker, instance_location, is_table
from falcon_airflow.core.paths import Template, join_storage
from falcon_airflow.core.tables import metastore_sasl_principal, partition_marker
from falcon_airflow.entities import (
    Cluster,
    ClusterLocationName,
    Feed,
    FeedCluster,
    InterfaceType,
    LocationType,
    StorageKind,
    TableUri,
)
from falcon_airflow.instances.bindings import FeedBinding
from falcon_airflow.instances.s3 import S3_SCHEMES, client_settings
from falcon_airflow.timekeeping import format_falcon_date
from falcon_airflow.timekeeping.grid import InstanceGrid

EMPTY_DIR = "EMPTY_DIR_DONT_DELETE"


@dataclass(frozen=True)
class FeedOnCluster:
    feed: Feed
    placement: FeedCluster
    cluster: Cluster | None

    @property
    def name(self) -> str:
        return self.feed.name

    @property
    def cluster_name(self) -> str:
        return self.placement.name

    @cached_property
    def grid(self) -> InstanceGrid:
        """Instances from the cluster validity start (the first instance), every feed frequency, end exclusive."""
        validity = self.placement.validity
        return InstanceGrid.of(validity.start, self.feed.frequency, self.feed.zone.zone, validity.end)

    @property
    def storage(self) -> StorageKind:
        return self.feed.storage_for(self.placement)

    @property
    def storage_base(self) -> str | None:
        """Where relative feed paths live: the cluster's write interface (``file://``, ``hdfs://``, ``s3a://``)."""
        if self.cluster is None:
            return None
        write = self.cluster.interface(InterfaceType.WRITE)
        return write.endpoint.strip() if write is not None else None

    @property
    def read_base(self) -> str | None:
        """Where replication reads this feed from: the readonly interface, else the write interface."""
        if self.cluster is None:
            return None
        readonly = self.cluster.interface(InterfaceType.READONLY)
        return readonly.endpoint.strip() if readonly is not None else self.storage_base

    @property
    def metastore(self) -> str | None:
        """The cluster's ``registry`` interface when it is a thrift metastore (where the table's partitions are)."""
        registry = self.cluster.interface(InterfaceType.REGISTRY) if self.cluster is not None else None
        endpoint = registry.endpoint.strip() if registry is not None else ""
        return endpoint if endpoint.startswith("thrift://") else None

    @property
    def metastore_principal(self) -> str | None:
        """The metastore's service principal when the cluster says it takes SASL (Kerberos) clients only."""
        return metastore_sasl_principal(self.cluster.property_map) if self.cluster is not None else None

    def template(self, kind: LocationType = LocationType.DATA) -> Template | None:
        location = self.feed.location_for(self.placement, kind)
        return Template(location.path) if location is not None else None

    def templates(self) -> dict[LocationType, Template]:
        return {item.type: Template(item.path) for item in self.feed.locations_for(self.placement)}

    @property
    def table(self) -> TableUri | None:
        table = self.feed.table_for(self.placement)
        return table.parsed() if table is not None and self.storage is StorageKind.TABLE else None

    def relative_path(self, instance: datetime, kind: LocationType = LocationType.DATA) -> str | None:
        template = self.template(kind)
        return template.resolve(instance, self.feed.zone.zone) if template is not None else None

    def path(self, instance: datetime, kind: LocationType = LocationType.DATA, *, base: str | None = None) -> str:
        """The instance's location: a full URI on the cluster's storage, or a catalog URI for table feeds."""
        return instance_location(self.location(kind, base=base), instance, self.feed.zone.zone)

    def location(self, kind: LocationType = LocationType.DATA, *, base: str | None = None) -> str:
        """The location template on the cluster: the storage base joined to the feed's path, or the catalog URI."""
        table = self.feed.table_for(self.placement) if self.storage is StorageKind.TABLE else None
        if table is not None:
            table.parsed()  # a malformed URI is the entities' CatalogUriError, saying what is wrong
            return table.uri.strip()
        template = self.template(kind)
        if template is None:
            raise ValueError(f"feed '{self.name}' has no {kind.value} location on cluster '{self.cluster_name}'")
        return join_storage(base if base is not None else self.storage_base, template.text)

    def partition_values(self, instance: datetime) -> dict[str, str]:
        """For table feeds: each partition key with its value for this instance."""
        table = self.table
        return table.resolve(instance, self.feed.zone.zone) if table is not None else {}

    def availability_marker(self, instance: datetime) -> str | None:
        """What says the instance is complete: the flag file, else the folder itself; for a table feed its partition
        in the cluster's metastore (``None`` when the cluster names no thrift metastore)."""
        if self.storage is StorageKind.TABLE:  # the partition in the metastore, when the cluster names one
            return partition_marker(self.metastore, self.path(instance), self.metastore_principal) \
                if self.metastore else None
        return availability_marker(self.path(instance), self.feed.availability_flag)

    def binding(self) -> FeedBinding:
        """This feed on this cluster as a self-contained, serialisable :class:`FeedBinding`."""
        validity = self.placement.validity
        location = self.location(LocationType.DATA)
        return FeedBinding(feed=self.name, cluster=self.cluster_name, frequency=str(self.feed.frequency),
                           timezone=self.feed.timezone, start=format_falcon_date(validity.start),
                           end=format_falcon_date(validity.end), location=location,
                           storage="table" if is_table(location) else "filesystem",
                           availability_flag=self.feed.availability_flag,
                           metastore=self.metastore if is_table(location) else None,
                           metastore_principal=self.metastore_principal if is_table(location) else None,
                           storage_settings=self.s3_settings(location))

    def s3_settings(self, location: str) -> dict[str, str] | None:
        """The cluster's S3A client settings when ``location`` is on S3 and the cluster has any."""
        if self.cluster is None or urlsplit(location).scheme not in S3_SCHEMES:
            return None
        return client_settings(self.cluster.property_map) or None

    def empty_dir(self) -> str | None:
        """Falcon's stand-in for an optional input with no instance: ``<staging>/EMPTY_DIR_DONT_DELETE``."""
        if self.cluster is None:
            return None
        staging = self.cluster.location(ClusterLocationName.STAGING)
        if staging is None:
            return None
        return join_storage(self.storage_base, f"{staging.path.rstrip('/')}/{EMPTY_DIR}")
