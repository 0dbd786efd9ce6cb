"""Our operators report OpenLineage facets from their specs, never fail a task over lineage, and building DAGs
does not import the lineage machinery."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from falcon_airflow.compiler import compile_workspace
from falcon_airflow.dags.builder import PROCESS_INSTANCE, build_dag
from falcon_airflow.provider.operators.spark import FalconSparkSubmitOperator
from falcon_airflow.workspace import Workspace

REPOSITORY = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def specs() -> dict[str, Any]:
    folder = REPOSITORY / "entities"
    compilation = compile_workspace(Workspace.load([str(folder)]), entities_dir=folder,
                                    now=datetime(2026, 3, 1, tzinfo=UTC))
    return {spec.dag_id: spec for spec in compilation.specs}


def test_tasks_get_their_spec_and_the_driver_its_parent(specs: dict[str, Any]) -> None:
    process = build_dag(specs["falcon.process.count-clicks.primary"])
    workflow = process.get_task("workflow")
    assert workflow.falcon_lineage is specs["falcon.process.count-clicks.primary"]
    assert workflow.lineage_instance == PROCESS_INSTANCE
    assert workflow.lineage_events == "{{ macros.falcon.lineage_path(dag_run, task.task_id) }}"
    assert workflow._openlineage_inject_parent_job_info is True
    assert {"lineage_instance", "lineage_events"} <= set(workflow.template_fields)
    assert process.get_task("late_data").falcon_lineage is workflow.falcon_lineage
    replicate = build_dag(specs["falcon.feed.click-counts.replication.primary.backup"]).get_task("replicate")
    assert replicate.lineage_instance == "{{ macros.falcon.replicated_instance(falcon.source, dag_run, 0) }}"
    assert replicate.lineage_events is None
    retention = build_dag(specs["falcon.feed.raw-clicks.retention.primary"]).get_task("retention")
    assert retention.falcon_lineage is specs["falcon.feed.raw-clicks.retention.primary"]


def operator(spec: Any, **arguments: Any) -> FalconSparkSubmitOperator:
    return FalconSparkSubmitOperator(task_id="t", master="local[1]", application="/x.py", falcon_lineage=spec,
                                     **arguments)


def test_process_task_reports_the_instance_it_reads_and_writes(specs: dict[str, Any]) -> None:
    task = operator(specs["falcon.process.count-clicks.primary"], lineage_instance="2026-03-01T05:00:00+00:00")
    for lineage in (task.get_openlineage_facets_on_start(), task.get_openlineage_facets_on_complete(None)):
        assert [item.name for item in lineage.inputs] == ["/tmp/falcon-airflow/primary/data/raw-clicks/2026-03-01/05"]
        assert [item.name for item in lineage.outputs] == [
            "/tmp/falcon-airflow/primary/data/click-counts/2026-03-01/05"]
        assert lineage.run_facets["nominalTime"].nominalStartTime == "2026-03-01T05:00:00Z"
        assert {(tag.key, tag.value) for tag in lineage.run_facets["tags"].tags} == {
            ("team", "analytics"), ("pipeline", "clickstream")}


def test_retention_task_reports_drops_from_its_report(specs: dict[str, Any], tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    report.write_text(json.dumps({"evicted": [{"instance": "2026-02-01T05:00Z", "type": "data",
                                               "path": "file:///tmp/falcon-airflow/primary/data/raw-clicks/x"}]}))
    task = operator(specs["falcon.feed.raw-clicks.retention.primary"], application_args=["--report", str(report)])
    assert task.get_openlineage_facets_on_start().outputs == []
    (dropped,) = task.get_openlineage_facets_on_failure(None).outputs  # what was evicted before a failure counts
    assert dropped.facets["lifecycleStateChange"].lifecycleStateChange.value == "DROP"


def test_lineage_never_fails_the_task(specs: dict[str, Any]) -> None:
    broken = operator(specs["falcon.process.count-clicks.primary"], lineage_instance="not a time")
    assert broken.get_openlineage_facets_on_start() is None  # logged as a warning
    assert operator(None).get_openlineage_facets_on_complete(None) is None
    missing = operator(specs["falcon.feed.click-counts.replication.primary.backup"], lineage_instance="",
                       application_args=["--report", "/nonexistent/report.json"])
    assert missing.get_openlineage_facets_on_complete(None).inputs == []
    task = operator(specs["falcon.process.count-clicks.primary"], lineage_events="/nonexistent/dir/x.jsonl")
    task._forward_lineage_events(Path("/nonexistent/dir/x.jsonl"))  # nothing to forward: no error


def test_building_dags_does_not_load_lineage() -> None:
    script = ("import sys\nfrom falcon_airflow.dags.loader import load_dags\nfrom pathlib import Path\n"
              f"dags = load_dags(folder=Path({str(REPOSITORY / 'entities')!r}))\nassert len(dags) == 11, dags\n"
              "print(sorted(m for m in sys.modules if m.startswith(('falcon_airflow.lineage.', "
              "'falcon_airflow.provider.openlineage')) and m != 'falcon_airflow.core.naming'))\n")
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip().splitlines()[-1] == "[]"
