"""One SparkSession (``local[2]``) for every column-lineage test, the input files they read, and a Python UDF maker.

The Spark tests carry ``xdist_group("spark-lineage")`` so that ``pytest -n 2 --dist loadgroup`` keeps them on one
worker (one JVM). Inputs are real files written once per session under pytest's temporary folder: parquet tables
``t1`` ... and a CSV file, each also registered as a temporary view of the same name for the SQL cases.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from tests.integration.spark_session import local_session


@pytest.fixture(scope="session")
def spark(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """local[2], no UI, two shuffle partitions, an in-memory catalog in a temporary warehouse."""
    session = local_session("falcon-airflow-lineage-tests", tmp_path_factory.mktemp("lineage-warehouse"),
                            **{"spark.driver.host": "127.0.0.1",
                               "spark.sql.adaptive.enabled": "false"})  # tiny inputs: re-planning only costs time
    yield session
    session.stop()


@dataclass
class Tables:
    """Where the test inputs are: ``paths[name]`` is the folder (or CSV file) of table ``name``."""

    root: Path
    paths: dict[str, str] = field(default_factory=dict)

    def read(self, spark: Any, name: str) -> Any:
        if name.endswith("_csv"):
            return spark.read.option("header", True).option("inferSchema", True).csv(self.paths[name])
        return spark.read.parquet(self.paths[name])


# name -> (DDL schema, rows); small, with enough variety for filters, joins and windows to matter.
TABLE_DATA: dict[str, tuple[str, list[tuple[Any, ...]]]] = {
    "t1": ("a INT, b INT, c INT, d STRING, e STRING, s STRUCT<x: INT, y: STRING>",
           [(i, i % 4, (i * 7) % 5, f"d{i % 3} w{i}", f"e{i % 2}", (i * 10, f"y{i}")) for i in range(1, 13)]),
    "t2": ("a INT, c INT, d INT", [(i, i % 3, i * 100) for i in range(2, 15, 2)]),
    "t3": ("a INT, d INT", [(i, i * 1000) for i in range(1, 8)]),
    "words": ("a STRING", [("alpha beta",), ("gamma",), ("delta epsilon zeta",)]),
    "orders": ("oder_id INT, order_date INT, shipped_date INT",
               [(i, 20240100 + i, 20240102 + i if i % 3 else None) for i in range(1, 10)]),
    "dates": ("date_id INT, day_name STRING", [(20240100 + i, f"day{i}") for i in range(0, 14)]),
    "cte1": ("a INT, b STRING", [(i, str(i % 2)) for i in range(1, 9)]),
    "cte2": ("a INT, c INT", [(i, i % 2) for i in range(1, 9)]),
    "cte3": ("a INT, d INT", [(i, 9 - i) for i in range(1, 9)]),
}


@pytest.fixture(scope="session")
def tables(spark: Any, tmp_path_factory: pytest.TempPathFactory) -> Tables:
    """The parquet tables of :data:`TABLE_DATA` and ``people_csv``, written once; temp views of the same names."""
    root = tmp_path_factory.mktemp("lineage-inputs")
    found = Tables(root)
    for name, (schema, rows) in TABLE_DATA.items():
        path = root / name
        spark.createDataFrame(rows, schema).coalesce(1).write.parquet(str(path))
        found.paths[name] = str(path)
    csv = root / "people.csv"
    csv.write_text("id,name,age\n1,ann,31\n2,bob,45\n3,cid,27\n", encoding="utf-8")
    found.paths["people_csv"] = str(csv)
    for name in found.paths:
        found.read(spark, name).createOrReplaceTempView(name)
    return found


PythonUdf = Callable[..., Any]


def python_udf(spark: Any, func: Callable[..., Any], return_type: Any, name: str) -> PythonUdf:
    """A scalar Python UDF (a ``PythonUDF`` expression in the plan) usable in the DataFrame API, registered for SQL."""
    from pyspark.sql.functions import udf

    # register() returns the function under the given name, which is how the DataFrame API's plan names it too.
    return spark.udf.register(name, udf(func, return_type))  # type: ignore[no-any-return]


@pytest.fixture(scope="session")
def make_udf(spark: Any) -> Callable[[Callable[..., Any], Any, str], PythonUdf]:
    """``make_udf(func, return_type, name)``: see :func:`python_udf`."""

    def make(func: Callable[..., Any], return_type: Any, name: str) -> PythonUdf:
        return python_udf(spark, func, return_type, name)

    return make
