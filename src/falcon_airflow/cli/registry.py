"""How a command is defined: one :class:`Command` (name, help, options, the function that runs it) turned into
the ``falcon-airflow`` parser and, for the commands marked ``airflow``, into ``airflow falcon``'s.

A command's function is named as ``"module:function"`` and imported only when the command runs, so that building
the parser costs nothing and ``validate``, ``el`` and ``explain`` never import Airflow or Spark. It receives the
parsed ``argparse.Namespace`` and returns the exit code; under ``airflow falcon`` the namespace has
``airflow_front_end`` set to True.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Option:
    """One argument: a positional (``flags`` without a dash) or an option; ``switch`` is a flag without a value."""

    flags: tuple[str, ...]
    help: str | None = None
    metavar: str | None = None
    dest: str | None = None
    switch: bool = False
    choices: tuple[str, ...] | None = None
    default: Any = None
    nargs: str | None = None
    type: Callable[[str], Any] | None = None
    required: bool = False

    def keywords(self) -> dict[str, Any]:
        """The ``add_argument`` keywords (only those given, so argparse's own defaults stay as they are)."""
        found: dict[str, Any] = {}
        if self.switch:
            found["action"] = "store_true"
        for name in ("dest", "metavar", "choices", "default", "nargs", "type", "help"):
            value = getattr(self, name)
            if value is not None:
                found[name] = value
        if self.required:
            found["required"] = True
        return found


def option(*flags: str, **details: Any) -> Option:
    return Option(flags=flags, **details)


@dataclass(frozen=True)
class Command:
    """A command (or a sub-command of one): either ``run`` or ``subcommands``."""

    name: str
    help: str
    description: str | None = None
    options: tuple[Option, ...] = ()
    run: str | None = None
    """``"module:function"``: ``function(args: argparse.Namespace) -> int``."""
    subcommands: tuple[Command, ...] = ()
    subcommand_dest: str = "subcommand"
    subcommand_metavar: str | None = None
    airflow: bool = False
    """Also ``airflow falcon NAME`` (the provider's CLI)."""
    allow_abbrev: bool = True
    extra: dict[str, Any] = field(default_factory=dict)


def load(target: str) -> Callable[[argparse.Namespace], int]:
    module, _, name = target.partition(":")
    function: Callable[[argparse.Namespace], int] = getattr(importlib.import_module(module), name)
    return function


def add_command(subparsers: Any, command: Command) -> argparse.ArgumentParser:
    """Add ``command`` (and its sub-commands) to an argparse subparsers object."""
    keywords: dict[str, Any] = {"help": command.help}
    if command.description is not None:
        keywords["description"] = command.description
    if not command.allow_abbrev:
        keywords["allow_abbrev"] = False
    parser: argparse.ArgumentParser = subparsers.add_parser(command.name, **keywords)
    for item in command.options:
        parser.add_argument(*item.flags, **item.keywords())
    if command.subcommands:
        nested = parser.add_subparsers(dest=command.subcommand_dest, metavar=command.subcommand_metavar,
                                       required=True)
        for sub in command.subcommands:
            add_command(nested, sub)
    elif command.run is not None:
        parser.set_defaults(run=command.run)
    return parser


def build_parser(prog: str, description: str, commands: Sequence[Command]) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=prog, description=description)
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for command in commands:
        add_command(subparsers, command)
    return parser


def run_parsed(args: argparse.Namespace) -> int:
    """Run the function the parsed command names; Ctrl-C exits 130, a closed pipe quietly 0."""
    try:
        return int(load(args.run)(args))
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


def airflow_group(name: str, help_text: str, commands: Sequence[Command]) -> list[Any]:
    """``airflow falcon ...``: the commands marked ``airflow``, as Airflow CLI commands (a ``GroupCommand``)."""
    from airflow.cli.cli_config import ActionCommand, Arg, GroupCommand  # noqa: TID251 - the provider's CLI hook

    def entry(target: str, args: argparse.Namespace) -> None:
        args.airflow_front_end = True
        code = run_parsed(argparse.Namespace(**{**vars(args), "run": target}))
        if code:  # Airflow ignores a command's return value
            sys.exit(code)

    def make(command: Command) -> Any:
        if command.subcommands:  # airflow falcon store import ...
            return GroupCommand(name=command.name, help=command.help, description=command.description,
                                subcommands=[make(sub) for sub in command.subcommands])
        assert command.run is not None, f"airflow falcon {command.name}: a command runs or has sub-commands"
        arguments = tuple(Arg(flags=item.flags, **item.keywords())  # type: ignore[no-untyped-call]
                          for item in command.options)
        target = command.run
        return ActionCommand(name=command.name, help=command.help, description=command.description,
                             func=lambda args: entry(target, args), args=arguments)

    return [GroupCommand(name=name, help=help_text,
                         subcommands=[make(command) for command in commands if command.airflow])]
