"""The ``falcon-airflow`` command.

Subcommands import what they need when they run, so that ``validate`` and ``el`` start fast and never import
Airflow or Spark. Exit codes: 0 success, 1 the input is invalid (or an expression cannot be evaluated), 2 the
command line itself is wrong (unknown option, missing path).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

EXIT_OK = 0
EXIT_INVALID = 1
EXIT_USAGE = 2


class _Parser(argparse.ArgumentParser):
    """argparse, but usage errors name the program and exit with 2 without a traceback (argparse's own habit)."""


def _validate(args: argparse.Namespace) -> int:
    from falcon_airflow.errors import FalconAirflowError, UsageError
    from falcon_airflow.timekeeping import parse_falcon_date
    from falcon_airflow.validation import validate_paths
    from falcon_airflow.validation.formats import render

    try:
        now = parse_falcon_date(args.now) if args.now else None
    except FalconAirflowError as problem:
        print(f"falcon-airflow validate: --now: {problem.message}", file=sys.stderr)
        return EXIT_USAGE
    try:
        report = validate_paths(args.paths or ["entities"], schema_only=args.schema_only, now=now,
                                check_environment=args.check_environment)
    except UsageError as problem:
        print(f"falcon-airflow validate: {problem.message}", file=sys.stderr)
        return EXIT_USAGE
    if args.strict:
        report = report.strict()
    print(render(report, args.format))
    return EXIT_OK if report.valid else EXIT_INVALID


def _el(args: argparse.Namespace) -> int:
    from falcon_airflow.el import ELContext, evaluate
    from falcon_airflow.el.evaluate import render
    from falcon_airflow.errors import FalconAirflowError
    from falcon_airflow.timekeeping import Frequency, parse_falcon_date, resolve_zone
    from falcon_airflow.timekeeping.grid import InstanceGrid

    try:
        at = parse_falcon_date(args.at)
        zone = resolve_zone(args.timezone)
        if not zone.known:
            print(f"falcon-airflow el: --timezone: '{args.timezone}' is not a known time zone", file=sys.stderr)
            return EXIT_USAGE
        grid = None
        if args.feed_frequency or args.feed_start:
            if not (args.feed_frequency and args.feed_start):
                print("falcon-airflow el: --feed-frequency and --feed-start go together", file=sys.stderr)
                return EXIT_USAGE
            grid = InstanceGrid.of(parse_falcon_date(args.feed_start), Frequency.parse(args.feed_frequency),
                                   zone.zone)
    except FalconAirflowError as problem:
        print(f"falcon-airflow el: {problem.message}", file=sys.stderr)
        return EXIT_USAGE
    try:
        value = evaluate(args.expression, ELContext(instance_time=at, zone=zone.zone, dataset=grid))
    except FalconAirflowError as problem:
        print(f"falcon-airflow el: {problem}", file=sys.stderr)
        return EXIT_INVALID
    print(render(value))
    return EXIT_OK


def _explain(args: argparse.Namespace) -> int:
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


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="falcon-airflow",
                     description="Apache Falcon entities on Apache Airflow and Apache Spark.")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    validate = commands.add_parser(
        "validate", help="validate entity XML files and folders as one workspace",
        description="Validate Falcon entity XML (cluster, feed, process, datasource). Files and folders "
                    "(searched recursively for *.xml) form one workspace in which references resolve. "
                    "Exit 0 when valid, 1 when any error is found, 2 for a wrong command line.")
    validate.add_argument("paths", nargs="*", metavar="PATH", help="entity files or folders (default: entities/)")
    validate.add_argument("--schema-only", action="store_true",
                          help="judge each file alone: well-formedness, schema and per-entity structure")
    validate.add_argument("--strict", action="store_true", help="treat warnings as errors")
    validate.add_argument("--format", choices=("text", "json", "junit", "github"), default="text",
                          help="output format (default: text)")
    validate.add_argument("--check-environment", action="store_true",
                          help="also check the outside world: endpoints reachable, staging folders, YARN "
                               "queues, workflow paths (off by default)")
    validate.add_argument("--now", metavar="T",
                          help="the time rules that depend on 'now' use (P10), as yyyy-MM-ddTHH:mmZ; "
                               "default: the current time")
    validate.set_defaults(run=_validate)

    el = commands.add_parser(
        "el", help="evaluate a Falcon EL expression",
        description="Evaluate a Falcon EL expression at an instance time. Without a feed it is evaluated in "
                    "action context; with --feed-frequency and --feed-start the result is snapped to that "
                    "feed's instances (dataset context). Prints the result alone: a time as yyyy-MM-ddTHH:mmZ, "
                    "a text as it is, an empty line when it names no instance.")
    el.add_argument("expression", metavar="EXPR")
    el.add_argument("--at", required=True, metavar="T", help="instance time, yyyy-MM-ddTHH:mmZ (UTC)")
    el.add_argument("--timezone", default="UTC", metavar="TZ", help="the entity's time zone (default: UTC)")
    el.add_argument("--feed-frequency", metavar="F", help="the feed's frequency, e.g. hours(1)")
    el.add_argument("--feed-start", metavar="S", help="the feed's first instance (validity start on the cluster)")
    el.set_defaults(run=_el)

    explain = commands.add_parser(
        "explain", help="show what an instance of a process or feed reads, writes, keeps and copies",
        description="For a process instance: each input with its feed instances and concrete paths, each output "
                    "with its instance and path. For a feed instance: its path on each cluster, the retention "
                    "cut-off that applies at that time, and the replication copies.")
    explain.add_argument("name", metavar="NAME", help="a process or feed name")
    explain.add_argument("--at", required=True, metavar="T", help="the instance time, yyyy-MM-ddTHH:mmZ (UTC)")
    explain.add_argument("--entities", default="entities", metavar="DIR",
                         help="the entities folder (default: entities/)")
    explain.add_argument("--cluster", metavar="C", help="the cluster (default: the process's first cluster; "
                                                        "every cluster of a feed)")
    explain.add_argument("--type", choices=("process", "feed"), help="when a process and a feed share NAME")
    explain.add_argument("--format", choices=("text", "json"), default="text")
    explain.set_defaults(run=_explain)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.run(args))
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
