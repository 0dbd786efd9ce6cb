"""``entity -list`` of 10,000 entities through Falcon's REST API, against Airflow's own ``GET /api/v2/dags`` listing
the same entities' DAGs, both served by a real api-server on the same database and measured in the same run.

The estate (:mod:`benchmarks._api_server`): one cluster, 5,000 hourly feeds and 5,000 hourly Spark processes in the
store in the metadata database (``[falcon] store = database``), and their 10,000 DAGs (a retention DAG per feed, a
DAG per process) made by ``airflow dags reserialize`` from the store's DAG bundle.

The calls, each as its client sends it:

* ours: what the stock Falcon 0.9 CLI sends for ``falcon entity -list -type feed,process``:
  ``GET /falcon/api/entities/list/feed,process?offset=0`` with ``Accept: text/xml`` (no ``fields``: type and name
  of each entity; no ``numResults``: all of them, in one answer);
* Airflow's: ``GET /api/v2/dags?limit=10100&offset=0`` (JSON), every DAG in one page: the api-server's ``[api]
  maximum_page_limit`` is raised for both sides from its default of 100, so the baseline is Airflow's cheapest way
  to list them all, one call as ours is. (At the default, a client pages 100 DAGs a call: a hundred calls.)

A second pair compares one page of 100 each (``numResults=100`` / ``limit=100``), what a UI asks, and Airflow's side
is also timed reading every DAG 100 at a time, as a client of an api-server with Airflow's default page limit does.

Falcon's calls, Airflow's one page and Airflow's pages of 100 each run on an api-server of their own, started on a
fresh copy of the same database (see :func:`benchmarks._api_server.measure` for why); each call is warmed up once,
then timed ``REPEAT`` times over one keep-alive connection with an Airflow token (Falcon's server accepts Airflow's
tokens); each figure is the median, the ratio ours / Airflow's. Goal: at most 1.5x. ``FALCON_BENCH_SCALE`` scales
the estate and the runs (0.2: 2,000 entities); the first run of a scale builds the set-up and caches it (its time
is printed apart from the figures).
"""

from __future__ import annotations

import json
import sys

from lxml import etree

from benchmarks._api_server import GOAL_RATIO, Call, call_line, measure, setup, setup_lines, sizes, write_results

REPEAT = 7
PAGED_REPEAT = 3
PAGE = 100
NOTES = [
    "Where ours goes: the server reads every definition in force from the store's table on each request (parsed "
    "once per process and kept), builds the workspace and answers; `numResults` pages that list, so one page of "
    "100 costs nearly the whole read. Airflow's listing answers much more per DAG (its whole `DAGResponse`, "
    "about 1.6 kB each against Falcon's type and name), which is why its one page of everything is slower.",
    "Every api-server runs with Python's cyclic garbage collector off: with it on, Airflow 3.3.2's api-server on "
    "Python 3.11.7 and SQLite dies (SIGSEGV) after a number of DAG listings, with or without Falcon's server (see "
    "benchmarks/README.md); a server that dies anyway is started again, and each call's line says how many times.",
]


def falcon_entities(body: bytes) -> int:
    root = etree.fromstring(body)
    return len(root.findall("entity"))


def airflow_dags(body: bytes) -> int:
    return len(json.loads(body)["dags"])


def main() -> int:
    processes, runs = sizes()
    entities = 2 * processes
    description = setup(processes, runs)
    everything, page = f"entity -list -type feed,process ({entities})", f"entity -list ... -numResults {PAGE}"
    ours = measure(processes, runs, description, [
        Call(everything, "/falcon/api/entities/list/feed,process", {"offset": "0"}, "text/xml", falcon_entities),
        Call(page, "/falcon/api/entities/list/feed,process", {"offset": "0", "numResults": str(PAGE)}, "text/xml",
             falcon_entities)], REPEAT)
    one_page, first_page, paged = (f"GET /api/v2/dags?limit={entities + 100} (one page)",
                                   f"GET /api/v2/dags?limit={PAGE}", f"GET /api/v2/dags, pages of {PAGE}")
    theirs = measure(processes, runs, description, [
        Call(one_page, "/api/v2/dags", {"limit": str(entities + 100), "offset": "0"}, "application/json",
             airflow_dags)], REPEAT)
    theirs |= measure(processes, runs, description, [
        Call(first_page, "/api/v2/dags", {"limit": str(PAGE), "offset": "0"}, "application/json", airflow_dags),
        Call(paged, "/api/v2/dags", {"limit": str(PAGE)}, "application/json", airflow_dags, paged=True,
             repeat=PAGED_REPEAT)], REPEAT)
    ratio = ours[everything]["median"] / theirs[one_page]["median"]
    page_ratio = ours[page]["median"] / theirs[first_page]["median"]
    paged_ratio = ours[everything]["median"] / theirs[paged]["median"]
    problems = [f"{label} listed {row['listed']}, expected {expected}"
                for label, row, expected in ((everything, ours[everything], entities), (page, ours[page], PAGE),
                                             (one_page, theirs[one_page], entities),
                                             (first_page, theirs[first_page], PAGE), (paged, theirs[paged], entities))
                if row["listed"] != expected]
    lines = [f"entity -list of {entities} entities through the API: {ours[everything]['median'] * 1000:.0f} ms; "
             f"Airflow GET /api/v2/dags of {theirs[one_page]['listed']} DAGs in one page: "
             f"{theirs[one_page]['median'] * 1000:.0f} ms; ratio {ratio:.2f} (goal <= {GOAL_RATIO})",
             f"  one page of {PAGE}: {ours[page]['median'] * 1000:.0f} ms vs {theirs[first_page]['median'] * 1000:.0f}"
             f" ms, ratio {page_ratio:.2f}; every DAG in pages of {PAGE} (Airflow's default maximum): "
             f"{theirs[paged]['median'] * 1000:.0f} ms, ratio {paged_ratio:.3f}",
             *(call_line(row) for row in (*ours.values(), *theirs.values())),
             f"  medians of {REPEAT} timed calls after one warm-up ({PAGED_REPEAT} for the paged listing); Falcon's "
             "calls, Airflow's one page and its pages of 100 each on an api-server of their own, same database"]
    lines += setup_lines(description)
    print("\n".join(lines), flush=True)
    for problem in problems:
        print(f"  PROBLEM: {problem}")
    if ratio > GOAL_RATIO:
        print(f"  over the goal: {ratio:.2f}x > {GOAL_RATIO}x")
    write_results("api_entity_list", __doc__.split("\n\n")[0].replace("\n", " "),
                  {"ratio": ratio, "page_ratio": page_ratio, "paged_ratio": paged_ratio, "ours": ours,
                   "theirs": theirs, "entities": entities}, description, lines, NOTES)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
