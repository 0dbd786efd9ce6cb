"""The console's entity list of 10,000 entities, its first page, against Airflow's own first page of the same
entities' DAGs, both served by a real api-server on the same database and measured in the same run.

The estate is :mod:`benchmarks._api_server`'s: one cluster, 5,000 hourly feeds and 5,000 hourly Spark processes in
the store in the metadata database (``[falcon] store = database``), their 10,000 DAGs made by ``airflow dags
reserialize``; the server acts in Airflow as its own user (``[falcon] airflow_user``), as ``make run`` does.

The calls, each as the pages send them:

* ours: ``GET /falcon/console/api/entities?offset=0&limit=50`` (JSON), what the console's list asks when it opens:
  every entity's type, status (SUBMITTED, RUNNING, SUSPENDED or INVALID with its rules), tags, owner and clusters
  known, sorted by name on the server, one page of 50 answered; and the same page sorted by status;
* Airflow's: ``GET /api/v2/dags?limit=50&offset=0``, what Airflow's own DAG list asks when it opens.

Each call is warmed up once (the first list after the server started reads and validates the store: that call is
printed apart), then timed ``REPEAT`` times over one keep-alive connection with an Airflow token; each figure is the
median, the ratio ours / Airflow's. Goal: under 1 s for our first page. ``FALCON_BENCH_SCALE`` scales the estate
(0.2: 2,000 entities).
"""

from __future__ import annotations

import json
import os
import sys

from benchmarks._api_server import Call, call_line, measure, setup, setup_lines, sizes, write_results

REPEAT = 7
PAGE = 50
GOAL_SECONDS = 1.0
NOTES = [
    "Where ours goes: the console's list runs `entity -list` with statuses, tags and clusters for every entity the "
    "caller may read, then filters, sorts and pages on the server. What depends only on the store's content - the "
    "workspace, which entities are INVALID and the rules they break, each entity's owner - is kept per store "
    "revision and made again when the store changes; the rules evaluated against the time now (P10, FA006, FA060) "
    "are run again on every call. Whether each DAG is paused is read from the metadata database in one query (the "
    "server acts in Airflow as its own user); the schedule states are one query of the store.",
    "The warm-up call is the first list after the api-server started: it reads every definition from the store "
    "and validates the workspace once, as the first call after a change of the store does.",
]


def entities(body: bytes) -> int:
    return len(json.loads(body)["entities"])


def airflow_dags(body: bytes) -> int:
    return len(json.loads(body)["dags"])


def main() -> int:
    processes, runs = sizes()
    total = 2 * processes + 1
    description = setup(processes, runs)
    first, by_status = (f"GET /falcon/console/api/entities?limit={PAGE} ({total} entities)",
                        f"GET /falcon/console/api/entities?limit={PAGE}&sort=status")
    ours = measure(processes, runs, description, [
        Call(first, "/falcon/console/api/entities", {"offset": "0", "limit": str(PAGE)}, "application/json",
             entities),
        Call(by_status, "/falcon/console/api/entities", {"offset": "0", "limit": str(PAGE), "sort": "status"},
             "application/json", entities)], REPEAT)
    theirs_label = f"GET /api/v2/dags?limit={PAGE}"
    theirs = measure(processes, runs, description, [
        Call(theirs_label, "/api/v2/dags", {"limit": str(PAGE), "offset": "0"}, "application/json",
             airflow_dags)], REPEAT)
    ratio = ours[first]["median"] / theirs[theirs_label]["median"]
    problems = [f"{label} listed {row['listed']}, expected {PAGE}"
                for label, row in ((first, ours[first]), (by_status, ours[by_status]),
                                   (theirs_label, theirs[theirs_label])) if row["listed"] != PAGE]
    lines = [f"console entity list, first page of {PAGE} of {total} entities: {ours[first]['median'] * 1000:.0f} ms "
             f"(goal < {GOAL_SECONDS * 1000:.0f} ms); Airflow's DAG list, first page of {PAGE}: "
             f"{theirs[theirs_label]['median'] * 1000:.0f} ms; ratio {ratio:.2f}",
             f"  sorted by status: {ours[by_status]['median'] * 1000:.0f} ms; the first call after the server "
             f"started (reads and validates the store): {ours[first]['first'] * 1000:.0f} ms",
             *(call_line(row) for row in (*ours.values(), *theirs.values())),
             f"  medians of {REPEAT} timed calls after one warm-up; ours and Airflow's each on an api-server of their "
             f"own, same database; load average (uptime) {' '.join(f'{value:.2f}' for value in os.getloadavg())}"]
    lines += setup_lines(description)
    print("\n".join(lines), flush=True)
    for problem in problems:
        print(f"  PROBLEM: {problem}")
    if ours[first]["median"] > GOAL_SECONDS:
        print(f"  over the goal: {ours[first]['median']:.2f} s > {GOAL_SECONDS:.0f} s")
    write_results("console_entity_list", __doc__.split("\n\n")[0].replace("\n", " "),
                  {"ratio": ratio, "ours": ours, "theirs": theirs, "entities": total}, description, lines, NOTES)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
