"""Every Oozie action of a process runs as the process's identity: the actions on Spark get it as --proxy-user,
HDFS calls of the worker as WebHDFS doas, wf:user() names it; what the evaluated action would set instead is
refused, and so are local files outside the action's roots. The DAG gives every node task the identity and roots."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pendulum
import pytest

from falcon_airflow.provider.hooks.oozie import ActionFailed
from falcon_airflow.provider.operators.oozie_runtime import OozieFileSystem, WorkflowRun
from falcon_airflow.provider.operators.oozie_spark import _submission


def _run(tmp_path: Path, conf: dict[str, str] | None = None, roots: list[str] | None = None) -> WorkflowRun:
    ti = SimpleNamespace(xcom_pull=lambda **kwargs: None)
    moment = pendulum.datetime(2026, 3, 1, 5, tz="UTC")
    dag_run = SimpleNamespace(dag_id="falcon.process.p.c", run_id="r1", clear_number=0, logical_date=moment,
                              data_interval_start=moment, run_after=moment)
    levels = [{"name": "wf", "app_path": str(tmp_path / "app"), "parameters": {}, "required": []}]
    return WorkflowRun(context={"ti": ti, "dag_run": dag_run}, levels=levels, falcon_conf=conf or {},
                       node_tasks={}, user="ann", xcom_key="oozie",
                       filesystem=OozieFileSystem(run_as="ann", roots=roots or []))


def _operator(tmp_path: Path, body: dict[str, Any], configuration: dict[str, str] | None = None,
              run_as: str | None = "ann") -> Any:
    roots = [str(tmp_path / "app"), str(tmp_path / "data")]
    return SimpleNamespace(node={"name": "act", "configuration": configuration or {}, "body": body},
                           spark_defaults={"master": "local[1]", "deploy_mode": None, "connection": "c"},
                           run_as=run_as, action_roots=lambda: roots)


def _bodies(tmp_path: Path) -> dict[str, dict[str, Any]]:
    app, data = tmp_path / "app", tmp_path / "data"
    return {
        "spark": {"jar": f"{app}/job.py", "spark_opts": "--conf spark.ui.enabled=false", "args": ["x"],
                  "files": [f"{app}/lookup.csv"]},
        "hive": {"script": f"{app}/q.sql", "params": ["A=1"]},
        "java": {"main_class": "Main", "jars": [f"{app}/lib/main.jar"], "java_opts": ["-Xmx1g"], "args": []},
        "fs": {"operations": [{"op": "mkdir", "path": f"file://{data}/out"}], "name_node": None},
        "distcp": {"args": [f"file://{data}/a", f"file://{data}/b"]},
    }


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    for folder in ("app/lib", "data", "private"):
        (tmp_path / folder).mkdir(parents=True)
    return tmp_path


@pytest.mark.parametrize("action", ["spark", "hive", "java", "fs", "distcp"])
@pytest.mark.parametrize("identity", ["ann", "etl", None])
def test_every_action_on_spark_runs_as_the_process_identity(tree: Path, action: str, identity: str | None) -> None:
    body = _bodies(tree)[action]
    submit = _submission(_operator(tree, body, run_as=identity), action, body, _run(tree), str(tree / "r.json"))
    assert submit["proxy_user"] == identity
    assert not submit.get("principal") and not submit.get("keytab")


@pytest.mark.parametrize(("action", "change", "fragment"), [
    ("spark", {"spark_opts": "--proxy-user hdfs"}, "--proxy-user"),
    ("spark", {"spark_opts": "--principal hdfs --keytab /k"}, "--principal"),
    ("spark", {"spark_opts": "--conf spark.executorEnv.HADOOP_USER_NAME=hdfs"}, "HADOOP_USER_NAME"),
    ("spark", {"spark_opts": "${opts}"}, "--proxy-user"),  # known only once EL is evaluated
    ("java", {"java_opts": ["-DHADOOP_USER_NAME=hdfs"]}, "HADOOP_USER_NAME"),
    ("java", {"java_opts": ["${jvm}"]}, "user.name"),
])
def test_an_evaluated_action_that_chooses_its_identity_fails(tree: Path, action: str, change: dict[str, Any],
                                                            fragment: str) -> None:
    body = {**_bodies(tree)[action], **change}
    run = _run(tree, {"opts": "--driver-memory 1g --proxy-user hdfs", "jvm": "-Duser.name=hdfs"})
    with pytest.raises(ActionFailed, match=fragment) as failed:
        _submission(_operator(tree, body), action, body, run, str(tree / "r.json"))
    assert failed.value.code == "SPARK"


@pytest.mark.parametrize("configuration", [
    {"spark.yarn.principal": "hdfs"}, {"spark.kerberos.keytab": "/etc/hdfs.keytab"},
    {"spark.yarn.appMasterEnv.HADOOP_USER_NAME": "hdfs"}, {"spark.driver.extraJavaOptions": "${jvm}"}])
@pytest.mark.parametrize("action", ["spark", "hive", "fs"])
def test_a_configuration_that_chooses_the_identity_fails(tree: Path, configuration: dict[str, str],
                                                         action: str) -> None:
    body = _bodies(tree)[action]
    run = _run(tree, {"jvm": "-Djava.security.krb5.conf=/tmp/krb5.conf"})
    with pytest.raises(ActionFailed, match="-doAs user, else its ACL owner"):
        _submission(_operator(tree, body, configuration), action, body, run, str(tree / "r.json"))


@pytest.mark.parametrize(("action", "change"), [
    ("spark", {"jar": "/etc/passwd"}),
    ("spark", {"jar": "{app}/../private/job.py"}),
    ("spark", {"files": ["file://{app}/%2e%2e/private/secret.csv"]}),
    ("spark", {"files": ["{app}/ok.csv", "/root/.ssh/id_rsa#key"]}),
    ("hive", {"script": "file:///etc/shadow"}),
    ("hive", {"script": "{app}/linked.sql"}),  # a link leading out of the application
    ("fs", {"operations": [{"op": "delete", "path": "file:///opt/airflow/airflow.cfg"}]}),
    ("fs", {"operations": [{"op": "move", "path": "file://{data}/a", "target": "/etc/cron.d/x"}]}),
    ("distcp", {"args": ["file://{private}/a", "file://{data}/b"]}),
])
def test_local_files_outside_the_roots_fail_the_action(tree: Path, action: str, change: dict[str, Any]) -> None:
    (tree / "app" / "linked.sql").symlink_to(tree / "private" / "q.sql")
    places = {"app": tree / "app", "data": tree / "data", "private": tree / "private"}

    def filled(value: Any) -> Any:
        if isinstance(value, str):
            return value.format(**places)
        if isinstance(value, list):
            return [filled(item) for item in value]
        if isinstance(value, dict):
            return {key: filled(item) for key, item in value.items()}
        return value

    body = {**_bodies(tree)[action], **filled(change)}
    with pytest.raises(ActionFailed) as failed:
        _submission(_operator(tree, body), action, body, _run(tree), str(tree / "r.json"))
    assert failed.value.code == "FILE"


def test_remote_files_are_the_jobs_user_to_reach(tree: Path) -> None:
    body = {**_bodies(tree)["spark"], "jar": "hdfs://nn:8020/apps/job.py", "files": ["s3a://bucket/x.csv"]}
    submit = _submission(_operator(tree, body), "spark", body, _run(tree), str(tree / "r.json"))
    assert submit["application"] == "hdfs://nn:8020/apps/job.py"


def test_wf_user_and_user_name_are_the_identity_whatever_the_properties_say(tree: Path) -> None:
    run = _run(tree, {"user.name": "hdfs"})
    assert run.conf["user.name"] == "ann"
    assert run.evaluate("${wf:user()}") == "ann"


def test_prepare_judges_every_path_before_changing_anything(tree: Path) -> None:
    inside = tree / "data" / "old"
    inside.mkdir()
    filesystem = OozieFileSystem(run_as="ann", roots=[str(tree / "data")])
    with pytest.raises(ActionFailed, match="outside the folders"):
        filesystem.prepare([str(inside)], [str(tree / "private" / "made")])
    assert inside.is_dir() and not (tree / "private" / "made").exists()
    filesystem.prepare([str(inside)], [str(tree / "data" / "made")])
    assert not inside.exists() and (tree / "data" / "made").is_dir()


@pytest.mark.parametrize("path", ["/etc/passwd", "file:///etc/passwd", "{data}/../private"])
def test_fs_functions_see_only_the_roots_on_the_worker(tree: Path, path: str) -> None:
    from falcon_airflow.instances.storage import StorageError

    filesystem = OozieFileSystem(run_as="ann", roots=[str(tree / "data")])
    with pytest.raises(StorageError):
        filesystem.exists(path.format(data=tree / "data"))


def test_hdfs_calls_of_the_worker_act_as_the_identity() -> None:
    fs, where = OozieFileSystem(run_as="ann", roots=[])._fs("hdfs://nn.example:8020/data/x")
    assert fs.pars.get("doas") == "ann" and where == "/data/x"
