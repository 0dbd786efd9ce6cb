"""``falcon-airflow prism sync``: asks a Prism to bring its colos up to date (``POST api/prism/sync``), as the user
running the command - each colo server decides what that user may change, so a sync never does more than the user
could one request at a time.

Who the caller is: ``FALCON_AIRFLOW_TOKEN`` (an Airflow token) when set, else Falcon's simple scheme with
``FALCON_AIRFLOW_USER`` or the operating system user, as ``falcon-airflow``'s commands tell a server.
"""

from __future__ import annotations

import argparse
import os
import sys

import httpx

from falcon_airflow.exits import EXIT_FAILED, EXIT_OK, EXIT_USAGE
from falcon_airflow.operate.context import local_user

SYNC_TIMEOUT = 600.0
"""A sync walks every entity; each colo request is bounded by the Prism's own ``prism_timeout``."""


def run(args: argparse.Namespace) -> int:
    url = (args.url or os.environ.get("FALCON_URL") or "").strip().rstrip("/")
    if not url:
        print("ERROR: no Prism to ask: give --url http://<prism>:8080/falcon or set FALCON_URL", file=sys.stderr)
        return EXIT_USAGE
    params = {"colo": args.colo} if args.colo else {}
    headers = {"Accept": "application/json"}
    token = os.environ.get("FALCON_AIRFLOW_TOKEN")
    if token:
        headers["Authorization"] = f"Bearer {token}"
    else:
        params["user.name"] = os.environ.get("FALCON_AIRFLOW_USER") or local_user()
    try:
        response = httpx.post(f"{url}/api/prism/sync", params=params, headers=headers, timeout=SYNC_TIMEOUT)
    except httpx.HTTPError as problem:
        print(f"ERROR: cannot reach the Prism at {url}: {type(problem).__name__}: {problem}", file=sys.stderr)
        return EXIT_FAILED
    try:
        document = response.json()
    except ValueError:
        print(f"ERROR: the Prism at {url} answered {response.status_code}: {response.text[:500]}", file=sys.stderr)
        return EXIT_FAILED
    status = str(document.get("status") or "FAILED")
    print(str(document.get("message") or "").rstrip("\n"))
    print(status)
    return EXIT_OK if response.status_code == 200 and status == "SUCCEEDED" else EXIT_FAILED
