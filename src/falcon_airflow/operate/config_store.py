"""The configuration store: the entities folder the dags/ loader compiles, plus what the commands remember.

Layout (hidden folders are never read by the loader or by ``validate``)::

    <store>/clusters|feeds|processes|datasources/<name>.xml    where -submit writes a new definition
    <store>/...any other *.xml...                              entities dropped in by hand are found too
    <state>/archive/<type>/<name>/<yyyyMMddTHHmmss.ffffffZ>.xml   every replaced or deleted definition
    <state>/archive/<type>/<name>/<same stamp>.json              why (update/delete), by whom, from which file
    <state>/safemode.json       admin -setsafemode
    <state>/schedule.json       per entity: RUNNING or SUSPENDED once it was scheduled (absent: SUBMITTED)
    <state>/doas.json           per entity: the -doAs user, to be Spark's proxy user
    <state>/journal/*.json      multi-step actions in flight (see journal.py)
    <state>/lock                serialises commands that change the store

``<state>`` is outside the entities folder (often a git checkout): ``[falcon] store_dir``, by default under the
Airflow home (see :func:`falcon_airflow.compiler.store_state.state_folder`). A store whose state is still in
``<store>/.falcon`` and ``<store>/.archive`` (older versions) is moved there by the first command that uses it.

Every write is atomic: a temporary file in the same folder (hidden, so a concurrent parse never sees it), fsync,
then ``os.replace``.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from falcon_airflow.compiler.store_state import (
    DOAS_DOC,
    SCHEDULE_DOC,
    legacy_state_folder,
    recorded_store_state,
    state_folder,
)
from falcon_airflow.core.times import format_timestamp
from falcon_airflow.entities import Entity, EntityType
from falcon_airflow.entities.extension import ExtensionName
from falcon_airflow.operate.folder_workspaces import folder_workspace
from falcon_airflow.operate.outcomes import Refused
from falcon_airflow.validation.extensions import EXTENSIONS_FOLDER, extension_files
from falcon_airflow.validation.incumbents import Incumbents
from falcon_airflow.workspace import Workspace

TYPE_FOLDERS = {EntityType.CLUSTER: "clusters", EntityType.FEED: "feeds", EntityType.PROCESS: "processes",
                EntityType.DATASOURCE: "datasources"}
ARCHIVE_FOLDER = ".archive"
JOURNAL_FOLDER = "journal"
AUDIT_LOG = "audit.log"
SAFEMODE_DOC = "safemode.json"
LOCK_WAIT_SECONDS = 60.0


def stamp(moment: datetime | None = None) -> str:
    """A sortable UTC timestamp for file names: ``20260301T053000.123456Z``."""
    return (moment or datetime.now(UTC)).astimezone(UTC).strftime("%Y%m%dT%H%M%S.%fZ")


def iso(moment: datetime | None = None) -> str:
    return format_timestamp(moment or datetime.now(UTC))


EXTENSION_KIND = "extension"
"""Extension jobs are kept beside the entities: their records under this kind, their history as properties."""


def kind_of(entity_type: EntityType | str) -> str:
    """The record kind of an entity type, or of an extension job."""
    return EXTENSION_KIND if entity_type == EXTENSION_KIND else EntityType(entity_type).value


def _suffix(kind: str) -> str:
    return ".properties" if kind == EXTENSION_KIND else ".xml"


def entity_key(entity_type: EntityType | str, name: str) -> str:
    return f"{kind_of(entity_type)}/{name}"


def write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` so that a reader sees the old content or the new one, never a part."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    _fsync_folder(path.parent)


def _fsync_folder(folder: Path) -> None:
    with contextlib.suppress(OSError):
        descriptor = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(descriptor)
        finally:
            os.close(descriptor)


@dataclass(frozen=True)
class StoredEntity:
    """An entity of the store and where it is defined: a file of the folder, or a store location (``store:...``)
    whose bytes come along."""

    entity: Entity
    path: Path
    content: bytes | None = None

    @property
    def key(self) -> str:
        return entity_key(self.entity.entity_type, self.entity.name)

    def read_bytes(self) -> bytes:
        return self.content if self.content is not None else self.path.read_bytes()


class Unknown:
    """What a write replaces when the caller does not say (a journal of an earlier version)."""

    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN = Unknown()


class ConfigStore(Protocol):
    """What the actions need of Falcon's configuration store, wherever it is kept: the entities folder with its
    state folder (:class:`Store`) or the tables in Airflow's metadata database
    (:class:`falcon_airflow.operate.table_store.TableStore`). Definitions and archived versions are named by a
    ``Path``: a file of the folder, or a ``store:`` location of the tables."""

    def act_as(self, user: str) -> None:
        """Who the changes that follow are made for (recorded with each version where the store keeps that)."""

    @property
    def reparse_on_change(self) -> bool:
        """Whether Airflow must be asked to re-parse the DAG files after a change (the folder), or the store's DAG
        bundle brings the change by itself (the tables)."""

    def bundle_revision(self) -> int | None:
        """The revision Airflow's DAG bundle of the store reaches after the changes made so far (the tables);
        ``None`` where the DAGs are parsed from files, not a bundle version (the folder)."""

    # definitions
    def workspace(self) -> Workspace: ...
    def forget_cache(self) -> None: ...
    def get(self, entity_type: EntityType, name: str) -> StoredEntity | None: ...
    def entities(self) -> list[StoredEntity]: ...
    def path_for_new(self, entity_type: EntityType, name: str) -> Path: ...
    def check_changeable(self, path: Path) -> None:
        """Refuse (:class:`Refused`) a change of a definition the store does not own, before anything changes."""
    def read(self, path: Path) -> bytes | None: ...
    def write(self, path: Path, data: bytes, *, replaces: bytes | Unknown | None = UNKNOWN) -> None:
        """Bring ``data`` in force at ``path``; ``replaces``: what the action saw there (``None``: nothing), which
        a store shared by several servers checks (refusing when another changed it since)."""
    def remove(self, path: Path) -> None: ...
    # archive
    def plan_archive(self, entity_type: EntityType | str, name: str, moment: datetime | None = None) -> Path: ...
    def archive(self, entity_type: EntityType | str, name: str, data: bytes, *, reason: str, user: str,
                source: Path | None = None, moment: datetime | None = None, target: Path | None = None) -> Path: ...
    def archived(self, target: Path) -> bytes | None: ...
    def unarchive(self, target: Path) -> None: ...
    def history(self, entity_type: EntityType | str, name: str) -> list[Path]: ...
    # extension jobs
    def extension_jobs(self) -> dict[str, tuple[ExtensionName, Path]]: ...
    def extension_path(self, extension: ExtensionName, name: str) -> Path: ...
    # state
    @property
    def safemode(self) -> bool: ...
    def safemode_record(self) -> dict[str, Any]: ...
    def set_safemode(self, value: bool, *, user: str) -> None: ...
    def schedule_state(self, entity_type: EntityType | str, name: str) -> str | None: ...
    def schedule_states(self) -> dict[tuple[str, str], str]:
        """Every scheduled entity's state by (type, name), read at once (a listing's statuses)."""
    def set_schedule_state(self, entity_type: EntityType | str, name: str, state: str | None, *,
                           user: str) -> None: ...
    def proxy_user(self, entity_type: EntityType | str, name: str) -> str | None: ...
    def set_proxy_user(self, entity_type: EntityType | str, name: str, user: str | None, *, action: str) -> None: ...
    def incumbents(self) -> Incumbents: ...
    # journals, audit trail, lock
    def journal_location(self, identifier: str) -> Path: ...
    def save_journal(self, identifier: str, text: str) -> None: ...
    def drop_journal(self, identifier: str) -> None: ...
    def journal_documents(self) -> list[tuple[str, Path, str | None]]: ...
    @property
    def audit_location(self) -> str: ...
    def prepare_audit(self) -> None: ...
    def append_audit(self, line: str) -> None: ...
    def audit_lines(self) -> Iterator[str]: ...
    def lock(self, wait_seconds: float = LOCK_WAIT_SECONDS) -> contextlib.AbstractContextManager[None]: ...


class Store:
    """The entities folder as Falcon's configuration store."""

    def __init__(self, root: Path, state_dir: Path | None = None) -> None:
        self.root = root
        self.meta = state_dir if state_dir is not None else state_folder(root)
        self.archive_root = self.meta / "archive"
        self._workspace: Workspace | None = None
        self._migrate()

    def _migrate(self) -> None:
        """Move state an older version kept inside the entities folder (``.falcon``, ``.archive``) to the state
        folder: copied beside it, renamed into place in one step, then removed from the entities folder, so a crash
        leaves either the old layout or the new one complete."""
        legacy, archive = legacy_state_folder(self.root), self.root / ARCHIVE_FOLDER
        if self.meta.exists() or not (legacy.is_dir() or archive.is_dir()):
            return
        self.meta.parent.mkdir(parents=True, exist_ok=True)
        staged = Path(tempfile.mkdtemp(prefix=f".{self.meta.name}.", dir=self.meta.parent))
        try:
            if legacy.is_dir():
                shutil.copytree(legacy, staged, dirs_exist_ok=True, ignore=shutil.ignore_patterns("lock"))
            if archive.is_dir():
                shutil.copytree(archive, staged / "archive", dirs_exist_ok=True)
            os.rename(staged, self.meta)
        except OSError:
            shutil.rmtree(staged, ignore_errors=True)
            if not self.meta.exists():
                raise
            return  # another command migrated it meanwhile
        for folder in (legacy, archive):
            shutil.rmtree(folder, ignore_errors=True)

    # -- entities -------------------------------------------------------------------------------------------------

    reparse_on_change = True
    """The dags folder's files compile the folder: Airflow is asked to re-parse them after a change."""

    def bundle_revision(self) -> int | None:
        return None

    def act_as(self, user: str) -> None:
        """The folder records who changed a definition with its archived versions (:meth:`archive`)."""

    def workspace(self) -> Workspace:
        """Every entity file of the store as one workspace (read once per command, re-read after a write)."""
        if self._workspace is None:
            self._workspace = folder_workspace(self.root)
        return self._workspace

    def forget_cache(self) -> None:
        self._workspace = None

    def get(self, entity_type: EntityType, name: str) -> StoredEntity | None:
        entity = self.workspace().get(entity_type, name)
        return None if entity is None else StoredEntity(entity, Path(entity.source.file))

    def entities(self) -> list[StoredEntity]:
        return [StoredEntity(entity, Path(entity.source.file)) for entity in self.workspace().entities()]

    def path_for_new(self, entity_type: EntityType, name: str) -> Path:
        """Where a newly submitted entity goes: ``<type folder>/<name>.xml``, unless another file holds that name."""
        folder = self.root / TYPE_FOLDERS[entity_type]
        candidate = folder / f"{name}.xml"
        counter = 1
        while candidate.exists():
            counter += 1
            candidate = folder / f"{name}-{counter}.xml"
        return candidate

    def check_changeable(self, path: Path) -> None:
        """Every entity file of the folder is the store's."""

    def read(self, path: Path) -> bytes | None:
        """A definition file's bytes, ``None`` when there is none."""
        try:
            return path.read_bytes()
        except FileNotFoundError:
            return None

    def write(self, path: Path, data: bytes, *, replaces: bytes | Unknown | None = UNKNOWN) -> None:
        """The folder has one writer at a time (its lock): what was there is what the action saw."""
        write_atomic(path, data)
        self.forget_cache()

    def remove(self, path: Path) -> None:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
        _fsync_folder(path.parent)
        self.forget_cache()

    # -- archive --------------------------------------------------------------------------------------------------

    def plan_archive(self, entity_type: EntityType | str, name: str, moment: datetime | None = None) -> Path:
        """A free file name for the next archived version (``archive/<type>/<name>/<stamp>.xml``), to be recorded
        in a journal before anything is archived, so that recovery knows which file the action's archive is."""
        kind = kind_of(entity_type)
        folder = self.archive_root / kind / name
        moment = moment or datetime.now(UTC)
        target = folder / f"{stamp(moment)}{_suffix(kind)}"
        while target.exists():  # two versions in the same microsecond: keep both
            moment = moment.replace(microsecond=(moment.microsecond + 1) % 1_000_000)
            target = folder / f"{stamp(moment)}{_suffix(kind)}"
        return target

    def archive(self, entity_type: EntityType | str, name: str, data: bytes, *, reason: str, user: str,
                source: Path | None = None, moment: datetime | None = None, target: Path | None = None) -> Path:
        """Keep a definition (the one being replaced or deleted) under ``archive/<type>/<name>/<stamp>.xml``.

        With ``target`` (a name from :meth:`plan_archive`), the version goes exactly there, and a repeated call
        after a crash finds it there: idempotent without guessing. Without, when the newest archived version is
        these bytes, archived for the same reason, that version is returned instead of a second copy."""
        kind = kind_of(entity_type)
        if target is None:
            previous = self.history(entity_type, name)
            if previous and previous[-1].read_bytes() == data:
                with contextlib.suppress(OSError, ValueError):
                    info = json.loads(previous[-1].with_suffix(".json").read_text(encoding="utf-8"))
                    if info.get("reason") == reason:
                        return previous[-1]
            target = self.plan_archive(entity_type, name, moment)
        elif target.parent != self.archive_root / kind / name or target.suffix != _suffix(kind):
            raise ValueError(f"{target} is not an archive file of {kind} {name}")
        # the description first: every archived version that exists has one
        info = {"type": kind, "name": name, "reason": reason, "user": user, "archived": iso(moment),
                "source": str(source.relative_to(self.root)) if source is not None and source.is_relative_to(
                    self.root) else (str(source) if source is not None else None)}
        description = target.with_suffix(".json")
        if not description.exists():
            write_atomic(description, (json.dumps(info, indent=2) + "\n").encode())
        if not target.exists() or target.read_bytes() != data:
            write_atomic(target, data)
        return target

    def archived(self, target: Path) -> bytes | None:
        """An archived version's bytes, ``None`` when it is not (or no longer) there."""
        return self.read(target)

    def unarchive(self, target: Path) -> None:
        """Remove one archived version (an action that archived it was undone): the version, then its
        description."""
        for path in (target, target.with_suffix(".json")):
            path.unlink(missing_ok=True)
        _fsync_folder(target.parent)

    def history(self, entity_type: EntityType | str, name: str) -> list[Path]:
        """Archived definitions of an entity (or an extension job), oldest first."""
        kind = kind_of(entity_type)
        folder = self.archive_root / kind / name
        return sorted(folder.glob(f"*{_suffix(kind)}")) if folder.is_dir() else []

    # -- extension jobs -------------------------------------------------------------------------------------------

    def extension_jobs(self) -> dict[str, tuple[ExtensionName, Path]]:
        """Job name to (extension, file) of every extension job in the store."""
        return {path.stem: (extension, path) for extension, path in extension_files(self.root)}

    def extension_path(self, extension: ExtensionName, name: str) -> Path:
        return self.root / EXTENSIONS_FOLDER / extension.value / f"{name}.properties"

    # -- journals and the audit trail -------------------------------------------------------------------------------

    def journal_location(self, identifier: str) -> Path:
        return self.meta / JOURNAL_FOLDER / f"{identifier}.json"

    def save_journal(self, identifier: str, text: str) -> None:
        write_atomic(self.journal_location(identifier), text.encode())

    def drop_journal(self, identifier: str) -> None:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.journal_location(identifier))

    def journal_documents(self) -> list[tuple[str, Path, str | None]]:
        """``(id, location, JSON text)`` of every journal, oldest first; the text is ``None`` for one that cannot
        be read, which is set aside (renamed ``.unreadable``), not lost."""
        folder = self.meta / JOURNAL_FOLDER
        if not folder.is_dir():
            return []
        found: list[tuple[str, Path, str | None]] = []
        for path in sorted(folder.glob("*.json")):
            try:
                found.append((path.stem, path, path.read_text(encoding="utf-8")))
            except (OSError, UnicodeDecodeError):
                self.set_aside_journal(path.stem)
        return found

    def set_aside_journal(self, identifier: str) -> None:
        path = self.journal_location(identifier)
        with contextlib.suppress(OSError):
            path.rename(path.with_suffix(".unreadable"))

    @property
    def audit_location(self) -> str:
        return str(self.meta / AUDIT_LOG)

    def prepare_audit(self) -> None:
        """Make the state folder its owner's alone (0700); the audit log in it is created 0600."""
        self.meta.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(OSError):  # not ours (a shared mount): the files stay 0600 anyway
            os.chmod(self.meta, 0o700)

    def append_audit(self, line: str) -> None:
        """Append one line; :class:`OSError` when the whole line did not reach the file. One ``write`` with
        ``O_APPEND`` places it whole at the end, so concurrent commands never interleave lines."""
        self.prepare_audit()
        data = (line + "\n").encode()
        descriptor = os.open(self.meta / AUDIT_LOG, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            written = os.write(descriptor, data)
            if written != len(data):  # a full disk: a failure, not a line
                raise OSError(28, f"only {written} of {len(data)} bytes were written")
        finally:
            os.close(descriptor)

    def audit_lines(self) -> Iterator[str]:
        try:
            yield from (self.meta / AUDIT_LOG).read_text(encoding="utf-8").splitlines()
        except FileNotFoundError:
            return

    # -- small documents in the state folder ---------------------------------------------------------------------------

    def read_doc(self, name: str) -> dict[str, Any]:
        path = self.meta / name
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as problem:
            raise Refused(f"the store file {path} is unreadable: {problem}") from None
        return data if isinstance(data, dict) else {}

    def write_doc(self, name: str, data: dict[str, Any]) -> None:
        write_atomic(self.meta / name, (json.dumps(data, indent=2, sort_keys=True) + "\n").encode())

    # -- safemode, schedule state, doAs ---------------------------------------------------------------------------

    @property
    def safemode(self) -> bool:
        return bool(self.read_doc(SAFEMODE_DOC).get("safemode", False))

    def safemode_record(self) -> dict[str, Any]:
        """``safemode``, ``since`` and ``by`` of the last change (empty when it never changed)."""
        return self.read_doc(SAFEMODE_DOC)

    def set_safemode(self, value: bool, *, user: str) -> None:
        self.write_doc(SAFEMODE_DOC, {"safemode": value, "since": iso(), "by": user})

    def schedule_state(self, entity_type: EntityType | str, name: str) -> str | None:
        """``RUNNING`` or ``SUSPENDED`` once the entity was scheduled; ``None`` while it is only submitted."""
        entry = self.read_doc(SCHEDULE_DOC).get(entity_key(entity_type, name))
        return str(entry["state"]) if isinstance(entry, dict) and "state" in entry else None

    def schedule_states(self) -> dict[tuple[str, str], str]:
        """Every scheduled entity's state by (type, name): one read of the schedule document."""
        found: dict[tuple[str, str], str] = {}
        for key, entry in self.read_doc(SCHEDULE_DOC).items():
            kind, separator, name = str(key).partition("/")
            if separator and isinstance(entry, dict) and "state" in entry:
                found[(kind, name)] = str(entry["state"])
        return found

    def incumbents(self) -> Incumbents:
        """What runs already (scheduled here, or built by the DAG loader first): the entities a newcomer that
        collides with them cannot take down, judged as the loader judges them."""
        return recorded_store_state(self.root, self.meta).incumbents()

    def set_schedule_state(self, entity_type: EntityType | str, name: str, state: str | None, *, user: str) -> None:
        document = self.read_doc(SCHEDULE_DOC)
        key = entity_key(entity_type, name)
        if state is None:
            if key not in document:
                return
            document.pop(key)
        else:
            current = document.get(key)
            if isinstance(current, dict) and current.get("state") == state:
                return
            document[key] = {"state": state, "since": iso(), "by": user}
        self.write_doc(SCHEDULE_DOC, document)

    def proxy_user(self, entity_type: EntityType | str, name: str) -> str | None:
        entry = self.read_doc(DOAS_DOC).get(entity_key(entity_type, name))
        return str(entry["user"]) if isinstance(entry, dict) and entry.get("user") else None

    def set_proxy_user(self, entity_type: EntityType | str, name: str, user: str | None, *, action: str) -> None:
        document = self.read_doc(DOAS_DOC)
        key = entity_key(entity_type, name)
        if user is None:
            if key not in document:
                return
            document.pop(key)
        else:
            current = document.get(key)
            if isinstance(current, dict) and current.get("user") == user:
                return
            document[key] = {"user": user, "since": iso(), "action": action}
        self.write_doc(DOAS_DOC, document)

    # -- one command at a time ------------------------------------------------------------------------------------

    @contextlib.contextmanager
    def lock(self, wait_seconds: float = LOCK_WAIT_SECONDS) -> Iterator[None]:
        """Hold the store's lock (another command changing the store waits, at most ``wait_seconds``)."""
        self.meta.mkdir(parents=True, exist_ok=True)
        descriptor = os.open(self.meta / "lock", os.O_RDWR | os.O_CREAT, 0o644)
        try:
            deadline = time.monotonic() + wait_seconds
            while True:
                try:
                    fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except OSError as problem:
                    if problem.errno not in (errno.EAGAIN, errno.EACCES) or time.monotonic() >= deadline:
                        raise Refused(f"another falcon-airflow command is changing the store {self.root}; "
                                      "try again when it has finished") from None
                    time.sleep(0.1)
            try:
                yield
            finally:
                fcntl.flock(descriptor, fcntl.LOCK_UN)
        finally:
            os.close(descriptor)
