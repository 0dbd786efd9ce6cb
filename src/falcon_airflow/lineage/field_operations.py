"""Declared field lineage, CDAP style: record read / transform / write operations, get OpenLineage facets.

For code that is not a DataFrame plan (or whose plan is opaque), a job declares what it does to fields, the way
CDAP's ``LineageRecorder`` takes ``FieldReadOperation`` / ``FieldTransformOperation`` / ``FieldWriteOperation``::

    ops = FieldOperations()
    users = EndPoint("file", "/data/users")
    ops.read("read", users, ["id", "first", "last", "email", "address"], "read the users")
    ops.transform("full_name", [("read", "first"), ("read", "last")], ["name"], "concat(first, ' ', last)")
    ops.transform("hash_email", [("read", "email")], ["email_hash"], "sha256(email)", masking=True)
    ops.drop("drop_address", [("read", "address")], "address is not kept")
    ops.condition("active_only", [("read", "id")], "id > 0", subtype="FILTER")
    ops.write("write", EndPoint("file", "/data/contacts"),
              [("read", "id"), ("full_name", "name"), ("hash_email", "email_hash")])
    facet = ops.column_lineage_facet(EndPoint("file", "/data/contacts"))   # OpenLineage columnLineage 1-2-0
    chain = ops.operations_facet(EndPoint("file", "/data/contacts"))       # CDAP's /operations, as a facet

Rules (CDAP's ``FieldLineageInfo``): operation names are unique; an input field is ``(origin, field)`` where
``origin`` names the operation that produced the field (a read's fields come from its dataset); a transform with
no outputs is a **drop** (the fields it consumed were read and deliberately not kept); a write's destination
field is the name of the field it writes. :meth:`FieldOperations.problems` lists what breaks these rules (no read,
no write, unknown origin, a field its origin does not produce, a cycle).

Typing (beyond CDAP, which has free text only): a transform has a ``kind`` - ``IDENTITY``, ``TRANSFORMATION``
(default) or ``AGGREGATION`` (DIRECT), or an INDIRECT subtype (``CONDITIONAL``, ``WINDOW``...) - and ``masking``;
along a path kinds merge as OpenLineage's do (an INDIRECT step wins, else the lowest of AGGREGATION <
TRANSFORMATION < IDENTITY; masking is or-ed). A **condition** (a filter, a join key, a grouping) affects whole
destinations: it lands in the facet's dataset-level ``dataset`` list with its INDIRECT subtype.

Nothing here imports Spark, Airflow or openlineage-python: the facets are plain dicts.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from falcon_airflow import __version__
from falcon_airflow.core.lineage import (
    COLUMN_LINEAGE_SCHEMA_URL,
    DIRECT_KINDS,
    INDIRECT_KINDS,
    PRODUCER,
    merge_kind,
)

FACET_KEY = "falcon_fieldOperations"
"""Where the operation chain goes in a dataset's ``facets`` (a custom facet: prefixed, as the spec asks)."""
FACET_SCHEMA_URL = (
    f"https://pypi.org/project/falcon-airflow/{__version__}/schemas/FieldOperationsDatasetFacet.json"
    "#/$defs/FieldOperationsDatasetFacet")

READ = "READ"
TRANSFORM = "TRANSFORM"
WRITE = "WRITE"
CONDITION = "CONDITION"

Tx = tuple[str, str, bool]
"""(type, subtype, masking)."""


@dataclass(frozen=True, order=True)
class EndPoint:
    """A dataset, named as OpenLineage names datasets."""

    namespace: str
    name: str

    def as_dict(self) -> dict[str, str]:
        return {"namespace": self.namespace, "name": self.name}


@dataclass(frozen=True, order=True)
class FieldRef:
    """An input field: ``field`` as produced by the operation named ``origin``."""

    origin: str
    field: str

    def as_dict(self) -> dict[str, str]:
        return {"origin": self.origin, "field": self.field}


@dataclass(frozen=True)
class Operation:
    """One recorded operation. ``endpoint`` is the source of a READ, the destination of a WRITE; ``targets`` the
    destinations a CONDITION applies to (empty: all of them)."""

    name: str
    type: str
    description: str = ""
    inputs: tuple[FieldRef, ...] = ()
    outputs: tuple[str, ...] = ()
    endpoint: EndPoint | None = None
    kind: str = "TRANSFORMATION"
    masking: bool = False
    targets: tuple[EndPoint, ...] = ()

    @property
    def is_drop(self) -> bool:
        return self.type == TRANSFORM and not self.outputs

    @property
    def step(self) -> Tx:
        kind = self.kind.upper()
        return ("INDIRECT" if kind in INDIRECT_KINDS else "DIRECT", kind, self.masking)

    def as_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"name": self.name, "type": "DROP" if self.is_drop else self.type,
                                "description": self.description}
        if self.type == READ and self.endpoint is not None:
            data["source"] = self.endpoint.as_dict()
        if self.type == WRITE and self.endpoint is not None:
            data["destination"] = self.endpoint.as_dict()
        if self.inputs:
            data["inputs"] = [item.as_dict() for item in self.inputs]
        if self.outputs:
            data["outputs"] = list(self.outputs)
        if self.type in (TRANSFORM, CONDITION) and not self.is_drop:
            data["transformation"] = {"type": self.step[0], "subtype": self.step[1], "masking": self.masking}
        if self.targets:
            data["appliesTo"] = [target.as_dict() for target in self.targets]
        return data


def merge(outer: Tx, inner: Tx) -> Tx:
    """Two steps of one path (``outer`` nearer the destination), as OpenLineage merges them."""
    kind = merge_kind((outer[0], outer[1]), (inner[0], inner[1]))
    return (kind[0], kind[1], outer[2] or inner[2])


_IDENTITY: Tx = ("DIRECT", "IDENTITY", False)

Source = tuple[EndPoint, str, Tx, tuple[str, ...]]
"""(dataset, field, merged transformation, names of the transform operations on the path)."""


def _ref(value: FieldRef | tuple[str, str] | Sequence[str]) -> FieldRef:
    if isinstance(value, FieldRef):
        return value
    origin, name = value
    return FieldRef(str(origin), str(name))


def _endpoint(value: EndPoint | tuple[str, str] | Sequence[str]) -> EndPoint:
    if isinstance(value, EndPoint):
        return value
    namespace, name = value
    return EndPoint(str(namespace), str(name))


@dataclass
class FieldOperations:
    """The recorder: operations in the order they were recorded."""

    operations: list[Operation] = field(default_factory=list)

    # -- recording ---------------------------------------------------------------------------------------------

    def _add(self, operation: Operation) -> Operation:
        if any(known.name == operation.name for known in self.operations):
            raise ValueError(f"operation {operation.name!r} is already recorded: names must be unique")
        self.operations.append(operation)
        return operation

    def read(self, name: str, source: EndPoint | tuple[str, str], fields: Iterable[str],
             description: str = "") -> Operation:
        """``fields`` read from dataset ``source``."""
        return self._add(Operation(name, READ, description, (), tuple(fields), _endpoint(source), "IDENTITY"))

    def transform(self, name: str, inputs: Iterable[FieldRef | tuple[str, str]], outputs: Iterable[str],
                  description: str = "", *, kind: str = "TRANSFORMATION", masking: bool = False) -> Operation:
        """``outputs`` computed from ``inputs`` (each output from all inputs); no outputs is a drop."""
        kind = kind.upper()
        if kind not in DIRECT_KINDS + INDIRECT_KINDS:
            raise ValueError(f"kind {kind!r} is not one of {', '.join(DIRECT_KINDS + INDIRECT_KINDS)}")
        return self._add(Operation(name, TRANSFORM, description, tuple(map(_ref, inputs)), tuple(outputs), None,
                                   kind, masking))

    def drop(self, name: str, inputs: Iterable[FieldRef | tuple[str, str]], description: str = "") -> Operation:
        """``inputs`` were read and are deliberately not written (a transform without outputs)."""
        return self._add(Operation(name, TRANSFORM, description, tuple(map(_ref, inputs)), ()))

    def condition(self, name: str, inputs: Iterable[FieldRef | tuple[str, str]], description: str = "", *,
                  subtype: str = "FILTER", applies_to: Iterable[EndPoint | tuple[str, str]] = ()) -> Operation:
        """``inputs`` decide which records reach the destinations (``applies_to``; default all): a filter, a join
        key, a grouping, a sort - the facet's dataset-level dependencies."""
        subtype = subtype.upper()
        if subtype not in INDIRECT_KINDS:
            raise ValueError(f"subtype {subtype!r} is not one of {', '.join(INDIRECT_KINDS)}")
        return self._add(Operation(name, CONDITION, description, tuple(map(_ref, inputs)), (), None, subtype,
                                   False, tuple(map(_endpoint, applies_to))))

    def write(self, name: str, destination: EndPoint | tuple[str, str],
              inputs: Iterable[FieldRef | tuple[str, str]], description: str = "") -> Operation:
        """``inputs`` written to ``destination``, each under its own field name."""
        return self._add(Operation(name, WRITE, description, tuple(map(_ref, inputs)), (), _endpoint(destination),
                                   "IDENTITY"))

    # -- checks ------------------------------------------------------------------------------------------------

    def by_name(self) -> dict[str, Operation]:
        return {operation.name: operation for operation in self.operations}

    def problems(self) -> list[str]:
        """What breaks CDAP's rules, one message per problem (empty when the record is valid)."""
        found: list[str] = []
        names = self.by_name()
        if not any(op.type == READ for op in self.operations):
            found.append("no READ operation")
        if not any(op.type == WRITE for op in self.operations):
            found.append("no WRITE operation")
        for operation in self.operations:
            for ref in operation.inputs:
                origin = names.get(ref.origin)
                if origin is None:
                    found.append(f"{operation.name}: input {ref.field!r} comes from unknown operation {ref.origin!r}")
                elif origin.type in (WRITE, CONDITION) or origin.is_drop:
                    found.append(f"{operation.name}: {ref.origin!r} ({origin.type}) produces no fields")
                elif ref.field not in origin.outputs:
                    found.append(f"{operation.name}: {ref.origin!r} does not produce field {ref.field!r}")
            if operation.type in (TRANSFORM, WRITE, CONDITION) and not operation.inputs:
                found.append(f"{operation.name}: a {operation.type} needs input fields")
        found.extend(f"cycle through operation {name!r}" for name in self._cycles(names))
        return found

    def _cycles(self, names: dict[str, Operation]) -> list[str]:
        state: dict[str, int] = {}  # 1 on the stack, 2 done
        cyclic: list[str] = []
        for start in names:
            if start in state:
                continue
            stack: list[tuple[str, bool]] = [(start, False)]
            while stack:
                name, leaving = stack.pop()
                if leaving:
                    state[name] = 2
                    continue
                if state.get(name) == 2:
                    continue
                state[name] = 1
                stack.append((name, True))
                for ref in names[name].inputs:
                    if ref.origin not in names:
                        continue
                    if state.get(ref.origin) == 1:
                        cyclic.append(ref.origin)
                    elif ref.origin not in state:
                        stack.append((ref.origin, False))
        return sorted(set(cyclic))

    def validate(self) -> None:
        """Raise ValueError listing every problem."""
        problems = self.problems()
        if problems:
            raise ValueError("invalid field operations: " + "; ".join(problems))

    # -- lineage -----------------------------------------------------------------------------------------------

    def destinations(self) -> list[EndPoint]:
        return sorted({op.endpoint for op in self.operations if op.type == WRITE and op.endpoint is not None})

    def sources(self, ref: FieldRef) -> list[Source]:
        """The dataset fields ``ref`` comes from, each with the transformation of its path (no recursion)."""
        names = self.by_name()
        found: set[Source] = set()
        stack: list[tuple[FieldRef, Tx, tuple[str, ...], frozenset[str]]] = [(ref, _IDENTITY, (), frozenset())]
        while stack:
            current, tx, path, seen = stack.pop()
            origin = names.get(current.origin)
            if origin is None or current.origin in seen:
                continue
            if origin.type == READ and origin.endpoint is not None:
                if current.field in origin.outputs:
                    found.add((origin.endpoint, current.field, tx, path))
                continue
            if origin.type != TRANSFORM or current.field not in origin.outputs:
                continue
            step = merge(tx, origin.step)
            for upstream in origin.inputs:
                stack.append((upstream, step, (origin.name, *path), seen | {current.origin}))
        return sorted(found)

    def lineage(self, destination: EndPoint | tuple[str, str]) -> dict[str, list[Source]]:
        """Destination field -> its sources, for every write to ``destination``."""
        target = _endpoint(destination)
        result: dict[str, set[Source]] = {}
        for operation in self.operations:
            if operation.type == WRITE and operation.endpoint == target:
                for ref in operation.inputs:
                    result.setdefault(ref.field, set()).update(self.sources(ref))
        return {name: sorted(items) for name, items in result.items()}

    def dataset_lineage(self, destination: EndPoint | tuple[str, str]) -> list[Source]:
        """The sources of the conditions that apply to ``destination``, with their INDIRECT subtype."""
        target = _endpoint(destination)
        found: set[Source] = set()
        for operation in self.operations:
            if operation.type != CONDITION or (operation.targets and target not in operation.targets):
                continue
            for ref in operation.inputs:
                for dataset, name, tx, path in self.sources(ref):
                    found.add((dataset, name, merge(operation.step, tx), (*path, operation.name)))
        return sorted(found)

    def dropped(self) -> list[tuple[EndPoint, str, str]]:
        """(dataset, field, drop operation) of every field deliberately not kept."""
        found = set()
        for operation in self.operations:
            if operation.is_drop:
                for ref in operation.inputs:
                    for dataset, name, _, _ in self.sources(ref):
                        found.add((dataset, name, operation.name))
        return sorted(found)

    def incoming(self, destination: EndPoint | tuple[str, str]) -> dict[str, list[tuple[EndPoint, str]]]:
        """CDAP's incoming summary: destination field -> the (dataset, field) pairs it comes from."""
        return {name: sorted({(dataset, source) for dataset, source, _, _ in items})
                for name, items in self.lineage(destination).items()}

    def outgoing(self) -> dict[tuple[EndPoint, str], list[tuple[EndPoint, str]]]:
        """CDAP's outgoing summary: source (dataset, field) -> the destination (dataset, field) pairs it feeds."""
        result: dict[tuple[EndPoint, str], set[tuple[EndPoint, str]]] = {}
        for destination in self.destinations():
            for name, items in self.lineage(destination).items():
                for dataset, source, _, _ in items:
                    result.setdefault((dataset, source), set()).add((destination, name))
        return {key: sorted(values) for key, values in sorted(result.items())}

    # -- facets ------------------------------------------------------------------------------------------------

    def column_lineage_facet(self, destination: EndPoint | tuple[str, str],
                             producer: str = PRODUCER) -> dict[str, Any]:
        """The OpenLineage ``ColumnLineageDatasetFacet`` (1-2-0) of ``destination``; each transformation's
        ``description`` names the operations on its path."""
        fields = {name: {"inputFields": _input_fields(items)} for name, items in self.lineage(destination).items()}
        return {"_producer": producer, "_schemaURL": COLUMN_LINEAGE_SCHEMA_URL, "fields": fields,
                "dataset": _input_fields(self.dataset_lineage(destination))}

    def chain(self, destination: EndPoint | tuple[str, str] | None = None,
              field_name: str | None = None) -> list[Operation]:
        """The operations leading to ``destination`` (to one of its fields with ``field_name``), in recorded
        order; all operations when no destination is given. Drops reading the same sources are included."""
        if destination is None:
            return list(self.operations)
        target = _endpoint(destination)
        names = self.by_name()
        wanted: set[str] = set()
        stack: list[str] = []
        for operation in self.operations:
            if operation.type == WRITE and operation.endpoint == target:
                refs = [ref for ref in operation.inputs if field_name is None or ref.field == field_name]
                if refs:
                    wanted.add(operation.name)
                    stack.extend(ref.origin for ref in refs)
            elif operation.type == CONDITION and (not operation.targets or target in operation.targets):
                wanted.add(operation.name)
                stack.extend(ref.origin for ref in operation.inputs)
        while stack:
            name = stack.pop()
            if name in wanted or name not in names:
                continue
            wanted.add(name)
            stack.extend(ref.origin for ref in names[name].inputs)
        reads = {name for name in wanted if names[name].type == READ}
        for operation in self.operations:  # drops of fields read by the chain: CDAP's drop awareness
            if operation.is_drop and any(ref.origin in reads for ref in operation.inputs):
                wanted.add(operation.name)
        return [operation for operation in self.operations if operation.name in wanted]

    def checksum(self) -> str:
        """A fingerprint of the operations (order-independent): identical lineage across runs is stored once."""
        canonical = sorted(json.dumps(op.as_dict(), sort_keys=True) for op in self.operations)
        return hashlib.sha256("\n".join(canonical).encode()).hexdigest()

    def operations_facet(self, destination: EndPoint | tuple[str, str] | None = None,
                         producer: str = PRODUCER) -> dict[str, Any]:
        """The operation chain as a custom dataset facet (key :data:`FACET_KEY`, schema :data:`FACET_SCHEMA`)."""
        chain = self.chain(destination)
        dropped = [{"namespace": dataset.namespace, "name": dataset.name, "field": name, "operation": operation}
                   for dataset, name, operation in self.dropped() if any(op.name == operation for op in chain)]
        return {"_producer": producer, "_schemaURL": FACET_SCHEMA_URL,
                "operations": [operation.as_dict() for operation in chain], "dropped": dropped,
                "checksum": self.checksum()}


def _input_fields(items: Iterable[Source]) -> list[dict[str, Any]]:
    grouped: dict[tuple[str, str, str], set[tuple[str, str, bool, str]]] = {}
    for dataset, name, tx, path in items:
        grouped.setdefault((dataset.namespace, dataset.name, name), set()).add((*tx, " -> ".join(path)))
    result = []
    for (namespace, name, column), transformations in sorted(grouped.items()):
        entries = []
        for kind, subtype, masking, description in sorted(transformations):
            entry: dict[str, Any] = {"type": kind, "subtype": subtype, "masking": masking}
            if description:
                entry["description"] = description
            entries.append(entry)
        result.append({"namespace": namespace, "name": name, "field": column, "transformations": entries})
    return result


FACET_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": FACET_SCHEMA_URL.split("#")[0],
    "$defs": {
        "FieldOperationsDatasetFacet": {
            "type": "object",
            "description": "The declared field operations (read, transform, drop, condition, write) that produced "
                           "a dataset, CDAP style.",
            "properties": {
                "_producer": {"type": "string", "format": "uri"},
                "_schemaURL": {"type": "string", "format": "uri"},
                "operations": {"type": "array", "items": {"$ref": "#/$defs/Operation"}},
                "dropped": {"type": "array", "items": {
                    "type": "object", "required": ["namespace", "name", "field", "operation"],
                    "properties": {key: {"type": "string"} for key in ("namespace", "name", "field", "operation")},
                    "additionalProperties": False}},
                "checksum": {"type": "string", "pattern": "^[0-9a-f]{64}$"},
            },
            "required": ["_producer", "_schemaURL", "operations", "dropped", "checksum"],
            "additionalProperties": True,
        },
        "EndPoint": {"type": "object", "required": ["namespace", "name"],
                     "properties": {"namespace": {"type": "string"}, "name": {"type": "string"}},
                     "additionalProperties": False},
        "Operation": {
            "type": "object",
            "required": ["name", "type", "description"],
            "properties": {
                "name": {"type": "string"},
                "type": {"enum": [READ, TRANSFORM, "DROP", CONDITION, WRITE]},
                "description": {"type": "string"},
                "source": {"$ref": "#/$defs/EndPoint"},
                "destination": {"$ref": "#/$defs/EndPoint"},
                "inputs": {"type": "array", "items": {
                    "type": "object", "required": ["origin", "field"],
                    "properties": {"origin": {"type": "string"}, "field": {"type": "string"}},
                    "additionalProperties": False}},
                "outputs": {"type": "array", "items": {"type": "string"}},
                "transformation": {
                    "type": "object", "required": ["type", "subtype", "masking"],
                    "properties": {"type": {"enum": ["DIRECT", "INDIRECT"]},
                                   "subtype": {"enum": list(DIRECT_KINDS + INDIRECT_KINDS)},
                                   "masking": {"type": "boolean"}},
                    "additionalProperties": False},
                "appliesTo": {"type": "array", "items": {"$ref": "#/$defs/EndPoint"}},
            },
            "additionalProperties": False,
        },
    },
}
"""The JSON Schema (2020-12) of the operations facet, published under :data:`FACET_SCHEMA_URL`."""
