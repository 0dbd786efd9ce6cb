"""Process DAG specs: Falcon's coordinator controls and the workflow's spark-submit (falcon-runtime.md §6.4)."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.builders import cluster, feed, process

from falcon_airflow.compiler import compile_workspace
from falcon_airflow.compiler.specs import ProcessDagSpec
from falcon_airflow.workspace import Workspace


def compiled(tmp_path: Path, process_xml: str, *extra: str) -> ProcessDagSpec:
    for index, text in enumerate((cluster(), feed("in"), feed("out", path="/out/${YEAR}${MONTH}${DAY}${HOUR}"),
                                  process_xml, *extra)):
        (tmp_path / f"e{index}.xml").write_text(text)
    compilation = compile_workspace(Workspace.load([str(tmp_path)]), entities_dir=tmp_path)
    assert compilation.report.valid, compilation.report.issues
    (spec,) = [item for item in compilation.specs if isinstance(item, ProcessDagSpec)]
    return spec


def with_process(**changes: str) -> str:
    xml = process(frequency="minutes(5)", start="2011-01-01T00:00Z", inputs=(("a", "in", "now(-1,0)", "now(0,0)"),),
                  outputs=(("b", "out", "now(0,0)"),))
    for old, new in changes.items():
        xml = xml.replace(old.replace("__", " "), new)
    return xml


def test_default_timeout_has_a_30_minute_floor_and_sets_the_throttle(tmp_path: Path) -> None:
    spec = compiled(tmp_path, with_process())
    assert spec.dag_id == "falcon.process.p.c1"
    assert spec.input_timeout_seconds == 30 * 60  # 6 x 5 minutes is below the floor
    assert spec.max_active_runs == 12  # throttle = timeout / frequency x 2


def test_explicit_timeout_parallel_order_retry(tmp_path: Path) -> None:
    spec = compiled(tmp_path, with_process(**{
        "<parallel>1</parallel>": "<parallel>3</parallel>", "<order>FIFO</order>": "<order>LAST_ONLY</order>",
        "<frequency>minutes(5)</frequency>": "<timeout>hours(2)</timeout><frequency>minutes(5)</frequency>",
        "</spark-attributes>": '</spark-attributes><retry policy="exp-backoff" delay="minutes(3)" attempts="4" '
                               'onTimeout="true"/>'}))
    assert spec.input_timeout_seconds == 7200 and spec.parallel == 3 and spec.order == "LAST_ONLY"
    assert spec.retry is not None and (spec.retry.policy, spec.retry.delay_seconds, spec.retry.attempts,
                                       spec.retry.on_timeout) == ("exp-backoff", 180, 4, True)


def test_workflow_arguments_follow_falcons_order(tmp_path: Path) -> None:
    spec = compiled(tmp_path, with_process(**{"<jar>/app/job.py</jar>": "<jar>/app/job.py</jar><arg>--mode</arg>"
                                                                          "<arg>${nominalTime}</arg>"}))
    wrapper = ("--falcon-script", "/srv/c1/app/job.py", "--falcon-lineage-out",
               "{{ macros.falcon.lineage_path(dag_run, task.task_id) }}", "--")  # the column-lineage driver's
    assert spec.job.arguments[:len(wrapper)] == wrapper
    assert spec.job.arguments[len(wrapper):] == (
        "{{ macros.falcon.data_in(falcon, 'a', dag_run) }}",
        "{{ macros.falcon.output_path(falcon.outputs['b'], dag_run) }}",
        "{{ macros.falcon.expand(falcon, '--mode', dag_run) }}",
        "{{ macros.falcon.expand(falcon, '${nominalTime}', dag_run) }}",
    )
    assert spec.job.conf["spark.falcon.nominalTime"] == "{{ macros.falcon.workflow_property(falcon, " \
                                                        "'nominalTime', dag_run) }}"
    assert spec.job.master == "local[2]"  # the cluster's spark interface


def test_table_inputs_and_outputs_pass_falcons_catalog_arguments_and_properties(tmp_path: Path) -> None:
    registry = '<interface type="registry" endpoint="thrift://127.0.0.1:9083" version="2.3"/>'
    documents = (cluster(interfaces=registry), feed("views", table="catalog:web:views#ds=${YEAR}${MONTH}${DAY}${HOUR}"),
                 feed("counts", table="catalog:web:counts#ds=${YEAR}${MONTH}${DAY}${HOUR};kind=hourly"),
                 process(inputs=(("v", "views", "now(0,0)", "now(0,0)"),), outputs=(("c", "counts", "now(0,0)"),)))
    for index, text in enumerate(documents):
        (tmp_path / f"e{index}.xml").write_text(text)
    compilation = compile_workspace(Workspace.load([str(tmp_path)]), entities_dir=tmp_path)
    assert compilation.report.valid, compilation.report.issues
    (spec,) = [item for item in compilation.specs if isinstance(item, ProcessDagSpec)]

    def prop(kind: str, name: str, key: str) -> str:
        return f"{{{{ macros.falcon.table_property(falcon.{kind}['{name}'], '{key}', dag_run) }}}}"

    assert spec.job.arguments[spec.job.arguments.index("--") + 1:] == (  # filter, table, database; then the output's
        "{{ macros.falcon.partition_filter(falcon.inputs['v'], dag_run) }}",
        "{{ macros.falcon.table_part(falcon.inputs['v'], 'table') }}",
        "{{ macros.falcon.table_part(falcon.inputs['v'], 'database') }}",
        prop("outputs", "c", "partitions_hive"), prop("outputs", "c", "table"), prop("outputs", "c", "database"))
    assert spec.job.conf["spark.falcon.falcon_c_dated_partition_value_ds"] == \
        prop("outputs", "c", "dated_partition_value_ds")
    assert "spark.falcon.falcon_c_dated_partition_value_kind" not in spec.job.conf  # a static key
    assert spec.job.conf["spark.falcon.falcon_v_partition_filter_pig"] == prop("inputs", "v", "partition_filter_pig")
    assert "spark.falcon.falcon_v_filter" not in spec.job.conf  # Falcon's Hive action alone names it so
    assert spec.job.conf["spark.hadoop.hive.metastore.uris"] == "thrift://127.0.0.1:9083"


@pytest.mark.parametrize(("master", "expected"), [
    ("<master>yarn-cluster</master>", ("yarn", "cluster")),
    ("<master>local[4]</master>", ("local[4]", None)),
])
def test_process_master_overrides_the_cluster(tmp_path: Path, master: str, expected: tuple[str, str | None]) -> None:
    spec = compiled(tmp_path, with_process(**{"<spark-attributes>": f"<spark-attributes>{master}"}))
    assert (spec.job.master, spec.job.deploy_mode) == expected


def test_application_relative_to_the_entities_folder(tmp_path: Path) -> None:
    (tmp_path / "apps").mkdir()
    (tmp_path / "apps" / "job.py").write_text("print('hello')\n")
    spec = compiled(tmp_path, with_process(**{"<jar>/app/job.py</jar>": "<jar>apps/job.py</jar>"}))
    # a Python application runs under the column-lineage driver, which is given the script's path
    assert spec.job.arguments[1] == str((tmp_path / "apps" / "job.py").resolve())


def test_owner_tags_catchup_and_hive(tmp_path: Path) -> None:
    spec = compiled(tmp_path, with_process(**{
        "<clusters>": '<tags>team=ads,tier=gold</tags><pipelines>billing,ads</pipelines><clusters>',
        "</spark-attributes>": '</spark-attributes><ACL owner="alice" group="g" permission="*"/>',
        '<workflow engine="spark" path="/app"/>': '<properties><property name="airflow.catchup" value="false"/>'
                                                  '</properties><workflow engine="hive" path="/app/q.hql"/>'}))
    assert spec.owner == "alice" and spec.schedule.catchup is False
    assert spec.tags == ("falcon", "process", "pipeline=billing", "pipeline=ads", "team=ads", "tier=gold")
    assert spec.engine == "hive" and spec.job.application.endswith("jobs/entry/hive_script.py")
    assert spec.job.arguments[:2] == ("--script", "file:///srv/c1/app/q.hql".removeprefix("file://"))
    assert "airflow.catchup" not in spec.properties


def test_the_workflow_lib_reaches_spark_submit(tmp_path: Path) -> None:
    import jinja2

    (tmp_path / "apps").mkdir()
    (tmp_path / "apps" / "helpers.zip").write_bytes(b"PK")
    lib = "/opt/lib/udfs.jar,apps/helpers.zip,/opt/lib/tools.py,/opt/native/libfast.so,/opt/jars/,/opt/{{ x }}.jar"
    spec = compiled(tmp_path, with_process(**{
        '<workflow engine="spark" path="/app"/>': f'<workflow engine="spark" path="/app" lib="{lib}"/>',
        "<jar>/app/job.py</jar>": "<jar>/app/job.py</jar><spark-opts>--jars /opt/given.jar</spark-opts>"}))

    def rendered(value: str | None) -> list[str]:
        assert value is not None
        return jinja2.Environment().from_string(value).render().split(",")

    # spark-opts first, then the lib's jars (on the cluster's storage, as a workflow path is found); a folder stands
    # for its jars; entity text stays text
    assert rendered(spec.job.jars) == ["/opt/given.jar", "/srv/c1/opt/lib/udfs.jar", "/srv/c1/opt/jars/*.jar",
                                       "/srv/c1/opt/{{ x }}.jar"]
    # the lineage driver's own files come first, then the lib's Python files and archives
    assert rendered(spec.job.py_files)[-2:] == [str((tmp_path / "apps" / "helpers.zip").resolve()),
                                                "/srv/c1/opt/lib/tools.py"]
    assert rendered(spec.job.files) == ["/srv/c1/opt/native/libfast.so"]
