"""The ``entity``, ``instance`` and ``admin`` commands, for ``falcon-airflow`` and for ``airflow falcon``.

* :func:`register` adds them to the ``falcon-airflow`` parser (``falcon_airflow.cli``);
* :func:`airflow_cli_commands` is listed in the provider's ``cli`` (Airflow >= 3.2 reads it) and returns the
  ``falcon`` command group: ``airflow falcon entity ...``, ``airflow falcon instance ...``,
  ``airflow falcon admin ...``.

Both run :func:`run_command`: resolve the settings, complete or undo actions an earlier command left half done
(the journal), run the action, print the outcome as text or JSON. Exit codes: 0 succeeded, 1 refused, failed or
only partly done, 2 wrong command line.

Importing this module costs nothing: the operations are imported when a command runs.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from collections.abc import Callable, Iterator
from functools import partial
from typing import Any

from falcon_airflow.operate.arguments import add_arguments, all_specs

EXIT_USAGE = 2
COMMANDS = {
    "entity": ("Falcon entity operations: submit, schedule, suspend, resume, delete, update, status, list ...",
               "Falcon's entity command on Airflow: the entities folder is the configuration store, each feed and "
               "process runs as Airflow DAGs. Exactly one action option."),
    "instance": ("Falcon instance operations: status, list, running, kill, suspend, resume, rerun, logs ...",
                 "Falcon's instance command on Airflow: an instance is the DAG run of the instance time. Exactly "
                 "one action option."),
    "admin": ("Falcon admin operations: status, version, setsafemode",
              "Falcon's admin command: Airflow's health and version, and safemode (persisted in the store)."),
}


def _emit_error(message: str, details: tuple[str, ...], output: str, code: int) -> int:
    if output == "json":
        print(json.dumps({"status": "FAILED", "message": message, "details": list(details)}, indent=2))
    else:
        print(f"ERROR: {message}", file=sys.stderr)
        for line in details:
            print(f"  {line}", file=sys.stderr)
    return code


@contextlib.contextmanager
def _maybe_lock(context: Any, needed: bool) -> Iterator[None]:
    if needed:
        with context.store.lock():
            yield
    else:
        yield


def run_command(command: str, namespace: argparse.Namespace,
                airflow_config: Callable[[str, str], str] | None = None) -> int:
    """Run one ``entity``/``instance``/``admin`` command; returns the exit code."""
    from falcon_airflow.operate import admin_actions as admin
    from falcon_airflow.operate import entity_actions as entity
    from falcon_airflow.operate import instance_actions as instance
    from falcon_airflow.operate.airflow_api import AirflowError
    from falcon_airflow.operate.context import Context
    from falcon_airflow.operate.journal import recover
    from falcon_airflow.operate.options import Options
    from falcon_airflow.operate.outcomes import EXIT_FAILED, Refused
    from falcon_airflow.operate.settings import Settings

    options = Options(command, namespace)
    output = "text"
    try:
        output = options.output
        action = options.action()
        settings = Settings.resolve(url=options.text("url"), entities=options.text("entities"),
                                    airflow_config=airflow_config)
        debug = options.flag("debug") or os.environ.get("FALCON_DEBUG", "").strip().lower() == "true"
        context = Context.create(settings, do_as=options.text("do_as"), debug=debug)
        changes_store = (command == "entity" and action in entity.MUTATING) or (
            command == "admin" and action == "setsafemode")
        with _maybe_lock(context, changes_store or bool(context.book.pending())):
            if context.book.pending():
                context.recovering = True
                notes, _ = recover(context.book, entity.ACTIONS, context, failures=(AirflowError, Refused, OSError))
                context.recovering = False
                context.store.forget_cache()
                for note in notes:
                    print(f"falcon-airflow: {note}", file=sys.stderr)
            handler = {"entity": entity.handle, "instance": instance.handle, "admin": admin.handle}[command]
            outcome = handler(context, options)
    except Refused as refusal:
        return _emit_error(refusal.message, refusal.details, output, EXIT_USAGE if refusal.usage else EXIT_FAILED)
    except AirflowError as problem:
        return _emit_error(problem.message, (), output, EXIT_FAILED)
    outcome.warnings[:0] = context.warnings
    if output == "json":
        print(json.dumps(outcome.as_json(), indent=2, default=str))
    else:
        for warning in outcome.warnings:
            print(f"warning: {warning}", file=sys.stderr)
        print(outcome.text if outcome.text is not None else outcome.message)
    return outcome.exit_code


def register(subparsers: Any) -> None:
    """Add ``entity``, ``instance`` and ``admin`` to an argparse subparsers object (``falcon-airflow``)."""
    for command, (summary, description) in COMMANDS.items():
        parser = subparsers.add_parser(command, help=summary, description=description, allow_abbrev=False)
        add_arguments(parser, command)
        parser.set_defaults(run=partial(run_command, command))


# -- airflow falcon ... ----------------------------------------------------------------------------------------------

def _airflow_config(section: str, key: str) -> str:
    from airflow.configuration import conf  # noqa: TID251 - runs inside the airflow command only

    return str(conf.get(section, key, fallback="") or "")


def _airflow_entry(command: str, args: argparse.Namespace) -> None:
    """Airflow ignores a command's return value: exit with the code instead."""
    code = run_command(command, args, airflow_config=_airflow_config)
    if code:
        sys.exit(code)


def airflow_cli_commands() -> list[Any]:
    """The ``falcon`` command group for Airflow's CLI (provider info ``cli``; a list of ``CLICommand``)."""
    from airflow.cli.cli_config import ActionCommand, Arg, GroupCommand  # noqa: TID251 - provider CLI hook

    def args(command: str) -> tuple[Any, ...]:
        found = []
        for spec in all_specs(command):
            if spec.metavar is None:
                found.append(Arg(flags=(spec.flag,), help=spec.help, action="store_true",  # type: ignore[no-untyped-call]
                                 dest=spec.dest))
            else:
                found.append(Arg(flags=(spec.flag,), help=spec.help, metavar=spec.metavar,  # type: ignore[no-untyped-call]
                                 dest=spec.dest))
        return tuple(found)

    subcommands = [ActionCommand(name=command, help=summary, description=description,
                                 func=partial(_airflow_entry, command), args=args(command))
                   for command, (summary, description) in COMMANDS.items()]
    return [GroupCommand(name="falcon", help="Apache Falcon entity, instance and admin operations "
                                             "(falcon-airflow)", subcommands=subcommands)]
