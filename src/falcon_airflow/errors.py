"""The project's exceptions.

Every error raised on purpose derives from :class:`FalconAirflowError` and says where its input came from: a file
and line for entity XML, a character position for an EL expression. Validation does not raise these one by one;
it collects :class:`falcon_airflow.issues.Issue` objects instead. Exceptions are for the places that must stop.
"""

from __future__ import annotations


class FalconAirflowError(Exception):
    """Base of every error this project raises deliberately."""

    def __init__(self, message: str, *, file: str | None = None, line: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.file = file
        self.line = line

    def __str__(self) -> str:
        where = ""
        if self.file:
            where = f"{self.file}:{self.line}: " if self.line else f"{self.file}: "
        return f"{where}{self.message}"


class FrequencyError(FalconAirflowError, ValueError):
    """A text that is not a Falcon frequency such as ``hours(1)``."""


class DateFormatError(FalconAirflowError, ValueError):
    """A text that is not a Falcon UTC date (``yyyy-MM-ddTHH:mmZ``) or names a day that does not exist."""


class CatalogUriError(FalconAirflowError, ValueError):
    """A feed ``table`` URI that does not follow ``catalog:<db>:<table>#<key>=<value>;...``."""


class TimeZoneError(FalconAirflowError, ValueError):
    """A time-zone ID that neither the IANA database nor Java's legacy short IDs know."""


class ELError(FalconAirflowError):
    """An EL expression that cannot be parsed or evaluated; ``position`` is a 0-based character offset."""

    def __init__(self, message: str, *, expression: str, position: int | None = None) -> None:
        self.expression = expression
        self.position = position
        super().__init__(message)

    def __str__(self) -> str:
        if self.position is None:
            return f"{self.message} in {self.shown_expression()!r}"
        return f"{self.message} at character {self.position + 1} of {self.shown_expression()!r}"

    SHOWN_CHARACTERS = 120
    """An expression longer than this is shown as the part around ``position``: an error about a generated
    100,000-character expression stays one readable line."""

    def shown_expression(self) -> str:
        text = self.expression
        if len(text) <= self.SHOWN_CHARACTERS:
            return text
        half = self.SHOWN_CHARACTERS // 2
        centre = min(max(self.position or 0, half), len(text) - half)
        start, end = centre - half, centre + half
        return ("..." if start > 0 else "") + text[start:end] + ("..." if end < len(text) else "")


class ELSyntaxError(ELError):
    """The expression does not follow the EL grammar (bad token, unbalanced parenthesis, ...)."""


class ELEvaluationError(ELError):
    """The expression parses but cannot be evaluated: unknown function, wrong arity, bad argument."""


class UsageError(FalconAirflowError):
    """A command line that cannot be run as given (missing path, unknown option); the CLI exits with 2."""


class InstanceError(FalconAirflowError, ValueError):
    """A time that is not an instance of the entity (before its validity, at or after its end, off its grid), or
    a reference the workspace cannot resolve (a feed not defined on the process's cluster)."""
