"""Running the ``entity``, ``instance``, ``admin``, ``metadata`` and ``extension`` commands, for ``falcon-airflow``
and for ``airflow falcon`` (both defined in :mod:`falcon_airflow.cli.commands`, with the options of
:mod:`falcon_airflow.operate.arguments`).

``run_<command>`` runs :func:`run_command`: resolve the settings, run the action
(:func:`falcon_airflow.operate.execution.execute`: authorization, audit, journal recovery, lock, the handler), print
the outcome as text or JSON. Exit codes: 0 succeeded, 1 refused, failed or only partly done, 2 wrong command line.

Importing this module costs nothing: the operations are imported when a command runs.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

from falcon_airflow.exits import EXIT_FAILED, EXIT_USAGE

if TYPE_CHECKING:
    from falcon_airflow.operate.options import Options


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


def run_command(command: str, namespace: argparse.Namespace,
                airflow_config: Callable[[str, str], str] | None = None) -> int:
    """Run one ``entity``/``instance``/``admin``/``metadata``/``extension`` command on this machine (with the
    deployment the environment names, :func:`~falcon_airflow.operate.execution.execute`) and print its outcome;
    returns the exit code."""
    from falcon_airflow.operate import remote
    from falcon_airflow.operate.airflow_api import AirflowError
    from falcon_airflow.operate.execution import Deployment, execute
    from falcon_airflow.operate.options import Options
    from falcon_airflow.operate.outcomes import Refused

    options = Options(command, namespace)
    output = "text"
    try:
        output = options.output
        action = options.action()
        server = remote.server_url(options.text("url"), airflow_config)
        if server is not None:
            return _run_remote(server, command, action, options, output)
        deployment = Deployment.local(url=options.text("url"), entities=options.text("entities"),
                                      airflow_config=airflow_config)
        if command != "admin" and not deployment.settings.entities.is_dir():
            raise Refused(f"no entities folder found at {deployment.settings.entities}: run from the folder that "
                          "holds entities/, or name it with --entities DIR or FALCON_ENTITIES_DIR")
        debug = options.flag("debug") or os.environ.get("FALCON_DEBUG", "").strip().lower() == "true"
        outcome = execute(command, action, options, deployment=deployment, debug=debug,
                          notes=lambda note: print(f"falcon-airflow: {note}", file=sys.stderr))
    except Refused as refusal:
        return _emit_error(refusal.message, refusal.details, output, EXIT_USAGE if refusal.usage else EXIT_FAILED)
    except AirflowError as problem:
        return _emit_error(problem.message, (), output, EXIT_FAILED)
    if output == "json":
        print(_masked(json.dumps(outcome.as_json(), indent=2, default=str)))
    else:
        for warning in outcome.warnings:
            print(_masked(f"warning: {warning}"), file=sys.stderr)
        print(_masked(outcome.text if outcome.text is not None else outcome.message))
    return outcome.exit_code


def _run_remote(server: str, command: str, action: str, options: Options, output: str) -> int:
    """The command on a Falcon server, printed as if it ran here."""
    from falcon_airflow.operate import remote

    answer = remote.send(server, command, action, options)
    document = answer.document
    if answer.failed:
        details = tuple(str(item) for item in document.get("details") or ())
        return _emit_error(str(document.get("message") or "failed"), details, output,
                           EXIT_USAGE if document.get("usage") else EXIT_FAILED)
    for note in document.get("notes") or ():
        print(f"falcon-airflow: {note}", file=sys.stderr)
    if output == "json":
        shown = {key: value for key, value in document.items() if key not in ("text", "exit_code", "notes")}
        if not shown.get("warnings"):
            shown.pop("warnings", None)
        print(_masked(json.dumps(shown, indent=2, default=str)))
    else:
        for warning in document.get("warnings") or ():
            print(_masked(f"warning: {warning}"), file=sys.stderr)
        text = document.get("text")
        print(_masked(str(text if text is not None else document.get("message", ""))))
    return int(document.get("exit_code", EXIT_FAILED))


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
