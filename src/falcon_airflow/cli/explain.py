"""``falcon-airflow explain``: what one instance of a process or feed reads, writes, keeps and copies."""

from __future__ import annotations

import argparse
import sys

from falcon_airflow.exits import EXIT_INVALID, EXIT_OK, EXIT_USAGE


def run(args: argparse.Namespace) -> int:
    import json

    from falcon_airflow.errors import FalconAirflowError, UsageError
    from falcon_airflow.explain import as_text, explain
    from falcon_airflow.timekeeping import parse_falcon_date
    from falcon_airflow.workspace import Workspace

    try:
        at = parse_falcon_date(args.at)
        workspace = Workspace.load([args.entities])
    except UsageError as problem:
        print(f"falcon-airflow explain: {problem.message}", file=sys.stderr)
        return EXIT_USAGE
    except FalconAirflowError as problem:
        print(f"falcon-airflow explain: --at: {problem.message}", file=sys.stderr)
        return EXIT_USAGE
    broken = [issue for parsed in workspace.files for issue in parsed.issues if issue.is_error]
    try:
        report = explain(workspace, args.name, at, cluster=args.cluster, entity_type=args.type)
    except FalconAirflowError as problem:
        print(f"falcon-airflow explain: {problem.message}", file=sys.stderr)
        for issue in broken:  # a file that did not parse may be why the entity is missing
            print(f"  {issue.location()}: [{issue.rule}] {issue.message}", file=sys.stderr)
        return EXIT_INVALID
    print(json.dumps(report, indent=2) if args.format == "json" else as_text(report))
    return EXIT_OK
