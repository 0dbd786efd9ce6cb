"""Waiting for feed instances and watching for late data, without holding a worker slot."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from datetime import datetime
from typing import Any

from airflow.triggers.base import BaseTrigger, TriggerEvent

from falcon_airflow.instances.acting_user import acting_for
from falcon_airflow.instances.storage import StorageError, exists, total_bytes


def _exists_as(user: str | None, marker: str, settings: dict[str, str] | None) -> bool:
    with acting_for(user):
        return exists(marker, settings)


def _event(payload: dict[str, Any]) -> TriggerEvent:
    return TriggerEvent(payload)  # type: ignore[no-untyped-call]  # Airflow leaves TriggerEvent.__init__ unannotated


class FeedInstancesTrigger(BaseTrigger):
    """Fires ``available`` once every marker (flag file or instance folder) exists, ``timeout`` at the deadline."""

    def __init__(self, markers: list[str], poke_interval: float = 60.0, deadline: float | None = None,
                 storage_settings: dict[str, str] | None = None, run_as: str | None = None) -> None:
        super().__init__()  # type: ignore[no-untyped-call]  # Airflow leaves BaseTrigger.__init__ unannotated
        self.markers = list(markers)
        self.poke_interval = poke_interval
        self.deadline = deadline
        self.storage_settings = storage_settings  # the feed cluster's S3A client settings (no credentials)
        self.run_as = run_as  # on a Kerberized cluster, the entity's user the checks act for

    def serialize(self) -> tuple[str, dict[str, Any]]:
        arguments: dict[str, Any] = {"markers": self.markers, "poke_interval": self.poke_interval,
                                     "deadline": self.deadline}
        if self.storage_settings:
            arguments["storage_settings"] = self.storage_settings
        if self.run_as:
            arguments["run_as"] = self.run_as
        return "falcon_airflow.provider.triggers.feed.FeedInstancesTrigger", arguments

    async def run(self) -> AsyncIterator[TriggerEvent]:
        pending = list(self.markers)
        while True:
            try:
                states = await asyncio.gather(*(asyncio.to_thread(_exists_as, self.run_as, marker,
                                                                  self.storage_settings) for marker in pending))
            except StorageError as problem:
                yield _event({"status": "error", "message": problem.message})
                return
            pending = [marker for marker, present in zip(pending, states, strict=True) if not present]
            if not pending:
                yield _event({"status": "available", "markers": self.markers})
                return
            if self.deadline is not None and time.time() >= self.deadline:
                yield _event({"status": "timeout", "missing": pending})
                return
            wait = self.poke_interval
            if self.deadline is not None:
                wait = max(0.0, min(wait, self.deadline - time.time()))
            self.log.info("waiting for %d of %d feed instance(s), e.g. %s", len(pending), len(self.markers),
                          pending[0])
            await asyncio.sleep(wait)


class LateDataTrigger(BaseTrigger):
    """Sleeps until the next late-data check, then compares the inputs' sizes with the recorded ones.

    Fires ``changed`` (with the new sizes) when any late input changed, ``unchanged`` when nothing did.
    """

    def __init__(self, patterns: dict[str, list[str]], recorded: dict[str, int], check_at: str,
                 reruns: int = 0, storage_settings: dict[str, dict[str, str]] | None = None) -> None:
        super().__init__()  # type: ignore[no-untyped-call]  # Airflow leaves BaseTrigger.__init__ unannotated
        self.patterns = patterns
        self.recorded = recorded
        self.check_at = check_at
        self.reruns = reruns  # carried through the event: the task's own state across deferrals
        self.storage_settings = storage_settings  # per input: its feed cluster's S3A client settings

    def serialize(self) -> tuple[str, dict[str, Any]]:
        arguments: dict[str, Any] = {"patterns": self.patterns, "recorded": self.recorded,
                                     "check_at": self.check_at, "reruns": self.reruns}
        if self.storage_settings:
            arguments["storage_settings"] = self.storage_settings
        return "falcon_airflow.provider.triggers.feed.LateDataTrigger", arguments

    async def run(self) -> AsyncIterator[TriggerEvent]:
        remaining = datetime.fromisoformat(self.check_at).timestamp() - time.time()
        if remaining > 0:
            await asyncio.sleep(remaining)
        try:
            current = await asyncio.to_thread(measure, self.patterns, self.storage_settings)
        except StorageError as problem:
            yield _event({"status": "error", "message": problem.message, "reruns": self.reruns})
            return
        status = "changed" if current != self.recorded else "unchanged"
        yield _event({"status": status, "metrics": current, "reruns": self.reruns})


def measure(patterns: dict[str, list[str]],
            storage_settings: dict[str, dict[str, str]] | None = None) -> dict[str, int]:
    """Falcon's late-data metric per input: total bytes under all of its instance paths (each input's storage
    reached with its cluster's client settings, ``storage_settings[name]``)."""
    settings = storage_settings or {}
    return {name: sum(total_bytes(pattern, settings.get(name)) for pattern in paths)
            for name, paths in patterns.items()}
