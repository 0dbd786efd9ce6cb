"""A feed's declared schema (``<schema location=... provider=.../>``), when it can be read here.

Falcon only records where a schema lives and who understands it. Lineage uses it when the file is on the local
file system (a path, or a ``file://`` URI; the compiler resolves a relative location against the entities folder)
and its provider is one of:

* ``avro`` (or a ``.avsc`` file): an Avro record schema, its top-level ``fields``;
* ``json`` / ``spark``: Spark's ``StructType`` JSON (``{"type": "struct", "fields": [...]}``), or a JSON list of
  ``{"name", "type"}``;
* ``csv``: the first line of the file is the comma-separated header (every field a string).

Anything else (``parquet``, ``orc``, ``protobuf``, ``hcatalog``, a remote file, a file above 1 MiB, a file that
does not parse) means "unknown": no ``schema`` and no field-level lineage, never an error.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

MAX_BYTES = 1 << 20

SchemaField = tuple[str, str | None]
"""(name, type) of a top-level field."""


def _local(location: str) -> Path | None:
    from urllib.parse import unquote, urlsplit

    parts = urlsplit(location)
    if parts.scheme == "file" and parts.netloc in ("", "localhost"):
        return Path(unquote(parts.path))
    if parts.scheme == "":
        return Path(location)
    return None


def _type_name(kind: Any) -> str | None:
    if isinstance(kind, str):
        return kind
    if isinstance(kind, list):  # an Avro union: ["null", "string"] is a nullable string
        names = [_type_name(item) for item in kind if item != "null"]
        return names[0] if len(names) == 1 else "union"
    if isinstance(kind, dict):
        return str(kind.get("logicalType") or kind.get("type") or "struct")
    return None


def _fields(document: Any) -> list[SchemaField]:
    items = document.get("fields") if isinstance(document, dict) else document
    if not isinstance(items, list):
        return []
    fields = []
    for item in items:
        if isinstance(item, dict) and isinstance(item.get("name"), str) and item["name"]:
            fields.append((item["name"], _type_name(item.get("type"))))
    return fields


def parse_schema(text: str, provider: str, location: str = "") -> list[SchemaField]:
    """The top-level fields of a schema document of ``provider``; empty when it is not understood."""
    kind = provider.strip().lower()
    if kind == "csv":
        header = text.splitlines()[0] if text.strip() else ""
        return [(name.strip(), "string") for name in header.split(",") if name.strip()]
    if kind in ("avro", "json", "spark") or location.endswith((".avsc", ".json")):
        try:
            return _fields(json.loads(text))
        except ValueError:
            return []
    return []


def read_schema(location: str | None, provider: str | None) -> list[SchemaField] | None:
    """The fields of a feed's declared schema, or ``None`` when it is unknown (see the module docs)."""
    if not location or not provider:
        return None
    path = _local(location)
    try:
        if path is None or not path.is_file() or path.stat().st_size > MAX_BYTES:
            return None
        fields = parse_schema(path.read_text(encoding="utf-8"), provider, location)
    except (OSError, UnicodeDecodeError):
        return None
    return fields or None
