"""An independent oracle for the plan walker: perturb one input column, re-run the job, explain every change.

For each job below (projection and filter, join, group-by aggregation, window, union with a Python UDF, nested
structs, conditionals, subquery, distinct and sort) the inputs are real parquet files. The job runs once on them
and the walker computes its lineage; then, for every column of every input, the job re-runs with only that
column's values changed (the other inputs and columns as they are; the changed copy is handed to the job as
in-memory rows with the same schema, which spares a write per column), and every output column whose values
changed (as a multiset: a changed row count changes every column) must be explained by the walker - an edge from
that input column to that output column, or a dataset-level edge (which counts for every output column). The
walker is never consulted to decide what to perturb or what changed, so a missing edge cannot hide. Columns that
Spark's optimizer prunes from every scan of the job are not perturbed: values never read cannot change anything.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from tests.integration.lineage.perturbation import column_names, perturb_value

from falcon_airflow.jobs.lineage_plan.lineage import column_lineage

pytestmark = pytest.mark.xdist_group("spark-lineage")

CITIES = ("rome", "oslo", "lima")
KINDS = ("a", "b", "c", "d")
INPUTS: dict[str, tuple[str, list[tuple[Any, ...]]]] = {
    "people": ("id INT, name STRING, age INT, city STRING, score INT, bonus INT, "
               "profile STRUCT<height: INT, tags: ARRAY<STRING>>",
               [(i, f"n{i:02d}", 20 + (i * 7) % 40, CITIES[i % 3], (i * 13) % 50, None if i % 4 == 0 else i * 2,
                 (150 + (i * 11) % 50, [f"t{i % 3}", f"u{i % 2}"])) for i in range(1, 25)]),
    "visits": ("vid INT, pid INT, amount INT, day STRING, kind STRING",
               [(i, 1 + (i * 5) % 24, (i * 17) % 90, f"2026-03-{1 + i % 9:02d}", KINDS[i % 4])
                for i in range(1, 41)]),
}


@dataclass(frozen=True)
class Job:
    name: str
    reads: tuple[str, ...]
    build: Callable[[dict[str, Any], dict[str, Any]], Any]


def F() -> Any:
    from pyspark.sql import functions

    return functions


def window(*partition: str) -> Any:
    from pyspark.sql import Window

    return Window.partitionBy(*partition)


JOBS = [
    Job("projection_filter", ("people",), lambda t, u: t["people"].where(F().col("age") > 30).select(
        (F().col("id") * 10).alias("key"), F().upper("name").alias("who"),
        (F().col("score") + F().col("age")).alias("mix"), "city")),
    Job("join", ("people", "visits"), lambda t, u: t["people"].join(
        t["visits"], t["people"]["id"] == t["visits"]["pid"]).select(
        "name", "amount", (F().col("amount") * 2).alias("double"), "day")),
    Job("group_by_aggregation", ("visits",), lambda t, u: t["visits"].groupBy("kind").agg(
        F().sum("amount").alias("total"), F().count("day").alias("n"), F().max("pid").alias("top"))),
    Job("window", ("people",), lambda t, u: t["people"].select(
        "id", "city",
        F().rank().over(window("city").orderBy("score", "id")).alias("r"),
        F().sum("age").over(window("city")).alias("city_age"),
        F().lag("name", 1).over(window("city").orderBy("id")).alias("previous"))),
    Job("union_udf", ("people", "visits"), lambda t, u: t["people"].select(
        u["spread"]("score").alias("v"), F().col("name").alias("label")).union(
        t["visits"].select(u["spread"]("amount").alias("v"), F().col("kind").alias("label")))),
    Job("nested_struct", ("people",), lambda t, u: t["people"].select(
        F().col("profile.height").alias("height"), F().struct("name", "city").alias("card"),
        (F().col("profile.height") + F().col("age")).alias("mixed"), F().size("profile.tags").alias("tags"))),
    Job("conditionals", ("people",), lambda t, u: t["people"].select(
        F().when(F().col("age") > 40, F().col("name")).otherwise(F().col("city")).alias("pick"),
        F().coalesce("bonus", "score").alias("extra"), F().nullif("city", F().lit("rome")).alias("not_rome"))),
    Job("subquery_sql", ("people", "visits"), lambda t, u: t["people"].sparkSession.sql(
        "SELECT name, (SELECT max(amount) FROM oracle_visits v WHERE v.pid = p.id) AS best "
        "FROM oracle_people p WHERE p.id IN (SELECT pid FROM oracle_visits WHERE amount > 40)")),
    Job("distinct_sort", ("visits",), lambda t, u: t["visits"].select("kind", "day").distinct().orderBy("day", "kind")),
]


def freeze(value: Any) -> Any:
    return json.dumps(value, sort_keys=True, default=str)


def column_values(rows: list[Any], columns: list[str]) -> dict[str, Counter[str]]:
    values: dict[str, Counter[str]] = {column: Counter() for column in columns}
    for row in rows:
        data = row.asDict(recursive=True)
        for column in columns:
            values[column][freeze(data[column])] += 1
    return values


class Oracle:
    """The input files (written on first use), their perturbed copies, and job runs."""

    def __init__(self, spark: Any, root: Path, udfs: dict[str, Any]) -> None:
        self.spark = spark
        self.root = root
        self.udfs = udfs
        self.paths: dict[str, str] = {}

    def path(self, table: str) -> str:
        if table not in self.paths:
            schema, rows = INPUTS[table]
            target = self.root / table
            self.spark.createDataFrame(rows, schema).coalesce(1).write.parquet(str(target))
            self.paths[table] = str(target)
        return self.paths[table]

    def columns(self, table: str) -> list[str]:
        return column_names(INPUTS[table][0])

    def perturbed(self, table: str, column: str) -> Any:
        """``table`` with the values of ``column`` changed, as in-memory rows of the same schema."""
        schema, rows = INPUTS[table]
        position = self.columns(table).index(column)
        changed = [(*row[:position], perturb_value(row[position]), *row[position + 1:]) for row in rows]
        return self.spark.createDataFrame(changed, schema)

    def frame(self, job: Job, perturbed: tuple[str, str] | None = None) -> Any:
        inputs = {}
        for table in job.reads:
            if perturbed is not None and perturbed[0] == table:
                inputs[table] = self.perturbed(table, perturbed[1])
            else:
                inputs[table] = self.spark.read.parquet(self.path(table))
            inputs[table].createOrReplaceTempView(f"oracle_{table}")
        return job.build(inputs, self.udfs)


def columns_scanned(df: Any, tables: dict[str, str]) -> set[tuple[str, str]]:
    """(table, column) of every column the optimized plan of ``df`` reads from a file (Spark's own pruning)."""
    found: set[tuple[str, str]] = set()
    stack = [df._jdf.queryExecution().optimizedPlan()]
    while stack:
        node = stack.pop()
        children, subqueries = node.children(), node.subqueries()
        stack.extend(children.apply(i) for i in range(children.size()))
        stack.extend(subqueries.apply(i) for i in range(subqueries.size()))
        if str(node.nodeName()) != "LogicalRelation" and not str(node.getClass().getName()).endswith(
                "LogicalRelation"):
            continue
        roots = node.relation().location().rootPaths()
        for position in range(roots.size()):
            path = str(roots.apply(position).toString()).removeprefix("file:")
            table = tables.get(path.rstrip("/"))
            output = node.output()
            found.update((table, str(output.apply(i).name())) for i in range(output.size()) if table)
    return found


@pytest.fixture(scope="module")
def oracle(spark: Any, tmp_path_factory: pytest.TempPathFactory, make_udf: Callable[..., Any]) -> Oracle:
    from pyspark.sql.types import IntegerType

    spread = make_udf(lambda value: None if value is None else (value % 7) * 3 + value // 10, IntegerType(),
                      "oracle_spread")
    return Oracle(spark, tmp_path_factory.mktemp("oracle"), {"spread": spread})


@pytest.mark.parametrize("job", JOBS, ids=lambda job: job.name)
def test_every_change_is_explained_by_an_edge(oracle: Oracle, job: Job) -> None:
    base = oracle.frame(job)
    lineage = column_lineage(base)
    outputs = list(base.columns)
    expected = column_values(base.collect(), outputs)
    names = {oracle.path(table): table for table in job.reads}
    dataset_level = {(names.get(item.name, item.name), item.field) for item in lineage.dataset}
    explained = {column: {(names.get(item.name, item.name), item.field) for item in lineage.fields.get(column, ())}
                 | dataset_level for column in outputs}
    scanned = columns_scanned(base, {path.rstrip("/"): table for path, table in names.items()})
    assert scanned, "no file scan found in the optimized plan"
    unexplained, detected = [], 0
    for table in job.reads:
        for column in oracle.columns(table):
            if (table, column) not in scanned:
                continue
            rows = oracle.frame(job, (table, column)).collect()
            observed = column_values(rows, outputs)
            for output in outputs:
                if observed[output] != expected[output]:
                    detected += 1
                    if (table, column) not in explained[output]:
                        unexplained.append(f"{output} changed when {table}.{column} changed")
    assert not unexplained, f"{job.name}: {unexplained}; lineage: {lineage.edges()} / {lineage.dataset_edges()}"
    assert detected >= max(2, len(outputs) // 2), f"{job.name}: perturbations changed too little ({detected})"


def test_udf_edges_of_the_union_are_opaque(oracle: Oracle) -> None:
    (job,) = [job for job in JOBS if job.name == "union_udf"]
    lineage = column_lineage(oracle.frame(job))
    assert {(item.field, t.subtype, t.opaque) for item in lineage.fields["v"] for t in item.transformations} == {
        ("score", "TRANSFORMATION", True), ("amount", "TRANSFORMATION", True)}
    assert {(item.field, t.subtype) for item in lineage.fields["label"] for t in item.transformations} == {
        ("name", "IDENTITY"), ("kind", "IDENTITY")}
