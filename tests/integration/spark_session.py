"""The local Spark session the job and lineage tests share: local[2], no UI, two shuffle partitions, an in-memory
catalog in a temporary warehouse, and the settings every submitted job gets. Both suites run in one pytest worker
at times; ``getOrCreate`` then hands the second the first one's session, so the settings they depend on are the
same here."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any


def local_session(app_name: str, warehouse: Path, **conf: str) -> Any:
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    from falcon_airflow.provider.hooks.spark import SPARK_CONF_DEFAULTS

    builder = (SparkSession.builder.master("local[2]").appName(app_name)
               .config("spark.ui.enabled", "false")
               .config("spark.ui.showConsoleProgress", "false")
               .config("spark.sql.shuffle.partitions", "2")
               .config("spark.default.parallelism", "2")
               .config("spark.sql.warehouse.dir", str(warehouse))
               .config("spark.sql.catalogImplementation", "in-memory"))
    for key, value in {**SPARK_CONF_DEFAULTS, **conf}.items():
        builder = builder.config(key, value)
    session = builder.getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    return session
