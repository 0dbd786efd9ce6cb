"""``falcon-airflow lineage QUESTION``: questions answered from OpenLineage events."""

from __future__ import annotations

import argparse
import sys

from falcon_airflow.exits import EXIT_INVALID, EXIT_OK, EXIT_USAGE


def run(args: argparse.Namespace) -> int:
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
