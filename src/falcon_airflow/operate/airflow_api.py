"""A small client of Airflow's REST API v2 (the standard library only, so the commands work anywhere).

Authentication: a JWT from ``FALCON_AIRFLOW_TOKEN``, else one obtained from the api-server's ``/auth/token`` with
``FALCON_AIRFLOW_USER``/``FALCON_AIRFLOW_PASSWORD`` (renewed once when it expires). Neither the token nor the
password ever appears in a message, an exception or the ``-debug`` trace (which shows method, URL and status).
"""

from __future__ import annotations

import functools
import json
import ssl
import sys
import urllib.error
import urllib.request
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any
from urllib.parse import quote, urlencode

from falcon_airflow.operate.settings import Settings

PAGE = 1000
"""Items asked for per page of a listing. Airflow answers at most ``[api] maximum_page_limit`` (100 by default) and
says how many there are in all (``total_entries``), so a deployment that allows larger pages is read in fewer
calls and one that does not is read 100 at a time."""


class AirflowError(Exception):
    """A request Airflow refused or could not answer; ``status`` is the HTTP status (``None``: unreachable)."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


@functools.lru_cache(maxsize=8192)
def _segment(value: str) -> str:
    """One path segment, quoted (cached: an instance listing quotes the same DAG and task ids thousands of times)."""
    return quote(value, safe="")


def _time(moment: datetime) -> str:
    return moment.isoformat().replace("+00:00", "Z")


def _detail(body: bytes) -> str:
    try:
        document = json.loads(body.decode("utf-8", "replace"))
    except ValueError:
        return body.decode("utf-8", "replace").strip()[:300]
    detail = document.get("detail") if isinstance(document, dict) else None
    if isinstance(detail, list):  # validation errors: [{"loc": [...], "msg": ...}]
        return "; ".join(str(item.get("msg", item)) if isinstance(item, dict) else str(item) for item in detail)
    return str(detail if detail is not None else document)[:300]


class AirflowClient:
    def __init__(self, settings: Settings, *, debug: bool = False) -> None:
        self.base = settings.url
        self.settings = settings
        self.debug = debug
        self._token = settings.token

    # -- transport --------------------------------------------------------------------------------------------------

    def _obtain_token(self) -> str:
        if not (self.settings.user and self.settings.password):
            raise AirflowError("no Airflow credentials: set FALCON_AIRFLOW_TOKEN, or FALCON_AIRFLOW_USER and "
                               "FALCON_AIRFLOW_PASSWORD")
        body = json.dumps({"username": self.settings.user, "password": self.settings.password}).encode()
        document = self._send("POST", f"{self.base}/auth/token", body, {"Content-Type": "application/json"})
        token = document.get("access_token") if isinstance(document, dict) else None
        if not token:
            raise AirflowError(f"Airflow at {self.base} returned no access token for user {self.settings.user}")
        return str(token)

    def _tls(self) -> ssl.SSLContext | None:
        """With a client certificate (an api-server that demands one): the default verification presenting it."""
        if self.settings.client_cert is None:
            return None
        context = ssl.create_default_context()
        context.load_cert_chain(*self.settings.client_cert)
        return context

    def _send(self, method: str, url: str, body: bytes | None, headers: Mapping[str, str]) -> Any:
        request = urllib.request.Request(url, data=body, method=method, headers=dict(headers))
        try:
            with urllib.request.urlopen(request, timeout=self.settings.http_timeout,
                                        context=self._tls()) as response:
                payload = response.read()
                status = response.status
        except urllib.error.HTTPError as problem:
            status = problem.code
            payload = problem.read()
            if self.debug:
                print(f"[debug] {method} {url} -> {status}", file=sys.stderr)
            raise AirflowError(f"{method} {url.removeprefix(self.base)}: HTTP {status}: {_detail(payload)}",
                               status) from None
        except (urllib.error.URLError, TimeoutError, OSError) as problem:
            reason = getattr(problem, "reason", problem)
            raise AirflowError(f"cannot reach Airflow at {self.base}: {reason}") from None
        if self.debug:
            print(f"[debug] {method} {url} -> {status}", file=sys.stderr)
        if not payload:
            return None
        try:
            return json.loads(payload)
        except ValueError:
            return payload.decode("utf-8", "replace")

    def request(self, method: str, path: str, *, params: Mapping[str, Any] | None = None,
                body: Any = None, api: str = "/api/v2") -> Any:
        """Call ``<api><path>``; JSON in, JSON out. Renews the token once on 401 when it can."""
        query = ""
        if params:
            pairs = [(key, value) for key, value in params.items() if value is not None]
            query = "?" + urlencode(pairs, doseq=True) if pairs else ""
        url = f"{self.base}{api}{path}{query}"
        data = None if body is None else json.dumps(body).encode()
        for attempt in (1, 2):
            if self._token is None:
                self._token = self._obtain_token()
            headers = {"Accept": "application/json", "Authorization": f"Bearer {self._token}"}
            if data is not None:
                headers["Content-Type"] = "application/json"
            try:
                return self._send(method, url, data, headers)
            except AirflowError as problem:
                renewable = self.settings.user and self.settings.password
                if problem.status == 401 and attempt == 1 and renewable:
                    self._token = None
                    continue
                raise
        raise AssertionError("unreachable")

    def _pages(self, path: str, key: str, params: Mapping[str, Any]) -> list[dict[str, Any]]:
        """Every item of a listing, page after page: until ``total_entries`` are read (a page may be shorter than
        asked, the server's maximum), or a short page when the answer does not say how many there are."""
        items: list[dict[str, Any]] = []
        offset = 0
        while True:
            document = self.request("GET", path, params={**params, "limit": PAGE, "offset": offset})
            page = list(document.get(key, [])) if isinstance(document, dict) else []
            items.extend(page)
            total = document.get("total_entries") if isinstance(document, dict) else None
            offset += len(page)
            if not page or (offset >= total if isinstance(total, int) else len(page) < PAGE):
                return items

    # -- server -----------------------------------------------------------------------------------------------------

    def authenticate(self) -> None:
        """Prove the credentials now: a password is exchanged for a token; a given token must be accepted by the
        API (401: refused; 403 still proves who it is). Raises :class:`AirflowError` otherwise."""
        if self._token is None:
            self._token = self._obtain_token()
            return
        try:
            self.request("GET", "/dags", params={"limit": 1})
        except AirflowError as problem:
            if problem.status != 403:
                raise

    def user_roles(self, username: str) -> frozenset[str] | None:
        """The user's roles under the FAB auth manager (``None``: another auth manager, or the caller may not read
        users - FAB lets only roles with ``can_read`` on Users do so)."""
        try:
            document = self.request("GET", f"/users/{_segment(username)}", api="/auth/fab/v1")
        except AirflowError as problem:
            if problem.status in (401, 403, 404, 405):
                return None
            raise
        roles = document.get("roles") if isinstance(document, dict) else None
        return frozenset(str(role.get("name")) for role in roles or () if isinstance(role, dict) and role.get("name"))

    def version(self) -> dict[str, Any]:
        return dict(self.request("GET", "/version"))

    def health(self) -> dict[str, Any]:
        return dict(self.request("GET", "/monitor/health"))

    # -- DAGs -------------------------------------------------------------------------------------------------------

    def dags(self, prefix: str) -> list[dict[str, Any]]:
        """DAGs whose id starts with ``prefix`` (stale ones too: a DAG Airflow no longer parses still has runs)."""
        found = self._pages("/dags", "dags", {"dag_id_prefix_pattern": prefix, "exclude_stale": "false"})
        return [dag for dag in found if str(dag.get("dag_id", "")).startswith(prefix)]

    def dag(self, dag_id: str) -> dict[str, Any] | None:
        try:
            return dict(self.request("GET", f"/dags/{_segment(dag_id)}"))
        except AirflowError as problem:
            if problem.status == 404:
                return None
            raise

    def dag_details(self, dag_id: str) -> dict[str, Any]:
        return dict(self.request("GET", f"/dags/{_segment(dag_id)}/details"))

    def set_paused(self, dag_id: str, paused: bool) -> dict[str, Any]:
        return dict(self.request("PATCH", f"/dags/{_segment(dag_id)}", body={"is_paused": paused}))

    def delete_dag(self, dag_id: str) -> bool:
        """Delete a DAG and its runs; ``False`` when it did not exist. 409 while tasks still run."""
        try:
            self.request("DELETE", f"/dags/{_segment(dag_id)}")
        except AirflowError as problem:
            if problem.status == 404:
                return False
            raise
        return True

    def request_reparse(self, file_token: str) -> None:
        """Ask the dag-processor to parse a DAG file now (409: a request is already queued, which is as good)."""
        try:
            self.request("PUT", f"/parseDagFile/{_segment(file_token)}")
        except AirflowError as problem:
            if problem.status != 409:
                raise

    # -- runs -------------------------------------------------------------------------------------------------------

    def runs(self, dag_id: str, *, first: datetime | None = None, last: datetime | None = None,
             states: Sequence[str] | None = None) -> list[dict[str, Any]]:
        """Runs whose logical date is in [first, last], oldest first."""
        params: dict[str, Any] = {"order_by": "logical_date"}
        if first is not None:
            params["logical_date_gte"] = _time(first)
        if last is not None:
            params["logical_date_lte"] = _time(last)
        if states:
            params["state"] = list(states)
        try:
            return self._pages(f"/dags/{_segment(dag_id)}/dagRuns", "dag_runs", params)
        except AirflowError as problem:
            if problem.status == 404:
                return []
            raise

    def first_run(self, dag_id: str, *, since: datetime | None = None) -> dict[str, Any] | None:
        """The run with the earliest logical date (at or after ``since`` when given); ``None`` when the DAG has none
        (or does not exist). One short request, however many runs the DAG has."""
        params: dict[str, Any] = {"order_by": "logical_date", "limit": 1, "offset": 0}
        if since is not None:
            params["logical_date_gte"] = _time(since)
        try:
            document = self.request("GET", f"/dags/{_segment(dag_id)}/dagRuns", params=params)
        except AirflowError as problem:
            if problem.status == 404:
                return None
            raise
        found = document.get("dag_runs") if isinstance(document, dict) else None
        return dict(found[0]) if found else None

    def run(self, dag_id: str, run_id: str) -> dict[str, Any] | None:
        try:
            return dict(self.request("GET", f"/dags/{_segment(dag_id)}/dagRuns/{_segment(run_id)}"))
        except AirflowError as problem:
            if problem.status == 404:
                return None
            raise

    def trigger(self, dag_id: str, logical_date: datetime, *, run_id: str | None = None,
                conf: Mapping[str, Any] | None = None) -> dict[str, Any]:
        body: dict[str, Any] = {"logical_date": _time(logical_date), "conf": dict(conf or {})}
        if run_id:
            body["dag_run_id"] = run_id
        return dict(self.request("POST", f"/dags/{_segment(dag_id)}/dagRuns", body=body))

    def patch_run(self, dag_id: str, run_id: str, *, state: str | None = None,
                  note: str | None = None) -> dict[str, Any]:
        body: dict[str, Any] = {}
        if note is not None:
            body["note"] = note
        if state is not None:
            body["state"] = state
        return dict(self.request("PATCH", f"/dags/{_segment(dag_id)}/dagRuns/{_segment(run_id)}", body=body))

    def clear_run(self, dag_id: str, run_id: str) -> None:
        """Clear every task instance of a run (it goes back to queued)."""
        self.request("POST", f"/dags/{_segment(dag_id)}/dagRuns/{_segment(run_id)}/clear", body={"dry_run": False})

    def clear_tasks(self, dag_id: str, run_id: str, task_ids: Iterable[str]) -> list[dict[str, Any]]:
        """Clear these task instances of a run and everything downstream of them; the run goes back to queued."""
        body = {"dry_run": False, "dag_run_id": run_id, "task_ids": sorted(set(task_ids)), "only_failed": False,
                "include_downstream": True, "reset_dag_runs": True}
        document = self.request("POST", f"/dags/{_segment(dag_id)}/clearTaskInstances", body=body)
        return list(document.get("task_instances", [])) if isinstance(document, dict) else []

    def event_logs(self, dag_id: str, run_id: str, events: Sequence[str]) -> list[dict[str, Any]]:
        return self._pages("/eventLogs", "event_logs", {"dag_id": dag_id, "run_id": run_id,
                                                         "included_events": list(events)})

    # -- task instances ---------------------------------------------------------------------------------------------

    def task_instances(self, dag_id: str, run_id: str) -> list[dict[str, Any]]:
        return self._pages(f"/dags/{_segment(dag_id)}/dagRuns/{_segment(run_id)}/taskInstances", "task_instances",
                           {})

    def runs_task_instances(self, dag_id: str, *, first: datetime, last: datetime) -> list[dict[str, Any]]:
        """The task instances of every run of the DAG whose logical date is in [first, last], in one listing (each
        names its run: ``dag_run_id``), in the order they were made."""
        params = {"logical_date_gte": _time(first), "logical_date_lte": _time(last), "order_by": "id"}
        try:
            return self._pages(f"/dags/{_segment(dag_id)}/dagRuns/~/taskInstances", "task_instances", params)
        except AirflowError as problem:
            if problem.status == 404:
                return []
            raise

    def active_task_instances(self, states: Sequence[str]) -> list[dict[str, Any]]:
        """Task instances of every DAG and run in one of ``states`` (what Airflow is doing right now)."""
        return self._pages("/dags/~/dagRuns/~/taskInstances", "task_instances", {"state": list(states)})

    def set_task_state(self, dag_id: str, run_id: str, task_id: str, state: str) -> None:
        self.request("PATCH", f"/dags/{_segment(dag_id)}/dagRuns/{_segment(run_id)}/taskInstances/"
                     f"{_segment(task_id)}", body={"new_state": state})

    def task_log(self, dag_id: str, run_id: str, task_id: str, try_number: int) -> list[Any]:
        """The log of one try of a task instance: a list of structured entries (dicts) or lines."""
        document = self.request("GET", f"/dags/{_segment(dag_id)}/dagRuns/{_segment(run_id)}/taskInstances/"
                                f"{_segment(task_id)}/logs/{try_number}", params={"full_content": "true"})
        if isinstance(document, dict):
            content = document.get("content")
            return list(content) if isinstance(content, list) else [content]
        return [document]

    # -- links for people -------------------------------------------------------------------------------------------

    def run_url(self, dag_id: str, run_id: str) -> str:
        return f"{self.base}/dags/{_segment(dag_id)}/runs/{_segment(run_id)}"

    def task_url(self, dag_id: str, run_id: str, task_id: str, try_number: int | None = None) -> str:
        url = f"{self.run_url(dag_id, run_id)}/tasks/{_segment(task_id)}"
        return f"{url}?try_number={try_number}" if try_number else url

    def log_api_url(self, dag_id: str, run_id: str, task_id: str, try_number: int) -> str:
        return (f"{self.base}/api/v2/dags/{_segment(dag_id)}/dagRuns/{_segment(run_id)}/taskInstances/"
                f"{_segment(task_id)}/logs/{try_number}")
