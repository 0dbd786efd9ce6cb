"""Exit codes of ``falcon-airflow``: 0 success, 1 the input is invalid (or an expression cannot be evaluated),
2 the command line itself is wrong (unknown option, missing path)."""

from __future__ import annotations

EXIT_OK = 0
EXIT_INVALID = 1
EXIT_USAGE = 2
