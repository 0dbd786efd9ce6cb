"""The DAG files split the estate into shards: together they build exactly the DAGs one file builds (same ids,
tasks and serialized form), for the example entities, the conformance scenarios and a generated estate; an invalid
entity hides nothing in any shard and is listed once, by shard 0's falcon.invalid-entities DAG."""

from __future__ import annotations

import gc
import json
import shutil
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from tests.estate import write_estate

from falcon_airflow.dags.loader import INVALID_DAG_ID, load_dags
from falcon_airflow.dags.shards import shard_file_name, shard_index, shard_of

REPOSITORY = Path(__file__).resolve().parents[3]
SCENARIOS = REPOSITORY.parent / "shared" / "conformance" / "scenarios"
pytestmark = pytest.mark.xdist_group("airflow")


def serialized(dag: Any) -> str:
    from airflow.serialization.serialized_objects import DagSerialization

    data = DagSerialization.to_dict(dag)["dag"]
    for key in ("fileloc", "relative_fileloc"):
        data.pop(key, None)
    for task in data.get("tasks", []):
        task.get("__var", task).pop("fileloc", None)
    return json.dumps(data, sort_keys=True, default=str)


def sharded(folder: Path, dags: Path, count: int, monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """What each shard file of a DAG folder with ``count`` shard files builds."""
    dags.mkdir(exist_ok=True)
    for index in range(count):
        (dags / shard_file_name(index)).write_text("# shard\n")
    monkeypatch.setenv("AIRFLOW__FALCON__DAG_SHARDS", str(count))
    return [load_dags(str(dags / shard_file_name(index)), folder=folder) for index in range(count)]


def freeze_compile_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every compile of this test at one moment: DAG docs show the instance due now and rule P10 is Falcon's
    "evaluated now", so two builds straddling a minute's or an hour's turn would differ for that reason alone."""
    moment = datetime.now(UTC)

    class Frozen(datetime):
        @classmethod
        def now(cls, tz: Any = None) -> Any:  # type: ignore[override]
            return moment.astimezone(tz) if tz is not None else moment.replace(tzinfo=None)

    monkeypatch.setattr("falcon_airflow.compiler.compilation.datetime", Frozen)


def assert_same_dags(folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, count: int = 4) -> list[str]:
    freeze_compile_time(monkeypatch)
    # A compiled cache of its own: an entry another test compiled earlier today (another hour) is kept for the day
    # and would hold its own "instance due now" in the docs.
    monkeypatch.setenv("AIRFLOW_HOME", str(tmp_path / "airflow-home"))
    whole = load_dags(folder=folder)
    parts = sharded(folder, tmp_path / "dags", count, monkeypatch)
    ids = [dag_id for part in parts for dag_id in part]
    assert len(ids) == len(set(ids)), "a DAG is built by two shards"
    assert sorted(ids) == sorted(whole)
    merged = {dag_id: dag for part in parts for dag_id, dag in part.items()}
    for dag_id, dag in whole.items():
        assert serialized(merged[dag_id]) == serialized(dag), dag_id
    return ids


def test_shard_files_are_named_and_numbered() -> None:
    assert [shard_index(shard_file_name(index)) for index in range(4)] == [0, 1, 2, 3]
    assert shard_index("falcon_invalid_entities.py") is None and shard_index("falcon_entities_01.py") is None
    assert {shard_of("feed", f"feed-{index}", 4) for index in range(40)} == {0, 1, 2, 3}
    assert shard_of("process", "count-clicks", 4) == shard_of("process", "count-clicks", 4)


def test_example_entities(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ids = assert_same_dags(REPOSITORY / "entities", tmp_path, monkeypatch)
    assert "falcon.process.count-clicks.primary" in ids


def test_a_parse_leaves_the_garbage_collector_as_it_found_it(tmp_path: Path) -> None:
    """The loader pauses the collector while it builds (falcon_airflow.bulk.collector_paused) and resumes it after."""
    assert gc.isenabled()
    assert load_dags(folder=REPOSITORY / "entities")
    assert gc.isenabled()
    gc.disable()
    try:
        assert load_dags(folder=REPOSITORY / "entities")
        assert not gc.isenabled()  # a caller that had it off keeps it off
    finally:
        gc.enable()


@pytest.mark.parametrize("scenario", sorted(path.name for path in SCENARIOS.iterdir() if path.is_dir())
                         if SCENARIOS.is_dir() else [])
def test_conformance_scenarios(shared: Path, scenario: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "entities"
    shutil.copytree(shared / "conformance" / "scenarios" / scenario, folder)
    assert_same_dags(folder, tmp_path, monkeypatch)


def test_generated_estate_with_invalid_entities(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "estate"
    write_estate(folder, 120, broken=13)
    ids = assert_same_dags(folder, tmp_path, monkeypatch, count=3)
    assert len(ids) > 150  # most of the estate is valid and scheduled

    parts = sharded(folder, tmp_path / "dags", 3, monkeypatch)
    reports = [dag_id for part in parts for dag_id in part if dag_id.startswith(INVALID_DAG_ID)]
    assert reports == [INVALID_DAG_ID] and INVALID_DAG_ID in parts[0]
    doc = parts[0][INVALID_DAG_ID].doc_md
    assert doc.count("feeds/feed-13.xml:") == 1  # an invalid feed is listed once, whichever shard it hashes to
    assert "[F9]" in doc and "[P8]" in doc and "[FA101]" in doc
    # every shard still holds valid entities while invalid ones hash into it too
    broken_shards = {shard_of("feed", f"feed-{index}", 3) for index in range(0, 120, 13)}
    assert broken_shards == {0, 1, 2}
    assert all(any(not dag_id.startswith(INVALID_DAG_ID) for dag_id in part) for part in parts)


def test_fewer_shard_files_than_configured_lose_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "estate"
    write_estate(folder, 30)
    whole = load_dags(folder=folder)
    dags = tmp_path / "dags"
    parts = sharded(folder, dags, 2, monkeypatch)
    monkeypatch.setenv("AIRFLOW__FALCON__DAG_SHARDS", "5")  # only two files exist: two shards
    again = [load_dags(str(dags / shard_file_name(index)), folder=folder) for index in range(2)]
    assert sorted(dag_id for part in again for dag_id in part) == sorted(whole)
    assert [sorted(part) for part in again] == [sorted(part) for part in parts]
