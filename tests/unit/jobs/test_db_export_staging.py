"""The export's staging tables belong to one run: their names, and which registered ones belong to runs that are
over (the only ones another run drops). The transaction against real databases is tested in
tests/integration/databases/test_concurrent_runs.py."""

from __future__ import annotations

import pytest

from falcon_airflow.jobs import db_export
from falcon_airflow.jobs.staging import RunOwner

INSTANCE = "2026-02-01T00:00Z"
NOW = 1_800_000_000_000
MINUTE = 60_000
TASK = "falcon.feed.orders.export.local/scheduled__2026-02-01T00:00:00+00:00/export"


def token(char: str) -> str:
    return char * 32


@pytest.mark.parametrize("table", ["orders", "sales.orders", "a" * 63, "s." + "b" * 80, "Orders_2026"])
def test_each_run_of_an_instance_stages_into_a_table_of_its_own(table: str) -> None:
    one = db_export.staging_name(table, "orders", "local", INSTANCE, token("a"))
    two = db_export.staging_name(table, "orders", "local", INSTANCE, token("b"))
    other_instance = db_export.staging_name(table, "orders", "local", "2026-02-02T00:00Z", token("a"))
    assert one != two and one != other_instance
    schema = table.rpartition(".")[0]
    for name in (one, two):
        bare = name.rpartition(".")[2]
        assert name.startswith(f"{schema}.") if schema else "." not in name
        assert len(bare) <= 63 and bare.replace("_", "").isalnum()
    # the runs of one instance share the prefix, which is not the table every earlier version's runs shared
    assert one.rsplit("_", 1)[0] == two.rsplit("_", 1)[0]
    assert db_export.legacy_staging_name(table, "orders", "local", INSTANCE) not in (one, two)


def me(task: str | None = TASK, try_number: int | None = 2) -> RunOwner:
    return RunOwner(token("0"), 600.0, task, try_number, "here", 1)


def claim(name: str, *, age: int, seconds: float = 600.0, task: str | None = None, try_number: int | None = None,
          owner: str | None = None) -> list[str | None]:
    text = owner if owner is not None else RunOwner(token(name[-1]), seconds, task, try_number, "there",
                                                            2).to_text()
    return [name, text, str(NOW - age)]


@pytest.mark.parametrize(("row", "over"), [
    (claim("stg_a", age=0), False),  # a live run, heartbeat just renewed
    (claim("stg_b", age=9 * MINUTE), False),
    (claim("stg_c", age=11 * MINUTE), True),  # no heartbeat for longer than its lease: the run died
    (claim("stg_d", age=11 * MINUTE, seconds=3600.0), False),  # its own, longer lease
    (claim("stg_e", age=0, task=TASK, try_number=1), True),  # an earlier try of this very task instance
    (claim("stg_f", age=0, task=TASK, try_number=3), False),
    (claim("stg_1", age=0, task="other/run/task", try_number=1), False),
    (claim("stg_2", age=5 * MINUTE, owner="not json"), False),  # unreadable: judged by the default lease
    (claim("stg_3", age=20 * MINUTE, owner="not json"), True),
    (["stg_4", None, None], True),  # a registration without a heartbeat
])
def test_only_the_staging_tables_of_runs_that_are_over_are_dropped(row: list[str | None], over: bool) -> None:
    assert db_export.stale_staging([row], me(), NOW) == ([row[0]] if over else [])


def test_a_run_never_drops_its_own_staging_table() -> None:
    mine = me()
    row = ["stg_mine", mine.to_text(), "0"]
    assert db_export.stale_staging([row], mine, NOW) == []


def test_without_a_task_try_only_the_heartbeat_decides() -> None:
    rows = [claim("stg_e", age=0, task=TASK, try_number=1), claim("stg_c", age=11 * MINUTE)]
    assert db_export.stale_staging(rows, me(task=None, try_number=None), NOW) == ["stg_c"]
