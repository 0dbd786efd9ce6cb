"""Typed, frozen models of Falcon's four entity types.

Built by :mod:`falcon_airflow.parsing` from XML that already passed the XSD; read by validation and the compiler.
"""

from __future__ import annotations

from falcon_airflow.entities.base import (
    ACL,
    EntityBase,
    EntityType,
    Located,
    Notification,
    NotificationLevel,
    Property,
    SourceRef,
    Validity,
)
from falcon_airflow.entities.catalog import TableUri
from falcon_airflow.entities.cluster import Cluster, ClusterLocation, ClusterLocationName, Interface, InterfaceType
from falcon_airflow.entities.datasource import (
    Credential,
    CredentialType,
    Datasource,
    DatasourceInterface,
    DatasourceInterfaceType,
    DatasourceType,
    Driver,
    PasswordAlias,
)
from falcon_airflow.entities.feed import (
    AGE_BASED_DELETE_LIMIT,
    DEFAULT_LIFECYCLE_POLICY,
    Argument,
    CatalogTable,
    DatasourceRef,
    Extract,
    ExtractType,
    Feed,
    FeedCluster,
    FeedClusterType,
    FeedExport,
    FeedImport,
    FeedLocation,
    FeedSchema,
    FeedSLA,
    FieldSelection,
    LateArrival,
    Lifecycle,
    Load,
    LoadType,
    LocationType,
    MergePolicy,
    Partition,
    Retention,
    RetentionStage,
    StorageKind,
)
from falcon_airflow.entities.process import (
    ExecutionOrder,
    Input,
    LateInput,
    LateProcess,
    Output,
    PolicyType,
    Process,
    ProcessCluster,
    ProcessSLA,
    Retry,
    SparkAttributes,
    Workflow,
    WorkflowEngine,
)

Entity = Cluster | Feed | Process | Datasource

__all__ = [
    "AGE_BASED_DELETE_LIMIT", "DEFAULT_LIFECYCLE_POLICY",
    "ACL", "Argument", "CatalogTable", "Cluster", "ClusterLocation", "ClusterLocationName", "Credential",
    "CredentialType", "Datasource", "DatasourceInterface", "DatasourceInterfaceType", "DatasourceRef",
    "DatasourceType", "Driver", "Entity", "EntityBase", "EntityType", "ExecutionOrder", "Extract", "ExtractType",
    "Feed", "FeedCluster", "FeedClusterType", "FeedExport", "FeedImport", "FeedLocation", "FeedSLA", "FeedSchema",
    "FieldSelection", "Input", "Interface", "InterfaceType", "LateArrival", "LateInput", "LateProcess", "Lifecycle",
    "Load", "LoadType", "Located", "LocationType", "MergePolicy", "Notification", "NotificationLevel", "Output",
    "Partition", "PasswordAlias", "PolicyType", "Process", "ProcessCluster", "ProcessSLA", "Property", "Retention",
    "RetentionStage", "Retry", "SourceRef", "SparkAttributes", "StorageKind", "TableUri", "Validity", "Workflow",
    "WorkflowEngine",
]
