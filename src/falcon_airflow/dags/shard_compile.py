"""Each shard file compiles only its own entities: the folder is judged once per content, the entities once each.

A shard file's first parse after a change used to compile the whole folder for its quarter of the DAGs. Now the
work is split in two steps, each done by one process and shared with the others through the compiled cache's entry
for the folder's content (``<content key>-<shard count>/``, see :mod:`falcon_airflow.dags.shards`):

1. **Judging** (the first parse to arrive, under the entry's lock; the others wait for it): every file is parsed
   (each parse whose bytes are unchanged comes from the folder's parse memo), the whole workspace is validated and
   the judgement recorded (``judgement.pickle``): the validation issues, the entities left out (errors of their
   own, or a process naming an invalid feed: rule FA101), the compile moment and the store's records. The
   extension jobs, which read the whole folder, are compiled here too. For each shard, the inputs of its entities
   are written apart (``inputs-<n>.pickle``): the clusters, datasources and Oozie workflows every entity compiles
   from, the shard's feeds and processes, and the feeds its processes name, with the hash of each of those files.
2. **Compiling a shard** (the shard's own parse, under the shard's lock): its entities compile from its inputs and
   the judgement; an entity whose inputs hash as in the shard's memo of its last compilation today gets that
   outcome back (``CompileMemo``: the entity, the clusters, datasources and workflows, and for a process the feeds
   it names; a feed's or process's validity comes from the judgement, never from the memo). The shard's specs and
   compile issues go to ``shard-<n>.pickle``.

Why this equals a compilation from scratch: a judgement belongs to one content key, the hash of every entity file's
bytes and of the store's records (plus the code, the specs' schema, the day, the catch-up default and the colo), so
any change to any file, including one that makes an entity elsewhere invalid, gives a new entry judged anew over
the whole folder; and :func:`~falcon_airflow.compiler.compilation.compile_workspace` is itself made of the same two
steps (``judge_workspace`` then ``compile_entities``) over the whole workspace, whose compile of one entity reads
only the inputs a shard's inputs hold. The memo's rule is the one of the single file's compilation
(:mod:`falcon_airflow.dags.compile_memo`). The tests compare both ways on every kind of change
(``tests/integration/airflow/test_compile_memo.py``).

Safety between processes: every file is written under a temporary name and renamed (a reader never sees half of
one); the locks are ``flock`` locks released when their process ends, also by a crash; a file that cannot be read
back (truncated, foreign) is treated as missing and made again under the lock; and when the cache cannot be written
at all the parse compiles the whole folder for itself, as before there was a cache.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from falcon_airflow.compiler.specs import DagSpec
from falcon_airflow.compiler.store_state import EntityKey, StoreState
from falcon_airflow.dags.compiled_cache import (
    cache_folder,
    mark_used,
    prune_cache,
    read_pickled,
    write_atomically,
    write_pickled,
)
from falcon_airflow.issues import Issue

log = logging.getLogger("falcon_airflow.dags")

JUDGEMENT = "judgement.pickle"
"""Written last by the judging parse: while it is missing, the entry is not judged."""


@dataclass(frozen=True)
class FolderJudgement:
    """The whole folder's judgement, as every shard needs it."""

    judgement: Any
    """A ``compiler.compilation.Judgement`` without the parsed files (a shard needs only who is left out and the
    compile moment)."""
    issues: tuple[Issue, ...]
    """Every issue that is not an entity's compile issue: validation, FA101 and the extension jobs'."""
    store_state: StoreState
    present: frozenset[EntityKey]
    """Every entity of the folder, and every extension job that compiled: what ``first_built.json`` keeps."""
    files_parsed: int
    """Files the judging parse parsed; the others' parses came from the memo."""


@dataclass(frozen=True)
class ShardInputs:
    """What one shard's entities compile from (see the module's docs)."""

    workspace: Any
    """A ``Workspace`` holding the Oozie workflows' parses, every cluster and datasource, the shard's feeds and
    processes, and the feeds its processes name."""
    entities: tuple[EntityKey, ...]
    """The shard's own feeds and processes, in the folder's order."""
    digests: dict[str, str]
    """The hash of each file of ``workspace`` by the name the workspace gives it (for the memo's keys)."""
    extension_specs: tuple[DagSpec, ...]
    """The shard's extension jobs, compiled while judging (they read the whole folder)."""


@dataclass(frozen=True)
class ShardOutcome:
    specs: tuple[DagSpec, ...]
    """This deployment's DAGs of the shard (its colo's), the store's records applied."""
    issues: tuple[Issue, ...]
    """The compile issues of the shard's entities (rule FA100)."""
    entities_compiled: int
    """Entities compiled by the parse that made this outcome; the others' came from the shard's memo."""


@contextlib.contextmanager
def locked(path: Path) -> Iterator[None]:
    """An exclusive ``flock`` on ``path`` (created if needed), released when the block ends or the process dies."""
    with open(path, "a", encoding="utf-8") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        mark_used(path)  # a lock in use is never pruned as stale
        yield


_Kind = TypeVar("_Kind")


def _read(path: Path, kind: type[_Kind]) -> _Kind | None:
    """The object pickled at ``path`` if it is a ``kind``; ``None`` when missing, unreadable or of another kind."""
    value = read_pickled(path) if path.exists() else None
    return value if isinstance(value, kind) else None


RACY = "racy.json"
"""The files that were racy when the entry was judged (see ``loader.status_key``), with the hash of the bytes
read before they were parsed."""
RACY_DEPTH = 4


def settled_entry(entry: Path, folder: Path) -> Path:
    """The entry for the folder's content as it is now. The status key says which entry; an entry judged while
    some of its files were racy (changed within the last seconds) recorded those files' bytes, and holds only
    while they are the same: otherwise the content is another one, whose entry is named after the bytes (and may
    itself have been judged while files were racy). An entry not judged yet is judged by whoever gets it first,
    recording what is racy then."""
    from falcon_airflow.dags.loader import racy_digests

    for _ in range(RACY_DEPTH):
        if not (entry / JUDGEMENT).exists():
            return entry
        try:
            recorded = json.loads((entry / RACY).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return entry  # a judgement without its racy record is being replaced or damaged: judge it again
        if not isinstance(recorded, dict) or not recorded:
            return entry
        current = racy_digests(folder, [folder / name for name in recorded])
        if current == recorded:
            return entry
        digest = hashlib.sha256(json.dumps(current, sort_keys=True).encode()).hexdigest()[:16]
        entry = entry.parent / f"{entry.name}-{digest}"
    raise OSError(f"the entities in {folder} keep changing: compiling without the cache")


def judged(entry: Path, folder: Path, *, catchup_default: bool, count: int) -> FolderJudgement:
    """The entry's judgement, made by this process if no other made it yet."""
    found = _read(entry / JUDGEMENT, FolderJudgement)
    if found is not None:
        return found
    entry.parent.mkdir(parents=True, exist_ok=True)
    write_memo: Callable[[], None] | None = None
    with locked(entry.parent / f"{entry.name}.lock"):
        found = _read(entry / JUDGEMENT, FolderJudgement)
        if found is None:
            found, write_memo = _judge_into(entry, folder, catchup_default=catchup_default, count=count)
    if write_memo is not None:  # after the lock: the shard files waiting for the judgement go on meanwhile
        write_memo()
    return found


def _judge_into(entry: Path, folder: Path, *, catchup_default: bool, count: int,
                ) -> tuple[FolderJudgement, Callable[[], None] | None]:
    """Judge the folder into ``entry``; the judgement and what writes the parse memo (when it is due)."""
    from falcon_airflow.bulk import collector_paused
    from falcon_airflow.compiler.compilation import _compile_extensions, judge_workspace
    from falcon_airflow.compiler.store_state import recorded_store_state
    from falcon_airflow.dags.compile_memo import StoredMemo, memo_file, parse_folder
    from falcon_airflow.dags.loader import MEMO_REWRITE_MINIMUM, MEMO_REWRITE_SHARE, _state_dir
    from falcon_airflow.dags.shards import shard_of
    from falcon_airflow.workspace import Workspace

    _made_here.clear()  # what an earlier judgement of this process left
    from falcon_airflow.dags.loader import _entity_files, racy_digests, status_key

    # the bytes of the racy files, read before they are parsed: the entry holds while they are the same
    _, racy_now = status_key(folder, _entity_files(folder), catchup_default)
    racy = racy_digests(folder, racy_now)
    memo_path = memo_file(folder, catchup_default=catchup_default, part="parses")
    stored = StoredMemo.read(memo_path)
    with collector_paused():
        parsed = parse_folder(folder, stored.parses)
        workspace = Workspace.from_parsed(parsed.files)
    state_dir = _state_dir(folder)
    store_state = recorded_store_state(folder, state_dir)
    judgement = judge_workspace(workspace, store_state=store_state)
    issues = list(judgement.issues)
    extension_specs = _compile_extensions(workspace, folder, issues, store_state)
    extensions_built: set[EntityKey] = {(spec.source.type, spec.source.name) for spec in extension_specs}
    present = frozenset({(entity.entity_type.value, entity.name) for entity in workspace.entities()}
                        | extensions_built)
    record_first_built_shared(folder, state_dir, extensions_built, present)

    shared_files = [*(item.source.file for item in workspace.clusters.values()),
                    *(item.source.file for item in workspace.datasources.values()),
                    *(item.path for item in workspace.files if item.oozie_workflow)]
    workflows = tuple(item for item in workspace.files if item.oozie_workflow)
    entry.mkdir(parents=True, exist_ok=True)
    for index in range(count):
        feeds = [feed for name, feed in workspace.feeds.items() if shard_of("feed", name, count) == index]
        processes = [process for name, process in workspace.processes.items()
                     if shard_of("process", name, count) == index]
        named = {name: workspace.feeds[name] for process in processes for name in process.feed_names
                 if name in workspace.feeds}
        view = Workspace(files=workflows, clusters=workspace.clusters, datasources=workspace.datasources,
                         feeds={**named, **{feed.name: feed for feed in feeds}},
                         processes={process.name: process for process in processes})
        files = [*shared_files, *(feed.source.file for feed in view.feeds.values()),
                 *(process.source.file for process in processes)]
        inputs = ShardInputs(
            workspace=view,
            entities=tuple([*(("feed", feed.name) for feed in feeds), *(("process", p.name) for p in processes)]),
            digests={name: parsed.digests[name] for name in files if name in parsed.digests},
            extension_specs=tuple(spec for spec in extension_specs
                                  if shard_of(spec.source.type, spec.source.name, count) == index))
        write_pickled(entry / f"inputs-{index}.pickle", inputs)
        _made_here[(entry, index)] = inputs  # this process compiles its own shard next: no need to read it back
    result = FolderJudgement(
        judgement=type(judgement)(issues=(), files=(), broken=judgement.broken, left_out=judgement.left_out,
                                  moment=judgement.moment),
        issues=tuple(issues), store_state=store_state, present=present,
        files_parsed=len(parsed.files) - parsed.reused)
    write_atomically(entry / RACY, json.dumps(racy, sort_keys=True).encode())
    write_pickled(entry / JUDGEMENT, result)  # last: its presence says the inputs are there
    prune_cache(entry)
    log.info("falcon-airflow: judged %s: %d of %d files parsed (the rest unchanged), %d issue(s)", folder,
             len(parsed.files) - parsed.reused, len(parsed.files), len(issues))
    if not stored.parses or len(parsed.files) - parsed.reused > max(
            MEMO_REWRITE_MINIMUM, MEMO_REWRITE_SHARE * len(parsed.files)):
        return result, lambda: StoredMemo(parsed.parses, {}).write(memo_path)
    return result, None


def shard_outcome(entry: Path, folder: Path, *, catchup_default: bool, count: int, shard: int) -> ShardOutcome:
    """The shard's compiled specs and compile issues, compiled by this process if no other did yet."""
    path = entry / f"shard-{shard}.pickle"
    found = _read(path, ShardOutcome)
    if found is not None:
        mark_used(entry)
        return found
    entry.mkdir(parents=True, exist_ok=True)
    with locked(entry / f"shard-{shard}.lock"):
        found = _read(path, ShardOutcome)
        if found is None:
            folder_judgement = judged(entry, folder, catchup_default=catchup_default, count=count)
            found = _compile_shard(entry, folder, folder_judgement, catchup_default=catchup_default, count=count,
                                   shard=shard)
            write_pickled(path, found)
    return found


_made_here: dict[tuple[Path, int], ShardInputs] = {}
"""The inputs this process wrote while judging, by entry and shard."""


def _inputs(entry: Path, folder: Path, *, catchup_default: bool, count: int, shard: int) -> ShardInputs:
    inputs = _made_here.pop((entry, shard), None) or _read(entry / f"inputs-{shard}.pickle", ShardInputs)
    if inputs is None:  # lost or damaged since the judgement: judge again, the judgement last
        with locked(entry.parent / f"{entry.name}.lock"):
            (entry / JUDGEMENT).unlink(missing_ok=True)
            _, write_memo = _judge_into(entry, folder, catchup_default=catchup_default, count=count)
        if write_memo is not None:
            write_memo()
        inputs = _made_here.pop((entry, shard), None) or _read(entry / f"inputs-{shard}.pickle", ShardInputs)
        if inputs is None:
            raise OSError(f"cannot read back {entry / f'inputs-{shard}.pickle'}")
    return inputs


def _compile_shard(entry: Path, folder: Path, folder_judgement: FolderJudgement, *, catchup_default: bool,
                   count: int, shard: int) -> ShardOutcome:
    from falcon_airflow.bulk import collector_paused
    from falcon_airflow.compiler.colo import normalized_colo, select_colo
    from falcon_airflow.compiler.compilation import CompileMemo, compile_entities
    from falcon_airflow.dags.compile_memo import StoredMemo, memo_file
    from falcon_airflow.dags.loader import MEMO_REWRITE_MINIMUM, MEMO_REWRITE_SHARE, _state_dir, deployment_colo

    inputs = _inputs(entry, folder, catchup_default=catchup_default, count=count, shard=shard)
    workspace = inputs.workspace
    memo_path = memo_file(folder, catchup_default=catchup_default, part=f"shard-{shard}-of-{count}")
    stored = StoredMemo.read(memo_path)
    memo = CompileMemo(digests=inputs.digests, previous=stored.outcomes)
    entities = [workspace.feeds[name] if kind == "feed" else workspace.processes[name]
                for kind, name in inputs.entities]
    with collector_paused():
        specs, issues = compile_entities(workspace, entities, folder_judgement.judgement, entities_dir=folder,
                                         catchup_default=catchup_default, store_state=folder_judgement.store_state,
                                         memo=memo)
    record_first_built_shared(folder, _state_dir(folder), {(spec.source.type, spec.source.name) for spec in specs},
                              folder_judgement.present)
    kept = select_colo([*specs, *inputs.extension_specs], workspace.clusters, normalized_colo(deployment_colo()))
    compiled = len(memo.recorded) - memo.reused
    if not stored.outcomes or compiled > max(MEMO_REWRITE_MINIMUM, MEMO_REWRITE_SHARE * len(memo.recorded)):
        StoredMemo({}, memo.recorded).write(memo_path)  # as the single file's memo: only once edits add up
    log.info("falcon-airflow: compiled shard %d of %d of %s: %d of %d entities compiled (the rest unchanged)",
             shard, count, folder, compiled, len(memo.recorded))
    return ShardOutcome(tuple(kept), tuple(issues), compiled)


def record_first_built_shared(folder: Path, state_dir: Path, built: set[EntityKey],
                              present: frozenset[EntityKey]) -> None:
    """:func:`~falcon_airflow.compiler.store_state.record_first_built` for one of several processes that compile
    parts of the folder at once: the record is read again and written under a lock, so no shard's entries are
    lost to another's write (never raising, as the record itself)."""
    from falcon_airflow.compiler.store_state import record_first_built, recorded_store_state

    digest = hashlib.sha256(str(state_dir).encode()).hexdigest()[:16]
    try:
        cache_folder().mkdir(parents=True, exist_ok=True)
        with locked(cache_folder() / f"first-built-{digest}.lock"):
            known = recorded_store_state(folder, state_dir).first_built
            record_first_built(folder, state_dir, built, present, known)
    except OSError as problem:
        log.warning("falcon-airflow: cannot record which entities run in %s: %s", state_dir, problem)
