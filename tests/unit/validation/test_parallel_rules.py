"""Rules run on several cores give the report one core gives, issue for issue and in the same order."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from tests.estate import write_estate

from falcon_airflow import validation
from falcon_airflow.entities import EntityType
from falcon_airflow.parsing import parallel
from falcon_airflow.validation import _runs, validate_paths

NOW = datetime(2026, 3, 1, 12, tzinfo=UTC)


def test_a_broken_estate_reports_the_same_on_two_processes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_estate(tmp_path / "estate", 120, broken=7)
    (tmp_path / "estate" / "feeds" / "feed-5.xml").write_text("<feed name='feed-5'", encoding="utf-8")
    serial = validate_paths([str(tmp_path / "estate")], now=NOW, workers=1)
    assert not serial.valid and len(serial.issues) > 20
    monkeypatch.setattr(parallel, "PARALLEL_MIN_FILES", 1)
    monkeypatch.setattr(parallel, "available_cores", lambda: 2)
    for workers in (2, None):
        assert validate_paths([str(tmp_path / "estate")], now=NOW, workers=workers) == serial


def test_runs_cover_every_entity_once_with_feeds_weighing_more() -> None:
    class Stub:
        def __init__(self, entity_type: EntityType) -> None:
            self.entity_type = entity_type

    entities: list[Any] = [Stub(EntityType.CLUSTER), *[Stub(EntityType.FEED)] * 30,
                           *[Stub(EntityType.PROCESS)] * 30]
    runs = _runs(entities, 2)
    assert runs[0][0] == 0 and runs[-1][1] == len(entities)
    assert all(one[1] == other[0] for one, other in itertools.pairwise(runs))
    assert len(runs) == 2 and runs[0][1] < 31  # the first run holds fewer, costlier, entities
    assert _runs(entities[:1], 3) == [(0, 1)]


def test_without_a_helper_the_rules_run_here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_estate(tmp_path / "estate", 30, broken=7)
    serial = validate_paths([str(tmp_path / "estate")], now=NOW, workers=1)
    monkeypatch.setattr(parallel, "PARALLEL_MIN_FILES", 1)
    monkeypatch.setattr(parallel, "available_cores", lambda: 2)

    def no_fork(helpers: int) -> None:
        raise OSError("fork: Cannot allocate memory")

    monkeypatch.setattr(parallel, "forked_pool", no_fork)
    monkeypatch.setattr(validation, "forked_pool", no_fork)
    assert validate_paths([str(tmp_path / "estate")], now=NOW, workers=2) == serial
