"""The entities' DAGs split over several DAG files ("shards"), so that Airflow's dag-processor parses them in
parallel (one process per file, ``[dag_processor] parsing_processes``) and each parse builds a part of the estate.

* The shard files are ``falcon_entities.py`` (shard 0) and ``falcon_entities_1.py`` ... ``falcon_entities_<n-1>.py``
  in the DAG folder; each is one line that calls the loader, which reads its shard number from the file name.
* ``[falcon] dag_shards`` (default 4) says how many shards there are; it is capped by the shard files present, so
  a folder with fewer files never loses an entity (a warning says so).
* An entity's shard is a stable hash of its type and name: all its DAGs are in one file, and adding or removing
  other entities never moves it.
"""

from __future__ import annotations

import fcntl
import json
import logging
import re
import zlib
from pathlib import Path
from typing import Any

from falcon_airflow.compiler.specs import DagSpec
from falcon_airflow.dags.compiled_cache import (
    cache_folder,
    mark_used,
    prune_cache,
    read_pickled,
    write_atomically,
    write_pickled,
)

log = logging.getLogger("falcon_airflow.dags")

DEFAULT_SHARDS = 4
_SHARD_FILE = re.compile(r"^falcon_entities(?:_([1-9][0-9]*))?\.py$")


def shard_file_name(index: int) -> str:
    return "falcon_entities.py" if index == 0 else f"falcon_entities_{index}.py"


def shard_index(dags_file: str | Path) -> int | None:
    """The shard a DAG file builds, from its name; ``None`` for a file that is not a shard file."""
    match = _SHARD_FILE.match(Path(dags_file).name)
    if match is None:
        return None
    return int(match[1]) if match[1] else 0


def shard_count(dags_file: str | Path, configured: int) -> int:
    """How many shards the folder of ``dags_file`` holds: ``configured``, capped by the shard files present."""
    folder = Path(dags_file).resolve().parent
    present = 0
    while present < max(1, configured) and (folder / shard_file_name(present)).exists():
        present += 1
    if present < configured:
        log.warning("falcon-airflow: [falcon] dag_shards is %d but %s holds only %d shard file(s) (%s ...): using %d",
                    configured, folder, present, shard_file_name(present), max(1, present))
    return max(1, present)


def shard_of(entity_type: str, name: str, count: int) -> int:
    """The shard of an entity: stable across runs, machines and Python versions (CRC-32, not ``hash()``)."""
    return zlib.crc32(f"{entity_type}:{name}".encode()) % count if count > 1 else 0


# -- the compiled cache, per shard ----------------------------------------------------------------------------------
#
# One parse of one shard file must not compile the whole estate again for its part: the first shard file parsed
# after a change takes a lock, compiles the folder once and writes every shard's specs (one file each) and the
# issues (every entity's, so any shard can report them); the others wait on the lock and read their file. The key
# is the content key of the whole folder, so an edit to any file, a new "day" (rule P10), a store record or a new
# package version starts over, exactly as for one DAG file.


def _entry_folder(key: str, count: int) -> Path:
    return cache_folder() / f"{key}-{count}"


def _compile_into(entry: Path, folder: Path, *, catchup_default: bool, count: int) -> None:
    from falcon_airflow.dags.loader import _issue_dict, compile_folder

    specs, issues = compile_folder(folder, catchup_default=catchup_default)
    parts: list[list[DagSpec]] = [[] for _ in range(count)]
    for spec in specs:
        parts[shard_of(spec.source.type, spec.source.name, count)].append(spec)
    entry.mkdir(parents=True, exist_ok=True)
    for index, part in enumerate(parts):
        write_pickled(entry / f"shard-{index}.pickle", part)
    # written last: its presence says every shard file is there
    write_atomically(entry / "issues.json", json.dumps([_issue_dict(issue) for issue in issues]).encode())
    prune_cache(entry)


def _ensure_compiled(folder: Path, *, catchup_default: bool, count: int) -> Path | None:
    """The cache entry of the folder's current content, compiled by this process if no other did; ``None`` when
    the cache cannot be written (the caller compiles for itself)."""
    from falcon_airflow.dags.loader import _entity_files, content_key

    key = content_key(folder, _entity_files(folder), catchup_default)
    entry = _entry_folder(key, count)
    if (entry / "issues.json").exists():
        mark_used(entry)
        return entry
    try:
        entry.parent.mkdir(parents=True, exist_ok=True)
        with open(entry.parent / f"{entry.name}.lock", "w", encoding="utf-8") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes, also if this process dies
            if not (entry / "issues.json").exists():
                _compile_into(entry, folder, catchup_default=catchup_default, count=count)
        return entry
    except OSError as problem:
        log.warning("falcon-airflow: cannot write the compiled cache %s: %s", entry, problem)
        return None


def load_shard(folder: Path, *, catchup_default: bool, count: int,
               shard: int | None) -> tuple[list[DagSpec], list[dict[str, Any]]]:
    """The specs of one shard (every shard's with ``shard=None``) and the issues of the whole folder."""
    from falcon_airflow.dags.loader import _issue_dict, compile_folder

    entry = _ensure_compiled(folder, catchup_default=catchup_default, count=count)
    if entry is not None:
        try:
            parts = [read_pickled(entry / f"shard-{index}.pickle")
                     for index in (range(count) if shard is None else [shard])]
            issues = json.loads((entry / "issues.json").read_text(encoding="utf-8"))
            if all(isinstance(part, list) for part in parts) and isinstance(issues, list):
                return [spec for part in parts for spec in part], issues
        except (OSError, ValueError) as problem:
            log.warning("falcon-airflow: ignoring unreadable compiled cache %s: %s", entry, problem)
    compiled, found = compile_folder(folder, catchup_default=catchup_default)
    mine = [spec for spec in compiled
            if shard is None or shard_of(spec.source.type, spec.source.name, count) == shard]
    return mine, [_issue_dict(issue) for issue in found]
