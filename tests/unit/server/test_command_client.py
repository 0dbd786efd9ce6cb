"""falcon-airflow's commands as clients of a Falcon server (``FALCON_URL``, or ``-url`` naming ``.../falcon``): a
real HTTP server on 127.0.0.1 serving the app, the command line sending each command there, printing what the same
command prints when it runs on the store itself; the caller's own environment decides nothing on the server."""

from __future__ import annotations

import io
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest
import uvicorn
from starlette.applications import Starlette
from starlette.routing import Mount
from tests.builders import ops_feed
from tests.unit.operate.helpers import FakeAirflow
from tests.unit.server.served import SECRET, Served, serve, tokens

from falcon_airflow.cli import build_parser
from falcon_airflow.cli.registry import load
from falcon_airflow.server.app import create_app
from falcon_airflow.server.configuration import MappingConfig


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def served(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Served:
    return serve(tmp_path, monkeypatch)


@pytest.fixture
def server_url(served: Served) -> Iterator[str]:
    config = MappingConfig({"falcon": {"authentication": "simple", "authentication_secret": SECRET,
                                       "entities_dir": str(served.kit.root), "authorization_enabled": "true",
                                       "superusers": "ops", "groups.ops": "users"},
                            "api": {"base_url": FakeAirflow.base}})
    port = _free_port()
    # mounted as the provider's plugin mounts it in the api-server
    mounted = Starlette(routes=[Mount("/falcon", app=create_app(config=config, verify_token=tokens))])
    server = uvicorn.Server(uvicorn.Config(mounted, host="127.0.0.1", port=port, log_level="warning",
                                           limit_concurrency=16))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}/falcon"
    server.should_exit = True
    thread.join(timeout=30)


def run(*argv: str) -> tuple[int, str, str]:
    args = build_parser().parse_args(list(argv))
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = load(args.run)(args)
    return int(code), out.getvalue(), err.getvalue()


@pytest.mark.parametrize("argv", [
    ("entity", "-list", "-type", "feed,process"),
    ("entity", "-status", "-type", "process", "-name", "count"),
    ("entity", "-definition", "-type", "feed", "-name", "logs"),
    ("entity", "-dependency", "-type", "feed", "-name", "logs"),
    ("entity", "-list", "-type", "feed", "-json"),
    ("entity", "-status", "-type", "feed", "-name", "missing"),
    ("admin", "-setsafemode", "true"),
])
def test_a_command_prints_the_same_whether_it_runs_here_or_on_the_server(
        served: Served, server_url: str, monkeypatch: pytest.MonkeyPatch, argv: tuple[str, ...]) -> None:
    monkeypatch.setenv("FALCON_AIRFLOW_USER", "ops")
    here = run(*argv, "--entities", str(served.kit.root))
    monkeypatch.setenv("FALCON_URL", server_url)
    there = run(*argv)
    assert there == here


def test_url_naming_the_server_prefix_sends_the_command_there(served: Served, server_url: str,
                                                              monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("FALCON_AIRFLOW_USER", "ops")
    draft = tmp_path / "draft.xml"
    draft.write_text(ops_feed("fresh"), encoding="utf-8")
    code, out, err = run("entity", "-submit", "-type", "feed", "-file", str(draft), "-url", server_url)
    assert (code, out.strip()) == (0, "Submit successful (feed) fresh"), err
    assert (served.kit.root / "feeds" / "fresh.xml").read_bytes() == draft.read_bytes()
    assert [(line["user"], line["action"], line["result"]) for line in served.audit()][-2:] == [
        ("ops", "submit", "STARTED"), ("ops", "submit", "SUCCEEDED")]


def test_the_caller_s_environment_decides_nothing_on_the_server(served: Served, server_url: str,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FALCON_URL", server_url)
    monkeypatch.setenv("FALCON_AIRFLOW_USER", "mallory")
    monkeypatch.setenv("AIRFLOW__FALCON__AUTHORIZATION_ENABLED", "false")  # the server's configuration decides
    monkeypatch.setenv("FALCON_STORE_DIR", "/nonexistent")
    code, _, err = run("entity", "-delete", "-type", "process", "-name", "count")
    assert code == 1 and "ERROR: " in err and "denied" in err.lower()
    assert (served.kit.root / "processes" / "count.xml").is_file()
    assert served.audit()[-1]["result"] == "DENIED" and served.audit()[-1]["user"] == "mallory"


def test_a_server_out_of_reach_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FALCON_URL", f"http://127.0.0.1:{_free_port()}/falcon")
    code, out, err = run("entity", "-list", "-type", "feed")
    assert code == 1 and out == "" and "cannot reach the Falcon server at http://127.0.0.1:" in err


def test_where_the_store_is_in_the_database_the_command_goes_to_the_server(monkeypatch: pytest.MonkeyPatch) -> None:
    from falcon_airflow.operate.remote import server_url

    monkeypatch.delenv("FALCON_URL", raising=False)
    monkeypatch.delenv("FALCON_AIRFLOW_URL", raising=False)
    monkeypatch.delenv("AIRFLOW__FALCON__STORE", raising=False)
    assert server_url(None) is None and server_url("http://host:8080") is None  # the folder's store, here
    assert server_url("http://host:8080/falcon/") == "http://host:8080/falcon"
    config = {("falcon", "store"): "database", ("api", "base_url"): "http://api:8080"}
    assert server_url(None, lambda section, key: config.get((section, key), "")) == "http://api:8080/falcon"
    monkeypatch.setenv("AIRFLOW__FALCON__STORE", "database")
    monkeypatch.setenv("FALCON_AIRFLOW_URL", "http://other:9090")
    assert server_url(None) == "http://other:9090/falcon"
    monkeypatch.setenv("FALCON_URL", "http://chosen/falcon")
    assert server_url("http://ignored:1") == "http://chosen/falcon"
