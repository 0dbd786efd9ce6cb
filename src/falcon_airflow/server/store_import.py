"""``falcon-airflow store import``: an entities folder with the state an older version kept beside it (schedule
states, ``-doAs`` users, safemode, the archive of replaced and deleted definitions, the audit log) copied into the
store in Airflow's metadata database, which ``[falcon] store = database`` makes the server use.

It runs on any machine whose Airflow configuration names the metadata database (``airflow db migrate`` made the
tables). It copies, never moves or deletes: a definition already in the store with the same bytes is left as it is
(running the command twice changes nothing); one with other bytes is reported and left alone, and the command
exits 1. Nothing is copied while an action of the folder's store is unfinished (its journal): finish it first.
After the import, take the imported files out of the entities folder (a name defined in both places is a
validation error naming both), or point ``[falcon] entities_dir`` at a folder without them.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from falcon_airflow.compiler.store_state import DOAS_DOC, SCHEDULE_DOC
from falcon_airflow.operate.config_store import EXTENSION_KIND, Store
from falcon_airflow.store.database import ABSENT, DatabaseStore, StoreConflict, StoredDefinition

AUDIT_IMPORTED = "import.audit"
"""Setting listing the folders whose audit log was copied (by digest of the state folder), so a second run does
not copy it again."""


@dataclass
class ImportReport:
    imported: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        return 1 if self.conflicts else 0


def _time(value: object) -> datetime:
    try:
        return datetime.fromisoformat(str(value).replace("Z", "+00:00")).astimezone(UTC)
    except ValueError:
        return datetime.now(UTC)


def _archived_versions(store: Store, kind: str, name: str, variant: str | None) -> list[StoredDefinition]:
    versions = []
    for path in store.history(kind, name):
        try:
            info = json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            info = {}
        user = str(info.get("user") or "unknown")
        moment = _time(info.get("archived"))
        versions.append(StoredDefinition(kind=kind, name=name, content=path.read_bytes(), revision=0,
                                         submitted_by=user, submitted_at=moment, variant=variant, retired_by=user,
                                         retired_at=moment, retired_because=str(info.get("reason") or "update")))
    return versions


def _copy(database: DatabaseStore, store: Store, report: ImportReport, kind: str, name: str, content: bytes,
          variant: str | None, user: str) -> None:
    label = f"{kind} {name}"
    present = database.current(kind, name)
    if present is not None:
        if present.content == content:
            report.unchanged.append(label)
        else:
            report.conflicts.append(f"{label}: the store holds another definition (submitted by "
                                    f"{present.submitted_by}); settle it by hand")
        return
    if not database.history(kind, name):
        database.import_history(kind, name, _archived_versions(store, kind, name, variant))
    try:
        database.put(kind, name, content, user=user, replaces=ABSENT, reason="submit", variant=variant)
    except StoreConflict:
        report.conflicts.append(f"{label}: submitted meanwhile by another server")
        return
    report.imported.append(label)


def import_folder_store(store: Store, database: DatabaseStore, *, user: str) -> ImportReport:
    """Copy the folder's store into the database (see the module's documentation)."""
    report = ImportReport()
    unfinished = store.journal_documents()
    if unfinished:
        report.conflicts.append(f"{len(unfinished)} unfinished action(s) in {unfinished[0][1].parent}: run any "
                                "falcon-airflow entity command on that folder to finish them, then import")
        return report
    for parsed in store.workspace().files:  # invalid definitions too: they are the store's as much
        if parsed.entity_type is None or not parsed.entity_name:
            report.notes.append(f"skipped {parsed.path}: not an entity definition")
            continue
        _copy(database, store, report, parsed.entity_type.value, parsed.entity_name, Path(parsed.path).read_bytes(),
              None, user)
    for name, (extension, path) in sorted(store.extension_jobs().items()):
        _copy(database, store, report, EXTENSION_KIND, name, path.read_bytes(), extension.value, user)
    for document, field_name in ((SCHEDULE_DOC, "state"), (DOAS_DOC, "user")):
        for key, entry in sorted(store.read_doc(document).items()):
            kind, _, name = key.partition("/")
            if not name or not isinstance(entry, dict) or not entry.get(field_name):
                continue
            if field_name == "state":
                database.set_schedule_state(kind, name, str(entry["state"]), user=str(entry.get("by") or user))
            else:
                database.set_proxy_user(kind, name, str(entry["user"]), action=str(entry.get("action") or "import"))
    record = store.safemode_record()
    if record and database.setting("safemode") is None:
        database.set_safemode(bool(record.get("safemode")), user=str(record.get("by") or user))
    _copy_audit(store, database, report, user)
    return report


def _copy_audit(store: Store, database: DatabaseStore, report: ImportReport, user: str) -> None:
    digest = hashlib.sha256(str(store.meta.resolve()).encode()).hexdigest()[:16]
    done: list[str] = list(database.setting(AUDIT_IMPORTED) or [])
    if digest in done:
        report.notes.append("the audit log was imported before")
        return
    lines = list(store.audit_lines())
    for line in lines:
        database.append_audit(line)
    database.set_setting(AUDIT_IMPORTED, [*done, digest], user=user)
    report.notes.append(f"{len(lines)} audit line(s) copied")


def run(args: argparse.Namespace) -> int:
    """``falcon-airflow store import``."""
    from falcon_airflow.operate.context import local_user
    from falcon_airflow.server.store_access import database_store

    entities = Path(args.entities).expanduser()
    if not entities.is_dir():
        print(f"error: {entities} is not a folder", file=sys.stderr)
        return 2
    store = Store(entities, Path(args.state).expanduser() if args.state else None)
    report = import_folder_store(store, database_store(), user=local_user())
    for label in report.imported:
        print(f"imported {label}")
    for label in report.unchanged:
        print(f"already in the store: {label}")
    for label in report.conflicts:
        print(f"not imported: {label}", file=sys.stderr)
    for note in report.notes:
        print(note)
    if report.imported:
        print(f"next: take the imported files out of {entities} (a name defined in both the folder and the store "
              "is a validation error naming both), or point [falcon] entities_dir elsewhere")
    return report.exit_code

