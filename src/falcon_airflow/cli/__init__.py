"""The ``falcon-airflow`` command: the commands of :mod:`falcon_airflow.cli.commands`, parsed by argparse.

A command's code is imported when it runs, so that ``validate``, ``el`` and ``explain`` start fast and never import
Airflow or Spark. Exit codes: :mod:`falcon_airflow.exits`.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from falcon_airflow.cli.commands import commands
from falcon_airflow.cli.registry import build_parser as _build
from falcon_airflow.cli.registry import run_parsed

PROG = "falcon-airflow"
DESCRIPTION = "Apache Falcon entities on Apache Airflow and Apache Spark."


def build_parser() -> argparse.ArgumentParser:
    return _build(PROG, DESCRIPTION, commands())


def main(argv: Sequence[str] | None = None) -> int:
    """Run a command line; without ``argv`` it is the program's own (``sys.argv``) and the process ends with the
    command, which a command may use to skip clean-up that only a long-lived caller needs."""
    args = build_parser().parse_args(argv)
    args.process_ends_after = argv is None
    return run_parsed(args)
