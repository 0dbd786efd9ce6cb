"""Environment rules (C4-C8, C10, C11, P6, F30, P19): silent by default, judged only with check_environment=True.

Nothing here leaves this machine. File systems are folders under tmp_path (``file://`` endpoints), services are
sockets the tests open on 127.0.0.1, and resolving any other host name is refused, the way an unknown host fails.
"""

from __future__ import annotations

import json
import os
import re
import socket
import socketserver
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

import pytest

from falcon_airflow.issues import Level

ENVIRONMENT_RULES = {"C4", "C5", "C6", "C7", "C8", "C10", "C11", "P6", "F30", "P19"}
LOOPBACK = "127.0.0.1"

STAGING = "projects/falcon/staging"
WORKING = "projects/falcon/working"


@pytest.fixture(autouse=True)
def loopback_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """Refuse to resolve (and so to contact) anything but 127.0.0.1; no proxy may be used either."""
    resolve = socket.getaddrinfo

    def guarded(host, *args, **kwargs):
        if host not in (LOOPBACK, LOOPBACK.encode()):
            raise socket.gaierror(socket.EAI_NONAME, f"resolving {host!r} is refused in tests")
        return resolve(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", guarded)
    for variable in ("http_proxy", "https_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("no_proxy", LOOPBACK)


@pytest.fixture
def listening_port() -> Iterator[int]:
    """A TCP port on 127.0.0.1 that accepts connections (the kernel completes them), closed after the test."""
    server = socket.create_server((LOOPBACK, 0), backlog=32)
    try:
        yield server.getsockname()[1]
    finally:
        server.close()


def set_endpoint(ws, interface: str, endpoint: str, key: str = "primary") -> None:
    """Give the cluster's interface of this type another endpoint."""
    pattern = re.compile(rf'(<interface type="{interface}" endpoint=")[^"]*"')
    text, count = pattern.subn(lambda match: f'{match[1]}{endpoint}"', ws.files[key])
    assert count == 1
    ws.put(key, text)


def closed_port() -> int:
    """A port on 127.0.0.1 nobody listens on: connecting is refused at once."""
    with socket.socket() as probe:
        probe.bind((LOOPBACK, 0))
        return probe.getsockname()[1]


@dataclass
class Local:
    """The base workspace moved onto this machine: storage in folders, every service on one listening port."""

    ws: object
    east: Path
    west: Path
    port: int

    def validate(self, **options):
        return self.ws.validate(check_environment=True, **options)


@pytest.fixture
def local(ws, tmp_path: Path, listening_port: int) -> Local:
    east, west = tmp_path / "east", tmp_path / "west"
    for folder in (STAGING, WORKING, "apps/sample/workflow", "apps/sample/lib"):
        (east / folder).mkdir(parents=True)
    (west / STAGING).mkdir(parents=True)
    (east / "apps/sample/lib/udfs.jar").write_bytes(b"")
    (east / "apps/sample/lib/join.jar").write_bytes(b"")
    port = listening_port
    for interface, endpoint in local_endpoints(east, port).items():
        set_endpoint(ws, interface, endpoint)
    for interface, endpoint in (("readonly", f"file://{west}"), ("write", f"file://{west}"),
                                ("registry", f"thrift://{LOOPBACK}:{port}")):
        set_endpoint(ws, interface, endpoint, key="backup")
    return Local(ws, east, west, port)


def local_endpoints(storage: Path, port: int) -> dict[str, str]:
    """Endpoints of the local primary cluster: storage in a folder, every service on one port."""
    return {"readonly": f"file://{storage}", "write": f"file://{storage}", "execute": f"{LOOPBACK}:{port}",
            "workflow": f"http://{LOOPBACK}:{port}/oozie/", "messaging": f"tcp://{LOOPBACK}:{port}?daemon=true",
            "registry": f"thrift://{LOOPBACK}:{port}"}


# -- YARN ResourceManager scheduler API, served on 127.0.0.1 for a bounded number of requests -------------------

SCHEDULER = {"scheduler": {"schedulerInfo": {"queueName": "root", "queues": {"queue": [{"queueName": "default"}]}}}}


class _SchedulerHandler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.server.paths.append(self.path)  # type: ignore[attr-defined]
        body = json.dumps(SCHEDULER).encode() if self.path == "/ws/v1/cluster/scheduler" else b"{}"
        self.send_response(200 if self.path == "/ws/v1/cluster/scheduler" else 404)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:  # keep test output quiet
        pass


class _LoopbackHTTPServer(HTTPServer):
    def server_bind(self) -> None:
        socketserver.TCPServer.server_bind(self)  # HTTPServer's own would look up the host's name
        self.server_name, self.server_port = LOOPBACK, self.server_address[1]


@contextmanager
def yarn_resource_manager(max_requests: int) -> Iterator[_LoopbackHTTPServer]:
    """Serve the scheduler JSON from a thread, at most ``max_requests`` times; ``.paths`` records what was asked."""
    server = _LoopbackHTTPServer((LOOPBACK, 0), _SchedulerHandler)
    server.timeout = 0.05  # handle_request returns this often to look at the stop flag
    server.paths = []  # type: ignore[attr-defined]
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set() and len(server.paths) < max_requests:  # type: ignore[attr-defined]
            server.handle_request()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        stop.set()
        thread.join(timeout=5)
        server.server_close()
    assert not thread.is_alive()


def with_queue(local: Local, rm_address: str, queue: str) -> None:
    """Point primary at a ResourceManager; impressionFeed and the process ask for ``queue``."""
    local.ws.edit("primary", '<property name="region" value="us-east"/>',
                  f'<property name="region" value="us-east"/>\n'
                  f'        <property name="yarn.resourcemanager.webapp.address" value="{rm_address}"/>')
    local.ws.edit("impressions", '<property name="field1" value="value1"/>',
                  f'<property name="field1" value="value1"/><property name="queueName" value="{queue}"/>')
    local.ws.edit("sample", '<property name="name1" value="value1"/>',
                  f'<property name="name1" value="value1"/><property name="queueName" value="{queue}"/>')


# -- default runs, and the local workspace -----------------------------------------------------------------------


def test_local_workspace_passes_every_environment_check(local):
    local.ws.assert_clean(local.validate())


def test_environment_rules_stay_silent_by_default(local):
    """Everything the environment rules look at is broken; only check_environment=True says so."""
    port = closed_port()
    ws = local.ws
    for interface, endpoint in local_endpoints(local.east, port).items():
        if interface != "write":
            set_endpoint(ws, interface, endpoint.replace(str(local.east), f"{local.east}/gone"))
    (local.east / STAGING).rmdir()
    (local.east / WORKING).rmdir()
    (local.east / WORKING).write_text("not a folder")
    (local.east / "apps/sample/workflow").rmdir()
    with_queue(local, f"{LOOPBACK}:{port}", "default")

    ws.assert_clean(ws.validate())
    assert ws.rules(ws.validate(check_environment=True)) == ENVIRONMENT_RULES


def test_remote_endpoints_are_not_contacted_by_default(ws, monkeypatch):
    def no_network(*args, **kwargs):
        raise AssertionError("validation without check_environment must not open a connection")

    monkeypatch.setattr(socket, "create_connection", no_network)
    ws.assert_clean(ws.validate())


# -- C4-C8: endpoints -------------------------------------------------------------------------------------------


def test_c4_missing_storage_folder(local):
    set_endpoint(local.ws, "readonly", f"file://{local.east}/gone")
    report = local.validate()
    local.ws.assert_reported(report, "C4", "primary", 'type="readonly"',
                             f"readonly storage 'file://{local.east}/gone' of cluster 'primary' is not reachable: "
                             f"path {local.east}/gone does not exist")


@pytest.mark.parametrize(("rule", "interface", "endpoint", "what"), [
    ("C4", "readonly", "hdfs://127.0.0.1:{port}", "readonly storage 'hdfs://127.0.0.1:{port}'"),
    ("C5", "execute", "127.0.0.1:{port}", "execute (resource manager) endpoint '127.0.0.1:{port}'"),
    ("C6", "workflow", "http://127.0.0.1:{port}/oozie/", "workflow endpoint 'http://127.0.0.1:{port}/oozie/'"),
    ("C7", "messaging", "tcp://127.0.0.1:{port}?daemon=true", "messaging endpoint 'tcp://127.0.0.1:{port}?daemon=true'"),
    ("C8", "registry", "thrift://127.0.0.1:{port}", "registry (metastore) endpoint 'thrift://127.0.0.1:{port}'"),
])
def test_unreachable_endpoint(local, rule, interface, endpoint, what):
    port = closed_port()
    set_endpoint(local.ws, interface, endpoint.format(port=port))
    report = local.validate()
    local.ws.assert_reported(report, rule, "primary", f'type="{interface}"',
                             f"{what.format(port=port)} of cluster 'primary' is not reachable: cannot connect to "
                             f"127.0.0.1:{port}")


def test_local_oozie_is_not_contacted(local):
    set_endpoint(local.ws, "workflow", "localoozie")
    local.ws.assert_clean(local.validate())


# ClusterEntityValidationIT: every one of these endpoints must fail (host names resolve to nothing here).
@pytest.mark.parametrize(("interface", "endpoint", "rule"), [
    ("readonly", "", "C4"),
    ("readonly", "localhost:41119", "C4"),
    ("write", "write-interface:9999", "C4"),
    ("write", "hdfs://write-interface:9999", "C4"),
    ("execute", "execute-interface:9999", "C5"),
    ("workflow", "workflow-interface:9999/oozie/", "C6"),
    ("workflow", "http://workflow-interface:9999/oozie/", "C6"),
    ("messaging", "messaging-interface:9999", "C7"),
    ("messaging", "tcp://messaging-interface:9999", "C7"),
    ("registry", "catalog-interface:9999", "C8"),
    ("registry", "http://catalog-interface:9999", "C8"),
])
def test_cluster_entity_validation_it_endpoints_fail(ws, interface, endpoint, rule):
    set_endpoint(ws, interface, endpoint)
    report = ws.validate(check_environment=True)
    line = ws.line("primary", f'type="{interface}"')
    assert any(issue.rule == rule and issue.line == line and issue.file == ws.path("primary")
               and f"'{endpoint}' of cluster 'primary' is not reachable" in issue.message
               for issue in report.issues), ws.describe(report)
    assert not report.valid


# -- C10, C11: staging and working folders ----------------------------------------------------------------------


def test_c10_missing_staging_folder(local):
    (local.east / STAGING).rmdir()
    report = local.validate()
    local.ws.assert_reported(report, "C10", "primary", 'name="staging"',
                             f"staging location {local.east / STAGING} of cluster 'primary' must exist as a folder")


def test_c10_remote_staging_is_a_warning(local):
    local.ws.edit("primary", 'path="/projects/falcon/staging"', 'path="hdfs://nn.east.example:8020/staging"')
    report = local.validate()
    local.ws.assert_reported(report, "C10", "primary", 'name="staging"',
                             "staging location 'hdfs://nn.east.example:8020/staging' of cluster 'primary' is not on a "
                             "local file system", level=Level.WARNING)
    assert report.valid


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root may write anywhere")
def test_c10_read_only_staging_folder(local):
    (local.east / STAGING).chmod(0o555)
    try:
        report = local.validate()
    finally:
        (local.east / STAGING).chmod(0o755)
    local.ws.assert_reported(report, "C10", "primary", 'name="staging"', "of cluster 'primary' is not writable")


def test_c11_working_location_is_a_file(local):
    (local.east / WORKING).rmdir()
    (local.east / WORKING).write_text("not a folder")
    report = local.validate()
    local.ws.assert_reported(report, "C11", "primary", 'name="working"',
                             f"working location {local.east / WORKING} of cluster 'primary' is a file")


def test_c11_default_working_folder_is_a_file(local):
    """No working location: Falcon uses <staging>/working, which must not be a file (backup has no working)."""
    (local.west / STAGING / "working").write_text("not a folder")
    report = local.validate()
    local.ws.assert_reported(report, "C11", "backup", 'name="staging"',
                             f"cluster 'backup' has no working location, so it uses {local.west / STAGING}/working, "
                             "which is a file")


@pytest.mark.parametrize("prepare", [
    pytest.param(lambda local: (local.west / STAGING / "working").mkdir(), id="default-working-is-a-folder"),
    pytest.param(lambda local: (local.east / WORKING).rmdir(), id="working-not-created-yet"),
])
def test_c11_passes(local, prepare):
    prepare(local)
    local.ws.assert_clean(local.validate())


# -- P6: workflow, lib and Spark application paths ---------------------------------------------------------------


@pytest.mark.parametrize(("remove", "marker", "fragment"), [
    ("apps/sample/workflow", "<workflow", "workflow path '/apps/sample/workflow' of process 'sample' does not exist on "
     "cluster 'primary'"),
    ("apps/sample/lib/udfs.jar", "<workflow", "lib path '/apps/sample/lib/udfs.jar' of process 'sample' does not "
     "exist"),
    ("apps/sample/lib/join.jar", "<spark-attributes>", "Spark application '/apps/sample/lib/join.jar' of process "
     "'sample' does not exist"),
])
def test_p6_missing_path(local, remove, marker, fragment):
    target = local.east / remove
    target.rmdir() if target.is_dir() else target.unlink()
    report = local.validate()
    local.ws.assert_reported(report, "P6", "sample", marker, f"{fragment}")


def test_p6_remote_paths_are_a_warning(local):
    local.ws.edit("sample", 'path="/apps/sample/workflow"', 'path="hdfs://nn.east.example:8020/apps/sample"')
    report = local.validate()
    local.ws.assert_reported(report, "P6", "sample", "<workflow", "workflow path "
                             "'hdfs://nn.east.example:8020/apps/sample' of process 'sample' is not on a local file "
                             "system", level=Level.WARNING)


# -- F30, P19: YARN queues ---------------------------------------------------------------------------------------


def test_known_queue_passes(local):
    with yarn_resource_manager(max_requests=4) as rm:
        with_queue(local, f"{LOOPBACK}:{rm.server_address[1]}", "default")
        report = local.validate()
    local.ws.assert_clean(report)
    assert rm.paths == ["/ws/v1/cluster/scheduler"] * 2  # one look per (entity, cluster)


def test_unknown_queue_is_reported_for_feed_and_process(local):
    with yarn_resource_manager(max_requests=4) as rm:
        with_queue(local, f"http://{LOOPBACK}:{rm.server_address[1]}", "nightly")
        report = local.validate()
    assert len(rm.paths) == 2
    assert local.ws.rules(report) == {"F30", "P19"}
    for rule, key, owner in (("F30", "impressions", "feed 'impressionFeed'"), ("P19", "sample", "process 'sample'")):
        line = local.ws.line(key, '<cluster name="primary"')
        issue = next(i for i in report.issues if i.rule == rule)
        assert (issue.file, issue.line, issue.entity, issue.level) == \
            (local.ws.path(key), line, local.ws.entity_name(key), Level.ERROR)
        assert issue.message == (f"queue 'nightly' of {owner} is not a YARN queue of cluster 'primary' "
                                 "(known: default, root)")


def test_unreachable_resource_manager_is_a_warning(local):
    port = closed_port()
    with_queue(local, f"{LOOPBACK}:{port}", "default")
    report = local.validate()
    assert local.ws.rules(report) == {"F30", "P19"}
    assert {issue.level for issue in report.issues} == {Level.WARNING}
    local.ws.assert_reported(report, "F30", "impressions", '<cluster name="primary"',
                             f"could not read the YARN queues of cluster 'primary' from {LOOPBACK}:{port}; queue "
                             "'default' of feed 'impressionFeed' was not checked", also={"P19"}, level=Level.WARNING)
    assert report.valid


def test_queue_is_not_checked_without_a_resource_manager(local):
    with_queue(local, "", "nightly")
    local.ws.assert_clean(local.validate())


# -- paths resolved as the runtime resolves them ---------------------------------------------------------------


def test_p6_relative_paths_are_found_in_the_entities_folder_first(local):
    local.ws.edit("sample", 'path="/apps/sample/workflow"', 'path="apps"')
    local.ws.edit("sample", "<jar>/apps/sample/lib/join.jar</jar>", "<jar>apps/join.py</jar>")
    report = local.validate()
    # 'apps' exists on the cluster's storage (local.east/apps); the application is in neither place yet
    assert [(issue.rule, issue.message) for issue in report.issues] == [
        ("P6", "Spark application 'apps/join.py' of process 'sample' does not exist in the entities folder or on "
               f"cluster 'primary' (looked for {local.east / 'apps/join.py'})")]
    (local.ws.root / "apps").mkdir(parents=True)
    (local.ws.root / "apps/join.py").write_text("print('join')\n")
    local.ws.assert_clean(local.validate())


def test_p6_relative_path_missing_everywhere_says_where_it_looked(local):
    local.ws.edit("sample", "<jar>/apps/sample/lib/join.jar</jar>", "<jar>jobs/join.py</jar>")
    report = local.validate()
    local.ws.assert_reported(report, "P6", "sample", "<spark-attributes>",
                             "Spark application 'jobs/join.py' of process 'sample' does not exist in the entities "
                             f"folder or on cluster 'primary' (looked for {local.east / 'jobs/join.py'})")


def test_the_example_passes_the_environment_checks_once_its_cluster_folders_exist(tmp_path: Path):
    import shutil

    from falcon_airflow.validation import validate_paths
    from falcon_airflow.validation.prepare import main as prepare

    example = Path(__file__).resolve().parents[3] / "entities"
    entities = tmp_path / "entities"
    shutil.copytree(example, entities)
    for cluster in (entities / "clusters").glob("*.xml"):
        text = cluster.read_text()
        assert "file:///tmp/falcon-airflow/" in text
        cluster.write_text(text.replace("file:///tmp/falcon-airflow/", f"file://{tmp_path}/storage/"))
    before = validate_paths([str(entities)], check_environment=True)
    assert {issue.rule for issue in before.issues} == {"C4", "C10"}

    assert prepare([str(entities)]) == 0
    assert (tmp_path / "storage/primary/falcon/staging").is_dir()
    assert (tmp_path / "storage/backup/falcon/working").is_dir()
    after = validate_paths([str(entities)], check_environment=True)
    assert after.issues == (), [issue.message for issue in after.issues]
    assert prepare([str(entities)]) == 0  # nothing left to create
