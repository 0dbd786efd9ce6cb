"""A command reads its ``-file`` once, within a size bound: the bytes the authorization check judged are the bytes
the action uses, and an oversized file is refused before it is read whole."""

from __future__ import annotations

import os
import sys
import textwrap
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from tests.builders import ops_feed

from falcon_airflow.entities import EntityType
from falcon_airflow.parsing import MAX_ENTITY_FILE_BYTES

from .helpers import Kit

_WATCH: dict[str, Any] = {}
"""What the audit hook below does: count the opens of one path and, at the second, swap the file's content."""


def _hook(event: str, args: tuple[Any, ...]) -> None:
    if event != "open" or not _WATCH or _WATCH.get("busy") or not args or args[0] is None:
        return
    try:
        opened = os.path.realpath(os.fspath(args[0]))
    except TypeError:  # a file descriptor
        return
    if opened != _WATCH["path"]:
        return
    _WATCH["opens"] += 1
    if _WATCH["opens"] == 2 and _WATCH.get("swap") is not None:
        _WATCH["busy"] = True
        try:
            Path(_WATCH["path"]).write_bytes(_WATCH["swap"])
        finally:
            _WATCH["busy"] = False


sys.addaudithook(_hook)


def watch(path: Path, swap: bytes | None) -> None:
    _WATCH.clear()
    _WATCH.update(path=os.path.realpath(path), opens=0, swap=swap)


@pytest.fixture(autouse=True)
def _stop_watching() -> Any:
    yield
    _WATCH.clear()


def owned_feed(name: str, owner: str, group: str) -> str:
    return ops_feed(name).replace('<ACL owner="ops" group="users"', f'<ACL owner="{owner}" group="{group}"')


@pytest.fixture
def secured(pipeline: Kit, monkeypatch: pytest.MonkeyPatch) -> Kit:
    monkeypatch.setenv("AIRFLOW__FALCON__AUTHORIZATION_ENABLED", "True")
    monkeypatch.setenv("FALCON_AIRFLOW_USER", "carl")
    monkeypatch.setenv("FALCON_AIRFLOW_PASSWORD", "Pw-unit-given-file")
    monkeypatch.delenv("FALCON_AIRFLOW_TOKEN", raising=False)
    monkeypatch.setenv("AIRFLOW__FALCON__GROUPS.CARL", "carls")
    pipeline.airflow.roles.update({"carl": frozenset({"Viewer"}), "ops": frozenset({"Op"})})
    pipeline.write("feeds/mine.xml", owned_feed("mine", "carl", "carls"))
    pipeline.airflow.add_dag("falcon.feed.other.retention.east", ("retention",))  # submitAndSchedule waits for it
    return pipeline


# (argv, the stored file the action writes) for a definition carl may submit: checked, then swapped for one owned
# by ops - which carl may not submit - between the check's read and a second read
CASES: dict[str, tuple[tuple[str, ...], str]] = {
    "submit": (("entity", "-type", "feed", "-submit"), "other"),
    "submitAndSchedule": (("entity", "-type", "feed", "-submitAndSchedule"), "other"),
    "update": (("entity", "-type", "feed", "-name", "mine", "-update"), "mine"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_action_uses_the_bytes_the_check_judged(secured: Kit, case: str) -> None:
    argv, name = CASES[case]
    checked = textwrap.dedent(owned_feed(name, "carl", "carls")).replace("_DONE", "_CHECKED").encode()
    draft = secured.inbox / f"{name}.xml"
    draft.write_bytes(checked)
    watch(draft, textwrap.dedent(owned_feed(name, "ops", "users")).encode())
    code, out, err = secured.run(*argv, "-file", str(draft))
    assert _WATCH["opens"] == 1, "the file was read more than once"
    assert code == 0, (out, err)
    stored = secured.context().store.get(EntityType.FEED, name)
    assert stored is not None and stored.read_bytes() == checked
    assert stored.entity.acl is not None and stored.entity.acl.owner == "carl"


@pytest.mark.parametrize("argv", [
    ("entity", "-type", "feed", "-submit"),
    ("entity", "-type", "feed", "-validate"),
    ("entity", "-type", "feed", "-name", "logs", "-update"),
    ("extension", "-extensionName", "hdfs-mirroring", "-submit"),
    ("extension", "-extensionName", "hdfs-mirroring", "-validate"),
], ids=["entity-submit", "entity-validate", "entity-update", "extension-submit", "extension-validate"])
def test_an_oversized_file_is_refused_before_it_is_read(pipeline: Kit, argv: tuple[str, ...]) -> None:
    huge = pipeline.inbox / "huge.xml"
    huge.write_bytes(b"#" * (2 * MAX_ENTITY_FILE_BYTES))  # twice the bound (one comment line, cheap to parse)
    tracemalloc.start()
    try:
        code, out, err = pipeline.run(*argv, "-file", str(huge))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert code == 1, (out, err)
    assert f"{huge} is larger than {MAX_ENTITY_FILE_BYTES:,} bytes" in err
    assert peak < MAX_ENTITY_FILE_BYTES, f"{peak:,} bytes allocated: the file was read whole"


def _missing(kit: Kit) -> tuple[Path, str]:
    return kit.inbox / "nowhere.xml", "File not found: "


def _folder(kit: Kit) -> tuple[Path, str]:
    return kit.inbox, "cannot read "


@pytest.mark.parametrize("given", [_missing, _folder], ids=["missing", "folder"])
@pytest.mark.parametrize("command", ["entity", "extension"])
def test_an_unreadable_file_is_a_clear_refusal(pipeline: Kit, given: Callable[[Kit], tuple[Path, str]],
                                                command: str) -> None:
    path, message = given(pipeline)
    argv = (("entity", "-type", "feed", "-submit") if command == "entity"
            else ("extension", "-extensionName", "hdfs-mirroring", "-submit"))
    code, out, err = pipeline.run(*argv, "-file", str(path))
    assert code == 1 and f"ERROR: {message}{path}" in err and "Traceback" not in err, (out, err)
