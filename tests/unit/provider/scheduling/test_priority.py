"""FIFO/LIFO as priority weights from the instance in the run id; only LIFO weighs the workflow task."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from airflow.task.weight_rule import WeightRule

from falcon_airflow.provider.scheduling.priority import NewestInstanceFirst, OldestInstanceFirst


def ti(run_id: str) -> SimpleNamespace:
    return SimpleNamespace(run_id=run_id)


def test_fifo_prefers_older_and_lifo_newer_instances() -> None:
    older, newer = ti("scheduled__p__2026-03-01T05:00Z"), ti("scheduled__p__2026-03-01T06:00Z")
    assert OldestInstanceFirst().get_weight(older) > OldestInstanceFirst().get_weight(newer)
    assert NewestInstanceFirst().get_weight(newer) > NewestInstanceFirst().get_weight(older)
    manual = ti("manual__p__2026-03-01T06:00Z__20261122T101010")
    assert NewestInstanceFirst().get_weight(manual) == NewestInstanceFirst().get_weight(newer)
    assert 0 < OldestInstanceFirst().get_weight(ti("no-instance-here")) < 2**31


@pytest.mark.parametrize(("order", "strategy"), [("FIFO", None), ("LAST_ONLY", None),
                                                 ("LIFO", NewestInstanceFirst)])
def test_only_lifo_weighs_the_workflow_by_its_instance(tmp_path, order: str, strategy: type | None) -> None:
    from tests.builders import cluster, ops_feed, ops_process

    from falcon_airflow.dags.builder import build_dag
    from falcon_airflow.dags.loader import load_specs

    for name, text in {"east": cluster("east", f"file://{tmp_path}/data"), "logs": ops_feed("logs"),
                       "counts": ops_feed("counts"), "count": ops_process(order=order)}.items():
        (tmp_path / f"{name}.xml").write_text(text)
    (tmp_path / "apps").mkdir()
    (tmp_path / "apps" / "job.py").write_text("print('counted')\n")
    specs, issues = load_specs(tmp_path)
    assert not [issue for issue in issues if issue["level"] == "error"], issues
    dag = build_dag(next(spec for spec in specs if spec.dag_id == "falcon.process.count.east"))
    weights = {task.task_id: task.weight_rule for task in dag.tasks}
    custom = {task_id for task_id, rule in weights.items() if rule != WeightRule.DOWNSTREAM}
    if strategy is None:  # FIFO is Airflow's own order: equal weights, oldest logical date (= instance) first
        assert custom == set()
    else:
        assert custom == {"workflow"}
        assert isinstance(weights["workflow"], strategy)
