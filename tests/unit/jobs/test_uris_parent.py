"""The parent folder of a path or URI, where a run's staging and lease siblings go: a folder right under a file
system's root has that root as its parent, with its slash (``hdfs://nn:8020`` alone names no path)."""

from __future__ import annotations

import pytest

from falcon_airflow.jobs.uris import parent_of


@pytest.mark.parametrize(("path", "parent"), [
    ("hdfs://127.0.0.1:8020/warm", "hdfs://127.0.0.1:8020/"),
    ("hdfs://127.0.0.1:8020/data/feed", "hdfs://127.0.0.1:8020/data"),
    ("s3a://bucket/instance/", "s3a://bucket/"),
    ("file:///tmp", "file:///"),
    ("file:///tmp/x", "file:///tmp"),
    ("/data/feed", "/data"),
    ("/data", "/"),
])
def test_parent_of(path: str, parent: str) -> None:
    assert parent_of(path) == parent
