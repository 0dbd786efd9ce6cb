"""The built DAGs carry each entity's identity to every task that runs a job: Spark tasks as proxy_user (the
process workflow, its late re-run, retention, replication, import, export, mirroring), Oozie node tasks as run_as
with the folders their actions may use; an entity with neither a -doAs user nor an owner gets the deployment's
[falcon] default_job_user."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from tests.builders import cluster, feed, process, workspace

from falcon_airflow.compiler import StoreState, compile_workspace
from falcon_airflow.compiler.specs import DagSpec
from falcon_airflow.dags.builder import DeploymentSettings, build_dag
from falcon_airflow.provider.operators.late_data import LateDataOperator
from falcon_airflow.provider.operators.oozie import OozieNodeOperator
from falcon_airflow.provider.operators.spark import FalconSparkSubmitOperator
from falcon_airflow.workspace import Workspace

REPOSITORY = Path(__file__).resolve().parents[3]


def settings(default_job_user: str | None = None) -> DeploymentSettings:
    return DeploymentSettings(group_roles=False, keep_instances_beyond_validity=True, max_active_tasks=16,
                              max_consecutive_failed_dag_runs=0, disable_bundle_versioning=False,
                              default_job_user=default_job_user)


def job_users(spec: DagSpec, deployment: DeploymentSettings) -> list[str | None]:
    """Who each job-running task of the built DAG runs as."""
    dag = build_dag(spec, deployment)
    users: list[str | None] = []
    for task in dag.tasks:
        if isinstance(task, FalconSparkSubmitOperator):
            users.append(task.proxy_user)
        elif isinstance(task, LateDataOperator):
            users.append(task.rerun_job.get("proxy_user"))
        elif isinstance(task, OozieNodeOperator):
            users.append(task.run_as)
    return users


@pytest.fixture(scope="module")
def example(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[DagSpec]]:
    folder = tmp_path_factory.mktemp("example") / "entities"
    shutil.copytree(REPOSITORY / "entities", folder)
    keys = [("process", "report-clicks"), ("feed", "orders")]
    compilation = compile_workspace(Workspace.load([str(folder)]), entities_dir=folder,
                                    store_state=StoreState(proxy_users={keys[0]: "etl"}))
    assert not [issue for issue in compilation.report.issues if issue.is_error], compilation.report.issues
    return folder, list(compilation.specs)


def test_every_job_task_of_the_example_runs_as_its_entity(example: tuple[Path, list[DagSpec]]) -> None:
    seen = 0
    for spec in example[1]:
        if spec.kind == "sla":
            continue
        expected = "etl" if spec.source.name == "report-clicks" else {"count-clicks": "analytics"}.get(
            spec.source.name, "falcon")
        users = job_users(spec, settings())
        assert users and set(users) == {expected}, spec.dag_id
        seen += len(users)
    assert seen >= 10


def test_oozie_node_tasks_get_the_folders_their_actions_may_use(example: tuple[Path, list[DagSpec]]) -> None:
    (spec,) = [spec for spec in example[1] if spec.kind == "process" and spec.source.name == "report-clicks"]
    dag = build_dag(spec, settings())
    nodes = [task for task in dag.tasks if isinstance(task, OozieNodeOperator)]
    assert nodes
    app = str(example[0] / "apps" / "report-clicks")
    for task in nodes:
        assert any(root.removeprefix("file://").rstrip("/") == app for root in task.file_roots), task.file_roots
        assert any("click-reports" in root for root in task.file_roots)  # the process's own output feed
        assert task.run_as == "etl" and task.user == "etl"


@pytest.mark.parametrize(("configured", "expected"), [("nobody", "nobody"), ("svc-falcon", "svc-falcon"),
                                                      (None, None)])
def test_an_entity_without_owner_or_record_gets_the_deployments_default(tmp_path: Path, configured: str | None,
                                                                       expected: str | None) -> None:
    late_feed = feed("in").replace("<clusters>", '<late-arrival cut-off="hours(2)"/>\n  <clusters>', 1)
    xml = process(inputs=(("a", "in", "now(0,0)", "now(0,0)"),), outputs=(("b", "out", "now(0,0)"),))
    xml = xml.replace("</spark-attributes>", '</spark-attributes><late-process policy="periodic" '
                      'delay="minutes(10)"><late-input input="a" workflow-path="/app/late.py"/></late-process>')
    compiled = compile_workspace(workspace(tmp_path, cluster(), late_feed, feed("out", path="/o/${YEAR}${HOUR}"), xml))
    (spec,) = [spec for spec in compiled.specs if spec.source.type == "process"]
    assert spec.run_as is None
    assert set(job_users(spec, settings(configured))) == {expected}
    owned = [spec for spec in compiled.specs if spec.source.type == "feed" and spec.kind != "sla"]
    assert owned and all(set(job_users(item, settings(configured))) == {"o"} for item in owned)  # its owner wins


def test_spark_submit_is_called_with_the_identity(example: tuple[Path, list[DagSpec]]) -> None:
    (spec,) = [spec for spec in example[1] if spec.kind == "process" and spec.source.name == "count-clicks"]
    task = build_dag(spec, settings()).get_task("workflow")
    assert isinstance(task, FalconSparkSubmitOperator)
    command = task._build_hook()._build_spark_submit_command("app.py")
    assert command[command.index("--proxy-user") + 1] == "analytics"
    assert "--principal" not in command and "--keytab" not in command


@pytest.mark.parametrize("arguments", [
    {"principal": "hdfs@EXAMPLE.COM"},
    {"keytab": "/etc/security/keytabs/hdfs.keytab"},
    {"conf": {"spark.kerberos.principal": "hdfs"}},
    {"conf": {"spark.yarn.appMasterEnv.HADOOP_USER_NAME": "hdfs"}},
    {"conf": {"spark.driver.extraJavaOptions": "-Duser.name=hdfs"}},
    {"env_vars": {"HADOOP_USER_NAME": "hdfs"}},
    {"env_vars": {"KRB5CCNAME": "/tmp/krb5cc_0"}},
    {"env_vars": {"HADOOP_OPTS": "-DHADOOP_USER_NAME=hdfs"}},
])
def test_the_spark_hook_refuses_an_identity_whatever_built_the_task(arguments: dict[str, object]) -> None:
    from falcon_airflow.provider.hooks.spark import FalconSparkSubmitHook

    with pytest.raises(ValueError, match="refusing to submit the Spark job"):
        FalconSparkSubmitHook(default_master="local[1]", conn_id="none", proxy_user="ann", **arguments)
    FalconSparkSubmitHook(default_master="local[1]", conn_id="none", proxy_user="ann",
                          conf={"spark.ui.enabled": "false"}, env_vars={"PYTHONHASHSEED": "0"})
