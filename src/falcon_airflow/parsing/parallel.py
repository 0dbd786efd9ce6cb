"""Reading many entity files on several cores, with the result a serial read gives, in the same order.

Reading a file (secure read, lxml, XSD, the builders) is Python work that one core does at about 4,000 rich
entities a second, so a large estate is read by this process and forked helper processes side by side. A helper
hands each entity back as its JSON (pydantic writes and reads it in compiled code, several times faster than
pickling or building the model again) together with the file's issues, and this process reads the models back
from it: the same values, the same fields set, the same ``datetime.UTC`` (see ``Validity``).

Only worth it when there are enough files to pay for starting a helper (:data:`PARALLEL_MIN_FILES`), more than one
core to run it on, and Linux to fork them; otherwise, and for ``workers=1``, files are read one after another.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
from collections.abc import Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from falcon_airflow.entities import Cluster, Datasource, Entity, EntityType, Feed, Process
from falcon_airflow.issues import Issue
from falcon_airflow.parsing import ParsedFile, parse_file

# Below this many files a helper's start (a fork, its first XSD compilation is inherited) and the hand-over cost
# about what they save; measured on 2 cores with rich entities (benchmarks/validate_estate.py).
PARALLEL_MIN_FILES = 2000
# This process's share of the files, against an equal share: it also reads back what the helpers hand over, which
# costs a little more than a helper's writing it out, so it reads slightly fewer files itself (measured on 2 cores
# with rich entities: reading one about 150 us, writing it out 20 us, reading it back 45 us).
_OWN_SHARE = 0.9
_CHUNKS_PER_HELPER = 4
# Forking a process that has loaded system frameworks is unsafe on macOS, and Windows cannot fork: Linux only.
_FORK_IS_SAFE = sys.platform.startswith("linux") and "fork" in multiprocessing.get_all_start_methods()

_MODELS: dict[EntityType, type[Entity]] = {
    EntityType.CLUSTER: Cluster,
    EntityType.FEED: Feed,
    EntityType.PROCESS: Process,
    EntityType.DATASOURCE: Datasource,
}

# (path, entity type, entity name, issues, Oozie workflow, the entity's JSON or None)
_Handed = tuple[str, EntityType | None, str | None, tuple[Issue, ...], bool, bytes | None]


def available_cores() -> int:
    """Cores this process may run on (its CPU affinity where the platform tells it)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def helper_count(files: int, workers: int | None) -> int:
    """How many helper processes to start for ``files`` files: ``workers`` is the number of processes wanted in
    all (this one included), ``None`` for as many as there are cores; 0 when reading in this process pays best."""
    if workers == 1 or files < PARALLEL_MIN_FILES or not _FORK_IS_SAFE:
        return 0
    wanted = available_cores() if workers is None else workers
    return max(0, min(wanted, available_cores()) - 1)


def parse_files(items: Sequence[tuple[str | os.PathLike[str], str]], *, workers: int | None = 1) -> list[ParsedFile]:
    """:func:`~falcon_airflow.parsing.parse_file` of each ``(path, display)``, in order, on up to ``workers``
    processes (``None``: as many as pay, see :func:`helper_count`)."""
    helpers = helper_count(len(items), workers)
    if helpers == 0:
        return [parse_file(path, display) for path, display in items]
    own = int(len(items) / (helpers + 1) * _OWN_SHARE)
    rest = [(os.fspath(path), display) for path, display in items[own:]]
    size = max(1, -(-len(rest) // (helpers * _CHUNKS_PER_HELPER)))
    chunks = [rest[start:start + size] for start in range(0, len(rest), size)]
    parsed: list[ParsedFile] = []
    try:
        with forked_pool(helpers) as pool:
            handed: list[Future[list[_Handed]]] = [pool.submit(_parse_and_hand, chunk) for chunk in chunks]
            parsed = [parse_file(path, display) for path, display in items[:own]]
            for future in handed:
                parsed.extend(_taken(item) for item in future.result())
    except (BrokenProcessPool, OSError):  # a helper could not start or died (memory): read the rest here
        parsed.extend(parse_file(path, display) for path, display in items[len(parsed):])
    return parsed


def forked_pool(helpers: int) -> ProcessPoolExecutor:
    """Helper processes forked from this one: each starts with its modules, compiled schemas and data, and
    nothing is imported again. Output still buffered is written first, so that no helper writes it a second time
    when it ends."""
    sys.stdout.flush()
    sys.stderr.flush()
    return ProcessPoolExecutor(helpers, mp_context=multiprocessing.get_context("fork"))


def _parse_and_hand(chunk: list[tuple[str, str]]) -> list[_Handed]:
    return [_handed(parse_file(path, display)) for path, display in chunk]


def _handed(parsed: ParsedFile) -> _Handed:
    entity = parsed.entity
    # exclude_unset: the model read back has the same fields set as the one built here
    blob = entity.model_dump_json(exclude_unset=True).encode() if entity is not None else None
    return parsed.path, parsed.entity_type, parsed.entity_name, parsed.issues, parsed.oozie_workflow, blob


def _taken(item: _Handed) -> ParsedFile:
    path, entity_type, name, issues, oozie_workflow, blob = item
    entity = None
    if blob is not None:
        assert entity_type is not None, "an entity has a type"
        entity = _MODELS[entity_type].model_validate_json(blob)
    return ParsedFile(path, entity, entity_type, name, issues, oozie_workflow)
