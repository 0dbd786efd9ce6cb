"""The mount point of Falcon's server in Airflow's api-server, built on its first request.

The plugin is loaded by every Airflow component (scheduler, workers, dag-processor, triggerer), and only the
api-server serves HTTP: :class:`LazyApp` is what the plugin's ``fastapi_apps`` hands to the api-server, and it
imports the server (:func:`falcon_airflow.server.app.create_app`, named by :data:`FACTORY`, a layer above the
provider) when the first request reaches it. Importing this module costs nothing.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable
from typing import Any

FACTORY = "falcon_airflow.server.app:create_app"
URL_PREFIX = "/falcon"

ASGIApp = Callable[[dict[str, Any], Callable[..., Any], Callable[..., Any]], Any]


class LazyApp:
    """An ASGI application that builds the real one from ``factory`` (``module:function``) on first use."""

    def __init__(self, factory: str = FACTORY) -> None:
        self.factory = factory
        self._app: ASGIApp | None = None
        self._lock = threading.Lock()

    def app(self) -> ASGIApp:
        if self._app is None:
            with self._lock:
                if self._app is None:
                    module, _, name = self.factory.partition(":")
                    self._app = getattr(importlib.import_module(module), name)()
        return self._app

    async def __call__(self, scope: dict[str, Any], receive: Callable[..., Any], send: Callable[..., Any]) -> None:
        if scope["type"] == "lifespan":
            # Airflow's api-server runs the lifespan of FastAPI sub-apps only; the server needs none, so a server
            # that does run it gets the protocol's answers without building the app
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                elif message["type"] == "lifespan.shutdown":
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        await self.app()(scope, receive, send)
