"""Session-wide PostgreSQL and MariaDB servers (started once, stopped at exit) with a 1,000,000-row table each."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from tests.integration.databases import servers

ROWS = 1_000_000

POSTGRES_TABLE = ("CREATE TABLE orders (id BIGINT PRIMARY KEY, customer VARCHAR(40) NOT NULL, "
                  "amount NUMERIC(12,2) NOT NULL, placed TIMESTAMP NOT NULL, note VARCHAR(40))")
MARIADB_TABLE = ("CREATE TABLE orders (id BIGINT PRIMARY KEY, customer VARCHAR(40) NOT NULL, "
                 "amount DECIMAL(12,2) NOT NULL, placed DATETIME NOT NULL, note VARCHAR(40))")


def _unavailable(problem: Exception) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"{problem}; .ci/run installs it")
    pytest.skip(str(problem))


@pytest.fixture(scope="session")
def postgres() -> Iterator[servers.Server]:
    try:
        context = servers.postgres()
        server = context.__enter__()
    except servers.ServerUnavailable as problem:
        _unavailable(problem)
    try:
        server.sql(POSTGRES_TABLE)
        server.sql(f"INSERT INTO orders SELECT g, 'customer-' || (g % 997), (g % 100000) / 100.0, "
                   f"timestamp '2026-01-01' + g * interval '7 seconds', "
                   f"CASE WHEN g % 10 = 0 THEN NULL ELSE 'n' || (g % 13) END FROM generate_series(1, {ROWS}) g")
        yield server
    finally:
        context.__exit__(None, None, None)


@pytest.fixture(scope="session")
def mariadb() -> Iterator[servers.Server]:
    try:
        context = servers.mariadb()
        server = context.__enter__()
    except servers.ServerUnavailable as problem:
        _unavailable(problem)
    try:
        server.sql(MARIADB_TABLE)
        server.sql(f"INSERT INTO orders SELECT seq, CONCAT('customer-', seq % 997), (seq % 100000) / 100, "
                   f"TIMESTAMPADD(SECOND, seq * 7, '2026-01-01 00:00:00'), "
                   f"IF(seq % 10 = 0, NULL, CONCAT('n', seq % 13)) FROM seq_1_to_{ROWS}")
        yield server
    finally:
        context.__exit__(None, None, None)
