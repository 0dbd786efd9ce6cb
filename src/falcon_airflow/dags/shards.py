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

import logging
import re
import zlib
from pathlib import Path
from typing import Any

from falcon_airflow.compiler.specs import DagSpec
from falcon_airflow.dags.compiled_cache import cache_folder

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
# One parse of one shard file must not compile the whole estate for its part. The entry of the folder's content
# (its content key, so an edit to any file, a new day, a store record or a new package version starts a new one)
# holds the folder's judgement, made once by the first shard file parsed (whole-folder validation: see
# shard_compile), and one compiled part per shard, made by that shard's own parse from the judgement and the inputs
# of its entities alone. A shard file whose part is there only reads it.


def _entry_folder(key: str, count: int) -> Path:
    return cache_folder() / f"{key}-{count}"


def load_shard(folder: Path, *, catchup_default: bool, count: int,
               shard: int | None) -> tuple[list[DagSpec], list[dict[str, Any]]]:
    """The specs of one shard (every shard's with ``shard=None``) and the issues that shard reports: shard 0 (and
    ``None``) every issue of the folder's validation, each shard the compile issues of its own entities."""
    from falcon_airflow.dags.loader import _entity_files, _issue_dict, compile_folder, status_key
    from falcon_airflow.dags.shard_compile import judged, settled_entry, shard_outcome
    from falcon_airflow.issues import Issue

    wanted = list(range(count)) if shard is None else [shard]
    key, _ = status_key(folder, _entity_files(folder), catchup_default)
    entry = _entry_folder(key, count)
    try:
        entry = settled_entry(entry, folder)
        outcomes = [shard_outcome(entry, folder, catchup_default=catchup_default, count=count, shard=index)
                    for index in wanted]
        issues = [issue for outcome in outcomes for issue in outcome.issues]
        if shard in (None, 0):
            issues += judged(entry, folder, catchup_default=catchup_default, count=count).issues
        return ([spec for outcome in outcomes for spec in outcome.specs],
                [_issue_dict(issue) for issue in sorted(issues, key=Issue.sort_key)])
    except OSError as problem:
        log.warning("falcon-airflow: cannot use the compiled cache %s: %s", entry, problem)
    compiled, found = compile_folder(folder, catchup_default=catchup_default)
    mine = [spec for spec in compiled
            if shard is None or shard_of(spec.source.type, spec.source.name, count) == shard]
    if shard not in (None, 0):  # a shard reports only its own entities' compile issues, as with the cache
        found = [issue for issue in found if issue.rule == "FA100" and issue.entity_type in ("feed", "process")
                 and shard_of(issue.entity_type, issue.entity or "", count) == shard]
    elif shard == 0:
        found = [issue for issue in found if not (issue.rule == "FA100" and issue.entity_type in ("feed", "process")
                 and shard_of(issue.entity_type, issue.entity or "", count) != 0)]
    return mine, [_issue_dict(issue) for issue in found]
