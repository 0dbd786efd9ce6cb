"""The files a replication copies: the sources listed, include-filtered and keyed by relative path, and their
spread over the copy tasks by size."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from falcon_airflow.jobs.filesystem import HadoopFs
from falcon_airflow.jobs.frame import JobError
from falcon_airflow.jobs.uris import Uri, checked_path, include_pattern, is_under, name_of, split_uri


@dataclass(frozen=True)
class SourceFile:
    rel: str
    uri: str
    length: int


def list_sources(fs: HadoopFs, sources: Sequence[Uri], include: str | None, flag: str,
                 prefix: str = "") -> dict[str, SourceFile]:
    """Relative path → file of every source (include-filtered, flag files skipped, only below ``prefix``); the
    same relative path in two sources is an error."""
    pattern = include_pattern(include) if include else None
    planned: dict[str, SourceFile] = {}
    for source in sources:
        root = fs.qualify(str(source))
        for entry in fs.list_files(root.with_path(root.path.rstrip("/") + "/" + prefix) if prefix else str(root)):
            found = split_uri(entry.path)
            path = checked_path(found.path)
            rel = path[len(root.path):].lstrip("/") if is_under(path, root.path) else name_of(path)
            if name_of(rel) == flag or (pattern is not None and not pattern.match(rel)):
                continue
            if rel in planned:
                raise JobError(f"{rel} is in more than one source ({planned[rel].uri} and {entry.path})")
            planned[rel] = SourceFile(rel, root.with_path(path), entry.length)
    return planned


def balance(items: list[dict[str, Any]], slots: int) -> list[list[dict[str, Any]]]:
    """Spread items over ``slots`` lists of similar total bytes (largest first; a file costs at least 64 KiB)."""
    slices: list[list[dict[str, Any]]] = [[] for _ in range(max(1, min(slots, len(items))))]
    loads = [0] * len(slices)
    for item in sorted(items, key=lambda item: -int(item["length"])):
        index = loads.index(min(loads))
        slices[index].append(item)
        loads[index] += max(int(item["length"]), 1 << 16)
    return slices
