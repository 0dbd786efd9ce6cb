"""The store in Airflow's metadata database, as the server reaches it: through the api-server's own engine.

``[falcon] store = database`` makes the server keep Falcon's configuration store there (the tables are
:mod:`falcon_airflow.store.tables`, made by ``airflow db migrate``); ``folder`` (the default until every command
speaks to the server) keeps it in the entities folder and ``[falcon] store_dir``.
"""

from __future__ import annotations

import functools

from falcon_airflow.store.database import DatabaseStore

STORE_KINDS = ("folder", "database")


def store_kind(setting: str | None) -> str:
    """``[falcon] store``, checked: a misspelt value is an error, not a silent fallback to the folder."""
    value = (setting or "folder").strip().lower() or "folder"
    if value not in STORE_KINDS:
        raise ValueError(f"[falcon] store must be one of {', '.join(STORE_KINDS)}, not {setting!r}")
    return value


@functools.cache
def database_store() -> DatabaseStore:
    """The store on the api-server's engine (Airflow's metadata database)."""
    from airflow import settings

    if getattr(settings, "engine", None) is None:
        settings.configure_orm()  # type: ignore[no-untyped-call]
    assert settings.engine is not None
    return DatabaseStore(settings.engine)
