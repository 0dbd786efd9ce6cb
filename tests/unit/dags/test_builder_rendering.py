"""Entity text reaches Airflow's templated fields as data: every DAG compiled from entities whose paths, datasource,
``<spark-opts>``, properties, arguments, cluster properties and Oozie workflow hold Jinja comes out of Airflow's own
rendering with that text verbatim, and nothing in the template context (connections, variables) is reached."""

from __future__ import annotations

import json
import shlex
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any
from xml.sax.saxutils import escape

import pendulum
import pytest
from tests.builders import cluster

from falcon_airflow.dags.builder import build_dag
from falcon_airflow.dags.loader import load_specs
from falcon_airflow.provider import macros

LEAKED = "LEAKED-SECRET"

PAYLOADS = [
    "{{ conn.x.password }}",
    "{% for c in range(3) %}{{ c }}{% endfor %}",
    "{# gone #}",
    "{{ ''.__class__ }}",
    "{{ var.value.x }}",
    "it's {% raw %}{{ conn.x.password }}{% endraw %} \\ {",
]
"""Jinja an entity author could write: a connection's password, a loop, a comment, an attribute walk, a
variable, and quotes, a backslash, a raw block and a trailing open brace together."""

INSTANCE = pendulum.datetime(2026, 3, 1, 5, tz="UTC")


def in_path(payload: str) -> str:
    """The payload as a feed path may hold it: rule FA010 refuses a '#' and a '\\' in a location (a comment
    becomes an unknown statement, which would fail the rendering just as well)."""
    return payload.replace("#", "%").replace("\\", "")


def attribute(text: str) -> str:
    return escape(text, {'"': "&quot;"})


def cluster_of(name: str, storage: Path, payload: str | None) -> str:
    """The standard cluster with a working folder, its data in ``storage``; the payload in a Spark property."""
    return cluster(name, f"file://{storage}", colo=name, locations={"staging": "/staging", "working": "/working"},
                   properties={"spark.test.note": payload} if payload is not None else None)


def feed_xml(name: str, path: str, *, west: bool = False, transfer: str = "") -> str:
    target = ("""<cluster name="west" type="target"><validity start="2026-01-01T00:00Z" end="2099-01-01T00:00Z"/>
      <retention limit="days(2)" action="delete"/></cluster>""" if west else "")
    return f"""<feed name="{name}" xmlns="uri:falcon:feed:0.1">
  <availabilityFlag>_DONE</availabilityFlag>
  <frequency>hours(1)</frequency>
  <late-arrival cut-off="hours(2)"/>
  <clusters>
    <cluster name="east" type="source"><validity start="2026-01-01T00:00Z" end="2099-01-01T00:00Z"/>
      <retention limit="days(2)" action="delete"/>{transfer}</cluster>
    {target}
  </clusters>
  <locations><location type="data" path="{attribute(path)}"/></locations>
  <ACL owner="ops" group="users" permission="*"/>
  <schema location="/none" provider="csv"/>
</feed>"""


def process_xml(name: str, payload: str, *, engine: str, io: str) -> str:
    properties = f'<properties><property name="note" value="{attribute(payload)}"/></properties>'
    options = escape(shlex.join(["--conf", f"spark.test.opt={payload}"]))
    if engine == "spark":
        workflow = f"""<workflow engine="spark" path="apps"/>
  <spark-attributes><name>{escape(payload)}</name><jar>apps/job.py</jar><spark-opts>{options}</spark-opts>
    <arg>{escape(payload)}</arg></spark-attributes>
  <late-process policy="periodic" delay="hours(1)"><late-input input="input" workflow-path="apps/job.py"/>
  </late-process>"""
    elif engine == "hive":
        workflow = f"""<workflow engine="hive" path="apps/query.sql"/>
  <spark-attributes><name>{name}</name><jar>apps/query.sql</jar><spark-opts>{options}</spark-opts>
  </spark-attributes>"""
    else:
        workflow = '<workflow name="report" engine="oozie" path="apps/report"/>'
    return f"""<process name="{name}" xmlns="uri:falcon:process:0.1">
  <clusters><cluster name="east"><validity start="2026-01-01T00:00Z" end="2099-01-01T00:00Z"/></cluster></clusters>
  <parallel>1</parallel><order>FIFO</order><frequency>hours(1)</frequency>
  {io}
  {properties}
  {workflow}
  <ACL owner="analytics" group="users" permission="*"/>
</process>"""


def workflow_xml(payload: str) -> str:
    text = escape(payload)
    return f"""<workflow-app name="report" xmlns="uri:oozie:workflow:0.5">
  <global><job-tracker>${{jobTracker}}</job-tracker><name-node>${{nameNode}}</name-node>
    <configuration><property><name>oozie.note</name><value>{text}</value></property></configuration></global>
  <start to="report"/>
  <action name="report">
    <spark xmlns="uri:oozie:spark-action:0.2">
      <master>local[1]</master>
      <name>report</name>
      <jar>${{wf:appPath()}}/report.py</jar>
      <arg>{text}</arg>
    </spark>
    <ok to="end"/>
    <error to="fail"/>
  </action>
  <kill name="fail"><message>failed</message></kill>
  <end name="end"/>
</workflow-app>"""


def datasource_xml(url: str) -> str:
    return f"""<datasource name="shop" colo="east" type="postgres" xmlns="uri:falcon:datasource:0.1">
  <interfaces>
    <interface type="readonly" endpoint="{attribute(url)}"/>
    <interface type="write" endpoint="{attribute(url)}"/>
  </interfaces>
  <driver><clazz>org.postgresql.Driver</clazz><jar>/lib/driver.jar</jar></driver>
</datasource>"""


def transfer_xml(table: str) -> str:
    return f"""
      <import><source name="shop" tableName="{attribute(table)}">
        <extract type="full"><mergepolicy>snapshot</mergepolicy></extract></source></import>
      <export><target name="shop" tableName="{attribute(table)}"><load type="allowinsert"/></target></export>"""


@pytest.fixture(params=PAYLOADS, ids=["conn-password", "for-loop", "comment", "class-walk", "variable",
                                      "quotes-raw-brace"])
def payload(request: pytest.FixtureRequest) -> str:
    return str(request.param)


class Trap:
    """What a template evaluated in the worker would reach (``conn.x.password``, ``var.value.x``): rendering any
    of it puts LEAKED into the output."""

    def __getattr__(self, name: str) -> Trap:
        return Trap()

    def __getitem__(self, key: Any) -> Trap:
        return Trap()

    def __call__(self, *args: Any, **kwargs: Any) -> Trap:
        return Trap()

    def __str__(self) -> str:
        return LEAKED


def url_of(payload: str) -> str:
    return f"jdbc:postgresql://db.example:5433/shop?application_name={payload}"


@pytest.fixture
def dags(tmp_path: Path, payload: str) -> Iterator[dict[str, Any]]:
    """Every DAG of a workspace whose entity text carries the payload, each task rendered by Airflow."""
    folder = tmp_path / "entities"
    apps = folder / "apps"
    (apps / "report").mkdir(parents=True)
    (apps / "job.py").write_text("print('job')\n")
    (apps / "query.sql").write_text("SELECT '${note}'\n")
    (apps / "report" / "report.py").write_text("print('report')\n")
    (apps / "report" / "workflow.xml").write_text(workflow_xml(payload))
    documents = {
        "east": cluster_of("east", tmp_path / "east", payload),
        "west": cluster_of("west", tmp_path / "west", None),
        "logs": feed_xml("logs", f"/logs/{in_path(payload)}/${{YEAR}}/${{MONTH}}/${{DAY}}/${{HOUR}}", west=True),
        "counts": feed_xml("counts", f"/counts/${{YEAR}}/{in_path(payload)}/${{MONTH}}/${{DAY}}/${{HOUR}}"),
        "orders": feed_xml("orders", f"/orders/{in_path(payload)}/${{YEAR}}-${{MONTH}}-${{DAY}}-${{HOUR}}",
                           transfer=transfer_xml(f"sales.orders{payload}")),
        "shop": datasource_xml(url_of(payload)),
        "count": process_xml("count", payload, engine="spark", io=(
            '<inputs><input name="input" feed="logs" start="now(0,0)" end="now(0,0)"/></inputs>'
            '<outputs><output name="output" feed="counts" instance="now(0,0)"/></outputs>')),
        "summarise": process_xml("summarise", payload, engine="hive", io=(
            '<inputs><input name="input" feed="logs" start="now(0,0)" end="now(0,0)"/></inputs>')),
        "report": process_xml("report", payload, engine="oozie", io=(
            '<inputs><input name="counts" feed="counts" start="now(0,0)" end="now(0,0)"/></inputs>')),
    }
    for name, text in documents.items():
        (folder / f"{name}.xml").write_text(text, encoding="utf-8")
    specs, issues = load_specs(folder)
    assert not [issue for issue in issues if issue["level"] == "error"], issues
    built = {spec.dag_id: build_dag(spec) for spec in specs}
    for dag in built.values():
        for task in dag.tasks:
            task.render_template_fields(context(dag, task))
    yield built


def context(dag: Any, task: Any) -> dict[str, Any]:
    run = SimpleNamespace(dag_id=dag.dag_id, run_id="scheduled__2026-03-01T05:00:00+00:00",
                          data_interval_start=INSTANCE, logical_date=INSTANCE, run_after=INSTANCE, clear_number=0)
    return {"dag_run": run, "task": task, "ti": SimpleNamespace(task_id=task.task_id), "macros":
            SimpleNamespace(falcon=macros), "conn": Trap(), "var": Trap(), "params": {}, "ds": "2026-03-01"}


def rendered_strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from rendered_strings(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from rendered_strings(item)


def after(arguments: list[str], name: str) -> list[str]:
    return [arguments[index + 1] for index, item in enumerate(arguments) if item == name]


def test_nothing_of_the_template_context_is_reached(dags: dict[str, Any]) -> None:
    assert len(dags) == 10
    for dag in dags.values():
        assert dag.render_template_as_native_obj is False  # an escaped literal is text, never a Python value
        for task in dag.tasks:
            assert getattr(task, "render_template_as_native_obj", None) in (None, False)
            for field in task.template_fields:
                assert not [text for text in rendered_strings(getattr(task, field)) if LEAKED in text], \
                    (dag.dag_id, task.task_id, field)


def test_feed_paths_reach_every_job_verbatim(dags: dict[str, Any], payload: str, tmp_path: Path) -> None:
    east, payload = f"file://{tmp_path}/east", in_path(payload)
    retention = dags["falcon.feed.logs.retention.east"].get_task("retention").application_args
    assert after(retention, "--location") == [f"data={east}/logs/{payload}/${{YEAR}}/${{MONTH}}/${{DAY}}/${{HOUR}}"]
    replicate = dags["falcon.feed.logs.replication.east.west"].get_task("replicate").application_args
    assert after(replicate, "--source-path") == [f"{east}/logs/{payload}/2026/03/01/05"]
    workflow = dags["falcon.process.count.east"].get_task("workflow")
    assert f"{east}/logs/{payload}/2026/03/01/05" in workflow.application_args
    assert f"{east}/counts/2026/{payload}/03/01/05" in workflow.application_args
    assert workflow.conf["spark.falcon.output"] == f"{east}/counts/2026/{payload}/03/01/05"
    assert dags["falcon.process.count.east"].get_task("wait_for_input").markers == \
        f"{east}/logs/{payload}/2026/03/01/05/_DONE"
    imported = dags["falcon.feed.orders.import.east"].get_task("import").application_args
    assert after(imported, "--location") == [f"{east}/orders/{payload}/${{YEAR}}-${{MONTH}}-${{DAY}}-${{HOUR}}"]


def test_datasource_url_and_table_reach_the_transfer_jobs_verbatim(dags: dict[str, Any], payload: str) -> None:
    for dag_id, task_id in (("falcon.feed.orders.import.east", "import"), ("falcon.feed.orders.export.east",
                                                                          "export")):
        arguments = dags[dag_id].get_task(task_id).application_args
        assert after(arguments, "--url") == [url_of(payload)]
        assert after(arguments, "--table") == [f"sales.orders{payload}"]


def test_spark_opts_properties_arguments_and_cluster_properties_verbatim(dags: dict[str, Any],
                                                                         payload: str) -> None:
    dag = dags["falcon.process.count.east"]
    workflow, late = dag.get_task("workflow"), dag.get_task("late_data")
    for conf in (workflow.conf, late.rerun_job["conf"]):
        assert conf["spark.test.opt"] == payload  # <spark-opts> --conf
        assert conf["spark.test.note"] == payload  # a cluster property
        assert conf["spark.falcon.note"] == payload  # a process property, resolved by the macros
    assert workflow.application_args[-1] == payload  # a spark <arg>
    assert workflow.name == payload  # the spark <name>
    assert list(late.rerun_job["arguments"])[-1] == payload
    retention = dags["falcon.feed.counts.retention.east"].get_task("retention")
    assert retention.conf["spark.test.note"] == payload
    hive = dags["falcon.process.summarise.east"].get_task("workflow")
    assert f"note={payload}" in after(hive.application_args, "--var")
    assert hive.conf["spark.test.opt"] == payload


def test_oozie_workflow_arguments_and_configuration_verbatim(dags: dict[str, Any], payload: str) -> None:
    dag = dags["falcon.process.report.east"]
    action = dag.get_task("workflow.report")
    assert action.node["body"]["args"] == [payload]  # EL of the action, evaluated by the run, never by Jinja
    assert action.node["configuration"]["oozie.note"] == payload
    configuration = json.loads(action.falcon_conf)  # Falcon's workflow configuration, rendered for the run
    assert configuration["note"] == payload


RAW = "{{ conn.x.password }}"
OPERATOR_ATTRIBUTES = {"connection": "_conn_id", "master": "master", "deploy_mode": "falcon_deploy_mode",
                       "application": "application", "java_class": "_java_class", "name": "name", "conf": "conf",
                       "arguments": "application_args", "py_files": "py_files", "jars": "jars", "files": "files",
                       "packages": "packages", "driver_memory": "_driver_memory",
                       "executor_memory": "_executor_memory", "queue": "_yarn_queue", "proxy_user": "proxy_user",
                       "env": "env_vars", "lineage_events": "lineage_events"}
"""Where the DAG builder puts each text field of a SparkJob on the Spark task."""


def rendered(value: Any) -> bool:
    return LEAKED in "".join(rendered_strings(value))


def test_the_templated_fields_of_a_spark_job_are_exactly_those_its_tasks_render() -> None:
    """The compiler escapes entity text in the SparkJob fields SPARK_JOB_TEMPLATED names and leaves the others as
    they are, so that list must be what the Spark task and the late-data re-run render: a field rendered but not
    listed would evaluate entity text, a field listed but not rendered would keep its escaping."""
    from airflow.sdk import DAG

    from falcon_airflow.compiler.specs import SPARK_JOB_TEMPLATED, LateDataSpec, SparkJob
    from falcon_airflow.dags.builder import _late_data_task, _spark_task

    texts = {name: RAW for name, info in SparkJob.model_fields.items() if "str" in str(info.annotation)}
    job = SparkJob(**{**texts, "conf": {"k": RAW}, "env": {"K": RAW}, "arguments": (RAW,)})
    assert set(texts) | {"conf", "env", "arguments"} == set(OPERATOR_ATTRIBUTES)
    with DAG("fields", schedule=None, user_defined_macros={"falcon": {}}) as dag:
        spark = _spark_task("spark", job)
        late = _late_data_task(LateDataSpec(policy="final", delay_seconds=60, inputs=(), cut_off_seconds=(),
                                            rerun=job), [])
    for task in (spark, late):
        task.render_template_fields(context(dag, task))
    rerun = {**late.rerun_settings, **late.rerun_job}
    for field, attribute_name in OPERATOR_ATTRIBUTES.items():
        templated = field in SPARK_JOB_TEMPLATED
        assert rendered(getattr(spark, attribute_name)) == templated, field
        assert rendered(rerun[field]) == templated, field


def test_an_instance_end_names_the_spark_application_as_written(dags: dict[str, Any], payload: str) -> None:
    from falcon_airflow.provider.instance_end import instance_end

    spec = dags["falcon.process.count.east"].get_task("workflow").falcon_lineage
    run = SimpleNamespace(dag_id=spec.dag_id, run_id="r", data_interval_start=INSTANCE, start_date=None)
    ti = SimpleNamespace(try_number=1, start_date=INSTANCE, log_url="")
    end = instance_end(spec, {"dag_run": run, "ti": ti}, succeeded=False)
    assert end.workflow_name == payload


def test_extension_folders_and_cluster_properties_reach_the_mirror_job_verbatim(tmp_path: Path,
                                                                              payload: str) -> None:
    from falcon_airflow.compiler.extension import compile_extension
    from falcon_airflow.entities import Cluster
    from falcon_airflow.entities.extension import read_job
    from falcon_airflow.parsing import parse_bytes

    folder = in_path(payload)  # a properties file reads '\' as an escape, and rule FA010's reading applies
    job, issues = read_job("hdfs-mirroring", "\n".join([
        "jobName=mirror", "jobClusterName=west", "jobValidityStart=2026-01-01T00:00Z",
        "jobValidityEnd=2027-01-01T00:00Z", "jobFrequency=hours(1)", "sourceCluster=east",
        f"sourceDir=/data/{folder}/in", "targetCluster=west", f"targetDir=/mirror/{folder}"]), "mirror.properties")
    assert job is not None, issues
    clusters = {}
    for name, note in (("east", payload), ("west", None)):
        parsed = parse_bytes(cluster_of(name, tmp_path / name, note).encode(), f"{name}.xml").entity
        assert isinstance(parsed, Cluster)
        clusters[name] = parsed
    dag = build_dag(compile_extension(clusters, job))
    task = dag.get_task("mirror")
    task.render_template_fields(context(dag, task))
    assert after(task.application_args, "--source-dir") == [f"file://{tmp_path}/east/data/{folder}/in"]
    assert after(task.application_args, "--target-dir") == [f"file://{tmp_path}/west/mirror/{folder}"]
    assert task.conf["spark.test.note"] == payload
