"""The parsed plan and expression trees of the flat JSON, and the scope of one plan walked."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from falcon_airflow.jobs.lineage_plan.model import LineageUnavailable


class Node:
    """A plan or expression node of the flat JSON: ``kind`` is the simple class name."""

    __slots__ = ("children", "data", "index", "kind", "leaf_ordinal", "out", "parent", "sink")

    def __init__(self, data: dict[str, Any]) -> None:
        self.data = data
        self.kind = str(data.get("class", "")).rsplit(".", 1)[-1]
        self.children: list[Node] = []
        self.parent: Node | None = None
        self.index = 0
        self.out: list[tuple[int, str]] = []
        self.sink: tuple[Any, ...] = ()
        self.leaf_ordinal = -1

    def get(self, key: str, default: Any = None) -> Any:
        return self.data.get(key, default)

    def path(self) -> tuple[int, ...]:
        steps: list[int] = []
        node: Node | None = self
        while node is not None and node.parent is not None:
            steps.append(node.index)
            node = node.parent
        return tuple(reversed(steps))


def parse_tree(flat: Sequence[Any]) -> Node:
    """The tree of a flat pre-order list (each element has ``num-children``), without recursion."""
    root: Node | None = None
    stack: list[tuple[Node, int]] = []
    for data in flat:
        if not isinstance(data, dict):
            raise LineageUnavailable(f"unexpected plan element {data!r:.80}")
        node = Node(data)
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


def is_tree(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and isinstance(value[0], dict) and "class" in value[0]


def trees(value: Any) -> list[list[dict[str, Any]]]:
    """The flat expression trees in a field value: one tree, a Seq of them, a Seq of Seqs (Expand)."""
    found: list[list[dict[str, Any]]] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if is_tree(item):
            found.append(item)
        elif isinstance(item, list):
            stack.extend(reversed(item))
    return found


def named_id(node: Node) -> tuple[int, str] | None:
    """(exprId, name) of a named expression (Alias, AttributeReference, ...)."""
    expr_id = node.get("exprId")
    if isinstance(expr_id, dict) and "id" in expr_id:
        return int(expr_id["id"]), str(node.get("name", ""))
    return None


def common_id(value: Any) -> Any:
    """The key of a ``CommonExpressionId`` (``{"id": n, "canonicalized": b}``), or None when unreadable."""
    if isinstance(value, dict) and "id" in value:
        return (value.get("id"), value.get("canonicalized"))
    return None


def class_name(value: Any) -> str:
    if isinstance(value, dict):
        name = value.get("object") or value.get("product-class") or value.get("class") or ""
        return str(name).rsplit(".", 1)[-1].rstrip("$")
    return str(value or "")


def seq(value: Any) -> list[Any]:
    return [value.apply(position) for position in range(value.size())]


class Scope:
    """One plan walked: the main plan, a subquery's, a cached plan's. ``jvm_root`` gives its JVM object lazily."""

    def __init__(self, root: Node, jvm_root: Any, sink: tuple[Any, ...]) -> None:
        self.root = root
        self._jvm_root = jvm_root
        self.sink = sink
        self._jvm_nodes: dict[tuple[int, ...], Any] = {}
        self._leaves: Any = None

    def jvm_root(self) -> Any:
        if callable(self._jvm_root):
            self._jvm_root = self._jvm_root()
        return self._jvm_root

    def jvm_node(self, node: Node) -> Any:
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

    def jvm_leaf(self, node: Node) -> Any:
        """A leaf's JVM object: ``collectLeaves()`` lists leaves in the same order as the JSON (pre-order)."""
        if self._leaves is None:
            self._leaves = self.jvm_root().collectLeaves()
        if node.leaf_ordinal < 0 or node.leaf_ordinal >= self._leaves.size():
            return self.jvm_node(node)
        candidate = self._leaves.apply(node.leaf_ordinal)
        if str(candidate.getClass().getName()) != node.get("class"):
            return self.jvm_node(node)
        return candidate
