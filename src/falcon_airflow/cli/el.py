"""``falcon-airflow el``: a Falcon EL expression evaluated at an instance time."""

from __future__ import annotations

import argparse
import sys

from falcon_airflow.exits import EXIT_INVALID, EXIT_OK, EXIT_USAGE


def run(args: argparse.Namespace) -> int:
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
