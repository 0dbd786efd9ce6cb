"""The plain Python DAG files the dag_parsing benchmark compares with describe exactly the DAGs the loader builds:
same ids, tasks, dependencies and arguments (the same serialized form)."""

from __future__ import annotations

import importlib.machinery
import importlib.util
from pathlib import Path

import pytest
from tests.estate import write_estate
from tests.integration.airflow.test_sharded_loader import freeze_compile_time, serialized

from falcon_airflow.dags.loader import load_dags

REPOSITORY = Path(__file__).resolve().parents[3]
pytestmark = pytest.mark.xdist_group("airflow")


def test_plain_dag_files_build_the_loaders_dags(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(REPOSITORY))  # the benchmarks package beside the tests
    from benchmarks.dag_parsing import write_plain_shards

    monkeypatch.setenv("AIRFLOW_HOME", str(tmp_path / "home"))
    freeze_compile_time(monkeypatch)
    entities = tmp_path / "entities"
    write_estate(entities, 6)
    write_plain_shards(entities, tmp_path / "plain", 2)
    plain = {}
    for path in sorted((tmp_path / "plain").glob("plain_dags_*.py")):
        loader = importlib.machinery.SourceFileLoader(f"plain_{path.stem}", str(path))
        spec = importlib.util.spec_from_loader(loader.name, loader)
        assert spec is not None
        module = importlib.util.module_from_spec(spec)
        loader.exec_module(module)
        plain.update({value.dag_id: value for value in vars(module).values() if type(value).__name__ == "DAG"})
    ours = load_dags(folder=entities)
    assert sorted(plain) == sorted(ours) and len(ours) == 12
    for dag_id, dag in ours.items():
        assert serialized(plain[dag_id]) == serialized(dag), dag_id
