"""Reading many entity files on several cores, with the result a serial read gives, in the same order.

Reading a file (secure read, lxml, XSD, the builders) is Python work that one core does at about 4,000 rich
entities a second, so a large estate is read by this process and forked helper processes side by side. A helper
stops short of the model: it hands back each entity's plain values (what the builders read, pickled) with the
file's issues, and this process makes the model from them with the one validation the builders end with. That is
the model a serial read makes (the same values, fields set and ``datetime.UTC``), and cheaper on both sides than
handing over the model: the helper writes no JSON and validates nothing, and validating plain values costs this
process less than reading JSON back.

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

from falcon_airflow.parsing import ParsedFile, finish_values, parse_file, read_file_values
from falcon_airflow.parsing.builders import Values

# Below this many files a helper's start (a fork, its first XSD compilation is inherited) and the hand-over cost
# about what they save; measured on 2 cores with rich entities (benchmarks/validate_estate.py).
PARALLEL_MIN_FILES = 2000
# This process's share of the files, against an equal share: it also makes the models of the files the helpers
# read, so it reads fewer itself (measured on 2 cores with rich entities: reading a file to its model about 170 us,
# a helper's reading it to its values and handing them over about 150 us, making the model of values 45 us).
_OWN_SHARE = 0.75
_CHUNKS_PER_HELPER = 4
# Forking a process that has loaded system frameworks is unsafe on macOS, and Windows cannot fork: Linux only.
_FORK_IS_SAFE = sys.platform.startswith("linux") and "fork" in multiprocessing.get_all_start_methods()

# (the file without its entity, the entity's plain values or None)
_Handed = tuple[ParsedFile, Values | None]


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
    return [read_file_values(path, display) for path, display in chunk]


def _taken(item: _Handed) -> ParsedFile:
    parsed, values = item
    return finish_values(parsed, values) if values is not None else parsed
