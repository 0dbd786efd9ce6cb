"""The entry points: the column lineage of a DataFrame, the datasets it reads, the size of its plan."""

from __future__ import annotations

import logging
import time
from typing import Any

from falcon_airflow.core.naming import DatasetId
from falcon_airflow.jobs.lineage_plan.dump import dump_plan, read_plan
from falcon_airflow.jobs.lineage_plan.model import PLANS, ColumnLineage, InputDataset, LineageUnavailable, schema_fields
from falcon_airflow.jobs.lineage_plan.tree import Scope, parse_tree
from falcon_airflow.jobs.lineage_plan.walker import Tx, Walker, input_fields

log = logging.getLogger(__package__)  # one logger for the package, as when it was one module


def _is_java_object(value: Any) -> bool:
    try:
        from py4j.java_gateway import JavaObject  # type: ignore[import-untyped]
    except ImportError:  # pragma: no cover - pyspark always brings py4j
        return False
    return isinstance(value, JavaObject)


def _session_and_jvm(df: Any) -> tuple[Any, Any]:
    spark = None if _is_java_object(df) else getattr(df, "sparkSession", None)
    jvm = getattr(spark, "_jvm", None) if spark is not None else None
    if jvm is None:
        from pyspark import SparkContext

        context = SparkContext._active_spark_context
        if context is None:
            raise LineageUnavailable("no active SparkContext")
        jvm = context._jvm
        if spark is None:
            from pyspark.sql import SparkSession

            spark = SparkSession.getActiveSession()
    return spark, jvm


def _jvm_plan(df: Any, plan: str) -> Any:
    if plan not in PLANS:
        raise ValueError(f"plan must be one of {', '.join(PLANS)}, not {plan!r}")
    if _is_java_object(df):  # a py4j LogicalPlan given directly
        return df
    jdf = getattr(df, "_jdf", None)
    if jdf is None:
        raise LineageUnavailable("the DataFrame has no JVM plan (Spark Connect?): column lineage needs classic PySpark")
    execution = jdf.queryExecution()
    if plan == "analyzed":
        return execution.analyzed()
    if plan == "cached":
        return execution.withCachedData()
    return execution.optimizedPlan()


def column_lineage(df: Any, *, plan: str = "analyzed", backend: str = "auto",
                   descriptions: bool = False) -> ColumnLineage:
    """The column lineage of ``df`` (a classic PySpark DataFrame, or a py4j ``LogicalPlan``).

    ``plan`` is ``analyzed`` (faithful to the code, the default), ``cached`` (the analyzed plan with cached data
    substituted: ``InMemoryRelation`` nodes whose cached plans are walked) or ``optimized`` (what
    openlineage-spark walks: pruned, with inferred ``isnotnull`` filters). ``backend`` picks the serialisation:
    ``auto``, ``dumper`` or ``json`` (``LogicalPlan.toJSON``). ``descriptions`` adds to every dataset-level
    dependency the SQL of its operator (``WHERE ...``, ``LEFT OUTER JOIN ON ...``; a few py4j calls per operator),
    as openlineage-spark's ``columnLineage.descriptionsEnabled`` does. Raises :class:`LineageUnavailable` when
    there is no JVM plan.
    """
    started = time.perf_counter()
    spark, jvm = _session_and_jvm(df)
    jplan = _jvm_plan(df, plan)
    flat, schema_json = read_plan(jplan, jvm, backend)
    dumped = time.perf_counter()
    walker = Walker(jvm, spark, backend, descriptions)
    scope = Scope(parse_tree(flat), jplan, ("main",))
    walker.walk(scope)
    for cte, pending in walker.cte_pending.items():  # references whose definition never showed up
        log.debug("CTE %s referenced but not defined in the plan (%d references)", cte, len(pending))
    outputs = scope.root.out
    names = [name for _, name in outputs]
    if schema_json is None and not _is_java_object(df) and hasattr(df, "schema"):
        schema_json = df.schema
    schema = schema_fields(schema_json) if schema_json is not None else ()
    if len(schema) == len(outputs):
        names = [column.name for column in schema]
    memo: dict[int, dict[tuple[DatasetId, str], set[Tx]]] = {}
    per_field: dict[str, dict[tuple[DatasetId, str], set[Tx]]] = {}
    for (ident, _), name in zip(outputs, names, strict=False):
        found = walker.closure(ident, memo)
        if found:
            bucket = per_field.setdefault(name, {})
            for column, transformations in found.items():
                bucket.setdefault(column, set()).update(transformations)
    dataset: dict[tuple[DatasetId, str], set[Tx]] = {}
    for pseudo in walker.sinks.get(scope.sink, ()):
        for column, transformations in walker.closure(pseudo, memo).items():
            dataset.setdefault(column, set()).update(transformations)
    fields = {name: input_fields(found) for name, found in per_field.items()}
    finished = time.perf_counter()
    stats = {"seconds": finished - started, "dump_seconds": dumped - started, "nodes": float(walker.nodes),
             "jvm_seconds": walker.jvm_calls_time}
    return ColumnLineage(fields, input_fields(dataset), tuple(walker.datasets.values()), tuple(names), schema,
                         plan, stats)


def input_datasets(df: Any, *, plan: str = "analyzed") -> list[InputDataset]:
    """The datasets ``df`` reads (files, tables), each with the columns its relation exposes."""
    return list(column_lineage(df, plan=plan).inputs)


def plan_size(df: Any, *, plan: str = "analyzed") -> int:
    """The number of plan nodes (operators, subqueries and cached plans excluded) of ``df``."""
    _, jvm = _session_and_jvm(df)
    return sum(1 for item in dump_plan(_jvm_plan(df, plan), jvm) if isinstance(item, dict))
