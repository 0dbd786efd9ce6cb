"""``falcon-airflow oozie graph``: the graph of an Oozie workflow for migration review, or (``--support``) which
of its actions run on falcon-airflow."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from falcon_airflow.exits import EXIT_INVALID, EXIT_OK, EXIT_USAGE

PREFIX = "falcon-airflow oozie graph"


def graph(args: argparse.Namespace) -> int:
    from falcon_airflow.oozie import parse_workflow_file
    from falcon_airflow.oozie.graph import graph_of, support_as_text, support_of_workflow, to_dot, to_svg

    output_format = args.format or ("text" if args.support else "json")
    if args.support and output_format not in ("text", "json"):
        print(f"{PREFIX}: --support prints text or json", file=sys.stderr)
        return EXIT_USAGE
    if not args.support and output_format == "text":
        print(f"{PREFIX}: the graph is json, dot or svg (text is for --support)", file=sys.stderr)
        return EXIT_USAGE
    path = Path(args.workflow)
    if path.is_dir():
        path = path / "workflow.xml"
    if not path.is_file():
        print(f"{PREFIX}: no such workflow file: {path}", file=sys.stderr)
        return EXIT_USAGE
    parsed = parse_workflow_file(path, str(path))
    if parsed.workflow is None:
        for issue in parsed.issues:
            print(f"{issue.location()}: [{issue.rule}] {issue.message}", file=sys.stderr)
        return EXIT_INVALID
    if args.support:
        report = support_of_workflow(parsed.workflow)
        text = json.dumps(report, indent=2) + "\n" if output_format == "json" else support_as_text(report) + "\n"
    elif output_format == "json":
        text = json.dumps(graph_of(parsed.workflow), indent=2) + "\n"
    elif output_format == "svg":
        text = to_svg(parsed.workflow)
    else:
        text = to_dot(parsed.workflow)
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return EXIT_OK
