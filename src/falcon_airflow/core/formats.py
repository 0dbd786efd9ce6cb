"""File formats with a meaning for both sides."""

from __future__ import annotations

SCHEMA_FORMATS = ("parquet", "orc")
"""Formats whose files carry their schema, so a copy's columns can be read without a declared schema: the compiler
asks the replication job to report them (for lineage) only for these."""
