"""A store snapshot laid out as files: what the DAG bundle (:mod:`.store_bundle`) writes and the store's DAG file
(:mod:`.store_loader`) reads. One folder per store revision, written complete or not at all:

```
<revision>/
    falcon_store_dags.py         the DAG file: the store with the entities folder, compiled (see store_loader)
    falcon_invalid_entities.py   fails to import, listing them, while an entity is invalid (Airflow's import errors)
    store.json                   the revision, and each definition: kind, name, its own revision, its file
    entities/clusters/<name>.xml, feeds/, processes/, datasources/   (the layout the loader reads)
    entities/extensions/<extension>/<job>.properties
    state/schedule.json, state/doas.json   (the state documents the loader reads, compiler/store_state.py)
```

Issues name a stored definition ``store:<kind>/<name> (revision <n>)`` (:func:`store_display`), ``n`` being the
revision that brought that version in, so a message says where a definition is: in the store, not in a file.

An extension job is stored under its job name with its extension as the definition's ``variant``; a job stored
without one is taken for the extension whose properties fit it best.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import secrets
import shutil
from dataclasses import dataclass
from pathlib import Path

from falcon_airflow.compiler.store_state import DOAS_DOC, SCHEDULE_DOC
from falcon_airflow.entities.extension import ExtensionName, read_job
from falcon_airflow.store.database import Snapshot, StoredDefinition
from falcon_airflow.validation.extensions import EXTENSIONS_FOLDER

DAG_FILE = "falcon_store_dags.py"
MANIFEST = "store.json"
ENTITIES = "entities"
STATE = "state"
EXTENSION_KIND = "extension"
ENTITY_FOLDERS = {"cluster": "clusters", "feed": "feeds", "process": "processes", "datasource": "datasources"}
_SAFE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,199}")

DAG_FILE_TEXT = '''"""The Falcon store's revision {revision} with the entities folder, as Airflow DAGs.

Written by the store's DAG bundle (falcon_airflow.dags.store_bundle) beside the store's definitions; the DAGs are
built by falcon_airflow.dags.store_loader.
"""

from falcon_airflow.dags.store_loader import load_store_dags

globals().update(load_store_dags(__file__))
'''


INVALID_FILE = "falcon_invalid_entities.py"
INVALID_FILE_TEXT = '''"""Importing this file fails while an entity of the Falcon store's revision {revision}
or of the entities folder is invalid, with the list of them, so that the Airflow UI shows them among its import
errors; the valid entities' DAGs load from falcon_store_dags.py. Written by the store's DAG bundle.
"""

from falcon_airflow.dags.store_loader import report_store_invalid_entities

report_store_invalid_entities(__file__)
'''


class LayoutError(Exception):
    """A folder that is not a store layout (no manifest, or one that does not read)."""


def store_display(kind: str, name: str, revision: int) -> str:
    """How issues name a stored definition."""
    return f"store:{kind}/{name} (revision {revision})"


@dataclass(frozen=True)
class LaidOut:
    """One definition of the layout."""

    kind: str
    name: str
    revision: int
    file: str
    """Relative to the layout folder."""

    @property
    def display(self) -> str:
        return store_display(self.kind, self.name, self.revision)


@dataclass(frozen=True)
class Layout:
    folder: Path
    revision: int
    entries: tuple[LaidOut, ...]
    store_id: str = ""
    """The store the revision is of."""

    @property
    def entities(self) -> Path:
        return self.folder / ENTITIES

    @property
    def state(self) -> Path:
        return self.folder / STATE

    def path(self, entry: LaidOut) -> Path:
        return self.folder / entry.file

    @property
    def description(self) -> str:
        return f"the Falcon store (revision {self.revision})"


def _file_name(name: str, suffix: str) -> str:
    """A file name for a stored name: the name itself when it is a safe one (never a path, never hidden), else a
    hash of it (the manifest keeps the name)."""
    if _SAFE_NAME.fullmatch(name):
        return f"{name}{suffix}"
    return f"_{hashlib.sha256(name.encode()).hexdigest()[:24]}{suffix}"


def extension_of(definition: StoredDefinition) -> str:
    """The extension of a stored extension job: its variant, else the one its properties fit best."""
    if definition.variant in {item.value for item in ExtensionName}:
        return str(definition.variant)
    text = definition.content.decode("utf-8", errors="replace")
    scored = []
    for index, candidate in enumerate(ExtensionName):
        _, issues = read_job(candidate.value, text, definition.name)
        scored.append((sum(issue.is_error for issue in issues), index, candidate.value))
    return min(scored)[2]


def _relative_file(definition: StoredDefinition) -> str | None:
    if definition.kind in ENTITY_FOLDERS:
        return f"{ENTITIES}/{ENTITY_FOLDERS[definition.kind]}/{_file_name(definition.name, '.xml')}"
    if definition.kind == EXTENSION_KIND:
        return f"{ENTITIES}/{EXTENSIONS_FOLDER}/{extension_of(definition)}/{_file_name(definition.name, '.properties')}"
    return None


def _state_document(entries: dict[tuple[str, str], str], field: str) -> bytes:
    document = {f"{kind}/{name}": {field: value} for (kind, name), value in sorted(entries.items())}
    return (json.dumps(document, indent=2, sort_keys=True) + "\n").encode()


def _write(folder: Path, snapshot: Snapshot) -> None:
    entries = []
    for definition in snapshot.definitions:
        relative = _relative_file(definition)
        if relative is None:
            continue  # a kind this version does not know
        path = folder / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(definition.content)
        entries.append({"kind": definition.kind, "name": definition.name, "revision": definition.revision,
                        "file": relative})
    (folder / ENTITIES).mkdir(exist_ok=True)
    (folder / STATE).mkdir()
    (folder / STATE / SCHEDULE_DOC).write_bytes(_state_document(dict(snapshot.schedule_states), "state"))
    (folder / STATE / DOAS_DOC).write_bytes(_state_document(dict(snapshot.proxy_users), "user"))
    (folder / MANIFEST).write_text(json.dumps({"store": snapshot.store_id, "revision": snapshot.revision,
                                               "definitions": entries}, indent=2) + "\n", encoding="utf-8")
    (folder / INVALID_FILE).write_text(INVALID_FILE_TEXT.format(revision=snapshot.revision), encoding="utf-8")
    # last: a parse never finds the DAG file in a folder that is still being written (it is renamed whole anyway)
    (folder / DAG_FILE).write_text(DAG_FILE_TEXT.format(revision=snapshot.revision), encoding="utf-8")


def laid_out(folder: Path, store_id: str) -> bool:
    """Whether ``folder`` holds a complete layout of the store ``store_id``."""
    if not (folder / DAG_FILE).is_file():
        return False
    try:
        return read_layout(folder).store_id == store_id
    except LayoutError:
        return False


def lay_out(snapshot: Snapshot, versions: Path) -> Path:
    """``versions/<revision>`` holding the snapshot. Written in a hidden sibling and renamed into place, so the
    folder is complete or absent; one that exists already (another process laid it out) is kept as it is, unless
    it is a revision of another store (then it is set aside and replaced)."""
    target = versions / str(snapshot.revision)
    if laid_out(target, snapshot.store_id):
        return target
    versions.mkdir(parents=True, exist_ok=True)
    if target.exists():  # another store's revision of the same number (or a folder cut short): set aside
        aside = versions / f".{snapshot.revision}.{secrets.token_hex(6)}.other"
        with contextlib.suppress(FileNotFoundError):
            os.rename(target, aside)
            shutil.rmtree(aside, ignore_errors=True)
    temporary = versions / f".{snapshot.revision}.{secrets.token_hex(6)}.tmp"
    temporary.mkdir()  # mode 0o777 less the umask, as a checkout of DAG files would be
    try:
        _write(temporary, snapshot)
        try:
            os.rename(temporary, target)
        except OSError:
            if not laid_out(target, snapshot.store_id):
                raise
    finally:
        with contextlib.suppress(FileNotFoundError):
            shutil.rmtree(temporary)
    return target


def read_layout(folder: Path) -> Layout:
    """The layout in ``folder``; :class:`LayoutError` when it holds none."""
    try:
        document = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
        revision = int(document["revision"])
        store_id = str(document.get("store") or "")
        entries = tuple(LaidOut(str(item["kind"]), str(item["name"]), int(item["revision"]), str(item["file"]))
                        for item in document["definitions"])
    except (OSError, ValueError, KeyError, TypeError) as problem:
        raise LayoutError(f"{folder} is not a layout of the Falcon store ({MANIFEST}: {problem})") from None
    for entry in entries:
        if Path(entry.file).is_absolute() or ".." in Path(entry.file).parts:
            raise LayoutError(f"{folder / MANIFEST} names a file outside the layout: {entry.file}")
    return Layout(folder, revision, entries, store_id)
