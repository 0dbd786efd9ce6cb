"""Column lineage of a PySpark DataFrame, computed from its Catalyst plan through py4j (no openlineage-spark jar).

``column_lineage(df)`` walks the plan of ``df`` (the analyzed plan by default) and returns, for every output column,
the input fields it comes from - ``(namespace, dataset name, field)`` - each with its transformations, plus the
dataset-level dependencies (filters, joins, group-by, sort) of OpenLineage's ``ColumnLineageDatasetFacet`` 1-2-0.
``input_datasets(df)`` lists the datasets the plan reads. Only pyspark, the standard library and
:mod:`falcon_airflow.core` are used, so this package ships with a job in the zip of ``--py-files``.

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

The modules: ``model`` the result (``ColumnLineage`` and its parts), ``naming`` the namespace of catalog tables,
``dump`` the plan's serialisation in the JVM (``FalconAirflowPlanDump.java``, shipped beside it), ``tree`` the
parsed nodes, ``walker`` the operator and expression rules above, ``lineage`` the entry points
(:func:`~falcon_airflow.jobs.lineage_plan.lineage.column_lineage`, ``input_datasets``, ``plan_size``).
"""
