"""What the store's DAG file calls: one revision of the store, laid out by its DAG bundle
(:mod:`falcon_airflow.dags.store_layout`), compiled together with the entities folder as one workspace.

* The entities folder is the one ``dags/falcon_entities.py`` would read: ``FALCON_ENTITIES_DIR``, else ``[falcon]
  entities_dir``, else ``entities/`` beside ``[core] dags_folder``. One that does not exist is no error: the store's
  definitions are compiled alone.
* References resolve across both: a process in the store may use a feed of the folder, and the other way round.
  A name defined in both is rule ``FA001`` (defined twice), whose message names the folder's file and the store's
  definition (``store:feed/clicks (revision 12)``); neither is scheduled until one goes. An extension job name in
  both is ``EXT1``, naming both too.
* The schedule states and ``-doAs`` users are the store's (the layout's state documents), over what the folder's
  state folder may still hold from before the store moved into the database. When each entity's DAGs were first
  built is recorded in the folder's state folder, as the loader does (``[falcon] store_dir``).
* Compiled specs are cached by content (every file of the folder and of the layout, the state documents, the code,
  the day), and a compilation after a change reuses the parses and entities it did not touch, as the loader's do.
  Invalid entities are logged and listed by the ``falcon.invalid-entities`` DAG; ``[falcon] strict`` fails the file.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from falcon_airflow.bulk import collector_paused
from falcon_airflow.compiler.specs import DagSpec, TransferDagSpec
from falcon_airflow.compiler.store_state import (
    DOAS_DOC,
    SCHEDULE_DOC,
    StoreState,
    record_first_built,
    recorded_store_state,
)
from falcon_airflow.dags.compile_memo import ParsedFolder, ParseKey, StoredMemo, parse_folder
from falcon_airflow.dags.compiled_cache import (
    cache_folder,
    code_fingerprint,
)
from falcon_airflow.dags.loader import (
    _config,
    _config_of,
    _entity_files,
    _state_dir,
    build_dags,
    cached_compilation,
    content_key,
    deployment_colo,
    entities_folder,
    fail_on_invalid,
)
from falcon_airflow.dags.store_layout import EXTENSION_KIND, Layout, read_layout
from falcon_airflow.entities.extension import ExtensionName
from falcon_airflow.issues import Issue
from falcon_airflow.parsing import ParsedFile, parse_read_file
from falcon_airflow.parsing.secure import read_limited
from falcon_airflow.validation.extensions import ExtensionFile

log = logging.getLogger("falcon_airflow.dags")


def store_entities_folder() -> Path:
    """The entities folder compiled with the store (the one ``dags/falcon_entities.py`` would read)."""
    dags_folder = _config_of("core", "dags_folder", "").strip()
    return entities_folder(str(Path(dags_folder).expanduser() / "falcon_entities.py") if dags_folder else None)


@dataclass
class _StoreFiles:
    files: list[ParsedFile] = field(default_factory=list)
    digests: dict[str, str] = field(default_factory=dict)
    parses: dict[ParseKey, ParsedFile] = field(default_factory=dict)
    extension_jobs: list[ExtensionFile] = field(default_factory=list)
    parsed: int = 0


def _parse_store(layout: Layout, previous: dict[ParseKey, ParsedFile]) -> _StoreFiles:
    """The layout's entity files parsed under the store's names (each parse reused when its bytes are unchanged),
    and its extension jobs."""
    found = _StoreFiles()
    for entry in layout.entries:
        path = layout.path(entry)
        if entry.kind == EXTENSION_KIND:
            with contextlib.suppress(ValueError):  # a folder of an extension this version does not know
                found.extension_jobs.append(ExtensionFile(ExtensionName(path.parent.name), path, entry.display))
            continue
        data, issue = read_limited(path, entry.display)
        if data is None:
            found.files.append(ParsedFile(entry.display, None, None, None, (issue,) if issue else ()))
            continue
        key = (entry.display, hashlib.sha256(data).hexdigest())
        parsed = previous.get(key)
        if parsed is None:
            parsed = parse_read_file(data, entry.display)
            found.parsed += 1
        found.files.append(parsed)
        found.digests[entry.display] = key[1]
        found.parses[key] = parsed
    return found


def _memo_file(folder: Path, catchup_default: bool) -> Path:
    key = hashlib.sha256(f"{code_fingerprint()}|{datetime.now(UTC).date()}|{catchup_default}|{folder}|store".encode())
    return cache_folder() / f"memo-{key.hexdigest()[:32]}.memo"


def compile_with_store(layout: Layout, folder: Path, *, catchup_default: bool) -> tuple[list[DagSpec], list[Issue]]:
    """Parse, validate and compile the folder and the layout as one workspace (the cold path)."""
    from falcon_airflow.compiler.compilation import CompileMemo, compile_workspace
    from falcon_airflow.workspace import Workspace

    memo_path = _memo_file(folder, catchup_default)
    stored = StoredMemo.read(memo_path)
    with collector_paused():
        parsed = parse_folder(folder, stored.parses) if folder.is_dir() else ParsedFolder((), {}, {}, 0)
        store = _parse_store(layout, stored.parses)
        workspace = Workspace.from_parsed([*parsed.files, *store.files])
    memo = CompileMemo(digests={**parsed.digests, **store.digests}, previous=stored.outcomes)
    state_dir = _state_dir(folder)
    kept = recorded_store_state(folder, state_dir)
    laid_out = recorded_store_state(layout.entities, layout.state)
    store_state = StoreState(proxy_users={**kept.proxy_users, **laid_out.proxy_users},
                             schedule_states={**kept.schedule_states, **laid_out.schedule_states},
                             first_built=kept.first_built)
    compilation = compile_workspace(workspace, entities_dir=folder, catchup_default=catchup_default,
                                    store_state=store_state, memo=memo, extension_jobs=store.extension_jobs,
                                    colo=deployment_colo())
    record_first_built(folder, state_dir, set(compilation.compiled),
                       {(entity.entity_type.value, entity.name) for entity in workspace.entities()},
                       store_state.first_built)
    files_parsed = len(parsed.files) - parsed.reused + store.parsed
    if not stored.parses or files_parsed or memo.reused < len(memo.recorded):
        StoredMemo({**parsed.parses, **store.parses}, memo.recorded).write(memo_path)
    log.info("falcon-airflow: compiled %s with %s: %d of %d files parsed, %d of %d entities compiled (the rest "
             "unchanged)", layout.description, folder, files_parsed, len(parsed.files) + len(store.files),
             len(memo.recorded) - memo.reused, len(memo.recorded))
    return list(compilation.specs), list(compilation.report.issues)


def store_content_key(layout: Layout, folder: Path, *, catchup_default: bool) -> str:
    """The folder's content key (:func:`falcon_airflow.dags.loader.content_key`) with the layout's definitions and
    state documents."""
    files = _entity_files(folder) if folder.is_dir() else []
    digest = hashlib.sha256(content_key(folder, files, catchup_default).encode())
    digest.update(b"\0store\0")
    for entry in layout.entries:
        digest.update(f"{entry.display}\0{entry.file}\0".encode())
        with contextlib.suppress(OSError):
            digest.update(layout.path(entry).read_bytes())
        digest.update(b"\0")
    for name in (SCHEDULE_DOC, DOAS_DOC):
        with contextlib.suppress(OSError):
            digest.update((layout.state / name).read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()[:32]


def load_store_specs(layout: Layout, folder: Path, *, catchup_default: bool = True
                     ) -> tuple[list[DagSpec], list[dict[str, Any]]]:
    """Specs and issues of the folder with the layout, from the content cache when nothing changed."""
    return cached_compilation(store_content_key(layout, folder, catchup_default=catchup_default),
                              lambda: compile_with_store(layout, folder, catchup_default=catchup_default))


def with_laid_out_datasources(specs: list[DagSpec], layout: Layout) -> list[DagSpec]:
    """The specs with each stored datasource named by its file in ``layout``.

    A datasource with a password text is read again by the task that needs it (the text never enters a spec or a
    DAG); a stored one is named ``store:datasource/<name> (revision <n>)``, which is no file. Every component that
    runs a task parses the DAG file from its own copy of the revision's layout, so the path given here is where the
    datasource is on the machine that runs the task."""
    files = {entry.display: str(layout.path(entry)) for entry in layout.entries if entry.kind == "datasource"}
    if not files:
        return specs
    rewritten: list[DagSpec] = []
    for spec in specs:
        if isinstance(spec, TransferDagSpec) and spec.database.datasource_file in files:
            database = spec.database.model_copy(update={"datasource_file": files[spec.database.datasource_file]})
            spec = spec.model_copy(update={"database": database})
        rewritten.append(spec)
    return rewritten


def load_store_dags(dags_file: str) -> dict[str, Any]:
    """Every DAG of the store's revision laid out beside ``dags_file`` and of the entities folder, by dag id (only
    the requested one on a worker)."""
    layout = read_layout(Path(dags_file).resolve().parent)
    folder = store_entities_folder()
    strict = _config("strict", "False").strip().lower() == "true"
    catchup_default = _config("catchup", "True").strip().lower() == "true"
    if folder.is_dir():
        where = f"{layout.description} and {folder}"
    else:
        where = layout.description
        log.info("falcon-airflow: the entities folder %s does not exist: compiling %s alone", folder, where)
    # as the loader does: building many DAGs allocates objects that all stay alive (see load_dags)
    with collector_paused():
        specs, issues = load_store_specs(layout, folder, catchup_default=catchup_default)
        return build_dags(with_laid_out_datasources(specs, layout), issues, where, strict=strict)


def report_store_invalid_entities(dags_file: str) -> None:
    """Raise the list of invalid entities of the store and the entities folder (file:line or store definition,
    rule, message), if any: the layout's own DAG file calls it, so Airflow shows them among its import errors while
    the valid DAGs load from ``falcon_store_dags.py`` - as ``dags/falcon_invalid_entities.py`` does for the folder
    alone. ``[falcon] invalid_entities_as_import_errors = false`` turns it off; with ``strict`` the main file fails
    with the same list."""
    if _config("invalid_entities_as_import_errors", "True").strip().lower() != "true":
        return
    if _config("strict", "False").strip().lower() == "true":
        return
    layout = read_layout(Path(dags_file).resolve().parent)
    folder = store_entities_folder()
    catchup_default = _config("catchup", "True").strip().lower() == "true"
    with collector_paused():
        _, issues = load_store_specs(layout, folder, catchup_default=catchup_default)
    fail_on_invalid(issues, f"{layout.description} and {folder}" if folder.is_dir() else layout.description)
