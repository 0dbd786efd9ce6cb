"""The plan walker against openlineage-spark's expected outcomes, in SQL and in the DataFrame API, and beyond.

The first block ports ``ColumnLineageWithTransformationTypesTest`` (openlineage-spark): every case runs as the
SQL of the original test and as the same query written with the DataFrame API, over real parquet files. An
edge reads ``out<-table.field:SUBTYPE`` (``*`` when masking); dataset-level edges ``table.field:SUBTYPE``; the
sets must match exactly, so the counts of the original assertions are checked too.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from falcon_airflow.core.lineage import COLUMN_LINEAGE_SCHEMA_URL, PRODUCER
from falcon_airflow.core.naming import TABLE_NAMESPACE_CONF
from falcon_airflow.jobs.lineage_plan import lineage, walker
from falcon_airflow.jobs.lineage_plan.dump import dump_plan, prepare
from falcon_airflow.jobs.lineage_plan.lineage import column_lineage, input_datasets
from falcon_airflow.jobs.lineage_plan.model import (
    ColumnLineage,
    InputField,
    LineageUnavailable,
    Transformation,
    schema_facet,
)

DIRECT_SUBTYPES = {"IDENTITY", "TRANSFORMATION", "AGGREGATION"}
VALIDATOR = Path(__file__).resolve().parents[3].parent / "shared" / "tools" / "validate-openlineage"


def short(name: str) -> str:
    """``/tmp/.../t1`` -> ``t1``; table names stay as they are."""
    return name.rstrip("/").rsplit("/", 1)[-1]


def observed(result: ColumnLineage) -> tuple[set[str], set[str]]:
    fields = {f"{column}<-{short(item.name)}.{item.field}:{t.subtype}{'*' if t.masking else ''}"
              for column, inputs in result.fields.items() for item in inputs for t in item.transformations}
    dataset = {f"{short(item.name)}.{item.field}:{t.subtype}{'*' if t.masking else ''}"
               for item in result.dataset for t in item.transformations}
    for column, inputs in result.fields.items():
        for item in inputs:
            for t in item.transformations:
                assert t.type == ("DIRECT" if t.subtype in DIRECT_SUBTYPES else "INDIRECT"), (column, t)
    for item in result.dataset:
        assert all(t.type == "INDIRECT" for t in item.transformations), item
    return fields, dataset


@dataclass(frozen=True)
class Case:
    name: str
    sql: str
    api: Callable[[Callable[[str], Any]], Any]
    fields: frozenset[str]
    dataset: frozenset[str] = frozenset()


def case(name: str, sql: str, api: Callable[[Callable[[str], Any]], Any], fields: set[str],
         dataset: set[str] | None = None) -> Case:
    return Case(name, sql, api, frozenset(fields), frozenset(dataset or ()))


def F() -> Any:
    """``pyspark.sql.functions``, imported lazily so that collecting the tests needs no Spark."""
    from pyspark.sql import functions

    return functions


def window(partition: str, order: str) -> Any:
    from pyspark.sql import Window

    return Window.partitionBy(partition).orderBy(order)


OPENLINEAGE_CASES = [
    case("only_identity", "SELECT a FROM t1",
         lambda read: read("t1").select("a"),
         {"a<-t1.a:IDENTITY"}),
    case("only_transform", "SELECT concat(a, 'test') AS a, a+b AS b FROM t1",
         lambda read: read("t1").select(F().concat(F().col("a").cast("string"), F().lit("test")).alias("a"),
                                        (F().col("a") + F().col("b")).alias("b")),
         {"a<-t1.a:TRANSFORMATION", "b<-t1.a:TRANSFORMATION", "b<-t1.b:TRANSFORMATION"}),
    case("only_aggregation", "SELECT count(a) AS a FROM t1",
         lambda read: read("t1").agg(F().count("a").alias("a")),
         {"a<-t1.a:AGGREGATION*"}),
    case("indirect_filter", "SELECT a FROM t1 WHERE b > 1",
         lambda read: read("t1").where(F().col("b") > 1).select("a"),
         {"a<-t1.a:IDENTITY"}, {"t1.b:FILTER"}),
    case("multiple_indirect", "SELECT a, c FROM t1 WHERE b > 1 GROUP BY a, c ORDER BY c",
         lambda read: read("t1").where(F().col("b") > 1).groupBy("a", "c").count().select("a", "c").orderBy("c"),
         {"a<-t1.a:IDENTITY", "c<-t1.c:IDENTITY"},
         {"t1.a:GROUP_BY", "t1.b:FILTER", "t1.c:GROUP_BY", "t1.c:SORT"}),
    case("priority_direct",
         "SELECT a as i, a + 1 as t, sum(b) as a, 2 * sum(b) as ta, 2 * sum(b + 3) as tat FROM t1 GROUP BY a",
         lambda read: read("t1").groupBy("a").agg(
             F().sum("b").alias("sb"), (2 * F().sum("b")).alias("ta"), (2 * F().sum(F().col("b") + 3)).alias("tat"),
         ).select(F().col("a").alias("i"), (F().col("a") + 1).alias("t"), F().col("sb").alias("a"), "ta", "tat"),
         {"i<-t1.a:IDENTITY", "t<-t1.a:TRANSFORMATION", "a<-t1.b:AGGREGATION", "ta<-t1.b:AGGREGATION",
          "tat<-t1.b:AGGREGATION"},
         {"t1.a:GROUP_BY"}),
    case("masking",
         "SELECT a as i, a + 1 as t, sha1(string(a + 1)) as mt, sum(b) as a, sha1(string(sum(b))) as ma "
         "FROM t1 GROUP BY a",
         lambda read: read("t1").groupBy("a").agg(F().sum("b").alias("sb")).select(
             F().col("a").alias("i"), (F().col("a") + 1).alias("t"),
             F().sha1((F().col("a") + 1).cast("string")).alias("mt"), F().col("sb").alias("a"),
             F().sha1(F().col("sb").cast("string")).alias("ma")),
         {"i<-t1.a:IDENTITY", "t<-t1.a:TRANSFORMATION", "mt<-t1.a:TRANSFORMATION*", "a<-t1.b:AGGREGATION",
          "ma<-t1.b:AGGREGATION*"},
         {"t1.a:GROUP_BY"}),
    case("case_when", "SELECT CASE WHEN b > 1 THEN a ELSE a + b END AS cond FROM t1",
         lambda read: read("t1").select(
             F().when(F().col("b") > 1, F().col("a")).otherwise(F().col("a") + F().col("b")).alias("cond")),
         {"cond<-t1.a:TRANSFORMATION", "cond<-t1.b:TRANSFORMATION", "cond<-t1.b:CONDITIONAL"}),
    case("if", "SELECT IF(b > 1, a, a + b) AS cond FROM t1",
         lambda read: read("t1").select(F().expr("IF(b > 1, a, a + b)").alias("cond")),
         {"cond<-t1.a:TRANSFORMATION", "cond<-t1.b:TRANSFORMATION", "cond<-t1.b:CONDITIONAL"}),
    case("nullif", "SELECT NULLIF(a, b) AS cond FROM t1",
         lambda read: read("t1").select(F().nullif("a", "b").alias("cond")),
         {"cond<-t1.a:TRANSFORMATION", "cond<-t1.a:CONDITIONAL", "cond<-t1.b:CONDITIONAL"}),
    case("nvl", "SELECT NVL(a, b) AS cond FROM t1",
         lambda read: read("t1").select(F().nvl("a", "b").alias("cond")),
         {"cond<-t1.a:TRANSFORMATION", "cond<-t1.a:CONDITIONAL", "cond<-t1.b:TRANSFORMATION",
          "cond<-t1.b:CONDITIONAL"}),
    case("nvl2", "SELECT NVL2(a, b, c) AS cond FROM t1",
         lambda read: read("t1").select(F().nvl2("a", "b", "c").alias("cond")),
         {"cond<-t1.a:CONDITIONAL", "cond<-t1.b:TRANSFORMATION", "cond<-t1.c:TRANSFORMATION"}),
    case("coalesce", "SELECT coalesce(a, b, 0) AS cond FROM t1",
         lambda read: read("t1").select(F().coalesce("a", "b", F().lit(0)).alias("cond")),
         {"cond<-t1.a:TRANSFORMATION", "cond<-t1.a:CONDITIONAL", "cond<-t1.b:TRANSFORMATION",
          "cond<-t1.b:CONDITIONAL"}),
    case("explode", "SELECT a FROM (SELECT explode(split(a, ' ')) AS a FROM words)",
         lambda read: read("words").select(F().explode(F().split("a", " ")).alias("a")),
         {"a<-words.a:TRANSFORMATION"}),
    case("rank", "SELECT a, RANK() OVER (PARTITION BY b ORDER BY c) as rank FROM t1",
         lambda read: read("t1").select("a", F().rank().over(window("b", "c")).alias("rank")),
         {"a<-t1.a:IDENTITY", "rank<-t1.b:WINDOW", "rank<-t1.c:WINDOW"}),
    case("windowed_aggregate", "SELECT sum(a) OVER (PARTITION BY b ORDER BY c) AS s FROM t1",
         lambda read: read("t1").select(F().sum("a").over(window("b", "c")).alias("s")),
         {"s<-t1.a:AGGREGATION", "s<-t1.b:WINDOW", "s<-t1.c:WINDOW"}),
    case("windowed_transformation", "SELECT LAG(a, 3, 0) OVER (PARTITION BY b ORDER BY c) AS l FROM t1",
         lambda read: read("t1").select(F().lag("a", 3, 0).over(window("b", "c")).alias("l")),
         {"l<-t1.a:TRANSFORMATION", "l<-t1.b:WINDOW", "l<-t1.c:WINDOW"}),
    case("union", "SELECT a, b, 'table1' as source FROM t1 UNION ALL SELECT a, c, 'table2' as source FROM t2",
         lambda read: read("t1").select("a", "b", F().lit("table1").alias("source")).unionAll(
             read("t2").select("a", "c", F().lit("table2").alias("source"))),
         {"a<-t1.a:IDENTITY", "a<-t2.a:IDENTITY", "b<-t1.b:IDENTITY", "b<-t2.c:IDENTITY"}),
    case("multiple_joins_to_same_table",
         "SELECT t1.oder_id, t2alias1.date_id as order_date, t2alias2.date_id as shipped_date FROM orders t1 "
         "LEFT JOIN dates t2alias1 ON t1.order_date = t2alias1.date_id "
         "LEFT JOIN dates t2alias2 ON t1.shipped_date = t2alias2.date_id "
         "WHERE t1.order_date IS NOT NULL AND t1.shipped_date IS NOT NULL",
         lambda read: read("orders").alias("t1")
         .join(read("dates").alias("t2alias1"), F().col("t1.order_date") == F().col("t2alias1.date_id"), "left")
         .join(read("dates").alias("t2alias2"), F().col("t1.shipped_date") == F().col("t2alias2.date_id"), "left")
         .where(F().col("t1.order_date").isNotNull() & F().col("t1.shipped_date").isNotNull())
         .select(F().col("t1.oder_id"), F().col("t2alias1.date_id").alias("order_date"),
                 F().col("t2alias2.date_id").alias("shipped_date")),
         {"oder_id<-orders.oder_id:IDENTITY", "order_date<-dates.date_id:IDENTITY",
          "shipped_date<-dates.date_id:IDENTITY"},
         {"orders.order_date:JOIN", "orders.shipped_date:JOIN", "dates.date_id:JOIN", "orders.order_date:FILTER",
          "orders.shipped_date:FILTER"}),
    case("distinct", "SELECT distinct a as a FROM t1",
         lambda read: read("t1").select("a").distinct(),
         {"a<-t1.a:IDENTITY"}, {"t1.a:GROUP_BY"}),
    case("cte_joins_filter",
         "WITH tmp as (SELECT * FROM cte1 where b = '1'), tmp2 as (SELECT * FROM cte2 where c = 1), "
         "tmp3 as (SELECT tmp.a, b, c from tmp join tmp2 on tmp.a = tmp2.a) "
         "SELECT tmp3.a as a, b, c, d FROM tmp3 join cte3 on tmp3.a = cte3.a order by d",
         lambda read: read("cte1").where(F().col("b") == "1").alias("tmp")
         .join(read("cte2").where(F().col("c") == 1).alias("tmp2"), F().col("tmp.a") == F().col("tmp2.a"))
         .select(F().col("tmp.a").alias("a"), "tmp.b", "tmp2.c").alias("tmp3")
         .join(read("cte3").alias("x3"), F().col("tmp3.a") == F().col("x3.a"))
         .select(F().col("tmp3.a").alias("a"), "b", "c", "d").orderBy("d"),
         {"a<-cte1.a:IDENTITY", "b<-cte1.b:IDENTITY", "c<-cte2.c:IDENTITY", "d<-cte3.d:IDENTITY"},
         {"cte1.a:JOIN", "cte2.a:JOIN", "cte3.a:JOIN", "cte1.b:FILTER", "cte2.c:FILTER", "cte3.d:SORT"}),
    case("progressively_complex",
         "SELECT a AS col1, concat(b, e) AS col2, upper(concat(c, e)) AS col3, "
         "substring(upper(concat(d, e)), 1, 5) AS col4 FROM t1",
         lambda read: read("t1").select(
             F().col("a").alias("col1"), F().concat(F().col("b").cast("string"), "e").alias("col2"),
             F().upper(F().concat(F().col("c").cast("string"), "e")).alias("col3"),
             F().substring(F().upper(F().concat("d", "e")), 1, 5).alias("col4")),
         {"col1<-t1.a:IDENTITY", "col2<-t1.b:TRANSFORMATION", "col2<-t1.e:TRANSFORMATION",
          "col3<-t1.c:TRANSFORMATION", "col3<-t1.e:TRANSFORMATION", "col4<-t1.d:TRANSFORMATION",
          "col4<-t1.e:TRANSFORMATION"}),
]


@pytest.fixture(scope="module")
def read(spark: Any, tables: Any) -> Callable[[str], Any]:
    """Read a test table straight from its files (the SQL cases go through the temp views)."""
    return lambda name: tables.read(spark, name)


@pytest.fixture(scope="module")
def sql(spark: Any, tables: Any) -> Callable[[str], Any]:
    """``spark.sql`` over the temp views of the test tables."""
    return spark.sql


@pytest.mark.parametrize("mode", ["sql", "api"])
@pytest.mark.parametrize("expected", OPENLINEAGE_CASES, ids=lambda item: item.name)
@pytest.mark.xdist_group("spark-lineage")
def test_openlineage_spark_outcome(sql: Callable[[str], Any], read: Callable[[str], Any], expected: Case,
                                   mode: str) -> None:
    df = sql(expected.sql) if mode == "sql" else expected.api(read)
    fields, dataset = observed(column_lineage(df))
    assert fields == expected.fields
    assert dataset == expected.dataset


def lineage_of(df: Any, **options: Any) -> tuple[set[str], set[str]]:
    return observed(column_lineage(df, **options))


@pytest.mark.xdist_group("spark-lineage")
def test_multiple_joins_to_same_table_counts_like_openlineage_with_descriptions(sql: Callable[[str], Any]) -> None:
    """openlineage-spark counts 3 field and 8 dataset dependencies: on the optimized plan, with the operators'
    descriptions (each join, the WHERE and the inferred ``isnotnull`` filters of both aliases stay apart)."""
    (chosen,) = [item for item in OPENLINEAGE_CASES if item.name == "multiple_joins_to_same_table"]
    df = sql(chosen.sql)
    result = column_lineage(df, plan="optimized", descriptions=True)
    assert sum(len(item.transformations) for inputs in result.fields.values() for item in inputs) == 3
    assert sum(len(item.transformations) for item in result.dataset) == 8
    descriptions = {t.description for item in result.dataset for t in item.transformations}
    assert any(text and text.startswith("LEFT OUTER JOIN ON") for text in descriptions)
    assert any(text and text.startswith("WHERE") for text in descriptions)
    analyzed = column_lineage(df, descriptions=True)  # no inferred filters: two joins and the user's WHERE
    assert sum(len(item.transformations) for item in analyzed.dataset) == 6


# ------------------------------------------------------------------------------------------------------------
# Beyond openlineage-spark's corpus


@pytest.mark.xdist_group("spark-lineage")
def test_unions_of_three_and_by_name(sql: Callable[[str], Any], read: Callable[[str], Any]) -> None:
    three = sql("SELECT a, c AS x FROM t1 UNION ALL SELECT a, c FROM t2 UNION ALL SELECT a, d FROM t3")
    assert lineage_of(three) == ({"a<-t1.a:IDENTITY", "a<-t2.a:IDENTITY", "a<-t3.a:IDENTITY",
                                  "x<-t1.c:IDENTITY", "x<-t2.c:IDENTITY", "x<-t3.d:IDENTITY"}, set())
    by_name = read("t2").select("c", "a").unionByName(read("t1").select("a", "c"))
    assert lineage_of(by_name) == ({"c<-t2.c:IDENTITY", "c<-t1.c:IDENTITY", "a<-t2.a:IDENTITY",
                                    "a<-t1.a:IDENTITY"}, set())
    distinct = sql("SELECT a FROM t1 UNION SELECT a FROM t2")  # a DISTINCT over a UNION: no GROUP_BY
    assert lineage_of(distinct) == ({"a<-t1.a:IDENTITY", "a<-t2.a:IDENTITY"}, set())


@pytest.mark.xdist_group("spark-lineage")
def test_cte_referenced_twice_and_nested(sql: Callable[[str], Any]) -> None:
    twice = sql("WITH x AS (SELECT a, d FROM t1 WHERE b > 1) "
                      "SELECT l.a, r.d FROM x l JOIN x r ON l.a = r.a")
    assert lineage_of(twice) == ({"a<-t1.a:IDENTITY", "d<-t1.d:IDENTITY"}, {"t1.a:JOIN", "t1.b:FILTER"})
    nested = sql("WITH x AS (SELECT a, c FROM t1 WHERE b > 1), y AS (SELECT a, c * 2 AS c2 FROM x) "
                       "SELECT a, c2 FROM y")
    assert lineage_of(nested) == ({"a<-t1.a:IDENTITY", "c2<-t1.c:TRANSFORMATION"}, {"t1.b:FILTER"})
    unused = sql("WITH x AS (SELECT a FROM t2 WHERE c > 1) SELECT a FROM t1")
    assert lineage_of(unused) == ({"a<-t1.a:IDENTITY"}, set())


@pytest.mark.xdist_group("spark-lineage")
def test_self_join_reads_one_dataset_twice(sql: Callable[[str], Any], read: Callable[[str], Any]) -> None:
    expected = ({"a<-t1.a:IDENTITY", "b2<-t1.b:IDENTITY"}, {"t1.a:JOIN", "t1.c:JOIN"})
    sql = sql("SELECT x.a, y.b AS b2 FROM t1 x JOIN t1 y ON x.a = y.c")
    api = read("t1").alias("x").join(read("t1").alias("y"), F().col("x.a") == F().col("y.c")).select(
        F().col("x.a"), F().col("y.b").alias("b2"))
    for df in (sql, api):
        result = column_lineage(df)
        assert observed(result) == expected
        assert [short(item.name) for item in result.inputs] == ["t1"]


@pytest.mark.parametrize("how", ["inner", "left", "right", "full", "left_semi", "left_anti", "cross"])
@pytest.mark.xdist_group("spark-lineage")
def test_join_kinds(read: Callable[[str], Any], how: str) -> None:
    left, right = read("t1").select("a", "d"), read("t2").select(F().col("a").alias("k"), "c")
    df = left.crossJoin(right) if how == "cross" else left.join(right, left["a"] == right["k"], how)
    fields, dataset = lineage_of(df)
    left_edges = {"a<-t1.a:IDENTITY", "d<-t1.d:IDENTITY"}
    right_edges = {"k<-t2.a:IDENTITY", "c<-t2.c:IDENTITY"}
    assert fields == (left_edges if how in ("left_semi", "left_anti") else left_edges | right_edges)
    assert dataset == (set() if how == "cross" else {"t1.a:JOIN", "t2.a:JOIN"})


@pytest.mark.xdist_group("spark-lineage")
def test_full_outer_join_using_key_is_a_coalesce(sql: Callable[[str], Any], read: Callable[[str], Any]) -> None:
    expected = {"a<-t1.a:TRANSFORMATION", "a<-t1.a:CONDITIONAL", "a<-t2.a:TRANSFORMATION", "a<-t2.a:CONDITIONAL",
                "d<-t1.d:IDENTITY", "c<-t2.c:IDENTITY"}
    api = read("t1").select("a", "d").join(read("t2").select("a", "c"), "a", "full_outer")
    sql = sql("SELECT * FROM (SELECT a, d FROM t1) FULL OUTER JOIN (SELECT a, c FROM t2) USING (a)")
    for df in (api, sql):
        assert lineage_of(df) == (expected, {"t1.a:JOIN", "t2.a:JOIN"})


@pytest.mark.xdist_group("spark-lineage")
def test_subqueries(sql: Callable[[str], Any]) -> None:
    in_subquery = sql("SELECT a FROM t1 WHERE b IN (SELECT c FROM t2 WHERE d > 300)")
    assert lineage_of(in_subquery) == ({"a<-t1.a:IDENTITY"}, {"t1.b:FILTER", "t2.c:FILTER", "t2.d:FILTER"})
    exists = sql("SELECT a FROM t1 WHERE EXISTS (SELECT 1 FROM t2 WHERE t2.a = t1.a)")
    assert lineage_of(exists) == ({"a<-t1.a:IDENTITY"}, {"t1.a:FILTER", "t2.a:FILTER"})
    scalar = sql("SELECT a, (SELECT max(d) FROM t2 WHERE t2.c = 1) AS m FROM t1")
    assert lineage_of(scalar) == ({"a<-t1.a:IDENTITY", "m<-t2.d:AGGREGATION", "m<-t2.c:FILTER"}, set())
    correlated = sql("SELECT a, (SELECT max(d) FROM t2 WHERE t2.a = t1.a) AS m FROM t1")
    assert lineage_of(correlated) == ({"a<-t1.a:IDENTITY", "m<-t2.d:AGGREGATION", "m<-t2.a:FILTER",
                                       "m<-t1.a:FILTER"}, set())


@pytest.mark.xdist_group("spark-lineage")
def test_intersect_and_except(sql: Callable[[str], Any], read: Callable[[str], Any]) -> None:
    expected = ({"a<-t1.a:IDENTITY"}, {"t1.a:JOIN", "t2.a:JOIN"})
    assert lineage_of(sql("SELECT a FROM t1 INTERSECT SELECT a FROM t2")) == expected
    assert lineage_of(read("t1").select("a").exceptAll(read("t2").select("a"))) == expected
    assert lineage_of(sql("SELECT a FROM t1 EXCEPT SELECT a FROM t2")) == expected


@pytest.mark.xdist_group("spark-lineage")
def test_drop_duplicates_keeps_values_and_groups_by_keys(read: Callable[[str], Any]) -> None:
    df = read("t1").select("a", "b", "d").dropDuplicates(["b"])
    assert lineage_of(df) == ({"a<-t1.a:IDENTITY", "b<-t1.b:IDENTITY", "d<-t1.d:IDENTITY"}, {"t1.b:GROUP_BY"})
    everything = read("t1").select("a", "b").dropDuplicates()
    assert lineage_of(everything) == ({"a<-t1.a:IDENTITY", "b<-t1.b:IDENTITY"}, {"t1.a:GROUP_BY", "t1.b:GROUP_BY"})


@pytest.mark.xdist_group("spark-lineage")
def test_rollup_cube_and_grouping_sets(sql: Callable[[str], Any], read: Callable[[str], Any]) -> None:
    expected = ({"a<-t1.a:IDENTITY", "b<-t1.b:IDENTITY", "total<-t1.c:AGGREGATION"},
                {"t1.a:GROUP_BY", "t1.b:GROUP_BY"})
    frames = [
        sql("SELECT a, b, sum(c) AS total FROM t1 GROUP BY ROLLUP(a, b)"),
        sql("SELECT a, b, sum(c) AS total FROM t1 GROUP BY a, b GROUPING SETS ((a, b), (a), ())"),
        read("t1").rollup("a", "b").agg(F().sum("c").alias("total")),
        read("t1").cube("a", "b").agg(F().sum("c").alias("total")),
    ]
    for df in frames:
        assert lineage_of(df) == expected


@pytest.mark.xdist_group("spark-lineage")
def test_cached_data_is_walked_through_its_cached_plan(read: Callable[[str], Any]) -> None:
    base = read("t1").where(F().col("b") > 1).cache()
    try:
        base.count()
        derived = base.select("a", (F().col("c") * 2).alias("c2"))
        expected = ({"a<-t1.a:IDENTITY", "c2<-t1.c:TRANSFORMATION"}, {"t1.b:FILTER"})
        for plan in ("analyzed", "cached", "optimized"):
            assert lineage_of(derived, plan=plan) == expected, plan
        cached_plan = derived._jdf.queryExecution().withCachedData()
        classes = {item.get("class", "").rsplit(".", 1)[-1]
                   for item in dump_plan(cached_plan, derived.sparkSession._jvm)}
        assert "InMemoryRelation" in classes and "LogicalRelation" not in classes
    finally:
        base.unpersist()


@pytest.mark.xdist_group("spark-lineage")
def test_python_udfs_are_opaque_transformations(sql: Callable[[str], Any], read: Callable[[str], Any],
                                                make_udf: Callable[..., Any]) -> None:
    from pyspark.sql.types import IntegerType

    plus_one = make_udf(lambda x: x + 1, IntegerType(), "plus_one")
    same = make_udf(lambda x: x, IntegerType(), "same_value")
    frames = {
        "api": read("t1").select(plus_one("a").alias("u"), same("b").alias("v")),
        "sql": sql("SELECT plus_one(a) AS u, same_value(b) AS v FROM t1"),
    }
    for mode, df in frames.items():
        for plan in ("analyzed", "optimized"):
            result = column_lineage(df, plan=plan)
            assert observed(result) == ({"u<-t1.a:TRANSFORMATION", "v<-t1.b:TRANSFORMATION"}, set()), (mode, plan)
            for column, function in (("u", "plus_one"), ("v", "same_value")):
                (item,) = result.fields[column]
                (transformation,) = item.transformations
                assert transformation.subtype != "IDENTITY" and not transformation.masking
                assert transformation.opaque and function in (transformation.description or "")
    aggregated = read("t1").groupBy("b").agg(F().sum(plus_one("a")).alias("total"))
    result = column_lineage(aggregated)
    assert observed(result) == ({"b<-t1.b:IDENTITY", "total<-t1.a:AGGREGATION"}, {"t1.b:GROUP_BY"})
    assert result.fields["total"][0].transformations[0].opaque
    filtered = read("t1").where(plus_one("a") > 3).select("d")
    result = column_lineage(filtered)
    assert observed(result) == ({"d<-t1.d:IDENTITY"}, {"t1.a:FILTER"})
    assert result.dataset[0].transformations[0].opaque


@pytest.mark.xdist_group("spark-lineage")
def test_nested_fields(sql: Callable[[str], Any], read: Callable[[str], Any]) -> None:
    expected = ({"x<-t1.s:TRANSFORMATION", "y<-t1.s:TRANSFORMATION", "s<-t1.s:IDENTITY",
                 "st<-t1.a:TRANSFORMATION", "st<-t1.d:TRANSFORMATION"}, set())
    sql = sql("SELECT s.x AS x, s.y AS y, s, named_struct('p', a, 'q', upper(d)) AS st FROM t1")
    api = read("t1").select(F().col("s.x").alias("x"), F().col("s.y").alias("y"), "s",
                            F().struct(F().col("a").alias("p"), F().upper("d").alias("q")).alias("st"))
    for df in (sql, api):
        result = column_lineage(df)
        assert observed(result) == expected
        struct = {item.name: item for item in result.schema}["st"]
        assert struct.type == "struct" and [member.name for member in struct.fields] == ["p", "q"]
        read_schema = {item.name: item for item in result.inputs[0].fields}
        assert [member.name for member in read_schema["s"].fields] == ["x", "y"]
    filtered = read("t1").where(F().col("s.x") > 30).select("a")
    assert lineage_of(filtered) == ({"a<-t1.a:IDENTITY"}, {"t1.s:FILTER"})


@pytest.mark.xdist_group("spark-lineage")
def test_generate_explode(sql: Callable[[str], Any], read: Callable[[str], Any]) -> None:
    lateral = sql("SELECT a, w FROM words LATERAL VIEW explode(split(a, ' ')) t AS w")
    assert lineage_of(lateral) == ({"a<-words.a:IDENTITY", "w<-words.a:TRANSFORMATION"}, set())
    positions = read("t1").select("a", F().posexplode(F().array("b", "c")))
    assert lineage_of(positions) == ({"a<-t1.a:IDENTITY", "pos<-t1.b:TRANSFORMATION", "pos<-t1.c:TRANSFORMATION",
                                      "col<-t1.b:TRANSFORMATION", "col<-t1.c:TRANSFORMATION"}, set())


@pytest.mark.xdist_group("spark-lineage")
def test_limit_sample_sort_pass_through(sql: Callable[[str], Any], read: Callable[[str], Any]) -> None:
    api = read("t1").limit(5).sample(fraction=0.5, seed=1).select("a").orderBy(F().col("a").desc())
    assert lineage_of(api) == ({"a<-t1.a:IDENTITY"}, {"t1.a:SORT"})
    sql = sql("SELECT a FROM t1 TABLESAMPLE (50 PERCENT) LIMIT 5")
    assert lineage_of(sql) == ({"a<-t1.a:IDENTITY"}, set())


@pytest.mark.xdist_group("spark-lineage")
def test_local_data_and_ranges_have_no_inputs(spark: Any, read: Callable[[str], Any]) -> None:
    ranged = column_lineage(spark.range(5).select((F().col("id") * 2).alias("x")))
    assert (dict(ranged.fields), ranged.dataset, ranged.inputs) == ({}, (), ())
    local = spark.createDataFrame([(1, "one"), (2, "two")], "k INT, v STRING")
    joined = read("t1").join(local, F().col("a") == F().col("k")).select("d", "v")
    result = column_lineage(joined)
    assert observed(result) == ({"d<-t1.d:IDENTITY"}, {"t1.a:JOIN"})
    assert [short(item.name) for item in result.inputs] == ["t1"]


@pytest.mark.xdist_group("spark-lineage")
def test_catalog_tables_csv_files_and_several_paths(sql: Callable[[str], Any], spark: Any, tables: Any,
                                                    read: Callable[[str], Any]) -> None:
    read("t3").write.mode("overwrite").saveAsTable("lineage_walker_table")
    try:
        result = column_lineage(spark.table("lineage_walker_table").select("d"))
        (item,) = result.fields["d"]
        assert (item.namespace, item.name, item.field) == ("hive://default", "default.lineage_walker_table", "d")
        (dataset,) = result.inputs
        assert dataset.kind == "table" and dataset.symlinks[0][0] == "file" and dataset.symlinks[0][2] == "LOCATION"
        spark.conf.set(TABLE_NAMESPACE_CONF, "hive://metastore.example:9083")
        query = sql("SELECT d FROM default.lineage_walker_table")
        assert column_lineage(query).fields["d"][0].namespace == "hive://metastore.example:9083"
    finally:
        spark.conf.unset(TABLE_NAMESPACE_CONF)
        sql("DROP TABLE IF EXISTS lineage_walker_table")
    people = read("people_csv").select("name", (F().col("age") + 1).alias("next_age"))
    result = column_lineage(people)
    assert observed(result) == ({"name<-people.csv.name:IDENTITY", "next_age<-people.csv.age:TRANSFORMATION"},
                                set())
    assert {(item.namespace, item.name) for item in result.inputs} == {("file", tables.paths["people_csv"])}
    both = spark.read.parquet(tables.paths["t3"], tables.paths["cte3"]).select("d")
    assert lineage_of(both) == ({"d<-t3.d:IDENTITY", "d<-cte3.d:IDENTITY"}, set())


@pytest.mark.xdist_group("spark-lineage")
def test_input_datasets_and_facet(read: Callable[[str], Any]) -> None:
    t2 = read("t2")
    df = read("t1").join(t2, "a").select("a", "s", t2["d"])
    datasets = input_datasets(df)
    assert [short(item.name) for item in datasets] == ["t1", "t2"]
    assert all(item.namespace == "file" and item.name.startswith("/") for item in datasets)
    assert [column.name for column in datasets[0].fields] == ["a", "b", "c", "d", "e", "s"]
    facet = column_lineage(df).to_facet()
    assert facet["_schemaURL"] == COLUMN_LINEAGE_SCHEMA_URL
    assert set(facet["fields"]) == {"a", "s", "d"}
    assert facet["fields"]["a"]["inputFields"][0]["transformations"][0] == {
        "type": "DIRECT", "subtype": "IDENTITY", "masking": False}
    assert {(entry["field"], entry["transformations"][0]["subtype"]) for entry in facet["dataset"]} == {
        ("a", "JOIN")}
    json.dumps(facet)


@pytest.mark.xdist_group("spark-lineage")
def test_deep_plan_without_recursion_limits(read: Callable[[str], Any]) -> None:
    df = read("t1").select("a", "b")
    for _ in range(200):
        df = df.select((F().col("a") + 1).alias("a"), "b")
    result = column_lineage(df)
    assert observed(result) == ({"a<-t1.a:TRANSFORMATION", "b<-t1.b:IDENTITY"}, set())
    assert result.stats["nodes"] > 200


BACKEND_QUERIES = [case.sql for case in OPENLINEAGE_CASES] + [
    "SELECT a FROM t1 WHERE b IN (SELECT c FROM t2 WHERE d > 300)",
    "SELECT a, (SELECT max(d) FROM t2 WHERE t2.a = t1.a) AS m FROM t1",
    "SELECT a, b, sum(c) AS total FROM t1 GROUP BY ROLLUP(a, b)",
    "SELECT a, w FROM words LATERAL VIEW explode(split(a, ' ')) t AS w",
]


@pytest.mark.xdist_group("spark-lineage")
def test_both_plan_readers_agree(sql: Callable[[str], Any], spark: Any) -> None:
    """The compiled dumper and ``LogicalPlan.toJSON`` give the same lineage."""
    assert prepare(spark._jvm), "the plan dumper should compile with the Janino Spark ships"
    for query in BACKEND_QUERIES:
        df = sql(query)
        fast, slow = column_lineage(df, backend="dumper"), column_lineage(df, backend="json")
        assert (fast.fields, fast.dataset, fast.inputs) == (slow.fields, slow.dataset, slow.inputs), query


@pytest.mark.xdist_group("spark-lineage")
def test_facets_pass_the_openlineage_validator(sql: Callable[[str], Any], tmp_path: Path) -> None:
    if not VALIDATOR.is_file():
        pytest.skip("../shared/tools/validate-openlineage is not beside the repository")
    events = []
    for number, query in enumerate(BACKEND_QUERIES):
        result = column_lineage(sql(query), descriptions=True)
        facets = {"columnLineage": result.to_facet(), "schema": schema_facet(result.schema)}
        events.append({"eventTime": "2026-03-01T05:00:00Z", "producer": PRODUCER,
                       "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/DatasetEvent",
                       "dataset": {"namespace": "file", "name": f"/out/{number}", "facets": facets}})
    path = tmp_path / "facets.jsonl"
    path.write_text("".join(json.dumps(event) + "\n" for event in events), encoding="utf-8")
    done = subprocess.run([sys.executable, str(VALIDATOR), str(path)], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


# ------------------------------------------------------------------------------------------------------------
# Without Spark


def test_merge_follows_openlineage() -> None:
    merge = walker.merge
    identity = ("DIRECT", "IDENTITY", False, (), None)
    transform = ("DIRECT", "TRANSFORMATION", False, (), None)
    aggregate = ("DIRECT", "AGGREGATION", True, (), None)
    window = ("INDIRECT", "WINDOW", False, (), None)
    condition = ("INDIRECT", "CONDITIONAL", False, ("PythonUDF f",), None)
    assert merge(identity, transform) == transform
    assert merge(transform, aggregate) == ("DIRECT", "AGGREGATION", True, (), None)
    assert merge(window, condition) == ("INDIRECT", "WINDOW", False, ("PythonUDF f",), None)
    assert merge(transform, condition) == condition
    for left in (identity, transform, aggregate, window, condition):
        assert merge(identity, left) == left and merge(left, identity) == left
        for middle in (transform, aggregate, window):
            for right in (identity, condition):
                assert merge(merge(left, middle), right) == merge(left, merge(middle, right))


def test_a_dataframe_without_a_jvm_plan_is_refused() -> None:
    class ConnectDataFrame:
        sparkSession = None

    with pytest.raises(LineageUnavailable):
        lineage._jvm_plan(ConnectDataFrame(), "analyzed")
    with pytest.raises(ValueError, match="plan must be one of"):
        lineage._jvm_plan(ConnectDataFrame(), "physical")


def test_merged_lineage_unites_fields() -> None:
    direct = Transformation("DIRECT", "IDENTITY")
    indirect = Transformation("INDIRECT", "FILTER")
    first = ColumnLineage({"a": (InputField("file", "/x", "a", (direct,)),)}, columns=("a",))
    second = ColumnLineage({"a": (InputField("file", "/x", "a", (indirect,)),)},
                           (InputField("file", "/y", "k", (indirect,)),), columns=("a",))
    both = first.merged(second)
    assert both.fields["a"] == (InputField("file", "/x", "a", (direct, indirect)),)
    assert both.dataset_edges() == {("file", "/y", "k", "INDIRECT", "FILTER", False)}
    assert both.sources("a") == {("/x", "a"), ("/y", "k")}
