"""Fixtures shared by the integration tiers."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from tests.integration.databases.servers import Server, ServerUnavailable, postgres


@pytest.fixture(scope="session")
def airflow_postgres() -> Iterator[Server]:
    """A private PostgreSQL server (127.0.0.1, a free port) for the Airflows the tests start: production Airflow
    runs on PostgreSQL, so the tiers that run Airflow's servers do too. One per test process; each Airflow gets a
    database of its own (:func:`tests.integration.airflow_database.airflow_database`)."""
    try:
        with postgres() as server:
            yield server
    except ServerUnavailable as missing:
        pytest.fail(f"{missing}; `.ci/run` installs it", pytrace=False)
