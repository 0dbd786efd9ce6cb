"""Column lineage of a PySpark DataFrame, computed from its Catalyst plan through py4j (no openlineage-spark jar).

``column_lineage(df)`` walks the plan of ``df`` (the analyzed plan by default) and returns, for every output column,
the input fields it comes from - ``(namespace, dataset name, field)`` - each with its transformations, plus the
dataset-level dependencies (filters, joins, group-by, sort) of OpenLineage's ``ColumnLineageDatasetFacet`` 1-2-0.
``input_datasets(df)`` lists the datasets the plan reads. Only pyspark, the standard library and
:mod:`falcon_airflow.core` are used, so this file ships beside a job with ``--py-files`` (with the core's zip).

Semantics follow openlineage-spark (``ExpressionTraverser`` and the operator visitors):

==================  ===========================================================================================
plan node           what it records
==================  ===========================================================================================
Project             each output column from its expression (starting as DIRECT/IDENTITY)
Aggregate           grouping expressions: dataset-level INDIRECT/GROUP_BY (not for a DISTINCT over a UNION);
                    aggregate expressions per column
Filter              condition: dataset-level INDIRECT/FILTER
Join (all kinds)    condition: dataset-level INDIRECT/JOIN; semi/anti joins output the left side only
Sort                order expressions: dataset-level INDIRECT/SORT
Window              window expressions per column (partition/order keys INDIRECT/WINDOW on that column)
Union               positional DIRECT/IDENTITY from every child into the first child's columns
Expand              rollup / cube / grouping sets: positional, per projection row
Generate            generator output from the generator's inputs, DIRECT/TRANSFORMATION
Distinct,           INDIRECT/GROUP_BY on the keys (all columns for Distinct)
Deduplicate
Intersect, Except   every column of both sides: dataset-level INDIRECT/JOIN (as the optimizer's semi/anti join)
CTEs                references map positionally onto their definition; a definition's filters count where it
                    is referenced
subqueries          walked as their own plan; their columns and dataset-level dependencies flow into the
                    expression that holds them
InMemoryRelation    its cached logical plan is walked (appears in the ``cached``/``optimized`` plans)
relations           files (``LogicalRelation`` over ``HadoopFsRelation``: one dataset per root path), catalog
                    tables (``hive://<metastore>`` / ``db.table``), JDBC; LocalRelation, Range, RDDs: no inputs
anything else       pass-through when it keeps its child's columns; a node that makes new columns from its
                    children (mapInPandas, ...) is opaque: every new column from every child column,
                    DIRECT/TRANSFORMATION with an ``opaque`` description
==================  ===========================================================================================

==================  ===========================================================================================
expression          rule
==================  ===========================================================================================
Alias, SortOrder    transparent (IDENTITY)
AggregateExpression function inputs DIRECT/AGGREGATION; a ``FILTER (WHERE ...)`` clause INDIRECT/FILTER
CaseWhen, If        conditions INDIRECT/CONDITIONAL, values DIRECT/TRANSFORMATION
Coalesce            each child both INDIRECT/CONDITIONAL and DIRECT/TRANSFORMATION (NVL, IFNULL: the same)
WindowExpression    function inputs DIRECT/TRANSFORMATION (AGGREGATION for an aggregate; none for rank-like
                    functions), partition and order keys INDIRECT/WINDOW
UDFs and other      DIRECT/TRANSFORMATION, never IDENTITY, ``masking`` false (the function may or may not hide
opaque functions    its input: nothing is claimed) and ``description`` ``opaque: <function>``
struct access       the top-level input column, DIRECT/TRANSFORMATION (``s.x`` reads ``s``)
anything else       children DIRECT/TRANSFORMATION; ``masking`` for hashes and ``count`` (md5, sha1, sha2, crc32,
                    hash, xxhash64, hive hash, mask, count)
==================  ===========================================================================================

Along a path the transformations merge as in OpenLineage: an INDIRECT step wins (the one nearest the output),
otherwise the lowest of AGGREGATION < TRANSFORMATION < IDENTITY; ``masking`` is or-ed. Every distinct
(input field, transformation) pair is kept. Columns computed from literals only have no entry.

How the plan is read: one JVM call serialises the whole plan, with the root paths and tables of its file
relations, in the flat format of ``LogicalPlan.toJSON`` (a small Java class compiled once per JVM with the Janino
compiler Spark ships; ``toJSON`` itself, the fallback, reflects on every node and is 5-10x slower). The text is
fetched in pieces of 3,500 characters: a py4j answer over 8 KB waits about 40 ms for a delayed TCP ACK. py4j is
otherwise used only for cached plans, the rarer relations (JDBC, DataSource V2) and ``descriptions``. The walk,
the expression traversal and the transitive closure use explicit stacks and memos, never deep recursion. A
200-node plan takes about 20 ms (``benchmarks/lineage_walker.py``).

The analyzed plan (the default) is what the code says; the optimized plan (what openlineage-spark walks) adds the
optimizer's inferred ``isnotnull`` filters and rewrites subqueries into joins, so its dataset-level list can be
longer. In Spark 4 ``NULLIF`` is analysed into ``With``/``NullIfResult`` and is read as the ``If`` it stands for.

Limits, as in openlineage-spark: an ``explode`` changes how many rows there are without a dataset-level edge for
its input; data that went through an RDD (``spark.createDataFrame(df.rdd...)``, a ``LogicalRDD``) has no inputs;
nested fields are reported as their top-level column.

Dataset names follow the OpenLineage naming conventions, as :mod:`falcon_airflow.core.naming` does: a local
path is namespace ``file`` with the absolute path as name, ``hdfs://nn:8020`` + path, ``s3://bucket`` + key (no
leading ``/``), ``gs://bucket`` + key; a catalog table is ``<table namespace>`` + ``db.table`` where the table
namespace is the Spark conf ``spark.falcon.lineage.tableNamespace`` if set, else ``hive://<host:port>`` of the
first ``hive.metastore.uris`` entry, else ``hive://default``.
"""

from __future__ import annotations

import functools
import json
import logging
import threading
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from falcon_airflow import __version__
from falcon_airflow.core.lineage import (
    AGGREGATION,
    COLUMN_LINEAGE_SCHEMA_URL,
    CONDITIONAL,
    DIRECT,
    FILTER,
    GROUP_BY,
    IDENTITY,
    INDIRECT,
    JOIN,
    PRODUCER,
    SCHEMA_SCHEMA_URL,
    SORT,
    SYMLINKS_SCHEMA_URL,
    TRANSFORMATION,
    WINDOW,
    outer_wins,
)
from falcon_airflow.core.naming import DEFAULT_TABLE_NAMESPACE as SPARK_TABLE_NAMESPACE
from falcon_airflow.core.naming import (
    TABLE_NAMESPACE_CONF,
    DatasetId,
    jdbc_dataset,
    location_dataset,
    metastore_authority,
)

log = logging.getLogger(__name__)

VERSION: str = __version__

DEFAULT_TABLE_NAMESPACE = SPARK_TABLE_NAMESPACE.format(cluster="default")
PLANS = ("analyzed", "cached", "optimized")

# Expression classes (simple names) with a rule of their own.
_MASKING = frozenset({"Crc32", "HiveHash", "Md5", "Murmur3Hash", "Sha1", "Sha2", "XxHash64", "Count", "Mask"})
_RANK_LIKE = frozenset({"Rank", "DenseRank", "PercentRank", "CumeDist", "RowNumber", "NTile"})
_TRANSPARENT = frozenset({"Alias", "SortOrder", "KnownNotNull", "KnownNullable", "KnownFloatingPointNormalized",
                          "NamedArgumentExpression", "PromotePrecision"})
_OPAQUE = frozenset({"PythonUDF", "PythonUDAF", "PythonUDTF", "UnresolvedPolymorphicPythonUDTF", "ScalaUDF",
                     "ScalaUDAF", "ScalaAggregator", "TypedImperativeAggregate", "HiveSimpleUDF", "HiveGenericUDF",
                     "HiveGenericUDTF", "HiveUDAFFunction", "ApplyFunctionExpression", "CallMethodViaReflection",
                     "UserDefinedExpression", "TypedAggregateExpression", "ComplexTypedAggregateExpression",
                     "SimpleTypedAggregateExpression"})
# Plan leaves whose dataset comes from the JVM object.
_RELATIONS = frozenset({"LogicalRelation", "HiveTableRelation", "DataSourceV2Relation", "DataSourceV2ScanRelation",
                        "InMemoryRelation"})
# Python evaluation nodes of optimized plans: result attribute i is computed by UDF i.
_EVAL_PYTHON = frozenset({"BatchEvalPython", "ArrowEvalPython", "BatchEvalPythonUDTF", "ArrowEvalPythonUDTF"})

Tx = tuple[str, str, bool, tuple[str, ...], str | None]
"""A transformation while walking: (type, subtype, masking, names of the opaque functions on the path, the
description of the operator of an INDIRECT step - only when descriptions are asked for)."""

_IDENTITY: Tx = (DIRECT, IDENTITY, False, (), None)
_TRANSFORM: Tx = (DIRECT, TRANSFORMATION, False, (), None)
_MASKED: Tx = (DIRECT, TRANSFORMATION, True, (), None)
_AGGREGATE: Tx = (DIRECT, AGGREGATION, False, (), None)


def _indirect(subtype: str, description: str | None = None) -> Tx:
    return (INDIRECT, subtype, False, (), description)


@functools.lru_cache(maxsize=8192)
def merge(outer: Tx, inner: Tx) -> Tx:
    """Two steps of one path, ``outer`` nearer the output: OpenLineage's ``TransformationInfo.merge``."""
    winner = outer if outer_wins((outer[0], outer[1]), (inner[0], inner[1])) else inner
    kind, description = winner[:2], (winner[4] if winner[0] == INDIRECT else None)
    if not inner[3]:
        opaque = outer[3]
    elif not outer[3]:
        opaque = inner[3]
    else:
        opaque = tuple(sorted(set(outer[3]) | set(inner[3])))
    return (kind[0], kind[1], outer[2] or inner[2], opaque, description)


# ----------------------------------------------------------------------------------------------------------------
# The model


@dataclass(frozen=True)
class Transformation:
    """How an input field affects an output: ``type`` DIRECT/INDIRECT, ``subtype`` as in the spec."""

    type: str
    subtype: str
    masking: bool = False
    description: str | None = None

    @property
    def opaque(self) -> bool:
        """Whether the path goes through a function whose body Spark cannot see (a UDF)."""
        return bool(self.description and self.description.startswith("opaque:"))

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"type": self.type, "subtype": self.subtype, "masking": self.masking}
        if self.description:
            data["description"] = self.description
        return data


@dataclass(frozen=True)
class InputField:
    """One input field of an output column (or of the whole dataset) with its transformations."""

    namespace: str
    name: str
    field: str
    transformations: tuple[Transformation, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"namespace": self.namespace, "name": self.name, "field": self.field,
                "transformations": [t.to_dict() for t in self.transformations]}


@dataclass(frozen=True)
class SchemaField:
    """A column of a dataset's schema; ``fields`` for a struct's members."""

    name: str
    type: str
    fields: tuple[SchemaField, ...] = ()

    def to_dict(self, position: int | None = None) -> dict[str, Any]:
        data: dict[str, Any] = {"name": self.name, "type": self.type}
        if position is not None:
            data["ordinal_position"] = position
        if self.fields:
            data["fields"] = [member.to_dict() for member in self.fields]
        return data


@dataclass(frozen=True)
class InputDataset:
    """A dataset the plan reads: its identity, the columns it exposes, and aliases (``symlinks``).

    ``kind`` is ``file``, ``table`` or ``jdbc``.
    """

    namespace: str
    name: str
    kind: str = "file"
    fields: tuple[SchemaField, ...] = ()
    symlinks: tuple[tuple[str, str, str], ...] = ()

    @property
    def id(self) -> DatasetId:
        return DatasetId(self.namespace, self.name)

    def facets(self, producer: str = PRODUCER) -> dict[str, Any]:
        facets: dict[str, Any] = {}
        if self.fields:
            facets["schema"] = schema_facet(self.fields, producer)
        if self.symlinks:
            facets["symlinks"] = {"_producer": producer, "_schemaURL": SYMLINKS_SCHEMA_URL,
                                  "identifiers": [{"namespace": namespace, "name": name, "type": kind}
                                                  for namespace, name, kind in self.symlinks]}
        return facets

    def to_dict(self, producer: str = PRODUCER) -> dict[str, Any]:
        return {"namespace": self.namespace, "name": self.name, "facets": self.facets(producer)}


def schema_facet(fields: Sequence[SchemaField], producer: str = PRODUCER) -> dict[str, Any]:
    """A ``SchemaDatasetFacet`` 1-2-0 (nested struct members as nested ``fields``)."""
    return {"_producer": producer, "_schemaURL": SCHEMA_SCHEMA_URL,
            "fields": [column.to_dict(position) for position, column in enumerate(fields, 1)]}


def schema_fields(data_type: Any) -> tuple[SchemaField, ...]:
    """The fields of a Spark ``StructType`` - a pyspark object or its JSON value (``StructType.jsonValue()``)."""
    value = data_type.jsonValue() if hasattr(data_type, "jsonValue") else data_type
    if not isinstance(value, Mapping) or value.get("type") != "struct":
        return ()
    return tuple(_schema_field(item.get("name", ""), item.get("type")) for item in value.get("fields") or ())


def _schema_field(name: str, value: Any) -> SchemaField:
    if isinstance(value, Mapping):
        kind = str(value.get("type", "unknown"))
        return SchemaField(name, kind, schema_fields(value) if kind == "struct" else ())
    return SchemaField(name, str(value) if value is not None else "unknown")


@dataclass(frozen=True)
class ColumnLineage:
    """The column lineage of one DataFrame.

    ``fields`` maps each output column that has inputs to its input fields (sorted); ``dataset`` holds the
    dependencies that apply to every column (filters, joins, group-by, sort); ``inputs`` are the datasets read;
    ``columns`` every output column in order (with or without lineage) and ``schema`` their types.
    """

    fields: Mapping[str, tuple[InputField, ...]]
    dataset: tuple[InputField, ...] = ()
    inputs: tuple[InputDataset, ...] = ()
    columns: tuple[str, ...] = ()
    schema: tuple[SchemaField, ...] = ()
    plan: str = "analyzed"
    stats: Mapping[str, float] = field(default_factory=dict, compare=False)

    def to_facet(self, producer: str = PRODUCER) -> dict[str, Any]:
        """The OpenLineage ``ColumnLineageDatasetFacet`` (1-2-0) as a JSON-ready dict."""
        return {"_producer": producer, "_schemaURL": COLUMN_LINEAGE_SCHEMA_URL,
                "fields": {name: {"inputFields": [item.to_dict() for item in inputs]}
                           for name, inputs in self.fields.items()},
                "dataset": [item.to_dict() for item in self.dataset]}

    def edges(self) -> set[tuple[str, str, str, str, str, str, bool]]:
        """Every (output column, namespace, name, field, type, subtype, masking) of ``fields``."""
        return {(column, item.namespace, item.name, item.field, t.type, t.subtype, t.masking)
                for column, inputs in self.fields.items() for item in inputs for t in item.transformations}

    def dataset_edges(self) -> set[tuple[str, str, str, str, str, bool]]:
        """Every (namespace, name, field, type, subtype, masking) of ``dataset``."""
        return {(item.namespace, item.name, item.field, t.type, t.subtype, t.masking)
                for item in self.dataset for t in item.transformations}

    def sources(self, column: str) -> set[tuple[str, str]]:
        """The (dataset name, field) pairs column ``column`` depends on, per field or through ``dataset``."""
        found = {(item.name, item.field) for item in self.fields.get(column, ())}
        return found | {(item.name, item.field) for item in self.dataset}

    def merged(self, other: ColumnLineage) -> ColumnLineage:
        """Both lineages of one output (a dataset written twice): the union, field by field."""
        fields = {name: inputs for name, inputs in self.fields.items()}
        for name, inputs in other.fields.items():
            fields[name] = _merge_inputs(fields.get(name, ()) + inputs)
        inputs_seen = {item.id: item for item in self.inputs}
        for item in other.inputs:
            inputs_seen.setdefault(item.id, item)
        columns = tuple(dict.fromkeys(self.columns + other.columns))
        return ColumnLineage(fields, _merge_inputs(self.dataset + other.dataset), tuple(inputs_seen.values()),
                             columns, other.schema or self.schema, self.plan)


def _transformation_key(item: Transformation) -> tuple[str, str, bool, str]:
    return (item.type, item.subtype, item.masking, item.description or "")


def _field_key(item: InputField) -> tuple[str, str, str]:
    return (item.namespace, item.name, item.field)


def _merge_inputs(items: Iterable[InputField]) -> tuple[InputField, ...]:
    grouped: dict[tuple[str, str, str], set[Transformation]] = {}
    for item in items:
        grouped.setdefault((item.namespace, item.name, item.field), set()).update(item.transformations)
    return tuple(InputField(ns, name, column, tuple(sorted(ts, key=_transformation_key)))
                 for (ns, name, column), ts in sorted(grouped.items()))


class LineageUnavailable(Exception):
    """The DataFrame has no JVM plan to walk (Spark Connect) or the plan could not be read."""


# ----------------------------------------------------------------------------------------------------------------
# Dataset names


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


# ----------------------------------------------------------------------------------------------------------------
# Reading the plan: one serialisation call, with a fast dumper compiled in the JVM


_DUMPER_CLASS = "FalconAirflowPlanDump"
_DUMPER_SOURCE = r"""
public class FalconAirflowPlanDump {
    private final java.util.HashMap names = new java.util.HashMap();
    private final java.util.HashMap methods = new java.util.HashMap();
    private final java.util.IdentityHashMap types = new java.util.IdentityHashMap();

    // {"schema": <the plan's output schema as StructType JSON>, "plan": [flat pre-order nodes, as toJSON]}; kept in
    // a StringBuilder that the caller reads in small pieces (py4j answers over 8 KB stall on delayed ACKs).
    public synchronized StringBuilder build(Object tree) {
        StringBuilder out = new StringBuilder(8192);
        out.append("{\"schema\":");
        if (tree instanceof org.apache.spark.sql.catalyst.plans.logical.LogicalPlan) {
            out.append(((org.apache.spark.sql.catalyst.plans.logical.LogicalPlan) tree).schema().json());
        } else out.append("null");
        out.append(",\"plan\":");
        flatten((org.apache.spark.sql.catalyst.trees.TreeNode) tree, out);
        out.append('}');
        return out;
    }

    // The names of a case class's fields: productElementName (generated code, fast), then the second parameter
    // list of named expressions (exprId, qualifier); Scala reflection (slow on first use) only when that fails.
    private String[] fieldNames(scala.Product product) {
        Class cls = product.getClass();
        String[] cached = (String[]) names.get(cls);
        if (cached != null) return cached;
        try {
            int arity = product.productArity();
            java.util.ArrayList found = new java.util.ArrayList();
            for (int i = 0; i < arity; i++) {
                String name = product.productElementName(i);
                if (name == null || name.length() == 0) throw new IllegalStateException("unnamed field");
                found.add(name);
            }
            if (product instanceof org.apache.spark.sql.catalyst.expressions.NamedExpression) {
                if (!found.contains("exprId")) found.add("exprId");
                if (!found.contains("qualifier")) found.add("qualifier");
            }
            cached = (String[]) found.toArray(new String[0]);
        } catch (Throwable error) {
            try {
                scala.collection.Seq seq =
                    org.apache.spark.sql.catalyst.ScalaReflection$.MODULE$.getConstructorParameterNames(cls);
                cached = new String[seq.size()];
                for (int i = 0; i < cached.length; i++) cached[i] = (String) seq.apply(i);
            } catch (Throwable again) {
                cached = new String[0];
            }
        }
        names.put(cls, cached);
        return cached;
    }

    private Object accessor(Object target, String name) {
        if (target == null) return null;
        String key = target.getClass().getName() + "#" + name;
        Object method = methods.get(key);
        if (method == null) {
            try {
                method = target.getClass().getMethod(name, new Class[0]);
            } catch (Throwable error) {
                method = Boolean.FALSE;
            }
            methods.put(key, method);
        }
        if (method == Boolean.FALSE) return null;
        try {
            return ((java.lang.reflect.Method) method).invoke(target, new Object[0]);
        } catch (Throwable error) {
            return null;
        }
    }

    private void flatten(org.apache.spark.sql.catalyst.trees.TreeNode root, StringBuilder out) {
        out.append('[');
        java.util.ArrayDeque stack = new java.util.ArrayDeque();
        stack.push(root);
        boolean first = true;
        while (!stack.isEmpty()) {
            org.apache.spark.sql.catalyst.trees.TreeNode node =
                (org.apache.spark.sql.catalyst.trees.TreeNode) stack.pop();
            if (!first) out.append(',');
            first = false;
            java.util.ArrayList kids = new java.util.ArrayList();
            scala.collection.Iterator it = node.children().iterator();
            while (it.hasNext()) kids.add(it.next());
            node(node, kids, out);
            for (int i = kids.size() - 1; i >= 0; i--) stack.push(kids.get(i));
        }
        out.append(']');
    }

    private static int childIndex(java.util.ArrayList kids, Object value) {
        for (int i = 0; i < kids.size(); i++) if (kids.get(i) == value) return i;
        return -1;
    }

    private void node(org.apache.spark.sql.catalyst.trees.TreeNode node, java.util.ArrayList kids, StringBuilder out) {
        out.append("{\"class\":");
        String name = node.getClass().getName();
        string(name, out);
        out.append(",\"num-children\":").append(kids.size());
        if (node instanceof scala.Product) fields((scala.Product) node, kids, out);
        if (kids.isEmpty() && name.endsWith(".LogicalRelation")) relation(node, out);
        if (kids.isEmpty() && name.endsWith(".HiveTableRelation")) {
            out.append(",\"falconTable\":");
            table(accessor(node, "tableMeta"), out);
        }
        out.append('}');
    }

    // Where a file relation or a catalog table reads from, so that the walker needs no py4j call per leaf.
    private void relation(Object node, StringBuilder out) {
        try {
            Object catalogTable = accessor(node, "catalogTable");
            if (catalogTable instanceof scala.Option && ((scala.Option) catalogTable).isDefined()) {
                out.append(",\"falconTable\":");
                table(((scala.Option) catalogTable).get(), out);
                return;
            }
            Object relation = accessor(node, "relation");
            if (relation == null) return;
            out.append(",\"falconRelation\":");
            string(relation.getClass().getName(), out);
            if (!relation.getClass().getName().endsWith(".HadoopFsRelation")) return;
            Object roots = accessor(accessor(relation, "location"), "rootPaths");
            if (!(roots instanceof scala.collection.Seq)) return;
            out.append(",\"falconRootPaths\":[");
            scala.collection.Iterator it = ((scala.collection.Seq) roots).iterator();
            boolean first = true;
            while (it.hasNext()) {
                if (!first) out.append(',');
                first = false;
                string(String.valueOf(it.next()), out);
            }
            out.append(']');
        } catch (Throwable error) {
            // the walker asks through py4j instead
        }
    }

    private void table(Object catalogTable, StringBuilder out) {
        if (catalogTable == null) { out.append("null"); return; }
        Object identifier = accessor(catalogTable, "identifier");
        Object database = identifier == null ? null : accessor(identifier, "database");
        Object location = accessor(accessor(catalogTable, "storage"), "locationUri");
        out.append("{\"table\":");
        string(String.valueOf(identifier == null ? null : accessor(identifier, "table")), out);
        out.append(",\"database\":");
        if (database instanceof scala.Option && ((scala.Option) database).isDefined()) {
            string(String.valueOf(((scala.Option) database).get()), out);
        } else out.append("null");
        out.append(",\"location\":");
        if (location instanceof scala.Option && ((scala.Option) location).isDefined()) {
            string(String.valueOf(((scala.Option) location).get()), out);
        } else out.append("null");
        out.append('}');
    }

    private void fields(scala.Product product, java.util.ArrayList kids, StringBuilder out) {
        String[] fields = fieldNames(product);
        int arity = product.productArity();
        for (int i = 0; i < fields.length; i++) {
            Object value = i < arity ? product.productElement(i) : accessor(product, fields[i]);
            out.append(',');
            string(fields[i], out);
            out.append(':');
            value(value, kids, out);
        }
    }

    private static boolean simple(Object value) {
        return value == null || value instanceof String || value instanceof Boolean || value instanceof Integer
            || value instanceof Long || value instanceof Short || value instanceof Byte;
    }

    private static boolean convertible(Object value) {
        return simple(value) || value instanceof org.apache.spark.sql.catalyst.trees.TreeNode
            || value instanceof org.apache.spark.sql.catalyst.expressions.ExprId
            || value instanceof org.apache.spark.sql.types.DataType || value instanceof scala.Option
            || value instanceof scala.collection.Seq || value instanceof scala.Tuple2
            || value instanceof org.apache.spark.sql.catalyst.plans.JoinType
            || (value instanceof scala.Product
                && value.getClass().getName().startsWith("org.apache.spark.sql.catalyst.expressions."))
            || (value instanceof scala.Product && ((scala.Product) value).productArity() == 0);
    }

    private void value(Object value, java.util.ArrayList kids, StringBuilder out) {
        if (value == null) { out.append("null"); return; }
        if (value instanceof org.apache.spark.sql.catalyst.trees.TreeNode) {
            int index = childIndex(kids, value);
            if (index >= 0) out.append(index);
            else flatten((org.apache.spark.sql.catalyst.trees.TreeNode) value, out);
            return;
        }
        if (value instanceof String) { string((String) value, out); return; }
        if (value instanceof Boolean || value instanceof Integer || value instanceof Long || value instanceof Short
                || value instanceof Byte) {
            out.append(value.toString());
            return;
        }
        if (value instanceof org.apache.spark.sql.catalyst.expressions.ExprId) {
            out.append("{\"id\":").append(((org.apache.spark.sql.catalyst.expressions.ExprId) value).id()).append('}');
            return;
        }
        if (value instanceof org.apache.spark.sql.types.DataType) {
            String json = (String) types.get(value);
            if (json == null) {
                json = ((org.apache.spark.sql.types.DataType) value).json();
                types.put(value, json);
            }
            out.append(json);
            return;
        }
        if (value instanceof scala.Option) {
            scala.Option option = (scala.Option) value;
            if (option.isEmpty()) out.append("null"); else value(option.get(), kids, out);
            return;
        }
        if (value instanceof scala.collection.Seq) {
            scala.collection.Seq seq = (scala.collection.Seq) value;
            if (seq.nonEmpty() && !convertible(seq.head())) { out.append("null"); return; }
            boolean allKids = seq.nonEmpty();
            scala.collection.Iterator it = seq.iterator();
            while (allKids && it.hasNext()) allKids = childIndex(kids, it.next()) >= 0;
            out.append('[');
            it = seq.iterator();
            boolean first = true;
            while (it.hasNext()) {
                if (!first) out.append(',');
                first = false;
                Object item = it.next();
                if (allKids) out.append(childIndex(kids, item)); else value(item, kids, out);
            }
            out.append(']');
            return;
        }
        if (value instanceof scala.Tuple2) {
            scala.Tuple2 pair = (scala.Tuple2) value;
            out.append("{\"_1\":");
            value(pair._1(), kids, out);
            out.append(",\"_2\":");
            value(pair._2(), kids, out);
            out.append('}');
            return;
        }
        if (value instanceof org.apache.spark.sql.catalyst.plans.JoinType || (value instanceof scala.Product
                && value.getClass().getName().startsWith("org.apache.spark.sql.catalyst.expressions."))) {
            scala.Product product = (scala.Product) value;
            out.append(product.productArity() == 0 ? "{\"object\":" : "{\"product-class\":");
            string(value.getClass().getName(), out);
            if (product.productArity() > 0) fields(product, kids, out);
            out.append('}');
            return;
        }
        if (value instanceof scala.Product && ((scala.Product) value).productArity() == 0) {
            out.append("{\"object\":");
            string(value.getClass().getName(), out);
            out.append('}');
            return;
        }
        out.append("null");
    }

    private static void string(String text, StringBuilder out) {
        out.append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '"' || c == '\\') out.append('\\').append(c);
            else if (c < 0x20 || (c >= 0xD800 && c <= 0xDFFF)) {
                String hex = Integer.toHexString(c);
                out.append("\\u");
                for (int k = hex.length(); k < 4; k++) out.append('0');
                out.append(hex);
            } else out.append(c);
        }
        out.append('"');
    }
}
"""

_dumpers: dict[int, Any] = {}
_dumpers_lock = threading.Lock()


def _gateway_key(jvm: Any) -> int:
    client = getattr(jvm, "_gateway_client", None)
    return id(client if client is not None else jvm)


def _dumper(jvm: Any) -> Any:
    """The compiled plan dumper of this JVM (compiled once), or None when it cannot be compiled."""
    key = _gateway_key(jvm)
    with _dumpers_lock:
        if key in _dumpers:
            return _dumpers[key]
        started = time.perf_counter()
        try:
            compiler = jvm.org.codehaus.janino.SimpleCompiler()
            compiler.setParentClassLoader(jvm.java.lang.Thread.currentThread().getContextClassLoader())
            compiler.cook(_DUMPER_SOURCE)
            instance = compiler.getClassLoader().loadClass(_DUMPER_CLASS).newInstance()
        except Exception as error:  # no Janino (or a Spark it does not compile against): toJSON is used
            log.debug("plan dumper not compiled, using LogicalPlan.toJSON: %s", error)
            instance = None
        log.debug("plan dumper compiled in %.3f s", time.perf_counter() - started)
        _dumpers[key] = instance
        return instance


def prepare(jvm: Any) -> bool:
    """Compile the plan dumper now (it is otherwise compiled by the first walk); whether it is available."""
    return _dumper(jvm) is not None


_CHUNK = 3500
"""Characters fetched per py4j call: an answer over 8 KB (py4j's buffer) leaves Nagle's algorithm waiting for a
delayed ACK, about 40 ms per call on Linux; 3,500 characters stay under it even if py4j doubles every one."""


def _fetch(builder: Any) -> str:
    """The text of a JVM ``StringBuilder``, read in pieces small enough to avoid the delayed-ACK stall."""
    size = int(builder.length())
    return "".join(str(builder.substring(start, min(size, start + _CHUNK))) for start in range(0, size, _CHUNK))


def _read_plan(jplan: Any, jvm: Any, backend: str = "auto") -> tuple[list[dict[str, Any]], Any]:
    """(the flat pre-order nodes of ``LogicalPlan.toJSON``, the plan's schema as JSON or None if not read)."""
    if backend in ("auto", "dumper"):
        dumper = _dumper(jvm)
        if dumper is not None:
            try:
                document = json.loads(_fetch(dumper.build(jplan)))
                return list(document["plan"]), document.get("schema")
            except Exception as error:
                if backend == "dumper":
                    raise
                log.debug("plan dumper failed, using LogicalPlan.toJSON: %s", error)
        elif backend == "dumper":
            raise LineageUnavailable("the plan dumper could not be compiled")
    return list(json.loads(jplan.toJSON())), None


def dump_plan(jplan: Any, jvm: Any, backend: str = "auto") -> list[dict[str, Any]]:
    """A plan as the flat pre-order list of ``LogicalPlan.toJSON``; ``backend`` ``auto``, ``dumper`` or ``json``."""
    return _read_plan(jplan, jvm, backend)[0]


# ----------------------------------------------------------------------------------------------------------------
# The parsed trees


class _Node:
    """A plan or expression node of the flat JSON: ``kind`` is the simple class name."""

    __slots__ = ("children", "data", "index", "kind", "leaf_ordinal", "out", "parent", "sink")

    def __init__(self, data: dict[str, Any]) -> None:
        self.data = data
        self.kind = str(data.get("class", "")).rsplit(".", 1)[-1]
        self.children: list[_Node] = []
        self.parent: _Node | None = None
        self.index = 0
        self.out: list[tuple[int, str]] = []
        self.sink: tuple[Any, ...] = ()
        self.leaf_ordinal = -1

    def get(self, key: str, default: Any = None) -> Any:
        return self.data.get(key, default)

    def path(self) -> tuple[int, ...]:
        steps: list[int] = []
        node: _Node | None = self
        while node is not None and node.parent is not None:
            steps.append(node.index)
            node = node.parent
        return tuple(reversed(steps))


def _parse(flat: Sequence[Any]) -> _Node:
    """The tree of a flat pre-order list (each element has ``num-children``), without recursion."""
    root: _Node | None = None
    stack: list[tuple[_Node, int]] = []
    for data in flat:
        if not isinstance(data, dict):
            raise LineageUnavailable(f"unexpected plan element {data!r:.80}")
        node = _Node(data)
        if stack:
            parent, expected = stack[-1]
            node.parent = parent
            node.index = len(parent.children)
            parent.children.append(node)
            if len(parent.children) == expected:
                stack.pop()
        elif root is None:
            root = node
        else:
            raise LineageUnavailable("plan JSON has more than one root")
        expected_children = int(data.get("num-children") or 0)
        if expected_children:
            stack.append((node, expected_children))
    if root is None or stack:
        raise LineageUnavailable("plan JSON is truncated")
    return root


def _is_tree(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and isinstance(value[0], dict) and "class" in value[0]


def _trees(value: Any) -> list[list[dict[str, Any]]]:
    """The flat expression trees in a field value: one tree, a Seq of them, a Seq of Seqs (Expand)."""
    found: list[list[dict[str, Any]]] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if _is_tree(item):
            found.append(item)
        elif isinstance(item, list):
            stack.extend(reversed(item))
    return found


def _named(node: _Node) -> tuple[int, str] | None:
    """(exprId, name) of a named expression (Alias, AttributeReference, ...)."""
    expr_id = node.get("exprId")
    if isinstance(expr_id, dict) and "id" in expr_id:
        return int(expr_id["id"]), str(node.get("name", ""))
    return None


def _common_id(value: Any) -> Any:
    """The key of a ``CommonExpressionId`` (``{"id": n, "canonicalized": b}``), or None when unreadable."""
    if isinstance(value, dict) and "id" in value:
        return (value.get("id"), value.get("canonicalized"))
    return None


def _class_name(value: Any) -> str:
    if isinstance(value, dict):
        name = value.get("object") or value.get("product-class") or value.get("class") or ""
        return str(name).rsplit(".", 1)[-1].rstrip("$")
    return str(value or "")


# ----------------------------------------------------------------------------------------------------------------
# The walker


class _Scope:
    """One plan walked: the main plan, a subquery's, a cached plan's. ``jvm_root`` gives its JVM object lazily."""

    def __init__(self, root: _Node, jvm_root: Any, sink: tuple[Any, ...]) -> None:
        self.root = root
        self._jvm_root = jvm_root
        self.sink = sink
        self._jvm_nodes: dict[tuple[int, ...], Any] = {}
        self._leaves: Any = None

    def jvm_root(self) -> Any:
        if callable(self._jvm_root):
            self._jvm_root = self._jvm_root()
        return self._jvm_root

    def jvm_node(self, node: _Node) -> Any:
        """The JVM object of ``node``, found by its child positions from the root (memoised per prefix)."""
        path = node.path()
        known = len(path)
        while known and path[:known] not in self._jvm_nodes:
            known -= 1
        current = self._jvm_nodes[path[:known]] if known else self.jvm_root()
        for depth in range(known, len(path)):
            current = current.children().apply(path[depth])
            self._jvm_nodes[path[:depth + 1]] = current
        return current

    def jvm_leaf(self, node: _Node) -> Any:
        """A leaf's JVM object: ``collectLeaves()`` lists leaves in the same order as the JSON (pre-order)."""
        if self._leaves is None:
            self._leaves = self.jvm_root().collectLeaves()
        if node.leaf_ordinal < 0 or node.leaf_ordinal >= self._leaves.size():
            return self.jvm_node(node)
        candidate = self._leaves.apply(node.leaf_ordinal)
        if str(candidate.getClass().getName()) != node.get("class"):
            return self.jvm_node(node)
        return candidate


class _Walker:
    def __init__(self, jvm: Any, spark: Any, backend: str = "auto", descriptions: bool = False) -> None:
        self.jvm = jvm
        self.spark = spark
        self.backend = backend
        self.descriptions = descriptions
        self.deps: dict[int, list[tuple[int, Tx]]] = {}
        self.inputs: dict[int, list[tuple[DatasetId, str]]] = {}
        self.datasets: dict[DatasetId, InputDataset] = {}
        self.sinks: dict[tuple[Any, ...], list[int]] = {}
        self.cte_outputs: dict[Any, list[int]] = {}
        self.cte_pending: dict[Any, list[tuple[list[int], tuple[Any, ...]]]] = {}
        self.subquery_results: dict[int, tuple[list[int], list[int]]] = {}
        self.node_subqueries: dict[int, list[dict[str, Any]]] = {}
        self.next_pseudo = -1
        self.nodes = 0
        self.jvm_calls_time = 0.0
        self._table_namespace: str | None = None

    # -- graph -------------------------------------------------------------------------------------------------

    def dep(self, target: int, source: int, tx: Tx) -> None:
        if target != source:
            self.deps.setdefault(target, []).append((source, tx))

    def pseudo(self, sink: tuple[Any, ...]) -> int:
        """A new id standing for a whole-dataset dependency (a filter, a join condition...)."""
        ident = self.next_pseudo
        self.next_pseudo -= 1
        self.sinks.setdefault(sink, []).append(ident)
        return ident

    def describe(self, node: _Node, scope: _Scope) -> str | None:
        """The SQL of a filter, join, sort or grouping (``WHERE ...``), when descriptions are asked for."""
        if not self.descriptions:
            return None
        started = time.perf_counter()
        try:
            jnode = scope.jvm_node(node)
            kind = node.kind
            if kind == "Filter":
                return f"WHERE {jnode.condition().sql()}"
            if kind == "Join":
                condition = jnode.condition()
                text = f"{jnode.joinType().sql()} JOIN"
                return f"{text} ON {condition.get().sql()}" if condition.isDefined() else text
            if kind == "Sort":
                return "SORT BY " + ", ".join(str(item.sql()) for item in _seq(jnode.order()))
            if kind == "Aggregate":
                return "GROUP BY " + ", ".join(str(item.sql()) for item in _seq(jnode.groupingExpressions()))
            if kind == "Deduplicate":
                return "GROUP BY " + ", ".join(str(item.sql()) for item in _seq(jnode.keys()))
            if kind == "Distinct":
                return "GROUP BY " + ", ".join(name for _, name in node.out)
            return kind.upper()
        except Exception as error:
            log.debug("no description for %s: %s", node.kind, error)
            return node.kind.upper()
        finally:
            self.jvm_calls_time += time.perf_counter() - started

    # -- expressions -------------------------------------------------------------------------------------------

    def trace(self, flat: list[dict[str, Any]], target: int, tx: Tx, scope: _Scope, owner: _Node) -> None:
        """Record how the expression ``flat`` feeds ``target`` (ExpressionTraverser, with an explicit stack)."""
        stack: list[tuple[_Node, Tx]] = [(_parse(flat), tx)]
        common: dict[Any, _Node] = {}  # With: CommonExpressionDef by id, for the CommonExpressionRefs
        while stack:
            node, current = stack.pop()
            kind = node.kind
            children = node.children
            if kind == "With":
                definitions = children[1:]
                for definition in definitions:
                    if definition.children:
                        common[_common_id(definition.get("id"))] = definition.children[0]
                if children:
                    stack.append((children[0], current))
                if any(_common_id(item.get("id")) is None for item in definitions):
                    stack.extend((item, current) for item in definitions)  # ids unreadable: every definition
                continue
            if kind == "CommonExpressionRef":
                target_node = common.get(_common_id(node.get("id")))
                if target_node is not None:
                    stack.append((target_node, current))
                continue
            if kind == "AttributeReference":
                named = _named(node)
                if named is not None:
                    self.dep(target, named[0], current)
                continue
            if kind == "OuterReference":
                inner = node.get("e")
                if _is_tree(inner):
                    stack.append((_parse(inner), current))
                continue
            if "plan" in node.data and isinstance(node.get("plan"), list):
                self._subquery(node, target, current, scope, owner)
                # children are the correlation (outer) columns: they select the subquery's rows
                stack.extend((child, merge(current, _indirect(FILTER))) for child in children)
                continue
            if kind in _TRANSPARENT:
                if children:
                    stack.append((children[0], current))
                continue
            if isinstance(node.get("replacement"), int) and len(children) == 1:  # NVL, NULLIF, IFNULL, ...
                stack.append((children[0], current))
                continue
            if kind == "AggregateExpression":
                if children:
                    stack.append((children[0], merge(current, _AGGREGATE)))
                for extra in children[1:]:  # FILTER (WHERE ...)
                    stack.append((extra, merge(current, _indirect(FILTER))))
                continue
            if kind == "CaseWhen":
                branches = node.get("branches")
                count = len(branches) if isinstance(branches, list) else len(children) // 2
                for position, child in enumerate(children):
                    condition = position < 2 * count and position % 2 == 0
                    stack.append((child, merge(current, _indirect(CONDITIONAL) if condition else _TRANSFORM)))
                continue
            if kind in ("If", "NullIfResult"):  # NULLIF(a, b) is NullIfResult(a = b, a) in Spark 4
                for position, child in enumerate(children):
                    stack.append((child, merge(current, _indirect(CONDITIONAL) if position == 0 else _TRANSFORM)))
                continue
            if kind == "Coalesce":
                for child in children:
                    stack.append((child, merge(current, _indirect(CONDITIONAL))))
                    stack.append((child, merge(current, _TRANSFORM)))
                continue
            if kind == "WindowExpression":
                if children and children[0].kind not in _RANK_LIKE:
                    stack.append((children[0], merge(current, _TRANSFORM)))
                for spec in children[1:]:
                    stack.extend((key, merge(current, _indirect(WINDOW))) for key in spec.children)
                continue
            if kind in _OPAQUE or "UDF" in kind or "UDAF" in kind or "UDTF" in kind:
                name = node.get("name") or node.get("udfName") or node.get("funcName") or kind
                opaque: Tx = (DIRECT, TRANSFORMATION, False, (f"{kind} {name}" if name != kind else kind,), None)
                stack.extend((child, merge(current, opaque)) for child in children)
                continue
            step = _MASKED if kind in _MASKING else _TRANSFORM
            stack.extend((child, merge(current, step)) for child in children)

    def _subquery(self, node: _Node, target: int, tx: Tx, scope: _Scope, owner: _Node) -> None:
        """A subquery expression: walk its plan (once) and let its columns and dataset dependencies feed ``target``."""
        key = id(node.data)
        if key not in self.subquery_results:
            sub_sink = ("subquery", key)

            def jvm_root() -> Any:
                return self._jvm_subquery(scope, owner, node.data)

            sub = _Scope(_parse(node.get("plan")), jvm_root, sub_sink)
            self.walk(sub)
            self.subquery_results[key] = ([ident for ident, _ in sub.root.out], list(self.sinks.get(sub_sink, ())))
        outputs, pseudos = self.subquery_results[key]
        value_tx = tx if node.kind == "ScalarSubquery" else merge(tx, _TRANSFORM)
        for ident in outputs:
            self.dep(target, ident, value_tx)
        for ident in pseudos:
            self.dep(target, ident, tx)

    def _jvm_subquery(self, scope: _Scope, owner: _Node, data: dict[str, Any]) -> Any:
        """The JVM plan of a subquery held by plan node ``owner``: ``owner.subqueries()`` in expression order."""
        order = self.node_subqueries.get(id(owner.data))
        if order is None:
            order = []
            for key, value in owner.data.items():
                if key in ("class", "num-children"):
                    continue
                for tree in _trees(value):
                    order.extend(item for item in tree if isinstance(item, dict) and isinstance(item.get("plan"), list))
            self.node_subqueries[id(owner.data)] = order
        jnode = scope.jvm_node(owner)
        subqueries = jnode.subqueries()
        wanted = str(data["plan"][0].get("class")) if data.get("plan") else ""
        position = next((n for n, item in enumerate(order) if item is data), -1)
        if 0 <= position < subqueries.size():
            candidate = subqueries.apply(position)
            if str(candidate.getClass().getName()) == wanted:
                return candidate
        for n in range(subqueries.size()):  # the order did not match: the first subquery of the same shape
            candidate = subqueries.apply(n)
            if str(candidate.getClass().getName()) == wanted:
                return candidate
        raise LineageUnavailable(f"subquery of {owner.kind} not found in the JVM plan")

    # -- plan nodes --------------------------------------------------------------------------------------------

    def walk(self, scope: _Scope) -> None:
        """Visit every node of ``scope`` children first (explicit stack)."""
        scope.root.sink = scope.sink
        order: list[_Node] = []
        stack: list[tuple[_Node, bool]] = [(scope.root, False)]
        leaves = 0
        while stack:
            node, expanded = stack.pop()
            if expanded:
                order.append(node)
                continue
            if not node.children:
                node.leaf_ordinal = leaves
                leaves += 1
            stack.append((node, True))
            for child in reversed(node.children):
                child.sink = ("cte", child.get("id")) if child.kind == "CTERelationDef" else node.sink
                stack.append((child, False))
        self.nodes += len(order)
        for node in order:
            self.visit(node, scope)

    def _attributes(self, value: Any) -> list[tuple[int, str]]:
        found = []
        for tree in _trees(value):
            named = _named(_Node(tree[0]))
            if named is not None:
                found.append(named)
        return found

    def _exprs(self, value: Any) -> list[tuple[list[dict[str, Any]], _Node]]:
        return [(tree, _Node(tree[0])) for tree in _trees(value)]

    def visit(self, node: _Node, scope: _Scope) -> None:
        kind = node.kind
        children = node.children
        first = children[0].out if children else []
        handler = getattr(self, f"_visit_{kind}", None)
        if handler is not None:
            handler(node, scope)
            return
        if kind in _EVAL_PYTHON:
            self._visit_eval_python(node, scope)
            return
        if not children and kind in _RELATIONS:
            self._visit_relation(node, scope)
            return
        declared = self._attributes(node.get("output")) if "output" in node.data else None
        if declared is None:
            node.out = list(first) if len(children) == 1 else [item for child in children for item in child.out]
            return
        node.out = declared
        known = {ident for child in children for ident, _ in child.out}
        fresh = [ident for ident, _ in declared if ident not in known]
        if fresh and children:  # an opaque node (mapInPandas, ...): every new column from every child column
            opaque: Tx = (DIRECT, TRANSFORMATION, False, (kind,), None)
            for ident in fresh:
                for source in known:
                    self.dep(ident, source, opaque)

    def _trace_named(self, value: Any, node: _Node, scope: _Scope) -> list[tuple[int, str]]:
        out = []
        for tree, head in self._exprs(value):
            named = _named(head)
            if named is None:
                continue
            out.append(named)
            self.trace(tree, named[0], _IDENTITY, scope, node)
        return out

    def _visit_Project(self, node: _Node, scope: _Scope) -> None:
        node.out = self._trace_named(node.get("projectList"), node, scope)

    def _visit_Aggregate(self, node: _Node, scope: _Scope) -> None:
        groups = self._exprs(node.get("groupingExpressions"))
        aggregates = self._exprs(node.get("aggregateExpressions"))
        child = node.children[0] if node.children else None
        distinct_union = (child is not None and child.kind == "Union"
                          and all(head.kind == "AttributeReference" for _, head in aggregates))
        if groups and not distinct_union:
            pseudo = self.pseudo(node.sink)
            step = _indirect(GROUP_BY, self.describe(node, scope))
            for tree, _ in groups:
                self.trace(tree, pseudo, step, scope, node)
        node.out = self._trace_named(node.get("aggregateExpressions"), node, scope)

    def _visit_Filter(self, node: _Node, scope: _Scope) -> None:
        node.out = list(node.children[0].out) if node.children else []
        pseudo = self.pseudo(node.sink)
        step = _indirect(FILTER, self.describe(node, scope))
        for tree, _ in self._exprs(node.get("condition")):
            self.trace(tree, pseudo, step, scope, node)

    def _visit_Sort(self, node: _Node, scope: _Scope) -> None:
        node.out = list(node.children[0].out) if node.children else []
        pseudo = self.pseudo(node.sink)
        step = _indirect(SORT, self.describe(node, scope))
        for tree, _ in self._exprs(node.get("order")):
            self.trace(tree, pseudo, step, scope, node)

    def _visit_Join(self, node: _Node, scope: _Scope) -> None:
        left = node.children[0].out if node.children else []
        right = node.children[1].out if len(node.children) > 1 else []
        conditions = self._exprs(node.get("condition"))
        pseudo = self.pseudo(node.sink) if conditions else None
        if pseudo is not None:
            step = _indirect(JOIN, self.describe(node, scope))
            for tree, _ in conditions:
                self.trace(tree, pseudo, step, scope, node)
        join_type = node.get("joinType")
        name = _class_name(join_type)
        if name in ("LeftSemi", "LeftAnti") or name.startswith("LeftSemi") or name.startswith("LeftAnti"):
            node.out = list(left)
        elif name == "ExistenceJoin":
            exists = self._attributes(join_type.get("exists")) if isinstance(join_type, dict) else []
            node.out = list(left) + exists
            for ident, _ in exists:
                if pseudo is not None:
                    self.dep(ident, pseudo, _IDENTITY)
        else:
            node.out = list(left) + list(right)

    def _visit_Window(self, node: _Node, scope: _Scope) -> None:
        base = list(node.children[0].out) if node.children else []
        node.out = base + self._trace_named(node.get("windowExpressions"), node, scope)

    def _visit_Union(self, node: _Node, scope: _Scope) -> None:
        if not node.children:
            return
        node.out = list(node.children[0].out)
        for child in node.children[1:]:
            for position, (ident, _) in enumerate(child.out[:len(node.out)]):
                self.dep(node.out[position][0], ident, _IDENTITY)

    def _set_operation(self, node: _Node, scope: _Scope) -> None:
        node.out = list(node.children[0].out) if node.children else []
        pseudo = self.pseudo(node.sink)
        step = _indirect(JOIN, self.describe(node, scope))
        for child in node.children:
            for ident, _ in child.out:
                self.dep(pseudo, ident, step)

    _visit_Intersect = _set_operation
    _visit_Except = _set_operation

    def _visit_Expand(self, node: _Node, scope: _Scope) -> None:
        node.out = self._attributes(node.get("output"))
        for row in node.get("projections") or ():
            for position, tree in enumerate(_trees(row)):
                if position < len(node.out):
                    self.trace(tree, node.out[position][0], _IDENTITY, scope, node)

    def _visit_Generate(self, node: _Node, scope: _Scope) -> None:
        base = list(node.children[0].out) if node.children else []
        dropped = set(node.get("unrequiredChildIndex") or ())
        generated = self._attributes(node.get("generatorOutput"))
        node.out = [item for position, item in enumerate(base) if position not in dropped] + generated
        generators = _trees(node.get("generator"))
        for ident, _ in generated:
            for tree in generators:
                self.trace(tree, ident, _IDENTITY, scope, node)

    def _group_by(self, node: _Node, scope: _Scope, keys: list[tuple[int, str]]) -> None:
        child = node.children[0] if node.children else None
        if child is not None and child.kind == "Union" and len(keys) >= len(child.out):
            return  # a DISTINCT over a UNION: openlineage-spark records no grouping for it
        if keys:
            pseudo = self.pseudo(node.sink)
            step = _indirect(GROUP_BY, self.describe(node, scope))
            for ident, _ in keys:
                self.dep(pseudo, ident, step)

    def _visit_Distinct(self, node: _Node, scope: _Scope) -> None:
        node.out = list(node.children[0].out) if node.children else []
        self._group_by(node, scope, node.out)

    def _visit_Deduplicate(self, node: _Node, scope: _Scope) -> None:
        node.out = list(node.children[0].out) if node.children else []
        self._group_by(node, scope, self._attributes(node.get("keys")))

    _visit_DeduplicateWithinWatermark = _visit_Deduplicate

    def _visit_WithCTE(self, node: _Node, scope: _Scope) -> None:
        plan = node.get("plan")
        chosen = node.children[plan] if isinstance(plan, int) and plan < len(node.children) else (
            node.children[-1] if node.children else None)
        node.out = list(chosen.out) if chosen is not None else []

    def _visit_CTERelationDef(self, node: _Node, scope: _Scope) -> None:
        node.out = list(node.children[0].out) if node.children else []
        cte = node.get("id")
        self.cte_outputs[cte] = [ident for ident, _ in node.out]
        for outputs, sink in self.cte_pending.pop(cte, []):
            self._link_cte(cte, outputs, sink)

    def _visit_CTERelationRef(self, node: _Node, scope: _Scope) -> None:
        node.out = self._attributes(node.get("output"))
        cte = node.get("cteId")
        outputs = [ident for ident, _ in node.out]
        if cte in self.cte_outputs:
            self._link_cte(cte, outputs, node.sink)
        else:
            self.cte_pending.setdefault(cte, []).append((outputs, node.sink))

    def _link_cte(self, cte: Any, outputs: list[int], sink: tuple[Any, ...]) -> None:
        for position, ident in enumerate(outputs):
            if position < len(self.cte_outputs[cte]):
                self.dep(ident, self.cte_outputs[cte][position], _IDENTITY)
        for pseudo in self.sinks.get(("cte", cte), ()):  # the definition's filters count where it is used
            if pseudo not in self.sinks.setdefault(sink, []):
                self.sinks[sink].append(pseudo)

    def _visit_eval_python(self, node: _Node, scope: _Scope) -> None:
        base = list(node.children[0].out) if node.children else []
        results = self._attributes(node.get("resultAttrs"))
        node.out = base + results
        udfs = _trees(node.get("udfs")) or _trees(node.get("udf"))
        for position, (ident, _) in enumerate(results):
            for tree in udfs[position:position + 1] if len(udfs) == len(results) else udfs:
                self.trace(tree, ident, _IDENTITY, scope, node)

    # -- leaves ------------------------------------------------------------------------------------------------

    def _visit_HiveTableRelation(self, node: _Node, scope: _Scope) -> None:
        node.out = self._attributes(node.get("dataCols")) + self._attributes(node.get("partitionCols"))
        self._bind(node, self._jvm_datasets(node, scope))

    def _visit_relation(self, node: _Node, scope: _Scope) -> None:
        node.out = self._attributes(node.get("output"))
        if node.kind == "InMemoryRelation":
            self._visit_cached(node, scope)
            return
        self._bind(node, self._jvm_datasets(node, scope))

    def _visit_cached(self, node: _Node, scope: _Scope) -> None:
        """``df.cache()``: walk the cached logical plan and link the relation's columns to it by position."""
        started = time.perf_counter()
        jplan = scope.jvm_leaf(node).cacheBuilder().logicalPlan()
        flat, _ = _read_plan(jplan, self.jvm, self.backend)
        self.jvm_calls_time += time.perf_counter() - started
        cached = _Scope(_parse(flat), jplan, ("cached", id(node)))
        self.walk(cached)
        for position, (ident, _) in enumerate(node.out):
            if position < len(cached.root.out):
                self.dep(ident, cached.root.out[position][0], _IDENTITY)
        for pseudo in self.sinks.get(cached.sink, ()):
            self.sinks.setdefault(node.sink, []).append(pseudo)

    def _bind(self, node: _Node, datasets: list[InputDataset]) -> None:
        types = {}
        for tree in _trees(node.get("output")) + _trees(node.get("dataCols")) + _trees(node.get("partitionCols")):
            head = tree[0]
            types[str(head.get("name", ""))] = head.get("dataType")
        fields = tuple(_schema_field(name, types.get(name)) for _, name in node.out)
        for dataset in datasets:
            known = self.datasets.get(dataset.id)
            if known is None or (not known.fields and fields):
                self.datasets[dataset.id] = InputDataset(dataset.namespace, dataset.name, dataset.kind,
                                                         fields or dataset.fields, dataset.symlinks)
            for ident, name in node.out:
                self.inputs.setdefault(ident, []).append((dataset.id, name))

    def table_namespace(self) -> str:
        if self._table_namespace is None:
            self._table_namespace = table_namespace(self.spark) if self.spark is not None else DEFAULT_TABLE_NAMESPACE
        return self._table_namespace

    def _table(self, catalog_table: Any) -> InputDataset:
        identifier = catalog_table.identifier()
        database = identifier.database()
        location = None
        try:
            uri = catalog_table.storage().locationUri()
            location = str(uri.get().toString()) if uri.isDefined() else None
        except Exception:
            pass
        return self._table_dataset(str(identifier.table()), str(database.get()) if database.isDefined() else None,
                                   location)

    def _table_dataset(self, table: str, database: str | None, location: str | None) -> InputDataset:
        symlinks: tuple[tuple[str, str, str], ...] = ()
        if location:
            path = location_dataset(location)
            symlinks = ((path.namespace, path.name, "LOCATION"),)
        return InputDataset(self.table_namespace(), f"{database}.{table}" if database else table, "table", (),
                            symlinks)

    def _jvm_datasets(self, node: _Node, scope: _Scope) -> list[InputDataset]:
        started = time.perf_counter()
        try:
            return self._resolve(node, scope)
        finally:
            self.jvm_calls_time += time.perf_counter() - started

    def _resolve(self, node: _Node, scope: _Scope) -> list[InputDataset]:
        table = node.get("falconTable")  # what the compiled dumper already read
        if isinstance(table, dict) and table.get("table"):
            return [self._table_dataset(str(table["table"]), table.get("database"), table.get("location"))]
        roots = node.get("falconRootPaths")
        if isinstance(roots, list):
            found = []
            for root in roots:
                path = location_dataset(str(root))
                found.append(InputDataset(path.namespace, path.name, "file"))
            return found
        leaf = scope.jvm_leaf(node)
        if node.kind == "HiveTableRelation":
            return [self._table(leaf.tableMeta())]
        if node.kind in ("DataSourceV2Relation", "DataSourceV2ScanRelation"):
            relation = leaf.relation() if node.kind == "DataSourceV2ScanRelation" else leaf
            identifier = relation.identifier()
            catalog = relation.catalog()
            name = str(identifier.get().toString()) if identifier.isDefined() else str(relation.table().name())
            namespace = str(catalog.get().name()) if catalog.isDefined() else "spark"
            if namespace == "spark_catalog":
                namespace = self.table_namespace()
            return [InputDataset(namespace, name, "table")]
        catalog_table = leaf.catalogTable()
        if catalog_table.isDefined():
            return [self._table(catalog_table.get())]
        relation = leaf.relation()
        relation_class = str(relation.getClass().getName())
        if relation_class.endswith("HadoopFsRelation"):
            roots = relation.location().rootPaths()
            found = []
            for position in range(roots.size()):
                path = location_dataset(str(roots.apply(position).toString()))
                found.append(InputDataset(path.namespace, path.name, "file"))
            return found
        if relation_class.endswith("JDBCRelation"):
            options = relation.jdbcOptions()
            dataset = jdbc_dataset(str(options.url()), str(options.tableOrQuery()))
            return [InputDataset(dataset.namespace, dataset.name, "jdbc")]
        log.debug("relation %s has no dataset identity: no input recorded", relation_class)
        return []

    # -- result ------------------------------------------------------------------------------------------------

    def closure(self, start: int, memo: dict[int, dict[tuple[DatasetId, str], set[Tx]]]
                ) -> dict[tuple[DatasetId, str], set[Tx]]:
        """The input fields ``start`` depends on, with the merged transformations of every path (no recursion)."""
        if start in memo:
            return memo[start]
        active: set[int] = set()
        stack: list[tuple[int, bool]] = [(start, False)]
        while stack:
            ident, expanded = stack.pop()
            if ident in memo:
                continue
            if not expanded:
                if ident in active:
                    continue
                active.add(ident)
                stack.append((ident, True))
                for source, _ in self.deps.get(ident, ()):
                    if source not in memo and source not in active:
                        stack.append((source, False))
                continue
            result: dict[tuple[DatasetId, str], set[Tx]] = {}
            for column in self.inputs.get(ident, ()):
                result.setdefault(column, set()).add(_IDENTITY)
            for source, tx in self.deps.get(ident, ()):
                upstream = memo.get(source)
                if upstream is None:  # a cycle (recursive CTE): that edge adds nothing
                    continue
                for column, transformations in upstream.items():
                    bucket = result.setdefault(column, set())
                    for inner in transformations:
                        bucket.add(merge(tx, inner))
            memo[ident] = result
            active.discard(ident)
        return memo[start]


def _description(tx: Tx) -> str | None:
    parts = [f"opaque: {', '.join(tx[3])}"] if tx[3] else []
    if tx[4]:
        parts.append(tx[4])
    return "; ".join(parts) or None


def _seq(value: Any) -> list[Any]:
    return [value.apply(position) for position in range(value.size())]


def _input_fields(found: Mapping[tuple[DatasetId, str], set[Tx]]) -> tuple[InputField, ...]:
    items = []
    for (dataset, column), transformations in found.items():
        converted = sorted({Transformation(tx[0], tx[1], tx[2], _description(tx)) for tx in transformations},
                           key=_transformation_key)
        items.append(InputField(dataset.namespace, dataset.name, column, tuple(converted)))
    return tuple(sorted(items, key=_field_key))


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
    flat, schema_json = _read_plan(jplan, jvm, backend)
    dumped = time.perf_counter()
    walker = _Walker(jvm, spark, backend, descriptions)
    scope = _Scope(_parse(flat), jplan, ("main",))
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
    fields = {name: _input_fields(found) for name, found in per_field.items()}
    finished = time.perf_counter()
    stats = {"seconds": finished - started, "dump_seconds": dumped - started, "nodes": float(walker.nodes),
             "jvm_seconds": walker.jvm_calls_time}
    return ColumnLineage(fields, _input_fields(dataset), tuple(walker.datasets.values()), tuple(names), schema,
                         plan, stats)


def input_datasets(df: Any, *, plan: str = "analyzed") -> list[InputDataset]:
    """The datasets ``df`` reads (files, tables), each with the columns its relation exposes."""
    return list(column_lineage(df, plan=plan).inputs)


def plan_size(df: Any, *, plan: str = "analyzed") -> int:
    """The number of plan nodes (operators, subqueries and cached plans excluded) of ``df``."""
    _, jvm = _session_and_jvm(df)
    return sum(1 for item in dump_plan(_jvm_plan(df, plan), jvm) if isinstance(item, dict))
