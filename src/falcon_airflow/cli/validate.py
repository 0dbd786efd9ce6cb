"""``falcon-airflow validate``: entity XML files and folders judged as one workspace."""

from __future__ import annotations

import argparse
import gc
import sys

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
        if getattr(args, "process_ends_after", False):
            # The process ends with the command. Left to the collector, the estate's objects would be walked once
            # more when it resumes or the interpreter exits (a fifth of the run at 10,000 entities); frozen, they
            # are not. A caller that lives on keeps its collector as it was.
            gc.freeze()
        return EXIT_OK if report.valid else EXIT_INVALID
