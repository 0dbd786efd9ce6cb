"""An entity's page in the console: its versions (who, when, why) on either store, the line diff of two of them, its
declared SLA and the instances that missed it, and the routes for a caller who may or may not read the entity."""

from __future__ import annotations

import difflib
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import create_engine
from tests.builders import ops_cluster, ops_datasource, ops_feed, ops_process
from tests.unit.operate.helpers import FakeAirflow
from tests.unit.operate.test_table_store import Server as TableServer
from tests.unit.server.served import serve

from falcon_airflow.entities import Entity, EntityType
from falcon_airflow.parsing import parse_bytes
from falcon_airflow.server.console.sla_view import declared, newest_misses
from falcon_airflow.server.console.versions import DiffLine, line_diff, versions_of
from falcon_airflow.store import tables
from falcon_airflow.store.database import DatabaseStore

OPS = {"Authorization": "Bearer ops"}


def parse_entity(data: bytes) -> Entity:
    parsed = parse_bytes(data)
    assert parsed.entity is not None and not parsed.has_errors, parsed.issues
    return parsed.entity
SLA = '<frequency>hours(1)</frequency>\n  <sla slaLow="hours(1)" slaHigh="hours(2)"/>'


# -- the diff ----------------------------------------------------------------------------------------------------------

def test_a_diff_shows_each_changed_line_with_its_numbers_and_the_hunks_of_a_unified_diff() -> None:
    old = "\n".join(f"line {number}" for number in range(1, 21))
    new = old.replace("line 10", "line ten").replace("line 20", "line 20\nline 21")
    rows = line_diff(old, new)
    assert [row for row in rows if row.kind in ("removed", "added")] == [
        DiffLine("removed", "line 10", 10, None), DiffLine("added", "line ten", None, 10),
        DiffLine("added", "line 21", None, 21)]
    # the hunks are where difflib's own unified diff puts them, and the context lines carry both numbers
    expected = [line.strip() for line in difflib.unified_diff(old.splitlines(), new.splitlines(), lineterm="")
                if line.startswith("@@")]
    assert [row.text for row in rows if row.kind == "hunk"] == expected == ["@@ -7,7 +7,7 @@", "@@ -18,3 +18,4 @@"]
    assert DiffLine("context", "line 9", 9, 9) in rows and DiffLine("context", "line 11", 11, 11) in rows
    assert not any(row.text == "line 1" for row in rows)  # far from any change
    assert line_diff(old, old) == []
    assert line_diff("", "a") == [DiffLine("hunk", "@@ -0,0 +1,1 @@"), DiffLine("added", "a", None, 1)]


def test_markup_in_a_definition_stays_text_in_the_diff() -> None:
    rows = line_diff('<feed name="a">', '<feed name="a"><script>alert(1)</script>')
    assert rows[-1] == DiffLine("added", '<feed name="a"><script>alert(1)</script>', None, 1)


# -- versions in the database's store ----------------------------------------------------------------------------------

def test_the_database_store_lists_every_version_with_who_when_and_why_without_secrets(tmp_path: Path,
                                                                                     monkeypatch: pytest.MonkeyPatch
                                                                                     ) -> None:
    monkeypatch.setenv("FALCON_AIRFLOW_WAIT", "0")
    engine = create_engine(f"sqlite:///{tmp_path / 'airflow.db'}")
    tables.metadata.create_all(engine)
    entities = tmp_path / "entities"
    entities.mkdir()
    server = TableServer(DatabaseStore(engine), entities, FakeAirflow())
    server.act("entity", "submit", type="cluster", file=ops_cluster("east"))
    server.act("entity", "submit", type="datasource", user="ann", file=ops_datasource("shop"))
    changed = ops_datasource("shop").replace("db.example:5432", "db2.example:5432")
    server.act("entity", "update", type="datasource", name="shop", user="bob", file=changed)
    versions = versions_of(server.store(), EntityType.DATASOURCE, "shop")
    assert [(item.number, item.current, item.submitted_by, item.retired_by, item.retired_because)
            for item in versions] == [(1, False, "ann", "bob", "update"), (2, True, "bob", "", "")]
    assert versions[0].retired_at == versions[1].submitted_at != ""
    assert all("secret" not in item.text for item in versions)  # the password, as entity -definition hides it
    assert "db2.example" in versions[1].text and "db2.example" not in versions[0].text
    server.act("entity", "delete", type="datasource", name="shop", user="cid")
    gone = versions_of(server.store(), EntityType.DATASOURCE, "shop")
    assert [(item.current, item.retired_by, item.retired_because) for item in gone] == [
        (False, "bob", "update"), (False, "cid", "delete")]


# -- versions in the folder, through the console's routes --------------------------------------------------------------

def test_the_console_lists_a_feed_s_versions_after_an_update_and_diffs_two(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    served = serve(tmp_path, monkeypatch)
    client = served.client()
    first = client.get("/console/api/versions/feed/logs", headers=OPS)
    assert first.status_code == 200, first.text
    assert [item["number"] for item in first.json()["versions"]] == [1]
    update = served.call("POST", "/api/entities/update/feed/logs", body=ops_feed("logs", days=5), user="ops")
    assert update.status_code == 200, update.text
    answer = client.get("/console/api/versions/feed/logs", headers=OPS).json()
    old, new = answer["versions"]
    assert (old["current"], old["retiredBy"], old["retiredBecause"]) == (False, "ops", "update") and old["retiredAt"]
    assert (new["current"], new["submittedBy"], new["submittedAt"]) == (True, "ops", old["retiredAt"])
    diff = client.get("/console/api/versions/feed/logs/diff", params={"from": "1", "to": "2"}, headers=OPS)
    assert diff.status_code == 200, diff.text
    body = diff.json()
    assert (body["from"], body["to"], body["identical"]) == (1, 2, False)
    changed = {(line["kind"], line["text"].strip()) for line in body["lines"] if line["kind"] in ("added", "removed")}
    assert changed == {("removed", '<retention limit="days(2)" action="delete"/>'),
                       ("added", '<retention limit="days(5)" action="delete"/>')}
    same = client.get("/console/api/versions/feed/logs/diff", params={"from": "2", "to": "2"}, headers=OPS).json()
    assert same["identical"] is True and same["lines"] == []
    wrong = client.get("/console/api/versions/feed/logs/diff", params={"from": "3", "to": "1"}, headers=OPS)
    assert wrong.status_code == 400 and "between 1 and 2" in wrong.json()["error"]
    assert client.get("/console/api/versions/table/logs", headers=OPS).status_code == 400
    assert client.get("/console/api/versions/feed/ghost", headers=OPS).status_code in (400, 404)
    secured = served.client(authorization_enabled="true")
    for path in ("/console/api/versions/feed/logs", "/console/api/versions/feed/logs/diff?from=1&to=2",
                 "/console/api/sla/feed/logs"):
        refused = secured.get(path, headers={"Authorization": "Bearer mallory"})
        assert refused.status_code == 403, (path, refused.text)
        assert "error" in refused.json()


# -- the SLA -----------------------------------------------------------------------------------------------------------

def test_the_declared_sla_of_a_feed_and_of_a_process_in_falcon_s_names() -> None:
    feed = parse_entity(ops_feed("logs").replace("<frequency>hours(1)</frequency>", SLA).encode())
    assert [item.as_json() for item in declared(feed)] == [
        {"cluster": None, "limits": [{"name": "slaLow", "value": "hours(1)"},
                                     {"name": "slaHigh", "value": "hours(2)"}]}]
    process = parse_entity(ops_process("count").replace(
        "/></cluster>", '/><sla shouldStartIn="minutes(30)"/></cluster>').replace(
        "<frequency>hours(1)</frequency>",
        '<frequency>hours(1)</frequency>\n  <sla shouldStartIn="minutes(10)" shouldEndIn="hours(1)"/>').encode())
    assert [item.as_json() for item in declared(process)] == [
        {"cluster": None, "limits": [{"name": "shouldStartIn", "value": "minutes(10)"},
                                     {"name": "shouldEndIn", "value": "hours(1)"}]},
        {"cluster": "east", "limits": [{"name": "shouldStartIn", "value": "minutes(30)"}]}]
    assert declared(parse_entity(ops_feed("counts").encode())) == []


def test_misses_are_listed_newest_first() -> None:
    found = [{"entityName": "logs", "entityType": "FEED", "cluster": "east", "instanceTime": f"2026-05-01T0{hour}:00Z",
              "tags": tag} for hour, tag in ((1, "Missed SLA Low"), (3, "Missed SLA High"))]
    assert newest_misses(found) == [
        {"cluster": "east", "instanceTime": "2026-05-01T03:00Z", "tag": "Missed SLA High"},
        {"cluster": "east", "instanceTime": "2026-05-01T01:00Z", "tag": "Missed SLA Low"}]
    assert len(newest_misses(found, limit=1)) == 1


def test_the_console_shows_a_feed_s_sla_and_its_recent_misses(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    served = serve(tmp_path, monkeypatch)
    served.kit.write("feeds/logs.xml", ops_feed("logs").replace("<frequency>hours(1)</frequency>", SLA))
    monitor = "falcon.feed.logs.sla.east"
    airflow = served.airflow
    airflow.add_dag(monitor, ("within_slaLow", "missed_slaLow", "within_slaHigh", "missed_slaHigh"))
    hour = datetime.now(UTC).replace(minute=0, second=0, microsecond=0)
    for back, low, high in ((3, "skipped", "skipped"), (2, "success", "skipped"), (1, "success", "success")):
        run = airflow.add_run(monitor, hour - timedelta(hours=back), state="success")
        airflow.set_tis(run, missed_slaLow=low, missed_slaHigh=high)
    old = airflow.add_run(monitor, hour - timedelta(days=30), state="success")  # before the page's window
    airflow.set_tis(old, missed_slaLow="success", missed_slaHigh="success")
    client = served.client()
    body = client.get("/console/api/sla/feed/logs", headers=OPS).json()
    assert body["declared"][0]["limits"] == [{"name": "slaLow", "value": "hours(1)"},
                                             {"name": "slaHigh", "value": "hours(2)"}]
    assert body["missesError"] is None and body["window"]["start"] < body["window"]["end"]
    stamp = "%Y-%m-%dT%H:%MZ"
    assert body["misses"] == [
        {"cluster": "east", "instanceTime": (hour - timedelta(hours=1)).strftime(stamp), "tag": "Missed SLA High"},
        {"cluster": "east", "instanceTime": (hour - timedelta(hours=2)).strftime(stamp), "tag": "Missed SLA Low"}]
    none = client.get("/console/api/sla/feed/counts", headers=OPS).json()
    assert (none["applies"], none["declared"], none["misses"]) == (True, [], [])
    cluster = client.get("/console/api/sla/cluster/east", headers=OPS).json()
    assert (cluster["applies"], cluster["declared"]) == (False, [])
