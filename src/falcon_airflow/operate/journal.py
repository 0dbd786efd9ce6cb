"""Falcon's atomic actions on the configuration store: a journal per multi-step action.

An action that takes several steps (submitAndSchedule, delete, update with its cascade, schedule, suspend,
resume) first writes a journal (``<state folder>/journal/<id>.json``, or a row of ``falcon_journal`` when the store
is in the database) naming its steps and everything they will
write (the new definition's bytes, the one it replaces, the archive file it goes to). Before each step the journal
records that the step *started* and what it is about to do (its *intent*, e.g. which DAGs a pause is about to
pause); after it, that it is *done* (with what undoing it would need). The journal is removed at the end. One step
is the *commit point* - the write to the store that makes the change real.

A kill can fall between a step's effect and its mark, so a mark is a lower bound, not the truth. When a command is
interrupted (a crash, Ctrl-C, a lost connection), the next command finds the journal and, before doing anything
else, decides from what is on disk whether the commit point was passed: a commit step marked done was, otherwise
the step's *probe* compares the store's actual state with the journal's record (the live file's bytes against the
old and the new definition):

* **completes** the action if its commit point was passed (every remaining step is idempotent and works from the
  journal's record, never from a file the action may already have changed: archiving the replaced definition
  archives the recorded old bytes, not whatever the file holds now);
* **undoes** it otherwise, running the undo of every step that started, newest first, each one checking the state
  before changing it (an archived copy is removed only while the live file is that same old definition);
* **leaves it alone** when the state is neither the old one nor the new one (a file edited by hand since): nothing
  is undone or redone, the journal stays and the entity's changes wait until a person has settled it.

A step that cannot finish yet (Airflow has not parsed a new DAG, Airflow is unreachable) leaves the journal in
place; the next command tries again.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import Enum
from pathlib import Path
from typing import Any, Generic, TypeVar

from falcon_airflow.operate.config_store import ConfigStore, iso, stamp

Context = TypeVar("Context")


class StepPending(Exception):
    """A step that cannot be finished now; the journal stays and the next command retries it."""


class CannotTell(Exception):
    """The store is in neither the state an action started from nor the one it leads to: recovery changes
    nothing and keeps the journal for a person to settle."""


class Effect(Enum):
    """What a probe sees of a step's effect in the store."""

    DONE = "done"
    NOT_DONE = "not done"


@dataclass
class Step:
    name: str
    done: bool = False
    undo: dict[str, Any] | None = None
    started: bool = False
    """Recorded before the step's first action: its effect may have happened even if ``done`` is false."""
    intent: dict[str, Any] | None = None
    """What the step was about to do, recorded with ``started`` (what its undo needs if it is cut short)."""


@dataclass
class Journal:
    id: str
    action: str
    entity_type: str
    name: str
    user: str
    created: str
    commit: str
    steps: list[Step]
    data: dict[str, Any] = field(default_factory=dict)
    path: Path = field(default=Path(), repr=False)

    @property
    def subject(self) -> str:
        return f"({self.entity_type}) {self.name}"

    def step(self, name: str) -> Step:
        for item in self.steps:
            if item.name == name:
                return item
        raise KeyError(name)

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "action": self.action, "entity_type": self.entity_type, "name": self.name,
                "user": self.user, "created": self.created, "commit": self.commit,
                "steps": [{"name": item.name, "done": item.done, "undo": item.undo, "started": item.started,
                           "intent": item.intent} for item in self.steps],
                "data": self.data}

    @classmethod
    def from_json(cls, document: Mapping[str, Any], path: Path) -> Journal:
        steps = [Step(str(item["name"]), bool(item.get("done")), item.get("undo"), bool(item.get("started")),
                      item.get("intent")) for item in document["steps"]]
        return cls(id=str(document["id"]), action=str(document["action"]),
                   entity_type=str(document["entity_type"]), name=str(document["name"]),
                   user=str(document.get("user", "")), created=str(document.get("created", "")),
                   commit=str(document["commit"]), steps=steps, data=dict(document.get("data") or {}), path=path)


class JournalBook:
    """The journals of one store (kept where the store keeps them: its state folder, or its table)."""

    def __init__(self, store: ConfigStore) -> None:
        self.store = store

    def begin(self, action: str, entity_type: str, name: str, steps: Sequence[str], *, commit: str, user: str,
              data: Mapping[str, Any] | None = None) -> Journal:
        """Write the journal of an action before any of its steps runs."""
        if commit not in steps:
            raise ValueError(f"commit step {commit!r} is not one of {list(steps)}")
        now = datetime.now(UTC)
        identifier = f"{stamp(now)}-{uuid.uuid4().hex[:8]}"
        journal = Journal(id=identifier, action=action, entity_type=entity_type, name=name, user=user,
                          created=iso(now), commit=commit, steps=[Step(item) for item in steps],
                          data=dict(data or {}), path=self.store.journal_location(identifier))
        self._save(journal)
        return journal

    def mark(self, journal: Journal, step: str, undo: dict[str, Any] | None = None) -> None:
        item = journal.step(step)
        item.done = True
        item.undo = undo
        self._save(journal)

    def update(self, journal: Journal) -> None:
        self._save(journal)

    def close(self, journal: Journal) -> None:
        self.store.drop_journal(journal.id)

    def pending(self) -> list[Journal]:
        """Journals left by interrupted commands, oldest first (unreadable ones are set aside, not lost)."""
        journals = []
        for identifier, location, text in self.store.journal_documents():
            if text is None:
                continue
            try:
                journals.append(Journal.from_json(json.loads(text), location))
            except (ValueError, KeyError, TypeError):
                set_aside = getattr(self.store, "set_aside_journal", None)
                if set_aside is not None:
                    set_aside(identifier)
        return journals

    def _save(self, journal: Journal) -> None:
        self.store.save_journal(journal.id, json.dumps(journal.to_json(), indent=2) + "\n")


StepFunction = Callable[[Context, Journal], "dict[str, Any] | None"]
UndoFunction = Callable[[Context, Journal, "dict[str, Any] | None"], None]
IntentFunction = Callable[[Context, Journal], "dict[str, Any] | None"]
ProbeFunction = Callable[[Context, Journal], Effect]


@dataclass(frozen=True)
class ActionSteps(Generic[Context]):
    """How to do (and undo) each step of one kind of action.

    ``intent``: per step, what it is about to do, computed and saved in the journal before the step runs (its undo
    receives it, merged under what the step itself returned). ``probe``: per step, whether its effect is in the
    store, seen from the store's state (it raises :class:`CannotTell` when the state is neither before nor after);
    the commit step needs one, or recovery cannot tell a commit cut short before its mark from one never begun.
    """

    do: Mapping[str, StepFunction[Context]]
    undo: Mapping[str, UndoFunction[Context]] = field(default_factory=dict)
    intent: Mapping[str, IntentFunction[Context]] = field(default_factory=dict)
    probe: Mapping[str, ProbeFunction[Context]] = field(default_factory=dict)


def run(book: JournalBook, journal: Journal, steps: ActionSteps[Context], context: Context) -> None:
    """Run the steps not done yet, each recorded as started (with its intent) before it acts and marked done
    after; close the journal when all are done."""
    for item in journal.steps:
        if item.done:
            continue
        if not item.started:  # a step resumed after a crash keeps the intent recorded the first time
            prepare = steps.intent.get(item.name)
            item.intent = prepare(context, journal) if prepare is not None else None
            item.started = True
            book.update(journal)
        undo = steps.do[item.name](context, journal)
        book.mark(journal, item.name, undo)
    book.close(journal)


def roll_back(book: JournalBook, journal: Journal, steps: ActionSteps[Context], context: Context) -> None:
    """Undo the steps that started (done or cut short), newest first, then drop the journal. Each undo checks the
    store's state before it changes anything, so undoing a step whose effect never happened changes nothing."""
    for item in reversed(journal.steps):
        if (item.done or item.started) and item.name in steps.undo:
            steps.undo[item.name](context, journal, {**(item.intent or {}), **(item.undo or {})})
            item.done = item.started = False
            book.update(journal)
    book.close(journal)


def committed(journal: Journal, steps: ActionSteps[Context], context: Context) -> bool:
    """Whether the action passed its commit point: marked so, or its commit step's effect is in the store."""
    commit = journal.step(journal.commit)
    if commit.done:
        return True
    probe = steps.probe.get(commit.name)
    if probe is not None:
        return probe(context, journal) is Effect.DONE
    if commit.started:
        raise CannotTell(f"its step '{commit.name}' began and nothing in the store shows whether it finished")
    return False


def recover(book: JournalBook, actions: Mapping[str, ActionSteps[Context]], context: Context,
            failures: tuple[type[BaseException], ...] = ()) -> tuple[list[str], list[Journal]]:
    """Complete or undo every interrupted action. Returns what was done (messages) and the journals still open."""
    notes: list[str] = []
    still_open: list[Journal] = []
    for journal in book.pending():
        steps = actions.get(journal.action)
        if steps is None:
            notes.append(f"unknown interrupted action '{journal.action}' of {journal.subject} left in {journal.path}")
            still_open.append(journal)
            continue
        try:
            if committed(journal, steps, context):
                run(book, journal, steps, context)
                notes.append(f"completed the interrupted {journal.action} of {journal.subject} "
                             f"(started {journal.created})")
            else:
                roll_back(book, journal, steps, context)
                notes.append(f"undid the interrupted {journal.action} of {journal.subject} "
                             f"(started {journal.created})")
        except StepPending as pending:
            notes.append(f"the interrupted {journal.action} of {journal.subject} is still pending: {pending}")
            still_open.append(journal)
        except CannotTell as unclear:
            notes.append(f"cannot tell whether the interrupted {journal.action} of {journal.subject} happened "
                         f"({unclear}): nothing was changed; put the store right by hand, then remove "
                         f"{journal.path}")
            still_open.append(journal)
        except failures as problem:
            message = getattr(problem, "message", None) or str(problem)
            notes.append(f"the interrupted {journal.action} of {journal.subject} could not be finished now "
                         f"({message}); the next command tries again")
            still_open.append(journal)
    return notes, still_open
