"""The ``falcon-airflow`` command.

Subcommands import what they need when they run, so that ``validate`` and ``el`` start fast and never import
Airflow or Spark. Exit codes: 0 success, 1 the input is invalid (or an expression cannot be evaluated), 2 the
command line itself is wrong (unknown option, missing path).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

EXIT_OK = 0
EXIT_INVALID = 1
EXIT_USAGE = 2


class _Parser(argparse.ArgumentParser):
    """argparse, but usage errors name the program and exit with 2 without a traceback (argparse's own habit)."""


def _validate(args: argparse.Namespace) -> int:
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


def _lineage(args: argparse.Namespace) -> int:
    import json
    from pathlib import Path

    from falcon_airflow.lineage import query
    from falcon_airflow.lineage.events import EventLog, Marquez, MarquezError, default_event_logs, load_event_logs

    prefix = f"falcon-airflow lineage {args.question}"
    times = {}
    for name in ("start", "end", "at"):
        text = getattr(args, name, None)
        try:
            times[name] = query.parse_time(text) if text else None
        except ValueError:
            print(f"{prefix}: --{name}: '{text}' is not a time (yyyy-MM-ddTHH:mmZ or ISO 8601)", file=sys.stderr)
            return EXIT_USAGE
    paths = [Path(item) for item in args.events or []]
    missing = [str(path) for path in paths if not path.exists()]
    if missing:
        print(f"{prefix}: no such event log: {', '.join(missing)}", file=sys.stderr)
        return EXIT_USAGE
    if not paths and not args.marquez:
        paths = default_event_logs()
    entities = getattr(args, "entities", None)
    if entities and not Path(entities).is_dir():
        print(f"{prefix}: --entities: {entities} is not a folder", file=sys.stderr)
        return EXIT_USAGE
    if not paths and not args.marquez and not entities:
        print(f"{prefix}: no events: give --events PATH (an event log, e.g. airflow-home/lineage/events.jsonl) or "
              "--marquez URL" + (" or --entities DIR" if args.question == "graph" else ""), file=sys.stderr)
        return EXIT_USAGE
    log = load_event_logs(paths)
    if args.marquez:
        try:
            remote = Marquez(args.marquez, timeout=args.timeout).events()
        except MarquezError as problem:
            print(f"{prefix}: {problem}", file=sys.stderr)
            return EXIT_INVALID
        log = EventLog(log.events + remote.events, log.skipped + remote.skipped, log.sources + remote.sources)
    if log.skipped:
        print(f"{prefix}: {log.skipped} unreadable event(s) left out", file=sys.stderr)
    index = query.LineageIndex(log.events)
    try:
        if args.question == "graph":
            from falcon_airflow.lineage.graph import build_graph, render

            workspace = None
            if entities:
                from falcon_airflow.workspace import Workspace

                workspace = Workspace.load([entities])
            text = render(build_graph(workspace, index if log.events else None, instances=args.instances),
                          args.format)
        elif args.question == "column":
            answer = query.column_lineage(index, args.dataset, args.field, direction=args.direction,
                                          depth=args.depth, start=times["start"], end=times["end"])
            text = json.dumps(answer, indent=2) + "\n" if args.format == "json" else query.column_text(answer)
        elif args.question == "field-history":
            answer = query.field_history(index, args.dataset, args.field, start=times["start"], end=times["end"])
            text = json.dumps(answer, indent=2) + "\n" if args.format == "json" else query.history_text(answer)
        else:
            assert times["at"] is not None
            answer = query.process_instance(index, args.process, times["at"], cluster=args.cluster)
            text = json.dumps(answer, indent=2) + "\n" if args.format == "json" else query.instance_text(answer)
    except query.QueryError as problem:
        print(f"{prefix}: {problem}", file=sys.stderr)
        return EXIT_INVALID
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return EXIT_OK


def _add_lineage(commands: Any) -> None:
    lineage = commands.add_parser(
        "lineage", help="query OpenLineage events: entity graph, column lineage, field history, process instances",
        description="Questions answered from OpenLineage events: an event log (JSON lines, as the file transport "
                    "writes it; default airflow-home/lineage/events.jsonl, else $AIRFLOW_HOME/lineage/events.jsonl) "
                    "and/or a Marquez-compatible API (--marquez). Times are yyyy-MM-ddTHH:mmZ or ISO 8601; ranges "
                    "are [start, end). DATASET is a feed (FEED, FEED@CLUSTER, falcon://CLUSTER/FEED: every "
                    "instance) or a dataset URI (file:///path, hdfs://nn:8020/path, s3://bucket/key, "
                    "hive://host:port/db.table). Exit 0 answered, 1 unknown dataset or process, 2 wrong command line.")
    questions = lineage.add_subparsers(dest="question", metavar="QUESTION", required=True)

    def sources(parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--events", nargs="+", metavar="PATH",
                            help="event logs (.jsonl, .json) or folders of them")
        parser.add_argument("--marquez", metavar="URL", help="a Marquez-compatible server (its raw events)")
        parser.add_argument("--timeout", type=float, default=30.0, metavar="S", help="HTTP timeout (default 30)")
        parser.add_argument("--output", metavar="FILE", help="write the answer here instead of stdout")

    def column_of(parser: argparse.ArgumentParser) -> None:
        parser.add_argument("dataset", metavar="DATASET")
        parser.add_argument("field", metavar="FIELD")

    def instance_range(parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--start", metavar="T", help="first instance (inclusive)")
        parser.add_argument("--end", metavar="T", help="end of the range (exclusive)")

    graph = questions.add_parser(
        "graph", help="Falcon's entity graph: clusters, feeds, processes, owners, tags, groups, pipelines",
        description="The entity graph of an entities folder and/or the events, with Falcon's vertex types and edge "
                    "labels (stored-in, runs-on, input, output, owned-by, grouped-as, pipeline, replicated-to ...).")
    graph.add_argument("--entities", metavar="DIR", help="an entities folder")
    graph.add_argument("--instances", action="store_true",
                       help="also the process and feed instances of the events")
    graph.add_argument("--format", choices=("json", "dot", "svg"), default="json")
    sources(graph)
    graph.set_defaults(run=_lineage)

    column = questions.add_parser(
        "column", help="where a column came from or went, per instance, across runs",
        description="For each instance of DATASET (inside --start/--end), the column edges of the columnLineage "
                    "facets reached from FIELD within --depth steps, with their transformation types and runs.")
    column_of(column)
    column.add_argument("--direction", choices=("upstream", "downstream", "both"), default="upstream")
    column.add_argument("--depth", type=int, default=10, metavar="N", help="steps to follow (default 10)")
    instance_range(column)
    column.add_argument("--format", choices=("text", "json"), default="text")
    sources(column)
    column.set_defaults(run=_lineage)

    history = questions.add_parser(
        "field-history", help="every operation on a column across instances",
        description="Every run that wrote, read, copied or dropped FIELD of DATASET's instances, oldest first.")
    column_of(history)
    instance_range(history)
    history.add_argument("--format", choices=("text", "json"), default="text")
    sources(history)
    history.set_defaults(run=_lineage)

    instance = questions.add_parser(
        "instance", help="what a process instance read and wrote",
        description="The tasks of the process instance at --at, every try, what each read and wrote, and the "
                    "Spark runs under them with their column lineage.")
    instance.add_argument("process", metavar="PROCESS")
    instance.add_argument("--at", required=True, metavar="T", help="the instance time")
    instance.add_argument("--cluster", metavar="C", help="the cluster (default: every cluster)")
    instance.add_argument("--format", choices=("text", "json"), default="text")
    sources(instance)
    instance.set_defaults(run=_lineage)


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
    _add_lineage(commands)

    from falcon_airflow.operate.commands import register as register_operate  # entity, instance, admin

    register_operate(commands)
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
