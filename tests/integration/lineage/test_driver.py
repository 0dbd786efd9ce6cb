"""The lineage driver: an unchanged PySpark script under ``spark-submit lineage_driver.py``, and in process.

The ``spark-submit`` runs start a real driver JVM per test (the venv's ``spark-submit``, SPARK_HOME = pyspark's
folder); their inputs are CSV files written with plain Python. ``spark-submit`` sends the Python driver's stderr
to its stdout, so tracebacks and warnings are looked for there. Every events file must pass
``validate-openlineage --strict-runs``.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import textwrap
import uuid
from pathlib import Path
from typing import Any

import pytest

from falcon_airflow.compiler.common import job_file, job_py_files
from falcon_airflow.jobs import lineage_driver
from falcon_airflow.provider.hooks.archives import ship_packages

SPARK_SUBMIT = Path(sys.executable).parent / "spark-submit"
VALIDATOR = Path(__file__).resolve().parents[3].parent / "shared" / "tools" / "validate-openlineage"
PARENT_RUN = "01890a5d-ac97-7b4e-9a2e-0d5f4b7c9e10"
ROOT_RUN = "01890a5d-ac97-7b4e-9a2e-0d5f4b7c9e11"
PARENT_CONF = {
    "spark.openlineage.parentJobNamespace": "falcon-airflow",
    "spark.openlineage.parentJobName": "falcon.process.clicks.local.workflow",
    "spark.openlineage.parentRunId": PARENT_RUN,
    "spark.openlineage.rootParentJobNamespace": "falcon-airflow",
    "spark.openlineage.rootParentJobName": "falcon.process.clicks.local",
    "spark.openlineage.rootParentRunId": ROOT_RUN,
}

USER_SCRIPT = """
    import sys

    from pyspark.sql import SparkSession, functions as F

    spark = SparkSession.builder.appName("clicks-by-user").getOrCreate()
    source, target = sys.argv[1], sys.argv[2]
    clicks = spark.read.option("header", True).csv(source + "/clicks.csv")
    users = spark.read.option("header", True).csv(source + "/users.csv")
    out = (clicks.join(users, "user_id").where(F.col("country") == "NO")
           .groupBy("user_id", "name")
           .agg(F.count("url").alias("clicks"), F.sha2(F.max("url"), 256).alias("last_url_hash")))
    out.write.mode("overwrite").parquet(target)
    out.write.mode("overwrite").saveAsTable("clicks_by_user")
    print("rows written:", spark.read.parquet(target).count())
    spark.stop()
"""

FAILING_SCRIPT = """
    import sys

    from pyspark.sql import SparkSession

    spark = SparkSession.builder.appName("fails-after-a-write").getOrCreate()
    spark.read.option("header", True).csv(sys.argv[1] + "/users.csv").select("name").write.mode("overwrite").parquet(
        sys.argv[2])
    raise RuntimeError("boom after the first write")
"""

BROKEN_WALKER_SCRIPT = """
    import sys

    from pyspark.sql import SparkSession

    def broken(*args, **kwargs):
        raise RuntimeError("the plan walker exploded")

    sys.modules["falcon_airflow.jobs.lineage_driver"].column_lineage = broken

    spark = SparkSession.builder.appName("walker-broken").getOrCreate()
    users = spark.read.option("header", True).csv(sys.argv[1] + "/users.csv")
    users.select("name", "country").write.mode("overwrite").parquet(sys.argv[2])
    print("written despite the walker")
"""


def write_inputs(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "clicks.csv").write_text("user_id,url,ts\n" + "".join(
        f"{n % 5},https://example.org/p{n},2026-03-01T05:{n:02d}\n" for n in range(30)), encoding="utf-8")
    (folder / "users.csv").write_text("user_id,name,country\n0,ann,NO\n1,bob,SE\n2,cid,NO\n3,dag,NO\n4,eva,DK\n",
                                      encoding="utf-8")
    return folder


def spark_home() -> str:
    import pyspark

    return str(Path(pyspark.__file__).resolve().parent)


def submit(tmp_path: Path, script: str, *args: str, conf: dict[str, str] | None = None,
           out: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``spark-submit`` the driver with ``script`` (dedented into tmp_path) and ``args``."""
    user_script = tmp_path / "user_script.py"
    user_script.write_text(textwrap.dedent(script), encoding="utf-8")
    command = [str(SPARK_SUBMIT), "--master", "local[2]", "--driver-memory", "1g",
               "--conf", "spark.ui.enabled=false", "--conf", "spark.ui.showConsoleProgress=false",
               "--conf", f"spark.pyspark.python={sys.executable}", "--conf", "spark.sql.shuffle.partitions=2"]
    for key, value in (conf or {}).items():
        command += ["--conf", f"{key}={value}"]
    command += ["--py-files", ship_packages(job_py_files()), job_file("lineage_driver.py"),
                "--falcon-script", str(user_script)]
    if out is not None:
        command += ["--falcon-lineage-out", str(out)]
    command += ["--", *args]
    env = {**os.environ, "SPARK_HOME": spark_home(), "PYSPARK_PYTHON": sys.executable,
           "PYSPARK_DRIVER_PYTHON": sys.executable, "SPARK_LOCAL_IP": "127.0.0.1"}
    return subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300, check=False)


def events_of(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def validate(path: Path) -> None:
    if not VALIDATOR.is_file():
        pytest.skip("../shared/tools/validate-openlineage is not beside the repository")
    done = subprocess.run([sys.executable, str(VALIDATOR), "--strict-runs", str(path)], capture_output=True,
                          text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


def edges(facet: dict[str, Any]) -> set[str]:
    return {f"{name}<-{Path(item['name']).name}.{item['field']}:{t['subtype']}{'*' if t.get('masking') else ''}"
            for name, spec in facet["fields"].items() for item in spec["inputFields"] for t in item["transformations"]}


def dataset_edges(facet: dict[str, Any]) -> set[str]:
    return {f"{Path(item['name']).name}.{item['field']}:{t['subtype']}"
            for item in facet["dataset"] for t in item["transformations"]}


# ------------------------------------------------------------------------------------------------------------
# spark-submit


@pytest.mark.xdist_group("spark-lineage")
def test_unchanged_script_gets_column_lineage(tmp_path: Path) -> None:
    inputs = write_inputs(tmp_path / "in")
    target = tmp_path / "out" / "clicks-by-user"
    events_file, transport_file = tmp_path / "lineage" / "events.jsonl", tmp_path / "transport.jsonl"
    conf = {**PARENT_CONF, "spark.openlineage.transport.type": "file",
            "spark.openlineage.transport.location": str(transport_file)}
    done = submit(tmp_path, USER_SCRIPT, str(inputs), str(target) + "/", conf=conf, out=events_file)
    assert done.returncode == 0, done.stderr[-4000:]
    assert "rows written: 3" in done.stdout

    events = events_of(events_file)
    assert [event["eventType"] for event in events] == ["START", "COMPLETE"]
    assert len({event["run"]["runId"] for event in events}) == 1
    assert uuid.UUID(events[0]["run"]["runId"]).version == 7
    complete = events[1]
    parent = complete["run"]["facets"]["parent"]
    assert parent["run"] == {"runId": PARENT_RUN}
    assert parent["job"] == {"namespace": "falcon-airflow", "name": "falcon.process.clicks.local.workflow"}
    assert parent["root"] == {"run": {"runId": ROOT_RUN},
                              "job": {"namespace": "falcon-airflow", "name": "falcon.process.clicks.local"}}
    assert complete["job"]["name"] == "falcon.process.clicks.local.workflow.spark"
    assert complete["job"]["namespace"] == "falcon-airflow"
    assert complete["run"]["facets"]["processing_engine"]["name"] == "spark"

    assert {(item["namespace"], item["name"]) for item in complete["inputs"]} == {
        ("file", str(inputs / "clicks.csv")), ("file", str(inputs / "users.csv"))}
    outputs = {(item["namespace"], item["name"]): item for item in complete["outputs"]}
    assert set(outputs) == {("file", str(target)), ("hive://default", "default.clicks_by_user")}
    for output in outputs.values():
        facets = output["facets"]
        assert [field["name"] for field in facets["schema"]["fields"]] == ["user_id", "name", "clicks",
                                                                           "last_url_hash"]
        cll = facets["columnLineage"]
        assert edges(cll) == {"user_id<-clicks.csv.user_id:IDENTITY", "name<-users.csv.name:IDENTITY",
                              "clicks<-clicks.csv.url:AGGREGATION*", "last_url_hash<-clicks.csv.url:AGGREGATION*"}
        assert dataset_edges(cll) == {"clicks.csv.user_id:JOIN", "users.csv.user_id:JOIN",
                                      "users.csv.country:FILTER", "clicks.csv.user_id:GROUP_BY",
                                      "users.csv.name:GROUP_BY"}
    validate(events_file)
    transported = events_of(transport_file)
    assert [event["eventType"] for event in transported] == ["START", "COMPLETE"]
    assert transported[1]["outputs"] == complete["outputs"]


@pytest.mark.xdist_group("spark-lineage")
def test_a_failing_script_gives_a_fail_event_and_keeps_its_status(tmp_path: Path) -> None:
    inputs = write_inputs(tmp_path / "in")
    events_file = tmp_path / "events.jsonl"
    done = submit(tmp_path, FAILING_SCRIPT, str(inputs), str(tmp_path / "names"),
                  conf={"spark.falcon.lineageOut": str(events_file)})
    assert done.returncode != 0
    assert "RuntimeError: boom after the first write" in done.stdout  # spark-submit merges Python's stderr
    events = events_of(events_file)
    assert [event["eventType"] for event in events] == ["START", "FAIL"]
    error = events[1]["run"]["facets"]["errorMessage"]
    assert "boom after the first write" in error["message"] and error["programmingLanguage"] == "python"
    assert "RuntimeError" in error["stackTrace"]
    assert "parent" not in events[1]["run"]["facets"]
    assert events[1]["job"]["name"] == "fails-after-a-write"
    (output,) = events[1]["outputs"]
    assert output["name"] == str(tmp_path / "names")
    assert edges(output["facets"]["columnLineage"]) == {"name<-users.csv.name:IDENTITY"}
    validate(events_file)


@pytest.mark.xdist_group("spark-lineage")
def test_a_broken_walker_never_fails_the_job(tmp_path: Path) -> None:
    inputs = write_inputs(tmp_path / "in")
    events_file = tmp_path / "events.jsonl"
    done = submit(tmp_path, BROKEN_WALKER_SCRIPT, str(inputs), str(tmp_path / "people"), out=events_file)
    assert done.returncode == 0, done.stderr[-4000:]
    assert "written despite the walker" in done.stdout
    assert "column lineage" in done.stdout and "the plan walker exploded" in done.stdout
    events = events_of(events_file)
    assert [event["eventType"] for event in events] == ["START", "COMPLETE"]
    (output,) = events[1]["outputs"]
    assert output["name"] == str(tmp_path / "people")
    assert "columnLineage" not in output["facets"]
    assert [field["name"] for field in output["facets"]["schema"]["fields"]] == ["name", "country"]
    validate(events_file)


# ------------------------------------------------------------------------------------------------------------
# In process (the shared session)

WRITER_SCRIPT = """
    import sys

    from pyspark.sql import SparkSession, functions as F

    spark = SparkSession.builder.getOrCreate()
    root = sys.argv[1]
    t1 = spark.read.parquet(sys.argv[2])
    narrow = t1.select("a", F.upper("d").alias("d"))
    narrow.write.mode("overwrite").parquet(root + "/parquet")
    narrow.write.mode("overwrite").csv(root + "/csv/")
    narrow.write.mode("overwrite").json("file://" + root + "/json")
    narrow.write.mode("overwrite").orc(path=root + "/orc")
    narrow.select("d").write.mode("overwrite").text(root + "/text")
    narrow.write.mode("overwrite").format("parquet").save(root + "/./saved")
    narrow.write.mode("overwrite").saveAsTable("driver_written")
    spark.sql("CREATE TABLE IF NOT EXISTS driver_target (k INT, label STRING) USING parquet")
    narrow.write.insertInto("driver_target", overwrite=True)
    narrow.write.mode("append").parquet(root + "/parquet")
"""


@pytest.fixture
def t1_path(spark: Any, tables: Any) -> str:
    return str(tables.paths["t1"])


def run_script(tmp_path: Path, script: str, *args: str) -> list[dict[str, Any]]:
    path = tmp_path / "script.py"
    path.write_text(textwrap.dedent(script), encoding="utf-8")
    out = tmp_path / "events.jsonl"
    try:
        lineage_driver.run(str(path), list(args), str(out))
    finally:
        assert not any(getattr(getattr(_writer(), name), "__falcon_lineage_hook__", False)
                       for name in lineage_driver.WRITER_METHODS), "hooks left installed"
    return events_of(out)


def _writer() -> Any:
    from pyspark.sql.readwriter import DataFrameWriter

    return DataFrameWriter


@pytest.mark.xdist_group("spark-lineage")
def test_every_writer_method_is_recorded(spark: Any, tmp_path: Path, t1_path: str) -> None:
    root = tmp_path / "written"
    try:
        events = run_script(tmp_path, WRITER_SCRIPT, str(root), t1_path)
    finally:
        spark.sql("DROP TABLE IF EXISTS driver_written")
        spark.sql("DROP TABLE IF EXISTS driver_target")
    assert [event["eventType"] for event in events] == ["START", "COMPLETE"]
    outputs = {(item["namespace"], item["name"]): item["facets"] for item in events[1]["outputs"]}
    expected_files = {("file", str(root / kind)) for kind in ("parquet", "csv", "json", "orc", "text", "saved")}
    assert set(outputs) == expected_files | {("hive://default", "default.driver_written"),
                                             ("hive://default", "default.driver_target")}
    assert edges(outputs[("file", str(root / "parquet"))]["columnLineage"]) == {
        "a<-t1.a:IDENTITY", "d<-t1.d:TRANSFORMATION"}
    assert edges(outputs[("file", str(root / "text"))]["columnLineage"]) == {"d<-t1.d:TRANSFORMATION"}
    inserted = outputs[("hive://default", "default.driver_target")]  # insertInto is by position
    assert edges(inserted["columnLineage"]) == {"k<-t1.a:IDENTITY", "label<-t1.d:TRANSFORMATION"}
    assert [field["name"] for field in inserted["schema"]["fields"]] == ["k", "label"]
    assert [item["name"] for item in events[1]["inputs"]] == [t1_path]
    assert events[1]["job"]["name"] == spark.sparkContext.appName  # the session may be shared with other suites
    assert "parent" not in events[1]["run"]["facets"]
    validate(tmp_path / "events.jsonl")


@pytest.mark.xdist_group("spark-lineage")
@pytest.mark.parametrize(("code", "status"), [(0, "COMPLETE"), (3, "FAIL")])
def test_exit_status_of_the_script(spark: Any, tmp_path: Path, t1_path: str, code: int, status: str) -> None:
    script = f"""
        import sys
        from pyspark.sql import SparkSession
        SparkSession.builder.getOrCreate().read.parquet(sys.argv[1]).write.mode("overwrite").parquet(sys.argv[2])
        sys.exit({code})
    """
    out = tmp_path / "out"
    if code:
        with pytest.raises(SystemExit) as exited:
            run_script(tmp_path, script, t1_path, str(out))
        assert exited.value.code == code
    else:
        run_script(tmp_path, script, t1_path, str(out))
    events = events_of(tmp_path / "events.jsonl")
    assert [event["eventType"] for event in events] == ["START", status]
    if code:
        assert events[1]["run"]["facets"]["errorMessage"]["message"] == f"the script exited with status {code}"
    assert events[1]["outputs"][0]["name"] == str(out)


@pytest.mark.xdist_group("spark-lineage")
def test_walker_failure_in_process_is_only_a_warning(spark: Any, tmp_path: Path, t1_path: str,
                                                     monkeypatch: pytest.MonkeyPatch,
                                                     caplog: pytest.LogCaptureFixture) -> None:
    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("walker down")

    monkeypatch.setattr(lineage_driver, "column_lineage", broken)
    script = """
        import sys
        from pyspark.sql import SparkSession
        SparkSession.builder.getOrCreate().read.parquet(sys.argv[1]).select("a").write.mode("overwrite").parquet(
            sys.argv[2])
    """
    with caplog.at_level(logging.WARNING, logger="falcon_airflow.lineage_driver"):
        events = run_script(tmp_path, script, t1_path, str(tmp_path / "a-only"))
    assert any("walker down" in record.getMessage() for record in caplog.records)
    assert [event["eventType"] for event in events] == ["START", "COMPLETE"]
    (output,) = events[1]["outputs"]
    assert set(output["facets"]) == {"schema"}
    assert spark.read.parquet(str(tmp_path / "a-only")).count() == 12


@pytest.mark.xdist_group("spark-lineage")
def test_explicit_record_write_and_emit(spark: Any, tmp_path: Path, t1_path: str) -> None:
    lineage_driver.reset()
    df = spark.read.parquet(t1_path).where("b > 1").select("a", "e")
    recorded = lineage_driver.record_write(df, "catalog:falcon_db:clicks#ds=2026-03-01")
    assert recorded is not None and (recorded["namespace"], recorded["name"]) == ("hive://default",
                                                                                  "falcon_db.clicks")
    assert lineage_driver.record_write(df, str(tmp_path / "x" / ".." / "plain//")) is not None
    out = tmp_path / "explicit.jsonl"
    events = lineage_driver.emit(out=str(out))
    assert [event["eventType"] for event in events] == ["START", "COMPLETE"]
    assert {item["name"] for item in events[1]["outputs"]} == {"falcon_db.clicks", str(tmp_path / "plain")}
    assert lineage_driver.emit(out=str(out)) == []  # once per run
    assert len(events_of(out)) == 2
    validate(out)


# ------------------------------------------------------------------------------------------------------------
# Without Spark


def test_command_line_split() -> None:
    options, user = lineage_driver.parse_arguments(
        ["--falcon-script", "job.py", "--falcon-lineage-out", "/tmp/e.jsonl", "--", "--input", "a", "--", "b"])
    assert (options.falcon_script, options.falcon_lineage_out, user) == ("job.py", "/tmp/e.jsonl",
                                                                         ["--input", "a", "--", "b"])
    options, user = lineage_driver.parse_arguments(["--falcon-script=job.py", "x"])
    assert (options.falcon_script, options.falcon_lineage_out, user) == ("job.py", None, ["x"])


def test_transport_config_from_spark_conf() -> None:
    conf = {"spark.openlineage.transport.type": "http", "spark.openlineage.transport.url": "http://ol:5000",
            "spark.openlineage.transport.endpoint": "api/v1/lineage",
            "spark.openlineage.transport.timeoutInMillis": "2500",
            "spark.openlineage.transport.auth.type": "api_key", "spark.openlineage.transport.auth.apiKey": "k",
            "spark.openlineage.transport.headers.X-Team": "data", "spark.openlineage.parentRunId": PARENT_RUN}
    assert lineage_driver.transport_config(conf) == {
        "type": "http", "url": "http://ol:5000", "endpoint": "api/v1/lineage", "timeout": 2.5,
        "auth": {"type": "api_key", "apiKey": "k"}, "custom_headers": {"X-Team": "data"}}
    assert lineage_driver.transport_config({"spark.app.name": "x"}) is None


def test_run_ids_are_uuid7() -> None:
    ids = [lineage_driver.uuid7() for _ in range(50)]
    assert all(uuid.UUID(value).version == 7 and uuid.UUID(value).variant == uuid.RFC_4122 for value in ids)
    assert len(set(ids)) == 50 and ids[0][:8] <= ids[-1][:8]


def test_events_without_spark_are_valid(tmp_path: Path) -> None:
    recorder = lineage_driver.Recorder(conf=dict(PARENT_CONF), script="/jobs/count.py")
    events = recorder.events("FAIL", RuntimeError("nope"))
    assert [event["eventType"] for event in events] == ["START", "FAIL"]
    assert events[0]["run"]["facets"]["parent"]["root"]["run"]["runId"] == ROOT_RUN
    assert "errorMessage" not in events[0]["run"]["facets"]
    path = tmp_path / "e.jsonl"
    lineage_driver.write_events(str(path), events)
    validate(path)
    bad_parent = lineage_driver.Recorder(conf={**PARENT_CONF, "spark.openlineage.parentRunId": "not-a-uuid"})
    assert "parent" not in bad_parent.run_facets(None)
    assert lineage_driver.Recorder(script="/jobs/count.py").job_name() == "count"
