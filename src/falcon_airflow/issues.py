"""Issues: what parsing and validation report instead of raising.

An :class:`Issue` names its level, the rule that produced it (a Falcon rule id such as ``F9``, ``XML`` for
well-formedness and refused constructs, ``XSD`` for schema errors, or a project id ``FAnnn``), the file and line,
the entity and a message written for the person who has to fix it.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Level(StrEnum):
    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True, slots=True)
class Issue:
    level: Level
    rule: str
    message: str
    file: str | None = None
    line: int | None = None
    entity: str | None = None
    entity_type: str | None = None

    @property
    def is_error(self) -> bool:
        return self.level is Level.ERROR

    def location(self) -> str:
        """``file:line`` (or what is known of it), for text output."""
        if not self.file:
            return "<workspace>"
        return f"{self.file}:{self.line}" if self.line else self.file

    def sort_key(self) -> tuple[str, int, str, str]:
        return (self.file or "", self.line or 0, self.rule, self.message)
