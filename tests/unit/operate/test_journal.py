"""The journal: written before acting, steps marked as they happen; an interrupted action is completed when it
passed its commit point and undone otherwise, by the next command."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from falcon_airflow.operate.config_store import Store
from falcon_airflow.operate.journal import (
    ActionSteps,
    CannotTell,
    Effect,
    Journal,
    JournalBook,
    StepPending,
    recover,
    run,
)


class Log:
    def __init__(self) -> None:
        self.events: list[str] = []


def steps(fail_at: str | None = None, error: type[BaseException] = KeyboardInterrupt, *, after: bool = False,
          probe: bool = True) -> ActionSteps[Log]:
    """Three steps; ``fail_at`` dies as it starts, or with ``after`` once its effect happened (before its mark).
    The commit step's effect is its line in the log, which its probe reads."""
    def make(name: str) -> Any:
        def do(log: Log, journal: Journal) -> dict[str, Any] | None:
            if name == fail_at and not after:
                raise error(f"crash in {name}")
            log.events.append(f"do {name}")
            if name == fail_at:
                raise error(f"crash after {name}")
            return {"undo-of": name}
        return do

    def undo(log: Log, journal: Journal, info: dict[str, Any] | None) -> None:
        info = info or {}
        log.events.append(f"undo {info.get('undo-of')} (intent {info.get('intent')})")

    def intent(log: Log, journal: Journal) -> dict[str, Any]:
        return {"intent": len(log.events)}

    def committed(log: Log, journal: Journal) -> Effect:
        return Effect.DONE if "do commit" in log.events else Effect.NOT_DONE

    return ActionSteps[Log](do={name: make(name) for name in ("prepare", "commit", "after")},
                            undo={"prepare": undo}, intent={"prepare": intent},
                            probe={"commit": committed} if probe else {})


@pytest.fixture
def book(tmp_path: Path) -> JournalBook:
    return JournalBook(Store(tmp_path))


def begin(book: JournalBook) -> Journal:
    return book.begin("demo", "feed", "logs", ["prepare", "commit", "after"], commit="commit", user="alice",
                      data={"path": "/x"})


def test_the_journal_is_on_disk_before_any_step_runs(book: JournalBook) -> None:
    journal = begin(book)
    document = json.loads(journal.path.read_text())
    assert document["action"] == "demo"
    assert [step["done"] for step in document["steps"]] == [False, False, False]
    assert document["commit"] == "commit"
    assert [item.id for item in book.pending()] == [journal.id]


def test_a_finished_action_leaves_no_journal(book: JournalBook) -> None:
    log = Log()
    run(book, begin(book), steps(), log)
    assert log.events == ["do prepare", "do commit", "do after"]
    assert book.pending() == []


def test_crash_before_the_commit_point_is_undone(book: JournalBook) -> None:
    log = Log()
    with pytest.raises(KeyboardInterrupt):
        run(book, begin(book), steps(fail_at="commit"), log)
    (pending,) = book.pending()
    assert [step.done for step in pending.steps] == [True, False, False]

    notes, still_open = recover(book, {"demo": steps()}, log)

    assert log.events == ["do prepare", "undo prepare (intent 0)"]
    assert notes == [f"undid the interrupted demo of (feed) logs (started {pending.created})"]
    assert still_open == [] and book.pending() == []


def test_crash_after_the_commit_point_is_completed(book: JournalBook) -> None:
    log = Log()
    with pytest.raises(SystemExit):
        run(book, begin(book), steps(fail_at="after", error=SystemExit), log)

    notes, _ = recover(book, {"demo": steps()}, log)

    assert log.events == ["do prepare", "do commit", "do after"]
    assert notes[0].startswith("completed the interrupted demo of (feed) logs")
    assert book.pending() == []


def test_a_step_that_must_wait_keeps_the_journal_for_the_next_command(book: JournalBook) -> None:
    log = Log()
    with pytest.raises(StepPending):
        run(book, begin(book), steps(fail_at="after", error=StepPending), log)

    notes, still_open = recover(book, {"demo": steps(fail_at="after", error=StepPending)}, log)
    assert "still pending: crash in after" in notes[0]
    assert len(still_open) == 1

    recover(book, {"demo": steps()}, log)
    assert book.pending() == []


def test_a_failure_during_recovery_is_reported_and_retried(book: JournalBook) -> None:
    log = Log()
    with pytest.raises(KeyboardInterrupt):
        run(book, begin(book), steps(fail_at="after"), log)

    notes, still_open = recover(book, {"demo": steps(fail_at="after", error=ConnectionError)}, log,
                                failures=(ConnectionError,))
    assert "could not be finished now (crash in after)" in notes[0]
    assert len(still_open) == 1 and len(book.pending()) == 1


def test_an_unknown_action_is_left_alone(book: JournalBook) -> None:
    begin(book)
    notes, still_open = recover(book, {}, Log())
    assert "unknown interrupted action 'demo'" in notes[0]
    assert len(still_open) == 1


def test_an_unreadable_journal_is_set_aside_not_lost(book: JournalBook) -> None:
    folder = book.store.journal_location("broken").parent
    folder.mkdir(parents=True)
    (folder / "broken.json").write_text("{")
    assert book.pending() == []
    assert (folder / "broken.unreadable").exists()


def test_commit_must_be_a_step(book: JournalBook) -> None:
    with pytest.raises(ValueError, match="commit step"):
        book.begin("demo", "feed", "logs", ["a"], commit="b", user="alice")


def test_each_step_is_recorded_as_started_with_its_intent_before_it_acts(book: JournalBook) -> None:
    seen: list[dict[str, Any]] = []

    def look(log: Log, journal: Journal) -> None:
        seen.append(json.loads(journal.path.read_text())["steps"][0])

    plan = steps()
    actions = ActionSteps[Log](do={**plan.do, "prepare": look}, intent=plan.intent)
    run(book, begin(book), actions, Log())

    assert seen == [{"name": "prepare", "done": False, "undo": None, "started": True, "intent": {"intent": 0}}]


@pytest.mark.parametrize("error", [KeyboardInterrupt, SystemExit, ConnectionError])
def test_a_commit_whose_effect_happened_before_its_mark_is_completed_not_undone(book: JournalBook,
                                                                                 error: type[BaseException]) -> None:
    log = Log()
    with pytest.raises(error):
        run(book, begin(book), steps(fail_at="commit", error=error, after=True), log)
    (pending,) = book.pending()
    assert [(step.started, step.done) for step in pending.steps] == [(True, True), (True, False), (False, False)]

    notes, _ = recover(book, {"demo": steps()}, log)

    assert log.events == ["do prepare", "do commit", "do commit", "do after"]  # steps are idempotent
    assert notes[0].startswith("completed the interrupted demo of (feed) logs")
    assert book.pending() == []


@pytest.mark.parametrize("after", [False, True])
def test_a_step_cut_short_before_its_mark_is_undone_with_its_recorded_intent(book: JournalBook, after: bool) -> None:
    log = Log()
    with pytest.raises(SystemExit):
        run(book, begin(book), steps(fail_at="prepare", error=SystemExit, after=after), log)

    recover(book, {"demo": steps()}, log)

    # the undo runs whether or not the effect happened: it checks the state itself, here it has the intent
    assert log.events[-1] == "undo None (intent 0)"
    assert book.pending() == []


@pytest.mark.parametrize("after", [False, True])
def test_a_commit_step_without_a_probe_that_began_is_left_for_a_person(book: JournalBook, after: bool) -> None:
    log = Log()
    with pytest.raises(SystemExit):
        run(book, begin(book), steps(fail_at="commit", error=SystemExit, after=after, probe=False), log)

    notes, still_open = recover(book, {"demo": steps(probe=False)}, log)

    assert "cannot tell whether the interrupted demo of (feed) logs happened (its step 'commit' began" in notes[0]
    assert len(still_open) == 1 and len(book.pending()) == 1
    assert not any(event.startswith("undo") for event in log.events)


def test_a_probe_that_sees_a_third_state_changes_nothing(book: JournalBook) -> None:
    log = Log()
    with pytest.raises(SystemExit):
        run(book, begin(book), steps(fail_at="commit", error=SystemExit), log)

    def confused(log: Log, journal: Journal) -> Effect:
        raise CannotTell("the file holds something else")

    plan = steps()
    notes, still_open = recover(book, {"demo": ActionSteps[Log](do=plan.do, undo=plan.undo,
                                                                probe={"commit": confused})}, log)

    assert "(the file holds something else): nothing was changed" in notes[0]
    assert log.events == ["do prepare"] and len(still_open) == 1
