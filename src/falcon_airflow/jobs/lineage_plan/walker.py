"""The walker: the rules of every plan operator and expression (see the package documentation), the dependency
graph they build and its transitive closure."""

from __future__ import annotations

import functools
import logging
import time
from collections.abc import Mapping
from typing import Any

from falcon_airflow.core.lineage import (
    AGGREGATION,
    CONDITIONAL,
    DIRECT,
    FILTER,
    GROUP_BY,
    IDENTITY,
    INDIRECT,
    JOIN,
    SORT,
    TRANSFORMATION,
    WINDOW,
    outer_wins,
)
from falcon_airflow.core.naming import DatasetId, jdbc_dataset, location_dataset
from falcon_airflow.jobs.lineage_plan.dump import read_plan
from falcon_airflow.jobs.lineage_plan.model import (
    InputDataset,
    InputField,
    LineageUnavailable,
    Transformation,
    field_key,
    schema_field,
    transformation_key,
)
from falcon_airflow.jobs.lineage_plan.naming import DEFAULT_TABLE_NAMESPACE, table_namespace
from falcon_airflow.jobs.lineage_plan.tree import (
    Node,
    Scope,
    class_name,
    common_id,
    is_tree,
    named_id,
    parse_tree,
    seq,
    trees,
)

log = logging.getLogger(__package__)  # one logger for the package, as when it was one module


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


class Walker:
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

    def describe(self, node: Node, scope: Scope) -> str | None:
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
                return "SORT BY " + ", ".join(str(item.sql()) for item in seq(jnode.order()))
            if kind == "Aggregate":
                return "GROUP BY " + ", ".join(str(item.sql()) for item in seq(jnode.groupingExpressions()))
            if kind == "Deduplicate":
                return "GROUP BY " + ", ".join(str(item.sql()) for item in seq(jnode.keys()))
            if kind == "Distinct":
                return "GROUP BY " + ", ".join(name for _, name in node.out)
            return kind.upper()
        except Exception as error:
            log.debug("no description for %s: %s", node.kind, error)
            return node.kind.upper()
        finally:
            self.jvm_calls_time += time.perf_counter() - started

    # -- expressions -------------------------------------------------------------------------------------------

    def trace(self, flat: list[dict[str, Any]], target: int, tx: Tx, scope: Scope, owner: Node) -> None:
        """Record how the expression ``flat`` feeds ``target`` (ExpressionTraverser, with an explicit stack)."""
        stack: list[tuple[Node, Tx]] = [(parse_tree(flat), tx)]
        common: dict[Any, Node] = {}  # With: CommonExpressionDef by id, for the CommonExpressionRefs
        while stack:
            node, current = stack.pop()
            kind = node.kind
            children = node.children
            if kind == "With":
                definitions = children[1:]
                for definition in definitions:
                    if definition.children:
                        common[common_id(definition.get("id"))] = definition.children[0]
                if children:
                    stack.append((children[0], current))
                if any(common_id(item.get("id")) is None for item in definitions):
                    stack.extend((item, current) for item in definitions)  # ids unreadable: every definition
                continue
            if kind == "CommonExpressionRef":
                target_node = common.get(common_id(node.get("id")))
                if target_node is not None:
                    stack.append((target_node, current))
                continue
            if kind == "AttributeReference":
                named = named_id(node)
                if named is not None:
                    self.dep(target, named[0], current)
                continue
            if kind == "OuterReference":
                inner = node.get("e")
                if is_tree(inner):
                    stack.append((parse_tree(inner), current))
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

    def _subquery(self, node: Node, target: int, tx: Tx, scope: Scope, owner: Node) -> None:
        """A subquery expression: walk its plan (once) and let its columns and dataset dependencies feed ``target``."""
        key = id(node.data)
        if key not in self.subquery_results:
            sub_sink = ("subquery", key)

            def jvm_root() -> Any:
                return self._jvm_subquery(scope, owner, node.data)

            sub = Scope(parse_tree(node.get("plan")), jvm_root, sub_sink)
            self.walk(sub)
            self.subquery_results[key] = ([ident for ident, _ in sub.root.out], list(self.sinks.get(sub_sink, ())))
        outputs, pseudos = self.subquery_results[key]
        value_tx = tx if node.kind == "ScalarSubquery" else merge(tx, _TRANSFORM)
        for ident in outputs:
            self.dep(target, ident, value_tx)
        for ident in pseudos:
            self.dep(target, ident, tx)

    def _jvm_subquery(self, scope: Scope, owner: Node, data: dict[str, Any]) -> Any:
        """The JVM plan of a subquery held by plan node ``owner``: ``owner.subqueries()`` in expression order."""
        order = self.node_subqueries.get(id(owner.data))
        if order is None:
            order = []
            for key, value in owner.data.items():
                if key in ("class", "num-children"):
                    continue
                for tree in trees(value):
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

    def walk(self, scope: Scope) -> None:
        """Visit every node of ``scope`` children first (explicit stack)."""
        scope.root.sink = scope.sink
        order: list[Node] = []
        stack: list[tuple[Node, bool]] = [(scope.root, False)]
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
        for tree in trees(value):
            named = named_id(Node(tree[0]))
            if named is not None:
                found.append(named)
        return found

    def _exprs(self, value: Any) -> list[tuple[list[dict[str, Any]], Node]]:
        return [(tree, Node(tree[0])) for tree in trees(value)]

    def visit(self, node: Node, scope: Scope) -> None:
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

    def _trace_named(self, value: Any, node: Node, scope: Scope) -> list[tuple[int, str]]:
        out = []
        for tree, head in self._exprs(value):
            named = named_id(head)
            if named is None:
                continue
            out.append(named)
            self.trace(tree, named[0], _IDENTITY, scope, node)
        return out

    def _visit_Project(self, node: Node, scope: Scope) -> None:
        node.out = self._trace_named(node.get("projectList"), node, scope)

    def _visit_Aggregate(self, node: Node, scope: Scope) -> None:
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

    def _visit_Filter(self, node: Node, scope: Scope) -> None:
        node.out = list(node.children[0].out) if node.children else []
        pseudo = self.pseudo(node.sink)
        step = _indirect(FILTER, self.describe(node, scope))
        for tree, _ in self._exprs(node.get("condition")):
            self.trace(tree, pseudo, step, scope, node)

    def _visit_Sort(self, node: Node, scope: Scope) -> None:
        node.out = list(node.children[0].out) if node.children else []
        pseudo = self.pseudo(node.sink)
        step = _indirect(SORT, self.describe(node, scope))
        for tree, _ in self._exprs(node.get("order")):
            self.trace(tree, pseudo, step, scope, node)

    def _visit_Join(self, node: Node, scope: Scope) -> None:
        left = node.children[0].out if node.children else []
        right = node.children[1].out if len(node.children) > 1 else []
        conditions = self._exprs(node.get("condition"))
        pseudo = self.pseudo(node.sink) if conditions else None
        if pseudo is not None:
            step = _indirect(JOIN, self.describe(node, scope))
            for tree, _ in conditions:
                self.trace(tree, pseudo, step, scope, node)
        join_type = node.get("joinType")
        name = class_name(join_type)
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

    def _visit_Window(self, node: Node, scope: Scope) -> None:
        base = list(node.children[0].out) if node.children else []
        node.out = base + self._trace_named(node.get("windowExpressions"), node, scope)

    def _visit_Union(self, node: Node, scope: Scope) -> None:
        if not node.children:
            return
        node.out = list(node.children[0].out)
        for child in node.children[1:]:
            for position, (ident, _) in enumerate(child.out[:len(node.out)]):
                self.dep(node.out[position][0], ident, _IDENTITY)

    def _set_operation(self, node: Node, scope: Scope) -> None:
        node.out = list(node.children[0].out) if node.children else []
        pseudo = self.pseudo(node.sink)
        step = _indirect(JOIN, self.describe(node, scope))
        for child in node.children:
            for ident, _ in child.out:
                self.dep(pseudo, ident, step)

    _visit_Intersect = _set_operation
    _visit_Except = _set_operation

    def _visit_Expand(self, node: Node, scope: Scope) -> None:
        node.out = self._attributes(node.get("output"))
        for row in node.get("projections") or ():
            for position, tree in enumerate(trees(row)):
                if position < len(node.out):
                    self.trace(tree, node.out[position][0], _IDENTITY, scope, node)

    def _visit_Generate(self, node: Node, scope: Scope) -> None:
        base = list(node.children[0].out) if node.children else []
        dropped = set(node.get("unrequiredChildIndex") or ())
        generated = self._attributes(node.get("generatorOutput"))
        node.out = [item for position, item in enumerate(base) if position not in dropped] + generated
        generators = trees(node.get("generator"))
        for ident, _ in generated:
            for tree in generators:
                self.trace(tree, ident, _IDENTITY, scope, node)

    def _group_by(self, node: Node, scope: Scope, keys: list[tuple[int, str]]) -> None:
        child = node.children[0] if node.children else None
        if child is not None and child.kind == "Union" and len(keys) >= len(child.out):
            return  # a DISTINCT over a UNION: openlineage-spark records no grouping for it
        if keys:
            pseudo = self.pseudo(node.sink)
            step = _indirect(GROUP_BY, self.describe(node, scope))
            for ident, _ in keys:
                self.dep(pseudo, ident, step)

    def _visit_Distinct(self, node: Node, scope: Scope) -> None:
        node.out = list(node.children[0].out) if node.children else []
        self._group_by(node, scope, node.out)

    def _visit_Deduplicate(self, node: Node, scope: Scope) -> None:
        node.out = list(node.children[0].out) if node.children else []
        self._group_by(node, scope, self._attributes(node.get("keys")))

    _visit_DeduplicateWithinWatermark = _visit_Deduplicate

    def _visit_WithCTE(self, node: Node, scope: Scope) -> None:
        plan = node.get("plan")
        chosen = node.children[plan] if isinstance(plan, int) and plan < len(node.children) else (
            node.children[-1] if node.children else None)
        node.out = list(chosen.out) if chosen is not None else []

    def _visit_CTERelationDef(self, node: Node, scope: Scope) -> None:
        node.out = list(node.children[0].out) if node.children else []
        cte = node.get("id")
        self.cte_outputs[cte] = [ident for ident, _ in node.out]
        for outputs, sink in self.cte_pending.pop(cte, []):
            self._link_cte(cte, outputs, sink)

    def _visit_CTERelationRef(self, node: Node, scope: Scope) -> None:
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

    def _visit_eval_python(self, node: Node, scope: Scope) -> None:
        base = list(node.children[0].out) if node.children else []
        results = self._attributes(node.get("resultAttrs"))
        node.out = base + results
        udfs = trees(node.get("udfs")) or trees(node.get("udf"))
        for position, (ident, _) in enumerate(results):
            for tree in udfs[position:position + 1] if len(udfs) == len(results) else udfs:
                self.trace(tree, ident, _IDENTITY, scope, node)

    # -- leaves ------------------------------------------------------------------------------------------------

    def _visit_HiveTableRelation(self, node: Node, scope: Scope) -> None:
        node.out = self._attributes(node.get("dataCols")) + self._attributes(node.get("partitionCols"))
        self._bind(node, self._jvm_datasets(node, scope))

    def _visit_relation(self, node: Node, scope: Scope) -> None:
        node.out = self._attributes(node.get("output"))
        if node.kind == "InMemoryRelation":
            self._visit_cached(node, scope)
            return
        self._bind(node, self._jvm_datasets(node, scope))

    def _visit_cached(self, node: Node, scope: Scope) -> None:
        """``df.cache()``: walk the cached logical plan and link the relation's columns to it by position."""
        started = time.perf_counter()
        jplan = scope.jvm_leaf(node).cacheBuilder().logicalPlan()
        flat, _ = read_plan(jplan, self.jvm, self.backend)
        self.jvm_calls_time += time.perf_counter() - started
        cached = Scope(parse_tree(flat), jplan, ("cached", id(node)))
        self.walk(cached)
        for position, (ident, _) in enumerate(node.out):
            if position < len(cached.root.out):
                self.dep(ident, cached.root.out[position][0], _IDENTITY)
        for pseudo in self.sinks.get(cached.sink, ()):
            self.sinks.setdefault(node.sink, []).append(pseudo)

    def _bind(self, node: Node, datasets: list[InputDataset]) -> None:
        types = {}
        for tree in trees(node.get("output")) + trees(node.get("dataCols")) + trees(node.get("partitionCols")):
            head = tree[0]
            types[str(head.get("name", ""))] = head.get("dataType")
        fields = tuple(schema_field(name, types.get(name)) for _, name in node.out)
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

    def _jvm_datasets(self, node: Node, scope: Scope) -> list[InputDataset]:
        started = time.perf_counter()
        try:
            return self._resolve(node, scope)
        finally:
            self.jvm_calls_time += time.perf_counter() - started

    def _resolve(self, node: Node, scope: Scope) -> list[InputDataset]:
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


def input_fields(found: Mapping[tuple[DatasetId, str], set[Tx]]) -> tuple[InputField, ...]:
    items = []
    for (dataset, column), transformations in found.items():
        converted = sorted({Transformation(tx[0], tx[1], tx[2], _description(tx)) for tx in transformations},
                           key=transformation_key)
        items.append(InputField(dataset.namespace, dataset.name, column, tuple(converted)))
    return tuple(sorted(items, key=field_key))
