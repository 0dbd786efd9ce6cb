"""How long ``falcon-airflow validate`` takes on a large, rich estate (10,013 entities), against a plain lxml parse
of the same files measured in the same run, and where the time goes.

The estate is :func:`benchmarks._estate.write_rich_estate`: 3 clusters, 10 datasources, 5,000 feeds and 5,000
Spark processes using every element the four XSDs allow in realistic proportions (properties, late arrival,
several and optional inputs, partitions, groups, SLAs, retries, late processes, notifications, ACLs, tags,
replication, tables, imports and exports). All of it is valid, so every rule runs to the end on every entity.
Figures, each the best of three runs in this process's run:

* the installed ``falcon-airflow validate DIR --format json`` as a subprocess (start-up included, every core it
  may use), goal < 2 s; the same with ``--format text``;
* the baseline: ``lxml.etree.parse`` of every file and nothing else, and the ratio of the two; the same parse
  split over every core, which says what a second core is worth on this machine today (two cores that are
  hyper-threads of one, or shared with a neighbour, give far less than twice);
* where the time goes, measured in this process on one core (``workers=1``): collecting the files, reading
  them (secure read and lxml), the XSD, building the models, the rules and the report; then the same reading
  and rules on every core, as the command runs them.

``FALCON_BENCH_SCALE`` scales the estate (``quick`` = 0.2, i.e. 2,013 entities; ``full`` or unset = 10,013). At
full scale (or with ``FALCON_BENCH_WRITE=1``) the figures replace this benchmark's section of
``benchmarks/results/validate.md``. Run alone with ``python -m benchmarks validate_estate``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from benchmarks._estate import write_rich_estate
from benchmarks.validate_workspace import best_of, console_script

GOAL_SECONDS = 2.0
FULL_FEEDS = 5000
REPEAT = 3
NOW = "2026-06-01T00:00Z"
RESULTS = Path(__file__).resolve().parent / "results" / "validate.md"
BEGIN, END = "<!-- validate_estate: begin -->", "<!-- validate_estate: end -->"


def scale() -> float:
    value = os.environ.get("FALCON_BENCH_SCALE", "full")
    return {"quick": 0.2, "full": 1.0}.get(value) or float(value)


def split(folder: Path) -> dict[str, float]:
    """Seconds of each stage of one validation in this process: on one core, then reading and rules on all."""
    from falcon_airflow.bulk import collector_paused
    from falcon_airflow.parsing import ParsedFile, identify
    from falcon_airflow.parsing.builders import build_entity
    from falcon_airflow.parsing.schema import validate_against_schema
    from falcon_airflow.parsing.secure import load_xml_file
    from falcon_airflow.validation import validate_workspace
    from falcon_airflow.validation.formats import render
    from falcon_airflow.workspace import Workspace, collect_files

    now = datetime(2026, 6, 1, tzinfo=UTC)
    seconds = dict.fromkeys(("collect", "read", "xsd", "build", "rules", "report"), 0.0)
    clock = time.perf_counter
    with collector_paused():
        started = clock()
        items = collect_files([str(folder)])
        seconds["collect"] = clock() - started
        parsed = []
        for item in items:  # parse_file's stages, timed one by one (every file of the estate is valid)
            started = clock()
            loaded = load_xml_file(item.path, item.display)
            assert loaded.root is not None
            entity_type, _ = identify(loaded.root, item.display)
            assert entity_type is not None
            read = clock()
            assert not validate_against_schema(loaded.root, entity_type, item.display, None)
            checked = clock()
            entity, issues = build_entity(loaded.root, entity_type, item.display)
            built = clock()
            parsed.append(ParsedFile(item.display, entity, entity_type, loaded.root.get("name"), tuple(issues)))
            seconds["read"] += read - started
            seconds["xsd"] += checked - read
            seconds["build"] += built - checked
        workspace = Workspace.from_parsed(parsed)
        started = clock()
        report = validate_workspace(workspace, now=now, workers=1)
        seconds["rules"] = clock() - started
        started = clock()
        render(report, "json")
        seconds["report"] = clock() - started
        assert report.valid, f"the estate must be valid: {report.issues[:3]}"
        del workspace, report, parsed
        started = clock()
        workspace = Workspace.load([str(folder)], workers=None)
        seconds["all cores: collect, read, xsd, build"] = clock() - started
        started = clock()
        validate_workspace(workspace, now=now, workers=None)
        seconds["all cores: rules"] = clock() - started
    return seconds


def _parse_all(paths: list[str]) -> int:
    from lxml import etree

    return sum(1 for path in paths if etree.parse(path) is not None)


def parse_on_every_core(paths: list[str]) -> float:
    """Seconds of the baseline's lxml parse with the files split between this process and forked helpers, one
    per further core (the way ``validate`` splits its reading)."""
    from falcon_airflow.parsing.parallel import available_cores, forked_pool

    helpers = available_cores() - 1
    if helpers < 1:
        return float("nan")
    share = -(-len(paths) // (helpers + 1))
    started = time.perf_counter()
    with forked_pool(helpers) as pool:
        handed = [pool.submit(_parse_all, paths[start:start + share])
                  for start in range(share, len(paths), share)]
        _parse_all(paths[:share])
        for future in handed:
            future.result()
    return time.perf_counter() - started


def uptime() -> str:
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True, check=False).stdout.strip()
    except OSError:
        load = os.getloadavg()
        return f"load average: {load[0]:.2f}, {load[1]:.2f}, {load[2]:.2f}"


def write_results(lines: list[str]) -> None:
    """This benchmark's section of results/validate.md (the rest of the file is left as it is)."""
    if scale() < 1 and os.environ.get("FALCON_BENCH_WRITE", "") in ("", "0"):
        print(f"  (scale {scale():g}: results/validate.md not written; FALCON_BENCH_WRITE=1 writes it)")
        return
    section = "\n".join([BEGIN, *lines, END])
    text = RESULTS.read_text(encoding="utf-8") if RESULTS.exists() else "# validate: results\n"
    if BEGIN in text and END in text:
        text = text[: text.index(BEGIN)] + section + text[text.index(END) + len(END):]
    else:
        text = text.rstrip() + "\n\n" + section + "\n"
    RESULTS.write_text(text, encoding="utf-8")
    print("  written to results/validate.md")


def main() -> int:
    feeds = max(10, int(FULL_FEEDS * scale()))
    with tempfile.TemporaryDirectory(prefix="falcon-bench-estate-") as temporary:
        folder = Path(temporary) / "estate"
        files = write_rich_estate(folder, feeds)
        paths = sorted(str(path) for path in folder.rglob("*.xml"))
        script = console_script()
        uptime_before = uptime()

        def cli(output_format: str) -> Callable[[], subprocess.CompletedProcess[str]]:
            return lambda: subprocess.run([script, "validate", str(folder), "--format", output_format, "--now", NOW],
                                          capture_output=True, text=True, check=False)

        json_seconds, completed = best_of(REPEAT, cli("json"))
        assert isinstance(completed, subprocess.CompletedProcess)
        report = json.loads(completed.stdout)
        text_seconds, _ = best_of(REPEAT, cli("text"))
        lxml_seconds, _ = best_of(REPEAT, lambda: _parse_all(paths))
        lxml_every_core = min(parse_on_every_core(paths) for _ in range(REPEAT))
        stages = split(folder)
        uptime_after = uptime()
    measured = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    errors = sum(1 for issue in report["issues"] if issue["level"] == "error")
    one_core = sum(seconds for stage, seconds in stages.items() if not stage.startswith("all cores"))
    lines = [
        f"validate {files} entities: {json_seconds:.2f} s json, {text_seconds:.2f} s text "
        f"(goal < {GOAL_SECONDS:.0f} s); lxml parse only: {lxml_seconds:.2f} s; "
        f"ratio {json_seconds / lxml_seconds:.1f}",
        f"  estate valid: {'yes' if report['valid'] else 'NO'} ({errors} error(s), {len(report['issues']) - errors} "
        f"warning(s)); best of {REPEAT}; {os.cpu_count()} CPU(s); {measured}",
        f"  lxml parse only, on every core: {lxml_every_core:.2f} s (every core gives "
        f"{lxml_seconds / lxml_every_core:.2f}x one core's rate on this machine now)",
        f"  in process, one core: {one_core:.2f} s = "
        + ", ".join(f"{stage} {seconds:.2f} s" for stage, seconds in stages.items()
                    if not stage.startswith("all cores")),
        "  in process, every core: " + ", ".join(f"{stage.removeprefix('all cores: ')} {seconds:.2f} s"
                                                 for stage, seconds in stages.items()
                                                 if stage.startswith("all cores")),
        f"  uptime before: {uptime_before}",
        f"  uptime after:  {uptime_after}",
    ]
    print("\n".join(lines))
    if json_seconds >= GOAL_SECONDS:
        print(f"  over the goal: {json_seconds:.2f} s >= {GOAL_SECONDS:.0f} s")
    write_results(["## validate_estate", "",
                   f"Measured with `FALCON_BENCH_SCALE={os.environ.get('FALCON_BENCH_SCALE', 'full')} "
                   ".venv/bin/python -m benchmarks validate_estate` (the estate: `benchmarks/_estate.py`).", "",
                   "```", *lines, "```"])
    return 0 if report["valid"] else 1


if __name__ == "__main__":
    sys.exit(main())
