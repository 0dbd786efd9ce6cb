"""A command killed at any step boundary of a journaled action: the next command's recovery leaves the store holding
exactly the old definition or exactly the new one, with an archive that agrees, because each step records what it
is about to do before doing it and recovery looks at the files to tell a step that happened from one that did not.

A crash is injected around the real step function: *before* (the process dies as the step starts) and *after*
(the step's effect is on disk, the process dies before the journal marks it done)."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from tests.builders import ops_feed, ops_process

from falcon_airflow.entities import EntityType
from falcon_airflow.operate import entity_actions as entity
from falcon_airflow.operate import extension_actions as extension
from falcon_airflow.operate.config_store import Store
from falcon_airflow.operate.journal import ActionSteps, Journal

from .helpers import Kit

REPOSITORY = Path(__file__).resolve().parents[3]
PROCESS_DAG = "falcon.process.count.east"
JOB = """\
jobName=x-mirror
jobClusterName=west
jobValidityStart=2026-05-01T00:00Z
jobValidityEnd=2026-05-03T00:00Z
jobFrequency=hours(1)
sourceCluster=east
sourceDir=/data/x
targetCluster=west
targetDir=/backup/x
jobRetryAttempts=0
"""
EXTENSION_DAG = "falcon.extension.x-mirror"


@contextlib.contextmanager
def crash(actions: ActionSteps[Any], step: str, when: str) -> Iterator[None]:
    """The block runs with ``step`` dying ``before`` its effect or ``after`` it (before the journal marks it)."""
    real = actions.do[step]

    def dying(context: Any, journal: Journal) -> dict[str, Any] | None:
        if when == "after":
            real(context, journal)
        raise SystemExit(f"killed {when} {step}")

    with pytest.MonkeyPatch.context() as patch, pytest.raises(SystemExit):
        patch.setitem(actions.do, step, dying)  # type: ignore[arg-type]
        yield


def journals(kit: Kit) -> list[Path]:
    return sorted((Store(kit.root).meta / "journal").glob("*.json"))


def archived(kit: Kit, kind: EntityType | str, name: str) -> list[tuple[bytes, str]]:
    """(bytes, reason) of every archived version of an entity, oldest first."""
    found = []
    for path in Store(kit.root).history(kind, name):
        info = json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))
        found.append((path.read_bytes(), str(info["reason"])))
    return found


def recover(kit: Kit) -> str:
    """Any command recovers first; what it printed to stderr."""
    _code, _out, err = kit.run("entity", "-list", "-type", "cluster")
    return err


@dataclass(frozen=True)
class Case:
    steps: tuple[str, ...]
    commit: str

    def matrix(self) -> list[tuple[str, str, bool]]:
        """(step, when, whether the action must end committed) for every step boundary."""
        position = self.steps.index(self.commit)
        return [(step, when, index > position or (index == position and when == "after"))
                for index, step in enumerate(self.steps) for when in ("before", "after")]


UPDATE = Case(("archive_old", "write", "doas", "reparse", "sync"), "write")
DELETE = Case(("pause", "archive", "kill", "drop", "forget", "reparse"), "archive")
SUBMIT = Case(("write", "doas", "reparse"), "write")
SCHEDULE = Case(("state", "doas", "unpause"), "state")
EXTENSION_UPDATE = Case(("archive_old", "write", "reparse"), "write")
EXTENSION_DELETE = Case(("pause", "archive", "kill", "drop", "state", "reparse"), "archive")
EXTENSION_SUBMIT = Case(("write", "reparse"), "write")


@pytest.mark.parametrize(("step", "when", "committed"), UPDATE.matrix())
def test_an_interrupted_update_ends_with_exactly_the_old_or_the_new_definition(
        pipeline: Kit, step: str, when: str, committed: bool) -> None:
    path = pipeline.root / "feeds" / "logs.xml"
    old = path.read_bytes()
    draft = pipeline.draft("logs.xml", ops_feed("logs", days=7))
    with crash(entity.ACTIONS["update"], step, when):
        pipeline.run("entity", "-update", "-type", "feed", "-name", "logs", "-file", str(draft))

    err = recover(pipeline)

    assert journals(pipeline) == [], err
    if committed:
        assert "completed the interrupted update of (feed) logs" in err
        assert path.read_bytes() == draft.read_bytes()
        assert archived(pipeline, EntityType.FEED, "logs") == [(old, "update")]
    else:
        assert "undid the interrupted update of (feed) logs" in err
        assert path.read_bytes() == old
        assert archived(pipeline, EntityType.FEED, "logs") == []


@pytest.mark.parametrize(("step", "when", "committed"), DELETE.matrix())
def test_an_interrupted_delete_ends_with_the_entity_whole_or_gone_and_archived(
        pipeline: Kit, step: str, when: str, committed: bool) -> None:
    assert pipeline.run("entity", "-schedule", "-type", "process", "-name", "count")[0] == 0
    path = pipeline.root / "processes" / "count.xml"
    old = path.read_bytes()
    with crash(entity.ACTIONS["delete"], step, when):
        pipeline.run("entity", "-delete", "-type", "process", "-name", "count")

    err = recover(pipeline)

    assert journals(pipeline) == [], err
    if committed:
        assert not path.exists()
        assert archived(pipeline, EntityType.PROCESS, "count") == [(old, "delete")]
        assert PROCESS_DAG not in pipeline.airflow.dags_by_id
        assert Store(pipeline.root).schedule_state(EntityType.PROCESS, "count") is None
    else:
        assert path.read_bytes() == old
        assert archived(pipeline, EntityType.PROCESS, "count") == []
        assert pipeline.airflow.dags_by_id[PROCESS_DAG]["is_paused"] is False  # running again, as before
        assert Store(pipeline.root).schedule_state(EntityType.PROCESS, "count") == "RUNNING"


@pytest.mark.parametrize(("step", "when", "committed"), SUBMIT.matrix())
def test_an_interrupted_submit_ends_with_no_file_or_the_submitted_one_parsed(
        pipeline: Kit, step: str, when: str, committed: bool) -> None:
    draft = pipeline.draft("clicks.xml", ops_feed("clicks"))
    path = pipeline.root / "feeds" / "clicks.xml"
    with crash(entity.ACTIONS["submit"], step, when):
        pipeline.run("entity", "-submit", "-type", "feed", "-file", str(draft))
    asked = pipeline.airflow.reparse_requests

    err = recover(pipeline)

    assert journals(pipeline) == [], err
    if committed:
        assert path.read_bytes() == draft.read_bytes()
        # the steps after the write ran: Airflow was asked to parse the new definition
        assert pipeline.airflow.reparse_requests > asked or (step == "reparse" and when == "after")
    else:
        assert not path.exists()
    assert archived(pipeline, EntityType.FEED, "clicks") == []


@pytest.mark.parametrize(("step", "when", "committed"), SCHEDULE.matrix())
def test_an_interrupted_schedule_leaves_the_recorded_state_and_the_dags_in_agreement(
        pipeline: Kit, step: str, when: str, committed: bool) -> None:
    with crash(entity.ACTIONS["schedule"], step, when):
        pipeline.run("entity", "-schedule", "-type", "process", "-name", "count")

    err = recover(pipeline)

    assert journals(pipeline) == [], err
    state = Store(pipeline.root).schedule_state(EntityType.PROCESS, "count")
    unpaused = pipeline.airflow.dags_by_id[PROCESS_DAG]["is_paused"] is False
    assert (state, unpaused) == (("RUNNING", True) if committed else (None, False))


def submit_job(kit: Kit) -> Path:
    job = kit.draft("x-mirror.properties", JOB)
    code, _, err = kit.run("extension", "-submit", "-extensionName", "hdfs-mirroring", "-file", str(job))
    assert code == 0, err
    kit.airflow.add_dag(EXTENSION_DAG, ("mirror",))
    return kit.root / "extensions" / "hdfs-mirroring" / "x-mirror.properties"


@pytest.mark.parametrize(("step", "when", "committed"), EXTENSION_UPDATE.matrix())
def test_an_interrupted_extension_update_ends_with_exactly_the_old_or_the_new_job(
        pipeline: Kit, step: str, when: str, committed: bool) -> None:
    path = submit_job(pipeline)
    old = path.read_bytes()
    draft = pipeline.draft("x-mirror-2.properties", JOB.replace("/backup/x", "/backup/y"))
    with crash(extension.ACTIONS["extension-update"], step, when):
        pipeline.run("extension", "-update", "-extensionName", "hdfs-mirroring", "-file", str(draft))

    err = recover(pipeline)

    assert journals(pipeline) == [], err
    if committed:
        assert path.read_bytes() == draft.read_bytes()
        assert archived(pipeline, "extension", "x-mirror") == [(old, "update")]
    else:
        assert path.read_bytes() == old
        assert archived(pipeline, "extension", "x-mirror") == []


@pytest.mark.parametrize(("step", "when", "committed"), EXTENSION_DELETE.matrix())
def test_an_interrupted_extension_delete_ends_with_the_job_whole_or_gone_and_archived(
        pipeline: Kit, step: str, when: str, committed: bool) -> None:
    path = submit_job(pipeline)
    assert pipeline.run("extension", "-schedule", "-jobName", "x-mirror")[0] == 0
    old = path.read_bytes()
    with crash(extension.ACTIONS["extension-delete"], step, when):
        pipeline.run("extension", "-delete", "-jobName", "x-mirror")

    err = recover(pipeline)

    assert journals(pipeline) == [], err
    if committed:
        assert not path.exists()
        assert archived(pipeline, "extension", "x-mirror") == [(old, "delete")]
        assert EXTENSION_DAG not in pipeline.airflow.dags_by_id
    else:
        assert path.read_bytes() == old
        assert archived(pipeline, "extension", "x-mirror") == []
        assert pipeline.airflow.dags_by_id[EXTENSION_DAG]["is_paused"] is False


@pytest.mark.parametrize(("step", "when", "committed"), EXTENSION_SUBMIT.matrix())
def test_an_interrupted_extension_submit_ends_with_no_job_or_the_submitted_one(
        pipeline: Kit, step: str, when: str, committed: bool) -> None:
    job = pipeline.draft("x-mirror.properties", JOB)
    path = pipeline.root / "extensions" / "hdfs-mirroring" / "x-mirror.properties"
    with crash(extension.ACTIONS["extension-submit"], step, when):
        pipeline.run("extension", "-submit", "-extensionName", "hdfs-mirroring", "-file", str(job))

    err = recover(pipeline)

    assert journals(pipeline) == [], err
    assert path.read_bytes() == job.read_bytes() if committed else not path.exists()


# -- what recovery cannot tell, it leaves alone ---------------------------------------------------------------------

@pytest.mark.parametrize("third", [b"<feed/>", b"", b"edited by hand"])
def test_an_update_whose_file_is_neither_old_nor_new_is_left_for_a_person(pipeline: Kit, third: bytes) -> None:
    path = pipeline.root / "feeds" / "logs.xml"
    old = path.read_bytes()
    with crash(entity.ACTIONS["update"], "write", "before"):
        pipeline.run("entity", "-update", "-type", "feed", "-name", "logs", "-file",
                     str(pipeline.draft("logs.xml", ops_feed("logs", days=7))))
    path.write_bytes(third)

    err = recover(pipeline)

    assert "cannot tell whether the interrupted update of (feed) logs happened" in err
    assert len(journals(pipeline)) == 1
    assert path.read_bytes() == third
    assert archived(pipeline, EntityType.FEED, "logs") == [(old, "update")]  # the old definition is kept


@pytest.mark.parametrize("when", ["before", "after"])
def test_a_deleted_definition_put_back_changed_is_left_for_a_person(pipeline: Kit, when: str) -> None:
    path = pipeline.root / "processes" / "count.xml"
    old = path.read_bytes()
    with crash(entity.ACTIONS["delete"], "archive", when):
        pipeline.run("entity", "-delete", "-type", "process", "-name", "count")
    path.write_text(ops_process("count", output="logs"))

    err = recover(pipeline)

    assert "cannot tell whether the interrupted delete of (process) count happened" in err
    assert len(journals(pipeline)) == 1
    assert path.read_bytes() != old
    assert archived(pipeline, EntityType.PROCESS, "count") == ([(old, "delete")] if when == "after" else [])


# -- a real kill: the process ends with os._exit right after the step's effect --------------------------------------

CHILD = """
import os, sys
from pathlib import Path
from tests.unit.operate.helpers import FakeAirflow, Kit
from falcon_airflow.operate import entity_actions, extension_actions
from falcon_airflow.operate.context import Context

root, inbox, table, action, step, *argv = sys.argv[1:]
airflow = FakeAirflow()
for dag_id in ("falcon.process.count.east", "falcon.extension.x-mirror"):
    airflow.add_dag(dag_id, paused=False)
Context.airflow = lambda self: airflow
steps = (entity_actions if table == "entity" else extension_actions).ACTIONS[action]
real = steps.do[step]

def killed(context, journal):
    real(context, journal)
    os._exit(137)

steps.do[step] = killed
Kit(Path(root), airflow, Path(inbox)).run(*argv)
os._exit(0)
"""


def killed_after(kit: Kit, table: str, action: str, step: str, *argv: str) -> None:
    done = subprocess.run([sys.executable, "-c", CHILD, str(kit.root), str(kit.inbox), table, action, step, *argv],
                          cwd=REPOSITORY, env=dict(os.environ), capture_output=True, text=True, timeout=120,
                          check=False)
    assert done.returncode == 137, done.stderr[-3000:]


@pytest.mark.parametrize(("kind", "folder", "step"), [("feed", "feeds/logs.xml", "write"),
                                                       ("feed", "feeds/logs.xml", "archive_old"),
                                                       ("extension", "extensions/hdfs-mirroring/x-mirror.properties",
                                                        "write")])
def test_a_process_killed_right_after_a_step_of_an_update(pipeline: Kit, kind: str, folder: str, step: str) -> None:
    if kind == "extension":
        submit_job(pipeline)
        draft = pipeline.draft("x-2.properties", JOB.replace("/backup/x", "/backup/y"))
        argv = ["extension", "-update", "-extensionName", "hdfs-mirroring", "-file", str(draft)]
        table, action, name = "extension", "extension-update", "x-mirror"
    else:
        draft = pipeline.draft("logs.xml", ops_feed("logs", days=7))
        argv = ["entity", "-update", "-type", "feed", "-name", "logs", "-file", str(draft)]
        table, action, name = "entity", "update", "logs"
    path = pipeline.root / folder
    old = path.read_bytes()

    killed_after(pipeline, table, action, step, *argv)
    assert len(journals(pipeline)) == 1
    err = recover(pipeline)

    assert journals(pipeline) == [], err
    expected = (draft.read_bytes(), [(old, "update")]) if step == "write" else (old, [])
    assert (path.read_bytes(), archived(pipeline, kind, name)) == expected
