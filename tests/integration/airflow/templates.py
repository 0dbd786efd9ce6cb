"""Entity XML shared by the Airflow integration tests: the standard cluster (tests/builders.py) with its storage in
a local folder."""

from __future__ import annotations

from pathlib import Path

from tests.builders import cluster


def cluster_xml(name: str, storage: Path | str) -> str:
    return cluster(name, f"file://{storage}", colo=name)
