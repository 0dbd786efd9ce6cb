"""Which entities are invalid, kept per workspace: the answer is always the one a whole validation gives now - when
a rule's verdict moves with the time (P10) and after the store changes (a file dropped in, fixed, updated,
deleted), for ``entity -list`` and the console's list alike."""

from __future__ import annotations

import inspect
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from tests.builders import ops_cluster, ops_feed, ops_process
from tests.unit.server.served import Served, serve

from falcon_airflow.operate import invalid
from falcon_airflow.operate.folder_workspaces import folder_workspace
from falcon_airflow.validation import RULES
from falcon_airflow.workspace import Workspace


def uncached(workspace: Workspace, now: datetime) -> dict[tuple[str, str], list[str]]:
    return invalid.with_dependents(workspace, invalid.direct_errors(workspace, now))


def test_every_rule_that_reads_the_time_is_run_on_every_call() -> None:
    # FA060 reads it only for a retention limit reaching back before the year 1: its verdicts are kept for a day
    reading = {rule.id for rule in RULES if ".now" in inspect.getsource(rule.check)}
    assert reading - {"FA060"} <= invalid.NOW_RULES


def test_a_verdict_that_moves_with_the_time_is_right_at_every_call(tmp_path: Path) -> None:
    (tmp_path / "clusters").mkdir()
    (tmp_path / "feeds").mkdir()
    (tmp_path / "processes").mkdir()
    (tmp_path / "clusters" / "east.xml").write_text(ops_cluster("east"))
    # the input reaches back to midnight; the feed keeps 12 hours: P10 breaks in the afternoon, every day
    (tmp_path / "feeds" / "logs.xml").write_text(ops_feed("logs").replace("days(2)", "hours(12)"))
    (tmp_path / "feeds" / "counts.xml").write_text(ops_feed("counts"))
    (tmp_path / "processes" / "count.xml").write_text(
        ops_process("count").replace('start="now(0,0)"', 'start="today(0,0)"'))
    workspace = folder_workspace(tmp_path)
    assert folder_workspace(tmp_path) is workspace  # nothing changed: the same workspace
    seen = set()
    for hours in (9, 10, 13, 14, 20, 33, 38, 9, 60):
        now = datetime(2026, 3, 1, tzinfo=UTC) + timedelta(hours=hours)
        answer = invalid.invalid_entities(workspace, now)
        assert answer == uncached(workspace, now), now
        seen.add(tuple(answer.get(("process", "count"), ())))
    assert seen == {(), ("P10",)}


@pytest.fixture
def served(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Served:
    return serve(tmp_path, monkeypatch)


def statuses(served: Served) -> dict[str, tuple[str, tuple[str, ...], tuple[str, ...]]]:
    answer = served.call("GET", "/console/api/entities", params={"limit": "500"})
    assert answer.status_code == 200, answer.text
    return {item["name"]: (item["status"], tuple(item["rules"]), tuple(item["tags"]))
            for item in answer.json()["entities"]}


def test_the_lists_answers_follow_every_change_of_the_store(served: Served) -> None:
    before = statuses(served)
    assert before["logs"][0] == "SUBMITTED" and before == statuses(served)  # asked again: the kept answer
    # a definition dropped into the folder that breaks a rule, and everything that uses it
    broken = served.kit.write("feeds/logs.xml", ops_feed("logs").replace('end="2099-01-01T00:00Z"',
                                                                         'end="2025-01-01T00:00Z"', 1))
    now_broken = statuses(served)
    assert now_broken["logs"][0] == "INVALID" and now_broken["logs"][1]
    assert now_broken["count"][0] == "INVALID"  # its input feed no longer covers it
    served.kit.write("feeds/logs.xml", ops_feed("logs"))  # fixed
    assert statuses(served) == before
    # an update through the API: the new tags are listed
    tagged = ops_feed("counts", west=True).replace("<availabilityFlag>", "<tags>team=blue</tags>\n  <availabilityFlag>")
    answer = served.call("POST", "/api/entities/update/feed/counts", body=tagged, accept="text/xml")
    assert answer.status_code == 200, answer.text
    assert statuses(served)["counts"][2] == ("team=blue",)
    # a delete through the API: gone from the list
    assert served.call("DELETE", "/api/entities/delete/process/count", accept="text/xml").status_code == 200
    assert "count" not in statuses(served)
    assert broken.exists()
    assert statuses(served)["logs"] == before["logs"]
