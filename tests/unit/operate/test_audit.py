"""The audit trail is written before a command acts, and a command whose audit line cannot be written does nothing.

Each command leaves an attempt line (``STARTED``) before its action and a result line after it, sharing one ``id``;
``admin -audit`` shows one row per command, and a command that never recorded its end (killed half-way) shows as
STARTED. When the attempt cannot be written the command is refused, before anything changes.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable

import pytest
from tests.builders import ops_feed

from falcon_airflow.entities import EntityType
from falcon_airflow.operate import execution

from .helpers import Kit

JOB = """\
jobName=mirror-one
jobClusterName=west
jobValidityStart=2026-05-01T00:00Z
jobValidityEnd=2026-05-03T00:00Z
jobFrequency=hours(1)
sourceCluster=east
sourceDir=/data/x
targetCluster=west
targetDir=/backup/x
"""

def raw_lines(kit: Kit) -> list[dict[str, object]]:
    path = kit.context().store.meta / "audit.log"
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text().splitlines()]


def _argv(kit: Kit, name: str) -> tuple[str, ...]:
    """A command by name, with what it needs set up in ``kit``."""
    if name == "schedule":
        return ("entity", "-type", "feed", "-name", "logs", "-schedule")
    if name == "submit":
        return ("entity", "-type", "feed", "-file", str(kit.draft("other.xml", ops_feed("other"))), "-submit")
    if name == "delete":
        return ("entity", "-type", "process", "-name", "count", "-delete")
    if name == "safemode":
        return ("admin", "-setsafemode", "true")
    if name == "extension-submit":
        job = kit.inbox / "mirror-one.properties"
        job.write_text(JOB, encoding="utf-8")
        return ("extension", "-submit", "-extensionName", "hdfs-mirroring", "-file", str(job))
    if name == "kill":
        return ("instance", "-type", "feed", "-name", "logs", "-kill", "-start", "2026-01-01T00:00Z")
    if name == "list":
        return ("entity", "-type", "feed", "-list")
    raise AssertionError(name)


def _changed(kit: Kit, name: str) -> bool:
    """Whether the command ``name`` left its mark on the store."""
    context = kit.context()
    if name == "schedule":
        return context.store.schedule_state(EntityType.FEED, "logs") is not None
    if name == "submit":
        return context.store.get(EntityType.FEED, "other") is not None
    if name == "delete":
        return context.store.get(EntityType.PROCESS, "count") is None
    if name == "safemode":
        return context.store.safemode
    if name == "extension-submit":
        return (kit.root / "extensions" / "hdfs-mirroring" / "mirror-one.properties").exists()
    return False


COMMANDS = ("schedule", "submit", "delete", "safemode", "extension-submit", "kill", "list")


@pytest.mark.parametrize("name", COMMANDS)
def test_the_attempt_is_in_the_trail_before_the_action_runs(pipeline: Kit, monkeypatch: pytest.MonkeyPatch,
                                                            name: str) -> None:
    argv = _argv(pipeline, name)
    seen: list[list[dict[str, object]]] = []
    original: Callable[..., object] = execution.dispatch

    def spying(*args: object) -> object:
        seen.append(raw_lines(pipeline))  # what the trail holds when the action starts
        return original(*args)

    monkeypatch.setattr(execution, "dispatch", spying)
    pipeline.run(*argv)
    (before,) = seen
    assert [entry["result"] for entry in before] == ["STARTED"]
    assert before[0]["command"] == argv[0] and before[0]["user"]
    after = raw_lines(pipeline)
    assert len(after) == 2 and after[0] == before[0]
    assert after[1]["id"] == before[0]["id"] and after[1]["result"] != "STARTED"


@pytest.mark.parametrize("breaks", ["directory", "dangling-link", "disk-full"])
@pytest.mark.parametrize("name", COMMANDS)
def test_an_audit_log_that_cannot_be_written_refuses_the_command(pipeline: Kit, name: str, breaks: str) -> None:
    argv = _argv(pipeline, name)
    meta = pipeline.context().store.meta
    meta.mkdir(parents=True, exist_ok=True)
    calls_before = list(pipeline.airflow.calls)
    patcher = pytest.MonkeyPatch()
    try:
        log = meta / "audit.log"
        if breaks == "directory":
            log.mkdir()
        elif breaks == "dangling-link":  # O_CREAT cannot create it: its folder does not exist
            log.symlink_to(meta / "no-such-folder" / "audit.log")
        else:  # a full disk: every write to the audit log fails
            real_write = os.write

            def write(descriptor: int, data: bytes) -> int:
                if os.path.basename(os.readlink(f"/proc/self/fd/{descriptor}")) == "audit.log":
                    raise OSError(28, "No space left on device")
                return real_write(descriptor, data)

            patcher.setattr(os, "write", write)
        code, out, err = pipeline.run(*argv)
    finally:
        patcher.undo()
    assert code == 1, (out, err)
    assert "the audit log" in err and "refused" in err and "nothing was changed" in err
    assert "Traceback" not in err
    assert not _changed(pipeline, name)
    assert [call for call in pipeline.airflow.calls if call not in calls_before] == []  # Airflow not touched


def test_admin_audit_shows_one_row_per_command_and_the_interrupted_ones(pipeline: Kit) -> None:
    assert pipeline.run("entity", "-type", "feed", "-name", "logs", "-schedule")[0] == 0
    assert pipeline.run("entity", "-type", "feed", "-name", "logs", "-suspend")[0] == 0
    log = pipeline.context().store.meta / "audit.log"
    lines = log.read_text().splitlines()
    assert len(lines) == 4
    log.write_text("\n".join(lines[:3]) + "\n")  # the suspend was killed after its attempt was recorded
    code, document = pipeline.json("admin", "-audit")
    assert code == 0
    rows = [(entry["action"], entry["result"]) for entry in document["entries"]]
    assert rows[:2] == [("schedule", "SUCCEEDED"), ("suspend", "STARTED")]
    code, out, _ = pipeline.run("admin", "-audit")
    assert code == 0
    text = out.splitlines()
    assert "entity -schedule feed logs  SUCCEEDED" in text[0]
    assert "entity -suspend feed logs  STARTED" in text[1] and "no result recorded" in text[1]
