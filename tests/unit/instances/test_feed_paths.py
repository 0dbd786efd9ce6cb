"""One resolver for feed instance paths: the command line and explain (``FeedOnCluster``) and the macros and
operators (``FeedBinding``, what a DAG carries) print the same location for every instance."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from tests.builders import cluster, feed, workspace

from falcon_airflow.instances.feeds import FeedOnCluster


@pytest.mark.parametrize("storage", [
    {"path": "/data/in/${YEAR}/${MONTH}/${DAY}/${HOUR}", "flag": "_SUCCESS"},
    {"table": "catalog:db:clicks#ds=${YEAR}${MONTH}${DAY};hr=${HOUR}"},
    {"table": " catalog: db :clicks#ds = ${YEAR}-${MONTH}-${DAY};;hr=${HOUR};"},  # spacing Falcon accepts
])
def test_cli_explain_macros_and_operators_name_an_instance_alike(tmp_path: Path, storage: dict[str, str]) -> None:
    loaded = workspace(tmp_path, cluster(), feed("clicks", timezone="Asia/Kolkata", **storage))
    clicks = loaded.feeds["clicks"]
    on_cluster = FeedOnCluster(clicks, clicks.clusters[0], loaded.clusters["c1"])
    binding = on_cluster.binding()
    for hour in range(0, 48, 7):
        moment = datetime(2026, 3, 1, tzinfo=UTC) + timedelta(hours=hour)
        assert on_cluster.path(moment) == binding.path(moment)
        if "path" in storage:
            assert on_cluster.availability_marker(moment) == binding.marker(moment)
    if "table" in storage:
        assert on_cluster.path(datetime(2026, 3, 1, 5, tzinfo=UTC)).startswith("catalog:db:clicks#ds=2026")
