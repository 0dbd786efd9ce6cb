"""What every operation shares: Falcon's result statuses, the refusal an operation raises, and the outcome it
returns to the command line.

Operations never print. They return an :class:`Outcome` (Falcon's ``APIResult``: a status, a message, and for
listings a payload) or raise :class:`Refused` with Falcon's message; :mod:`falcon_airflow.operate.commands` renders
either as text or JSON and turns it into an exit code.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from falcon_airflow.exits import EXIT_FAILED, EXIT_OK


class Status(StrEnum):
    """Falcon's ``APIResult.Status``."""

    SUCCEEDED = "SUCCEEDED"
    PARTIAL = "PARTIAL"
    FAILED = "FAILED"


class Refused(Exception):
    """An operation that is not carried out, with Falcon's message.

    ``usage`` marks a wrong command line (exit 2: a missing or invalid option); otherwise the request was
    understood and refused or failed (exit 1). ``details`` are extra lines (validation issues, for instance).
    """

    def __init__(self, message: str, *, usage: bool = False, details: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.message = message
        self.usage = usage
        self.details = tuple(details)


def usage_error(message: str) -> Refused:
    return Refused(message, usage=True)


def missing(option: str) -> Refused:
    """Falcon's CLI message for a required option that was not given."""
    return usage_error(f"Missing argument : {option}")


@dataclass
class Outcome:
    """The result of one operation: Falcon's status and message, a JSON payload and an optional text form."""

    status: Status
    message: str
    payload: dict[str, Any] = field(default_factory=dict)
    text: str | None = None
    warnings: list[str] = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        return EXIT_OK if self.status is Status.SUCCEEDED else EXIT_FAILED

    def as_json(self) -> dict[str, Any]:
        document: dict[str, Any] = {"status": self.status.value, "message": self.message}
        document.update(self.payload)
        if self.warnings:
            document["warnings"] = list(self.warnings)
        return document


def succeeded(message: str, *, text: str | None = None, **payload: Any) -> Outcome:
    return Outcome(Status.SUCCEEDED, message, dict(payload), text)
