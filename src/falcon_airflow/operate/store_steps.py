"""Journal steps that change the store's files, shared by the entity and the extension actions: write a definition,
archive the one an update replaces, archive and remove a deleted one, record a schedule state; with the probes that
tell recovery whether a step's effect is in the store.

Before any step runs, the action's journal records everything these steps will write (:func:`change`): the new
definition's bytes, the bytes it replaces or deletes (``None`` for a submit: no file) and the archive file they
go to. The steps then work from that record only, never from what the live file holds when they run (a step cut
short may already have changed it: archiving "the current file" after a write that was not marked would archive
the new definition as the old one). The probes compare the live file with the record: the new bytes (or no file,
for a delete) mean the commit happened, the old bytes mean it did not, anything else is a store changed by hand,
which recovery refuses to guess about (:class:`~falcon_airflow.operate.journal.CannotTell`).

Journals written before the record existed (no ``old`` key) are recovered leniently: a file holding the new bytes
is committed, any other is not (every write is atomic, so no third state comes from the action itself).
"""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

from falcon_airflow.operate.config_store import ConfigStore
from falcon_airflow.operate.context import Context
from falcon_airflow.operate.journal import CannotTell, Effect, Journal


def change(store: ConfigStore, kind: str, name: str, path: Path, *, new: bytes | None, old: bytes | None,
           archive: bool) -> dict[str, Any]:
    """The journal record of a change to one definition file: ``path`` goes from ``old`` to ``new`` (``None``: no
    file), the replaced or deleted bytes going to a planned archive file when ``archive``."""
    data: dict[str, Any] = {"path": str(path), "old": _encode(old)}
    if new is not None:
        data["new"] = _encode(new)
    if archive:
        data["archive"] = str(store.plan_archive(kind, name))
    return data


def _encode(data: bytes | None) -> str | None:
    return None if data is None else base64.b64encode(data).decode("ascii")


def recorded(journal: Journal, which: str) -> bytes | None:
    """The ``new`` or ``old`` bytes of the journal's record (``None``: no file, or not recorded)."""
    value = journal.data.get(which)
    if value is not None:
        return base64.b64decode(str(value))
    if which == "new":  # journals of earlier versions kept the new definition as text
        legacy = journal.data.get("xml", journal.data.get("text"))
        return None if legacy is None else str(legacy).encode("utf-8")
    return None


def _path(journal: Journal) -> Path:
    return Path(journal.data["path"])


def _live(context: Context, path: Path) -> bytes | None:
    return context.store.read(path)


def _planned(journal: Journal) -> Path | None:
    value = journal.data.get("archive")
    return Path(str(value)) if value else None


# -- write: submit and update --------------------------------------------------------------------------------------

def step_write(context: Context, journal: Journal) -> dict[str, Any] | None:
    path, new = _path(journal), recorded(journal, "new")
    if new is None:
        raise CannotTell(f"the journal {journal.path} records no definition to write")
    if _live(context, path) != new:
        if "old" in journal.data:  # what the action saw: a store shared by several servers checks it
            context.store.write(path, new, replaces=recorded(journal, "old"))
        else:
            context.store.write(path, new)
    return None


def probe_write(context: Context, journal: Journal) -> Effect:
    path, live = _path(journal), _live(context, _path(journal))
    if live is not None and live == recorded(journal, "new"):
        return Effect.DONE
    if "old" not in journal.data or live == recorded(journal, "old"):
        return Effect.NOT_DONE
    raise CannotTell(f"{path} holds neither the definition being written nor the one it replaces")


# -- archive the replaced definition: update -----------------------------------------------------------------------

def step_archive_old(context: Context, journal: Journal) -> dict[str, Any] | None:
    path, old, target = _path(journal), recorded(journal, "old"), _planned(journal)
    if old is None or target is None:  # a journal of an earlier version: its write has not happened yet
        old, target = _live(context, path), None
        if old is None:
            raise CannotTell(f"{path} is gone: there is no definition to archive")
    archived = context.store.archive(journal.entity_type, journal.name, old, reason="update", user=journal.user,
                                     source=path, target=target)
    return {"archived": str(archived)}


def undo_archive_old(context: Context, journal: Journal, undo: dict[str, Any] | None) -> None:
    """The update did not happen: the archived copy goes, but only while the live file is that same definition
    (else the archive holds the only copy of it)."""
    archived = (undo or {}).get("archived") or journal.data.get("archive")
    if archived:
        _unarchive(context, _path(journal), Path(str(archived)))


def _unarchive(context: Context, path: Path, archived: Path) -> None:
    kept = context.store.archived(archived)
    if kept is not None and _live(context, path) != kept:
        raise CannotTell(f"{path} does not hold the definition archived as {archived}, which is kept")
    context.store.unarchive(archived)


# -- archive and remove: delete ------------------------------------------------------------------------------------

def step_archive(context: Context, journal: Journal) -> dict[str, Any] | None:
    """Delete: keep the definition in the archive, then take it out of the store."""
    path, old, target = _path(journal), recorded(journal, "old"), _planned(journal)
    live = _live(context, path)
    if live is not None:
        if "old" in journal.data and live != old:
            raise CannotTell(f"{path} changed since the delete began")
        context.store.archive(journal.entity_type, journal.name, live, reason="delete", user=journal.user,
                              source=path, target=target)
        context.store.remove(path)
    elif old is not None and target is not None and context.store.archived(target) is None:
        # the file went before it was archived (removed by hand): the recorded definition is archived all the same
        context.store.archive(journal.entity_type, journal.name, old, reason="delete", user=journal.user,
                              source=path, target=target)
    return None


def probe_archive(context: Context, journal: Journal) -> Effect:
    path = _path(journal)
    live = _live(context, path)
    if live is None:
        return Effect.DONE
    if "old" not in journal.data or live == recorded(journal, "old"):
        return Effect.NOT_DONE
    raise CannotTell(f"{path} holds another definition than the one being deleted")


def undo_archive(context: Context, journal: Journal, undo: dict[str, Any] | None) -> None:
    """The delete did not happen: an archived copy made before the removal goes (the live file is that copy)."""
    target = _planned(journal)
    if target is not None:
        _unarchive(context, _path(journal), target)


# -- schedule state: schedule, suspend, resume ---------------------------------------------------------------------

def probe_state(context: Context, journal: Journal) -> Effect:
    current = context.store.schedule_state(journal.entity_type, journal.name)
    return Effect.DONE if current == journal.data.get("state") else Effect.NOT_DONE
