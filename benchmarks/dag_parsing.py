"""How long Airflow's dag-processor takes to parse the DAG folder for a large estate: the sharded DAG files
(``[falcon] dag_shards``, default 4) against one DAG file building every DAG, measured in the same run.

The dag-processor forks one process per DAG file from a manager that has Airflow imported, runs up to
``[dag_processor] parsing_processes`` (default 2) at once, and parses every file again after
``min_file_process_interval``. This benchmark does the same: a manager process imports Airflow and the loader,
then forks a child per DAG file (two at a time) that executes the file; each figure is the wall time of one sweep
over the folder, from the first fork to the last child's end. Three sweeps per layout:

* cold: the compiled cache is empty (the first parse after a deployment or a new day);
* warm: nothing changed (every later refresh: what the dag-processor pays every 30 s);
* one entity changed: one process file edited, then a sweep.

The estate is ``tests.estate.write_estate``: 5,000 hourly feeds and 5,000 hourly Spark processes (10,000 DAGs).
``FALCON_BENCH_SCALE``: ``quick`` (0.2: 2,000 entities), ``full`` (default) or a number.
Goals at full scale: cold under 15 s, warm under 5 s.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parent.parent
FULL_PROCESSES = 5000
PARSING_PROCESSES = 2
GOAL_COLD, GOAL_WARM = 15.0, 5.0


def scale() -> float:
    value = os.environ.get("FALCON_BENCH_SCALE", "full")
    return {"quick": 0.2, "full": 1.0}.get(value) or float(value)


def parse_file(path: Path, report: Path) -> None:
    """In a forked child: execute one DAG file as the dag-processor does and record how many DAGs it built."""
    started = time.perf_counter()
    namespace = {"__file__": str(path), "__name__": f"unusual_prefix_{path.stem}"}
    exec(compile(path.read_text(), str(path), "exec"), namespace)
    dags = [value for value in namespace.values() if type(value).__name__ == "DAG"]
    tasks = sum(len(dag.tasks) for dag in dags)
    report.write_text(json.dumps({"file": path.name, "seconds": time.perf_counter() - started, "dags": len(dags),
                                  "tasks": tasks}))


def sweep(files: list[Path], work: Path) -> tuple[float, int, int, list[float]]:
    """Parse every file in forked children, PARSING_PROCESSES at a time; (wall seconds, DAGs, tasks, per file)."""
    pending = list(files)
    running: dict[int, Path] = {}
    reports: list[Path] = []
    started = time.perf_counter()
    while pending or running:
        while pending and len(running) < PARSING_PROCESSES:
            path = pending.pop(0)
            report = work / f"report-{len(reports)}.json"
            reports.append(report)
            child = os.fork()
            if child == 0:  # the child parses and leaves without running the parent's cleanup
                code = 0
                try:
                    parse_file(path, report)
                except BaseException as problem:  # reported by the parent
                    report.write_text(json.dumps({"file": path.name, "error": repr(problem)}))
                    code = 1
                os._exit(code)
            running[child] = path
        finished, _ = os.wait()
        running.pop(finished, None)
    wall = time.perf_counter() - started
    results = [json.loads(report.read_text()) for report in reports]
    errors = [result for result in results if "error" in result]
    if errors:
        raise RuntimeError(f"DAG files failed: {errors}")
    return (wall, sum(r["dags"] for r in results), sum(r["tasks"] for r in results),
            [r["seconds"] for r in results])


def layout(work: Path, name: str, shards: int) -> list[Path]:
    """A DAG folder with the repository's loader file(s): one file, or the shard files."""
    from falcon_airflow.dags.shards import shard_file_name

    folder = work / name
    folder.mkdir()
    source = (REPOSITORY / "dags" / "falcon_entities.py").read_text()
    names = [shard_file_name(index) for index in range(shards)] if shards > 1 else ["falcon_entities_single.py"]
    for file_name in names:
        (folder / file_name).write_text(source)
    return [folder / file_name for file_name in names]


def main() -> int:
    count = max(10, int(FULL_PROCESSES * scale()))
    work = Path(tempfile.mkdtemp(prefix="falcon-bench-parse-"))
    shards = int(os.environ.get("AIRFLOW__FALCON__DAG_SHARDS", "4"))
    try:
        from tests.estate import write_estate

        entities = work / "entities"
        write_estate(entities, count)
        os.environ.update(FALCON_ENTITIES_DIR=str(entities), AIRFLOW__CORE__LOAD_EXAMPLES="False",
                          AIRFLOW__FALCON__DAG_SHARDS=str(shards))
        import airflow.sdk  # noqa: F401  (the manager has Airflow imported before it forks, as Airflow's does)

        import falcon_airflow.dags.builder
        import falcon_airflow.dags.loader  # noqa: F401

        layouts = {"one file": layout(work, "single", 1), f"{shards} shard files": layout(work, "sharded", shards)}
        figures: dict[str, dict[str, tuple[float, int, int, list[float]]]] = {}
        load_before = os.getloadavg()
        changed = entities / "processes" / "process-7.xml"
        original = changed.read_text()
        for label, files in layouts.items():
            home = work / f"home-{len(figures)}"
            os.environ["AIRFLOW_HOME"] = str(home)  # an empty compiled cache per layout
            runs: dict[str, tuple[float, int, int, list[float]]] = {}
            runs["cold"] = sweep(files, work)
            runs["warm"] = min((sweep(files, work) for _ in range(2)), key=lambda run: run[0])
            changed.write_text(original.replace("--driver-memory 1g", "--driver-memory 2g"))
            runs["one entity changed"] = sweep(files, work)
            changed.write_text(original)
            figures[label] = runs
        load_after = os.getloadavg()
    finally:
        shutil.rmtree(work, ignore_errors=True)

    print(f"dag-processor sweep of dags/ for {1 + 2 * count} entities, {PARSING_PROCESSES} parsing processes "
          f"(fork per file, as Airflow's dag-processor):")
    single = figures["one file"]
    for label, runs in figures.items():
        for what, (wall, dags, tasks, per_file) in runs.items():
            ratio = wall / single[what][0]
            slowest = max(per_file)
            print(f"  {label:>14} {what:>18}: {wall:6.2f} s wall ({dags} DAGs, {tasks} tasks; slowest file "
                  f"{slowest:.2f} s; {ratio:.2f}x one file)")
    sharded = figures[f"{shards} shard files"]
    print(f"  goals: cold < {GOAL_COLD:.0f} s ({sharded['cold'][0]:.2f}), warm < {GOAL_WARM:.0f} s "
          f"({sharded['warm'][0]:.2f}); load average before {load_before[0]:.2f}, after {load_after[0]:.2f}; "
          f"{os.cpu_count()} CPU(s); {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
