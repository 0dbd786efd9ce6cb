"""The spark-submit command our hook builds: the entity's master without a connection, and our default settings;
the connection lookup, where only a connection Airflow cannot find means the entity's master."""

from __future__ import annotations

from pathlib import Path

import pytest
from airflow.providers.apache.spark.hooks.spark_submit import SparkSubmitHook
from airflow.sdk.exceptions import AirflowSecretsBackendAccessDenied
from airflow.sdk.execution_time import supervisor

from falcon_airflow.jvm import JARS_ENV, JarCacheError
from falcon_airflow.provider.hooks.spark import SPARK_CONF_DEFAULTS, ConnectionLookupError, FalconSparkSubmitHook

COLUMNAR_INPUT = "spark.sql.execution.arrow.pythonUDF.columnarInput.enabled"


def command(**kwargs: object) -> list[str]:
    hook = FalconSparkSubmitHook(default_master="local[2]", conn_id="falcon_no_such_connection", **kwargs)
    return hook._build_spark_submit_command("job.py")


def confs(argv: list[str]) -> dict[str, str]:
    pairs = [argv[index + 1] for index, item in enumerate(argv) if item == "--conf"]
    return dict(pair.split("=", 1) for pair in pairs)


def test_every_job_turns_off_columnar_input_to_python_udfs() -> None:
    argv = command(conf={"spark.sql.shuffle.partitions": "4"})
    assert argv[argv.index("--master") + 1] == "local[2]"
    assert confs(argv) == {**SPARK_CONF_DEFAULTS, "spark.sql.shuffle.partitions": "4"}
    assert confs(argv)[COLUMNAR_INPUT] == "false"


def test_the_jobs_own_setting_wins() -> None:
    assert confs(command(conf={COLUMNAR_INPUT: "true"}))[COLUMNAR_INPUT] == "true"
    assert confs(command())[COLUMNAR_INPUT] == "false"


RESOLVED_KEYS = {"master", "queue", "deploy_mode", "spark_binary", "namespace", "principal", "keytab",
                 "rest_scheme", "rest_port", "rest_endpoint"}
"""What ``SparkSubmitHook._resolve_connection`` answers and the rest of the provider's hook reads: our override
answers the same keys when no connection exists. A provider release that changes them fails here."""


@pytest.mark.parametrize("connection", [None, '{"conn_type": "spark", "host": "spark://cluster", "port": 7077}'])
def test_the_entitys_settings_have_the_keys_of_the_providers(connection: str | None,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    if connection is None:
        monkeypatch.delenv("AIRFLOW_CONN_FALCON_SPARK", raising=False)
    else:
        monkeypatch.setenv("AIRFLOW_CONN_FALCON_SPARK", connection)
    provider = SparkSubmitHook(conn_id="falcon_spark")
    assert set(SparkSubmitHook._resolve_connection(provider)) == RESOLVED_KEYS
    ours = FalconSparkSubmitHook(default_master="local[2]", conn_id="falcon_spark")
    assert set(ours._connection) == RESOLVED_KEYS
    assert ours._connection["master"] == ("local[2]" if connection is None else "spark://cluster:7077")


class Backend:
    """A secrets backend that has no connection, or refuses to say."""

    def __init__(self, refuse: bool = False) -> None:
        self.refuse = refuse

    def get_connection(self, conn_id: str) -> None:
        if self.refuse:
            raise AirflowSecretsBackendAccessDenied(f"access to {conn_id} denied")
        return None


def test_a_connection_no_secrets_backend_has_means_the_entitys_master(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(supervisor, "ensure_secrets_backend_loaded", lambda: [Backend()])
    hook = FalconSparkSubmitHook(default_master="local[2]", conn_id="falcon_cluster")
    assert hook._connection["master"] == "local[2]"


def test_a_secrets_backend_that_refuses_is_an_error_not_a_missing_connection(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(supervisor, "ensure_secrets_backend_loaded", lambda: [Backend(refuse=True)])
    with pytest.raises(ConnectionLookupError, match=r"'falcon_cluster'.*AirflowSecretsBackendAccessDenied"):
        FalconSparkSubmitHook(default_master="local[2]", conn_id="falcon_cluster")


def test_secrets_backends_out_of_reach_are_an_error_not_a_missing_connection(monkeypatch: pytest.MonkeyPatch) -> None:
    def unreachable() -> list[object]:
        raise ConnectionError("vault.internal:8200: connection refused")

    monkeypatch.setattr(supervisor, "ensure_secrets_backend_loaded", unreachable)
    with pytest.raises(ConnectionLookupError, match=r"master 'local\[2\]'.*connection refused"):
        FalconSparkSubmitHook(default_master="local[2]", conn_id="falcon_cluster")


def _cache(tmp_path: Path) -> Path:
    folder = tmp_path / "jars" / "s3a"
    folder.mkdir(parents=True)
    for name in ("hadoop-aws-3.5.0.jar", "s3-2.35.4.jar"):
        (folder / name).write_bytes(b"PK")
    return tmp_path / "jars"


def test_a_job_on_s3a_gets_the_cached_jars(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(JARS_ENV, str(_cache(tmp_path)))
    argv = command(application_args=["--target-path", "s3a://bucket/out/2026"])
    jars = argv[argv.index("--jars") + 1].split(",")
    assert [Path(jar).name for jar in jars] == ["hadoop-aws-3.5.0.jar", "s3-2.35.4.jar"]
    assert "--jars" not in command(application_args=["--target-path", "hdfs://nn:8020/out"])


def test_an_s3a_setting_alone_asks_for_the_jars(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(JARS_ENV, str(_cache(tmp_path)))
    argv = command(conf={"spark.hadoop.fs.s3a.endpoint": "http://127.0.0.1:9000"}, jars="/opt/mine.jar")
    jars = argv[argv.index("--jars") + 1].split(",")
    assert jars[0] == "/opt/mine.jar" and len(jars) == 3


def test_a_deployment_with_its_own_hadoop_aws_gets_nothing_added(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(JARS_ENV, str(tmp_path / "empty"))
    args = ["s3a://bucket/in"]
    argv = command(application_args=args, conf={"spark.jars": "/image/jars/hadoop-aws-3.5.0.jar"})
    assert "--jars" not in argv
    argv = command(application_args=args, packages="org.apache.hadoop:hadoop-aws:3.5.0")
    assert "--jars" not in argv
    image = tmp_path / "spark"
    (image / "jars").mkdir(parents=True)
    (image / "jars" / "hadoop-aws-3.5.0.jar").write_bytes(b"PK")
    assert "--jars" not in command(application_args=args, env_vars={"SPARK_HOME": str(image)})


def test_an_empty_cache_says_how_to_fill_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(JARS_ENV, str(tmp_path / "empty"))
    with pytest.raises(JarCacheError, match="make jars"):
        command(application_args=["s3a://bucket/in"])


def yarn_cluster_operator() -> object:
    from falcon_airflow.provider.operators.spark import FalconSparkSubmitOperator

    return FalconSparkSubmitOperator(task_id="workflow", application="job.py", master="yarn", deploy_mode="cluster",
                                     conn_id="hadoop")


def test_yarn_cluster_mode_without_the_resourcemanagers_web_address_waits_for_the_application(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """No connection names the ResourceManager's web address: spark-submit waits for the application (the
    provider would refuse a durable task in YARN cluster mode)."""
    monkeypatch.delenv("AIRFLOW_CONN_HADOOP", raising=False)
    operator = yarn_cluster_operator()
    hook = operator._get_hook()  # type: ignore[attr-defined]
    assert hook._is_yarn_cluster_mode and not hook._yarn_track_via_rm_api
    assert operator.durable is False  # type: ignore[attr-defined]


def test_yarn_cluster_mode_with_the_resourcemanagers_web_address_follows_the_application_there(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AIRFLOW_CONN_HADOOP", '{"conn_type": "spark", "host": "yarn", "extra": {"deploy-mode": '
                                              '"cluster", "yarn_resourcemanager_webapp_address": "127.0.0.1:8088"}}')
    operator = yarn_cluster_operator()
    hook = operator._get_hook()  # type: ignore[attr-defined]
    assert hook._is_yarn_cluster_mode and hook._yarn_track_via_rm_api
    assert operator.durable is True  # type: ignore[attr-defined]
    assert hook._get_yarn_rm_base_url() == "http://127.0.0.1:8088"
