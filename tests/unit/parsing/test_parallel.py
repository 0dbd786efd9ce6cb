"""Reading on several cores gives exactly what reading one file after another gives: the same files in the same
order, the same issues, and entity models equal to the last detail (types, fields set, UTC as ``datetime.UTC``)."""

from __future__ import annotations

import importlib.util
from datetime import datetime
from pathlib import Path
from types import ModuleType

import pytest
from pydantic import BaseModel

from falcon_airflow.parsing import ParsedFile, parallel
from falcon_airflow.parsing.parallel import helper_count, parse_files
from falcon_airflow.workspace import collect_files

REPOSITORY = Path(__file__).resolve().parents[3]


def rich_estate() -> ModuleType:
    """The validation benchmark's estate generator (benchmarks/ is not a package the tests import)."""
    spec = importlib.util.spec_from_file_location("rich_estate", REPOSITORY / "benchmarks" / "_estate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def same(one: object, other: object, where: str = "") -> None:
    assert type(one) is type(other), where
    if isinstance(one, BaseModel):
        assert isinstance(other, BaseModel)
        assert one.model_fields_set == other.model_fields_set, where
        for name in type(one).model_fields:
            same(getattr(one, name), getattr(other, name), f"{where}.{name}")
    elif isinstance(one, tuple):
        assert isinstance(other, tuple) and len(one) == len(other), where
        for index, (first, second) in enumerate(zip(one, other, strict=True)):
            same(first, second, f"{where}[{index}]")
    elif isinstance(one, datetime):
        assert isinstance(other, datetime)
        assert one == other and one.tzinfo is other.tzinfo, where
    else:
        assert one == other, where


def same_files(serial: list[ParsedFile], parallel_read: list[ParsedFile]) -> None:
    assert [item.path for item in serial] == [item.path for item in parallel_read]
    for one, other in zip(serial, parallel_read, strict=True):
        assert (one.entity_type, one.entity_name, one.issues, one.oozie_workflow) == \
            (other.entity_type, other.entity_name, other.issues, other.oozie_workflow), one.path
        same(one.entity, other.entity, one.path)


@pytest.fixture
def every_file_parallel(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parallel, "PARALLEL_MIN_FILES", 1)
    monkeypatch.setattr(parallel, "available_cores", lambda: 2)


@pytest.mark.usefixtures("every_file_parallel")
def test_rich_estate_with_broken_files_reads_the_same_on_two_processes(tmp_path: Path) -> None:
    folder = tmp_path / "estate"
    rich_estate().write_rich_estate(folder, 40)
    broken = folder / "broken"
    broken.mkdir()
    (broken / "not-xml.xml").write_text("<feed name='x'", encoding="utf-8")
    (broken / "schema.xml").write_text('<feed name="bad_name" xmlns="uri:falcon:feed:0.1"/>', encoding="utf-8")
    (broken / "other.xml").write_text("<something/>", encoding="utf-8")
    (broken / "workflow.xml").write_text('<workflow-app name="w" xmlns="uri:oozie:workflow:0.5"/>', encoding="utf-8")
    (broken / "date.xml").write_text((folder / "feeds" / "feed-3.xml").read_text(encoding="utf-8")
                                     .replace("2025-01-01T00:00Z", "2025-02-30T00:00Z"), encoding="utf-8")
    items = [(item.path, item.display) for item in collect_files([str(folder), str(REPOSITORY / "entities")])]
    serial = parse_files(items, workers=1)
    assert sum(1 for item in serial if item.issues) >= 4
    assert helper_count(len(items), 2) == 1
    same_files(serial, parse_files(items, workers=2))
    same_files(serial, parse_files(items, workers=None))


def test_small_or_single_core_reads_stay_in_this_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parallel, "available_cores", lambda: 2)
    assert helper_count(parallel.PARALLEL_MIN_FILES - 1, None) == 0
    assert helper_count(parallel.PARALLEL_MIN_FILES, None) == 1
    assert helper_count(parallel.PARALLEL_MIN_FILES, 1) == 0
    monkeypatch.setattr(parallel, "available_cores", lambda: 1)
    assert helper_count(100_000, None) == 0


@pytest.mark.usefixtures("every_file_parallel")
def test_without_a_helper_the_files_are_read_here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rich_estate().write_rich_estate(tmp_path, 5)
    items = [(item.path, item.display) for item in collect_files([str(tmp_path)])]
    serial = parse_files(items, workers=1)

    def no_fork(helpers: int) -> None:
        raise OSError("fork: Cannot allocate memory")

    monkeypatch.setattr(parallel, "forked_pool", no_fork)
    same_files(serial, parse_files(items, workers=2))
