"""How long ``falcon-airflow validate`` takes on a workspace of 1,000 entities, against a plain lxml parse.

The workspace is generated into a temporary folder: 10 clusters, 600 feeds and 390 processes shaped like the
examples in ``entities/`` (tags, groups, late arrival, replication to a second cluster, Spark processes with
inputs, outputs, retries and late processing). It is valid, so every rule runs to the end on every entity.

Three figures, each the best of three runs:

* the installed ``falcon-airflow validate DIR --format json`` as a subprocess (what a CI job pays, start-up
  included);
* :func:`falcon_airflow.validation.validate_paths` in this process (the library, no start-up);
* the baseline: ``lxml.etree.parse`` of the same files and nothing else.

The ratio is the subprocess time over the baseline. Run with ``python -m benchmarks`` (or ``make bench``), or
alone with ``python -m benchmarks.validate_workspace [--keep DIR]``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

CLUSTERS = 10
FEEDS = 600
PROCESSES = 390
GOAL_SECONDS = 5.0
REPEAT = 3
NOW = "2026-06-01T00:00Z"  # fixed, so that the rules that depend on "now" see the same workspace every run

# feed shapes: frequency, path tail, and the input range a process reads at its own (equal) frequency
_SHAPES = [
    ("hours(1)", "${YEAR}-${MONTH}-${DAY}/${HOUR}", ("now(-1,0)", "now(0,0)"), "now(0,0)"),
    ("days(1)", "${YEAR}-${MONTH}-${DAY}", ("today(-24,0)", "today(0,0)"), "today(0,0)"),
    ("minutes(30)", "${YEAR}/${MONTH}/${DAY}/${HOUR}/${MINUTE}", ("now(0,-30)", "now(0,0)"), "now(0,0)"),
]
_FREQUENCIES = {"hours(1)": "hours", "days(1)": "days", "minutes(30)": "minutes"}

CLUSTER_XML = """\
<?xml version="1.0" encoding="UTF-8"?>
<!-- Generated for the validate benchmark: storage in a local folder, jobs on local Spark. -->
<cluster name="{name}" colo="{colo}" description="Benchmark cluster {index}" xmlns="uri:falcon:cluster:0.1">
    <tags>owner=data-platform,env=bench,rack={index}</tags>
    <interfaces>
        <interface type="readonly" endpoint="file:///tmp/falcon-airflow-bench/{name}" version="1.0"/>
        <interface type="write" endpoint="file:///tmp/falcon-airflow-bench/{name}" version="1.0"/>
        <interface type="spark" endpoint="local[2]" version="4.0"/>
    </interfaces>
    <locations>
        <location name="staging" path="/falcon/{name}/staging"/>
        <location name="working" path="/falcon/{name}/working"/>
    </locations>
    <ACL owner="falcon" group="users" permission="0755"/>
    <properties>
        <property name="region" value="region-{index}"/>
    </properties>
</cluster>
"""

FEED_XML = """\
<?xml version="1.0" encoding="UTF-8"?>
<!-- Generated for the validate benchmark. -->
<feed name="{name}" description="Benchmark feed {index}" xmlns="uri:falcon:feed:0.1">
    <tags>source=bench,format=csv,batch={batch}</tags>
    <groups>{group}</groups>
    <availabilityFlag>_SUCCESS</availabilityFlag>
    <frequency>{frequency}</frequency>
    <timezone>UTC</timezone>
    <late-arrival cut-off="hours(3)"/>
    <clusters>
{clusters}
    </clusters>
    <locations>
        <location type="data" path="/data/{name}/{tail}"/>
        <location type="stats" path="/stats/{name}/{tail}"/>
    </locations>
    <ACL owner="falcon" group="users" permission="0755"/>
    <schema location="/schemas/{name}.csv" provider="csv"/>
    <properties>
        <property name="maxMaps" value="2"/>
        <property name="queueName" value="default"/>
    </properties>
</feed>
"""

FEED_CLUSTER_XML = """\
        <cluster name="{cluster}" type="{kind}">
            <validity start="2026-01-01T00:00Z" end="2099-12-31T00:00Z"/>
            <retention limit="days({days})" action="delete"/>
        </cluster>"""

PROCESS_XML = """\
<?xml version="1.0" encoding="UTF-8"?>
<!-- Generated for the validate benchmark. -->
<process name="{name}" xmlns="uri:falcon:process:0.1">
    <tags>team=bench,batch={batch}</tags>
    <pipelines>bench{pipeline}</pipelines>
    <clusters>
        <cluster name="{cluster}">
            <validity start="2026-01-02T00:00Z" end="2099-12-31T00:00Z"/>
        </cluster>
    </clusters>
    <parallel>2</parallel>
    <order>FIFO</order>
    <timeout>hours(1)</timeout>
    <frequency>{frequency}</frequency>
    <sla shouldStartIn="minutes(30)" shouldEndIn="hours(1)"/>
    <timezone>UTC</timezone>
    <inputs>
{inputs}
    </inputs>
    <outputs>
        <output name="result" feed="{output}" instance="{instance}"/>
    </outputs>
    <properties>
        <property name="batch" value="{batch}"/>
    </properties>
    <workflow engine="spark" path="apps"/>
    <spark-attributes>
        <name>{name}</name>
        <jar>apps/{name}.py</jar>
        <spark-opts>--driver-memory 1g --conf spark.sql.shuffle.partitions=4</spark-opts>
    </spark-attributes>
    <retry policy="exp-backoff" delay="minutes(1)" attempts="3"/>
    <late-process policy="periodic" delay="minutes(30)">
        <late-input input="in0" workflow-path="apps/{name}.py"/>
    </late-process>
    <ACL owner="analytics" group="users" permission="0755"/>
</process>
"""

INPUT_XML = '        <input name="in{number}" feed="{feed}" start="{start}" end="{end}"/>'


def generate(folder: Path, *, seed: int = 20261122) -> int:
    """Write the workspace under ``folder``; returns the number of entity files."""
    chooser = random.Random(seed)
    clusters = [f"cluster-{index:02d}" for index in range(CLUSTERS)]
    for index, name in enumerate(clusters):
        _write(folder / "clusters" / f"{name}.xml",
               CLUSTER_XML.format(name=name, colo=f"colo-{index % 3}", index=index))

    # feeds: a home cluster (source) and, for every third feed, a replica on the next cluster (target)
    feeds: list[tuple[str, str, int]] = []  # name, home cluster, shape
    for index in range(FEEDS):
        shape = index % len(_SHAPES)
        frequency, tail, _, _ = _SHAPES[shape]
        home = clusters[index % CLUSTERS]
        name = f"feed-{index:04d}"
        parts = [FEED_CLUSTER_XML.format(cluster=home, kind="source", days=chooser.choice((7, 14, 30)))]
        if index % 3 == 0:
            replica = clusters[(index + 1) % CLUSTERS]
            parts.append(FEED_CLUSTER_XML.format(cluster=replica, kind="target", days=90))
        _write(folder / "feeds" / f"{name}.xml",
               FEED_XML.format(name=name, index=index, batch=index // 50, group=f"bench{_FREQUENCIES[frequency]}",
                               frequency=frequency, clusters="\n".join(parts), tail=tail))
        feeds.append((name, home, shape))

    # processes: on one cluster, reading 1-3 feeds of one shape that live there and writing a fourth
    by_home_and_shape: dict[tuple[str, int], list[str]] = {}
    for name, home, shape in feeds:
        by_home_and_shape.setdefault((home, shape), []).append(name)
    written: set[str] = set()  # one writer per feed: two would clear each other's instances (rule FA008)
    for index in range(PROCESSES):
        shape = index % len(_SHAPES)
        cluster = clusters[(index // len(_SHAPES)) % CLUSTERS]
        candidates = by_home_and_shape[(cluster, shape)]
        output = chooser.choice([feed for feed in candidates if feed not in written])
        written.add(output)
        others = [feed for feed in candidates if feed != output]
        sources = chooser.sample(others, k=min(len(others), chooser.randint(1, 3)))
        frequency, _, (start, end), instance = _SHAPES[shape]
        inputs = "\n".join(INPUT_XML.format(number=number, feed=feed, start=start, end=end)
                           for number, feed in enumerate(sources))
        name = f"process-{index:04d}"
        _write(folder / "processes" / f"{name}.xml",
               PROCESS_XML.format(name=name, batch=index // 50, pipeline=index % 7, cluster=cluster,
                                  frequency=frequency, inputs=inputs, output=output, instance=instance))
    return CLUSTERS + FEEDS + PROCESSES


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def best_of(repeat: int, action: Callable[[], object]) -> tuple[float, object]:
    """Shortest wall-clock time of ``repeat`` runs, and the last run's result."""
    best = float("inf")
    result: object = None
    for _ in range(repeat):
        started = time.perf_counter()
        result = action()
        best = min(best, time.perf_counter() - started)
    return best, result


def console_script() -> str:
    beside = Path(sys.executable).parent / "falcon-airflow"
    found = str(beside) if beside.exists() else shutil.which("falcon-airflow")
    if not found:
        raise SystemExit("falcon-airflow is not installed (run `make install` first)")
    return found


def measure(folder: Path, repeat: int = REPEAT) -> dict[str, float | int | bool]:
    from lxml import etree

    from falcon_airflow.timekeeping import parse_falcon_date
    from falcon_airflow.validation import validate_paths

    files = sorted(str(path) for path in folder.rglob("*.xml"))
    script = console_script()

    def cli() -> subprocess.CompletedProcess[str]:
        return subprocess.run([script, "validate", str(folder), "--format", "json", "--now", NOW],
                              capture_output=True, text=True, check=False)

    def library() -> object:
        return validate_paths([str(folder)], now=parse_falcon_date(NOW))

    def baseline() -> int:
        return sum(1 for path in files if etree.parse(path).getroot() is not None)

    cli_seconds, completed = best_of(repeat, cli)
    assert isinstance(completed, subprocess.CompletedProcess)
    report = json.loads(completed.stdout) if completed.stdout else {}
    library_seconds, _ = best_of(repeat, library)
    baseline_seconds, _ = best_of(repeat, baseline)
    return {
        "entities": len(files),
        "valid": completed.returncode == 0 and bool(report.get("valid")),
        "issues": len(report.get("issues", [])),
        "cli_seconds": cli_seconds,
        "library_seconds": library_seconds,
        "baseline_seconds": baseline_seconds,
        "ratio": cli_seconds / baseline_seconds,
        "library_ratio": library_seconds / baseline_seconds,
    }


def report_lines(figures: dict[str, float | int | bool]) -> list[str]:
    lines = [
        f"validate {figures['entities']} entities: {figures['cli_seconds']:.2f} s (goal < {GOAL_SECONDS:.0f} s); "
        f"lxml parse only: {figures['baseline_seconds']:.2f} s; ratio {figures['ratio']:.1f}",
        f"  in-process validate_paths: {figures['library_seconds']:.2f} s; ratio {figures['library_ratio']:.1f}",
        f"  workspace valid: {'yes' if figures['valid'] else 'NO'} ({figures['issues']} issue(s)); best of "
        f"{REPEAT} runs; {os.cpu_count()} CPU(s); Python {sys.version.split()[0]}",
    ]
    if not figures["valid"]:
        lines.append("  warning: the generated workspace is not valid, so not every rule ran to the end")
    if float(figures["cli_seconds"]) >= GOAL_SECONDS:
        lines.append(f"  over the goal: {figures['cli_seconds']:.2f} s >= {GOAL_SECONDS:.0f} s")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.validate_workspace", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--keep", metavar="DIR", help="generate into DIR and keep it (default: a temporary folder)")
    args = parser.parse_args(argv)
    if args.keep:
        folder = Path(args.keep)
        if folder.exists() and any(folder.iterdir()):
            raise SystemExit(f"{folder} is not empty")
        generate(folder)
        figures = measure(folder)
    else:
        with tempfile.TemporaryDirectory(prefix="falcon-airflow-bench-") as temporary:
            generate(Path(temporary))
            figures = measure(Path(temporary))
    print("\n".join(report_lines(figures)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
