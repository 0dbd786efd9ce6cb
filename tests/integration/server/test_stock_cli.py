"""The stock Apache Falcon 0.9 CLI against Falcon's server inside a real Airflow api-server
(``-url http://127.0.0.1:<port>/falcon``): its own authentication handshake, ``admin -version``, ``-stack`` and
``-status`` printing what Falcon's CLI printed; refused requests (no credentials, a tampered, foreign or expired
cookie, a bad Airflow token) answered 401; Airflow's own tokens accepted; with ``[falcon] authentication = airflow``
the stock CLI's handshake is refused. Everything it did, and everything refused, is in the audit trail."""

from __future__ import annotations

import configparser
import json
import os
import pwd
import re
import subprocess
import urllib.error
import urllib.request
from importlib.metadata import version as installed_version
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine
from tests.builders import cluster, feed, process
from tests.integration.operate.harness import AirflowServer
from tests.integration.ui.make_run import RunningAirflow, wait_for

from falcon_airflow import __version__
from falcon_airflow.server import authentication as auth
from falcon_airflow.server.configuration import MappingConfig
from falcon_airflow.store.database import DatabaseStore

from .conftest import StockCli

pytestmark = pytest.mark.xdist_group("airflow-falcon-server")

# the user the stock client names in its handshake: Java's user.name, the operating system account
OS_USER = pwd.getpwuid(os.getuid()).pw_name
VERSION_LINE = re.compile(r"^Falcon server build version: (\{.*\})$", re.MULTILINE)


def falcon_url(server: AirflowServer | RunningAirflow) -> str:
    return f"{server.url}/falcon"


def audit(server: AirflowServer) -> list[dict[str, Any]]:
    path = server.home.parent / "state" / "audit.log"
    return [json.loads(line) for line in path.read_text().splitlines()]


def call(server: AirflowServer, path: str, *, method: str = "GET", headers: dict[str, str] | None = None,
         data: bytes | None = None) -> tuple[int, dict[str, str], list[tuple[str, str]], str]:
    """(status, headers by lower-case name, the raw header list as sent, body)."""
    request = urllib.request.Request(f"{server.url}{path}", method=method, headers=headers or {}, data=data)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            raw = list(response.getheaders())
            return response.status, {k.lower(): v for k, v in raw}, raw, response.read().decode()
    except urllib.error.HTTPError as refused:
        raw = list(refused.headers.items())
        return refused.code, {k.lower(): v for k, v in raw}, raw, refused.read().decode()


def cookie_settings(server: AirflowServer) -> auth.AuthenticationSettings:
    """The cookie key as any api-server of this deployment derives it: from the home's [api_auth] jwt_secret."""
    parser = configparser.RawConfigParser(interpolation=None)
    parser.read(server.home / "airflow.cfg")
    jwt_secret = parser.get("api_auth", "jwt_secret")
    assert jwt_secret, "airflow db migrate writes a random jwt_secret into a new home's airflow.cfg"
    return auth.AuthenticationSettings.from_config(MappingConfig({
        "falcon": {"authentication": "simple"}, "api_auth": {"jwt_secret": jwt_secret}}).get)


def test_admin_version_through_the_stock_cli(simple_server: AirflowServer, stock_cli: StockCli) -> None:
    done = stock_cli("admin", "-version", url=falcon_url(simple_server))
    assert done.returncode == 0, done.stdout + done.stderr
    printed = VERSION_LINE.search(done.stdout)
    assert printed, done.stdout
    properties = {item["key"]: item["value"] for item in json.loads(printed.group(1))["properties"]}
    assert properties == {"Version": __version__, "Mode": "embedded",
                          "Airflow": installed_version("apache-airflow"), "authentication": "simple",
                          "safemode": "false"}
    # the CLI authenticated itself with the OPTIONS handshake, as its operating system user
    lines = [line for line in audit(simple_server) if line.get("action") == "version"]
    assert (lines[-1]["user"], lines[-1]["result"]) == (OS_USER, "SUCCEEDED")


def test_admin_stack_and_status_through_the_stock_cli(simple_server: AirflowServer, stock_cli: StockCli) -> None:
    done = stock_cli("admin", "-stack", url=falcon_url(simple_server))
    assert done.returncode == 0, done.stdout + done.stderr
    assert re.search(r"^MainThread\nState: \S", done.stdout, re.MULTILINE), done.stdout[:2000]
    # the request's own frames and the api-server's serving loop, one frame a line as Falcon printed them
    assert re.search(r"^falcon_airflow\.server\.resources\.admin\.stack_dump\(admin\.py:\d+\)$", done.stdout,
                     re.MULTILINE), done.stdout[:3000]
    assert re.search(r"^uvicorn\.\S+\(\w+\.py:\d+\)$", done.stdout, re.MULTILINE), done.stdout[:3000]
    status = stock_cli("admin", "-status", url=falcon_url(simple_server))
    assert status.returncode == 0, status.stdout + status.stderr
    assert status.stdout.strip() == f"Falcon server is running (on {falcon_url(simple_server)})"


def test_unauthenticated_and_tampered_requests_are_refused(simple_server: AirflowServer) -> None:
    status, headers, _, body = call(simple_server, "/falcon/api/admin/version")
    assert status == 401 and "PseudoAuth" in headers["www-authenticate"]
    assert "<message>Authentication required</message>" in body

    # the handshake, as hadoop-auth's client makes it: the cookie header spelled as Java's client looks it up
    status, headers, raw, _ = call(simple_server, "/falcon/api/options?user.name=tester", method="OPTIONS")
    assert status == 200
    [cookie_header] = [value for name, value in raw if name == "Set-Cookie"]
    cookie = re.match(r'hadoop\.auth=("u=tester&p=tester&t=simple&e=\d+&s=[^"]+")', cookie_header)
    assert cookie, cookie_header
    assert "Path=/falcon" in cookie_header and "HttpOnly" in cookie_header
    status, _, _, body = call(simple_server, "/falcon/api/admin/version",
                              headers={"Cookie": f"hadoop.auth={cookie.group(1)}", "Accept": "application/json"})
    assert status == 200 and '"safemode"' in body

    forged = cookie.group(1).replace("u=tester&p=tester", "u=admin&p=admin")
    status, headers, _, body = call(simple_server, "/falcon/api/admin/version",
                                    headers={"Cookie": f"hadoop.auth={forged}"})
    assert status == 401 and "Invalid signature" in body
    assert headers["set-cookie"].startswith("hadoop.auth=;")

    # the deployment's key, derived from its jwt_secret: a cookie signed with it holds, an expired one does not
    settings = cookie_settings(simple_server)
    _, fresh = auth.issue(settings, "other-node-user")
    status, _, _, _ = call(simple_server, "/falcon/api/admin/version", headers={"Cookie": f'hadoop.auth="{fresh}"'})
    assert status == 200
    _, stale = auth.issue(settings, "tester", now=1_000_000.0)
    status, _, _, body = call(simple_server, "/falcon/api/admin/version", headers={"Cookie": f'hadoop.auth="{stale}"'})
    assert status == 401 and "AuthenticationToken expired" in body
    other = auth.AuthenticationSettings("simple", b"not-this-deployments-key")
    _, foreign = auth.issue(other, "tester")
    status, _, _, body = call(simple_server, "/falcon/api/admin/version",
                              headers={"Cookie": f'hadoop.auth="{foreign}"'})
    assert status == 401 and "Invalid signature" in body

    refused = [line for line in audit(simple_server) if line["result"] == "UNAUTHENTICATED"]
    assert [line["reason"] for line in refused][-4:] == [
        "Authentication required", "Invalid signature", "AuthenticationToken expired", "Invalid signature"]
    assert any(line["user"] == "other-node-user" and line["result"] == "SUCCEEDED" for line in audit(simple_server))


def airflow_token(server: AirflowServer) -> str:
    status, _, _, body = call(server, "/auth/token", method="POST", headers={"Content-Type": "application/json"},
                              data=json.dumps({"username": "admin", "password": "admin"}).encode())
    assert status in (200, 201), body
    return str(json.loads(body)["access_token"])


def test_airflow_tokens_are_accepted_in_both_schemes(simple_server: AirflowServer,
                                                     airflow_only_server: AirflowServer) -> None:
    for server in (simple_server, airflow_only_server):
        token = airflow_token(server)
        status, _, _, body = call(server, "/falcon/api/admin/config/runtime",
                                  headers={"Authorization": f"Bearer {token}", "Accept": "application/json"})
        assert status == 200, body
        assert audit(server)[-1]["user"] == "admin"
        status, _, _, body = call(server, "/falcon/api/admin/version",
                                  headers={"Authorization": f"Bearer {token[:-4]}AAAA"})
        assert status == 401 and "Invalid JWT token" in body


def test_with_airflow_tokens_only_the_stock_clis_handshake_is_refused(airflow_only_server: AirflowServer,
                                                                      stock_cli: StockCli) -> None:
    done = stock_cli("admin", "-version", url=falcon_url(airflow_only_server))
    assert done.returncode != 0
    assert "Could not authenticate, Authentication failed, status: 401" in done.stderr, done.stderr
    status, _, _, _ = call(airflow_only_server, "/falcon/api/admin/version?user.name=tester")
    assert status == 401


# -- instance and metadata commands of the stock CLI against make run --------------------------------------------
#
# make run's scheduler runs the example's source process, generate-clicks (one Spark job of about a minute), for
# real; the stock CLI asks about its instances, kills one while it runs, reruns it, and reads the entity graph. Every
# check is on what the CLI printed: Falcon 0.9's ResponseHelper tables, its "Response:"/"Request Id:" trailer, the
# metadata resources' JSON as it came.

PROCESS = "generate-clicks"
DAG_ID = f"falcon.process.{PROCESS}.primary"
FALCON_TIME = r"\d{4}-\d\d-\d\dT\d\d:\d\dZ"
FIRST_RUN_TIMEOUT = 600  # the first scheduled instance, from the DAG's parse to the end of its Spark job
RUN_TIMEOUT = 300  # a rerun, to the state the test waits for
ACTIVE = ("WAITING", "READY", "RUNNING")
INSTANCES_HEADER = "Instance\t\tCluster\t\tSourceCluster\t\tStatus\t\tStart\t\tEnd\t\tDetails\t\t\t\t\tLog"
LOGS_HEADER = "Instance\t\tCluster\t\tSourceCluster\t\tStatus\t\tRunID\t\t\tLog"
RULE = "-" * 95


def trailer(message: str) -> re.Pattern[str]:
    """The end of an instance command's output: the answer merged under the server's one colo, ``default``, and the
    request id merged alike (each ending in a line break, then the CLI's own)."""
    return re.compile(rf"\nAdditional Information:\nResponse: default/{re.escape(message)}\n"
                      r"Request Id: default/[0-9a-f]{32}\n\n\Z")


def falcon_api(airflow: RunningAirflow, path: str) -> dict[str, Any] | None:
    """A GET on the Falcon server as the stock CLI's user, its JSON; ``None`` when it is not answered (a busy
    machine restarts the api-server's worker)."""
    separator = "&" if "?" in path else "?"
    request = urllib.request.Request(f"{airflow.url}/falcon/api/{path}{separator}user.name={OS_USER}",
                                     headers={"Accept": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return dict(json.loads(response.read()))
    except OSError:
        return None


def process_instance(airflow: RunningAirflow, at: str) -> dict[str, Any] | None:
    found = falcon_api(airflow, f"instance/status/process/{PROCESS}?start={at}&end={at}")
    return next((item for item in (found or {}).get("instances") or [] if item.get("instance") == at), None)


def first_finished(airflow: RunningAirflow) -> dict[str, Any]:
    """The first scheduled instance of the source process once it ended (SUCCEEDED, or FAILED on a machine too busy
    for its Spark job)."""
    def finished() -> dict[str, Any] | None:
        found = falcon_api(airflow, f"instance/status/process/{PROCESS}")
        return next((item for item in (found or {}).get("instances") or []
                     if item.get("status") in ("SUCCEEDED", "FAILED")), None)

    return dict(wait_for(f"a finished instance of {PROCESS}", finished, FIRST_RUN_TIMEOUT, interval=5))


def printed(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 0, f"exit {done.returncode}\n{done.stdout}\n{done.stderr}"
    return done.stdout


def instance_rows(output: str) -> dict[str, list[str]]:
    """The instance lines of a ResponseHelper table, by instance time, split at its tabs."""
    rows = [line.split("\t") for line in output.splitlines() if re.match(FALCON_TIME + "\t", line)]
    return {row[0]: row for row in rows}


def action_lines(output: str, instance: str) -> dict[str, list[str]]:
    """The "actions:" lines under one instance's row, by action: [status, log]."""
    lines = output.splitlines()
    start = next(index for index, line in enumerate(lines) if line.startswith(instance + "\t"))
    found: dict[str, list[str]] = {}
    for line in lines[start + 1:]:
        if line == "actions:":
            continue
        if not line.startswith(" "):
            break
        action, *rest = line.strip().split("\t")
        found[action] = rest
    return found


def test_instance_queries_through_the_stock_cli(clickstream: RunningAirflow, stock_cli: StockCli) -> None:
    try:
        check_instance_queries(clickstream, stock_cli)
    except BaseException:
        print(f"--- the last lines of make run ({clickstream.log}) ---\n{clickstream.tail()}")
        raise


def check_instance_queries(airflow: RunningAirflow, stock_cli: StockCli) -> None:
    url = falcon_url(airflow)
    done = first_finished(airflow)
    at, status = done["instance"], done["status"]
    one = ("-type", "process", "-name", PROCESS, "-start", at, "-end", at)

    # -status and -list (the 0.9 CLI asks api/instance/status for both): the instance, its run's times and link,
    # and its tasks as the workflow's actions
    for action in ("-status", "-list"):
        output = printed(stock_cli("instance", action, *one, url=url))
        assert output.startswith(f"Consolidated Status: SUCCEEDED\n\nInstances:\n{INSTANCES_HEADER}\n{RULE}\n"), output
        row = instance_rows(output)[at]
        assert row[:4] == [at, "primary", "-", status], output
        assert re.fullmatch(FALCON_TIME, row[4]) and re.fullmatch(FALCON_TIME, row[5]), row  # started, ended
        assert row[7] == done["logFile"] and f"/dags/{DAG_ID}/runs/" in row[7], row
        actions = action_lines(output, at)
        assert actions["workflow"][0] == ("SUCCESS" if status == "SUCCEEDED" else "FAILED"), actions
        assert "/tasks/workflow" in actions["workflow"][1], actions
        assert trailer("STATUS").search(output), output

    # -logs: Falcon's run id column ("latest" unless -runid) and each task's log link
    output = printed(stock_cli("instance", "-logs", *one, url=url))
    assert output.startswith(f"Consolidated Status: SUCCEEDED\n\nInstances:\n{LOGS_HEADER}\n{RULE}\n"), output
    assert instance_rows(output)[at] == [at, "primary", "-", status, "latest", done["logFile"]], output
    assert re.search(r"^    workflow\t(SUCCESS|FAILED)\thttp://\S+/tasks/workflow\?try_number=\d+$", output,
                     re.MULTILINE), output
    assert trailer("STATUS").search(output), output

    # -summary: per cluster, how many instances are in each status
    output = printed(stock_cli("instance", "-summary", *one, url=url))
    assert output.startswith("Consolidated Status: SUCCEEDED\n\nInstances Summary:\nCluster: primary\n"
                             f"Status\t\tCount\n-------------------------\n{status}\t\t1\n"), output
    assert trailer("SUMMARY").search(output), output

    # -params: the parameters the instance ran with, as Falcon's "Workflow params"
    output = printed(stock_cli("instance", "-params", "-type", "process", "-name", PROCESS, "-start", at, url=url))
    assert instance_rows(output)[at][:4] == [at, "primary", "-", status], output
    params = output.split("Workflow params\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert {f"nominalTime={at}", f"entityName={PROCESS}", "entityType=process", "cluster=primary"} <= set(params), (
        output)
    assert trailer("PARAMS").search(output), output

    # -dependency: the feed instance the process instance writes
    output = printed(stock_cli("instance", "-dependency", "-type", "process", "-name", PROCESS, "-instanceTime", at,
                               url=url))
    assert re.fullmatch(rf"name: raw-clicks, type: FEED, cluster: primary, instanceTime: {at}, tags: Output\n\n\n"
                        r"Response: default/Success!\n\nRequest Id: default/[0-9a-f]{32}\n\n", output), output

    # -triage: the instance's graph in Graphviz notation (the 0.9 CLI prints the graphs alone)
    output = printed(stock_cli("instance", "-triage", "-type", "process", "-name", PROCESS, "-start", at, url=url))
    assert output.startswith("digraph g{ \n"), output
    assert (f'"name: {PROCESS}, type: PROCESS, cluster: primary, instanceTime: {at}, tags: [{status}]"\n'
            in output), output

    # an entity the server does not have: Falcon's 400, its message printed by the CLI
    refused = stock_cli("instance", "-status", "-type", "process", "-name", "no-such-process", url=url)
    assert refused.returncode != 0
    assert "ERROR: Bad Request;default/no-such-process (process) not found" in refused.stderr, refused.stderr


def test_instance_kill_and_rerun_through_the_stock_cli(clickstream: RunningAirflow, stock_cli: StockCli) -> None:
    try:
        check_kill_and_rerun(clickstream, stock_cli)
    except BaseException:
        print(f"--- the last lines of make run ({clickstream.log}) ---\n{clickstream.tail()}")
        raise


def check_kill_and_rerun(airflow: RunningAirflow, stock_cli: StockCli) -> None:
    url = falcon_url(airflow)
    done = first_finished(airflow)
    at = done["instance"]
    one = ("-type", "process", "-name", PROCESS, "-start", at, "-end", at)
    first_try = int(re.findall(r"try_number=(\d+)", next(
        action["logFile"] for action in done["actions"] if action["action"] == "workflow"))[-1])

    # -rerun: the finished instance runs again
    output = printed(stock_cli("instance", "-rerun", *one, url=url))
    row = instance_rows(output)[at]
    assert row[:3] == [at, "primary", "-"] and row[3] in ACTIVE and row[6].startswith("rerun"), output
    assert trailer("RERUN").search(output), output

    # -running lists it while its Spark job runs (between its tasks an instance is READY, not RUNNING) ...
    def workflow_runs() -> bool:
        found = process_instance(airflow, at) or {}
        return found.get("status") == "RUNNING" and any(
            (action["action"], action["status"]) == ("workflow", "RUNNING") for action in found.get("actions") or [])

    wait_for(f"instance {at} to run its workflow again", workflow_runs, RUN_TIMEOUT, interval=2)
    output = printed(stock_cli("instance", "-running", "-type", "process", "-name", PROCESS, url=url))
    assert output.startswith(f"Consolidated Status: SUCCEEDED\n\nInstances:\n{INSTANCES_HEADER}\n{RULE}\n"), output
    row = instance_rows(output)[at]
    assert row[:4] == [at, "primary", "-", "RUNNING"] and re.fullmatch(FALCON_TIME, row[4]) and row[5] == "-", output
    assert trailer("Running Instances").search(output), output

    # ... and -kill stops it
    output = printed(stock_cli("instance", "-kill", *one, url=url))
    assert instance_rows(output)[at][:4] == [at, "primary", "-", "KILLED"], output
    assert instance_rows(output)[at][6] == "killed", output
    assert trailer("KILL").search(output), output
    assert at not in instance_rows(printed(stock_cli("instance", "-running", "-type", "process", "-name", PROCESS,
                                                     url=url)))
    lines = [line for line in audit_of(airflow) if line.get("command") == "instance"]
    assert any((line["action"], line["user"], line["result"]) == ("kill", OS_USER, "SUCCEEDED") for line in lines)

    # -rerun of the killed instance: it runs from its failed tasks and ends, a later try of its workflow
    output = printed(stock_cli("instance", "-rerun", *one, url=url))
    assert instance_rows(output)[at][3] in ACTIVE, output
    wait_for(f"instance {at} to end its rerun",
             lambda: (process_instance(airflow, at) or {}).get("status") not in (None, *ACTIVE), RUN_TIMEOUT,
             interval=5)
    output = printed(stock_cli("instance", "-status", *one, url=url))
    assert instance_rows(output)[at][3] == "SUCCEEDED", output
    output = printed(stock_cli("instance", "-logs", *one, url=url))
    tries = re.findall(r"^    workflow\tSUCCESS\thttp://\S+/tasks/workflow\?try_number=(\d+)$", output, re.MULTILINE)
    assert tries and int(tries[0]) >= first_try + 2, output


def store_of(airflow: RunningAirflow) -> DatabaseStore:
    """make run's store: in its metadata database (SQLite in its Airflow home)."""
    return DatabaseStore(create_engine(f"sqlite:///{airflow.root / 'airflow-home' / 'airflow.db'}"))


def audit_of(airflow: RunningAirflow) -> list[dict[str, Any]]:
    """The server's audit trail (make run keeps it in the store, in its metadata database)."""
    return [json.loads(line) for line in store_of(airflow).audit_lines()]


def test_metadata_through_the_stock_cli(clickstream: RunningAirflow, stock_cli: StockCli) -> None:
    url = falcon_url(clickstream)
    # -list: the discovery resource's JSON as Falcon built it (Jettison: no spaces, "/" escaped)
    assert printed(stock_cli("metadata", "-list", "-type", "process_entity", url=url)) == (
        '{"results":["count-clicks","generate-clicks"],"totalSize":2}\n')
    assert printed(stock_cli("metadata", "-list", "-type", "cluster_entity", url=url)) == (
        '{"results":["backup","primary"],"totalSize":2}\n')
    assert printed(stock_cli("metadata", "-list", "-type", "feed_entity", "-cluster", "backup", url=url)) == (
        '{"results":["click-counts"],"totalSize":1}\n')

    # -relations: the vertex and its neighbours, each with the edge's label
    relations = json.loads(printed(stock_cli("metadata", "-relations", "-type", "process_entity", "-name", PROCESS,
                                             url=url)))
    assert (relations["name"], relations["type"]) == (PROCESS, "PROCESS_ENTITY")
    assert {"name": "raw-clicks", "type": "FEED_ENTITY", "label": "output"} in relations["outVertices"]
    assert {"name": "clickstream", "type": "PIPELINES", "label": "pipeline"} in relations["outVertices"]

    # -lineage: the pipeline's processes and the feeds between them, as the CLI draws them in Graphviz notation
    output = printed(stock_cli("metadata", "-lineage", "-pipeline", "clickstream", url=url))
    assert output.startswith("digraph g{ \n") and output.endswith("}\n\n"), output
    assert {'"generate-clicks"', '"count-clicks"'} <= set(output.splitlines()), output
    assert '"generate-clicks" -> "count-clicks" [ label = "raw-clicks" ] \n' in output, output

    # an unknown dimension is refused by the CLI itself; an unknown pipeline by the server, as Falcon did
    refused = stock_cli("metadata", "-lineage", "-pipeline", "no-such-pipeline", url=url)
    assert refused.returncode != 0
    assert "ERROR: Bad Request;No processes belonging to pipeline no-such-pipeline" in refused.stderr, refused.stderr


# -- entity commands of the stock CLI against make run -----------------------------------------------------------
#
# A cluster, two feeds and a process of their own (validity in 2099: nothing of them runs beside the example's
# instances), submitted, scheduled, listed, suspended, resumed and deleted through the stock CLI; every check is on
# what the CLI printed: the APIResult message as Falcon's server merged it ("falcon/default/...", "default/..."),
# EntityList.toString, ResponseHelper's summary, the definition as Falcon 0.9's own classes read and wrote it.

CLI_CLUSTER, CLI_EVENTS, CLI_TOTALS, CLI_PROCESS = "stockcli", "stockcli-events", "stockcli-totals", "stockcli-count"
FUTURE = {"start": "2099-01-01T00:00Z", "end": "2099-12-31T00:00Z"}


def entity_files(airflow: RunningAirflow) -> dict[str, Path]:
    """The entities the stock CLI submits, as files on the CLI's machine."""
    folder = airflow.root / "stock-cli-drafts"
    folder.mkdir(exist_ok=True)
    documents = {
        "cluster": cluster(CLI_CLUSTER, f"file://{airflow.root / 'stockcli-storage'}", colo="stockcli-colo"),
        "events": feed(CLI_EVENTS, clusters=((CLI_CLUSTER, "source"),), path="/events/${YEAR}/${MONTH}/${DAY}/${HOUR}",
                       **FUTURE),
        "totals": feed(CLI_TOTALS, clusters=((CLI_CLUSTER, "source"),), path="/totals/${YEAR}/${MONTH}/${DAY}/${HOUR}",
                       **FUTURE),
        "process": process(CLI_PROCESS, cluster_name=CLI_CLUSTER, outputs=(("totals", CLI_TOTALS, "now(0,0)"),),
                           inputs=(("events", CLI_EVENTS, "now(0,0)", "now(0,0)"),), **FUTURE),
        "changed": feed(CLI_EVENTS, clusters=((CLI_CLUSTER, "source"),), path="/other/${YEAR}/${MONTH}/${DAY}",
                        frequency="days(1)", **FUTURE),
    }
    files = {}
    for name, text in documents.items():
        files[name] = folder / f"{name}.xml"
        files[name].write_text(text, encoding="utf-8")
    return files


def test_entity_commands_through_the_stock_cli(clickstream: RunningAirflow, stock_cli: StockCli) -> None:
    try:
        check_entity_commands(clickstream, stock_cli)
    except BaseException:
        print(f"--- the last lines of make run ({clickstream.log}) ---\n{clickstream.tail()}")
        raise


def check_entity_commands(airflow: RunningAirflow, stock_cli: StockCli) -> None:
    url = falcon_url(airflow)
    files = entity_files(airflow)
    named = ("-type", "process", "-name", CLI_PROCESS)
    # make run's dag-processor has registered the example's DAGs (a submit before that would add "Airflow has no
    # falcon DAG yet" to its answer)
    wait_for("the example's DAGs", lambda: (falcon_api(airflow, f"entities/status/process/{PROCESS}") or {}).get(
        "message") == "default/RUNNING\n", FIRST_RUN_TIMEOUT, interval=5)

    # -submit: the file's bytes posted; Falcon's answer merged twice (falcon/, then the colo), printed with a line
    for kind, key, name in (("cluster", "cluster", CLI_CLUSTER), ("feed", "events", CLI_EVENTS),
                            ("feed", "totals", CLI_TOTALS), ("process", "process", CLI_PROCESS)):
        output = printed(stock_cli("entity", "-submit", "-type", kind, "-file", str(files[key]), url=url))
        assert output == f"falcon/default/Submit successful ({kind}) {name}\n\n\n", output
    stored = store_of(airflow).current("process", CLI_PROCESS)
    assert stored is not None and stored.submitted_by, "the store holds the process"
    assert not any(CLI_PROCESS in path.read_text() for path in airflow.entities.rglob("*.xml"))  # not a file
    # submitting a changed definition under a known name is refused: Falcon's 400, its message printed
    again = stock_cli("entity", "-submit", "-type", "feed", "-file", str(files["changed"]), url=url)
    assert again.returncode != 0
    assert (f"ERROR: Bad Request;default/(feed) {CLI_EVENTS} already registered with configuration store. Can't be "
            "submitted again. Try removing before submitting.") in again.stderr, again.stderr
    assert printed(stock_cli("entity", "-status", *named, url=url)) in ("default/SUBMITTED\n\n", "default/RUNNING\n\n")

    # -schedule: the DAGs registered by make run's dag-processor, then unpaused
    output = printed(stock_cli("entity", "-schedule", *named, url=url, timeout=300))
    assert output == f"default/{CLI_PROCESS}(process) scheduled successfully\n\n", output
    assert printed(stock_cli("entity", "-status", *named, url=url)) == "default/RUNNING\n\n"

    # -list: EntityList.toString, the total then one line per entity; -filterBy and -orderBy applied by the server
    output = printed(stock_cli("entity", "-list", "-type", "feed,process", "-filterBy", f"CLUSTER:{CLI_CLUSTER}",
                               "-orderBy", "name", "-sortOrder", "desc", "-fields", "clusters", url=url))
    assert output == (f"3\n(FEED) {CLI_TOTALS} - [{CLI_CLUSTER}]\n(FEED) {CLI_EVENTS} - [{CLI_CLUSTER}]\n"
                      f"(PROCESS) {CLI_PROCESS} - [{CLI_CLUSTER}]\n\n"), output
    output = printed(stock_cli("entity", "-list", "-type", "process", "-filterBy", "STATUS:RUNNING", "-orderBy",
                               "name", "-fields", "status", url=url))
    lines = output.rstrip("\n").splitlines()
    assert f"(PROCESS) {CLI_PROCESS}(RUNNING)" in lines and lines[0] == str(len(lines) - 1), output
    assert lines[1:] == sorted(lines[1:]), output
    assert all(line.endswith("(RUNNING)") for line in lines[1:]), output

    # -definition of a feed: the stored XML, read and written again by Falcon 0.9's own JAXB classes
    output = printed(stock_cli("entity", "-definition", "-type", "feed", "-name", CLI_EVENTS, url=url))
    assert re.search(rf'<feed [^>]*name="{CLI_EVENTS}"', output), output
    assert "<frequency>hours(1)</frequency>" in output and f'<cluster name="{CLI_CLUSTER}"' in output, output
    assert 'owner="o"' in output, output

    # -dependency: what the process uses, as Falcon's EntityList (types in lower case, Input/Output tags)
    output = printed(stock_cli("entity", "-dependency", *named, url=url))
    assert output.splitlines()[0] == "3", output
    assert {f"(cluster) {CLI_CLUSTER}", f"(feed) {CLI_EVENTS} - [Input]", f"(feed) {CLI_TOTALS} - [Output]"} == set(
        output.splitlines()[1:4]), output

    # -summary: ResponseHelper's "Entity Summary Result" with each entity on the cluster and its latest instances
    output = printed(stock_cli("entity", "-summary", "-type", "process", "-cluster", CLI_CLUSTER, "-start",
                               "2099-01-01T00:00Z", "-end", "2099-01-01T03:00Z", url=url))
    assert output.startswith("Consolidated Status: SUCCEEDED\n\nEntity Summary Result :\n"
                             f"{{Entity: {CLI_PROCESS}, Type: PROCESS, Status: RUNNING, Tags: [], Pipelines: [], "
                             "InstanceSummary: []}\n"), output
    assert re.search(r"\nAdditional Information:\nResponse: Entity Summary ResultRequest Id: [0-9a-f]{32}\n\Z",
                     output), output

    # -suspend and -resume: the DAGs paused and unpaused, the status following
    output = printed(stock_cli("entity", "-suspend", *named, url=url))
    assert output == f"default/{CLI_PROCESS}(process) suspended successfully\n\n", output
    assert printed(stock_cli("entity", "-status", *named, url=url)) == "default/SUSPENDED\n\n"
    output = printed(stock_cli("entity", "-resume", *named, url=url))
    assert output == f"default/{CLI_PROCESS}(process) resumed successfully\n\n", output
    assert printed(stock_cli("entity", "-status", *named, url=url)) == "default/RUNNING\n\n"

    # -delete: refused while the process refers to the feed, then the process, then the feed
    refused = stock_cli("entity", "-delete", "-type", "feed", "-name", CLI_EVENTS, url=url)
    assert refused.returncode != 0
    assert (f"ERROR: Bad Request;default/{CLI_EVENTS}(FEED) cant be removed as it is referred by "
            f"({CLI_PROCESS},PROCESS)") in refused.stderr, refused.stderr
    output = printed(stock_cli("entity", "-delete", *named, url=url))
    assert output == f"falcon/default/{CLI_PROCESS}(process) removed successfully (KILLED in WF_ENGINE)\n\n\n", output
    missing = stock_cli("entity", "-status", *named, url=url)
    assert missing.returncode != 0
    assert f"ERROR: Bad Request;default/{CLI_PROCESS} (process) not found" in missing.stderr, missing.stderr
    for kind, name in (("feed", CLI_EVENTS), ("feed", CLI_TOTALS), ("cluster", CLI_CLUSTER)):
        output = printed(stock_cli("entity", "-delete", "-type", kind, "-name", name, url=url))
        assert output.startswith(f"falcon/default/{name}({kind}) removed successfully"), output

    # every call in the audit trail, as the operating system user the CLI authenticated as
    lines = [(line["action"], line["result"]) for line in audit_of(airflow)
             if line.get("command") == "entity" and line["user"] == OS_USER and line["result"] != "STARTED"]
    for expected in (("submit", "SUCCEEDED"), ("schedule", "SUCCEEDED"), ("list", "SUCCEEDED"),
                     ("definition", "SUCCEEDED"), ("dependency", "SUCCEEDED"), ("summary", "SUCCEEDED"),
                     ("suspend", "SUCCEEDED"), ("resume", "SUCCEEDED"), ("delete", "REFUSED"),
                     ("delete", "SUCCEEDED"), ("status", "REFUSED")):
        assert expected in lines, (expected, lines)
