"""Falcon's configuration store on SQL tables (:mod:`.tables`): definitions with their history, schedule states,
``-doAs`` users, safemode, journals, the audit trail and the lease that lets one server change the store at a time.

Every change is one transaction that first raises the store's revision: the row lock on ``falcon_store_revision``
(an update takes it on PostgreSQL and MySQL; on SQLite the first write takes the database's write lock) makes
writers take turns, so a change sees the store as the previous change left it. Changes of definitions say what
they expect to replace (:data:`ABSENT`, or the bytes in force), so that two servers submitting the same name at
once end with one entity and one refusal, never two versions or a silent overwrite.

Reads take no lock. Rows are never changed in place: a new version retires the one before with the revision that
replaced it, so :meth:`DatabaseStore.snapshot` reads everything the DAGs depend on as of any revision, which is
what the DAG bundle lays out as files (its version is the revision).
"""

from __future__ import annotations

import contextlib
import json
import time
import uuid
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Final

from sqlalchemy import Connection, Engine, and_, delete, insert, or_, select, update
from sqlalchemy.exc import IntegrityError

from falcon_airflow.store import leases, tables


class StoreConflict(Exception):
    """A change that found the store other than it expected (another server changed it first)."""


class StoreBusy(Exception):
    """Another server holds the store's lease for longer than the caller may wait."""


class _Absent:
    def __repr__(self) -> str:
        return "ABSENT"


ABSENT: Final = _Absent()
"""What a submit expects to replace: no definition of that name."""

SAFEMODE_KEY = "safemode"
STORE_ID_KEY = "store.id"
STORE_LEASE = "store"


@dataclass(frozen=True)
class StoredDefinition:
    """One version of a definition."""

    kind: str
    name: str
    content: bytes
    revision: int
    submitted_by: str
    submitted_at: datetime
    variant: str | None = None
    """The extension of an extension job (``hdfs-mirroring`` ...); ``None`` for an entity."""
    retired: int | None = None
    retired_by: str | None = None
    retired_at: datetime | None = None
    retired_because: str | None = None


@dataclass(frozen=True)
class Snapshot:
    """Everything the DAGs depend on, as of one revision."""

    revision: int
    definitions: tuple[StoredDefinition, ...]
    schedule_states: Mapping[tuple[str, str], str] = field(default_factory=dict)
    proxy_users: Mapping[tuple[str, str], str] = field(default_factory=dict)
    store_id: str = ""
    """Which store (:meth:`DatabaseStore.store_id`): revision numbers are the store's own, so a copy laid out from
    one store is never taken for the same revision of another."""


def _now() -> datetime:
    return datetime.now(UTC)


def _utc(moment: datetime | None) -> datetime | None:
    """SQLite gives back naive times; they were written in UTC."""
    if moment is None:
        return None
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def _parse_time(value: object) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        return _utc(datetime.fromisoformat(value.replace("Z", "+00:00")))
    except ValueError:
        return None


def _definition(row: Any) -> StoredDefinition:
    return StoredDefinition(kind=row.kind, name=row.name, content=bytes(row.content), revision=int(row.revision),
                            variant=row.variant,
                            submitted_by=row.submitted_by, submitted_at=_utc(row.submitted_at) or _now(),
                            retired=row.retired, retired_by=row.retired_by, retired_at=_utc(row.retired_at),
                            retired_because=row.retired_because)


def current_key(kind: str, name: str) -> str:
    return f"{kind}/{name}"


def _in_force(table: Any, revision: int) -> Any:
    """Rows brought in at or before ``revision`` and not retired by then."""
    return and_(table.c.revision <= revision, or_(table.c.retired.is_(None), table.c.retired > revision))


class DatabaseStore:
    """The store on an SQLAlchemy engine whose database holds the :mod:`.tables` (``airflow db migrate`` made
    them)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    # -- transactions ---------------------------------------------------------------------------------------------

    @contextlib.contextmanager
    def _change(self) -> Iterator[tuple[Connection, int]]:
        """A write transaction holding the revision row, with the revision it makes."""
        with self.engine.begin() as connection:
            yield connection, self._bump(connection)

    @staticmethod
    def _bump(connection: Connection) -> int:
        moment = _now()
        raised = connection.execute(update(tables.store_revision).where(tables.store_revision.c.id == 1)
                                    .values(revision=tables.store_revision.c.revision + 1, changed_at=moment))
        if raised.rowcount == 0:  # a database whose tables were made without the first row
            with contextlib.suppress(IntegrityError), connection.begin_nested():
                connection.execute(insert(tables.store_revision).values(id=1, revision=0, changed_at=moment))
            connection.execute(update(tables.store_revision).where(tables.store_revision.c.id == 1)
                               .values(revision=tables.store_revision.c.revision + 1, changed_at=moment))
        return int(connection.execute(select(tables.store_revision.c.revision)
                                      .where(tables.store_revision.c.id == 1)).scalar_one())

    def store_id(self) -> str:
        """A name of this store, made once (random): two stores (a database made anew, another deployment) count
        their revisions alike, and whoever keeps copies of revisions must tell them apart."""
        known = self.setting(STORE_ID_KEY)
        if isinstance(known, str) and known:
            return known
        made = uuid.uuid4().hex
        with contextlib.suppress(IntegrityError), self.engine.begin() as connection:
            connection.execute(insert(tables.setting).values(key=STORE_ID_KEY, value=json.dumps(made),
                                                             changed_by="falcon", changed_at=_now()))
        return str(self.setting(STORE_ID_KEY))

    def revision(self) -> int:
        with self.engine.connect() as connection:
            value = connection.execute(select(tables.store_revision.c.revision)
                                       .where(tables.store_revision.c.id == 1)).scalar()
        return int(value or 0)

    # -- definitions ----------------------------------------------------------------------------------------------

    def current(self, kind: str, name: str) -> StoredDefinition | None:
        with self.engine.connect() as connection:
            return self._current(connection, kind, name)

    @staticmethod
    def _current(connection: Connection, kind: str, name: str) -> StoredDefinition | None:
        row = connection.execute(select(tables.definition)
                                 .where(tables.definition.c.current_key == current_key(kind, name))).first()
        return None if row is None else _definition(row)

    def definitions(self, kind: str | None = None) -> list[StoredDefinition]:
        """The definitions in force, by kind and name."""
        query = select(tables.definition).where(tables.definition.c.current_key.is_not(None))
        if kind is not None:
            query = query.where(tables.definition.c.kind == kind)
        with self.engine.connect() as connection:
            rows = connection.execute(query.order_by(tables.definition.c.kind, tables.definition.c.name)).all()
        return [_definition(row) for row in rows]

    def put(self, kind: str, name: str, content: bytes, *, user: str, replaces: bytes | _Absent,
            reason: str = "update", variant: str | None = None) -> int:
        """Bring ``content`` in force for the entity, retiring the version it replaces (kept, with ``reason``).
        ``replaces`` is what the caller saw: :data:`ABSENT` for a submit, else the bytes in force. Returns the
        revision; raises :class:`StoreConflict` when the store holds something else."""
        with self._change() as (connection, revision):
            present = self._current(connection, kind, name)
            self._expect(present, replaces, kind, name)
            moment = _now()
            if present is not None:
                if present.content == content:
                    return present.revision
                self._retire(connection, kind, name, revision, user=user, because=reason, moment=moment)
            connection.execute(insert(tables.definition).values(
                kind=kind, name=name, variant=variant, current_key=current_key(kind, name), content=content,
                revision=revision, submitted_by=user, submitted_at=moment))
            return revision

    def remove(self, kind: str, name: str, *, user: str, replaces: bytes, reason: str = "delete") -> int:
        """Retire the version in force (it stays in the history). Raises :class:`StoreConflict` when it is not
        ``replaces``."""
        with self._change() as (connection, revision):
            self._expect(self._current(connection, kind, name), replaces, kind, name)
            self._retire(connection, kind, name, revision, user=user, because=reason, moment=_now())
            return revision

    @staticmethod
    def _expect(present: StoredDefinition | None, replaces: bytes | _Absent, kind: str, name: str) -> None:
        if isinstance(replaces, _Absent):
            if present is not None:
                raise StoreConflict(f"{kind} {name} already exists in the store")
        elif present is None:
            raise StoreConflict(f"{kind} {name} is not in the store (deleted meanwhile)")
        elif present.content != replaces:
            raise StoreConflict(f"{kind} {name} was changed meanwhile by {present.submitted_by}")

    @staticmethod
    def _retire(connection: Connection, kind: str, name: str, revision: int, *, user: str, because: str,
                moment: datetime) -> None:
        connection.execute(update(tables.definition)
                           .where(tables.definition.c.current_key == current_key(kind, name))
                           .values(current_key=None, retired=revision, retired_by=user, retired_at=moment,
                                   retired_because=because))

    def import_history(self, kind: str, name: str, versions: list[StoredDefinition]) -> int:
        """Keep versions an entity had before it came to this store (an older store's archive), oldest first, as
        retired versions; they were never in force here (brought in and retired by the same revision). Returns
        the revision."""
        with self._change() as (connection, revision):
            for version in versions:
                connection.execute(insert(tables.definition).values(
                    kind=kind, name=name, variant=version.variant, current_key=None, content=version.content,
                    revision=revision, retired=revision, submitted_by=version.submitted_by,
                    submitted_at=version.submitted_at, retired_by=version.retired_by or version.submitted_by,
                    retired_at=version.retired_at or version.submitted_at,
                    retired_because=version.retired_because or "update"))
            return revision

    def history(self, kind: str, name: str) -> list[StoredDefinition]:
        """Retired versions of an entity, oldest first."""
        query = (select(tables.definition)
                 .where(and_(tables.definition.c.kind == kind, tables.definition.c.name == name,
                             tables.definition.c.current_key.is_(None)))
                 .order_by(tables.definition.c.revision, tables.definition.c.id))
        with self.engine.connect() as connection:
            return [_definition(row) for row in connection.execute(query).all()]

    # -- entity state ---------------------------------------------------------------------------------------------

    def _state_row(self, kind: str, name: str) -> Any:
        with self.engine.connect() as connection:
            return self._current_state(connection, kind, name)

    @staticmethod
    def _current_state(connection: Connection, kind: str, name: str) -> Any:
        return connection.execute(select(tables.entity_state)
                                  .where(tables.entity_state.c.current_key == current_key(kind, name))).first()

    def schedule_states(self) -> dict[tuple[str, str], str]:
        """Every entity's schedule state in force (only the state table is read)."""
        with self.engine.connect() as connection:
            rows = connection.execute(select(tables.entity_state.c.kind, tables.entity_state.c.name,
                                             tables.entity_state.c.schedule_state)
                                      .where(tables.entity_state.c.current_key.is_not(None))).all()
        return {(row.kind, row.name): row.schedule_state for row in rows if row.schedule_state}

    def schedule_state(self, kind: str, name: str) -> str | None:
        row = self._state_row(kind, name)
        return None if row is None else row.schedule_state

    def proxy_user(self, kind: str, name: str) -> str | None:
        row = self._state_row(kind, name)
        return None if row is None else row.proxy_user

    def set_schedule_state(self, kind: str, name: str, state: str | None, *, user: str) -> None:
        self._set_state(kind, name, "schedule_state", state, schedule_state=state,
                        scheduled_by=user if state else None, scheduled_at=_now() if state else None)

    def set_proxy_user(self, kind: str, name: str, user: str | None, *, action: str) -> None:
        self._set_state(kind, name, "proxy_user", user, proxy_user=user,
                        proxy_user_action=action if user else None, proxy_user_at=_now() if user else None)

    _STATE_FIELDS = ("schedule_state", "scheduled_by", "scheduled_at", "proxy_user", "proxy_user_action",
                     "proxy_user_at")

    def _set_state(self, kind: str, name: str, field_name: str, value: str | None, **values: Any) -> None:
        """A new version of the entity's state row, unless the field already holds ``value``."""
        if getattr(self._state_row(kind, name), field_name, None) == value:
            return
        with self._change() as (connection, revision):
            present = self._current_state(connection, kind, name)
            if getattr(present, field_name, None) == value:
                return  # another server set it meanwhile; the raised revision changes nothing
            merged = {column: getattr(present, column, None) for column in self._STATE_FIELDS}
            merged.update(values)
            key = current_key(kind, name)
            connection.execute(update(tables.entity_state).where(tables.entity_state.c.current_key == key)
                               .values(current_key=None, retired=revision))
            connection.execute(insert(tables.entity_state).values(kind=kind, name=name, current_key=key,
                                                                  revision=revision, **merged))

    # -- settings -------------------------------------------------------------------------------------------------

    def setting_record(self, key: str) -> tuple[Any, str, datetime] | None:
        """A setting's value, who set it and when; ``None`` when it was never set."""
        with self.engine.connect() as connection:
            row = connection.execute(select(tables.setting).where(tables.setting.c.key == key)).first()
        return None if row is None else (json.loads(row.value), row.changed_by, _utc(row.changed_at) or _now())

    def setting(self, key: str) -> Any:
        with self.engine.connect() as connection:
            value = connection.execute(select(tables.setting.c.value).where(tables.setting.c.key == key)).scalar()
        return None if value is None else json.loads(value)

    def set_setting(self, key: str, value: Any, *, user: str) -> None:
        """Server-wide settings change no DAG: no new revision."""
        text, moment = json.dumps(value, sort_keys=True), _now()
        with self.engine.begin() as connection:
            changed = connection.execute(update(tables.setting).where(tables.setting.c.key == key)
                                         .values(value=text, changed_by=user, changed_at=moment))
            if changed.rowcount == 0:
                connection.execute(insert(tables.setting).values(key=key, value=text, changed_by=user,
                                                                 changed_at=moment))

    @property
    def safemode(self) -> bool:
        return bool(self.setting(SAFEMODE_KEY))

    def set_safemode(self, value: bool, *, user: str) -> None:
        self.set_setting(SAFEMODE_KEY, value, user=user)

    # -- what the DAG bundle lays out -----------------------------------------------------------------------------

    def snapshot(self, revision: int | None = None) -> Snapshot:
        """The definitions in force, schedule states and ``-doAs`` users as of ``revision`` (the newest when
        ``None``). Rows are never changed in place, only retired with the revision that replaced them, so any
        revision reads back as it was, in one query per table and without a lock."""
        with self.engine.connect() as connection:
            newest = int(connection.execute(select(tables.store_revision.c.revision)
                                            .where(tables.store_revision.c.id == 1)).scalar() or 0)
            if revision is None:
                revision = newest
            elif revision > newest or revision < 0:
                raise LookupError(f"the store has no revision {revision} (its newest is {newest})")
            rows = connection.execute(select(tables.definition).where(_in_force(tables.definition, revision))
                                      .order_by(tables.definition.c.kind, tables.definition.c.name)).all()
            states = connection.execute(select(tables.entity_state)
                                        .where(_in_force(tables.entity_state, revision))).all()
        return Snapshot(
            revision=revision, definitions=tuple(_definition(row) for row in rows), store_id=self.store_id(),
            schedule_states={(row.kind, row.name): row.schedule_state for row in states if row.schedule_state},
            proxy_users={(row.kind, row.name): row.proxy_user for row in states if row.proxy_user})

    # -- journals -------------------------------------------------------------------------------------------------

    def save_journal(self, identifier: str, text: str) -> None:
        """Write a journal (JSON text), replacing its previous state."""
        with self.engine.begin() as connection:
            changed = connection.execute(update(tables.journal).where(tables.journal.c.id == identifier)
                                         .values(document=text))
            if changed.rowcount == 0:
                connection.execute(insert(tables.journal).values(id=identifier, document=text,
                                                                 created_at=_now()))

    def drop_journal(self, identifier: str) -> None:
        with self.engine.begin() as connection:
            connection.execute(delete(tables.journal).where(tables.journal.c.id == identifier))

    def journals(self) -> list[tuple[str, str]]:
        """``(id, JSON text)`` of every journal, oldest first."""
        with self.engine.connect() as connection:
            rows = connection.execute(select(tables.journal.c.id, tables.journal.c.document)
                                      .order_by(tables.journal.c.created_at, tables.journal.c.id)).all()
        return [(row.id, row.document) for row in rows]

    # -- audit ----------------------------------------------------------------------------------------------------

    def append_audit(self, line: str) -> None:
        """One line of the audit trail (JSON with ``time`` and ``user``, see ``operate/audit.py``); the time and
        the user are kept in columns too, to select by."""
        try:
            document = json.loads(line)
        except ValueError:
            document = {}
        moment = _parse_time(document.get("time") if isinstance(document, dict) else None) or _now()
        user = str(document.get("user") or "-") if isinstance(document, dict) else "-"
        with self.engine.begin() as connection:
            connection.execute(insert(tables.audit).values(at=moment, user=user[:tables.USER_LENGTH],
                                                           document=line))

    def audit_lines(self, *, start: datetime | None = None, end: datetime | None = None) -> Iterator[str]:
        """The lines in the order they were written, from ``start`` (inclusive) to ``end`` (exclusive)."""
        query = select(tables.audit.c.document)
        if start is not None:
            query = query.where(tables.audit.c.at >= start)
        if end is not None:
            query = query.where(tables.audit.c.at < end)
        with self.engine.connect() as connection:
            rows = connection.execute(query.order_by(tables.audit.c.id)).all()
        return iter([row.document for row in rows])

    # -- one server changes the store at a time ---------------------------------------------------------------------

    @contextlib.contextmanager
    def lease(self, *, wait_seconds: float = 60.0, term_seconds: float = 300.0,
              name: str = STORE_LEASE) -> Iterator[str]:
        """Hold the store's lease while a multi-step action runs. A holder that dies keeps it until its term
        ends; the next holder then finds the dead one's journal and finishes or undoes its action."""
        holder = leases.new_holder()
        deadline = time.monotonic() + wait_seconds
        while not leases.take(self.engine, name, holder, term_seconds):
            if time.monotonic() >= deadline:
                raise StoreBusy("another falcon-airflow server is changing the store; try again when it has "
                                "finished")
            time.sleep(0.1)
        try:
            yield holder
        finally:
            leases.release(self.engine, name, holder)
