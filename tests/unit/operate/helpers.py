"""Helpers for the operate unit tests (their entity XML comes from tests/builders.py): an in-memory Airflow (the
REST calls the commands make, with Airflow's behaviour for pausing, marking runs failed and clearing) and a kit that
runs commands against both."""

from __future__ import annotations

import io
import json
import textwrap
from collections.abc import Callable, Mapping, Sequence
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from falcon_airflow.cli import build_parser
from falcon_airflow.cli.registry import load
from falcon_airflow.operate.airflow_api import AirflowError
from falcon_airflow.operate.context import Context
from falcon_airflow.operate.settings import Settings


def now_iso(moment: datetime | None = None) -> str:
    return (moment or datetime.now(UTC)).isoformat().replace("+00:00", "Z")


PROCESS_TASKS = ("wait_for_input", "clear_outputs", "workflow", "mark_outputs_available")


@dataclass
class FakeRun:
    dag_id: str
    run_id: str
    logical_date: datetime
    state: str = "queued"
    note: str | None = None
    queued_at: str = ""
    start_date: str | None = None
    end_date: str | None = None

    def as_json(self) -> dict[str, Any]:
        return {"dag_id": self.dag_id, "dag_run_id": self.run_id, "logical_date": now_iso(self.logical_date),
                "state": self.state, "note": self.note, "queued_at": self.queued_at, "start_date": self.start_date,
                "end_date": self.end_date, "run_after": self.queued_at, "conf": {},
                "data_interval_start": now_iso(self.logical_date),
                "data_interval_end": now_iso(self.logical_date + timedelta(hours=1))}


class FakeAirflow:
    """Airflow's REST API v2 as the commands use it, in memory, with Airflow's state rules."""

    base = "http://airflow.test"

    def __init__(self) -> None:
        self.dags_by_id: dict[str, dict[str, Any]] = {}
        self.tasks: dict[str, tuple[str, ...]] = {}
        self.runs_by_key: dict[tuple[str, str], FakeRun] = {}
        self.tis: dict[tuple[str, str], dict[str, dict[str, Any]]] = {}
        self.events: list[dict[str, Any]] = []
        self.logs: dict[tuple[str, str, str, int], list[Any]] = {}
        self.reparse_requests = 0
        self.calls: list[str] = []
        self.reachable = True
        self.clock = datetime(2026, 6, 1, tzinfo=UTC)
        self.on_reparse: Callable[[], None] | None = None
        self.roles: dict[str, frozenset[str]] = {}
        self.parse_on_request = True

    def _tick(self) -> str:
        self.clock += timedelta(seconds=1)
        return now_iso(self.clock)

    def _call(self, name: str) -> None:
        if not self.reachable:
            raise AirflowError(f"cannot reach Airflow at {self.base}: connection refused")
        self.calls.append(name)

    def authenticate(self) -> None:
        self._call("authenticate")

    def user_roles(self, username: str) -> frozenset[str] | None:
        """The FAB auth manager's roles of a user (``roles`` set by a test; ``None``: no such user known)."""
        self._call("user_roles")
        return self.roles.get(username)

    # -- test set-up ------------------------------------------------------------------------------------------------

    def add_dag(self, dag_id: str, tasks: Sequence[str] = PROCESS_TASKS, paused: bool = True) -> None:
        self.dags_by_id[dag_id] = {"dag_id": dag_id, "is_paused": paused, "is_stale": False}
        self.tasks[dag_id] = tuple(tasks)

    def add_run(self, dag_id: str, moment: datetime, *, state: str = "queued",
                task_states: Mapping[str, str | None] | None = None, note: str | None = None) -> FakeRun:
        run_id = f"manual__{moment:%Y-%m-%dT%H:%M}Z__{len(self.runs_by_key)}"
        run = FakeRun(dag_id, run_id, moment, state, note, queued_at=self._tick())
        self.runs_by_key[(dag_id, run_id)] = run
        self.tis[(dag_id, run_id)] = {
            task: {"task_id": task, "state": (task_states or {}).get(task), "try_number": 0, "rendered_fields": {}}
            for task in self.tasks[dag_id]}
        return run

    def set_tis(self, run: FakeRun, **states: str | None) -> None:
        for task, state in states.items():
            entry = self.tis[(run.dag_id, run.run_id)][task]
            entry["state"] = state
            if state is not None:
                entry["try_number"] = max(1, int(entry["try_number"]))

    def states(self, run: FakeRun) -> dict[str, str | None]:
        return {task: entry["state"] for task, entry in self.tis[(run.dag_id, run.run_id)].items()}

    # -- the client's interface -------------------------------------------------------------------------------------

    def version(self) -> dict[str, Any]:
        self._call("version")
        return {"version": "3.3.2", "git_version": "test"}

    def health(self) -> dict[str, Any]:
        self._call("health")
        return {"metadatabase": {"status": "healthy"}, "scheduler": {"status": "healthy"}}

    def dags(self, prefix: str) -> list[dict[str, Any]]:
        self._call("dags")
        return [dict(dag) for dag_id, dag in sorted(self.dags_by_id.items()) if dag_id.startswith(prefix)]

    def dag(self, dag_id: str) -> dict[str, Any] | None:
        self._call("dag")
        dag = self.dags_by_id.get(dag_id)
        return dict(dag) if dag is not None else None

    def dag_details(self, dag_id: str) -> dict[str, Any]:
        self._call("dag_details")
        return {**self.dags_by_id[dag_id], "file_token": "token-of-the-dags-file"}

    def set_paused(self, dag_id: str, paused: bool) -> dict[str, Any]:
        self._call(f"set_paused {dag_id} {paused}")
        self.dags_by_id[dag_id]["is_paused"] = paused
        return dict(self.dags_by_id[dag_id])

    def delete_dag(self, dag_id: str) -> bool:
        self._call(f"delete_dag {dag_id}")
        if dag_id not in self.dags_by_id:
            return False
        if any(ti["state"] == "running" for (dag, _), tis in self.tis.items() if dag == dag_id
               for ti in tis.values()):
            raise AirflowError("Task instances are still running", 409)
        del self.dags_by_id[dag_id]
        for key in [key for key in self.runs_by_key if key[0] == dag_id]:
            del self.runs_by_key[key]
            del self.tis[key]
        return True

    def request_reparse(self, file_token: str) -> None:
        self._call("reparse")
        self.reparse_requests += 1
        if self.parse_on_request:  # the dag-processor parses the file at once: each DAG is parsed now
            for dag in self.dags_by_id.values():
                dag["last_parsed_time"] = datetime.now(UTC).isoformat()
        if self.on_reparse is not None:
            self.on_reparse()

    def runs(self, dag_id: str, *, first: datetime | None = None, last: datetime | None = None,
             states: Sequence[str] | None = None) -> list[dict[str, Any]]:
        self._call("runs")
        found = [run for (dag, _), run in self.runs_by_key.items() if dag == dag_id
                 and (first is None or run.logical_date >= first) and (last is None or run.logical_date <= last)
                 and (not states or run.state in states)]
        return [run.as_json() for run in sorted(found, key=lambda run: run.logical_date)]

    def first_run(self, dag_id: str, *, since: datetime | None = None) -> dict[str, Any] | None:
        self._call("first_run")
        found = self.runs(dag_id, first=since)
        return found[0] if found else None

    def run(self, dag_id: str, run_id: str) -> dict[str, Any] | None:
        self._call("run")
        run = self.runs_by_key.get((dag_id, run_id))
        return run.as_json() if run is not None else None

    def patch_run(self, dag_id: str, run_id: str, *, state: str | None = None,
                  note: str | None = None) -> dict[str, Any]:
        self._call(f"patch_run {run_id} {state}")
        run = self.runs_by_key[(dag_id, run_id)]
        when = self._tick()
        if note is not None:
            run.note = note or None
        if state == "failed":
            run.state = "failed"
            run.end_date = when
            for ti in self.tis[(dag_id, run_id)].values():
                if ti["state"] in ("running", "deferred", "up_for_reschedule"):
                    ti["state"] = "failed"
                elif ti["state"] not in ("success", "failed", "skipped", "upstream_failed"):
                    ti["state"] = "skipped"
            self.events.append({"event": "patch_dag_run", "dag_id": dag_id, "run_id": run_id, "when": when,
                                "extra": json.dumps({"state": "failed", "method": "PATCH"})})
        elif state == "success":
            run.state = "success"
            for ti in self.tis[(dag_id, run_id)].values():
                if ti["state"] != "success":
                    ti["state"] = "success" if ti["state"] in ("running", "deferred") else "skipped"
        return run.as_json()

    def _requeue(self, run: FakeRun, tasks: Sequence[str]) -> None:
        run.state = "queued"
        run.queued_at = self._tick()
        run.end_date = None
        for task in tasks:
            ti = self.tis[(run.dag_id, run.run_id)][task]
            ti["state"] = None

    def clear_run(self, dag_id: str, run_id: str) -> None:
        self._call(f"clear_run {run_id}")
        run = self.runs_by_key[(dag_id, run_id)]
        self._requeue(run, list(self.tasks[dag_id]))

    def clear_tasks(self, dag_id: str, run_id: str, task_ids: Sequence[str]) -> list[dict[str, Any]]:
        self._call(f"clear_tasks {run_id} {sorted(task_ids)}")
        run = self.runs_by_key[(dag_id, run_id)]
        order = list(self.tasks[dag_id])
        first = min(order.index(task) for task in task_ids)
        downstream = [task for task in order[first:] if not task.startswith("wait_for_") or task in task_ids]
        chosen = sorted(set(task_ids) | set(downstream), key=order.index)
        self._requeue(run, chosen)
        return [dict(self.tis[(dag_id, run_id)][task]) for task in chosen]

    def event_logs(self, dag_id: str, run_id: str, events: Sequence[str]) -> list[dict[str, Any]]:
        self._call("event_logs")
        return [event for event in self.events if event["dag_id"] == dag_id and event["run_id"] == run_id
                and event["event"] in events]

    def task_instances(self, dag_id: str, run_id: str) -> list[dict[str, Any]]:
        self._call("task_instances")
        return [dict(ti) for ti in self.tis[(dag_id, run_id)].values()]

    def runs_task_instances(self, dag_id: str, *, first: datetime, last: datetime) -> list[dict[str, Any]]:
        self._call("runs_task_instances")
        return [{**ti, "dag_id": dag_id, "dag_run_id": run_id} for (dag, run_id), tis in self.tis.items()
                if dag == dag_id and first <= self.runs_by_key[(dag, run_id)].logical_date <= last
                for ti in tis.values()]

    def active_task_instances(self, states: Sequence[str]) -> list[dict[str, Any]]:
        self._call("active_task_instances")
        return [{**ti, "dag_id": dag_id, "dag_run_id": run_id} for (dag_id, run_id), tis in sorted(self.tis.items())
                for ti in tis.values() if ti.get("state") in states]

    def set_task_state(self, dag_id: str, run_id: str, task_id: str, state: str) -> None:
        self.tis[(dag_id, run_id)][task_id]["state"] = state

    def task_log(self, dag_id: str, run_id: str, task_id: str, try_number: int) -> list[Any]:
        self._call("task_log")
        return self.logs.get((dag_id, run_id, task_id, try_number), [{"event": "No logs available for this task."}])

    def trigger(self, dag_id: str, logical_date: datetime, *, run_id: str | None = None,
                conf: Mapping[str, Any] | None = None) -> dict[str, Any]:
        return self.add_run(dag_id, logical_date).as_json()

    def run_url(self, dag_id: str, run_id: str) -> str:
        return f"{self.base}/dags/{dag_id}/runs/{run_id}"

    def task_url(self, dag_id: str, run_id: str, task_id: str, try_number: int | None = None) -> str:
        return f"{self.run_url(dag_id, run_id)}/tasks/{task_id}" + (f"?try_number={try_number}" if try_number else "")

    def log_api_url(self, dag_id: str, run_id: str, task_id: str, try_number: int) -> str:
        return f"{self.base}/api/v2/dags/{dag_id}/dagRuns/{run_id}/taskInstances/{task_id}/logs/{try_number}"


@dataclass
class Kit:
    """A store folder, an in-memory Airflow, and ways to run commands against both."""

    root: Path
    airflow: FakeAirflow
    inbox: Path

    def write(self, relative: str, xml: str) -> Path:
        path = self.root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(xml), encoding="utf-8")
        return path

    def draft(self, name: str, xml: str) -> Path:
        """An entity file outside the store (what a user passes with -file)."""
        path = self.inbox / name
        path.write_text(textwrap.dedent(xml), encoding="utf-8")
        return path

    def context(self, *, do_as: str | None = None) -> Context:
        settings = Settings(url=FakeAirflow.base, entities=self.root, wait_seconds=0.0)
        context = Context.create(settings, do_as=do_as)
        context._client = self.airflow  # type: ignore[assignment]
        return context

    def run(self, *argv: str) -> tuple[int, str, str]:
        """Run ``falcon-airflow <argv>`` (entity/instance/admin) in-process; (exit code, stdout, stderr)."""
        args = build_parser().parse_args([*argv, "--entities", str(self.root)])
        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            code = load(args.run)(args)
        return int(code), out.getvalue(), err.getvalue()

    def json(self, *argv: str) -> tuple[int, dict[str, Any]]:
        code, out, _ = self.run(*argv, "-json")
        return code, json.loads(out)
