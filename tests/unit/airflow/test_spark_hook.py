"""The spark-submit command our hook builds: the entity's master without a connection, and our default settings."""

from __future__ import annotations

from falcon_airflow.provider.hooks.spark import SPARK_CONF_DEFAULTS, FalconSparkSubmitHook

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
