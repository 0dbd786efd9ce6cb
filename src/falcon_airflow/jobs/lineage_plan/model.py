"""The column lineage of a DataFrame as OpenLineage reports it: transformations, input fields, datasets, schema."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from falcon_airflow import __version__
from falcon_airflow.core.lineage import COLUMN_LINEAGE_SCHEMA_URL, PRODUCER, SCHEMA_SCHEMA_URL, SYMLINKS_SCHEMA_URL
from falcon_airflow.core.naming import DatasetId

VERSION: str = __version__

PLANS = ("analyzed", "cached", "optimized")


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
    return tuple(schema_field(item.get("name", ""), item.get("type")) for item in value.get("fields") or ())


def schema_field(name: str, value: Any) -> SchemaField:
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


def transformation_key(item: Transformation) -> tuple[str, str, bool, str]:
    return (item.type, item.subtype, item.masking, item.description or "")


def field_key(item: InputField) -> tuple[str, str, str]:
    return (item.namespace, item.name, item.field)


def _merge_inputs(items: Iterable[InputField]) -> tuple[InputField, ...]:
    grouped: dict[tuple[str, str, str], set[Transformation]] = {}
    for item in items:
        grouped.setdefault((item.namespace, item.name, item.field), set()).update(item.transformations)
    return tuple(InputField(ns, name, column, tuple(sorted(ts, key=transformation_key)))
                 for (ns, name, column), ts in sorted(grouped.items()))


class LineageUnavailable(Exception):
    """The DataFrame has no JVM plan to walk (Spark Connect) or the plan could not be read."""
