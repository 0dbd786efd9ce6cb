"""The console's routes on the Falcon server: the page and its assets, the entity list and an entity's page as
JSON, for a caller signed in with Airflow's token (header or the UI's ``_token`` cookie)."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.unit.server.served import Served, serve


@pytest.fixture
def served(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Served:
    return serve(tmp_path, monkeypatch)


def get(served: Served, path: str, **params: str) -> dict:  # type: ignore[type-arg]
    client = served.client()
    client.cookies.set("_token", "ops")  # Airflow's UI session: the token of the signed-in user
    answer = client.get(path, params=params)
    assert answer.status_code == 200, answer.text
    return answer.json()  # type: ignore[no-any-return]


def test_the_page_and_its_assets_are_served(served: Served) -> None:
    client = served.client()
    client.cookies.set("_token", "ops")
    page = client.get("/console/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert 'src="static/console.js"' in page.text and "http" not in page.text.split("<body>")[1]  # nothing remote
    assert client.get("/console/static/console.js").headers["content-type"].startswith("text/javascript")
    assert client.get("/console/static/../routes.py").status_code == 404


def test_the_list_filters_sorts_and_pages_on_the_server(served: Served) -> None:
    everything = get(served, "/console/api/entities")
    assert everything["total"] == 5
    assert [(item["type"], item["name"]) for item in everything["entities"]] == [
        ("process", "count"), ("feed", "counts"), ("cluster", "east"), ("feed", "logs"), ("cluster", "west")]
    feeds = get(served, "/console/api/entities", type="feed", sort="-name", limit="1")
    assert feeds["total"] == 2 and [item["name"] for item in feeds["entities"]] == ["logs"]
    assert feeds["entities"][0]["owner"] == "ops" and feeds["entities"][0]["status"]
    client = served.client()
    client.cookies.set("_token", "ops")
    assert client.get("/console/api/entities", params={"type": "table"}).status_code == 400


def test_an_entity_page(served: Served) -> None:
    counts = get(served, "/console/api/entities/feed/counts")
    assert "<feed" in counts["definition"] and counts["owner"] == "ops"
    dags = {dag["dag_id"]: dag["url"] for dag in counts["dags"]}
    assert dags["falcon.feed.counts.replication.east.west"] == "/dags/falcon.feed.counts.replication.east.west"
    assert {(item["name"], item["relation"]) for item in counts["dependencies"]} >= {("count", "used by"),
                                                                                     ("east", "uses")}
    client = served.client()
    client.cookies.set("_token", "ops")
    assert client.get("/console/api/entities/feed/nothing").status_code in (400, 404)


def test_a_browser_session_reads_only(served: Served) -> None:
    client = served.client(authentication="airflow")
    assert client.get("/console/api/entities").status_code == 401
    client.cookies.set("_token", "ops")
    assert client.get("/console/api/entities").status_code == 200
    # the session cookie alone never authenticates a change: another site could make the browser send it
    assert client.post("/api/entities/suspend/feed/logs").status_code == 403
