"""A change to one entity re-compiles only what it affects.

The loader's compiled cache answers "nothing changed" (see loader and shards). When something did, this memo of the
folder's previous compilation keeps the rest cheap:

* every file's parse is reused when its bytes are the same (a parse depends on nothing else);
* every entity's specs are reused when the files it compiles from are the same (``CompileMemo``: the entity, the
  clusters, the datasources, the Oozie workflows and, for a process, the feeds it names);
* validation always runs on the whole folder: its rules look across entities.

One memo per folder, catch-up default and day (process docs and rule P10 depend on the day), written after every
compilation with what that compilation used, and keyed by the code that made it (package version and the size and
time of every source file), so an upgrade or an edited install never reads an outcome of other code.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from falcon_airflow.compiler.compilation import EntityOutcome
from falcon_airflow.dags.compiled_cache import cache_folder, code_fingerprint, mark_used, read_pickled, write_pickled
from falcon_airflow.parsing import ParsedFile, parse_read_file
from falcon_airflow.parsing.secure import read_limited
from falcon_airflow.workspace import collect_files

log = logging.getLogger("falcon_airflow.dags")

ParseKey = tuple[str, str]
"""(the file as the workspace names it, the hash of its bytes)."""


def memo_file(folder: Path, *, catchup_default: bool, part: str = "") -> Path:
    """The memo of the folder's last compilation today; ``part`` names one of several memos of the same folder
    (the shard files keep one for the folder's parses and one per shard: see shard_compile)."""
    key = hashlib.sha256(f"{code_fingerprint()}|{datetime.now(UTC).date()}|{catchup_default}|{folder}".encode())
    return cache_folder() / f"memo-{key.hexdigest()[:32]}{'-' + part if part else ''}.memo"


@dataclass(frozen=True)
class ParsedFolder:
    files: tuple[ParsedFile, ...]
    digests: dict[str, str]
    """The hash of each readable file's bytes, by the name the workspace gives the file."""
    parses: dict[ParseKey, ParsedFile]
    reused: int


def parse_folder(folder: Path, previous: Mapping[ParseKey, ParsedFile]) -> ParsedFolder:
    """The folder's entity files as ``Workspace.load`` parses them, reusing each parse whose bytes are unchanged
    (the bytes hashed are the bytes parsed, so a file changing meanwhile is never recorded under the wrong hash)."""
    files: list[ParsedFile] = []
    digests: dict[str, str] = {}
    parses: dict[ParseKey, ParsedFile] = {}
    reused = 0
    for item in collect_files([str(folder)]):
        data, issue = read_limited(item.path, item.display)
        if data is None:
            files.append(ParsedFile(item.display, None, None, None, (issue,) if issue else ()))
            continue
        key = (item.display, hashlib.sha256(data).hexdigest())
        parsed = previous.get(key)
        if parsed is None:
            parsed = parse_read_file(data, item.display)
        else:
            reused += 1
        files.append(parsed)
        digests[item.display] = key[1]
        parses[key] = parsed
    return ParsedFolder(tuple(files), digests, parses, reused)


@dataclass(frozen=True)
class StoredMemo:
    parses: dict[ParseKey, ParsedFile]
    outcomes: dict[str, EntityOutcome]

    @classmethod
    def read(cls, path: Path) -> StoredMemo:
        stored = read_pickled(path)
        if isinstance(stored, StoredMemo):
            mark_used(path)
            return stored
        return cls({}, {})

    def write(self, path: Path) -> None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            write_pickled(path, self)
        except OSError as problem:
            log.warning("falcon-airflow: cannot write the compile memo %s: %s", path, problem)
