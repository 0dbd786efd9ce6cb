"""The Prism's own identity on its colo servers: only the Prism may change a colo's entities.

The Prism acts as its caller (``server/prism/forwarding.py``), so the caller's identity cannot tell a colo that a
request came through the Prism. A colo server configured with ``[falcon] accept_writes_from = <name>`` therefore
takes an entity change (:data:`GUARDED`) only with the header :data:`HEADER`: ``<name>&<expiry>&<signature>``, an
HMAC-SHA256 signed by the Prism of that name with the key the Prism and its colos share. The key is ``[falcon]
prism_secret``, else derived from Airflow's ``[api_auth] jwt_secret`` (which the Prism and the colos share anyway
to pass Airflow tokens on), never the secret itself nor the key of Falcon's simple-scheme cookies: a caller who may
name himself under the simple scheme cannot obtain a Prism proof that way.

Why not the client certificate: Airflow's api-server can require one (``[api] ssl_ca_file``, ``ssl_cert_reqs =
required``, checked by uvicorn's TLS layer), but uvicorn does not hand the verified peer certificate to the
application, so the Falcon server cannot tell whose certificate it was. The certificate keeps everyone without one
from the colo's api-server; this proof tells the Falcon server that the Prism sent the change.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import time
from collections.abc import Callable

HEADER = "X-Falcon-Prism"
VALIDITY_SECONDS = 300
"""How long a proof holds: it is made for each request, so only clock skew between the hosts needs room."""
GUARDED = frozenset({"submit", "update", "submitAndSchedule", "schedule", "suspend", "resume", "delete"})
"""The ``entity`` actions a colo server with ``accept_writes_from`` takes only from the Prism."""
KEY_CONTEXT = b"falcon-airflow prism identity"
"""Mixed into the key, so that it is neither a configured secret itself nor the simple scheme's cookie key."""

ConfigLookup = Callable[[str, str], str | None]


class NotFromPrism(Exception):
    """Why a request does not prove it comes from the Prism."""


def identity_key(config: ConfigLookup) -> bytes | None:
    """The key the Prism signs with and its colos check with; ``None`` when neither secret is configured."""
    secret = (config("falcon", "prism_secret") or "").strip() or (config("api_auth", "jwt_secret") or "").strip()
    if not secret:
        return None
    return hmac.new(secret.encode(), KEY_CONTEXT, hashlib.sha256).digest()


def _signature(key: bytes, text: str) -> str:
    digest = hmac.new(key, text.encode("utf-8"), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).decode("ascii").rstrip("=")


def prove(key: bytes, name: str, *, now: float | None = None) -> str:
    """The header value that proves the Prism ``name`` sends this request."""
    text = f"{name}&{int((now if now is not None else time.time()) + VALIDITY_SECONDS)}"
    return f"{text}&{_signature(key, text)}"


def check(key: bytes | None, value: str | None, expected: str, *, now: float | None = None) -> None:
    """Accept a request whose :data:`HEADER` proves the Prism ``expected``; :class:`NotFromPrism` says why not."""
    if key is None:
        raise NotFromPrism("this server has no key to check the Prism's proof with: set [falcon] prism_secret or "
                           "[api_auth] jwt_secret, as on the Prism")
    if not value:
        raise NotFromPrism(f"the request does not come from the Prism (no {HEADER} header)")
    text, _, signature = value.strip().rpartition("&")
    name, _, expiry = text.rpartition("&")
    if not name or not hmac.compare_digest(signature, _signature(key, text)):
        raise NotFromPrism(f"the {HEADER} header is not signed with the Prism's key")
    if name != expected:
        raise NotFromPrism(f"the request comes from the Prism '{name}', not '{expected}'")
    if not expiry.isdigit() or int(expiry) < (now if now is not None else time.time()):
        raise NotFromPrism(f"the {HEADER} header has expired (check the clocks of the Prism and this server)")


def writes_refused(config: ConfigLookup, command: str, action: str, header: str | None) -> str | None:
    """Why a colo server refuses this action (403), or ``None``: with ``[falcon] accept_writes_from`` it takes
    the :data:`GUARDED` entity actions only from that Prism. Every route that runs actions asks this first."""
    expected = (config("falcon", "accept_writes_from") or "").strip()
    if not expected or command != "entity" or action not in GUARDED:
        return None
    try:
        check(identity_key(config), header, expected)
    except NotFromPrism as why:
        return (f"entity -{action} is accepted on this colo only from the Prism '{expected}' ([falcon] "
                f"accept_writes_from): {why}")
    return None
