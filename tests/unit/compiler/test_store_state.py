"""The store's records (-doAs user, schedule state) reach the compiled specs and the loader's cache key."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.builders import cluster, feed, process, workspace

from falcon_airflow.compiler import StoreState, compile_workspace
from falcon_airflow.compiler.specs import DagSpec, ProcessDagSpec, ReplicationDagSpec, RetentionDagSpec
from falcon_airflow.dags.loader import load_specs
from falcon_airflow.workspace import Workspace

LATE_FEED = feed("in").replace("<clusters>", '<late-arrival cut-off="hours(2)"/>\n  <clusters>', 1)
LATE_PROCESS = ('<late-process policy="periodic" delay="minutes(10)">'
                '<late-input input="a" workflow-path="/app/late.py"/></late-process>')


def entities(folder: Path, *, spark_opts: str | None = None) -> Path:
    xml = process(start="2011-01-01T00:00Z", inputs=(("a", "in", "now(-1,0)", "now(0,0)"),),
                  outputs=(("b", "out", "now(0,0)"),))
    xml = xml.replace("</spark-attributes>", "</spark-attributes>" + LATE_PROCESS)
    if spark_opts is not None:
        xml = xml.replace("<jar>/app/job.py</jar>", f"<jar>/app/job.py</jar><spark-opts>{spark_opts}</spark-opts>")
    documents = (cluster("c1"), cluster("c2", storage="file:///srv/c2"), LATE_FEED,
                 feed("out", path="/out/${YEAR}${MONTH}${DAY}${HOUR}", clusters=(("c1", "source"), ("c2", "target"))),
                 xml)
    workspace(folder, *documents)
    return folder


def compiled(folder: Path, state: StoreState | None) -> dict[str, DagSpec]:
    compilation = compile_workspace(Workspace.load([str(folder)]), entities_dir=folder, store_state=state)
    assert compilation.report.valid, compilation.report.issues
    return {spec.dag_id: spec for spec in compilation.specs}


def by_kind(specs: dict[str, DagSpec], kind: type) -> list[DagSpec]:
    return [spec for spec in specs.values() if isinstance(spec, kind)]


def test_without_records_the_acl_owner_runs_the_jobs(tmp_path: Path) -> None:
    specs = compiled(entities(tmp_path), StoreState())
    assert specs and all(spec.paused_upon_creation is None for spec in specs.values())
    # the feeds' ACL owner is "o"; the process has no ACL: its jobs keep the deployment's own identity
    assert {(spec.source.type, spec.run_as, spec.job.proxy_user) for spec in specs.values()} == {
        ("feed", "o", "o"), ("process", None, None)}


def test_the_do_as_user_of_each_entity_runs_its_own_spark_jobs(tmp_path: Path) -> None:
    state = StoreState(proxy_users={("process", "p"): "alice", ("feed", "out"): "bob"})
    specs = compiled(entities(tmp_path), state)
    (workflow,) = by_kind(specs, ProcessDagSpec)
    assert isinstance(workflow, ProcessDagSpec) and workflow.late is not None
    assert workflow.job.proxy_user == "alice" and workflow.late.rerun.proxy_user == "alice"
    out_jobs = [spec.job.proxy_user for spec in specs.values() if spec.source.name == "out"]
    in_jobs = [spec.job.proxy_user for spec in specs.values() if spec.source.name == "in"]
    assert out_jobs and set(out_jobs) == {"bob"}  # retention on c1 and c2, replication c1 -> c2
    assert len(by_kind(specs, ReplicationDagSpec)) == 1 and len(by_kind(specs, RetentionDagSpec)) == 3
    assert in_jobs and set(in_jobs) == {"o"}  # no record: its ACL owner


@pytest.mark.parametrize("spark_opts", ["--proxy-user carol", "--principal carol --keytab /k",
                                        "--conf spark.executorEnv.HADOOP_USER_NAME=carol"])
def test_spark_opts_never_choose_the_identity(tmp_path: Path, spark_opts: str) -> None:
    state = StoreState(proxy_users={("process", "p"): "alice"})
    compilation = compile_workspace(Workspace.load([str(entities(tmp_path, spark_opts=spark_opts))]),
                                    entities_dir=tmp_path, store_state=state)
    assert {issue.rule for issue in compilation.report.issues if issue.entity == "p"} == {"FA035"}
    assert not [spec for spec in compilation.specs if isinstance(spec, ProcessDagSpec)]


@pytest.mark.parametrize(("recorded", "paused"), [("RUNNING", False), ("SUSPENDED", True)])
def test_schedule_state_sets_paused_upon_creation(tmp_path: Path, recorded: str, paused: bool) -> None:
    state = StoreState(schedule_states={("process", "p"): recorded})
    specs = compiled(entities(tmp_path), state)
    assert [spec.paused_upon_creation for spec in by_kind(specs, ProcessDagSpec)] == [paused]
    assert {spec.paused_upon_creation for spec in specs.values() if spec.source.type == "feed"} == {None}


def test_the_loader_reads_the_records_and_recompiles_when_they_change(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AIRFLOW_HOME", str(tmp_path / "home"))
    folder = entities(tmp_path / "store")
    (meta := folder / ".falcon").mkdir()

    def workflow() -> ProcessDagSpec:
        specs, issues = load_specs(folder)
        assert not [issue for issue in issues if issue["level"] == "error"], issues
        (found,) = [spec for spec in specs if isinstance(spec, ProcessDagSpec)]
        return found

    assert (workflow().job.proxy_user, workflow().paused_upon_creation) == (None, None)
    (meta / "doas.json").write_text(json.dumps({"process/p": {"user": "alice", "action": "submit"}}))
    (meta / "schedule.json").write_text(json.dumps({"process/p": {"state": "RUNNING"}}))
    assert (workflow().job.proxy_user, workflow().paused_upon_creation) == ("alice", False)
    (meta / "schedule.json").write_text(json.dumps({"process/p": {"state": "SUSPENDED"}}))
    assert workflow().paused_upon_creation is True


@pytest.mark.parametrize("paused", [None, False, True])
def test_the_built_dags_carry_the_flag(tmp_path: Path, paused: bool | None) -> None:
    from falcon_airflow.dags.builder import build_dag

    specs = compiled(entities(tmp_path), StoreState())
    for spec in specs.values():
        dag = build_dag(spec.model_copy(update={"paused_upon_creation": paused}))
        assert dag.is_paused_upon_creation is paused
