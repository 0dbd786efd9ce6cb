"""One request to one colo's Falcon server, as the caller: the Prism never acts with more than the caller may.

The caller's identity goes on as the colo server's authentication accepts it (``server/authentication.py``): the
Airflow token the caller brought, unchanged (the colos of one deployment share ``[api_auth] jwt_secret``, so their
auth managers accept it), or, for a caller of Falcon's simple scheme, ``user.name`` (the colo server must run the
simple scheme too, on the same trusted network). ``doAs`` goes on as given: each colo server decides whether the
caller may act, and for whom.

A colo's api-server may demand TLS with the Prism's client certificate, and a colo server may take entity changes
only from the Prism: the Prism's TLS settings and its proof (:mod:`falcon_airflow.server.prism.colo_access`) go
with every request.

Every request is bounded in time (``[falcon] prism_timeout``): a colo that is down or hangs is a failed colo of the
answer, never a hung Prism. Colos are asked concurrently (:func:`to_each`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

import httpx

from falcon_airflow.server.prism.colo_access import ColoAccess
from falcon_airflow.server.prism.colos import Colo
from falcon_airflow.server.prism_identity import HEADER as PRISM_HEADER
from falcon_airflow.server.prism_identity import prove

USER_NAME = "user.name"
T = TypeVar("T")


@dataclass(frozen=True)
class Identity:
    """Who the Prism authenticated, as it is passed on."""

    user: str
    token: str | None = field(default=None, repr=False)
    """The caller's Airflow token; ``None`` for a caller of the simple scheme."""


@dataclass(frozen=True)
class ColoAnswer:
    colo: str
    status_code: int | None
    """``None``: the colo was not reached (connection refused, timed out ...)."""
    content: bytes = b""
    media_type: str = ""
    problem: str | None = None
    """Why the colo was not reached."""

    @property
    def reached(self) -> bool:
        """The colo's server answered, and not with a server error (5xx counts as a failed colo)."""
        return self.status_code is not None and self.status_code < 500

    def failure(self) -> str:
        """What went wrong on this colo, for the merged message."""
        if self.problem is not None:
            return self.problem
        text = self.content[:300].decode("utf-8", "replace").strip()
        return f"HTTP {self.status_code} from the colo's server{': ' + text if text else ''}"


@dataclass(frozen=True)
class Forwarder:
    timeout: float
    transport: httpx.AsyncBaseTransport | None = None
    """Tests hand in a mock transport; the product uses httpx's own."""
    access: ColoAccess = field(default_factory=ColoAccess)

    def client(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(timeout=httpx.Timeout(self.timeout, connect=min(self.timeout, 5.0)),
                                 transport=self.transport, follow_redirects=False,
                                 verify=self.access.tls if self.access.tls is not None else True)

    async def send(self, http: httpx.AsyncClient, colo: Colo, method: str, path: str, identity: Identity, *,
                   query: Sequence[tuple[str, str]] = (), body: bytes | None = None,
                   content_type: str | None = None, accept: str = "text/xml") -> ColoAnswer:
        """``method`` ``<colo url>/<path>``; never raises for the colo's failure, which is in the answer."""
        params: list[tuple[str, str | int | float | bool | None]] = list(query)
        headers = {"Accept": accept}
        if self.access.key is not None:  # made for each request: a proof holds a few minutes only
            headers[PRISM_HEADER] = prove(self.access.key, self.access.identity)
        if identity.token is not None:
            headers["Authorization"] = f"Bearer {identity.token}"
        else:
            params.append((USER_NAME, identity.user))
        if content_type is not None:
            headers["Content-Type"] = content_type
        url = f"{colo.url}/{path.lstrip('/')}"
        try:
            response = await http.request(method, url, params=params, content=body, headers=headers)
        except httpx.TimeoutException as late:
            return ColoAnswer(colo.name, None, problem=f"no answer from {colo.url} within {self.timeout:g} s "
                                                      f"({type(late).__name__})")
        except httpx.HTTPError as failed:
            return ColoAnswer(colo.name, None, problem=f"cannot reach {colo.url}: {type(failed).__name__}: {failed}")
        media_type = response.headers.get("content-type", "").split(";")[0].strip()
        return ColoAnswer(colo.name, response.status_code, response.content, media_type)


async def to_each(colos: Sequence[Colo], step: Callable[[Colo], Awaitable[T]]) -> list[T]:
    """``step`` on every colo at once; the results in the colos' order."""
    return list(await asyncio.gather(*(step(colo) for colo in colos)))
