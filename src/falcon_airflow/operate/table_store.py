"""Falcon's configuration store in the database (:class:`~falcon_airflow.store.database.DatabaseStore`), as the
actions use it (:class:`~falcon_airflow.operate.config_store.ConfigStore`).

What the store holds is named ``store:<kind>/<name>`` (extension jobs ``store:extension/<extension>/<name>``), an
archived version ``store:<kind>/<name>@<revision>`` (the revision that retired it). Entities of the entities folder
(files the deployment ships, e.g. with git-sync) are part of the workspace too, so that a submitted process may use
a feed defined there; they are changed where they are defined, never through the store.

The database keeps every version: replacing or removing a definition retires the version in force with the
reason, so :meth:`TableStore.archive` has nothing to copy - it names the version the next write or removal
retires, and :meth:`TableStore.archived` finds it once retired.
"""

from __future__ import annotations

import contextlib
import hashlib
import re
import threading
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

from falcon_airflow.entities import EntityType
from falcon_airflow.entities.extension import ExtensionName
from falcon_airflow.operate.config_store import (
    EXTENSION_KIND,
    LOCK_WAIT_SECONDS,
    UNKNOWN,
    StoredEntity,
    Unknown,
    iso,
    kind_of,
)
from falcon_airflow.operate.outcomes import Refused
from falcon_airflow.parsing import ParsedFile, parse_read_file
from falcon_airflow.store.database import (
    ABSENT,
    SAFEMODE_KEY,
    DatabaseStore,
    StoreBusy,
    StoreConflict,
    StoredDefinition,
    _Absent,
)
from falcon_airflow.validation.extensions import extension_files
from falcon_airflow.validation.incumbents import Incumbents
from falcon_airflow.workspace import EntityFile, Workspace, collect_files

SCHEME = "store:"
_LOCATION = re.compile(r"^store:(?P<kind>[a-z]+)/(?:(?P<variant>[a-z-]+)/)?(?P<name>[^/@]+)(?:@(?P<revision>\d+))?$")
_parsed_cache: dict[tuple[str, str, bytes], ParsedFile] = {}
_cache_lock = threading.Lock()
CACHE_LIMIT = 50_000
"""Parsed definitions kept per process, by kind, name and a digest of the bytes (not by revision: another store,
or a database made anew, counts its revisions alike)."""

Definitions = dict[tuple[str, str], StoredDefinition]


class _Revision:
    """What one revision of one store holds, as read once: its definitions in force, and the workspace they make
    with the entities folder's files (made when first asked for)."""

    def __init__(self, definitions: Definitions, folder_files: list[EntityFile]) -> None:
        self.definitions = definitions
        self.folder_files = folder_files
        self.workspace: Workspace | None = None


_revisions: dict[tuple[str, str, int, tuple[tuple[str, int, int], ...]], _Revision] = {}
REVISIONS_KEPT = 4
"""Revisions kept per process: a server answers most requests from the newest, while a request that began before a
change may still be reading the one before."""


def location(kind: str, name: str, variant: str | None = None, revision: int | None = None) -> Path:
    text = f"{SCHEME}{kind}/{variant + '/' if variant else ''}{name}"
    return Path(text if revision is None else f"{text}@{revision}")


def _located(path: Path) -> tuple[str, str | None, str, int | None] | None:
    """``(kind, variant, name, revision)`` of a store location, ``None`` for a file."""
    found = _LOCATION.match(str(path))
    if found is None:
        return None
    revision = found.group("revision")
    return found.group("kind"), found.group("variant"), found.group("name"), int(revision) if revision else None


def _parsed(definition: StoredDefinition) -> ParsedFile:
    key = (definition.kind, definition.name, hashlib.blake2b(definition.content, digest_size=20).digest())
    with _cache_lock:
        cached = _parsed_cache.get(key)
    if cached is not None:
        return cached
    parsed = parse_read_file(definition.content, str(location(definition.kind, definition.name)))
    with _cache_lock:
        if len(_parsed_cache) >= CACHE_LIMIT:
            _parsed_cache.clear()
        _parsed_cache[key] = parsed
    return parsed


class TableStore:
    """The store in the ``falcon_*`` tables, with the entities folder (read only) beside it."""

    def __init__(self, database: DatabaseStore, entities: Path | None = None, *,
                 lease_seconds: float = 300.0) -> None:
        self.database = database
        self.entities_folder = entities if entities is not None and entities.is_dir() else None
        self.lease_seconds = lease_seconds
        self._revision: _Revision | None = None

    # -- definitions ----------------------------------------------------------------------------------------------

    def _folder_files(self) -> tuple[list[EntityFile], tuple[tuple[str, int, int], ...]]:
        """The entities folder's files, and each with its modification time and size: a change there makes another
        workspace even when the store's revision stays."""
        if self.entities_folder is None:
            return [], ()
        files = collect_files([str(self.entities_folder)])
        stamps = []
        for item in files:
            status = item.path.stat()
            stamps.append((str(item.path), status.st_mtime_ns, status.st_size))
        return files, tuple(stamps)

    def _read(self) -> _Revision:
        """The store's newest revision, read once per process and revision (and entities folder): requests that
        change nothing cost one query of the revision, not a read of every definition."""
        if self._revision is None:
            folder_files, stamps = self._folder_files()
            key = (str(self.database.engine.url), self.database.store_id(), self.database.revision(), stamps)
            with _cache_lock:
                known = _revisions.get(key)
            if known is None:
                known = _Revision({(item.kind, item.name): item for item in self.database.definitions()},
                                  folder_files)
                # kept only if no change landed while the definitions were read: the revision names what they hold
                if self.database.revision() == key[2]:
                    with _cache_lock:
                        while len(_revisions) >= REVISIONS_KEPT:
                            _revisions.pop(next(iter(_revisions)))
                        _revisions[key] = known
            self._revision = known
        return self._revision

    def _current(self) -> Definitions:
        return self._read().definitions

    def workspace(self) -> Workspace:
        """The entities folder's files and the store's definitions, as one workspace (a name in both is Falcon's
        duplicate, reported by validation with both places)."""
        revision = self._read()
        with _cache_lock:
            made = revision.workspace
        if made is None:
            files = [parse_read_file(item.path.read_bytes(), item.display) for item in revision.folder_files]
            stored = [_parsed(item) for (kind, _), item in sorted(revision.definitions.items())
                      if kind != EXTENSION_KIND]
            made = Workspace.from_parsed([*files, *stored])
            with _cache_lock:
                revision.workspace = made
        return made

    def forget_cache(self) -> None:
        self._revision = None

    def _stored(self, entity_type: EntityType, name: str, path: str) -> StoredEntity | None:
        entity = self.workspace().get(entity_type, name)
        if entity is None:
            return None
        definition = self._current().get((entity_type.value, name))
        if definition is not None and entity.source.file == path:
            return StoredEntity(entity, location(definition.kind, definition.name), definition.content)
        return StoredEntity(entity, Path(entity.source.file))

    def get(self, entity_type: EntityType, name: str) -> StoredEntity | None:
        return self._stored(entity_type, name, str(location(entity_type.value, name)))

    def entities(self) -> list[StoredEntity]:
        found = []
        for entity in self.workspace().entities():
            stored = self._stored(entity.entity_type, entity.name, str(location(entity.entity_type.value,
                                                                                 entity.name)))
            if stored is not None:
                found.append(stored)
        return found

    def path_for_new(self, entity_type: EntityType, name: str) -> Path:
        return location(entity_type.value, name)

    def check_changeable(self, path: Path) -> None:
        self._require_store(path)

    def _require_store(self, path: Path) -> tuple[str, str | None, str]:
        located = _located(path)
        if located is None or located[3] is not None:
            raise Refused(f"{path} is defined in the entities folder, not in the store: change it there")
        return located[0], located[1], located[2]

    def read(self, path: Path) -> bytes | None:
        located = _located(path)
        if located is None:
            try:
                return path.read_bytes()
            except FileNotFoundError:
                return None
        definition = self.database.current(located[0], located[2])
        return None if definition is None else definition.content

    def write(self, path: Path, data: bytes, *, replaces: bytes | Unknown | None = UNKNOWN) -> None:
        """Compare and set: the version in force must still be ``replaces`` (``None``: no definition), else another
        server changed it since the action looked, and the write is refused."""
        kind, variant, name = self._require_store(path)
        present = self.database.current(kind, name)
        if isinstance(replaces, Unknown):
            expected: bytes | _Absent = ABSENT if present is None else present.content
        else:
            expected = ABSENT if replaces is None else replaces
        try:
            self.database.put(kind, name, data, user=self._acting, variant=variant, replaces=expected,
                              reason="submit" if present is None else self._reason)
        except StoreConflict as conflict:
            raise Refused(str(conflict)) from None
        finally:
            self.forget_cache()

    def remove(self, path: Path) -> None:
        kind, _, name = self._require_store(path)
        present = self.database.current(kind, name)
        if present is None:
            return
        try:
            self.database.remove(kind, name, user=self._acting, replaces=present.content)
        except StoreConflict as conflict:
            raise Refused(str(conflict)) from None
        finally:
            self.forget_cache()

    # Who changes a definition and why: the action's user (act_as), and the archive step of an update says why
    # before the write that retires the version (the database records both with the retired version).
    _acting = "falcon"
    _reason = "update"

    reparse_on_change = False
    """The store's DAG bundle lays out and parses each new revision on its refresh (docs/server.md)."""

    def bundle_revision(self) -> int | None:
        return self.database.revision()

    def act_as(self, user: str) -> None:
        self._acting = user

    # -- archive: every retired version is kept ---------------------------------------------------------------------

    def plan_archive(self, entity_type: EntityType | str, name: str, moment: datetime | None = None) -> Path:
        """The version that the next change of the entity retires: named by the revision that will retire it,
        which the journal keeps (the revision after the newest; a later one when others changed the store in
        between, found by :meth:`archived` through the bytes)."""
        return location(kind_of(entity_type), name, revision=self.database.revision() + 1)

    def archive(self, entity_type: EntityType | str, name: str, data: bytes, *, reason: str, user: str,
                source: Path | None = None, moment: datetime | None = None, target: Path | None = None) -> Path:
        """Nothing to copy: the write or removal that follows retires the version in force, with ``reason`` and
        ``user``. The returned name is where it will be found."""
        self._acting, self._reason = user, reason
        return target if target is not None else self.plan_archive(entity_type, name, moment)

    def archived(self, target: Path) -> bytes | None:
        """The retired version a planned archive name stands for, once a change retired it."""
        located = _located(target)
        if located is None:
            return None
        kind, _, name, revision = located
        for version in reversed(self.database.history(kind, name)):
            if revision is None or (version.retired is not None and version.retired >= revision):
                return version.content
        return None

    def unarchive(self, target: Path) -> None:
        """An action undone before its change retired anything: nothing was archived, nothing to remove."""

    def history(self, entity_type: EntityType | str, name: str) -> list[Path]:
        kind = kind_of(entity_type)
        return [location(kind, name, version.variant, version.retired) for version in self.database.history(kind, name)]

    # -- extension jobs -------------------------------------------------------------------------------------------

    def extension_jobs(self) -> dict[str, tuple[ExtensionName, Path]]:
        found: dict[str, tuple[ExtensionName, Path]] = {}
        if self.entities_folder is not None:
            found.update({path.stem: (extension, path) for extension, path in extension_files(self.entities_folder)})
        for (kind, name), item in self._current().items():
            if kind == EXTENSION_KIND and item.variant in {extension.value for extension in ExtensionName}:
                found[name] = (ExtensionName(item.variant), location(kind, name, item.variant))
        return found

    def extension_path(self, extension: ExtensionName, name: str) -> Path:
        return location(EXTENSION_KIND, name, extension.value)

    # -- state ----------------------------------------------------------------------------------------------------

    @property
    def safemode(self) -> bool:
        return self.database.safemode

    def safemode_record(self) -> dict[str, Any]:
        record = self.database.setting_record(SAFEMODE_KEY)
        if record is None:
            return {}
        value, by, since = record
        return {"safemode": bool(value), "since": iso(since), "by": by}

    def set_safemode(self, value: bool, *, user: str) -> None:
        self.database.set_safemode(value, user=user)

    def schedule_state(self, entity_type: EntityType | str, name: str) -> str | None:
        return self.database.schedule_state(kind_of(entity_type), name)

    def schedule_states(self) -> dict[tuple[str, str], str]:
        return self.database.schedule_states()

    def set_schedule_state(self, entity_type: EntityType | str, name: str, state: str | None, *, user: str) -> None:
        self.database.set_schedule_state(kind_of(entity_type), name, state, user=user)

    def proxy_user(self, entity_type: EntityType | str, name: str) -> str | None:
        return self.database.proxy_user(kind_of(entity_type), name)

    def set_proxy_user(self, entity_type: EntityType | str, name: str, user: str | None, *, action: str) -> None:
        self.database.set_proxy_user(kind_of(entity_type), name, user, action=action)

    def incumbents(self) -> Incumbents:
        """Entities scheduled in the store outrank the others; of the rest, the one submitted first (the definitions
        this store read already, not a second read of every definition's bytes)."""
        return Incumbents(frozenset(self.database.schedule_states()),
                          {key: item.submitted_at.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
                           for key, item in self._current().items()})

    # -- journals, audit trail, lock ----------------------------------------------------------------------------------

    def journal_location(self, identifier: str) -> Path:
        return Path(f"{SCHEME}journal/{identifier}")

    def save_journal(self, identifier: str, text: str) -> None:
        self.database.save_journal(identifier, text)

    def drop_journal(self, identifier: str) -> None:
        self.database.drop_journal(identifier)

    def journal_documents(self) -> list[tuple[str, Path, str | None]]:
        return [(identifier, self.journal_location(identifier), text)
                for identifier, text in self.database.journals()]

    @property
    def audit_location(self) -> str:
        return "the falcon_audit table"

    def prepare_audit(self) -> None:
        """The table exists (``airflow db migrate``)."""

    def append_audit(self, line: str) -> None:
        try:
            self.database.append_audit(line)
        except Exception as problem:  # the trail is what shows who did what: a failure to write it refuses
            raise OSError(f"the audit trail could not be written: {problem}") from problem

    def audit_lines(self) -> Iterator[str]:
        yield from self.database.audit_lines()

    @contextlib.contextmanager
    def lock(self, wait_seconds: float = LOCK_WAIT_SECONDS) -> Iterator[None]:
        """The store's lease: one server changes the store at a time."""
        try:
            with self.database.lease(wait_seconds=wait_seconds, term_seconds=self.lease_seconds):
                yield
        except StoreBusy as busy:
            raise Refused(str(busy)) from None
