"""``python -m falcon_airflow.operate entity|instance|admin ...``: the operate commands on their own (the same as
``falcon-airflow entity ...``), built from the same command table."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from falcon_airflow.cli.commands import COMMANDS
from falcon_airflow.cli.registry import build_parser, run_parsed


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser("python -m falcon_airflow.operate",
                          "Falcon's entity, instance and admin commands on Airflow.",
                          [command for command in COMMANDS if command.name in ("entity", "instance", "admin")])
    return run_parsed(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
