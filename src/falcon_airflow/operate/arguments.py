"""The command-line options of ``entity``, ``instance``, ``admin``, ``metadata`` and ``extension`` for argparse, for
both front ends (``falcon-airflow`` and ``airflow falcon``), derived from the declarations
(:mod:`falcon_airflow.operate.declarations`). Option names are Falcon's (``-type``, ``-name``, ``-file``,
``-filterBy`` ...): one dash, camel case; each command takes exactly one action option.

Importing this module costs nothing, so the command line starts fast.
"""

from __future__ import annotations

import argparse

from falcon_airflow.operate.declarations import CommandDeclaration, Option, command, commands

Spec = Option
"""One command-line option (``metavar`` None: a switch)."""

COMMANDS: dict[str, CommandDeclaration] = commands()
"""The declared commands by name."""


def all_specs(name: str) -> tuple[Option, ...]:
    """Every option of a command: its actions, its options, the common ones, in ``--help`` order."""
    return command(name).all_options()


def supported(name: str) -> str:
    """The command's actions, as Falcon's "Invalid/missing" message lists them."""
    return command(name).supported()


def add_arguments(parser: argparse.ArgumentParser, name: str) -> None:
    for spec in all_specs(name):
        if spec.switch:
            parser.add_argument(spec.flag, dest=spec.dest, action="store_true", help=spec.help)
        else:
            parser.add_argument(spec.flag, dest=spec.dest, metavar=spec.metavar, help=spec.help)
