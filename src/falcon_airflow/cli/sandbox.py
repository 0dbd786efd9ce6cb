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
    from falcon_airflow.sandbox.secure import SecureSandbox, is_secure

    state = Path(args.state) if args.state else None
    try:
        if args.subcommand == "up":
            endpoints = (SecureSandbox(state) if getattr(args, "secure", False) else Sandbox(state)).start()
            print(json.dumps(endpoints.as_json(), indent=1))
            # Airflow reaches hdfs:// over each namenode's WebHDFS, whose address only this configuration gives.
            print(f"falcon-airflow sandbox: where Airflow runs against it, export HADOOP_CONF_DIR="
                  f"{endpoints.hadoop_conf_dir}", file=sys.stderr)
        elif args.subcommand == "down":
            sandbox = Sandbox.load(state)
            sandbox.stop()
            print(f"sandbox in {sandbox.state_dir} stopped")
        else:
            described = SecureSandbox.load(state) if is_secure(state) else Sandbox.load(state)
            dead = described.dead_services()
            if dead or described.endpoints is None:
                print(f"falcon-airflow sandbox: not running in {described.state_dir}; stopped services: "
                      f"{', '.join(dead) or 'all'} (see {described.state_dir / 'logs'})", file=sys.stderr)
                return EXIT_INVALID
            # A secure sandbox's endpoints carry its realm, KDC address, krb5.conf and keytab paths.
            print(json.dumps(described.endpoints.as_json(), indent=1))
    except (SandboxError, JarCacheError) as problem:
        print(f"falcon-airflow sandbox {args.subcommand}: {problem}", file=sys.stderr)
        return EXIT_INVALID
    return EXIT_OK
