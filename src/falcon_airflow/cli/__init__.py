"""The ``falcon-airflow`` command: the commands of :mod:`falcon_airflow.cli.commands`, parsed by argparse.

A command's code is imported when it runs, so that ``validate``, ``el`` and ``explain`` start fast and never import
Airflow or Spark. Exit codes: :mod:`falcon_airflow.cli.exits`.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from falcon_airflow.cli.commands import COMMANDS
from falcon_airflow.cli.registry import build_parser as _build
from falcon_airflow.cli.registry import run_parsed

PROG = "falcon-airflow"
DESCRIPTION = "Apache Falcon entities on Apache Airflow and Apache Spark."


def build_parser() -> argparse.ArgumentParser:
    return _build(PROG, DESCRIPTION, COMMANDS)


def main(argv: Sequence[str] | None = None) -> int:
    return run_parsed(build_parser().parse_args(argv))
