"""The JDBC drivers an import or export can use: driver class to database kind and pinned Maven artifact.

A datasource names its driver class (``<driver><clazz>``) and a JDBC URL (the interface endpoint). Falcon shipped
the ``<jar>`` files the entity lists to Sqoop; here the driver comes from a pinned artifact resolved into a local
cache by ``make install`` (see :mod:`falcon_airflow.core.databases.jars`), so an entity written for Falcon works
as it is and the version that runs is the one we test. A driver class outside this table is an error (rule
FA011), never a silent skip: the feed would not be imported.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Dialect(StrEnum):
    """How the export's SQL is written and how lineage names the database."""

    POSTGRES = "postgres"
    MYSQL = "mysql"
    SQLITE = "sqlite"
    DERBY = "derby"
    HSQL = "hsql"


@dataclass(frozen=True)
class Artifact:
    group: str
    name: str
    version: str

    @property
    def coordinate(self) -> str:
        return f"{self.group}:{self.name}:{self.version}"

    @property
    def file_name(self) -> str:
        return f"{self.name}-{self.version}.jar"


@dataclass(frozen=True)
class Driver:
    clazz: str
    dialect: Dialect
    url_schemes: tuple[str, ...]
    """The JDBC sub-protocols (``jdbc:<scheme>:``) the driver accepts."""
    artifact: Artifact | None
    """``None``: the driver ships with Spark itself (Derby, inside pyspark's jars)."""
    datasource_types: tuple[str, ...]
    """The datasource ``type`` values that fit the driver (``generic`` fits every driver)."""


POSTGRES_JDBC = Artifact("org.postgresql", "postgresql", "42.7.4")
MARIADB_JDBC = Artifact("org.mariadb.jdbc", "mariadb-java-client", "3.4.1")
SQLITE_JDBC = Artifact("org.xerial", "sqlite-jdbc", "3.46.1.3")
HSQLDB_JDBC = Artifact("org.hsqldb", "hsqldb", "2.7.3")

DRIVERS: dict[str, Driver] = {driver.clazz: driver for driver in (
    Driver("org.postgresql.Driver", Dialect.POSTGRES, ("postgresql",), POSTGRES_JDBC, ("postgres", "generic")),
    Driver("org.mariadb.jdbc.Driver", Dialect.MYSQL, ("mariadb", "mysql"), MARIADB_JDBC, ("mysql", "generic")),
    # MySQL's own driver class: served by MariaDB Connector/J, which speaks the MySQL protocol (jdbc:mysql: URLs
    # are accepted with permitMysqlScheme, added by the jobs).
    Driver("com.mysql.jdbc.Driver", Dialect.MYSQL, ("mysql",), MARIADB_JDBC, ("mysql", "generic")),
    Driver("com.mysql.cj.jdbc.Driver", Dialect.MYSQL, ("mysql",), MARIADB_JDBC, ("mysql", "generic")),
    Driver("org.sqlite.JDBC", Dialect.SQLITE, ("sqlite",), SQLITE_JDBC, ("generic",)),
    Driver("org.hsqldb.jdbc.JDBCDriver", Dialect.HSQL, ("hsqldb",), HSQLDB_JDBC, ("hsql", "generic")),
    Driver("org.hsqldb.jdbcDriver", Dialect.HSQL, ("hsqldb",), HSQLDB_JDBC, ("hsql", "generic")),
    Driver("org.apache.derby.jdbc.EmbeddedDriver", Dialect.DERBY, ("derby",), None, ("generic",)),
    Driver("org.apache.derby.iapi.jdbc.AutoloadedDriver", Dialect.DERBY, ("derby",), None, ("generic",)),
)}

ARTIFACTS: tuple[Artifact, ...] = tuple(dict.fromkeys(d.artifact for d in DRIVERS.values() if d.artifact))

RUNTIME_CLASS = {"com.mysql.jdbc.Driver": "org.mariadb.jdbc.Driver",
                 "com.mysql.cj.jdbc.Driver": "org.mariadb.jdbc.Driver"}
"""Driver classes that another class of the pinned artifact serves."""


def runtime_class(clazz: str) -> str:
    """The class the jobs load for a datasource's declared driver class."""
    return RUNTIME_CLASS.get(clazz.strip(), clazz.strip())


def driver_problem(clazz: str, datasource_type: str, endpoint: str) -> str | None:
    """Why a datasource interface cannot be used here (``None``: it can)."""
    driver = DRIVERS.get(clazz.strip())
    if driver is None:
        return (f"driver class '{clazz.strip()}' is not one falcon-airflow ships; supported: "
                f"{', '.join(sorted(DRIVERS))}")
    if datasource_type not in driver.datasource_types:
        return (f"datasource type '{datasource_type}' does not fit driver class '{driver.clazz}' (it fits "
                f"{', '.join(driver.datasource_types)})")
    from falcon_airflow.core.databases.urls import JdbcUrlError, parse_jdbc_url

    try:
        url = parse_jdbc_url(endpoint)
    except JdbcUrlError as problem:
        return str(problem)
    if url.scheme not in driver.url_schemes:
        from falcon_airflow.core.secrets import redact_url

        return (f"endpoint '{redact_url(endpoint.strip())}' is a jdbc:{url.scheme}: URL, which driver class "
                f"'{driver.clazz}' does not accept (it takes {', '.join(f'jdbc:{s}:' for s in driver.url_schemes)})")
    return None
