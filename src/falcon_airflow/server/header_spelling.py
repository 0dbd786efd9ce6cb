"""``Set-Cookie`` spelled as Falcon's Jetty spelled it, for the hadoop-auth clients' handshake.

hadoop-auth's client (``AuthenticatedURL.extractToken``, in every Falcon client: the stock CLI, Falcon's Java
client library) takes the ``hadoop.auth`` cookie from ``HttpURLConnection.getHeaderFields().get("Set-Cookie")``.
The JDK keeps response header names as they came, so that lookup is case-sensitive and misses a ``set-cookie``
header. HTTP header names are case-insensitive and ASGI servers may write them in any case: uvicorn's httptools
protocol, which Airflow's api-server runs on when httptools is installed, writes every name in lower case (its h11
protocol writes names as the application gives them). Without the exact spelling the client sends
``Cookie: hadoop.auth=null`` and every request after the handshake is refused.

:func:`install` makes uvicorn's httptools protocol write the header that carries a ``hadoop.auth`` cookie as
``Set-Cookie`` (only that header of only those responses; everything else is written as uvicorn writes it). The
server installs it when it is built (on its first request inside the api-server); it is idempotent and does nothing
where uvicorn's httptools protocol is not available.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from typing import Any

_LOWER = b"\r\nset-cookie: hadoop.auth="
_SPELLED = b"\r\nSet-Cookie: hadoop.auth="
_MARK = "_falcon_set_cookie_spelling"


class _Spelling:
    """A transport that respells the ``hadoop.auth`` ``Set-Cookie`` header in a response's header block."""

    def __init__(self, transport: Any) -> None:
        self._transport = transport

    def write(self, data: bytes) -> None:
        head, separator, rest = data.partition(b"\r\n\r\n")
        self._transport.write(head.replace(_LOWER, _SPELLED) + separator + rest if separator else data)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)


def _carries_auth_cookie(message: Any) -> bool:
    return any(name.lower() == b"set-cookie" and value.startswith(b"hadoop.auth=")
               for name, value in message.get("headers") or ())


def install() -> bool:
    """Respell the ``hadoop.auth`` cookie header of uvicorn's httptools protocol; whether it is in place."""
    try:
        from uvicorn.protocols.http import httptools_impl
    except ImportError:  # no uvicorn or no httptools: nothing lower-cases the name
        return False
    cycle = httptools_impl.RequestResponseCycle
    if getattr(cycle.send, _MARK, False):
        return True
    original: Callable[[Any, Any], Awaitable[None]] = cycle.send

    @functools.wraps(original)
    async def send(self: Any, message: Any) -> None:
        if message.get("type") != "http.response.start" or not _carries_auth_cookie(message):
            await original(self, message)
            return
        transport = self.transport
        self.transport = _Spelling(transport)
        try:
            await original(self, message)
        finally:
            self.transport = transport

    setattr(send, _MARK, True)
    cycle.send = send  # type: ignore[method-assign]
    return True
