"""Every job of every engine runs as its entity's recorded -doAs user, else its ACL owner: the spec's run_as and
each Spark job's proxy_user agree, for processes (spark, hive, oozie, the late re-run), retention, replication,
import, export and extension jobs; an owner that is no user name is refused; spark-opts never choose."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from tests.builders import cluster, feed, process, workspace

from falcon_airflow.compiler import StoreState, compile_workspace
from falcon_airflow.compiler.identity import with_identity
from falcon_airflow.compiler.specs import DagSpec, ProcessDagSpec
from falcon_airflow.workspace import Workspace

REPOSITORY = Path(__file__).resolve().parents[3]
OWNERS = {"click-counts": "falcon", "raw-clicks": "falcon", "click-reports": "falcon", "orders": "falcon",
          "count-clicks": "analytics", "report-clicks": "analytics", "generate-clicks": "falcon"}
MIRROR_JOB = """jobName=sales-dr
jobClusterName=primary
jobValidityStart=2026-03-01T00:00Z
jobValidityEnd=2027-03-01T00:00Z
jobFrequency=hours(1)
sourceCluster=primary
sourceDir=/data/sales
targetCluster=backup
targetDir=/backup/sales
jobAclOwner={owner}
"""


def jobs_of(spec: DagSpec) -> list[object]:
    jobs = [getattr(spec, "job", None)]
    late = getattr(spec, "late", None)
    if late is not None:
        jobs.append(late.rerun)
    return [job for job in jobs if job is not None]


@pytest.fixture(scope="module")
def example(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[DagSpec]]:
    folder = tmp_path_factory.mktemp("example") / "entities"
    shutil.copytree(REPOSITORY / "entities", folder)
    jobs = folder / "extensions" / "hdfs-mirroring"
    jobs.mkdir(parents=True)
    (jobs / "sales-dr.properties").write_text(MIRROR_JOB.format(owner="dr-team"), encoding="utf-8")
    orders = folder / "feeds" / "orders.xml"
    export = ('<export><target name="shop-db" tableName="orders_copy"><load type="allowinsert"/></target>'
              "</export>")
    orders.write_text(orders.read_text().replace("</import>", "</import>" + export))
    shop = folder / "datasources" / "shop-db.xml"
    text = shop.read_text()
    readonly = text[text.index("<interface "):text.index("</interface>") + len("</interface>")]
    write = readonly.replace('type="readonly"', 'type="write"')
    shop.write_text(text.replace("</interfaces>", write + "</interfaces>"))
    compilation = compile_workspace(Workspace.load([str(folder)]), entities_dir=folder, store_state=StoreState())
    assert not [issue for issue in compilation.report.issues if issue.is_error], compilation.report.issues
    return folder, list(compilation.specs)


def test_every_kind_of_dag_of_the_example_is_covered(example: tuple[Path, list[DagSpec]]) -> None:
    kinds = {getattr(spec, "kind", None) for spec in example[1]}
    engines = {spec.engine for spec in example[1] if isinstance(spec, ProcessDagSpec)}
    assert {"process", "retention", "replication", "import", "export", "extension"} <= kinds
    assert {"spark", "oozie"} <= engines


def test_without_a_record_every_job_runs_as_the_acl_owner(example: tuple[Path, list[DagSpec]]) -> None:
    for spec in example[1]:
        if spec.kind == "sla":
            continue
        expected = "dr-team" if spec.kind == "extension" else OWNERS[spec.source.name]
        assert spec.run_as == expected, spec.dag_id
        assert [job.proxy_user for job in jobs_of(spec)] == [expected] * len(jobs_of(spec)), spec.dag_id


@pytest.mark.parametrize("recorded", ["etl", "alice", "svc.loader"])
def test_the_recorded_do_as_user_runs_every_job(example: tuple[Path, list[DagSpec]], recorded: str) -> None:
    folder, plain = example
    keys = {(spec.source.type, spec.source.name) for spec in plain}
    state = StoreState(proxy_users=dict.fromkeys(keys, recorded))
    specs = compile_workspace(Workspace.load([str(folder)]), entities_dir=folder, store_state=state).specs
    assert len(specs) == len(plain)
    for spec in specs:
        if spec.kind == "sla":
            continue
        assert spec.run_as == recorded and all(job.proxy_user == recorded for job in jobs_of(spec)), spec.dag_id


def _late_hive_workspace(folder: Path, *, acl: str | None, engine: str = "spark") -> Workspace:
    xml = process(inputs=(("a", "in", "now(0,0)", "now(0,0)"),), outputs=(("b", "out", "now(0,0)"),))
    xml = xml.replace("</spark-attributes>", '</spark-attributes><late-process policy="periodic" '
                      'delay="minutes(10)"><late-input input="a" workflow-path="/app/late.py"/></late-process>')
    if engine == "hive":
        xml = xml.replace('<workflow engine="spark" path="/app"/>', '<workflow engine="hive" path="/app/q.sql"/>')
    if acl is not None:
        xml = xml.replace("</process>", f'<ACL owner="{acl}" group="g" permission="*"/></process>')
    late_feed = feed("in").replace("<clusters>", '<late-arrival cut-off="hours(2)"/>\n  <clusters>', 1)
    return workspace(folder, cluster(), late_feed, feed("out", path="/out/${YEAR}${MONTH}${DAY}${HOUR}"), xml)


@pytest.mark.parametrize("engine", ["spark", "hive"])
@pytest.mark.parametrize("owner", ["ann", "bi-team", "svc_etl"])
def test_a_process_and_its_late_rerun_run_as_its_owner(tmp_path: Path, engine: str, owner: str) -> None:
    compilation = compile_workspace(_late_hive_workspace(tmp_path, acl=owner, engine=engine))
    (spec,) = [spec for spec in compilation.specs if isinstance(spec, ProcessDagSpec)]
    assert spec.engine == engine and spec.job is not None and spec.late is not None
    assert (spec.run_as, spec.job.proxy_user, spec.late.rerun.proxy_user) == (owner, owner, owner)


@pytest.mark.parametrize("owner", ["{{ conn.db.password }}", "hdfs --conf x=y", "bob's", "a b"])
def test_an_owner_that_is_no_user_name_is_refused(tmp_path: Path, owner: str) -> None:
    compilation = compile_workspace(_late_hive_workspace(tmp_path, acl=owner))
    assert not [spec for spec in compilation.specs if spec.source.type == "process"]
    (issue,) = [issue for issue in compilation.report.issues if issue.entity == "p"]
    assert issue.rule == "FA037" and "is not a user name" in issue.message
    assert issue.file is not None and issue.line is not None


@pytest.mark.parametrize("owner", ["{{ var.value.x }}", "x y"])
def test_an_extension_owner_that_is_no_user_name_is_refused(example: tuple[Path, list[DagSpec]], tmp_path: Path,
                                                            owner: str) -> None:
    folder = tmp_path / "entities"
    shutil.copytree(example[0], folder)
    (folder / "extensions" / "hdfs-mirroring" / "sales-dr.properties").write_text(MIRROR_JOB.format(owner=owner))
    compilation = compile_workspace(Workspace.load([str(folder)]), entities_dir=folder)
    assert not [spec for spec in compilation.specs if spec.kind == "extension"]
    assert [issue.rule for issue in compilation.report.issues if issue.entity == "sales-dr"] == ["FA100"]


def test_with_identity_sets_every_job_and_none_gives_the_deployment_its_own(tmp_path: Path) -> None:
    compilation = compile_workspace(_late_hive_workspace(tmp_path, acl="ann"))
    (spec,) = [spec for spec in compilation.specs if isinstance(spec, ProcessDagSpec)]
    again = with_identity(spec, "bob")
    assert isinstance(again, ProcessDagSpec) and again.job is not None and again.late is not None
    assert (again.run_as, again.job.proxy_user, again.late.rerun.proxy_user) == ("bob", "bob", "bob")
    cleared = with_identity(spec, None)
    assert isinstance(cleared, ProcessDagSpec) and cleared.job is not None
    assert (cleared.run_as, cleared.job.proxy_user) == (None, None)
