"""``python -m falcon_airflow.operate entity|instance|admin ...``: the operate commands on their own (the same as
``falcon-airflow entity ...`` once falcon_airflow.cli registers them)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from falcon_airflow.operate.commands import register


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m falcon_airflow.operate",
                                     description="Falcon's entity, instance and admin commands on Airflow.")
    register(parser.add_subparsers(dest="command", metavar="COMMAND", required=True))
    args = parser.parse_args(argv)
    try:
        return int(args.run(args))
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
