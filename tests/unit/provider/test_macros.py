"""Template macros resolve bindings for a run without the entity files."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pendulum

from falcon_airflow.instances.process import ProcessOnCluster
from falcon_airflow.provider import macros
from falcon_airflow.workspace import Workspace

EXAMPLES = Path(__file__).resolve().parents[3] / "entities"


def bindings() -> tuple[dict[str, object], dict[str, object]]:
    workspace = Workspace.load([str(EXAMPLES)])
    runner = ProcessOnCluster.of(workspace, workspace.processes["count-clicks"])
    (item,) = runner.process.inputs
    (output,) = runner.process.outputs
    # through JSON, as they travel in DAG params
    return (json.loads(runner.input_binding(item).model_dump_json()),
            json.loads(runner.output_binding(output).model_dump_json()))


def test_macros_resolve_paths_for_a_run_from_its_data_interval() -> None:
    input_binding, output_binding = bindings()
    run = SimpleNamespace(data_interval_start=pendulum.datetime(2026, 3, 1, 5, tz="UTC"), logical_date=None)
    assert macros.input_paths(input_binding, run) == "file:///tmp/falcon-airflow/primary/data/raw-clicks/2026-03-01/05"
    assert macros.input_instances(input_binding, run) == "2026-03-01T05:00Z"
    assert macros.output_path(output_binding, run) == \
        "file:///tmp/falcon-airflow/primary/data/click-counts/2026-03-01/05"
    assert macros.output_instance(output_binding, run) == "2026-03-01T05:00Z"


def test_runs_without_a_data_interval_use_the_logical_date_or_run_after() -> None:
    _, output_binding = bindings()
    asset_triggered = SimpleNamespace(data_interval_start=None, logical_date=None,
                                      run_after=pendulum.datetime(2026, 3, 1, 7, 12, tz="UTC"))
    assert macros.output_path(output_binding, asset_triggered).endswith("/2026-03-01/07")


def test_action_context_el_and_nominal_time() -> None:
    at = pendulum.datetime(2026, 3, 1, 23, 30, tz="UTC")
    assert macros.el("formatTime(instanceTime(), 'yyyy-MM-dd')", at) == "2026-03-01"
    assert macros.el("today(0,0)", at, "Asia/Kolkata") == "2026-03-01T18:30Z"
    assert macros.nominal_time(at) == "2026-03-01-23-30"
    assert macros.nominal_time({"dag_run": SimpleNamespace(data_interval_start=at)}, "Asia/Kolkata") == \
        "2026-03-02-05-00"
