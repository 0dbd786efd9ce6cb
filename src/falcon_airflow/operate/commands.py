"""Running the ``entity``, ``instance`` and ``admin`` commands, for ``falcon-airflow`` and for ``airflow falcon``
(both defined in :mod:`falcon_airflow.cli.commands`, with the options of :mod:`falcon_airflow.operate.arguments`).

:func:`run_entity`, :func:`run_instance` and :func:`run_admin` run :func:`run_command`: resolve the settings,
complete or undo actions an earlier command left half done (the journal), run the action, print the outcome as
text or JSON. Exit codes: 0 succeeded, 1 refused, failed or
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
from typing import Any

EXIT_USAGE = 2


def _masked(text: str) -> str:
    """``text`` with the Airflow password and token masked: whatever a message quotes, no secret is printed."""
    from falcon_airflow.operate.audit import mask

    return mask(text, (os.environ.get("FALCON_AIRFLOW_PASSWORD"), os.environ.get("FALCON_AIRFLOW_TOKEN")))


def _emit_error(message: str, details: tuple[str, ...], output: str, code: int) -> int:
    if output == "json":
        print(_masked(json.dumps({"status": "FAILED", "message": message, "details": list(details)}, indent=2)))
    else:
        print(_masked(f"ERROR: {message}"), file=sys.stderr)
        for line in details:
            print(_masked(f"  {line}"), file=sys.stderr)
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
    from falcon_airflow.operate import extension_actions as extension
    from falcon_airflow.operate import instance_actions as instance
    from falcon_airflow.operate import metadata
    from falcon_airflow.operate.airflow_api import AirflowError
    from falcon_airflow.operate.context import Context
    from falcon_airflow.operate.gate import Denied, Gate
    from falcon_airflow.operate.journal import recover
    from falcon_airflow.operate.options import Options
    from falcon_airflow.operate.outcomes import EXIT_FAILED, Refused
    from falcon_airflow.operate.settings import Settings

    options = Options(command, namespace)
    output = "text"
    gate: Gate | None = None
    try:
        output = options.output
        action = options.action()
        settings = Settings.resolve(url=options.text("url"), entities=options.text("entities"),
                                    airflow_config=airflow_config)
        if command != "admin" and not settings.entities.is_dir():
            raise Refused(f"no entities folder found at {settings.entities}: run from the folder that holds "
                          "entities/, or name it with --entities DIR or FALCON_ENTITIES_DIR")
        debug = options.flag("debug") or os.environ.get("FALCON_DEBUG", "").strip().lower() == "true"
        context = Context.create(settings, do_as=options.text("do_as"), debug=debug)
        # Who acts and whether they may: checked here, before any command changes anything, and audited. The
        # attempt is in the audit trail before anything changes, or the command does not run at all.
        gate = Gate.open(context, command, action, options, airflow_config)
        gate.check()
        gate.begin()
        changes_store = (command == "entity" and action in entity.MUTATING) or (
            command == "admin" and action == "setsafemode") or (
            command == "extension" and action in extension.MUTATING)
        with _maybe_lock(context, changes_store or bool(context.book.pending())):
            if context.book.pending():
                context.recovering = True
                notes, _ = recover(context.book, {**entity.ACTIONS, **extension.ACTIONS}, context,
                                   failures=(AirflowError, Refused, OSError))
                context.recovering = False
                context.store.forget_cache()
                for note in notes:
                    print(f"falcon-airflow: {note}", file=sys.stderr)
            handler = {"entity": entity.handle, "instance": instance.handle, "admin": admin.handle,
                       "metadata": metadata.handle, "extension": extension.handle}[command]
            outcome = handler(context, options)
    except Refused as refusal:
        if gate is not None:
            gate.record("DENIED" if isinstance(refusal, Denied) else "REFUSED", refusal.message)
        return _emit_error(refusal.message, refusal.details, output, EXIT_USAGE if refusal.usage else EXIT_FAILED)
    except AirflowError as problem:
        if gate is not None:
            gate.record("FAILED", problem.message)
        return _emit_error(problem.message, (), output, EXIT_FAILED)
    except BaseException as problem:
        if gate is not None:
            gate.record("FAILED", f"{type(problem).__name__}: {problem}")
        raise
    if gate is not None:
        gate.record(outcome.status.value, None if outcome.exit_code == 0 else outcome.message)
    outcome.warnings[:0] = context.warnings
    if output == "json":
        print(_masked(json.dumps(outcome.as_json(), indent=2, default=str)))
    else:
        for warning in outcome.warnings:
            print(_masked(f"warning: {warning}"), file=sys.stderr)
        print(_masked(outcome.text if outcome.text is not None else outcome.message))
    return outcome.exit_code


def run_entity(args: argparse.Namespace) -> int:
    return run_command("entity", args, _front_end_config(args))


def run_instance(args: argparse.Namespace) -> int:
    return run_command("instance", args, _front_end_config(args))


def run_admin(args: argparse.Namespace) -> int:
    return run_command("admin", args, _front_end_config(args))


def run_metadata(args: argparse.Namespace) -> int:
    return run_command("metadata", args, _front_end_config(args))


def run_extension(args: argparse.Namespace) -> int:
    return run_command("extension", args, _front_end_config(args))


def _front_end_config(args: argparse.Namespace) -> Callable[[str, str], str] | None:
    """Under ``airflow falcon`` the settings default to Airflow's own configuration."""
    return _airflow_config if getattr(args, "airflow_front_end", False) else None


def _airflow_config(section: str, key: str) -> str:
    from airflow.configuration import conf  # noqa: TID251 - runs inside the airflow command only

    return str(conf.get(section, key, fallback="") or "")
