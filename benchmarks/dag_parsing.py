"""How long Airflow's dag-processor takes to parse each of the shard DAG files (``[falcon] dag_shards``, default
4) for a large estate, against plain Python DAG files describing the same DAGs, measured in the same run.

The dag-processor forks one process per DAG file from a manager that has Airflow imported, runs up to
``[dag_processor] parsing_processes`` (default 2) at once, and parses every file again after
``min_file_process_interval``. This benchmark does the same: a manager process imports Airflow, then forks a child
per DAG file (two at a time) that imports the file as Airflow's importer does (``SourceFileLoader``, so a plain
file's bytecode is cached in ``__pycache__`` after its first parse, as in a deployment that writes bytecode). Each
figure is one file's parse; a sweep is the folder's wall time. Three sweeps per side:

* cold: our compiled cache is empty (the first parse after a deployment or a new day); for the plain files, no
  bytecode is cached yet;
* warm: nothing changed (every later refresh: what the dag-processor pays every 30 s);
* one entity changed: one process file edited, then a sweep; for the plain files, the same argument edited in the
  plain file holding that DAG (its bytecode is then stale).

The plain side has one file per shard holding that shard's DAGs as literal Python (the same operators, tasks and
arguments, serializing alike: ``benchmarks._plain_dags``), generated from the compiled specs in a process of its own
before the measured sweeps.

The estate is ``tests.estate.write_estate``: 5,000 hourly feeds and 5,000 hourly Spark processes (10,000 DAGs).
``FALCON_BENCH_SCALE``: ``quick`` (0.2: 2,000 entities), ``full`` (default) or a number.
Goals at full scale: every shard file cold under 8 s; warm no slower than the plain file of the same DAGs.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parent.parent
FULL_PROCESSES = 5000
PARSING_PROCESSES = 2
Run = tuple[float, int, int, list[float], list[float]]
GOAL_COLD_PER_FILE = 8.0


def scale() -> float:
    value = os.environ.get("FALCON_BENCH_SCALE", "full")
    return {"quick": 0.2, "full": 1.0}.get(value) or float(value)


def parse_file(path: Path, report: Path) -> None:
    """In a forked child: import one DAG file as the dag-processor does and record how many DAGs it built."""
    started = time.perf_counter()
    name = f"unusual_prefix_{path.stem}"
    loader = importlib.machinery.SourceFileLoader(name, str(path))
    spec = importlib.util.spec_from_loader(name, loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    loader.exec_module(module)
    dags = [value for value in vars(module).values() if type(value).__name__ == "DAG"]
    tasks = sum(len(dag.tasks) for dag in dags)
    report.write_text(json.dumps({"file": path.name, "seconds": time.perf_counter() - started, "dags": len(dags),
                                  "tasks": tasks}))


def sweep(files: list[Path], work: Path) -> Run:
    """Parse every file in forked children, PARSING_PROCESSES at a time; (wall seconds, DAGs, tasks, each file's
    wall seconds, each file's CPU seconds)."""
    pending = list(enumerate(files))
    running: dict[int, int] = {}
    reports: list[Path] = [work / f"report-{index}.json" for index in range(len(files))]
    cpu = [0.0] * len(files)
    started = time.perf_counter()
    while pending or running:
        while pending and len(running) < PARSING_PROCESSES:
            index, path = pending.pop(0)
            child = os.fork()
            if child == 0:  # the child parses and leaves without running the parent's cleanup
                code = 0
                try:
                    parse_file(path, reports[index])
                except BaseException as problem:  # reported by the parent
                    reports[index].write_text(json.dumps({"file": path.name, "error": repr(problem)}))
                    code = 1
                os._exit(code)
            running[child] = index
        finished, _, usage = os.wait4(-1, 0)
        if finished in running:
            cpu[running.pop(finished)] = usage.ru_utime + usage.ru_stime
    wall = time.perf_counter() - started
    results = [json.loads(report.read_text()) for report in reports]
    errors = [result for result in results if "error" in result]
    if errors:
        raise RuntimeError(f"DAG files failed: {errors}")
    return (wall, sum(r["dags"] for r in results), sum(r["tasks"] for r in results),
            [r["seconds"] for r in results], cpu)


def layout(work: Path, shards: int) -> list[Path]:
    """A DAG folder with the repository's shard files."""
    from falcon_airflow.dags.shards import shard_file_name

    folder = work / "sharded"
    folder.mkdir()
    source = (REPOSITORY / "dags" / "falcon_entities.py").read_text()
    for index in range(shards):
        (folder / shard_file_name(index)).write_text(source)
    return [folder / shard_file_name(index) for index in range(shards)]


def write_plain_shards(entities: Path, folder: Path, shards: int) -> None:
    """One plain Python DAG file per shard with that shard's DAGs (run in a process of its own, with a compiled cache
    of its own, so that the measured side starts cold and the manager imports nothing of the compiler)."""
    from benchmarks._plain_dags import HEADER, plain_dag_source
    from falcon_airflow.dags.loader import compile_folder
    from falcon_airflow.dags.shards import shard_of

    specs, _ = compile_folder(entities, catchup_default=True)
    parts: list[list[str]] = [[] for _ in range(shards)]
    for number, spec in enumerate(specs):
        parts[shard_of(spec.source.type, spec.source.name, shards)].append(
            plain_dag_source(number, json.loads(spec.model_dump_json())))
    folder.mkdir(parents=True)
    for index, part in enumerate(parts):
        (folder / f"plain_dags_{index}.py").write_text(HEADER + "\n".join(part))


def plain_layout(work: Path, entities: Path, shards: int) -> list[Path]:
    folder = work / "plain"
    code = ("import sys; from pathlib import Path; from benchmarks.dag_parsing import write_plain_shards; "
            "write_plain_shards(Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3]))")
    subprocess.run([sys.executable, "-c", code, str(entities), str(folder), str(shards)], check=True,
                   cwd=REPOSITORY, env={**os.environ, "AIRFLOW_HOME": str(work / "home-plain-generator"),
                                        "PYTHONPATH": os.pathsep.join(
                                            filter(None, [str(REPOSITORY), os.environ.get("PYTHONPATH")]))})
    return [folder / f"plain_dags_{index}.py" for index in range(shards)]


def edit_plain(files: list[Path], job: str) -> tuple[Path, str]:
    """The plain file holding the Spark job ``job``, with that job's driver memory edited as the entity was."""
    for path in files:
        text = path.read_text()
        match = re.search(rf"name='{re.escape(job)}'.*?driver_memory='1g'", text)
        if match:
            path.write_text(text[:match.start()] + match[0].replace("driver_memory='1g'", "driver_memory='2g'")
                            + text[match.end():])
            return path, text
    raise RuntimeError(f"no plain DAG runs {job}")


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
        plain_files = plain_layout(work, entities, shards)
        import airflow.sdk  # noqa: F401  (the manager has Airflow imported before it forks, as Airflow's does)

        # a deployment caches the plain files' bytecode after their first parse (PYTHONDONTWRITEBYTECODE is off)
        sys.dont_write_bytecode = False
        os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
        ours_files = layout(work, shards)
        load_before = os.getloadavg()
        changed = entities / "processes" / "process-7.xml"
        original = changed.read_text()
        os.environ["AIRFLOW_HOME"] = str(work / "home")  # an empty compiled cache
        # the two sides alternate, sweep by sweep, so that both see the same load on a shared machine
        figures: dict[str, dict[str, Run]] = {"ours": {}, "plain": {}}
        for what in ("cold", "warm", "warm again", "one entity changed"):
            for label, files in (("ours", ours_files), ("plain", plain_files)):
                if what == "one entity changed" and label == "ours":
                    changed.write_text(original.replace("--driver-memory 1g", "--driver-memory 2g"))
                    figures[label][what] = sweep(files, work)
                    changed.write_text(original)
                elif what == "one entity changed":
                    edited, text = edit_plain(files, "job-7")
                    figures[label][what] = sweep(files, work)
                    edited.write_text(text)
                else:
                    figures[label][what] = sweep(files, work)
        for runs in figures.values():  # the better of the two warm sweeps
            again = runs.pop("warm again")
            runs["warm"] = min(runs["warm"], again, key=lambda run: run[0])
        load_after = os.getloadavg()
    finally:
        shutil.rmtree(work, ignore_errors=True)

    ours, plain_runs = figures["ours"], figures["plain"]
    print(f"dag-processor sweep of {shards} shard files for {1 + 2 * count} entities, {PARSING_PROCESSES} parsing "
          f"processes (fork per file, as Airflow's dag-processor), ours against plain Python DAG files of the same "
          f"DAGs (one per shard), sweeps alternating; per file: wall seconds (CPU seconds):")
    for what in ("cold", "warm", "one entity changed"):
        (wall, dags, tasks, per_file, cpu), (plain_wall, plain_dags, plain_tasks, plain_per_file, plain_cpu) = \
            ours[what], plain_runs[what]
        print(f"  {what:>18}: sweep {wall:6.2f} s ours ({dags} DAGs, {tasks} tasks), {plain_wall:6.2f} s plain "
              f"({plain_dags} DAGs, {plain_tasks} tasks): {wall / plain_wall:.2f}x")
        for index in range(len(per_file)):
            print(f"  {'':>18}  shard {index}: {per_file[index]:6.2f} s ({cpu[index]:5.2f}) ours, "
                  f"{plain_per_file[index]:6.2f} s ({plain_cpu[index]:5.2f}) plain: "
                  f"{per_file[index] / plain_per_file[index]:.2f}x wall, {cpu[index] / plain_cpu[index]:.2f}x CPU")
    cold_worst = max(ours["cold"][3])
    warm_ratio = max(mine / theirs for mine, theirs in zip(ours["warm"][3], plain_runs["warm"][3], strict=True))
    warm_cpu_ratio = max(mine / theirs for mine, theirs in zip(ours["warm"][4], plain_runs["warm"][4], strict=True))
    print(f"  goals: every shard file cold < {GOAL_COLD_PER_FILE:.0f} s (slowest {cold_worst:.2f} s: "
          f"{'met' if cold_worst < GOAL_COLD_PER_FILE else 'NOT met'}); every shard file warm <= its plain file "
          f"(worst {warm_ratio:.2f}x wall, {warm_cpu_ratio:.2f}x CPU: {'met' if warm_ratio <= 1.0 else 'NOT met'}); "
          f"load average before {load_before[0]:.2f}, after {load_after[0]:.2f}; {os.cpu_count()} CPU(s); "
          f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
