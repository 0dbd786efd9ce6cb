"""The Prism's app against two fake colo servers (httpx's mock transport) and its record on SQLite: routing,
PARTIAL, a request sent again finishing only the colo that missed it, sync, the merged list."""

from __future__ import annotations

import base64
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from xml.sax.saxutils import escape

import httpx
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import create_engine

from falcon_airflow.server.app import create_app
from falcon_airflow.server.configuration import MappingConfig
from falcon_airflow.server.prism.forwarding import Forwarder
from falcon_airflow.store import tables
from falcon_airflow.store.prism_record import PrismRecord

CLUSTER = '<cluster xmlns="uri:falcon:cluster:0.1" name="{name}" colo="{colo}"><interfaces/></cluster>'
FEED = ('<feed xmlns="uri:falcon:feed:0.1" name="{name}"><clusters>{clusters}</clusters>'
        '<locations><location type="data" path="/d/{days}"/></locations></feed>')


def feed(name: str, *clusters: str, days: int = 1) -> str:
    return FEED.format(name=name, days=days,
                       clusters="".join(f'<cluster name="{cluster}" type="source"/>' for cluster in clusters))


def result(status: str, message: str) -> httpx.Response:
    body = (f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><result><status>{status}</status>'
            f"<message>{escape(message)}</message><requestId>rid</requestId></result>")
    return httpx.Response(200 if status != "FAILED" else 400, content=body.encode(),
                          headers={"content-type": "text/xml"})


@dataclass
class FakeColo:
    """A colo server as far as the Prism sees it."""

    up: bool = True
    definitions: dict[tuple[str, str], str] = field(default_factory=dict)
    states: dict[tuple[str, str], str] = field(default_factory=dict)
    calls: list[str] = field(default_factory=list)
    users: set[str] = field(default_factory=set)
    cluster: str = ""
    """The cluster whose instances this colo runs."""
    searched: list[dict[str, str]] = field(default_factory=list)
    queries: list[str] = field(default_factory=list)

    def handle(self, request: httpx.Request) -> httpx.Response:
        if not self.up:
            raise httpx.ConnectError("Connection refused", request=request)
        self.users.add(request.url.params.get("user.name", ""))
        path = request.url.path.removeprefix("/falcon/api/")
        self.calls.append(f"{request.method} {path}")
        self.queries.append(request.url.query.decode())
        parts = path.split("/")
        if parts[:2] == ["instance", "search"]:  # the instances given to this colo in ``searched``
            return httpx.Response(200, json={"status": "SUCCEEDED", "message": "Instances Search Results",
                                             "requestId": "r", "instances": list(self.searched)})
        if parts[:2] == ["instance", "dependencies"]:  # the process writing the instance, on the colo's cluster
            return httpx.Response(200, json={"status": "SUCCEEDED", "message": "default/Success!", "requestId": "r",
                                             "dependencies": [{"entityName": "make", "entityType": "process",
                                                               "cluster": self.cluster, "tags": "Output",
                                                               "instanceTime": "2026-03-01T05:00Z"}]})
        if parts[0] == "instance":
            return httpx.Response(200, json={"status": "SUCCEEDED", "message": "default/STATUS\n", "requestId": "r",
                                             "instances": [{"instance": "2026-03-01T05:00Z", "status": "RUNNING"}]})
        if parts[:2] == ["entities", "submit"]:
            kind, body = parts[2], request.content.decode()
            name = re.search(r'name="([^"]+)"', body).group(1)  # type: ignore[union-attr]
            if self.definitions.get((kind, name), body) != body:
                return result("FAILED", f"default/({kind}) {name} already registered with configuration store.")
            self.definitions[(kind, name)] = body
            return result("SUCCEEDED", f"falcon/default/Submit successful ({kind}) {name}")
        if parts[1] == "lookup":  # every feed held whose data location is the path asked, on each of its clusters
            path = request.url.params.get("path", "")
            places = [{"feedName": name, "locationType": "data", "clusterName": cluster}
                      for (kind, name), held in self.definitions.items() if kind == "feed" and f'path="{path}"' in held
                      for cluster in re.findall(r'<cluster name="([^"]+)"', held)]
            return httpx.Response(200, json={"status": "SUCCEEDED", "message": "default/SUCCESS", "requestId": "r",
                                             "elements": places[0] if len(places) == 1 else places})
        if parts[1] == "sla-alert":  # one missed instance of each feed held, on the colo's own cluster
            items = "".join(f"<instances><cluster>{self.cluster}</cluster><entityName>{name}</entityName>"
                            f"<entityType>FEED</entityType><instanceTime>2026-03-01T05:00:00Z</instanceTime>"
                            f"<tags>Missed SLA High</tags></instances>"
                            for kind, name in self.definitions if kind == parts[2] and kind == "feed"
                            and request.url.params.get("name", name) == name)
            return httpx.Response(200, content=f"<instances><status>SUCCEEDED</status><message>default/Success!"
                                               f"</message><requestId>r</requestId>{items}</instances>".encode(),
                                  headers={"content-type": "text/xml"})
        if parts[:2] == ["entities", "validate"]:
            name = re.search(r'name="([^"]+)"', request.content.decode()).group(1)  # type: ignore[union-attr]
            return result("SUCCEEDED", f"default/Validated successfully ({parts[2]}) {name}")
        if parts[1] == "touch":
            return result("SUCCEEDED", f"default/{parts[3]}({parts[2]}) touched successfully")
        if parts[1] == "updateClusterDependents":
            return result("SUCCEEDED", f"default/dependents of cluster {parts[2]} updated")
        if parts[:2] == ["entities", "update"]:
            self.definitions[(parts[2], parts[3])] = request.content.decode()
            return result("SUCCEEDED", "falcon/update/default/Updated successfully")
        if parts[1] in ("schedule", "resume", "suspend"):
            key = (parts[2], parts[3])
            self.states[key] = "SUSPENDED" if parts[1] == "suspend" else "RUNNING"
            return result("SUCCEEDED", f"default/{parts[3]}({parts[2]}) {parts[1]}d successfully")
        if parts[1] == "delete":
            self.definitions.pop((parts[2], parts[3]), None)
            return result("SUCCEEDED", f"falcon/default/{parts[3]}({parts[2]}) removed successfully")
        if parts[1] == "definition":
            found = self.definitions.get((parts[2], parts[3]))
            if found is None:
                return result("FAILED", f"default/{parts[3]} ({parts[2]}) not found")
            return httpx.Response(200, content=found.replace("/d/", "/redacted/").encode(),
                                  headers={"content-type": "text/xml"})
        if parts[1] == "status":
            state = self.states.get((parts[2], parts[3]), "SUBMITTED")
            return result("SUCCEEDED", f"default/{state}")
        if parts[1] == "dependencies":  # the clusters the held definition names
            held = self.definitions.get((parts[2], parts[3]), "")
            names = re.findall(r'<cluster name="([^"]+)"', held)
            items = "".join(f"<entity><type>cluster</type><name>{name}</name></entity>" for name in names)
            return httpx.Response(200, content=f"<entities><totalResults>{len(names)}</totalResults>"
                                               f"{items}</entities>".encode(), headers={"content-type": "text/xml"})
        if parts[1] == "summary":  # every entity of the type held, with one instance on the cluster asked
            cluster = request.url.params.get("cluster", "")
            items = "".join(f"<entitySummaries><type>{kind.upper()}</type><name>{name}</name><status>"
                            f"{self.states.get((kind, name), 'SUBMITTED')}</status><instances><instance>"
                            f"2026-03-01T05:00Z</instance><status>SUCCEEDED</status><cluster>{cluster}</cluster>"
                            f"<startTime>2026-03-01T05:00:00Z</startTime></instances></entitySummaries>"
                            for kind, name in self.definitions if kind == parts[2])
            return httpx.Response(200, content=f"<entitySummaryResult><status>SUCCEEDED</status><message>summary"
                                               f"</message><requestId>r</requestId>{items}</entitySummaryResult>"
                                               .encode(), headers={"content-type": "text/xml"})
        if parts[1] == "list":
            listed = [(kind, name) for kind, name in self.definitions if len(parts) < 3 or kind == parts[2]]
            items = "".join(f"<entity><type>{kind.upper()}</type><name>{name}</name>"
                            f"<status>{self.states.get((kind, name), 'SUBMITTED')}</status></entity>"
                            for kind, name in listed)
            return httpx.Response(200, content=f"<entities><totalResults>{len(listed)}</totalResults>"
                                               f"{items}</entities>".encode(), headers={"content-type": "text/xml"})
        return httpx.Response(404)


@dataclass
class Deployment:
    client: TestClient
    colos: dict[str, FakeColo]
    record: PrismRecord

    def post(self, path: str, body: str | None = None, **params: str) -> httpx.Response:
        return self.client.post(f"/api/{path}", content=body, params={"user.name": "alice", **params},
                                headers={"Content-Type": "text/xml", "Accept": "application/json"})


@pytest.fixture
def prism(tmp_path: Path) -> Iterator[Deployment]:
    colos = {"east": FakeColo(cluster="east"), "west": FakeColo(cluster="west")}
    # a file, so that each thread writing the record has a connection of its own, as on a server's database
    engine = create_engine(f"sqlite:///{tmp_path / 'prism.db'}")
    tables.metadata.create_all(engine)
    record = PrismRecord(engine)
    transport = httpx.MockTransport(lambda request: colos[request.url.host].handle(request))
    config = MappingConfig({"falcon": {"mode": "prism", "authentication": "simple",
                                       "authentication_secret": "s" * 32,
                                       "prism_colos": "east=http://east/falcon,west=http://west/falcon"}})
    app = create_app(config=config)
    app.state.prism._record = lambda: record
    app.state.prism.forwarder = Forwarder(5.0, transport)
    with TestClient(app) as client:
        yield Deployment(client, colos, record)
    engine.dispose()


def submit_estate(prism: Deployment) -> None:
    for name in ("east", "west"):
        answer = prism.post("entities/submit/cluster", CLUSTER.format(name=name, colo=name))
        assert answer.json()["status"] == "SUCCEEDED", answer.text


def test_clusters_go_everywhere_and_a_feed_to_its_clusters_colos(prism: Deployment) -> None:
    submit_estate(prism)
    assert set(prism.colos["west"].definitions) == {("cluster", "east"), ("cluster", "west")}
    answer = prism.post("entities/submit/feed", feed("only-east", "east"))
    assert answer.json()["message"] == "east/falcon/default/Submit successful (feed) only-east\n"
    assert ("feed", "only-east") not in prism.colos["west"].definitions
    assert prism.colos["east"].users == {"alice"}  # the caller's identity, passed on


def test_a_failed_colo_makes_the_answer_partial_and_the_same_request_finishes_it(prism: Deployment) -> None:
    submit_estate(prism)
    assert prism.post("entities/submit/feed", feed("f", "east", "west")).json()["status"] == "SUCCEEDED"
    prism.colos["west"].up = False
    answer = prism.post("entities/schedule/feed/f")
    assert answer.status_code == 200
    document = answer.json()
    assert document["status"] == "PARTIAL"
    assert document["message"].startswith("east/default/f(feed) scheduled successfully\nwest/cannot reach "
                                          "http://west/falcon: ConnectError")
    prism.colos["west"].up = True
    east_calls = len(prism.colos["east"].calls)
    document = prism.post("entities/schedule/feed/f").json()
    assert document["status"] == "SUCCEEDED"
    assert document["message"] == ("east/f(feed) is already RUNNING with this definition here: unchanged\n"
                                   "west/default/f(feed) scheduled successfully\n")
    assert len(prism.colos["east"].calls) == east_calls  # the colo that had it was not asked again
    assert prism.colos["west"].states[("feed", "f")] == "RUNNING"


def test_every_colo_failing_is_a_failure(prism: Deployment) -> None:
    for colo in prism.colos.values():
        colo.up = False
    answer = prism.post("entities/submit/cluster", CLUSTER.format(name="east", colo="east"))
    assert answer.status_code == 400


def test_sync_brings_a_colo_that_was_down_up_to_date(prism: Deployment) -> None:
    submit_estate(prism)
    prism.colos["west"].up = False
    prism.post("entities/submitAndSchedule/feed", feed("g", "east", "west"))
    prism.post("entities/update/feed/g", feed("g", "east", "west", days=2))
    prism.colos["west"].up = True
    assert ("feed", "g") not in prism.colos["west"].definitions
    document = prism.post("prism/sync").json()
    assert document["status"] == "SUCCEEDED", document
    assert prism.colos["west"].definitions[("feed", "g")] == feed("g", "east", "west", days=2)
    assert prism.colos["west"].states[("feed", "g")] == "RUNNING"
    assert "g(feed): f" not in document["message"]
    again = prism.post("prism/sync").json()["message"]
    assert "g(feed): g(feed) is already RUNNING with this definition here: unchanged" in again


def test_an_update_off_a_colo_deletes_the_entity_there_and_sync_finishes_it(prism: Deployment) -> None:
    submit_estate(prism)
    prism.post("entities/submitAndSchedule/feed", feed("moved", "east", "west"))
    answer = prism.post("entities/update/feed/moved", feed("moved", "east", days=2)).json()
    assert answer["status"] == "SUCCEEDED", answer
    assert answer["message"].splitlines() == ["east/falcon/update/default/Updated successfully",
                                              "west/falcon/default/moved(feed) removed successfully"], answer
    assert ("feed", "moved") not in prism.colos["west"].definitions
    assert set(prism.record.copies("feed", "moved")) == {"east"}

    # back on west, then off it again while west is down: PARTIAL, and the copy west keeps is recorded
    prism.post("entities/update/feed/moved", feed("moved", "east", "west", days=3))
    assert ("feed", "moved") in prism.colos["west"].definitions
    prism.colos["west"].up = False
    partial = prism.post("entities/update/feed/moved", feed("moved", "east", days=4)).json()
    assert partial["status"] == "PARTIAL" and "west/cannot reach" in partial["message"], partial
    prism.colos["west"].up = True
    assert set(prism.record.copies("feed", "moved")) == {"east", "west"}
    synced = prism.post("prism/sync").json()
    assert synced["status"] == "SUCCEEDED", synced
    assert "moved(feed): falcon/default/moved(feed) removed successfully" in synced["message"], synced
    assert ("feed", "moved") not in prism.colos["west"].definitions
    assert set(prism.record.copies("feed", "moved")) == {"east"}

    # narrowed to a colo with -colo, an update changes that colo only
    prism.post("entities/update/feed/moved", feed("moved", "east", "west", days=5))
    calls = len(prism.colos["west"].calls)
    prism.post("entities/update/feed/moved", feed("moved", "east", days=6), colo="east")
    assert len(prism.colos["west"].calls) == calls and ("feed", "moved") in prism.colos["west"].definitions


def test_another_definition_under_a_submitted_name_is_refused_before_any_colo_is_asked(prism: Deployment) -> None:
    submit_estate(prism)
    prism.post("entities/submit/feed", feed("h", "east"))
    calls = len(prism.colos["east"].calls)
    answer = prism.post("entities/submit/feed", feed("h", "east", days=3))
    assert answer.status_code == 400 and "already registered with the Prism" in answer.text
    assert len(prism.colos["east"].calls) == calls


def test_the_colo_parameter_narrows_a_request_and_a_colo_outside_is_refused(prism: Deployment) -> None:
    submit_estate(prism)
    prism.post("entities/submit/feed", feed("k", "east", "west"))
    assert prism.post("entities/schedule/feed/k", colo="west").json()["message"].startswith("west/")
    assert ("feed", "k") not in prism.colos["east"].states
    prism.post("entities/submit/feed", feed("e", "east"))
    answer = prism.post("entities/schedule/feed/e", colo="west")
    assert answer.status_code == 400 and "not applicable" in answer.text


def test_the_list_is_merged_and_labelled_by_colo(prism: Deployment) -> None:
    submit_estate(prism)
    prism.post("entities/submit/feed", feed("m", "east", "west"))
    prism.post("entities/schedule/feed/m", colo="east")
    answer = prism.client.get("/api/entities/list/feed", params={"user.name": "alice"},
                              headers={"Accept": "text/xml"})
    assert answer.status_code == 200
    assert "<name>m</name><status>east/RUNNING,west/SUBMITTED</status>" in answer.text


def test_dependencies_are_asked_of_the_entitys_colos_and_labelled_by_colo(prism: Deployment) -> None:
    submit_estate(prism)
    prism.post("entities/submit/feed", feed("both", "east", "west"))
    prism.post("entities/submit/feed", feed("only", "east"))
    answer = prism.client.get("/api/entities/dependencies/feed/both", params={"user.name": "alice"},
                              headers={"Accept": "text/xml"})
    assert answer.status_code == 200, answer.text
    assert ("<entity><type>cluster</type><name>east</name><status>east,west</status></entity>"
            "<entity><type>cluster</type><name>west</name><status>east,west</status></entity>") in answer.text
    answer = prism.client.get("/api/entities/dependencies/feed/only", params={"user.name": "alice"},
                              headers={"Accept": "application/json"})
    assert answer.json()["entity"] == {"type": "cluster", "name": "east", "status": "east"}, answer.text
    assert "GET entities/dependencies/feed/only" not in prism.colos["west"].calls


def test_a_summary_is_asked_of_the_clusters_colo(prism: Deployment) -> None:
    submit_estate(prism)
    prism.post("entities/submit/feed", feed("s", "east", "west"))
    prism.post("entities/schedule/feed/s", colo="west")
    params = {"user.name": "alice", "start": "2026-03-01T00:00Z", "end": "2026-03-02T00:00Z"}
    answer = prism.client.get("/api/entities/summary/feed", params={**params, "cluster": "west"},
                              headers={"Accept": "application/json"})
    assert answer.status_code == 200, answer.text
    document = answer.json()
    assert (document["status"], document["message"]) == ("SUCCEEDED", "west/summary\n")
    summary = document["entitySummaries"]
    assert (summary["name"], summary["status"], summary["instances"]["cluster"]) == ("s", "RUNNING", "west")
    assert not any("summary" in call for call in prism.colos["east"].calls)
    # a cluster the Prism has no record of: every colo, their entities one colo after the other
    answer = prism.client.get("/api/entities/summary/feed", params={**params, "cluster": "elsewhere"},
                              headers={"Accept": "text/xml"})
    assert answer.status_code == 200 and answer.text.count("<entitySummaries>") == 2, answer.text
    assert "<message>east/summary\nwest/summary\n</message>" in answer.text
    refused = prism.client.get("/api/entities/summary/feed", params=params)
    assert refused.status_code == 400 and "-cluster" in refused.text


def test_delete_forgets_the_entity_once_every_colo_dropped_it(prism: Deployment) -> None:
    submit_estate(prism)
    prism.post("entities/submit/feed", feed("d", "east", "west"))
    answer = prism.client.delete("/api/entities/delete/feed/d", params={"user.name": "alice"})
    assert answer.status_code == 200
    assert prism.record.wanted("feed", "d") is None and not prism.record.copies("feed", "d")


def test_instance_results_are_merged_across_the_entitys_colos(prism: Deployment) -> None:
    submit_estate(prism)
    prism.post("entities/submit/feed", feed("i", "east", "west"))
    answer = prism.client.get("/api/instance/status/feed/i", params={"user.name": "alice", "colo": "*"})
    document = answer.json()
    assert document["message"] == "east/default/STATUS\nwest/default/STATUS\n"
    assert len(document["instances"]) == 2


def test_the_version_says_prism_and_names_the_colos(prism: Deployment) -> None:
    answer = prism.client.get("/api/admin/version", params={"user.name": "alice"},
                              headers={"Accept": "application/json"})
    assert '"Mode"' in answer.text and "prism" in answer.text and "east,west" in answer.text


def test_the_prism_answers_admin_stack_and_config_about_itself(prism: Deployment) -> None:
    alice = {"user.name": "alice"}
    stack = prism.client.get("/api/admin/stack", params=alice)
    assert stack.status_code == 200 and stack.headers["content-type"].startswith("text/plain"), stack.text
    assert "MainThread\nState: " in stack.text
    deploy = prism.client.get("/api/admin/config/deploy", params=alice, headers={"Accept": "application/json"})
    assert '"deploy.mode"' in deploy.text and '"prism"' in deploy.text and '"east,west"' in deploy.text, deploy.text
    startup = prism.client.get("/api/admin/config/startup", params=alice)
    assert "<key>prism_colos</key>" in startup.text and "s" * 32 not in startup.text, startup.text
    assert prism.client.get("/api/admin/config/other", params=alice).status_code == 204
    assert not any(colo.calls for colo in prism.colos.values())  # the Prism's own, no colo asked


def test_with_authorization_on_only_an_admin_gets_the_prisms_stack_and_config(tmp_path: Path) -> None:
    config = MappingConfig({"falcon": {"mode": "prism", "authentication": "simple", "authentication_secret": "s" * 32,
                                       "prism_colos": "east=http://east/falcon", "authorization_enabled": "true",
                                       "admin.users": "root", "admin.groups": "operators",
                                       "groups.olga": "operators"}})
    engine = create_engine(f"sqlite:///{tmp_path / 'prism.db'}")
    tables.metadata.create_all(engine)
    app = create_app(config=config)
    app.state.prism._record = lambda: PrismRecord(engine)
    with TestClient(app) as client:

        def get(path: str, **params: str) -> httpx.Response:
            client.cookies.clear()  # each call signs in anew (the simple scheme's cookie would name the last user)
            return client.get(f"/api/admin/{path}", params=params)

        for path in ("stack", "config/runtime", "setSafeMode/true"):
            refused = get(path, **{"user.name": "alice"})
            assert refused.status_code == 403 and "user=alice does not have admin privilege" in refused.text, \
                refused.text
            for admin in ("root", "olga"):  # an admin user; a user in an admin group
                assert get(path, **{"user.name": admin}).status_code == 200
        runtime = get("config/runtime", **{"user.name": "root"}).text
        assert "<key>authorization_enabled</key><value>true</value>" in runtime, runtime
        # alice acting for root through doAs is no admin: she is no proxy user of root
        forged = get("stack", **{"user.name": "alice", "doAs": "root"})
        assert forged.status_code == 403, forged.text
        version = get("version", **{"user.name": "alice"})  # open to all
        assert version.status_code == 200 and {"key": "safemode", "value": "true"} in version.json()["properties"], \
            version.text
    engine.dispose()


def test_an_unauthenticated_request_reaches_no_colo(prism: Deployment) -> None:
    assert prism.client.post("/api/entities/schedule/feed/x").status_code == 401
    assert not prism.colos["east"].calls


def command(prism: Deployment, command_name: str, action: str, definition: str | None = None,
            **options: object) -> httpx.Response:
    """``falcon-airflow <name> -<action>`` as its client sends it to a server (``operate/remote.py``)."""
    document = {"options": {action: True, **options},
                "file": None if definition is None else {
                    "name": "f.xml", "data": base64.b64encode(definition.encode()).decode()}}
    return prism.client.post(f"/api/falcon-airflow/{command_name}/{action}", json=document,
                             params={"user.name": "alice"})


def test_falcon_airflows_command_line_is_routed_through_the_falcon_calls(prism: Deployment) -> None:
    submit_estate(prism)
    answer = command(prism, "entity", "submit", feed("c", "east", "west"), type="feed", file="f.xml")
    assert answer.status_code == 200 and answer.json()["exit_code"] == 0, answer.text
    assert answer.json()["text"] == ("east/falcon/default/Submit successful (feed) c\n"
                                     "west/falcon/default/Submit successful (feed) c")
    prism.colos["west"].up = False
    answer = command(prism, "entity", "schedule", type="feed", name="c", colo="*")
    assert (answer.json()["status"], answer.json()["exit_code"]) == ("PARTIAL", 1)
    prism.colos["west"].up = True
    listed = command(prism, "entity", "list", type="feed", fields="status").json()
    assert listed["text"] == "1\n(FEED) c(east/RUNNING,west/SUBMITTED)"
    touched = command(prism, "entity", "touch", type="feed", name="c")
    assert touched.json()["text"] == ("east/default/c(feed) touched successfully\n"
                                      "west/default/c(feed) touched successfully"), touched.text
    looked = command(prism, "entity", "lookup", type="feed", path="/d/1").json()
    assert looked["text"] == ("east/default/SUCCESS\nwest/default/SUCCESS\n"
                              "c  cluster east  DATA\nc  cluster west  DATA"), looked
    assert prism.colos["east"].calls[-1] == "GET entities/lookup/feed"
    alerts = command(prism, "entity", "slaAlert", type="feed", name="c", start="2026-03-01T00:00Z").json()
    assert alerts["exit_code"] == 0 and alerts["text"].splitlines()[2:] == [
        f"name: c, type: FEED, cluster: {cluster}, instanceTime: 2026-03-01T05:00Z, tags: Missed SLA High"
        for cluster in ("east", "west")], alerts
    depends = command(prism, "instance", "dependency", type="feed", name="c", instance_time="2026-03-01T05:00Z")
    assert depends.json()["text"].splitlines()[2:] == [
        f"Output: (process) make 2026-03-01T05:00Z on {cluster}" for cluster in ("east", "west")], depends.text
    assert "instanceTime=2026-03-01T05%3A00Z" in prism.colos["east"].queries[-1]
    prism.colos["west"].up = False
    partial = command(prism, "entity", "lookup", type="feed", path="/d/1").json()
    assert (partial["status"], partial["exit_code"]) == ("PARTIAL", 1), partial
    assert partial["text"].splitlines()[-1] == "c  cluster west  DATA"  # east holds c on both clusters
    prism.colos["west"].up = True
    refused = command(prism, "entity", "status", type="feed")
    assert refused.status_code == 400 and "needs -name" in refused.json()["message"]


def test_a_delete_a_colo_missed_is_finished_by_sync_and_never_undone(prism: Deployment) -> None:
    submit_estate(prism)
    prism.post("entities/submit/feed", feed("gone", "east", "west"))
    prism.colos["west"].up = False
    answer = prism.client.delete("/api/entities/delete/feed/gone", params={"user.name": "alice"},
                                 headers={"Accept": "application/json"})
    assert answer.json()["status"] == "PARTIAL"
    assert ("feed", "gone") not in prism.colos["east"].definitions
    assert prism.post("entities/schedule/feed/gone").status_code == 400  # being deleted
    prism.colos["west"].up = True
    document = prism.post("prism/sync").json()
    assert document["status"] == "SUCCEEDED", document
    assert "gone(feed): gone(feed) is already deleted here: unchanged" in document["message"]
    assert ("feed", "gone") not in prism.colos["west"].definitions
    assert ("feed", "gone") not in prism.colos["east"].definitions  # not sent back where it was dropped
    assert prism.record.wanted("feed", "gone") is None
    answer = prism.post("entities/submit/feed", feed("gone", "east", days=4))  # a new entity under the name
    assert answer.json()["status"] == "SUCCEEDED", answer.text


def test_a_definition_is_read_from_a_colo_which_decides_and_redacts(prism: Deployment) -> None:
    submit_estate(prism)
    prism.post("entities/submit/feed", feed("def", "east", "west"))
    prism.colos["east"].up = False
    answer = prism.client.get("/api/entities/definition/feed/def", params={"user.name": "alice"})
    assert answer.status_code == 200 and "/redacted/" in answer.text  # west's answer, as west gives it
    assert prism.colos["west"].calls[-1] == "GET entities/definition/feed/def"
    prism.colos["west"].up = False
    answer = prism.client.get("/api/entities/definition/feed/def", params={"user.name": "alice"})
    assert answer.status_code == 400 and "east/cannot reach" in answer.text and "west/cannot reach" in answer.text


def test_validate_asks_the_colos_the_definition_would_go_to(prism: Deployment) -> None:
    submit_estate(prism)
    answer = prism.post("entities/validate/feed", feed("v", "west"), skipDryRun="true")
    assert answer.json()["status"] == "SUCCEEDED", answer.text
    assert answer.json()["message"].strip() == "west/default/Validated successfully (feed) v"
    assert "POST entities/validate/feed" not in prism.colos["east"].calls
    assert prism.record.wanted("feed", "v") is None  # validating submits nothing
    refused = prism.post("entities/validate/feed", feed("v", "north"))
    assert refused.status_code == 400 and "cluster north" in refused.text
    assert prism.post("entities/validate/feed", "<process/>").status_code == 400


def test_touch_and_update_cluster_dependents_reach_the_colos_of_the_entity_and_of_the_cluster(
        prism: Deployment) -> None:
    submit_estate(prism)
    prism.post("entities/submit/feed", feed("t", "east"))
    touched = prism.post("entities/touch/feed/t")
    assert touched.json()["message"].strip() == "east/default/t(feed) touched successfully", touched.text
    assert not [call for call in prism.colos["west"].calls if "touch" in call]
    updated = prism.post("entities/updateClusterDependents/west")
    assert updated.json()["message"].strip() == "west/default/dependents of cluster west updated", updated.text
    assert not [call for call in prism.colos["east"].calls if "updateClusterDependents" in call]
    assert prism.post("entities/updateClusterDependents/north").json()["status"] == "SUCCEEDED"
    for colo in prism.colos.values():  # a cluster the Prism has no record of: every colo is asked
        assert "POST entities/updateClusterDependents/north" in colo.calls


def test_a_lookup_asks_every_colo_and_names_each_place_once(prism: Deployment) -> None:
    submit_estate(prism)
    prism.post("entities/submit/feed", feed("both", "east", "west", days=2))
    prism.post("entities/submit/feed", feed("here", "east", days=3))
    found = prism.client.get("/api/entities/lookup/feed", params={"user.name": "alice", "path": "/d/2"},
                             headers={"Accept": "application/json"})
    assert found.status_code == 200, found.text
    document = found.json()
    assert document["status"] == "SUCCEEDED"
    assert document["message"] == "east/default/SUCCESS\nwest/default/SUCCESS\n"
    assert document["elements"] == [{"feedName": "both", "locationType": "data", "clusterName": "east"},
                                    {"feedName": "both", "locationType": "data", "clusterName": "west"}]
    one = prism.client.get("/api/entities/lookup/feed", params={"user.name": "alice", "path": "/d/3"},
                           headers={"Accept": "application/json"}).json()
    assert one["elements"] == {"feedName": "here", "locationType": "data", "clusterName": "east"}  # mapped JSON
    prism.colos["west"].up = False
    partial = prism.client.get("/api/entities/lookup/feed", params={"user.name": "alice", "path": "/d/3"},
                               headers={"Accept": "application/json"}).json()
    assert partial["status"] == "PARTIAL" and "west/cannot reach" in partial["message"]


def test_sla_alerts_are_asked_of_the_entitys_colos_and_merged(prism: Deployment) -> None:
    submit_estate(prism)
    prism.post("entities/submit/feed", feed("both", "east", "west"))
    prism.post("entities/submit/feed", feed("here", "east", days=3))
    answer = prism.client.get("/api/entities/sla-alert/feed", params={"user.name": "alice", "start":
                                                                      "2026-03-01T00:00Z"},
                              headers={"Accept": "application/json"})
    assert answer.status_code == 200, answer.text
    missed = {(item["entityName"], item["cluster"]) for item in answer.json()["instances"]}
    assert missed == {("both", "east"), ("here", "east"), ("both", "west")}, answer.text
    named = prism.client.get("/api/entities/sla-alert/feed", params={"user.name": "alice", "name": "here",
                                                                     "start": "2026-03-01T00:00Z"},
                             headers={"Accept": "text/xml"})
    assert named.text.count("<entityName>here</entityName>") == 1, named.text
    assert "<message>east/default/Success!\n</message>" in named.text  # only here's colo was asked


def test_a_search_asks_every_colo_and_orders_and_pages_their_instances_as_one(prism: Deployment) -> None:
    def found(instance: str, status: str, started: str, cluster: str) -> dict[str, str]:
        return {"instance": instance, "status": status, "startTime": started, "cluster": cluster}

    prism.colos["east"].searched = [found("a/2026-03-01T05:00Z", "RUNNING", "2026-03-01T05:01:00Z", "east"),
                                    found("b/2026-03-01T03:00Z", "SUCCEEDED", "2026-03-01T03:09:00Z", "east")]
    prism.colos["west"].searched = [found("a/2026-03-01T04:00Z", "FAILED", "2026-03-01T04:02:00Z", "west")]
    five, four, three = "a/2026-03-01T05:00Z", "a/2026-03-01T04:00Z", "b/2026-03-01T03:00Z"

    def search(**params: str) -> list[str]:
        answer = prism.client.get("/api/instance/search", params={"user.name": "alice", **params})
        assert answer.status_code == 200, answer.text
        return [item["instance"] for item in answer.json()["instances"]]

    assert search() == [five, four, three]  # newest first
    assert search(start="2026-03-01T00:00Z") == [three, four, five]
    assert search(orderBy="status") == [four, five, three]
    assert search(orderBy="starttime") == [five, four, three]
    assert search(orderBy="cluster", sortOrder="desc") == [four, five, three]
    assert search(offset="1", numResults="1") == [four]
    assert all("offset" not in query and "numResults" not in query for query in prism.colos["east"].queries)
    printed = command(prism, "instance", "search", type="feed", num_results="2")  # falcon-airflow's command line
    assert printed.json()["exit_code"] == 0, printed.text
    assert printed.json()["text"].splitlines()[-2:] == [f"{five} east RUNNING", f"{four} west FAILED"]
    refused = prism.client.get("/api/instance/search", params={"user.name": "alice", "numResults": "0"})
    assert refused.status_code == 400 and "numResults" in refused.text
    prism.colos["west"].up = False
    failed = prism.client.get("/api/instance/search", params={"user.name": "alice"})
    assert failed.status_code == 400 and "west/cannot reach" in failed.text


def test_a_command_on_an_entity_another_command_is_changing_is_refused_until_it_lets_go(prism: Deployment) -> None:
    submit_estate(prism)
    assert prism.post("entities/submitAndSchedule/feed", feed("f", "east", "west")).json()["status"] == "SUCCEEDED"
    prism.colos["east"].up = False  # g misses east: the sync below brings it
    assert prism.post("entities/submit/feed", feed("g", "east")).json()["status"] == "FAILED"
    prism.colos["east"].up = True
    # an update of f runs in another of the Prism's processes
    holder = prism.record.hold("feed", "f", "update", term_seconds=60)
    calls = {name: len(colo.calls) for name, colo in prism.colos.items()}
    busy = "update command is already issued for (feed) f through the Prism; try again when it has finished"
    for path, body in [("entities/update/feed/f", feed("f", "east", "west", days=5)), ("entities/suspend/feed/f", None),
                       ("entities/submit/feed", feed("f", "east", "west"))]:
        refused = prism.post(path, body)
        assert refused.status_code == 400 and f"<message>{busy}</message>" in refused.text, (path, refused.text)
    deleted = prism.client.delete("/api/entities/delete/feed/f", params={"user.name": "alice"},
                                  headers={"Accept": "application/json"})
    assert deleted.status_code == 400 and f"<message>{busy}</message>" in deleted.text
    assert {name: len(colo.calls) for name, colo in prism.colos.items()} == calls  # no colo was asked
    assert prism.record.wanted("feed", "f").schedule_state == "RUNNING"  # type: ignore[union-attr]

    # a sync leaves f to the command changing it and brings the rest up to date
    synced = prism.post("prism/sync").json()
    assert synced["status"] == "SUCCEEDED", synced
    assert f"f(feed): not synced: {busy}" in synced["message"]
    assert prism.colos["east"].definitions[("feed", "g")] == feed("g", "east")

    prism.record.let_go("feed", "f", holder)
    assert prism.post("entities/suspend/feed/f").json()["status"] == "SUCCEEDED"
    assert prism.colos["west"].states[("feed", "f")] == "SUSPENDED"


def test_an_entity_is_let_go_after_a_refused_command_and_a_dead_holders_term_ends(prism: Deployment) -> None:
    submit_estate(prism)
    missing = prism.post("entities/update/feed/h", feed("h", "east"))
    assert missing.status_code == 400 and "h (feed) not found in the Prism" in missing.text
    assert prism.post("entities/submit/feed", feed("h", "east")).json()["status"] == "SUCCEEDED"
    # a Prism process killed while it held h: once its term has ended, the next command goes ahead
    prism.record.hold("feed", "h", "schedule", term_seconds=-1)
    assert prism.post("entities/schedule/feed/h").json()["status"] == "SUCCEEDED"
    assert prism.colos["east"].states[("feed", "h")] == "RUNNING"


def test_in_safemode_the_prism_refuses_what_a_server_in_safemode_refuses_before_asking_a_colo(
        prism: Deployment) -> None:
    submit_estate(prism)
    assert prism.post("entities/submitAndSchedule/feed", feed("f", "east", "west")).json()["status"] == "SUCCEEDED"
    alice = {"user.name": "alice"}
    refused_outside = prism.post("entities/update/cluster/east", CLUSTER.format(name="east", colo="east"))
    assert refused_outside.status_code == 400, refused_outside.text
    assert "UPDATE is only allowed on cluster entities during safemode" in refused_outside.text
    bad = prism.client.get("/api/admin/setSafeMode/maybe", params=alice)
    assert bad.status_code == 400 and "Invalid value &quot;maybe&quot; provided for safemode." in bad.text, bad.text

    entered = prism.client.get("/api/admin/setSafeMode/true", params=alice)  # as Falcon 0.10's client sends it
    assert entered.status_code == 200 and entered.text == "true", entered.text
    version = prism.client.get("/api/admin/version", params=alice).json()
    assert {"key": "safemode", "value": "true"} in version["properties"], version
    calls = {name: len(colo.calls) for name, colo in prism.colos.items()}
    refusals = {
        ("entities/submit/feed", feed("g", "east")): "Entity operation SUBMIT not allowed during safemode",
        ("entities/schedule/feed/f", None): "Entity operation SCHEDULE not allowed during safemode",
        ("entities/resume/feed/f", None): "Entity operation RESUME not allowed during safemode",
        ("entities/touch/feed/f", None): "Entity operation TOUCH not allowed during safemode",
        ("entities/update/feed/f", feed("f", "east", "west", days=2)):
            "Entity operation UPDATE is only allowed on cluster entities during safemode",
        ("prism/sync", None): "prism sync is not allowed while the Prism is in safemode",
        ("instance/resume/feed/f", None): "Instance operation RESUME cannot be performed when server is in safemode",
    }
    for (path, body), message in refusals.items():
        refused = prism.post(path, body)
        assert refused.status_code == 400 and message in refused.text, (path, refused.text)
    deleted = prism.client.delete("/api/entities/delete/feed/f", params=alice)
    assert deleted.status_code == 400 and "Entity operation DELETE not allowed during safemode" in deleted.text
    assert {name: len(colo.calls) for name, colo in prism.colos.items()} == calls  # no colo was asked

    # what safemode is for: a cluster's update, and suspending; instance calls other than resume pass on
    updated = prism.post("entities/update/cluster/east", CLUSTER.format(name="east", colo="east").replace(
        "<interfaces/>", "<interfaces></interfaces>"))
    assert updated.json()["status"] == "SUCCEEDED", updated.text
    assert prism.post("entities/suspend/feed/f").json()["status"] == "SUCCEEDED"
    assert prism.post("instance/kill/feed/f").status_code == 200

    left = prism.client.post("/api/admin/setSafeMode/false", params=alice)
    assert left.status_code == 200 and left.text == "false", left.text
    assert prism.post("entities/resume/feed/f").json()["status"] == "SUCCEEDED"


def test_falcon_airflows_admin_commands_are_answered_by_the_prism_about_itself(prism: Deployment) -> None:
    entered = command(prism, "admin", "setsafemode", setsafemode="true").json()
    assert (entered["exit_code"], entered["text"]) == (0, "Falcon Prism safemode set to : true"), entered
    version = command(prism, "admin", "version").json()
    assert version["exit_code"] == 0 and version["text"].startswith("Falcon Prism build version: falcon-airflow ")
    assert version["text"].endswith(", colos east,west, safemode true"), version
    stack = command(prism, "admin", "stack").json()
    assert stack["exit_code"] == 0 and "MainThread\nState: " in stack["text"], stack
    wrong = command(prism, "admin", "setsafemode", setsafemode="maybe")
    assert wrong.status_code == 400 and "needs true or false" in wrong.json()["message"], wrong.text
    assert command(prism, "admin", "setsafemode", setsafemode="false").json()["text"].endswith(": false")
    assert command(prism, "admin", "audit").status_code == 404  # a colo's own trail: ask its server
    assert not any(colo.calls for colo in prism.colos.values())
