"""How the REST client reads Airflow's listings: pages as large as the server gives, until ``total_entries``; the
task instances of a window's runs in one listing."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from falcon_airflow.operate import airflow_api
from falcon_airflow.operate.airflow_api import AirflowClient
from falcon_airflow.operate.settings import Settings


def listing(client: AirflowClient, monkeypatch: pytest.MonkeyPatch, items: int, maximum: int,
            total: bool = True) -> list[dict[str, Any]]:
    """What the client sends to a server holding ``items`` runs that answers at most ``maximum`` a page."""
    sent: list[dict[str, Any]] = []

    def request(method: str, path: str, *, params: dict[str, Any] | None = None, **_: Any) -> Any:
        assert params is not None
        sent.append({"path": path, **params})
        offset, limit = int(params["offset"]), min(int(params["limit"]), maximum)
        page = [{"dag_run_id": f"r{index}"} for index in range(offset, min(items, offset + limit))]
        return {"dag_runs": page, **({"total_entries": items} if total else {})}

    monkeypatch.setattr(client, "request", request)
    return sent


def client(tmp_path: Path) -> AirflowClient:
    return AirflowClient(Settings(url="http://airflow.test", entities=tmp_path, token="t"))


@pytest.mark.parametrize("maximum", [100, 1000, 50_000])
def test_pages_are_read_until_the_total_whatever_page_the_server_allows(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, maximum: int) -> None:
    reader = client(tmp_path)
    sent = listing(reader, monkeypatch, 2345, maximum)
    runs = reader.runs("d")
    assert [run["dag_run_id"] for run in runs] == [f"r{index}" for index in range(2345)]
    assert len(sent) == -(-2345 // min(maximum, airflow_api.PAGE))
    assert {call["limit"] for call in sent} == {airflow_api.PAGE}


def test_without_a_total_a_short_page_is_the_last(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    reader = client(tmp_path)
    sent = listing(reader, monkeypatch, airflow_api.PAGE + 5, airflow_api.PAGE, total=False)
    assert len(reader.runs("d")) == airflow_api.PAGE + 5
    assert [call["offset"] for call in sent] == [0, airflow_api.PAGE]


def test_the_task_instances_of_a_window_s_runs_are_one_listing(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    reader = client(tmp_path)
    sent: list[tuple[str, dict[str, Any]]] = []

    def request(method: str, path: str, *, params: dict[str, Any] | None = None, **_: Any) -> Any:
        sent.append((path, dict(params or {})))
        return {"task_instances": [{"task_id": "t", "dag_run_id": "r"}], "total_entries": 1}

    monkeypatch.setattr(reader, "request", request)
    found = reader.runs_task_instances("falcon.process.p.c1", first=datetime(2026, 1, 1, tzinfo=UTC),
                                       last=datetime(2026, 1, 2, tzinfo=UTC))
    assert found == [{"task_id": "t", "dag_run_id": "r"}]
    assert sent == [("/dags/falcon.process.p.c1/dagRuns/~/taskInstances",
                     {"logical_date_gte": "2026-01-01T00:00:00Z", "logical_date_lte": "2026-01-02T00:00:00Z",
                      "order_by": "id", "limit": airflow_api.PAGE, "offset": 0})]


def test_the_first_run_of_a_dag_is_one_short_request(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    reader = client(tmp_path)
    sent: list[tuple[str, dict[str, Any]]] = []
    answers: list[Any] = [{"dag_runs": [{"dag_run_id": "r0", "logical_date": "2026-01-01T00:00:00Z"}],
                           "total_entries": 9000}, {"dag_runs": [], "total_entries": 0}]

    def request(method: str, path: str, *, params: dict[str, Any] | None = None, **_: Any) -> Any:
        sent.append((path, dict(params or {})))
        return answers.pop(0)

    monkeypatch.setattr(reader, "request", request)
    assert reader.first_run("d", since=datetime(2026, 1, 1, tzinfo=UTC)) == {
        "dag_run_id": "r0", "logical_date": "2026-01-01T00:00:00Z"}
    assert reader.first_run("d") is None
    assert sent == [("/dags/d/dagRuns", {"order_by": "logical_date", "limit": 1, "offset": 0,
                                         "logical_date_gte": "2026-01-01T00:00:00Z"}),
                    ("/dags/d/dagRuns", {"order_by": "logical_date", "limit": 1, "offset": 0})]
