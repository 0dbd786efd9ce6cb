"""The store's tables in Airflow's metadata database, created and upgraded by ``airflow db migrate``.

Airflow runs the database manager a provider declares (``db-managers`` in its provider info) with its own: a new
database gets the tables of :mod:`falcon_airflow.store.tables` and is stamped with the newest migration; an older one
is upgraded through ``store_migrations/versions/``, each revision recorded in ``alembic_version_falcon``.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from airflow.utils.db_manager import BaseDBManager
from sqlalchemy import insert, select

from falcon_airflow.store import tables

MIGRATIONS = Path(__file__).with_name("store_migrations")
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


class FalconStoreDBManager(BaseDBManager):
    """Creates and upgrades the ``falcon_*`` tables."""

    metadata = tables.metadata
    version_table_name = "alembic_version_falcon"
    migration_dir = MIGRATIONS.as_posix()
    alembic_file = (MIGRATIONS / "alembic.ini").as_posix()
    supports_table_dropping = True

    def create_db_from_orm(self) -> None:
        super().create_db_from_orm()  # type: ignore[no-untyped-call]
        # the first revision row, as the first migration writes it
        engine = self.session.get_bind().engine
        with engine.begin() as connection:
            if connection.execute(select(tables.store_revision.c.id)).first() is None:
                connection.execute(insert(tables.store_revision).values(id=1, revision=0, changed_at=EPOCH))
