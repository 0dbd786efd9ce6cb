"""How long Airflow's dag-processor spends on our dags/ file for 1,000 processes + 1,000 feeds, cold and warm,
against plain Python DAG files that build the same DAGs with the same operators, measured in the same run.

Each figure is the time to execute the DAG file's body in a fresh interpreter that has already imported Airflow
(what the dag-processor pays per parse; Airflow's own import is the same for both and is reported apart):

* cold: the content cache is empty, so the entities are parsed, validated and compiled, then built;
* warm: the cache holds the compiled specs (the XML did not change), so only hashing and building remain;
* plain: one generated Python file per DAG, literal arguments, the same operator classes and tasks.

Goal: warm within 1.2x of plain Python; the whole file (cold) under 10 s.
Run with ``python -m benchmarks loader_parse`` (``FALCON_BENCH_SCALE=0.1`` for a quick run).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parent.parent
GOAL_WARM_RATIO = 1.2
GOAL_COLD_SECONDS = 10.0

TIMED_FILE = """
import sys, time
import airflow.sdk  # noqa: F401  (Airflow's own import is measured apart)
import falcon_airflow.dags.builder  # noqa: F401
started = time.perf_counter()
namespace = {{"__file__": {path!r}, "__name__": "bench_dag_file"}}
exec(compile(open({path!r}).read(), {path!r}, "exec"), namespace)
elapsed = time.perf_counter() - started
dags = [value for value in namespace.values() if type(value).__name__ == "DAG"]
print(elapsed, len(dags), sum(len(dag.tasks) for dag in dags))
"""


def generate_entities(folder: Path, count: int) -> None:
    """One cluster, ``count`` feeds and ``count`` processes reading each other's feeds in a chain (the estate)."""
    from tests.estate import write_estate

    write_estate(folder, count, data_root="/tmp/bench")


PLAIN_HEADER = """\
from datetime import datetime, timedelta, timezone
from airflow.sdk import DAG
from falcon_airflow.provider.operators.late_data import LateDataOperator
from falcon_airflow.provider.operators.outputs import ClearOutputsOperator, MarkOutputsAvailableOperator
from falcon_airflow.provider.scheduling.retry import FalconRetryPolicy
from falcon_airflow.provider.operators.spark import FalconSparkSubmitOperator
from falcon_airflow.provider.sensors.feed import FeedInstanceSensor
from falcon_airflow.provider.scheduling.timetables import FalconFrequencyTimetable
"""


def _spark(task_id: str, job: dict, extra: str = "") -> str:
    return (f"FalconSparkSubmitOperator(task_id={task_id!r}, application={job['application']!r}, "
            f"java_class={job['java_class']!r}, name={job['name']!r}, master={job['master']!r}, "
            f"deploy_mode={job['deploy_mode']!r}, conn_id={job['connection']!r}, conf={job['conf']!r}, "
            f"application_args={list(job['arguments'])!r}, py_files={job['py_files']!r}, "
            f"driver_memory={job['driver_memory']!r}, yarn_queue={job['queue']!r}{extra})")


def plain_source(number: int, spec: dict) -> str:
    """A hand-written-style DAG file with the same DAG, tasks and arguments the loader builds from ``spec``."""
    schedule = spec["schedule"]
    start = datetime_literal(schedule["start"])
    retry = spec.get("retry")
    default_args = {"owner": spec["owner"], "retries": retry["attempts"] if retry else 0}
    args = repr(default_args)[:-1]
    if retry:
        args += (f", 'retry_delay': timedelta(seconds={retry['delay_seconds']}), "
                 f"'retry_policy': FalconRetryPolicy({retry['policy']!r}, {retry['delay_seconds']})")
    args += "}"
    entity = spec["source"]["name"] if spec["kind"] == "process" else spec["feed"]
    timetable = (f"FalconFrequencyTimetable(start={schedule['start']!r}, end={schedule['end']!r}, "
                 f"frequency={schedule['frequency']!r}, timezone={schedule['timezone']!r}, entity={entity!r})")
    lines = []
    if spec["kind"] == "process":
        falcon = {"entity": entity, "cluster": spec["cluster"], "timezone": schedule["timezone"],
                  "inputs": {item["name"]: item for item in spec["inputs"]},
                  "outputs": {item["name"]: item for item in spec["outputs"]},
                  "properties": spec["properties"], "empty_dir": spec["empty_dir"]}
        lines.append(f"with DAG({spec['dag_id']!r}, schedule={timetable}, start_date={start}, "
                     f"catchup={schedule['catchup']}, max_active_runs={spec['max_active_runs']}, default_args={args}, "
                     f"tags={list(spec['tags'])!r}, doc_md={spec['doc_md']!r}, "
                     f"user_defined_macros={{'falcon': {falcon!r}}}) as dag_{number}:")
        sensors = []
        for item in spec["inputs"]:
            if item["optional"]:
                continue
            name = item["name"]
            lines.append(f"    wait_{name} = FeedInstanceSensor(task_id='wait_for_{name}', input_name={name!r}, "
                         f"feed={item['feed']['feed']!r}, markers=\"{{{{ macros.falcon.input_markers("
                         f"falcon.inputs[{name!r}], dag_run) }}}}\", timeout={spec['input_timeout_seconds']}, "
                         f"poke_interval=60, retries=0)")
            sensors.append(f"wait_{name}")
        outputs = spec["outputs"]
        lines.append(f"    clear = ClearOutputsOperator(task_id='clear_outputs', outputs={outputs!r}, retries=0)")
        lines.append("    workflow = " + _spark("workflow", spec["job"],
                                                f", max_active_tis_per_dag={spec['parallel']}"))
        lines.append(f"    mark = MarkOutputsAvailableOperator(task_id='mark_outputs_available', outputs={outputs!r})")
        chain = "clear >> workflow >> mark"
        if spec["late"]:
            late = spec["late"]
            lines.append(f"    late = LateDataOperator(task_id='late_data', inputs={late['inputs']!r}, "
                         f"cut_off_seconds={list(late['cut_off_seconds'])!r}, policy={late['policy']!r}, "
                         f"delay_seconds={late['delay_seconds']}, rerun_job={late['rerun']!r}, "
                         f"outputs={outputs!r}, retries=0)")
            chain += " >> late"
        lines.append(f"    {chain}")
        lines.extend(f"    {sensor} >> clear" for sensor in sensors)
    elif spec["kind"] == "retention":
        lines.append(f"with DAG({spec['dag_id']!r}, schedule={timetable}, start_date={start}, catchup=False, "
                     f"max_active_runs=1, default_args={args}, tags={list(spec['tags'])!r}, "
                     f"doc_md={spec['doc_md']!r}) as dag_{number}:")
        lines.append("    " + _spark("retention", spec["job"]))
    else:
        raise ValueError("the benchmark has no replication")
    return "\n".join(lines) + "\n"


def datetime_literal(text: str) -> str:
    return (f"datetime({int(text[0:4])}, {int(text[5:7])}, {int(text[8:10])}, {int(text[11:13])}, "
            f"{int(text[14:16])}, tzinfo=timezone.utc)")


def generate_plain(entities: Path, folder: Path) -> Path:
    """One Python file holding every DAG with literal arguments (as a generator of DAG files would write), from
    the specs the loader compiles (compiled here, outside the timed parses)."""
    from falcon_airflow.dags.loader import load_specs

    compiled, _ = load_specs(entities)
    specs = [json.loads(spec.model_dump_json()) for spec in compiled]
    folder.mkdir(parents=True)
    path = folder / "plain_dags.py"
    path.write_text(PLAIN_HEADER + "\n".join(plain_source(number, spec) for number, spec in enumerate(specs)))
    return path


def time_file(path: Path, environment: dict[str, str]) -> tuple[float, int, int]:
    result = subprocess.run([sys.executable, "-c", TIMED_FILE.format(path=str(path))], capture_output=True,
                            text=True, env=environment, timeout=1800)
    if result.returncode != 0:
        raise RuntimeError(result.stderr[-3000:])
    seconds, dags, tasks = result.stdout.split()[-3:]
    return float(seconds), int(dags), int(tasks)


def airflow_import_seconds(environment: dict[str, str]) -> float:
    code = "import time; t=time.perf_counter(); import airflow.sdk, falcon_airflow.dags.builder; " \
           "print(time.perf_counter()-t)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=environment)
    return float(result.stdout.split()[-1])


def main(argv: list[str] | None = None) -> int:
    scale = float(os.environ.get("FALCON_BENCH_SCALE", "1"))
    count = max(10, int(1000 * scale))
    work = Path(tempfile.mkdtemp(prefix="falcon-bench-loader-"))
    try:
        entities, home = work / "entities", work / "airflow-home"
        generate_entities(entities, count)
        # one DAG file building every DAG, as this benchmark always measured (dag_parsing times the shard files)
        environment = {**os.environ, "AIRFLOW_HOME": str(home), "FALCON_ENTITIES_DIR": str(entities),
                       "AIRFLOW__CORE__LOAD_EXAMPLES": "False", "AIRFLOW__FALCON__DAG_SHARDS": "1"}
        dags_file = REPOSITORY / "dags" / "falcon_entities.py"
        cold, dags, tasks = time_file(dags_file, environment)
        if dags != 2 * count:
            raise RuntimeError(f"expected {2 * count} DAGs, the loader built {dags}: "
                               "the generated entities are invalid")
        warm = min(time_file(dags_file, environment)[0] for _ in range(2))
        plain_file = generate_plain(entities, work / "plain")
        plain = min(time_file(plain_file, environment)[0] for _ in range(2))
        imports = airflow_import_seconds(environment)
        print(f"loader: {count} processes + {count} feeds -> {dags} DAGs, {tasks} tasks")
        print(f"  cold (parse, validate, compile, build): {cold:6.2f} s   (goal < {GOAL_COLD_SECONDS:.0f} s)")
        print(f"  warm (content cache hit, build only):   {warm:6.2f} s")
        print(f"  plain Python DAG files, same tasks:     {plain:6.2f} s")
        print(f"  warm / plain = {warm / plain:.2f}   (goal <= {GOAL_WARM_RATIO})")
        print(f"  Airflow + falcon_airflow import (both pay it): {imports:.2f} s")
        return 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
