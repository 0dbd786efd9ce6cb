"""The loader's compiled cache: a second parse reads the pickled specs instead of compiling (and gives the same
specs), an unreadable entry is compiled again rather than trusted, entries nothing has used for an hour are removed
when a new one is written, and a change to the specs' models changes the key."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from falcon_airflow.dags import loader
from falcon_airflow.dags.compiled_cache import STALE_ENTRY_SECONDS, prune_cache
from falcon_airflow.dags.loader import load_specs

REPOSITORY = Path(__file__).resolve().parents[3]
pytestmark = pytest.mark.xdist_group("airflow")


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("AIRFLOW_HOME", str(tmp_path / "home"))
    return tmp_path / "home" / "falcon" / "compiled"


def count_compiles(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    calls: list[Path] = []
    original = loader.compile_folder

    def counted(folder: Path, *, catchup_default: bool):  # type: ignore[no-untyped-def]
        calls.append(folder)
        return original(folder, catchup_default=catchup_default)

    monkeypatch.setattr(loader, "compile_folder", counted)
    return calls


def test_a_second_parse_reads_the_cache(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    compiles = count_compiles(monkeypatch)
    first, issues = load_specs(REPOSITORY / "entities")
    again, issues_again = load_specs(REPOSITORY / "entities")
    assert len(compiles) == 1 and again == first and issues_again == issues and first
    (entry,) = cache.glob("*.pickle")

    entry.write_bytes(b"not a pickle")  # a truncated or foreign file is compiled again, never trusted
    rebuilt, _ = load_specs(REPOSITORY / "entities")
    assert len(compiles) == 2 and rebuilt == first


def test_the_key_covers_the_models(cache: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    files = loader._entity_files(REPOSITORY / "entities")
    before = loader.content_key(REPOSITORY / "entities", files, True)
    monkeypatch.setattr(loader, "spec_schema_fingerprint", lambda: "another model")
    assert loader.content_key(REPOSITORY / "entities", files, True) != before


def test_stale_entries_are_pruned(tmp_path: Path) -> None:
    folder = tmp_path / "compiled"
    folder.mkdir()
    current = folder / "new-4"
    current.mkdir()
    (folder / "new-4.lock").write_text("")
    old_file, old_shards, old_lock, recent = (folder / "old.pickle", folder / "old-4", folder / "old-4.lock",
                                              folder / "recent.pickle")
    old_file.write_bytes(b"x")
    old_shards.mkdir()
    (old_shards / "shard-0.pickle").write_bytes(b"x")
    old_lock.write_text("")
    recent.write_bytes(b"x")
    long_ago = time.time() - STALE_ENTRY_SECONDS - 60
    for path in (old_file, old_shards, old_lock, current, folder / "new-4.lock"):
        os.utime(path, (long_ago, long_ago))
    prune_cache(current)
    assert sorted(path.name for path in folder.iterdir()) == ["new-4", "new-4.lock", "recent.pickle"]
