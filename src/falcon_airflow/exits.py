"""Exit codes of every ``falcon-airflow`` and ``airflow falcon`` command: 0 done; 1 the input is invalid or the
operation failed (an expression that cannot be evaluated, a Falcon action refused); 2 the command line itself is
wrong (unknown option, missing path)."""

from __future__ import annotations

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_INVALID = EXIT_FAILED
"""The same code as :data:`EXIT_FAILED`, named for what a check reports (validate, el, explain)."""
EXIT_USAGE = 2
