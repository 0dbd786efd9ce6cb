"""What the dags/ file calls: the entities folder compiled into Airflow DAGs, fast and fault-isolated.

* The folder: ``FALCON_ENTITIES_DIR``, else ``[falcon] entities_dir``, else ``entities/`` beside the dags folder.
* Compilation is cached by content: the key is a hash of every entity file's status, and of the bytes of the
  files changed too recently for their status to tell (:func:`status_key`), with the code, the specs' schema and
  the day, since rule P10 depends on "now"; a re-parse with unchanged XML reads the compiled specs back instead of
  parsing, validating and compiling again (the cache's files: ``compiled_cache``). After a change, only the files
  and entities it affects are parsed and compiled again (``compile_memo``); each shard file compiles only its own
  entities (``shard_compile``).
* A worker that runs one task builds only that task's DAG (``get_parsing_context().dag_id``).
* A newcomer never takes running entities down: when a file dropped in collides with an entity that runs already
  (FA008, FA009), only the newcomer is invalid; the loader records when it first built each entity's DAGs
  (:mod:`falcon_airflow.validation.incumbents`).
* Invalid entities never hide the valid ones: they are left out, their problems (file:line, rule) are logged and
  shown in the Airflow UI as the ``falcon.invalid-entities`` DAG (its docs list them; running it fails with
  them) and, through the second DAG file ``falcon_invalid_entities.py``, as a DAG import error naming each invalid
  entity's file, line and rule (``[falcon] invalid_entities_as_import_errors = false`` turns that off). With
  ``[falcon] strict = true`` the main DAG file fails instead (and a shard file whose own entities fail to compile),
  so CI sees an import error.
* With ``[falcon] store = database`` these files build nothing: the store's DAG bundle compiles the entities folder
  together with the store's definitions (:mod:`falcon_airflow.dags.store_bundle`, ``store_loader``).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import logging
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NoReturn

from pydantic import TypeAdapter

from falcon_airflow.bulk import collector_paused
from falcon_airflow.compiler.specs import DagSpec
from falcon_airflow.compiler.store_state import (
    record_first_built,
    recorded_store_state,
    state_files,
    state_folder,
)
from falcon_airflow.dags.compiled_cache import (
    cache_folder,
    code_fingerprint,
    mark_used,
    prune_cache,
    read_pickled,
    write_pickled,
)
from falcon_airflow.issues import Issue

log = logging.getLogger("falcon_airflow.dags")

INVALID_DAG_ID = "falcon.invalid-entities"
_SPECS = TypeAdapter(list[DagSpec])


class InvalidEntitiesError(Exception):
    """Raised in strict mode: the DAG file fails so that CI reports the invalid entities."""


class InvalidFalconEntities(Exception):
    """The list of invalid entities, as the cause of :class:`InvalidEntitiesError` (see :func:`fail_listing`)."""


def fail_listing(listing: str) -> NoReturn:
    """Fail the DAG file being parsed with ``listing`` (the invalid entities, each ``file:line [rule] ...``) as the
    first thing Airflow's import-error dialog shows.

    With ``[core] dagbag_import_error_tracebacks`` on (Airflow's default) Airflow records a failed file as its
    traceback, which opens with Python's frames and ends with the message. The listing is therefore raised as the
    cause of the error, never raised itself: it has no frames, and Python prints a cause first, as one plain line
    per entity. The frames of the DAG file follow it. With tracebacks off Airflow records the error's message,
    which is then the listing itself."""
    if _config_of("core", "dagbag_import_error_tracebacks", "True").strip().lower() != "true":
        raise InvalidEntitiesError(listing)
    raise InvalidEntitiesError("the invalid Falcon entities are listed above") from InvalidFalconEntities(listing)


def _config(key: str, fallback: str) -> str:
    return _config_of("falcon", key, fallback)


def _config_of(section: str, key: str, fallback: str) -> str:
    try:
        from airflow.sdk import conf

        return str(conf.get(section, key, fallback=fallback))
    except Exception:  # no Airflow configuration: use the default
        return fallback


def deployment_colo() -> str | None:
    """This deployment's colo (``[falcon] colo``): only the DAGs that run in it are built; none, every DAG."""
    return _config("colo", "").strip() or None


def _state_dir(folder: Path) -> Path:
    """Where the entity commands keep their state for this folder (``[falcon] store_dir``, see store_state)."""
    return state_folder(folder, _config("store_dir", ""))


def entities_folder(dags_file: str | None = None) -> Path:
    explicit = os.environ.get("FALCON_ENTITIES_DIR") or _config("entities_dir", "")
    if explicit:
        return Path(explicit).expanduser().resolve()
    anchor = Path(dags_file).resolve().parent if dags_file else Path.cwd() / "dags"
    return (anchor.parent / "entities").resolve()


def _entity_files(folder: Path) -> list[Path]:
    files: list[Path] = []
    for root, directories, names in os.walk(folder):
        directories[:] = sorted(name for name in directories if not name.startswith("."))
        files.extend(Path(root) / name for name in sorted(names)
                     if name.endswith((".xml", ".properties")) and not name.startswith("."))
    return files


@functools.cache
def spec_schema_fingerprint() -> str:
    """A hash of the specs' JSON schema: a cache written by code whose models differ is never unpickled."""
    schema = json.dumps(_SPECS.json_schema(mode="serialization"), sort_keys=True)
    return hashlib.sha256(schema.encode()).hexdigest()[:16]


RACY_SECONDS = 3.0
"""A file changed this recently enters the content key by its bytes as well as its status (see content_key)."""


def content_key(folder: Path, files: list[Path], catchup_default: bool) -> str:
    """A key for the folder's content as it is now: equal keys mean equal compilations. The files' status
    (:func:`status_key`), and the bytes of every file changed too recently for its status to tell a later change;
    once such a file is older the key changes (its bytes no longer in it), and the folder is compiled again once
    (from the memo: nothing changed)."""
    key, racy = status_key(folder, files, catchup_default)
    if not racy:
        return key
    digest = hashlib.sha256(key.encode())
    for path, data in racy_digests(folder, racy).items():
        digest.update(f"\0{path}\0{data}".encode())
    return digest.hexdigest()[:32]


def status_key(folder: Path, files: list[Path], catchup_default: bool) -> tuple[str, list[Path]]:
    """A key of the folder's files by their status, and the files changed in the last ``RACY_SECONDS``.

    Each entity file enters by its status (size, modification and change times in nanoseconds, inode and device),
    as git's index tells a changed file: reading every byte of 10,000 files at every parse costs more than a shard
    file's whole warm parse can spare. Any write changes the change time, which nothing can set back (``touch``
    and ``cp -p`` set the modification time only), and a file replaced by a rename has another inode. The one
    write a status can miss is a second one of the same size within the file system's timestamp resolution: a
    file changed that recently is "racy" (git's word), and whoever keys a compilation by this key must also check
    the racy files' bytes (:func:`content_key`; the shard files: ``shard_compile``)."""
    digest = hashlib.sha256(f"{code_fingerprint()}|{spec_schema_fingerprint()}|{datetime.now(UTC).date()}|"
                            f"{catchup_default}|{folder}|{deployment_colo()}".encode())
    racy_after = time.time_ns() - int(RACY_SECONDS * 1e9)
    racy: list[Path] = []
    for path in files:
        digest.update(str(path.relative_to(folder)).encode())
        status = path.stat()
        digest.update(f"\0{status.st_size}:{status.st_mtime_ns}:{status.st_ctime_ns}:{status.st_ino}:"
                      f"{status.st_dev}\0".encode())
        if max(status.st_mtime_ns, status.st_ctime_ns) >= racy_after:
            racy.append(path)
    # The store's records (-doAs users, schedule states) change what is compiled just as the XML does.
    for path in state_files(folder, _state_dir(folder)):
        digest.update(path.name.encode())
        digest.update(b"\0")
        with contextlib.suppress(OSError):
            digest.update(path.read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()[:32], racy


def racy_digests(folder: Path, files: list[Path]) -> dict[str, str]:
    """The hash of each file's bytes by its path in the folder (a file gone: empty)."""
    found: dict[str, str] = {}
    for path in files:
        try:
            found[str(path.relative_to(folder))] = hashlib.sha256(path.read_bytes()).hexdigest()
        except OSError:
            found[str(path.relative_to(folder))] = ""
    return found


MEMO_REWRITE_MINIMUM = 20
MEMO_REWRITE_SHARE = 0.01
"""The memo is written when there is none, and again once a compilation redoes more than this many (share of)
files and entities."""


@dataclass(frozen=True)
class FolderCompilation:
    specs: list[DagSpec]
    issues: list[Issue]
    files: int
    files_parsed: int
    """Files parsed by this compilation; the others' parses came from the memo."""
    entities: int
    entities_compiled: int
    """Entities compiled by this compilation; the others' specs came from the memo."""


def compile_folder(folder: Path, *, catchup_default: bool) -> tuple[list[DagSpec], list[Issue]]:
    """Parse, validate and compile (the cold path); the result as specs plus every issue."""
    compilation = compile_folder_reusing(folder, catchup_default=catchup_default)
    return compilation.specs, compilation.issues


def compile_folder_reusing(folder: Path, *, catchup_default: bool) -> FolderCompilation:
    """:func:`compile_folder`, taking the parses and entities whose files did not change since the folder's last
    compilation today from its memo (:mod:`falcon_airflow.dags.compile_memo`)."""
    from falcon_airflow.bulk import collector_paused
    from falcon_airflow.compiler.compilation import CompileMemo, compile_workspace
    from falcon_airflow.dags.compile_memo import StoredMemo, memo_file, parse_folder
    from falcon_airflow.workspace import Workspace

    path = memo_file(folder, catchup_default=catchup_default)
    stored = StoredMemo.read(path)
    with collector_paused():
        parsed = parse_folder(folder, stored.parses)
        workspace = Workspace.from_parsed(parsed.files)
    memo = CompileMemo(digests=parsed.digests, previous=stored.outcomes)
    state_dir = _state_dir(folder)
    store_state = recorded_store_state(folder, state_dir)
    compilation = compile_workspace(workspace, entities_dir=folder, catchup_default=catchup_default,
                                    store_state=store_state, memo=memo, colo=deployment_colo())
    record_first_built(folder, state_dir, set(compilation.compiled),
                       {(entity.entity_type.value, entity.name) for entity in workspace.entities()},
                       store_state.first_built)
    result = FolderCompilation(list(compilation.specs), list(compilation.report.issues), files=len(parsed.files),
                               files_parsed=len(parsed.files) - parsed.reused, entities=len(memo.recorded),
                               entities_compiled=len(memo.recorded) - memo.reused)
    if not stored.parses or result.files_parsed + result.entities_compiled > max(
            MEMO_REWRITE_MINIMUM, MEMO_REWRITE_SHARE * (result.files + result.entities)):
        # Rewriting the memo costs about as much as reading it; after a few edits it is cheaper to leave it be
        # and redo those few entities at every compilation until they add up.
        StoredMemo(parsed.parses, memo.recorded).write(path)
    log.info("falcon-airflow: compiled %s: %d of %d files parsed, %d of %d entities compiled (the rest unchanged)",
             folder, result.files_parsed, result.files, result.entities_compiled, result.entities)
    return result


def _issue_dict(issue: Issue) -> dict[str, Any]:
    return {"level": issue.level.value, "rule": issue.rule, "file": issue.file, "line": issue.line,
            "entity": issue.entity, "message": issue.message}


def load_specs(folder: Path, *, catchup_default: bool = True) -> tuple[list[DagSpec], list[dict[str, Any]]]:
    """Specs and issues of a folder, from the content cache when the files did not change."""
    files = _entity_files(folder)
    return cached_compilation(content_key(folder, files, catchup_default),
                              lambda: compile_folder(folder, catchup_default=catchup_default))


def cached_compilation(key: str, compile_now: Callable[[], tuple[list[DagSpec], list[Issue]]]
                       ) -> tuple[list[DagSpec], list[dict[str, Any]]]:
    """Specs and issues from the content cache under ``key``, else compiled now and cached (a cache that cannot be
    written is logged, never fatal)."""
    cached = cache_folder() / f"{key}.pickle"
    data = read_pickled(cached)
    if isinstance(data, dict) and isinstance(data.get("specs"), list) and isinstance(data.get("issues"), list):
        mark_used(cached)
        return data["specs"], data["issues"]
    specs, issues = compile_now()
    issue_dicts = [_issue_dict(issue) for issue in issues]
    try:
        cached.parent.mkdir(parents=True, exist_ok=True)
        write_pickled(cached, {"specs": specs, "issues": issue_dicts})
        prune_cache(cached)
    except OSError as problem:
        log.warning("cannot write the compiled cache %s: %s", cached, problem)
    return specs, issue_dicts


def _describe(issue: dict[str, Any]) -> str:
    where = f"{issue['file']}:{issue['line']}" if issue.get("line") else str(issue.get("file") or "<workspace>")
    entity = f" {issue['entity']}:" if issue.get("entity") else ""
    return f"{where}: {issue['level']} [{issue['rule']}]{entity} {issue['message']}"


def _invalid_entities_dag(errors: list[dict[str, Any]], folder: Path | str, dag_id: str = INVALID_DAG_ID) -> Any:
    from airflow.sdk import DAG

    from falcon_airflow.provider.operators.report import FailWithIssuesOperator

    listing = "\n".join(f"- `{_describe(issue)}`" for issue in errors)
    same = f" (`falcon-airflow validate {folder}` shows the same list)" if isinstance(folder, Path) else ""
    doc = (f"### Invalid Falcon entities in `{folder}`\n\nThese definitions are not scheduled until they are "
           f"fixed{same}:\n\n{listing}\n")
    with DAG(dag_id, schedule=None, tags=["falcon", "invalid"], doc_md=doc,
             default_args={"owner": "falcon"}) as dag:
        FailWithIssuesOperator(task_id="report", issues=[_describe(issue) for issue in errors])
    return dag


def report_invalid_entities(dags_file: str | None = None, *, folder: Path | None = None) -> None:
    """Raise :class:`InvalidEntitiesError` listing the invalid entities, if any: called by a DAG file of its own,
    so Airflow records it as that file's import error while the valid DAGs load from the main file."""
    if _config("invalid_entities_as_import_errors", "True").strip().lower() != "true":
        return
    if store_in_database():
        return  # the store's DAG bundle compiles the folder and reports its entities
    if _config("strict", "False").strip().lower() == "true":
        return  # the main DAG file already fails with the same list
    folder = folder or entities_folder(dags_file)
    if not folder.is_dir():
        return  # the main DAG file logs it
    catchup_default = _config("catchup", "True").strip().lower() == "true"
    count, _ = _sharding(str(Path(dags_file).parent / "falcon_entities.py") if dags_file else None)
    if count > 1:  # the issues the shard files' compilation recorded (every shard's): no compilation of its own
        from falcon_airflow.dags.shards import load_shard

        _, issues = load_shard(folder, catchup_default=catchup_default, count=count, shard=None)
    else:
        _, issues = load_specs(folder, catchup_default=catchup_default)
    fail_on_invalid(issues, str(folder))


def fail_on_invalid(issues: list[dict[str, Any]], where: str) -> None:
    """Raise the listing of the invalid entities among ``issues`` (:func:`fail_listing`), if there are any."""
    errors = [issue for issue in issues if issue["level"] == "error"]
    if errors:
        fail_listing(
            f"{len({(issue.get('file'), issue.get('entity')) for issue in errors})} invalid Falcon entit(y/ies) in "
            f"{where} (not scheduled until fixed; the other entities run):\n"
            + "\n".join(_describe(issue) for issue in errors))


def _sharding(dags_file: str | None) -> tuple[int, int | None]:
    """(shard count, this file's shard) for a shard DAG file (see falcon_airflow.dags.shards); (1, None) else."""
    from falcon_airflow.dags.shards import DEFAULT_SHARDS, shard_count, shard_index

    index = shard_index(dags_file) if dags_file else None
    if dags_file is None or index is None:
        return 1, None
    try:
        configured = int(_config("dag_shards", str(DEFAULT_SHARDS)))
    except ValueError:
        log.error("falcon-airflow: [falcon] dag_shards must be a number; using %d", DEFAULT_SHARDS)
        configured = DEFAULT_SHARDS
    count = shard_count(dags_file, configured)
    return count, index


def store_in_database() -> bool:
    """``[falcon] store = database``: the store is in Airflow's metadata database, and its DAG bundle
    (:mod:`falcon_airflow.dags.store_bundle`) builds the DAGs of the store and of the entities folder together, so
    the dags folder's files build none (a DAG id in two bundles would be a clash)."""
    return _config("store", "folder").strip().lower() == "database"


def load_dags(dags_file: str | None = None, *, folder: Path | None = None,
              strict: bool | None = None) -> dict[str, Any]:
    """Every DAG of the entities folder by dag id (only the requested one on a worker); from a shard DAG file,
    only that shard's DAGs (the invalid-entities DAG is in shard 0). None with ``[falcon] store = database``
    (:func:`store_in_database`)."""
    if store_in_database():
        log.info("falcon-airflow: [falcon] store is database: the store's DAG bundle builds the entities' DAGs, "
                 "%s builds none", dags_file or "this DAG file")
        return {}
    folder = folder or entities_folder(dags_file)
    if strict is None:
        strict = _config("strict", "False").strip().lower() == "true"
    catchup_default = _config("catchup", "True").strip().lower() == "true"
    if not folder.is_dir():
        message = f"falcon-airflow: the entities folder {folder} does not exist"
        if strict:
            raise InvalidEntitiesError(message)
        log.error(message)
        return {}
    count, shard = _sharding(dags_file)
    if shard is not None and shard >= count:
        return {}  # a shard file beyond [falcon] dag_shards: its entities are in the other files
    # Building thousands of DAGs allocates millions of objects that all stay alive: every collection the
    # allocations trigger walks the growing heap for nothing (a quarter to a third of a warm parse's CPU).
    with collector_paused():
        return _load_and_build(folder, dags_file, strict=strict, catchup_default=catchup_default, count=count,
                               shard=shard)


def _load_and_build(folder: Path, dags_file: str | None, *, strict: bool, catchup_default: bool, count: int,
                    shard: int | None) -> dict[str, Any]:
    from falcon_airflow.dags.shards import load_shard

    if count > 1:
        specs, issues = load_shard(folder, catchup_default=catchup_default, count=count, shard=shard)
    else:
        specs, issues = load_specs(folder, catchup_default=catchup_default)
    return build_dags(specs, issues, folder, strict=strict, shard=shard)


def build_dags(specs: list[DagSpec], issues: list[dict[str, Any]], where: Path | str, *, strict: bool,
               shard: int | None = None) -> dict[str, Any]:
    """The DAGs of compiled specs by dag id (only the requested one on a worker), with the invalid-entities DAG
    listing the errors; ``where`` is what the entities were compiled from (a folder, or a description)."""
    from airflow.sdk import get_parsing_context

    from falcon_airflow.dags.builder import DeploymentSettings, build_dag

    # Each issue is given to one shard, which reports it (log, strict mode, its invalid-entities DAG), so that each is
    # listed once: shard 0 the folder's validation issues, every shard the compile issues of its own entities (see
    # shards.load_shard). A DAG that fails to build is reported by the shard that builds it.
    reporting = shard is None or shard == 0
    errors = [issue for issue in issues if issue["level"] == "error"]
    for issue in issues:
        (log.error if issue["level"] == "error" else log.warning)("falcon-airflow: %s", _describe(issue))
    if errors and strict:
        fail_listing("invalid Falcon entities:\n" + "\n".join(_describe(issue) for issue in errors))
    wanted = get_parsing_context().dag_id
    dags: dict[str, Any] = {}
    settings = DeploymentSettings.from_config()
    for spec in specs:
        if wanted is not None and spec.dag_id != wanted:
            continue
        try:
            dags[spec.dag_id] = build_dag(spec, settings)
        except Exception as problem:  # one DAG that cannot be built must not hide the others
            log.exception("falcon-airflow: cannot build DAG %s from %s:%s", spec.dag_id, spec.source.file,
                          spec.source.line)
            errors.append({"level": "error", "rule": "FA102", "file": spec.source.file, "line": spec.source.line,
                           "entity": spec.source.name, "message": f"cannot build DAG {spec.dag_id}: {problem}"})
    report_id = INVALID_DAG_ID if reporting else f"{INVALID_DAG_ID}.shard-{shard}"
    if errors and (wanted is None or wanted == report_id):
        dags[report_id] = _invalid_entities_dag(errors, where, report_id)
    return dags
