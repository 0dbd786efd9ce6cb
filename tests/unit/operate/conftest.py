"""Fixtures of the operate unit tests (the helpers live in helpers.py: conftest cannot be imported)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.builders import ops_cluster, ops_feed, ops_process

from falcon_airflow.operate.context import Context

from .helpers import FakeAirflow, Kit


@pytest.fixture
def kit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Kit]:
    airflow = FakeAirflow()
    root = tmp_path / "store"
    root.mkdir()
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    monkeypatch.setattr(Context, "airflow", lambda self: airflow)
    monkeypatch.setenv("FALCON_AIRFLOW_WAIT", "0")
    monkeypatch.delenv("FALCON_ENTITIES_DIR", raising=False)
    monkeypatch.delenv("FALCON_AIRFLOW_URL", raising=False)
    yield Kit(root, airflow, inbox)


@pytest.fixture
def pipeline(kit: Kit) -> Kit:
    """east cluster, feeds logs (east) and counts (east, replicated to west), process count reading logs."""
    kit.write("clusters/east.xml", ops_cluster("east", colo="here"))
    kit.write("clusters/west.xml", ops_cluster("west", colo="there"))
    kit.write("feeds/logs.xml", ops_feed("logs"))
    kit.write("feeds/counts.xml", ops_feed("counts", west=True))
    kit.write("processes/count.xml", ops_process("count"))
    kit.airflow.add_dag("falcon.process.count.east")
    kit.airflow.add_dag("falcon.feed.logs.retention.east", ("retention",))
    kit.airflow.add_dag("falcon.feed.counts.retention.east", ("retention",))
    kit.airflow.add_dag("falcon.feed.counts.retention.west", ("retention",))
    kit.airflow.add_dag("falcon.feed.counts.replication.east.west", ("wait_for_source", "replicate"))
    return kit
