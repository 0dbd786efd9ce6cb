"""What the core raises: a :class:`RuleError` (a ``ValueError``) whose message says which rule the input broke.

Each side turns it into its own error: the Airflow side into a :class:`falcon_airflow.errors.FalconAirflowError`
with the file and line, a job into a usage error (exit 2).
"""

from __future__ import annotations


class RuleError(ValueError):
    """An input that breaks one of Falcon's rules (a path variable, a table URI, a duration, a time zone...)."""


class TableUriError(RuleError):
    """A text that is not a Falcon table URI ``catalog:db:table#k=v;...``."""
