"""A change to one entity re-compiles only what it affects, and the result is exactly a compilation from scratch:
through the one DAG file's memo and through the shard files' cache (one judgement, a part per shard).

Each case edits the folder, compiles it through the loader (which keeps the memo) and compares the specs and
issues with ``compile_workspace`` of a freshly loaded workspace: the memo may save work, never change an outcome.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path
from typing import Any

import pytest
from tests.estate import write_estate
from tests.integration.airflow.test_sharded_loader import freeze_compile_time

from falcon_airflow.compiler.compilation import compile_workspace
from falcon_airflow.compiler.store_state import recorded_store_state
from falcon_airflow.dags import loader
from falcon_airflow.dags.compiled_cache import read_pickled
from falcon_airflow.dags.loader import (
    _entity_files,
    _issue_dict,
    _state_dir,
    compile_folder_reusing,
    content_key,
    status_key,
)
from falcon_airflow.dags.shard_compile import JUDGEMENT, settled_entry
from falcon_airflow.dags.shards import _entry_folder, load_shard
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


# -- the shard files: one judgement of the folder, each shard compiling its own entities (dags/shard_compile.py) --

SHARDS = 3


def _dumped(specs: list[Any]) -> list[str]:
    return sorted(json.dumps(spec.model_dump(mode="json"), sort_keys=True) for spec in specs)


def current_entry(folder: Path, count: int = SHARDS) -> Path:
    """The shard files' cache entry of the folder's content as it is now."""
    key, _ = loader.status_key(folder, _entity_files(folder), True)  # as monkeypatched
    return settled_entry(_entry_folder(key, count), folder)


def shards_compiled(folder: Path, count: int = SHARDS) -> tuple[int, int]:
    """Load every shard as its shard file does and check the shards together against a compilation from scratch;
    (files parsed, entities compiled) to make the cache entry of the folder's content, (0, 0) when it was there."""
    existed = (current_entry(folder, count) / JUDGEMENT).exists()
    parts = [load_shard(folder, catchup_default=True, count=count, shard=index) for index in range(count)]
    _, every_issue = load_shard(folder, catchup_default=True, count=count, shard=None)
    expected_specs, expected_issues = from_scratch(folder)
    assert _dumped([spec for specs, _ in parts for spec in specs]) == _dumped(expected_specs)
    assert every_issue == [_issue_dict(issue) for issue in expected_issues]
    reported = [issue for _, issues in parts for issue in issues]  # each issue by exactly one shard file
    assert sorted(map(json.dumps, reported)) == sorted(map(json.dumps, every_issue))
    if existed:
        return 0, 0
    entry = current_entry(folder, count)
    judgement = read_pickled(entry / JUDGEMENT)
    outcomes = [read_pickled(entry / f"shard-{index}.pickle") for index in range(count)]
    return judgement.files_parsed, sum(outcome.entities_compiled for outcome in outcomes)


def test_shards_compile_their_own_entities_once_and_what_an_edit_affects(estate: Path) -> None:
    parsed, everything = shards_compiled(estate)
    assert parsed == 25 and everything > 0
    assert shards_compiled(estate) == (0, 0)  # the same content: every shard reads its part
    edit(estate / "processes" / "process-8.xml", "--driver-memory 1g", "--driver-memory 2g")
    assert shards_compiled(estate) == (1, 1)  # one entity changed: it alone is compiled again
    edit(estate / "feeds" / "feed-8.xml", "days(7)", "days(9)")
    # a dependency: feed-8, process-8 writing it, process-9 reading it (process-8's file is parsed again until the
    # edits add up to a new parse memo, as for the one DAG file's memo)
    assert shards_compiled(estate) == (2, 3)
    edit(estate / "clusters" / "primary.xml", "colo=\"primary\"", "colo=\"elsewhere\"")
    assert shards_compiled(estate) == (3, everything)  # every entity compiles from the cluster


def test_shards_follow_an_entity_made_invalid_deleted_and_restored(estate: Path) -> None:
    shards_compiled(estate)
    feed = estate / "feeds" / "feed-3.xml"
    original = feed.read_text()
    edit(feed, "days(7)", "hours(1)")  # invalid now: processes 3 and 4, maybe in other shards, are left out
    assert shards_compiled(estate)[1] == 0  # nothing to compile: only the judgement changed
    feed.write_text(original)
    assert shards_compiled(estate)[1] == 0  # the bytes the memos know again: nothing compiles
    (estate / "processes" / "process-4.xml").unlink()
    (estate / "feeds" / "feed-6.xml").unlink()  # process-6 and process-7 lose a feed
    shards_compiled(estate)
    (estate / "feeds" / "feed-6.xml").write_text(original.replace("feed-3", "feed-6"))
    shards_compiled(estate)


def test_a_damaged_cache_entry_is_made_again(estate: Path) -> None:
    shards_compiled(estate)
    entry = current_entry(estate)
    (entry / "shard-1.pickle").write_bytes(b"\x80\x05truncated")
    (entry / "inputs-2.pickle").write_bytes(b"not a pickle")
    (entry / "shard-2.pickle").unlink()
    assert shards_compiled(estate) == (0, 0)  # the judgement stood; shards 1 and 2 compiled again, as from scratch
    (entry / JUDGEMENT).write_bytes(b"")
    for index in range(SHARDS):
        (entry / f"shard-{index}.pickle").unlink()
    assert shards_compiled(estate) == (0, 0)


def test_shard_files_parsed_at_once_share_one_judgement(estate: Path, tmp_path: Path) -> None:
    """The dag-processor forks a process per file: all shards at once, on an empty cache, build what one does."""
    children: list[int] = []
    for index in range(SHARDS):
        child = os.fork()
        if child == 0:  # the child loads its shard and leaves without the parent's cleanup
            code = 1
            try:
                specs, _ = load_shard(estate, catchup_default=True, count=SHARDS, shard=index)
                (tmp_path / f"shard-{index}.json").write_text(json.dumps(_dumped(specs)))
                code = 0
            finally:
                os._exit(code)
        children.append(child)
    assert all(os.waitpid(child, 0)[1] == 0 for child in children)
    expected, _ = from_scratch(estate)
    made = [spec for index in range(SHARDS) for spec in json.loads((tmp_path / f"shard-{index}.json").read_text())]
    assert sorted(made) == _dumped(expected)
    assert shards_compiled(estate) == (0, 0)  # judged once: the entry the three made is whole


def test_the_content_key_sees_every_edit(estate: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The key reads file status, and the bytes of recent files: a same-size edit in the same instant and an edit
    whose modification time is set back both change it."""
    process = estate / "processes" / "process-8.xml"
    before = content_key(estate, _entity_files(estate), True)
    edit(process, "--driver-memory 1g", "--driver-memory 2g")  # same size, most likely the same timestamp tick
    assert content_key(estate, _entity_files(estate), True) != before
    monkeypatch.setattr("falcon_airflow.dags.loader.RACY_SECONDS", 0.0)  # status alone from here on
    status = process.stat()
    settled = content_key(estate, _entity_files(estate), True)
    assert content_key(estate, _entity_files(estate), True) == settled
    time.sleep(0.05)  # past the file system's timestamp tick of the first edit, so the change time can move
    edit(process, "--driver-memory 2g", "--driver-memory 3g")
    os.utime(process, ns=(status.st_atime_ns, status.st_mtime_ns))  # as cp -p or touch -d would leave it
    assert process.stat().st_mtime_ns == status.st_mtime_ns and process.stat().st_size == status.st_size
    assert content_key(estate, _entity_files(estate), True) != settled  # the change time moved


def test_an_edit_the_file_status_cannot_tell_is_seen_by_its_bytes(estate: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Two same-size writes within one timestamp tick leave the status as it was: the status key cannot tell
    them apart (here: a status key that never changes), and the entry judged while the file was racy holds only
    while its bytes are the ones it recorded."""
    real = status_key
    monkeypatch.setattr("falcon_airflow.dags.loader.status_key",
                        lambda folder, files, catchup: ("same-status", real(folder, files, catchup)[1]))
    edit(estate / "processes" / "process-8.xml", "--driver-memory 1g", "--driver-memory 2g")
    assert shards_compiled(estate)[0] == 25  # judged with process-8.xml racy
    edit(estate / "processes" / "process-8.xml", "--driver-memory 2g", "--driver-memory 3g")
    assert shards_compiled(estate) == (1, 1)  # another entry, judged anew: process-8 parsed and compiled again
    edit(estate / "processes" / "process-8.xml", "--driver-memory 3g", "--driver-memory 2g")
    assert shards_compiled(estate) == (0, 0)  # the first entry's bytes again: it holds
