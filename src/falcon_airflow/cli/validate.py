"""``falcon-airflow validate``: entity XML files and folders judged as one workspace."""

from __future__ import annotations

import argparse
import gc
import os
import sys
from typing import NoReturn

from falcon_airflow.exits import EXIT_INVALID, EXIT_OK, EXIT_USAGE


def run(args: argparse.Namespace) -> int:
    from falcon_airflow.bulk import collector_paused
    from falcon_airflow.errors import FalconAirflowError, UsageError
    from falcon_airflow.timekeeping import parse_falcon_date
    from falcon_airflow.validation import validate_paths
    from falcon_airflow.validation.formats import render

    try:
        now = parse_falcon_date(args.now) if args.now else None
    except FalconAirflowError as problem:
        print(f"falcon-airflow validate: --now: {problem.message}", file=sys.stderr)
        return EXIT_USAGE
    with collector_paused():  # the command is short-lived and its objects live to the end: nothing to collect
        try:
            report = validate_paths(args.paths or ["entities"], schema_only=args.schema_only, now=now,
                                    check_environment=args.check_environment, workers=None)
        except UsageError as problem:
            print(f"falcon-airflow validate: {problem.message}", file=sys.stderr)
            return EXIT_USAGE
        if args.strict:
            report = report.strict()
        print(render(report, args.format))
        code = EXIT_OK if report.valid else EXIT_INVALID
        if getattr(args, "process_ends_after", False):
            _end_now(code)
        return code


def _end_now(code: int) -> NoReturn:
    """End the process with the command, which is how it runs from the command line (a caller that lives on, as
    tests do, gets the exit code back instead). Left to the interpreter, the estate's objects (several hundred
    thousand at 10,000 entities) would be freed one by one and the modules torn down, a tenth of the whole run;
    the operating system takes the memory back at once. Safe because nothing is left to do at exit: the output
    is flushed here, the helper processes have been joined (their pools are closed), no file is open and the
    command registers no exit handler."""
    gc.freeze()  # should anything still run, the collector will not walk the estate again
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
