"""A Prism's record in the metadata database (``falcon_prism_entity``, ``falcon_prism_copy``): what each entity
should be on its colos, and what each colo was last seen to hold.

The record is what makes the Prism idempotent: a request sent again skips the colos whose copy already has the
definition's digest and the wanted schedule state, and ``prism sync`` walks the record to finish what a colo that
was down missed. While a command changes an entity it holds the entity's lease (``falcon_lease``), so that a
second command on it, in any of the Prism's processes, is refused rather than interleaved with the first.
SQLAlchemy only, the engine handed in (the api-server's, as the store's).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import Engine, delete, insert, select, update

from falcon_airflow.store import leases, tables
from falcon_airflow.store.database import DatabaseStore


def digest_of(content: bytes) -> str:
    """A definition's version as the record compares it: its bytes' SHA-256 (a colo that holds other bytes holds
    another version)."""
    return hashlib.sha256(content).hexdigest()


@dataclass(frozen=True)
class Wanted:
    """What an entity should be on each of its colos."""

    kind: str
    name: str
    content: bytes
    digest: str
    schedule_state: str | None
    """``RUNNING`` or ``SUSPENDED`` once scheduled through the Prism; ``None`` while only submitted."""


@dataclass(frozen=True)
class Copy:
    """What one colo was last seen to hold of an entity."""

    kind: str
    name: str
    colo: str
    digest: str
    schedule_state: str | None


def _now() -> datetime:
    return datetime.now(UTC)


class EntityBusy(Exception):
    """Another command through the Prism is changing the entity now (Falcon's Prism refused it the same way)."""

    def __init__(self, kind: str, name: str, running: str) -> None:
        super().__init__(f"{running} command is already issued for ({kind}) {name} through the Prism; try again when "
                         "it has finished")


def _entity_lease(kind: str, name: str) -> str:
    # a lease's name is at most 64 characters and an entity's name up to 255: named by a digest of both
    return "prism:" + hashlib.sha256(f"{kind}/{name}".encode()).hexdigest()[:56]


@dataclass(frozen=True)
class PrismRecord:
    engine: Engine

    def hold(self, kind: str, name: str, command: str, *, term_seconds: float) -> str:
        """The entity's lease for ``command``, so that one command changes an entity through the Prism at a time,
        whichever of the Prism's processes runs it; the holder's name, for :meth:`let_go`. A process that dies
        holding it keeps it for ``term_seconds``. Raises :class:`EntityBusy` at once, naming the running command,
        when another command has it."""
        lease = _entity_lease(kind, name)
        holder = leases.new_holder(command)
        for _ in range(2):  # a second try when the holder let go between our try and our look
            if leases.take(self.engine, lease, holder, term_seconds):
                return holder
            running = leases.holder_of(self.engine, lease)
            if running is not None:
                raise EntityBusy(kind, name, leases.purpose_of(running) or "another")
        raise EntityBusy(kind, name, "another")

    def let_go(self, kind: str, name: str, holder: str) -> None:
        leases.release(self.engine, _entity_lease(kind, name), holder)

    @property
    def safemode(self) -> bool:
        """The Prism's own safemode (``admin -setsafemode`` on the Prism), kept where a server keeps its own."""
        return DatabaseStore(self.engine).safemode

    def set_safemode(self, value: bool, *, user: str) -> None:
        DatabaseStore(self.engine).set_safemode(value, user=user)

    def wanted(self, kind: str, name: str) -> Wanted | None:
        table = tables.prism_entity
        with self.engine.connect() as db:
            row = db.execute(select(table).where(table.c.kind == kind, table.c.name == name)).first()
        return None if row is None else Wanted(row.kind, row.name, bytes(row.content), row.digest, row.schedule_state)

    def all_wanted(self, kind: str | None = None) -> list[Wanted]:
        table = tables.prism_entity
        query = select(table).order_by(table.c.kind, table.c.name)
        if kind is not None:
            query = query.where(table.c.kind == kind)
        with self.engine.connect() as db:
            rows = db.execute(query).all()
        return [Wanted(row.kind, row.name, bytes(row.content), row.digest, row.schedule_state) for row in rows]

    def want(self, kind: str, name: str, content: bytes, *, user: str,
             schedule_state: str | None = None, keep_state: bool = True) -> Wanted:
        """Records ``content`` as the entity's definition (and ``schedule_state``, or the recorded one with
        ``keep_state``)."""
        table = tables.prism_entity
        digest = digest_of(content)
        with self.engine.begin() as db:
            row = db.execute(select(table).where(table.c.kind == kind, table.c.name == name)).first()
            state = (row.schedule_state if row is not None and keep_state and schedule_state is None
                     else schedule_state)
            values = {"content": content, "digest": digest, "schedule_state": state, "changed_by": user,
                      "changed_at": _now()}
            if row is None:
                db.execute(insert(table).values(kind=kind, name=name, **values))
            else:
                db.execute(update(table).where(table.c.id == row.id).values(**values))
        return Wanted(kind, name, content, digest, state)

    def want_state(self, kind: str, name: str, schedule_state: str | None, *, user: str) -> None:
        table = tables.prism_entity
        with self.engine.begin() as db:
            db.execute(update(table).where(table.c.kind == kind, table.c.name == name)
                       .values(schedule_state=schedule_state, changed_by=user, changed_at=_now()))

    def forget(self, kind: str, name: str) -> None:
        """The entity is deleted everywhere it was: no definition, no copies."""
        with self.engine.begin() as db:
            for table in (tables.prism_entity, tables.prism_copy):
                db.execute(delete(table).where(table.c.kind == kind, table.c.name == name))

    def copies(self, kind: str, name: str) -> dict[str, Copy]:
        table = tables.prism_copy
        with self.engine.connect() as db:
            rows = db.execute(select(table).where(table.c.kind == kind, table.c.name == name)).all()
        return {row.colo: Copy(row.kind, row.name, row.colo, row.digest, row.schedule_state) for row in rows}

    def held(self, kind: str, name: str, colo: str, digest: str, schedule_state: str | None) -> None:
        """``colo`` was seen holding version ``digest`` in ``schedule_state``."""
        table = tables.prism_copy
        values = {"digest": digest, "schedule_state": schedule_state, "changed_at": _now()}
        with self.engine.begin() as db:
            found = db.execute(select(table.c.id).where(table.c.kind == kind, table.c.name == name,
                                                        table.c.colo == colo)).first()
            if found is None:
                db.execute(insert(table).values(kind=kind, name=name, colo=colo, **values))
            else:
                db.execute(update(table).where(table.c.id == found.id).values(**values))

    def dropped(self, kind: str, name: str, colo: str) -> None:
        """``colo`` no longer holds the entity."""
        table = tables.prism_copy
        with self.engine.begin() as db:
            db.execute(delete(table).where(table.c.kind == kind, table.c.name == name, table.c.colo == colo))
