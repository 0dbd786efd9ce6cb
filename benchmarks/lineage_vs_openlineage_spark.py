"""Column lineage side by side: our plan walker and openlineage-spark on the same jobs, refereed by an oracle.

Every job of the corpus below (openlineage-spark's own expected-outcome cases, the perturbation-oracle jobs of
the test suite, the example pipeline's jobs, and joins, self-joins, CTEs, windows, unions, a Python UDF, nested
fields, ``dropDuplicates``, rollup, a cached frame; inputs in Parquet, CSV, a catalog table and SQLite over
JDBC) is written to Parquet three times over, once per side, each side in a Spark application of its own:

* ``none``: no lineage at all (the baseline for the overheads);
* ``ours``: the lineage driver's ``DataFrameWriter`` hooks (``jobs/lineage_driver.py``), events to a file;
* ``theirs``: openlineage-spark's ``OpenLineageSparkListener`` (the pinned jar of ``deps/maven/
  openlineage-spark.pom.xml``), its file transport, dataset-level lineage on.

Both event files are read the same way: the ``columnLineage`` facet of the job's output in its last ``COMPLETE``
event. Then, for every input column a job reads, the job runs again with only that column's values changed, twice: each
value replaced by another (as in ``tests/integration/lineage/test_oracle.py``), and every value made the same
(which merges groups); an output column whose values change depends on that input column, whatever either side
says. Each difference between the sides gets the oracle's verdict: a dependency one side
names and the other does not is *confirmed* when the change shows, *not observed* otherwise; an ``IDENTITY`` one
side claims is checked by value (every output value is a value of the input column). Subtype differences the
oracle cannot decide are listed as they are.

Times: each job best of ``REPEAT`` runs per side (after one warm-up run), their sum, and each application's
start and stop (the listener's queue drains at stop).

Run with ``python -m benchmarks lineage_vs_openlineage_spark``; writes
``benchmarks/results/lineage-vs-openlineage-spark.md``. ``--keep DIR`` keeps the inputs, outputs and events.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import platform
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.integration.lineage.perturbation import column_names, column_types, perturb_value

RESULTS = Path(__file__).resolve().parent / "results" / "lineage-vs-openlineage-spark.md"
SIDES = ("none", "ours", "theirs")
REPEAT = 3
OPENLINEAGE_GROUP = "openlineage-spark"
LISTENER = "io.openlineage.spark.agent.OpenLineageSparkListener"
# What every job the provider submits gets (provider/hooks/spark.py SPARK_CONF_DEFAULTS): without it a Python UDF
# over a Parquet scan hangs on pyspark 4.2.0.
COMMON_CONF: dict[str, bool | float | int | str | None] = {
    "spark.sql.execution.arrow.pythonUDF.columnarInput.enabled": "false",
    "spark.ui.enabled": "false", "spark.ui.showConsoleProgress": "false",
    "spark.sql.shuffle.partitions": "2", "spark.driver.host": "127.0.0.1"}

# -- the inputs: name -> (DDL schema, rows, how it is stored) -------------------------------------------------------

CITIES = ("rome", "oslo", "lima")
KINDS = ("a", "b", "c", "d")
PAGES = ("/home", "/cart", "/help", "/shop")


@dataclass(frozen=True)
class Source:
    schema: str
    rows: list[tuple[Any, ...]]
    kind: str  # parquet | csv | table | jdbc


def _people() -> list[tuple[Any, ...]]:
    return [(i, f"n{i:02d}", 20 + (i * 7) % 40, CITIES[i % 3], (i * 13) % 50, None if i % 4 == 0 else i * 2,
             (150 + (i * 11) % 50, [f"t{i % 3}", f"u{i % 2}"])) for i in range(1, 25)]


def _visits() -> list[tuple[Any, ...]]:
    return [(i, 1 + (i * 5) % 24, (i * 17) % 90, f"2026-03-{1 + i % 9:02d}", KINDS[i % 4]) for i in range(1, 41)]


PEOPLE = ("id INT, name STRING, age INT, city STRING, score INT, bonus INT, "
          "profile STRUCT<height: INT, tags: ARRAY<STRING>>")
VISITS = "vid INT, pid INT, amount INT, day STRING, kind STRING"

SOURCES: dict[str, Source] = {
    "people": Source(PEOPLE, _people(), "parquet"),
    "visits": Source(VISITS, _visits(), "parquet"),
    "t1": Source("a INT, b INT, c INT, d STRING", [(i, i % 4, (i * 7) % 5, f"d{i % 3} w{i}") for i in range(1, 13)],
                 "parquet"),
    "t2": Source("a INT, c INT, d INT", [(i, i % 3, i * 100) for i in range(2, 15, 2)], "parquet"),
    "words": Source("a STRING", [("alpha beta",), ("gamma",), ("delta epsilon zeta",), ("beta",)], "parquet"),
    "clicks": Source("page STRING, user_id STRING, duration_ms STRING",
                     [(PAGES[i % 4], f"u{i % 7}", str(100 + (i * 37) % 900)) for i in range(60)], "csv"),
    "counts": Source("page STRING, clicks BIGINT, users BIGINT",
                     [(page, 10 + i * 3, 4 + i) for i, page in enumerate(PAGES)], "parquet"),
    "people_tbl": Source(PEOPLE.split(", profile")[0], [row[:6] for row in _people()], "table"),
    "visits_jdbc": Source("vid INT, pid INT, amount INT, kind STRING",
                          [(v, p, a, k) for v, p, a, _, k in _visits()], "jdbc"),
}


# -- the jobs ----------------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Job:
    name: str
    reads: tuple[str, ...]
    build: Callable[[dict[str, Any], dict[str, Any]], Any]
    origin: str


def F() -> Any:
    from pyspark.sql import functions

    return functions


def W(*partition: str) -> Any:
    from pyspark.sql import Window

    return Window.partitionBy(*partition)


def sql(text: str) -> Callable[[dict[str, Any], dict[str, Any]], Any]:
    """A job written in SQL over the temporary views of its inputs (each view named as its input)."""
    def build(inputs: dict[str, Any], udfs: dict[str, Any]) -> Any:
        return next(iter(inputs.values())).sparkSession.sql(text)
    return build


OL = "openlineage-spark case"
ORACLE = "oracle job"
EXAMPLE = "example pipeline"
MORE = "further shape"

JOBS: list[Job] = [
    # openlineage-spark's ColumnLineageWithTransformationTypesTest, as SQL.
    Job("only_identity", ("t1",), sql("SELECT a FROM t1"), OL),
    Job("only_transform", ("t1",), sql("SELECT concat(a, 'test') AS a, a + b AS b FROM t1"), OL),
    Job("only_aggregation", ("t1",), sql("SELECT count(a) AS a FROM t1"), OL),
    Job("indirect_filter", ("t1",), sql("SELECT a FROM t1 WHERE b > 1"), OL),
    Job("multiple_indirect", ("t1",), sql("SELECT a, c FROM t1 WHERE b > 1 GROUP BY a, c ORDER BY c"), OL),
    Job("priority_direct", ("t1",), sql(
        "SELECT a AS i, a + 1 AS t, sum(b) AS a, 2 * sum(b) AS ta, 2 * sum(b + 3) AS tat FROM t1 GROUP BY a"), OL),
    Job("masking", ("t1",), sql("SELECT a AS i, a + 1 AS t, sha1(string(a + 1)) AS mt, sum(b) AS a, "
                                "sha1(string(sum(b))) AS ma FROM t1 GROUP BY a"), OL),
    Job("case_when", ("t1",), sql("SELECT CASE WHEN b > 1 THEN a ELSE a + b END AS cond FROM t1"), OL),
    Job("if", ("t1",), sql("SELECT IF(b > 1, a, a + b) AS cond FROM t1"), OL),
    Job("nullif", ("t1",), sql("SELECT NULLIF(a, b) AS cond FROM t1"), OL),
    Job("nvl2", ("t1",), sql("SELECT NVL2(a, b, c) AS cond FROM t1"), OL),
    Job("coalesce", ("t1",), sql("SELECT coalesce(a, b, 0) AS cond FROM t1"), OL),
    Job("explode", ("words",), sql("SELECT a FROM (SELECT explode(split(a, ' ')) AS a FROM words)"), OL),
    Job("rank", ("t1",), sql("SELECT a, RANK() OVER (PARTITION BY b ORDER BY c) AS rank FROM t1"), OL),
    Job("windowed_aggregate", ("t1",), sql("SELECT sum(a) OVER (PARTITION BY b ORDER BY c) AS s FROM t1"), OL),
    Job("lag", ("t1",), sql("SELECT LAG(a, 3, 0) OVER (PARTITION BY b ORDER BY c) AS l FROM t1"), OL),
    Job("join_where", ("t1", "t2"), sql(
        "SELECT t1.a, t2.d FROM t1 JOIN t2 ON t1.a = t2.a WHERE t2.c > 0"), OL),
    Job("union_sql", ("t1", "t2"), sql("SELECT a, c FROM t1 UNION ALL SELECT a, c FROM t2"), OL),
    Job("cte", ("t1", "t2"), sql(
        "WITH big AS (SELECT a, b FROM t1 WHERE c > 1), dims AS (SELECT a, d FROM t2) "
        "SELECT big.a, big.b + dims.d AS bd FROM big LEFT JOIN dims ON big.a = dims.a"), OL),
    # The perturbation-oracle jobs of the test suite, in the DataFrame API.
    Job("projection_filter", ("people",), lambda t, u: t["people"].where(F().col("age") > 30).select(
        (F().col("id") * 10).alias("key"), F().upper("name").alias("who"),
        (F().col("score") + F().col("age")).alias("mix"), "city"), ORACLE),
    Job("join", ("people", "visits"), lambda t, u: t["people"].join(
        t["visits"], t["people"]["id"] == t["visits"]["pid"]).select(
        "name", "amount", (F().col("amount") * 2).alias("double"), "day"), ORACLE),
    Job("group_by_aggregation", ("visits",), lambda t, u: t["visits"].groupBy("kind").agg(
        F().sum("amount").alias("total"), F().count("day").alias("n"), F().max("pid").alias("top")), ORACLE),
    Job("window", ("people",), lambda t, u: t["people"].select(
        "id", "city", F().rank().over(W("city").orderBy("score", "id")).alias("r"),
        F().sum("age").over(W("city")).alias("city_age"),
        F().lag("name", 1).over(W("city").orderBy("id")).alias("previous")), ORACLE),
    Job("union_udf", ("people", "visits"), lambda t, u: t["people"].select(
        u["spread"]("score").alias("v"), F().col("name").alias("label")).union(
        t["visits"].select(u["spread"]("amount").alias("v"), F().col("kind").alias("label"))), ORACLE),
    Job("nested_struct", ("people",), lambda t, u: t["people"].select(
        F().col("profile.height").alias("height"), F().struct("name", "city").alias("card"),
        (F().col("profile.height") + F().col("age")).alias("mixed"), F().size("profile.tags").alias("tags")),
        ORACLE),
    Job("conditionals", ("people",), lambda t, u: t["people"].select(
        F().when(F().col("age") > 40, F().col("name")).otherwise(F().col("city")).alias("pick"),
        F().coalesce("bonus", "score").alias("extra"), F().nullif("city", F().lit("rome")).alias("not_rome")),
        ORACLE),
    Job("subquery", ("people", "visits"), sql(
        "SELECT name, (SELECT max(amount) FROM visits v WHERE v.pid = p.id) AS best "
        "FROM people p WHERE p.id IN (SELECT pid FROM visits WHERE amount > 40)"), ORACLE),
    Job("distinct_sort", ("visits",), lambda t, u: t["visits"].select("kind", "day").distinct().orderBy(
        "day", "kind"), ORACLE),
    # The example pipeline: count-clicks (CSV in) and report-clicks' top pages.
    Job("count_clicks", ("clicks",), lambda t, u: t["clicks"].groupBy("page").agg(
        F().count("*").alias("clicks"), F().countDistinct("user_id").alias("users"),
        F().avg(F().col("duration_ms").cast("int")).alias("avg_duration_ms")).where(F().col("clicks") >= 2),
        EXAMPLE),
    Job("top_pages", ("counts",), sql(
        "SELECT page, clicks, users FROM counts ORDER BY clicks DESC, page LIMIT 3"), EXAMPLE),
    # Further shapes and sources.
    Job("self_join", ("people",), lambda t, u: t["people"].alias("x").join(
        t["people"].alias("y"), F().col("x.score") == F().col("y.age")).select(
        F().col("x.name").alias("who"), F().col("y.name").alias("peer"), F().col("y.city").alias("peer_city")),
        MORE),
    Job("drop_duplicates", ("visits",), lambda t, u: t["visits"].dropDuplicates(["kind", "day"]).select(
        "kind", "day", "amount"), MORE),
    Job("rollup", ("visits",), lambda t, u: t["visits"].rollup("kind", "day").agg(
        F().sum("amount").alias("total")), MORE),
    Job("cached", ("people",), lambda t, u: t["people"].where(F().col("score") > 10).cache().groupBy("city").agg(
        F().max("age").alias("oldest")), MORE),
    Job("left_join_agg", ("people", "visits"), lambda t, u: t["people"].join(
        t["visits"], t["people"]["id"] == t["visits"]["pid"], "left").groupBy("city").agg(
        F().sum("amount").alias("spent"), F().countDistinct("vid").alias("visits")), MORE),
    Job("table_input", ("people_tbl",), sql(
        "SELECT city, avg(age) AS mean_age, max(score) AS best FROM people_tbl WHERE bonus IS NOT NULL "
        "GROUP BY city"), MORE),
    Job("jdbc_input", ("visits_jdbc", "people"), lambda t, u: t["visits_jdbc"].join(
        t["people"], t["visits_jdbc"]["pid"] == t["people"]["id"]).select(
        "name", (F().col("amount") + F().col("score")).alias("points"), "kind"), MORE),
]


# -- storing the inputs (once, before the sides run) -------------------------------------------------------------------

def source_path(root: Path, name: str) -> Path:
    kind = SOURCES[name].kind
    return root / "src" / ({"csv": f"{name}.csv", "jdbc": "sources.sqlite"}.get(kind, name))


def write_sources(spark: Any, root: Path) -> None:
    for name, source in SOURCES.items():
        target = source_path(root, name)
        if source.kind in ("parquet", "table"):
            spark.createDataFrame(source.rows, source.schema).coalesce(1).write.parquet(str(target))
        elif source.kind == "csv":
            target.parent.mkdir(parents=True, exist_ok=True)
            with target.open("w", newline="", encoding="utf-8") as handle:
                writer = csv.writer(handle)
                writer.writerow(column_names(source.schema))
                writer.writerows(source.rows)
        elif source.kind == "jdbc":
            with sqlite3.connect(target) as db:
                columns = ", ".join(f"{column} {'TEXT' if kind == 'STRING' else 'INTEGER'}"
                                    for column, kind in column_types(source.schema))
                db.execute(f"CREATE TABLE {name} ({columns})")
                db.executemany(f"INSERT INTO {name} VALUES ({', '.join('?' * len(source.rows[0]))})", source.rows)


def read_source(spark: Any, root: Path, name: str) -> Any:
    source, path = SOURCES[name], source_path(root, name)
    if source.kind == "parquet":
        return spark.read.parquet(str(path))
    if source.kind == "csv":
        return spark.read.option("header", True).schema(source.schema).csv(str(path))
    if source.kind == "table":  # registered once per application (register_tables)
        return spark.table(name)
    return (spark.read.format("jdbc").option("url", f"jdbc:sqlite:{path}").option("dbtable", name)
            .option("driver", "org.sqlite.JDBC").option("customSchema", source.schema).load())


# -- one side: its own Spark application -------------------------------------------------------------------------------

def jars_for(side: str) -> list[str]:
    from falcon_airflow import jvm

    jars = [str(path) for path in jvm.jar_group("jdbc") if "sqlite" in path.name]
    if side == "theirs":
        jars += [str(path) for path in jvm.jar_group(OPENLINEAGE_GROUP)]
    return jars


def session(side: str, root: Path) -> Any:
    from pyspark.sql import SparkSession

    builder = (SparkSession.builder.master("local[2]").appName(f"lineage-comparison-{side}")
               .config(map=COMMON_CONF).config("spark.sql.warehouse.dir", str(root / f"warehouse-{side}"))
               .config("spark.jars", ",".join(jars_for(side))))
    if side == "theirs":
        builder = (builder.config("spark.extraListeners", LISTENER)
                   .config("spark.openlineage.transport.type", "file")
                   .config("spark.openlineage.transport.location", str(events_file(root, side)))
                   .config("spark.openlineage.columnLineage.datasetLineageEnabled", "true"))
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def register_tables(spark: Any, root: Path) -> None:
    """The catalog tables of the corpus, over their Parquet folders (each application has its own catalog)."""
    for name, source in SOURCES.items():
        if source.kind == "table":
            spark.sql(f"CREATE TABLE IF NOT EXISTS {name} USING parquet LOCATION '{source_path(root, name)}'")


def events_file(root: Path, side: str) -> Path:
    return root / f"events-{side}.jsonl"


def output_path(root: Path, side: str, job: str) -> Path:
    return root / "out" / side / job


def udfs(spark: Any) -> dict[str, Any]:
    from pyspark.sql.functions import udf
    from pyspark.sql.types import IntegerType

    spread = udf(lambda value: None if value is None else (value % 7) * 3 + value // 10, IntegerType())
    return {"spread": spark.udf.register("spread", spread)}


def frame(spark: Any, job: Job, inputs: dict[str, Any], functions: dict[str, Any]) -> Any:
    for name, df in inputs.items():
        df.createOrReplaceTempView(name)
    return job.build(inputs, functions)


def run_side(side: str, root: Path, repeat: int) -> dict[str, Any]:
    """Every job, ``repeat`` timed runs after a warm-up; returns the times (seconds)."""
    started = time.perf_counter()
    spark = session(side, root)
    functions = udfs(spark)
    register_tables(spark, root)
    start_seconds = time.perf_counter() - started
    from falcon_airflow.jobs import lineage_driver

    times: dict[str, list[float]] = {}
    lineage_seconds: dict[str, float] = {}
    for job in selected_jobs():
        print(f"  {side}: {job.name}", flush=True)
        target = str(output_path(root, side, job.name))
        for attempt in range(repeat + 1):
            began = time.perf_counter()
            df = frame(spark, job, {name: read_source(spark, root, name) for name in job.reads}, functions)
            if side == "ours":
                recorder = lineage_driver.Recorder(out=str(events_file(root, side)))
                with lineage_driver.hooks(recorder):
                    df.write.mode("overwrite").parquet(target)
                recorder.emit()
                lineage_seconds[job.name] = min(lineage_seconds.get(job.name, 1e9), recorder.lineage_seconds)
            else:
                df.write.mode("overwrite").parquet(target)
            if attempt or not repeat:  # the first run warms the JVM and the file listings
                times.setdefault(job.name, []).append(time.perf_counter() - began)
    stopping = time.perf_counter()
    spark.stop()
    return {"side": side, "start": start_seconds, "stop": time.perf_counter() - stopping, "times": times,
            "lineage": lineage_seconds}


# -- reading both sides' events ----------------------------------------------------------------------------------------

Edge = tuple[str, str, str, str, bool]  # output column, input, field, subtype, masking
DatasetEdge = tuple[str, str, str, bool]  # input, field, subtype, masking


def input_name(dataset: str) -> str:
    """The corpus input a dataset name of either side stands for (a folder, a file, a table or a JDBC table)."""
    last = dataset.rstrip("/").rsplit("/", 1)[-1].removesuffix(".csv")
    for candidate in (last, last.rsplit(".", 1)[-1]):
        if candidate in SOURCES:
            return candidate
    return dataset


@dataclass
class Lineage:
    fields: set[Edge]
    dataset: set[DatasetEdge]

    def dependencies(self, outputs: list[str]) -> set[tuple[str, str, str]]:
        """(output, input, top-level field) of every field edge, and of every dataset edge for every output."""
        found = {(out, source, field.split(".")[0]) for out, source, field, _, _ in self.fields}
        found |= {(out, source, field.split(".")[0]) for source, field, _, _ in self.dataset for out in outputs}
        return found


def read_lineage(root: Path, side: str) -> dict[str, Lineage]:
    """The column lineage of each job's output, from the last COMPLETE event that carries it."""
    found: dict[str, Lineage] = {}
    path = events_file(root, side)
    if not path.exists():
        return found
    prefix = str(output_path(root, side, "")).rstrip("/") + "/"
    for line in path.read_text(encoding="utf-8").splitlines():
        event = json.loads(line)
        if event.get("eventType") != "COMPLETE":
            continue
        for output in event.get("outputs") or ():
            facet = (output.get("facets") or {}).get("columnLineage")
            name = str(output.get("name", "")).removeprefix("file:")
            if not facet or not name.startswith(prefix):
                continue
            fields = {(out, input_name(item["name"]), item["field"], t.get("subtype", ""), bool(t.get("masking")))
                      for out, value in (facet.get("fields") or {}).items() for item in value.get("inputFields", ())
                      for t in item.get("transformations") or [{"subtype": ""}]}
            dataset = {(input_name(item["name"]), item["field"], t.get("subtype", ""), bool(t.get("masking")))
                       for item in facet.get("dataset") or () for t in item.get("transformations") or ()}
            found[name[len(prefix):].strip("/")] = Lineage(fields, dataset)
    return found


# -- the oracle --------------------------------------------------------------------------------------------------------

def collapse(rows: list[tuple[Any, ...]], position: int) -> list[tuple[Any, ...]]:
    """Every row given the first row's value in ``position``: groups merge, filters and joins pick other rows
    (what a one-to-one change of values cannot show for group-by keys)."""
    first = rows[0][position]
    return [(*row[:position], first, *row[position + 1:]) for row in rows]


def _multisets(rows: list[Any], columns: list[str]) -> dict[str, Counter[str]]:
    values: dict[str, Counter[str]] = {column: Counter() for column in columns}
    for row in rows:
        data = row.asDict(recursive=True)
        for column in columns:
            values[column][json.dumps(data[column], sort_keys=True, default=str)] += 1
    return values


@dataclass
class Verdicts:
    outputs: list[str]
    depends: set[tuple[str, str, str]]  # (output, input, field) whose change shows
    rows: list[dict[str, Any]]

    def identity_holds(self, output: str, sources: set[tuple[str, str]]) -> bool | None:
        """Whether every value of ``output`` is a value of one of ``sources`` (the input columns a side calls its
        IDENTITY sources: a union has one per branch); ``None`` when a source is not a top-level input column."""
        values: set[str] = set()
        for name, column in sources:
            names = column_names(SOURCES[name].schema)
            if column not in names:
                return None
            position = names.index(column)
            values |= {json.dumps(row[position], default=str) for row in SOURCES[name].rows}
        return all(row[output] is None or json.dumps(row[output], default=str) in values for row in self.rows)


def oracle(spark: Any, job: Job, functions: dict[str, Any]) -> Verdicts:
    """Which input columns each output column really depends on (and the job's result, for the IDENTITY check)."""
    def inputs(changed: tuple[str, str] | None = None, how: str = "scramble") -> dict[str, Any]:
        frames = {}
        for name in job.reads:
            source = SOURCES[name]
            rows = source.rows
            if changed is not None and changed[0] == name:
                position = column_names(source.schema).index(changed[1])
                rows = (collapse(rows, position) if how == "collapse" else
                        [(*row[:position], perturb_value(row[position]), *row[position + 1:]) for row in rows])
            frames[name] = spark.createDataFrame(rows, source.schema)
        return frames

    base = frame(spark, job, inputs(), functions)
    outputs = list(base.columns)
    rows = base.collect()
    expected = _multisets(rows, outputs)
    depends = set()
    for name in job.reads:
        for column in column_names(SOURCES[name].schema):
            for how in ("scramble", "collapse"):
                observed = _multisets(frame(spark, job, inputs((name, column), how), functions).collect(), outputs)
                depends |= {(out, name, column) for out in outputs if observed[out] != expected[out]}
    return Verdicts(outputs, depends, [row.asDict(recursive=True) for row in rows])


# -- comparison and report ---------------------------------------------------------------------------------------------

@dataclass
class Comparison:
    job: Job
    ours: Lineage | None
    theirs: Lineage | None
    verdicts: Verdicts

    def edges(self, side: Lineage | None) -> set[tuple[str, str, str, str]]:
        return {(out, source, field, f"{subtype}{'*' if masking else ''}")
                for out, source, field, subtype, masking in (side.fields if side else ())}

    def dataset_edges(self, side: Lineage | None) -> set[tuple[str, str, str]]:
        return {(source, field, f"{subtype}{'*' if masking else ''}")
                for source, field, subtype, masking in (side.dataset if side else ())}

    def dependencies(self, side: Lineage | None) -> set[tuple[str, str, str]]:
        return side.dependencies(self.verdicts.outputs) if side else set()

    def identity(self, side: Lineage | None, output: str) -> bool | None:
        """Whether the side's IDENTITY edges into ``output`` hold by value (``None``: none, or not checkable)."""
        sources = {(source, field) for out, source, field, subtype, _ in (side.fields if side else ())
                   if out == output and subtype == "IDENTITY"}
        return self.verdicts.identity_holds(output, sources) if sources else None

    def refuted_identities(self, side: Lineage | None) -> list[str]:
        return [output for output in self.verdicts.outputs if self.identity(side, output) is False]


class Totals:
    """The agreement figures over every job."""

    def __init__(self, comparisons: list[Comparison]) -> None:
        self.field_agree = self.field_ours = self.field_theirs = self.dep_both = 0
        self.ours_only: list[tuple[Comparison, tuple[str, str, str]]] = []
        self.theirs_only: list[tuple[Comparison, tuple[str, str, str]]] = []
        self.missed_by_both: list[tuple[Comparison, tuple[str, str, str]]] = []
        for item in comparisons:
            ours, theirs = item.edges(item.ours), item.edges(item.theirs)
            self.field_agree += len(ours & theirs)
            self.field_ours += len(ours - theirs)
            self.field_theirs += len(theirs - ours)
            dours, dtheirs = item.dependencies(item.ours), item.dependencies(item.theirs)
            self.dep_both += len(dours & dtheirs)
            self.ours_only += [(item, dep) for dep in sorted(dours - dtheirs)]
            self.theirs_only += [(item, dep) for dep in sorted(dtheirs - dours)]
            self.missed_by_both += [(item, dep) for dep in sorted(item.verdicts.depends - dours - dtheirs)]
        self.needed = sum(len(item.verdicts.depends) for item in comparisons)
        self.found_ours = sum(len(item.verdicts.depends & item.dependencies(item.ours)) for item in comparisons)
        self.found_theirs = sum(len(item.verdicts.depends & item.dependencies(item.theirs)) for item in comparisons)
        self.no_lineage = {side: [item.job.name for item in comparisons if getattr(item, side) is None]
                           for side in ("ours", "theirs")}
        self.bad_identity = {side: [(item, output) for item in comparisons
                                    for output in item.refuted_identities(getattr(item, side))]
                             for side in ("ours", "theirs")}

    @staticmethod
    def confirmed(pairs: list[tuple[Comparison, tuple[str, str, str]]]) -> int:
        return sum(1 for item, dep in pairs if dep in item.verdicts.depends)

    @property
    def goal_met(self) -> bool:
        """Nothing theirs gets right that we miss, none of our IDENTITY claims refuted, lineage for every job."""
        return (self.confirmed(self.theirs_only) == 0 and not self.bad_identity["ours"]
                and not self.no_lineage["ours"])


def summary(comparisons: list[Comparison]) -> dict[str, Any]:
    totals = Totals(comparisons)

    def named(pairs: list[tuple[Comparison, tuple[str, str, str]]], confirmed: bool) -> list[str]:
        return [f"{item.job.name}: {out} <- {source}.{field}" for item, (out, source, field) in pairs
                if ((out, source, field) in item.verdicts.depends) == confirmed]

    return {"jobs": len(comparisons), "field_edges_both": totals.field_agree,
            "field_edges_only_ours": totals.field_ours, "field_edges_only_theirs": totals.field_theirs,
            "dependencies_both": totals.dep_both,
            "only_ours_confirmed": named(totals.ours_only, True),
            "only_ours_unobserved": named(totals.ours_only, False),
            "only_theirs_confirmed": named(totals.theirs_only, True),
            "only_theirs_unobserved": named(totals.theirs_only, False),
            "shown": totals.needed, "shown_named_by_ours": totals.found_ours,
            "shown_named_by_theirs": totals.found_theirs,
            "missed_by_both": [f"{item.job.name}: {fmt_dep(dep)}" for item, dep in totals.missed_by_both],
            "identity_refuted": {side: [f"{item.job.name}: {output}" for item, output in pairs]
                                 for side, pairs in totals.bad_identity.items()},
            "no_lineage": totals.no_lineage, "goal_met": totals.goal_met}


def fmt_dep(item: tuple[str, str, str]) -> str:
    return f"`{item[0]}` <- `{item[1]}.{item[2]}`"


def report(comparisons: list[Comparison], sides: dict[str, dict[str, Any]], started: str, load: tuple[str, str],
           seconds: float, repeat: int) -> str:
    import pyspark

    lines = ["# Column lineage: our plan walker and openlineage-spark on the same jobs", "",
             f"Measured {started} with `.venv/bin/python -m benchmarks lineage_vs_openlineage_spark` in "
             f"{seconds:.0f} s; Spark {pyspark.__version__} (local[2]), Python {platform.python_version()}, "
             f"openlineage-spark {openlineage_version()} (`deps/maven/openlineage-spark.pom.xml`, file transport, "
             "`columnLineage.datasetLineageEnabled=true`). Machine: "
             f"{os.cpu_count()} cores, load average {load[0]} at the start and {load[1]} at the end.", "",
             "Each job writes its result to Parquet in three Spark applications: no lineage, ours (the lineage "
             "driver's writer hooks, events to a file), theirs (the listener, events to a file). An edge reads "
             "`output <- input.field:SUBTYPE` (`*`: masking); dataset-level edges (filters, joins, group-by, sort) "
             "apply to every output column. The oracle re-runs each job twice per input column with only that "
             "column's values changed (each value replaced by another; all values made equal, which merges "
             "groups): an output column whose values change depends on it. A dependency only one "
             "side names is *confirmed* when the change shows and *not observed* otherwise; an IDENTITY is checked "
             "by value.", ""]
    t = Totals(comparisons)
    ours_unobserved = len(t.ours_only) - t.confirmed(t.ours_only)
    lines += ["## Agreement", "",
              f"{len(comparisons)} jobs. Column lineage in the events: "
              f"ours {len(comparisons) - len(t.no_lineage['ours'])}"
              f", theirs {len(comparisons) - len(t.no_lineage['theirs'])}"
              + (f" (theirs none for: {', '.join(t.no_lineage['theirs'])})" if t.no_lineage["theirs"] else "")
              + (f" (ours none for: {', '.join(t.no_lineage['ours'])})" if t.no_lineage["ours"] else "") + ".", "",
              "| | count |", "|---|---|",
              f"| field edges (output, input field, subtype) named by both | {t.field_agree} |",
              f"| field edges only ours | {t.field_ours} |",
              f"| field edges only theirs | {t.field_theirs} |",
              f"| dependencies (output, input field) named by both | {t.dep_both} |",
              f"| dependencies only ours: confirmed / not observed | {t.confirmed(t.ours_only)} / {ours_unobserved} |",
              f"| dependencies only theirs: confirmed / not observed | {t.confirmed(t.theirs_only)} / "
              f"{len(t.theirs_only) - t.confirmed(t.theirs_only)} |",
              f"| dependencies the oracle shows | {t.needed} |",
              f"| of which ours names / theirs names | {t.found_ours} / {t.found_theirs} |",
              f"| of which neither names | {len(t.missed_by_both)} |",
              f"| IDENTITY claims refuted by value: ours / theirs | {len(t.bad_identity['ours'])} / "
              f"{len(t.bad_identity['theirs'])} |", ""]
    lines += [f"Goal: every dependency openlineage-spark gets right we get right, and where we differ the oracle "
              f"sides with us: {'met' if t.goal_met else 'NOT met'} ({t.confirmed(t.theirs_only)} confirmed "
              f"dependencies only theirs; {ours_unobserved} of ours not observed; "
              f"{len(t.bad_identity['ours'])} of our IDENTITY claims refuted).", ""]
    # Per job.
    lines += ["## Per job", "", "| job | from | ours: field / dataset edges | theirs: field / dataset edges | "
              "same field edges | same dataset edges | dependencies the oracle shows: ours / theirs / shown |",
              "|---|---|---|---|---|---|---|"]
    for item in comparisons:
        ours, theirs = item.edges(item.ours), item.edges(item.theirs)
        dours, dtheirs = item.dataset_edges(item.ours), item.dataset_edges(item.theirs)
        shown = item.verdicts.depends
        lines.append(f"| {item.job.name} | {item.job.origin} | {len(ours)} / {len(dours)} | "
                     f"{len(theirs) if item.theirs else '-'} / {len(dtheirs) if item.theirs else '-'} | "
                     f"{'yes' if ours == theirs else 'no'} | {'yes' if dours == dtheirs else 'no'} | "
                     f"{len(shown & item.dependencies(item.ours))} / {len(shown & item.dependencies(item.theirs))} "
                     f"/ {len(shown)} |")
    lines += ["", "## Every difference, with the oracle's verdict", ""]
    for item in comparisons:
        ours, theirs = item.edges(item.ours), item.edges(item.theirs)
        dours, dtheirs = item.dataset_edges(item.ours), item.dataset_edges(item.theirs)
        if ours == theirs and dours == dtheirs:
            continue
        lines.append(f"### {item.job.name}")
        lines.append("")
        deps_ours, deps_theirs = item.dependencies(item.ours), item.dependencies(item.theirs)
        for label, mine, other, deps_other in (("only ours", ours, theirs, deps_theirs),
                                               ("only theirs", theirs, ours, deps_ours)):
            for out, source, field, subtype in sorted(mine - other):
                dep = (out, source, field.split(".")[0])
                if dep not in deps_other:
                    verdict = ("confirmed: the output changes with it" if dep in item.verdicts.depends
                               else "not observed: no change when it changes")
                elif subtype == "IDENTITY" and (holds := item.identity(
                        item.ours if label == "only ours" else item.theirs, out)) is not None:
                    verdict = ("IDENTITY holds by value" if holds
                               else "IDENTITY refuted: the output has values that are not input values")
                else:
                    kinds = sorted(s for o, so, f, s in other if (o, so, f) == (out, source, field))
                    verdict = (f"both name the dependency; the other side's subtype: {', '.join(kinds)}" if kinds
                               else "both name the dependency (the other side at dataset level)")
                lines.append(f"- {label}: `{out} <- {source}.{field}:{subtype}` - {verdict}")
        for label, mine_dataset, other_dataset in (("only ours", dours, dtheirs), ("only theirs", dtheirs, dours)):
            for source, field, subtype in sorted(mine_dataset - other_dataset):
                shows = any(dep[1:] == (source, field.split(".")[0]) for dep in item.verdicts.depends)
                lines.append(f"- {label} (dataset level): `{source}.{field}:{subtype}` - "
                             + ("the oracle shows outputs depending on it" if shows
                                else "not observed: no output changes when it changes"))
        lines.append("")
    if t.bad_identity["ours"] or t.bad_identity["theirs"]:
        lines += ["## IDENTITY claims refuted by value", ""]
        for side in ("ours", "theirs"):
            for item, output in t.bad_identity[side]:
                claimed = sorted(f"{source}.{field}" for out, source, field, subtype, _ in getattr(item, side).fields
                                 if out == output and subtype == "IDENTITY")
                lines.append(f"- {side}, {item.job.name}: `{output}` is not a copy of {', '.join(claimed)}")
        lines.append("")
    if t.missed_by_both:
        lines += ["## Dependencies neither side names", ""]
        lines += [f"- {item.job.name}: {fmt_dep(dep)}" for item, dep in t.missed_by_both]
        lines.append("")
    # Overheads.
    lines += ["## Time", "", f"Each job best of {repeat} run(s) after a warm-up run; the job reads its inputs, "
              "computes and writes Parquet (ours: the lineage too and its events; theirs: the listener works on "
              "Spark's listener thread, so much of its cost is in the application's stop, when the queue drains).",
              "", "| | application start | jobs (sum of best times) | vs none | application stop |",
              "|---|---|---|---|---|"]
    total = {side: sum(min(values) for values in sides[side]["times"].values()) for side in SIDES}
    overhead = {side: (total[side] - total["none"]) / total["none"] for side in SIDES}
    for side in SIDES:
        lines.append(f"| {side} | {sides[side]['start']:.2f} s | {total[side]:.2f} s | {overhead[side]:+.1%} | "
                     f"{sides[side]['stop']:.2f} s |")
    lines += ["", f"Goal: our overhead below theirs: {'met' if total['ours'] < total['theirs'] else 'NOT met'} "
              f"({overhead['ours']:+.1%} against {overhead['theirs']:+.1%})."]
    lineage = sum(sides["ours"]["lineage"].values())
    lines += ["", f"Ours measured directly: computing the column lineage of the {len(comparisons)} outputs took "
              f"{lineage * 1000:.0f} ms in all (best run of each job).", "",
              "## How to reproduce", "", "```", "make install   # resolves the openlineage-spark jar too",
              ".venv/bin/python -m benchmarks lineage_vs_openlineage_spark [--keep DIR]", "```", ""]
    return "\n".join(lines)


def selected_jobs() -> list[Job]:
    """The corpus, or the jobs named in ``$LINEAGE_COMPARISON_JOBS`` (comma-separated) to look at a few."""
    wanted = {name for name in os.environ.get("LINEAGE_COMPARISON_JOBS", "").split(",") if name}
    return [job for job in JOBS if not wanted or job.name in wanted]


def openlineage_version() -> str:
    """The version of the cached jar (``openlineage-spark_2.13-<version>.jar``), as the pom pinned it."""
    from falcon_airflow import jvm

    return jvm.jar_group(OPENLINEAGE_GROUP)[0].name.removesuffix(".jar").rsplit("-", 1)[-1]


def load_average() -> str:
    return ", ".join(f"{value:.1f}" for value in os.getloadavg())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", type=Path, help="keep inputs, outputs and events in this folder")
    parser.add_argument("--results", type=Path, default=RESULTS, help="where to write the results (Markdown)")
    parser.add_argument("--summary", type=Path, help="also write the agreement figures here (JSON)")
    parser.add_argument("--side", choices=SIDES, help=argparse.SUPPRESS)  # one side, in a process of its own
    parser.add_argument("--root", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--repeat", type=int, default=REPEAT, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    if args.side:
        figures = run_side(args.side, args.root, args.repeat)
        (args.root / f"times-{args.side}.json").write_text(json.dumps(figures), encoding="utf-8")
        return 0

    from falcon_airflow import jvm

    try:
        jvm.jar_group(OPENLINEAGE_GROUP)
        jvm.jar_group("jdbc")
    except jvm.JarCacheError as problem:
        print(f"cannot compare: {problem}", file=sys.stderr)
        return 2
    started_at = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    load_start = load_average()
    began = time.perf_counter()
    root = args.keep or Path(tempfile.mkdtemp(prefix="lineage-vs-openlineage-spark-"))
    root.mkdir(parents=True, exist_ok=True)
    try:
        from pyspark.sql import SparkSession

        spark = (SparkSession.builder.master("local[2]").appName("lineage-comparison-oracle")
                 .config(map=COMMON_CONF).config("spark.sql.warehouse.dir", str(root / "warehouse-oracle"))
                 .getOrCreate())
        spark.sparkContext.setLogLevel("ERROR")
        write_sources(spark, root)
        sides: dict[str, dict[str, Any]] = {}
        for side in SIDES:
            print(f"running the jobs: {side}", flush=True)
            subprocess.run([sys.executable, "-m", "benchmarks.lineage_vs_openlineage_spark", "--side", side,
                            "--root", str(root), "--repeat", str(args.repeat)], check=True,
                           cwd=Path(__file__).resolve().parents[1])
            sides[side] = json.loads((root / f"times-{side}.json").read_text(encoding="utf-8"))
        ours, theirs = read_lineage(root, "ours"), read_lineage(root, "theirs")
        functions = udfs(spark)
        comparisons = []
        print("the oracle: each job twice per input column", flush=True)
        for job in selected_jobs():
            comparisons.append(Comparison(job, ours.get(job.name), theirs.get(job.name), oracle(spark, job, functions)))
        spark.stop()
        text = report(comparisons, sides, started_at, (load_start, load_average()), time.perf_counter() - began,
                      args.repeat)
        args.results.parent.mkdir(parents=True, exist_ok=True)
        args.results.write_text(text, encoding="utf-8")
        if args.summary:
            args.summary.write_text(json.dumps(summary(comparisons), indent=1), encoding="utf-8")
        print(text.split("## Per job")[0])
        print(f"written to {args.results}")
        return 0
    finally:
        if args.keep is None:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
