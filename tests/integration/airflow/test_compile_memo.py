"""A change to one entity re-compiles only what it affects, and the result is exactly a compilation from scratch.

Each case edits the folder, compiles it through the loader (which keeps the memo) and compares the specs and
issues with ``compile_workspace`` of a freshly loaded workspace: the memo may save work, never change an outcome.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from tests.estate import write_estate
from tests.integration.airflow.test_sharded_loader import freeze_compile_time

from falcon_airflow.compiler.compilation import compile_workspace
from falcon_airflow.compiler.store_state import recorded_store_state
from falcon_airflow.dags.loader import _state_dir, compile_folder_reusing
from falcon_airflow.workspace import Workspace

REPOSITORY = Path(__file__).resolve().parents[3]
pytestmark = pytest.mark.xdist_group("airflow")


def from_scratch(folder: Path) -> tuple[list[Any], list[Any]]:
    compilation = compile_workspace(Workspace.load([str(folder)]), entities_dir=folder,
                                    store_state=recorded_store_state(folder, _state_dir(folder)))
    return list(compilation.specs), list(compilation.report.issues)


def compiled(folder: Path) -> tuple[int, int]:
    """Compile through the loader and check the outcome against a compilation from scratch; (files parsed,
    entities compiled) by this compilation."""
    result = compile_folder_reusing(folder, catchup_default=True)
    expected_specs, expected_issues = from_scratch(folder)
    assert [spec.model_dump(mode="json") for spec in result.specs] == \
        [spec.model_dump(mode="json") for spec in expected_specs]
    assert result.issues == expected_issues
    assert result.files >= result.files_parsed and result.entities >= result.entities_compiled
    return result.files_parsed, result.entities_compiled


@pytest.fixture
def estate(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("AIRFLOW_HOME", str(tmp_path / "home"))
    freeze_compile_time(monkeypatch)
    folder = tmp_path / "entities"
    write_estate(folder, 12, broken=5)
    return folder


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, 1))


def test_unchanged_files_are_neither_parsed_nor_compiled_again(estate: Path) -> None:
    parsed, entities = compiled(estate)
    assert parsed == 25 and entities > 0  # the first compilation does everything
    assert compiled(estate) == (0, 0)


def test_an_edited_process_is_the_only_entity_compiled_again(estate: Path) -> None:
    compiled(estate)
    (memo,) = (estate.parent / "home").rglob("memo-*")
    written = memo.read_bytes()
    edit(estate / "processes" / "process-8.xml", "--driver-memory 1g", "--driver-memory 2g")
    assert compiled(estate) == (1, 1)
    assert compiled(estate) == (1, 1)  # a few edits leave the memo as it was: they are redone until they add up
    assert memo.read_bytes() == written
    for index in (3, 4, 9):
        edit(estate / "processes" / f"process-{index}.xml", "--driver-memory 1g", "--driver-memory 2g")
    assert compiled(estate) == (4, 4)


def test_an_edited_feed_recompiles_itself_and_the_processes_that_name_it(estate: Path) -> None:
    compiled(estate)
    edit(estate / "feeds" / "feed-8.xml", "days(7)", "days(9)")
    assert compiled(estate) == (1, 3)  # feed-8, process-8 writing it, process-9 reading it


def test_an_edited_cluster_recompiles_everything(estate: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _, everything = compiled(estate)
    edit(estate / "clusters" / "primary.xml", "colo=\"primary\"", "colo=\"elsewhere\"")
    assert compiled(estate) == (1, everything)
    assert compiled(estate) == (1, everything)  # redone again: not yet enough to write the memo again
    monkeypatch.setattr("falcon_airflow.dags.loader.MEMO_REWRITE_MINIMUM", 10)
    assert compiled(estate) == (1, everything)  # now it is
    assert compiled(estate) == (0, 0)


def test_breaking_and_fixing_an_entity_gives_what_a_compilation_from_scratch_gives(
        estate: Path) -> None:
    compiled(estate)
    process = estate / "processes" / "process-3.xml"
    original = process.read_text()
    edit(process, 'feed="feed-2"', 'feed="no-such-feed"')  # invalid now: left out, reported
    compiled(estate)
    process.write_text(original)  # the bytes the memo knows again
    assert compiled(estate) == (0, 0)
    (estate / "feeds" / "feed-4.xml").unlink()  # process-4 and process-5 lose a feed
    compiled(estate)
    (estate / "feeds" / "feed-4.xml").write_text((estate / "feeds" / "feed-6.xml").read_text()
                                                 .replace("feed-6", "feed-4"))
    compiled(estate)


def test_an_edited_oozie_workflow_recompiles_the_processes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AIRFLOW_HOME", str(tmp_path / "home"))
    freeze_compile_time(monkeypatch)
    folder = tmp_path / "entities"
    shutil.copytree(REPOSITORY / "entities", folder)
    compiled(folder)
    workflows = sorted(folder.rglob("workflow.xml"))
    assert workflows, "the example entities have an Oozie workflow"
    edit(workflows[0], "<end ", "<!-- the end --><end ")
    parsed, entities = compiled(folder)
    assert parsed == 1 and entities >= 1


def test_a_memo_written_by_other_code_is_not_read(estate: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    compiled(estate)
    monkeypatch.setattr("falcon_airflow.dags.compile_memo.code_fingerprint", lambda: "other code")
    parsed, _ = compiled(estate)
    assert parsed == 25
