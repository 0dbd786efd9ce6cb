"""Plain Python DAG files describing the same DAGs as compiled specs: what a team writing its DAGs by hand (or a
generator of DAG files) would have, for the benchmarks that compare our loader with them.

Each DAG is written as literal Python with the operators, tasks, dependencies and arguments our builder
(``falcon_airflow.dags.builder``) gives it: the timetable, default arguments, macros, the sensors with their storage
settings and identity, the Spark task with every spark-submit argument, its lineage template and its feeds' assets
as inlets, the outputs' assets as outlets. Deployment defaults that Airflow reads from its configuration when a DAG
does not set them (``max_active_tasks`` ...) are left to Airflow, as a hand-written DAG leaves them. Process DAGs
with a Spark job and retention DAGs only (the estates measured have nothing else).
"""

from __future__ import annotations

from typing import Any

HEADER = """\
from datetime import datetime, timedelta, timezone
from airflow.sdk import DAG, Asset
from falcon_airflow.provider.operators.late_data import LateDataOperator
from falcon_airflow.provider.operators.outputs import ClearOutputsOperator, MarkOutputsAvailableOperator
from falcon_airflow.provider.scheduling.priority import NewestInstanceFirst
from falcon_airflow.provider.scheduling.retry import FalconRetryPolicy
from falcon_airflow.provider.operators.spark import FalconSparkSubmitOperator
from falcon_airflow.provider.sensors.feed import FeedInstanceSensor
from falcon_airflow.provider.scheduling.timetables import FalconFrequencyTimetable
"""

PROCESS_INSTANCE = "{{ macros.falcon.instance(dag_run).isoformat() }}"


def _datetime(text: str) -> str:
    return (f"datetime({int(text[0:4])}, {int(text[5:7])}, {int(text[8:10])}, {int(text[11:13])}, "
            f"{int(text[14:16])}, tzinfo=timezone.utc)")


def _asset(feed: dict[str, Any]) -> str:
    from falcon_airflow.notifications.assets import feed_asset_id

    identity = feed_asset_id(feed["feed"], feed["cluster"])
    return f"Asset(name={identity.name!r}, uri={identity.uri!r}, group={identity.group!r})"


def _assets(feeds: list[dict[str, Any]]) -> str:
    seen: dict[str, str] = {}
    for feed in feeds:
        seen.setdefault(f"{feed['cluster']}/{feed['feed']}", _asset(feed))
    return "[" + ", ".join(seen.values()) + "]"


def _default_args(spec: dict[str, Any]) -> str:
    retry = spec.get("retry")
    text = f"{{'owner': {spec['owner']!r}, 'retries': {retry['attempts'] if retry else 0}"
    if retry:
        text += (f", 'retry_delay': timedelta(seconds={retry['delay_seconds']}), "
                 f"'retry_policy': FalconRetryPolicy({retry['policy']!r}, {retry['delay_seconds']})")
    return text + "}"


def _spark(task_id: str, job: dict[str, Any], extra: str = "") -> str:
    return (f"FalconSparkSubmitOperator(task_id={task_id!r}, application={job['application']!r}, "
            f"java_class={job['java_class']!r}, name={job['name']!r}, master={job['master']!r}, "
            f"deploy_mode={job['deploy_mode']!r}, conn_id={job['connection']!r}, conf={job['conf']!r}, "
            f"application_args={list(job['arguments'])!r}, py_files={job['py_files']!r}, jars={job['jars']!r}, "
            f"files={job['files']!r}, packages={job['packages']!r}, driver_memory={job['driver_memory']!r}, "
            f"executor_memory={job['executor_memory']!r}, executor_cores={job['executor_cores']!r}, "
            f"num_executors={job['num_executors']!r}, total_executor_cores={job['total_executor_cores']!r}, "
            f"yarn_queue={job['queue']!r}, proxy_user={job['proxy_user']!r}, env_vars={job['env'] or None!r}, "
            f"lineage_events={job['lineage_events']!r}{extra})")


def _dag(spec: dict[str, Any], number: int, *, catchup: bool, max_active_runs: int, extra: str = "") -> str:
    schedule = spec["schedule"]
    entity = spec["source"]["name"] if spec["kind"] == "process" else spec["feed"]
    timetable = (f"FalconFrequencyTimetable(start={schedule['start']!r}, end={schedule['end']!r}, "
                 f"frequency={schedule['frequency']!r}, timezone={schedule['timezone']!r}, entity={entity!r})")
    paused = "" if spec["paused_upon_creation"] is None else f", is_paused_upon_creation={spec['paused_upon_creation']}"
    return (f"with DAG({spec['dag_id']!r}, schedule={timetable}, start_date={_datetime(schedule['start'])}, "
            f"catchup={catchup}, max_active_runs={max_active_runs}, default_args={_default_args(spec)}, "
            f"tags={list(spec['tags'])!r}, doc_md={spec['doc_md']!r}{extra}{paused}) as dag_{number}:")


def _run_as(spec: dict[str, Any]) -> str:
    """The identity argument our builder passes, written only when set (its default is none)."""
    return f", run_as={spec['run_as']!r}" if spec.get("run_as") is not None else ""


def plain_dag_source(number: int, spec: dict[str, Any]) -> str:
    """The plain Python of one DAG (``spec``: a compiled spec as JSON)."""
    lines: list[str] = []
    if spec["kind"] == "retention":
        lines.append(_dag(spec, number, catchup=False, max_active_runs=1))
        lines.append("    " + _spark("retention", spec["job"]))
        return "\n".join(lines) + "\n"
    if spec["kind"] != "process" or spec.get("oozie") or spec.get("order") == "LAST_ONLY":
        raise ValueError(f"no plain form for {spec['dag_id']}")
    falcon = {"entity": spec["source"]["name"], "cluster": spec["cluster"], "timezone": spec["schedule"]["timezone"],
              "inputs": {item["name"]: item for item in spec["inputs"]},
              "outputs": {item["name"]: item for item in spec["outputs"]},
              "properties": spec["properties"], "empty_dir": spec["empty_dir"],
              "workflow": spec.get("workflow_conf") or {}, "cluster_settings": spec.get("cluster_conf") or {}}
    lines.append(_dag(spec, number, catchup=spec["schedule"]["catchup"], max_active_runs=spec["max_active_runs"],
                      extra=f", user_defined_macros={{'falcon': {falcon!r}}}, render_template_as_native_obj=False"))
    timeout = spec["input_timeout_seconds"]
    retry = spec.get("retry") or {}
    sensors = []
    for item in spec["inputs"]:
        if item["optional"]:
            continue
        name = item["name"]
        feed = item["feed"]
        markers = f"{{{{ macros.falcon.input_markers(falcon.inputs[{name!r}], dag_run) }}}}"
        doc = f"Waits for feed `{feed['feed']}` instances {item['start']} .. {item['end']}."
        lines.append(
            f"    wait_{name} = FeedInstanceSensor(task_id='wait_for_{name}', input_name={name!r}, "
            f"feed={feed['feed']!r}, markers={markers!r}, "
            f"storage_settings={feed.get('storage_settings')!r}, timeout={timeout}, "
            f"poke_interval={max(5, min(60, timeout // 20))}, retry_on_timeout={bool(retry.get('on_timeout'))}, "
            f"retries={retry['attempts'] if retry.get('on_timeout') else 0}{_run_as(spec)}, doc_md={doc!r})")
        sensors.append(f"wait_{name}")
    outputs = spec["outputs"]
    weight = ", weight_rule=NewestInstanceFirst()" if spec["order"] == "LIFO" else ""
    chain = []
    if outputs:
        lines.append(f"    clear = ClearOutputsOperator(task_id='clear_outputs', outputs={outputs!r}, "
                     f"retries=0{_run_as(spec)})")
        chain.append("clear")
    lines.append("    workflow = " + _spark(
        "workflow", spec["job"], f", max_active_tis_per_dag={spec['parallel']}{weight}, "
        f"lineage_instance={PROCESS_INSTANCE!r}, inlets={_assets([item['feed'] for item in spec['inputs']])}"))
    chain.append("workflow")
    if outputs:
        lines.append(f"    mark = MarkOutputsAvailableOperator(task_id='mark_outputs_available', outputs={outputs!r}, "
                     f"entity={spec['source']['name']!r}{_run_as(spec)}, "
                     f"outlets={_assets([item['feed'] for item in outputs])})")
        chain.append("mark")
    if spec["late"]:
        late = spec["late"]
        lines.append(f"    late = LateDataOperator(task_id='late_data', inputs={late['inputs']!r}, "
                     f"cut_off_seconds={list(late['cut_off_seconds'])!r}, policy={late['policy']!r}, "
                     f"delay_seconds={late['delay_seconds']}, rerun_job={late['rerun']!r}, "
                     f"outputs={outputs!r}, retries=0)")
        chain.append("late")
    lines.append("    " + " >> ".join(chain))
    lines.extend(f"    {sensor} >> {chain[0]}" for sensor in sensors)
    if spec["messaging"] is not None or spec["emails"]:
        raise ValueError(f"no plain form for {spec['dag_id']}: it announces its instances")
    return "\n".join(lines) + "\n"
