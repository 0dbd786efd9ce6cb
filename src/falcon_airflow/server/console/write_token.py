"""The console's write token: what lets the page change something while the browser signs in with a cookie.

Airflow's session cookie (``_token``) travels with every request the browser sends to Airflow's origin, also with
one another site makes it send (a form posted from elsewhere, an image), so the cookie alone never authorizes a
change (:mod:`falcon_airflow.server.authentication`). A write from the console also carries this token in the
:data:`HEADER` request header, which a browser never adds by itself and another site cannot make it add (a
cross-origin request with a custom header needs a CORS preflight, which this server never grants).

The page asks for the token (``GET /console/api/write-token``, a read, answered only on the same origin: no other
site can read the answer). The token is the expiry and an HMAC-SHA256 of the user and the expiry keyed with the
session's own token: it is bound to that session and that user, short-lived (:data:`VALIDITY_SECONDS`), and
whoever does not know the HttpOnly session cookie can neither make one nor learn the cookie from one. Nothing is
kept on the server, so every api-server of a deployment accepts the tokens of the others.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import time
from dataclasses import dataclass

HEADER = "X-Falcon-Console-Token"
VALIDITY_SECONDS = 900
PURPOSE = "falcon-airflow console write"


class WriteTokenRefused(Exception):
    """A write with the session cookie and no token, or one that does not hold (403)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass(frozen=True)
class WriteToken:
    token: str
    expires: int
    """Epoch seconds."""


def _mac(session: str, user: str, expires: int) -> str:
    digest = hmac.new(session.encode("utf-8"), f"{PURPOSE}\n{user}\n{expires}".encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).decode("ascii").rstrip("=")


def issue(session: str, user: str, *, now: float | None = None) -> WriteToken:
    """A token for ``user``'s writes in the browser session whose cookie is ``session``."""
    expires = int(time.time() if now is None else now) + VALIDITY_SECONDS
    return WriteToken(f"{expires}.{_mac(session, user, expires)}", expires)


def check(session: str, user: str, given: str | None, *, now: float | None = None) -> None:
    """:class:`WriteTokenRefused` unless ``given`` is a live token of this session and user."""
    if not given or not given.strip():
        raise WriteTokenRefused(f"a change made with Airflow's session cookie needs the console's write token (the "
                                f"{HEADER} header): refused")
    expiry, _, mac = given.strip().partition(".")
    if not expiry.isdigit() or not mac:
        raise WriteTokenRefused(f"the {HEADER} header is not a write token: refused")
    if not hmac.compare_digest(_mac(session, user, int(expiry)).encode(), mac.encode("utf-8", "replace")):
        raise WriteTokenRefused(f"the {HEADER} header is not a write token of this session: refused")
    if int(expiry) < int(time.time() if now is None else now):
        raise WriteTokenRefused("the console's write token has expired: reload the page")
