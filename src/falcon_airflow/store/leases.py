"""Leases in the metadata database (``falcon_lease``): a named right that one holder has until it lets go or its
term ends.

A row per lease held. Taking it is one insert (the name is the key, so of two takers one fails) or, once the term
of a holder that never let go has ended, one update that only matches the expired row; letting go deletes the row
only if the holder still has it. Nothing here waits: callers decide whether to wait (the store's lease) or to refuse
(a Prism's command on an entity another command is changing).
"""

from __future__ import annotations

import socket
import uuid
from datetime import UTC, datetime, timedelta

from sqlalchemy import Engine, and_, delete, insert, select, update
from sqlalchemy.exc import IntegrityError

from falcon_airflow.store import tables

HOLDER_LENGTH = 128
"""``falcon_lease.holder``'s width."""


def new_holder(purpose: str = "") -> str:
    """A holder name unique to one taking: what it is for (when said), this host and a random part."""
    holder = f"{socket.gethostname()[:64]}:{uuid.uuid4().hex[:12]}"
    return f"{purpose[:HOLDER_LENGTH - len(holder) - 1]} {holder}" if purpose else holder


def take(engine: Engine, name: str, holder: str, term_seconds: float) -> bool:
    """Whether ``holder`` now has lease ``name`` for ``term_seconds``: it was free, or its holder's term ended."""
    moment = datetime.now(UTC)
    expires = moment + timedelta(seconds=term_seconds)
    with engine.begin() as connection:
        taken = connection.execute(update(tables.lease)
                                   .where(and_(tables.lease.c.name == name, tables.lease.c.expires_at < moment))
                                   .values(holder=holder, expires_at=expires))
        if taken.rowcount:
            return True
    try:
        with engine.begin() as connection:
            connection.execute(insert(tables.lease).values(name=name, holder=holder, expires_at=expires))
        return True
    except IntegrityError:
        return False


def holder_of(engine: Engine, name: str) -> str | None:
    """Who holds lease ``name`` now (``None`` when nobody does, or only a holder whose term has ended)."""
    with engine.connect() as connection:
        return connection.execute(select(tables.lease.c.holder).where(
            and_(tables.lease.c.name == name, tables.lease.c.expires_at >= datetime.now(UTC)))).scalar()


def purpose_of(holder: str) -> str | None:
    """What a holder named by :func:`new_holder` took its lease for (``None`` when it did not say)."""
    purpose, _, rest = holder.partition(" ")
    return purpose if rest else None


def release(engine: Engine, name: str, holder: str) -> None:
    """``holder`` lets go of lease ``name`` (nothing happens when another holder has taken it since)."""
    with engine.begin() as connection:
        connection.execute(delete(tables.lease).where(and_(tables.lease.c.name == name,
                                                           tables.lease.c.holder == holder)))
