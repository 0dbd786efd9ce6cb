"""``instance -status`` of one process over 1,000 instances through Falcon's REST API, against Airflow's own
``GET /api/v2/dags/{dag_id}/dagRuns`` listing the same 1,000 DAG runs, both served by a real api-server on the same
database and measured in the same run.

The estate and its DAGs are those of ``api_entity_list`` (:mod:`benchmarks._api_server`: 10,000 entities in the
store in the metadata database); ``process-1``'s DAG has 1,000 runs, one per hour from its validity start, created
through Airflow's REST API and marked ``success`` there (a finished history: every instance SUCCEEDED).

The calls, each as its client sends it:

* ours: what the stock Falcon 0.9 CLI sends for ``falcon instance -status -type process -name process-1 -start S
  -end E``: ``GET /falcon/api/instance/status/process/process-1?start=S&end=E&colo=*&offset=0`` with ``Accept:
  application/json`` (no ``numResults``: every instance of the window); the server, acting in Airflow as its own user
  (``[falcon] airflow_user``, as ``make run`` sets it), reads the runs and their task instances from the metadata
  database it shares with the api-server;
* Airflow's: ``GET /api/v2/dags/falcon.process.process-1.primary/dagRuns?logical_date_gte=S&logical_date_lte=L
  &order_by=logical_date&limit=1100`` (JSON): the same runs in one page (``[api] maximum_page_limit`` raised from
  its default of 100 for both sides, see ``api_entity_list``).

Airflow's side is also timed reading the runs 100 at a time (its default page limit). Falcon's call and Airflow's run
on api-servers of their own, started on fresh copies of the same database; each call is warmed up once, then timed
``REPEAT`` times over one keep-alive connection with an Airflow token; each figure is the median, the ratio ours /
Airflow's. Goal: at most 1.5x. ``FALCON_BENCH_SCALE`` scales the runs (0.2: 200) and the estate.
"""

from __future__ import annotations

import json
import sys
from datetime import timedelta

from benchmarks._api_server import (
    GOAL_RATIO,
    PROCESS,
    Call,
    call_line,
    falcon_time,
    measure,
    process_dag_id,
    run_window,
    setup,
    setup_lines,
    sizes,
    write_results,
)
from falcon_airflow.operate import airflow_api

REPEAT = 7
PAGE = 100
NOTES = [
    "Where ours goes: the server acts in Airflow as its own user (`[falcon] airflow_user`, as `make run` and the "
    "Helm chart set it), so it reads the process DAG's runs in the window and their task instances from the metadata "
    "database it shares with the api-server, one query each (`falcon_airflow.server.airflow_listings`), then the "
    "store's newest revision (one query when nothing changed since the last request: the definitions and the "
    "workspace they make are kept per revision) and writes the answer. The line \"Airflow's listings of the same "
    "rows\" times what reading them through Airflow's REST API costs, as the server did before and still does "
    "for a caller who brings an Airflow token of their own.",
]


def falcon_instances(body: bytes) -> int:
    document = json.loads(body)
    instances = document.get("instances") or []
    instances = [instances] if isinstance(instances, dict) else instances
    if any(item.get("status") != "SUCCEEDED" for item in instances):
        raise RuntimeError(f"an instance is not SUCCEEDED: {instances[:3]}")
    return len(instances)


def airflow_runs(body: bytes) -> int:
    return len(json.loads(body)["dag_runs"])


def airflow_task_instances(body: bytes) -> int:
    return len(json.loads(body)["task_instances"])


def main() -> int:
    processes, runs = sizes()
    first, last = run_window(runs)
    description = setup(processes, runs)
    status = f"instance -status -type process -name {PROCESS} ({runs} instances)"
    ours = measure(processes, runs, description, [
        Call(status, f"/falcon/api/instance/status/process/{PROCESS}",
             {"start": falcon_time(first), "end": falcon_time(last + timedelta(hours=1)), "colo": "*",
              "offset": "0"}, "application/json", falcon_instances)], REPEAT)
    window = {"logical_date_gte": first.isoformat(), "logical_date_lte": last.isoformat(),
              "order_by": "logical_date"}
    one_page, paged = (f"GET /api/v2/dags/{{dag_id}}/dagRuns?limit={runs + 100} (one page)",
                       f"GET /api/v2/dags/{{dag_id}}/dagRuns, pages of {PAGE}")
    dag_runs = f"/api/v2/dags/{process_dag_id()}/dagRuns"
    # what Falcon's server reads besides the runs: their task instances, as its client asks for them
    task_instances = f"GET /api/v2/dags/{{dag_id}}/dagRuns/~/taskInstances, pages of {airflow_api.PAGE}"
    theirs = measure(processes, runs, description, [
        Call(one_page, dag_runs, {**window, "limit": str(runs + 100)}, "application/json", airflow_runs),
        Call(paged, dag_runs, {**window, "limit": str(PAGE)}, "application/json", airflow_runs, paged=True),
        Call(task_instances, f"{dag_runs}/~/taskInstances",
             {**window, "order_by": "id", "limit": str(airflow_api.PAGE)}, "application/json",
             airflow_task_instances, paged=True)], REPEAT)
    airflow_part = theirs[one_page]["median"] + theirs[task_instances]["median"]
    ratio = ours[status]["median"] / theirs[one_page]["median"]
    paged_ratio = ours[status]["median"] / theirs[paged]["median"]
    problems = [f"{label} listed {row['listed']}, expected {runs}"
                for label, row in ((status, ours[status]), (one_page, theirs[one_page]), (paged, theirs[paged]))
                if row["listed"] != runs]
    lines = [f"instance -status of {PROCESS} over {runs} instances through the API: "
             f"{ours[status]['median'] * 1000:.0f} ms; Airflow GET .../dagRuns of {theirs[one_page]['listed']} runs "
             f"in one page: {theirs[one_page]['median'] * 1000:.0f} ms; ratio {ratio:.2f} (goal <= {GOAL_RATIO})",
             f"  the runs in pages of {PAGE} (Airflow's default maximum): {theirs[paged]['median'] * 1000:.0f} ms, "
             f"ratio {paged_ratio:.2f}",
             f"  Airflow's listings of the same rows through its REST API (the runs, one page, and their "
             f"{theirs[task_instances]['listed']} task instances) take {airflow_part * 1000:.0f} ms "
             f"({theirs[task_instances]['median'] * 1000:.0f} ms the task instances); the server reads them from "
             "the database",
             *(call_line(row) for row in (*ours.values(), *theirs.values())),
             f"  medians of {REPEAT} timed calls after one warm-up; Falcon's call and Airflow's on api-servers of "
             "their own, same database"]
    lines += setup_lines(description)
    print("\n".join(lines), flush=True)
    for problem in problems:
        print(f"  PROBLEM: {problem}")
    if ratio > GOAL_RATIO:
        print(f"  over the goal: {ratio:.2f}x > {GOAL_RATIO}x")
    write_results("api_instance_status", __doc__.split("\n\n")[0].replace("\n", " "),
                  {"ratio": ratio, "paged_ratio": paged_ratio, "ours": ours, "theirs": theirs, "runs": runs},
                  description, lines, NOTES)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
