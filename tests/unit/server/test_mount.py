"""The plugin hands Airflow's api-server the Falcon server at /falcon, and loading the plugin (in every Airflow
component) does not build or even import it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from falcon_airflow.provider.server_app import FACTORY, LazyApp
from falcon_airflow.server import header_spelling

BUILT: list[str] = []


def factory() -> FastAPI:
    BUILT.append("built")
    app = FastAPI()

    @app.get("/api/ping")
    def ping() -> str:
        return "pong"

    return app


def test_the_plugin_mounts_the_server_at_falcon() -> None:
    from falcon_airflow.provider.plugin import FalconPlugin

    [mount] = FalconPlugin.fastapi_apps
    assert mount["url_prefix"] == "/falcon" and mount["name"] == "Falcon"
    assert isinstance(mount["app"], LazyApp) and mount["app"].factory == FACTORY
    module, _, name = FACTORY.partition(":")
    assert module == "falcon_airflow.server.app" and name == "create_app"


def test_loading_the_plugin_imports_neither_the_server_nor_fastapi() -> None:
    probe = ("import json, sys; import falcon_airflow.provider.plugin; "
             "print(json.dumps(sorted(name for name in sys.modules if name.startswith("
             "('falcon_airflow.server', 'fastapi', 'falcon_airflow.operate')))))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []


def test_the_app_is_built_on_its_first_request_only() -> None:
    BUILT.clear()
    lazy = LazyApp(f"{__name__}:factory")
    assert BUILT == []
    with TestClient(lazy) as client:  # the lifespan is ignored, as Airflow's api-server ignores it
        assert BUILT == []
        assert client.get("/api/ping").json() == "pong"
        assert client.get("/api/ping").json() == "pong"
    assert BUILT == ["built"]


def _cookie_app(cookie: bytes) -> object:
    async def app(scope: dict[str, object], receive: object, send: object) -> None:
        assert scope["type"] == "http"
        await send({"type": "http.response.start", "status": 200,  # type: ignore[operator]
                    "headers": [(b"content-length", b"2"), (b"Set-Cookie", cookie)]})
        await send({"type": "http.response.body", "body": b"ok"})  # type: ignore[operator]

    return app


def _raw_head(app: object) -> bytes:
    """The response header block a real uvicorn (httptools protocol) writes for one request to ``app``."""
    import socket
    import threading
    import time

    import uvicorn

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, http="httptools", lifespan="off",
                                           log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 30
        while not server.started:
            assert time.monotonic() < deadline, "uvicorn did not start"
            time.sleep(0.05)
        with socket.create_connection(("127.0.0.1", port), timeout=10) as connection:
            connection.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            data = b""
            while chunk := connection.recv(65536):
                data += chunk
        return data.partition(b"\r\n\r\n")[0]
    finally:
        server.should_exit = True
        thread.join(timeout=30)


def test_uvicorns_httptools_protocol_writes_header_names_in_lower_case() -> None:
    pytest.importorskip("httptools")
    head = _raw_head(_cookie_app(b"other=1"))
    assert b"\r\nset-cookie: other=1" in head  # why the respelling is needed at all


@pytest.mark.parametrize(("cookie", "expected"), [
    (b'hadoop.auth="u=joe&p=joe&t=simple&e=1&s=x"; Path=/falcon',
     b'\r\nSet-Cookie: hadoop.auth="u=joe&p=joe&t=simple&e=1&s=x"; Path=/falcon'),
    (b"hadoop.auth=; Path=/falcon", b"\r\nSet-Cookie: hadoop.auth=; Path=/falcon"),
    (b"other=1", b"\r\nset-cookie: other=1"),  # every other header as uvicorn writes it
])
def test_the_auth_cookie_header_is_spelled_as_javas_client_looks_it_up(cookie: bytes, expected: bytes) -> None:
    pytest.importorskip("httptools")
    assert header_spelling.install() and header_spelling.install()  # idempotent
    head = _raw_head(_cookie_app(cookie))
    assert expected in head, head


def test_the_server_module_is_where_the_factory_names_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from falcon_airflow.server.app import create_app
    from falcon_airflow.server.configuration import MappingConfig

    monkeypatch.setenv("FALCON_STORE_DIR", str(tmp_path / "state"))
    app = create_app(config=MappingConfig({"falcon": {"entities_dir": str(tmp_path)}}))
    assert isinstance(app, FastAPI)
    assert {route.path for route in app.routes} >= {"/api/admin/version", "/api/admin/stack",  # type: ignore[attr-defined]
                                                    "/api/admin/config/{kind}", "/api/admin/setSafeMode/{mode}"}
