"""How long ``falcon-airflow validate`` takes on a large estate (10,000 entities), against a plain lxml parse of the
same files measured in the same run.

The estate is :func:`tests.estate.write_estate`: one cluster, 5,000 hourly feeds and 5,000 hourly Spark
processes, each process reading the feed the previous one writes (10,001 files, all valid, so every rule runs to
the end). Figures, each the best of three runs in this process's run:

* the installed ``falcon-airflow validate DIR --format json`` as a subprocess (start-up included), goal < 5 s;
* the same with ``--format text``;
* the baseline: ``lxml.etree.parse`` of every file and nothing else.

``FALCON_BENCH_SCALE`` scales the estate (``quick`` = 0.2, i.e. 2,000 entities; ``full`` or unset = 10,000).
Run alone with ``python -m benchmarks validate_estate``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.validate_workspace import best_of, console_script

GOAL_SECONDS = 5.0
FULL_PROCESSES = 5000
REPEAT = 3
NOW = "2026-06-01T00:00Z"


def scale() -> float:
    value = os.environ.get("FALCON_BENCH_SCALE", "full")
    return {"quick": 0.2, "full": 1.0}.get(value) or float(value)



def main() -> int:
    from lxml import etree
    from tests.estate import write_estate

    count = max(10, int(FULL_PROCESSES * scale()))
    with tempfile.TemporaryDirectory(prefix="falcon-bench-estate-") as temporary:
        folder = Path(temporary) / "estate"
        files = write_estate(folder, count)
        paths = sorted(str(path) for path in folder.rglob("*.xml"))
        script = console_script()
        load_before = os.getloadavg()

        def cli(output_format: str) -> subprocess.CompletedProcess[str]:
            return subprocess.run([script, "validate", str(folder), "--format", output_format, "--now", NOW],
                                  capture_output=True, text=True, check=False)

        json_seconds, completed = best_of(REPEAT, lambda: cli("json"))
        assert isinstance(completed, subprocess.CompletedProcess)
        report = json.loads(completed.stdout)
        text_seconds, _ = best_of(REPEAT, lambda: cli("text"))
        lxml_seconds, _ = best_of(REPEAT, lambda: sum(1 for path in paths if etree.parse(path) is not None))
        load_after = os.getloadavg()
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    print(f"validate {files} entities: {json_seconds:.2f} s json, {text_seconds:.2f} s text "
          f"(goal < {GOAL_SECONDS:.0f} s); lxml parse only: {lxml_seconds:.2f} s; "
          f"ratio {json_seconds / lxml_seconds:.1f}")
    print(f"  estate valid: {'yes' if report['valid'] else 'NO'} ({len(report['issues'])} issue(s)); best of "
          f"{REPEAT}; {os.cpu_count()} CPU(s); load average before {load_before[0]:.2f}, after "
          f"{load_after[0]:.2f}; {started}")
    if json_seconds >= GOAL_SECONDS:
        print(f"  over the goal: {json_seconds:.2f} s >= {GOAL_SECONDS:.0f} s")
    return 0 if report["valid"] else 1


if __name__ == "__main__":
    sys.exit(main())
