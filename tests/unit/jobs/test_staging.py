"""Staging that belongs to one run, the pure decisions: the names a run gives its siblings of a published folder,
who a run is (its token, lease and Airflow task try), and which siblings belong to runs that are over - the only
ones another run removes (the Spark side is tested in tests/integration/jobs/test_staging_ownership.py)."""

from __future__ import annotations

import pytest

from falcon_airflow.jobs.filesystem import Entry
from falcon_airflow.jobs.staging import Cleanup, RunOwner, parse_sibling, plan_cleanup, sibling_name

NOW = 1_800_000_000_000  # the file system's clock, in milliseconds
MINUTE = 60_000
TASK = "falcon.feed.clicks.replication.east.west/scheduled__2026-03-01T05:00:00+00:00/replicate"
PARENT = "file:/data/clicks"


def me(task: str | None = TASK, try_number: int | None = 2) -> RunOwner:
    return RunOwner("0" * 32, 600.0, task, try_number, "here", 1)


def entry(name: str, mtime: int = NOW) -> Entry:
    return Entry(f"{PARENT}/{name}", not name.startswith(".05.falcon-lease-"), 0, mtime)


@pytest.mark.parametrize(("name", "kind"), [("05", "staging"), ("2026-03-01", "old"), ("part.v2", "lease"),
                                            ("a-b_c", "staging"), (".hidden", "old")])
def test_a_sibling_name_reads_back_as_its_kind_and_token(name: str, kind: str) -> None:
    token = RunOwner.current().token
    child = sibling_name(name, kind, token)
    assert child.startswith(f".{name}.falcon-{kind}-")
    assert parse_sibling(name, child) == (kind, token)


@pytest.mark.parametrize(("name", "child"), [
    ("05", ".06.falcon-staging-0123456789ab"),  # another instance's
    ("0", ".05.falcon-staging-0123456789ab"),  # a prefix of the name is not the name
    ("05", ".05.falcon-copy-0123456789ab"),  # not a kind a run makes
    ("05", "05.falcon-staging-0123456789ab"),  # not hidden
    ("05", ".05.falcon-staging-0123.falcon-staging-ab"),  # the sibling of "05.falcon-staging-0123", not of "05"
    ("05", ".05.falcon-staging-"),  # no token
])
def test_what_is_not_a_sibling_of_the_folder_is_never_read_as_one(name: str, child: str) -> None:
    assert parse_sibling(name, child) is None


def test_a_run_is_named_by_a_fresh_token_and_the_task_try_airflow_gives_it() -> None:
    environ = {"AIRFLOW_CTX_DAG_ID": "d", "AIRFLOW_CTX_DAG_RUN_ID": "r", "AIRFLOW_CTX_TASK_ID": "t",
               "AIRFLOW_CTX_TRY_NUMBER": "3"}
    one, two = RunOwner.current(30.0, environ), RunOwner.current(30.0, environ)
    assert one.token != two.token and len(one.token) == 32
    assert (one.task, one.try_number, one.lease_seconds) == ("d/r/t", 3, 30.0)
    assert RunOwner.from_text(one.to_text()) == one
    outside = RunOwner.current(environ={"AIRFLOW_CTX_TRY_NUMBER": "3", "AIRFLOW_CTX_DAG_ID": "d"})
    assert (outside.task, outside.try_number) == (None, None)  # no task: no try to compare


@pytest.mark.parametrize("text", ["", "{", "[]", '{"token": "x"}', '{"token": "x", "lease_seconds": "soon"}'])
def test_a_lease_that_does_not_read_names_no_owner(text: str) -> None:
    assert RunOwner.from_text(text) is None


def other(token: str = "f" * 32, *, lease_age: int | None = 0, seconds: float = 600.0, task: str | None = None,
          try_number: int | None = None, kinds: tuple[str, ...] = ("staging",)
          ) -> tuple[list[Entry], dict[str, RunOwner | None]]:
    children = [entry(sibling_name("05", kind, token), NOW - 30 * MINUTE) for kind in kinds]
    owners: dict[str, RunOwner | None] = {}
    if lease_age is not None:
        children.append(entry(sibling_name("05", "lease", token), NOW - lease_age))
        owners[token] = RunOwner(token, seconds, task, try_number, "there", 2)
    return children, owners


@pytest.mark.parametrize(("kwargs", "over"), [
    ({"lease_age": 0}, False),
    ({"lease_age": 9 * MINUTE}, False),
    ({"lease_age": 11 * MINUTE}, True),
    ({"lease_age": 11 * MINUTE, "seconds": 3600.0}, False),
    ({"lease_age": 61 * MINUTE, "seconds": 3600.0}, True),
    ({"lease_age": None}, True),
    ({"lease_age": 0, "task": TASK, "try_number": 1}, True),
    ({"lease_age": 0, "task": TASK, "try_number": 2}, False),
    ({"lease_age": 0, "task": TASK, "try_number": 3}, False),
    ({"lease_age": 0, "task": "another/run/task", "try_number": 1}, False),
    ({"lease_age": 0, "task": TASK, "try_number": None}, False),
])
def test_only_the_siblings_of_runs_that_are_over_are_removed(kwargs: dict[str, object], over: bool) -> None:
    children, owners = other(**kwargs)  # type: ignore[arg-type]
    plan = plan_cleanup("05", me(), children, owners, NOW, target_exists=True)
    assert sorted(plan.remove) == (sorted(item.path for item in children) if over else [])
    assert plan.live == (() if over else ("f" * 32,))
    assert plan.restore is None


def test_without_a_task_try_only_the_lease_decides() -> None:
    children, owners = other(lease_age=0, task=TASK, try_number=1)
    assert plan_cleanup("05", me(task=None, try_number=None), children, owners, NOW, True).remove == ()


def test_an_unreadable_lease_is_judged_by_its_age_with_the_default_lease() -> None:
    for age, over in ((5 * MINUTE, False), (11 * MINUTE, True)):
        children, _ = other(lease_age=age)
        plan = plan_cleanup("05", me(), children, {"f" * 32: None}, NOW, True)
        assert bool(plan.remove) is over


def test_a_run_never_removes_its_own_siblings() -> None:
    mine = me()
    children = [entry(sibling_name("05", kind, mine.token), 0) for kind in ("staging", "old", "lease")]
    plan = plan_cleanup("05", mine, children, {}, NOW, False)
    assert plan == Cleanup(None, (), ())


def test_leases_are_removed_after_the_folders_they_guard() -> None:
    children, owners = other(lease_age=20 * MINUTE, kinds=("staging", "old"))
    plan = plan_cleanup("05", me(), children, owners, NOW, target_exists=True)
    assert [parse_sibling("05", path.rsplit("/", 1)[1])[0] for path in plan.remove] == [  # type: ignore[index]
        "staging", "old", "lease"]


@pytest.mark.parametrize(("lease_age", "target_exists", "restored"), [
    (20 * MINUTE, False, True),  # a run died between its renames: its set-aside instance goes back
    (20 * MINUTE, True, False),  # the instance is there: the set-aside version is only removed
    (0, False, False),  # a live run between its renames: the instance comes back with its own rename
    (None, False, True),
])
def test_a_set_aside_version_is_put_back_only_when_its_run_is_over_and_the_instance_missing(
        lease_age: int | None, target_exists: bool, restored: bool) -> None:
    children, owners = other(lease_age=lease_age, kinds=("old",))
    plan = plan_cleanup("05", me(), children, owners, NOW, target_exists)
    assert (plan.restore is not None) is restored
    assert (plan.restore in plan.remove) is False


def test_of_several_set_aside_versions_the_newest_goes_back_and_the_others_go() -> None:
    first, owners_one = other("a" * 32, lease_age=None, kinds=("old",))
    second, _ = other("b" * 32, lease_age=None, kinds=("old",))
    newer = [Entry(item.path, item.is_dir, 0, NOW - MINUTE) for item in second]
    plan = plan_cleanup("05", me(), [*first, *newer], owners_one, NOW, target_exists=False)
    assert plan.restore == newer[0].path
    assert plan.remove == (first[0].path,)


def test_other_folders_siblings_are_not_this_runs_business() -> None:
    token = "e" * 32
    children = [entry(sibling_name("06", "staging", token), 0), entry("05", 0), entry("_SUCCESS", 0)]
    assert plan_cleanup("05", me(), children, {}, NOW, True) == Cleanup(None, (), ())
