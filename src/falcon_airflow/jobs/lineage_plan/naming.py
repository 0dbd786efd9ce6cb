"""The namespace of the session's catalog tables (see the package documentation)."""

from __future__ import annotations

from typing import Any

from falcon_airflow.core.naming import DEFAULT_TABLE_NAMESPACE as SPARK_TABLE_NAMESPACE
from falcon_airflow.core.naming import TABLE_NAMESPACE_CONF, metastore_authority

DEFAULT_TABLE_NAMESPACE = SPARK_TABLE_NAMESPACE.format(cluster="default")


def _conf(spark: Any, key: str) -> str | None:
    try:
        value = spark.conf.get(key, None)
    except Exception:
        value = None
    return value or None


def table_namespace(spark: Any) -> str:
    """The namespace of the session's catalog tables (see the module documentation)."""
    configured = _conf(spark, TABLE_NAMESPACE_CONF)
    if configured:
        return configured
    uris = _conf(spark, "spark.hadoop.hive.metastore.uris") or _conf(spark, "spark.sql.hive.metastore.uris")
    if not uris:
        try:
            uris = spark.sparkContext._jsc.hadoopConfiguration().get("hive.metastore.uris")
        except Exception:
            uris = None
    return metastore_authority(uris) or DEFAULT_TABLE_NAMESPACE
