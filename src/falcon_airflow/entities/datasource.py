"""The datasource entity: a database that feeds import from (readonly interface) or export to (write)."""

from __future__ import annotations

from enum import StrEnum

from falcon_airflow.entities.base import ACL, EntityBase, EntityType, Located, Property


class DatasourceType(StrEnum):
    MYSQL = "mysql"
    ORACLE = "oracle"
    HSQL = "hsql"
    POSTGRES = "postgres"
    DB2 = "db2"
    NETEZZA = "netezza"
    TERADATA = "teradata"
    GENERIC = "generic"


class DatasourceInterfaceType(StrEnum):
    READONLY = "readonly"
    WRITE = "write"


class CredentialType(StrEnum):
    PASSWORD_FILE = "password-file"
    PASSWORD_TEXT = "password-text"
    PASSWORD_ALIAS = "password-alias"


class PasswordAlias(Located):
    alias: str
    provider_path: str


class Credential(Located):
    """User and one secret; which secret element is present is independent of ``type`` in the XSD (rule D2)."""

    type: CredentialType
    user_name: str
    password_file: str | None = None
    password_text: str | None = None
    password_alias: PasswordAlias | None = None


class Driver(Located):
    clazz: str
    jars: tuple[str, ...]


class DatasourceInterface(Located):
    type: DatasourceInterfaceType
    endpoint: str
    driver: Driver | None = None
    credential: Credential | None = None
    properties: tuple[Property, ...] = ()


class Datasource(EntityBase):
    colo: str
    description: str | None = None
    type: DatasourceType
    interfaces: tuple[DatasourceInterface, ...]
    default_credential: Credential | None = None
    driver: Driver
    properties: tuple[Property, ...] = ()
    acl: ACL | None = None

    @property
    def entity_type(self) -> EntityType:
        return EntityType.DATASOURCE

    def interface(self, kind: DatasourceInterfaceType) -> DatasourceInterface | None:
        return next((item for item in self.interfaces if item.type is kind), None)
