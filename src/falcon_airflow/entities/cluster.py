"""The cluster entity: where data lives (read/write file systems, catalog) and where jobs run (Spark master)."""

from __future__ import annotations

from enum import StrEnum

from falcon_airflow.entities.base import ACL, EntityBase, EntityType, Located, Property, properties_map


class InterfaceType(StrEnum):
    READONLY = "readonly"
    WRITE = "write"
    EXECUTE = "execute"
    WORKFLOW = "workflow"
    MESSAGING = "messaging"
    REGISTRY = "registry"
    SPARK = "spark"


class Interface(Located):
    type: InterfaceType
    endpoint: str
    version: str


class ClusterLocationName(StrEnum):
    STAGING = "staging"
    WORKING = "working"
    TEMP = "temp"


class ClusterLocation(Located):
    name: ClusterLocationName
    path: str


class Cluster(EntityBase):
    colo: str
    description: str | None = None
    interfaces: tuple[Interface, ...]
    locations: tuple[ClusterLocation, ...]
    acl: ACL | None = None
    properties: tuple[Property, ...] = ()

    @property
    def entity_type(self) -> EntityType:
        return EntityType.CLUSTER

    def interface(self, kind: InterfaceType) -> Interface | None:
        """The first interface of this type (Falcon reads the first one too)."""
        return next((item for item in self.interfaces if item.type is kind), None)

    def location(self, name: ClusterLocationName) -> ClusterLocation | None:
        return next((item for item in self.locations if item.name is name), None)

    @property
    def property_map(self) -> dict[str, str]:
        return properties_map(self.properties)

    def expression_variables(self) -> dict[str, str]:
        """Values of ``${cluster.*}`` in feed partition expressions: name, colo and every property."""
        variables = {"cluster.name": self.name, "cluster.colo": self.colo}
        variables.update({f"cluster.{key}": value for key, value in self.property_map.items()})
        return variables
