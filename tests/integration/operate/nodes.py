"""One Falcon server on several nodes, as the multi-node and update tests deploy it: the settings every node shares
(one PostgreSQL store, the store's DAG bundle, one JWT secret), falcon-airflow's command line as a user's client of
one node, and waiting with the nodes' logs at hand."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text
from sqlalchemy.engine import Engine
from tests.integration.operate.harness import AirflowServer

PROGRAM = str(Path(sys.executable).with_name("falcon-airflow"))
BUNDLES = [{"name": "falcon-store", "classpath": "falcon_airflow.dags.store_bundle.FalconStoreBundle",
            "kwargs": {"refresh_interval": 2}},
           {"name": "dags-folder", "classpath": "airflow.dag_processing.bundles.local.LocalDagBundle", "kwargs": {}}]
WAIT = 120.0
LEASE_SECONDS = 15


def shared_settings(node: AirflowServer, root: Path, store_url: str) -> None:
    """What every node of the deployment is configured with alike (and nothing else is shared)."""
    node.env.update({
        "AIRFLOW__API_AUTH__JWT_SECRET": "one-jwt-secret-for-the-whole-deployment",
        "AIRFLOW__CORE__FERNET_KEY": "Jm1bT0xFaV9wR3JvT2ZJbnN0YW5jZXNfdGVzdF8xMjM=",
        "AIRFLOW__FALCON__STORE": "database",
        "AIRFLOW__FALCON__STORE_URL": store_url,
        "AIRFLOW__FALCON__STORE_LEASE_SECONDS": str(LEASE_SECONDS),
        "AIRFLOW__FALCON__AUTHENTICATION": "simple",
        "AIRFLOW__FALCON__AIRFLOW_USER": "admin",
        "AIRFLOW__CORE__EXECUTOR": "LocalExecutor",
        "AIRFLOW__DAG_PROCESSOR__DAG_BUNDLE_CONFIG_LIST": json.dumps(BUNDLES),
        "AIRFLOW__DAG_PROCESSOR__DAG_BUNDLE_STORAGE_PATH": str(root / "bundles"),
        "AIRFLOW__DAG_PROCESSOR__BUNDLE_REFRESH_CHECK_INTERVAL": "1",
        "AIRFLOW__DAG_PROCESSOR__MIN_FILE_PROCESS_INTERVAL": "5",
        "AIRFLOW__DAG_PROCESSOR__PARSING_PROCESSES": "1",
        "FALCON_AIRFLOW_WAIT": "60",
    })


def falcon(server: AirflowServer, *argv: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """``falcon-airflow <argv>`` on a user's machine: nothing but the server's URL and a user name."""
    env = {key: value for key, value in os.environ.items() if not key.startswith(("AIRFLOW", "FALCON_"))}
    env.update({"FALCON_URL": f"{server.url}/falcon", "FALCON_AIRFLOW_USER": "admin"})
    return subprocess.run([PROGRAM, *argv], env=env, capture_output=True, text=True, timeout=timeout, check=False)


def rows(engine: Engine, query: str, **values: Any) -> list[Any]:
    with engine.connect() as connection:
        return list(connection.execute(text(query), values).all())


def wait_for(what: str, found: Callable[[], Any], logs: list[Path]) -> Any:
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        value = found()
        if value:
            return value
        time.sleep(0.5)
    tails = "\n".join(f"--- {log}\n{log.read_text(errors='replace')[-3000:]}" for log in logs if log.exists())
    pytest.fail(f"not within {WAIT:g} s: {what}\n{tails}")
