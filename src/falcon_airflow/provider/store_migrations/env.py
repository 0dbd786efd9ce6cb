"""Alembic's entry point for the store's tables: only ``falcon_*`` tables are compared or changed, and the
revision lives in ``alembic_version_falcon`` (never in Airflow's own ``alembic_version``)."""

from __future__ import annotations

import contextlib
from typing import Any

from airflow import settings
from alembic import context

from falcon_airflow.store.tables import metadata

VERSION_TABLE = "alembic_version_falcon"
config = context.config


def include_object(_: Any, name: str | None, type_: str, *args: Any) -> bool:
    return not (type_ == "table" and name not in metadata.tables)


def run_migrations_offline() -> None:
    context.configure(url=settings.SQL_ALCHEMY_CONN, target_metadata=metadata, literal_binds=True,
                      compare_type=True, render_as_batch=True, version_table=VERSION_TABLE,
                      include_object=include_object)
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    with contextlib.ExitStack() as stack:
        connection = config.attributes.get("connection", None)
        if connection is None:
            assert settings.engine is not None
            connection = stack.enter_context(settings.engine.connect())
        context.configure(connection=connection, transaction_per_migration=True, target_metadata=metadata,
                          compare_type=True, include_object=include_object, render_as_batch=True,
                          version_table=VERSION_TABLE)
        with context.begin_transaction():
            context.run_migrations()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
