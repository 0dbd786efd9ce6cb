"""``falcon-airflow sandbox up|down|status``: the local sandbox of real services (see falcon_airflow.sandbox)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from falcon_airflow.exits import EXIT_INVALID, EXIT_OK


def run(args: argparse.Namespace) -> int:
    from falcon_airflow.jvm import JarCacheError
    from falcon_airflow.sandbox import Sandbox, SandboxError

    state = Path(args.state) if args.state else None
    try:
        if args.subcommand == "up":
            endpoints = Sandbox(state).start()
            print(json.dumps(endpoints.as_json(), indent=1))
            # Airflow reaches hdfs:// over each namenode's WebHDFS, whose address only this configuration gives.
            print(f"falcon-airflow sandbox: where Airflow runs against it, export HADOOP_CONF_DIR="
                  f"{endpoints.hadoop_conf_dir}", file=sys.stderr)
        elif args.subcommand == "down":
            sandbox = Sandbox.load(state)
            sandbox.stop()
            print(f"sandbox in {sandbox.state_dir} stopped")
        else:
            sandbox = Sandbox.load(state)
            dead = sandbox.dead_services()
            if dead or sandbox.endpoints is None:
                print(f"falcon-airflow sandbox: not running in {sandbox.state_dir}; stopped services: "
                      f"{', '.join(dead) or 'all'} (see {sandbox.state_dir / 'logs'})", file=sys.stderr)
                return EXIT_INVALID
            print(json.dumps(sandbox.endpoints.as_json(), indent=1))
    except (SandboxError, JarCacheError) as problem:
        print(f"falcon-airflow sandbox {args.subcommand}: {problem}", file=sys.stderr)
        return EXIT_INVALID
    return EXIT_OK
