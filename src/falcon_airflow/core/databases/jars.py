"""Where the pinned JDBC driver jars are: the ``jdbc`` group of the JVM jar cache.

``make jars`` (part of ``make install``) resolves ``deps/maven/jdbc.pom.xml`` with Maven into
``<cache>/jdbc/``, the cache being ``$FALCON_AIRFLOW_JARS`` when set, else ``~/.cache/falcon-airflow/jars`` — the
same cache and layout as the other JVM jars (see ``falcon_airflow.jvm``). Standard library only: the compiler,
validation and the DAG builder use it.
"""

from __future__ import annotations

import os
from pathlib import Path

from falcon_airflow.core.databases.drivers import DRIVERS, Artifact

JARS_ENV = "FALCON_AIRFLOW_JARS"
JDBC_GROUP = "jdbc"


class JarCacheError(RuntimeError):
    """A driver class we do not ship."""


def jdbc_folder() -> Path:
    configured = os.environ.get(JARS_ENV, "").strip()
    cache = Path(configured).expanduser() if configured else Path.home() / ".cache" / "falcon-airflow" / "jars"
    return cache / JDBC_GROUP


def artifact_of(coordinate: str) -> Artifact:
    group, name, version = coordinate.split(":")
    return Artifact(group, name, version)


def jar_path(coordinate: str) -> Path:
    """Where the jar of ``group:name:version`` is (once ``make jars`` ran)."""
    return jdbc_folder() / artifact_of(coordinate).file_name


def driver_jar(driver_class: str) -> Path | None:
    """The cached jar of a supported driver class (``None`` when the driver ships with Spark)."""
    driver = DRIVERS.get(driver_class.strip())
    if driver is None:
        raise JarCacheError(f"driver class '{driver_class}' is not supported")
    return jar_path(driver.artifact.coordinate) if driver.artifact is not None else None
