"""Who is calling: Falcon's ``simple`` scheme as its clients speak it, and Airflow's own tokens.

Falcon's clients authenticate the way hadoop-auth's ``AuthenticatedURL`` does. Before its first request the stock
CLI sends ``OPTIONS api/options?user.name=<its operating system user>`` (hadoop-auth's Kerberos authenticator goes
first and, given no Kerberos answer, falls back to the pseudo authenticator, which sends that request once more with
``user.name`` repeated). The server answers ``200`` and sets a signed ``hadoop.auth`` cookie; the client sends it back
on every request as ``Cookie: hadoop.auth="<token>"``. The token is hadoop-auth's ``AuthToken``:
``u=<user>&p=<user>&t=simple&e=<expiry in epoch milliseconds>``, then ``&s=<signature>``. The client parses it and
refuses one whose attributes are not exactly ``u``, ``p``, ``t`` and ``e``; it never checks the signature, so the
signature is the server's own choice: here an HMAC-SHA256 of the token text (hadoop-auth 2.7 used a SHA-1 digest of
text and secret), base64-encoded.

On every request, as hadoop-auth's ``AuthenticationFilter`` decides:

* ``Authorization: Bearer <jwt>`` (Airflow's token from the api-server's ``/auth/token``) wins over any cookie and
  is verified by Airflow's auth manager; the user is the name the auth manager gives it;
* else, on ``GET`` and ``HEAD`` only, Airflow's session cookie ``_token`` (a browser signed in to Airflow's UI: the
  console, docs/console.md) is verified the same way, whatever the scheme; on any other method the cookie counts
  only with the console's write token in ``X-Falcon-Console-Token`` (:mod:`.console.write_token`), else the
  request is refused with ``403``;
* else a ``hadoop.auth`` cookie whose signature, type and expiry hold names the user;
* else (the cookie is missing or bad) a ``user.name`` query parameter authenticates anew and a fresh cookie is set;
* else the request is refused with ``401`` (``WWW-Authenticate: PseudoAuth``, and the reason: "Authentication
  required", a bad signature, an expired token).

``OPTIONS`` requests only authenticate: once the caller is known they are answered ``200`` with no body.

``[falcon] authentication`` chooses: ``simple`` (both ways in) or ``airflow`` (Airflow's tokens only: cookies and
``user.name`` are ignored). The simple scheme believes any name it is told, as Falcon's did: it belongs on a trusted
network only. Kerberos (SPNEGO) is not offered.

The cookie's signing secret is ``[falcon] authentication_secret``, else derived from Airflow's ``[api_auth]
jwt_secret`` (which every api-server of a deployment shares, so each accepts the others' cookies); with neither, the
simple scheme refuses to start. ``[falcon] authentication_token_validity`` is the cookie's life in seconds
(hadoop-auth's ``token.validity``, 36000 by default).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal
from urllib.parse import parse_qsl

from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from falcon_airflow.core.identity import is_user_name
from falcon_airflow.server.console.write_token import HEADER as WRITE_TOKEN_HEADER
from falcon_airflow.server.console.write_token import WriteTokenRefused
from falcon_airflow.server.console.write_token import check as check_write_token

Scheme = Literal["simple", "airflow"]
SIMPLE: Scheme = "simple"
AIRFLOW: Scheme = "airflow"
SCHEMES: tuple[Scheme, ...] = (SIMPLE, AIRFLOW)
DEFAULT_SCHEME: Scheme = AIRFLOW
"""Without ``[falcon] authentication``: only Airflow's tokens. ``make run`` sets ``simple``, Falcon's default."""

AUTH_COOKIE = "hadoop.auth"
AIRFLOW_SESSION_COOKIE = "_token"
"""Where Airflow's UI keeps the signed-in user's token (``COOKIE_NAME_JWT_TOKEN``, HttpOnly, SameSite=Lax), sent
with every request of the browser to the api-server's origin, ``/falcon`` included."""
SESSION_METHODS = frozenset({"GET", "HEAD"})
"""The requests Airflow's session cookie authenticates: reads only (a cookie travels with requests other sites
make the browser send)."""
USER_NAME_PARAMETER = "user.name"
TOKEN_TYPE = "simple"
"""hadoop-auth's ``PseudoAuthenticationHandler.TYPE``: the ``t`` of every cookie this server signs."""
DEFAULT_VALIDITY_SECONDS = 36000
SIGNATURE_SEPARATOR = "&s="
TOKEN_ATTRIBUTES = frozenset({"u", "p", "t", "e"})
SECRET_CONTEXT = b"falcon-airflow hadoop.auth cookie signing key"
"""Mixed into the key derived from ``[api_auth] jwt_secret``, so that the cookie key is never the JWT key itself."""

CALLER_STATE = "falcon_caller"
"""Where the authenticated caller is kept in the request's scope state."""

ConfigLookup = Callable[[str, str], str | None]
"""An Airflow setting by (section, key); ``None`` when it is not set."""


class AuthenticationFailed(Exception):
    """The request does not say who it comes from, or says it in a way that does not hold (401)."""

    def __init__(self, message: str, *, status: int = 401) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


@dataclass(frozen=True)
class Caller:
    """Who a request comes from, as authenticated."""

    user: str
    scheme: Scheme
    """``simple``: a ``hadoop.auth`` cookie or ``user.name``; ``airflow``: an Airflow token."""
    roles: frozenset[str] = frozenset()
    """The Airflow roles the auth manager gives the user (Airflow tokens only; empty when it has none)."""
    cookie: str | None = field(default=None, repr=False)
    """A ``Set-Cookie`` value to send back: the simple scheme authenticated this request anew."""
    token: str | None = field(default=None, repr=False)
    """The Airflow token the request came with (``airflow`` scheme), verified."""


@dataclass(frozen=True)
class AuthenticationSettings:
    scheme: Scheme
    secret: bytes | None = field(repr=False)
    validity_seconds: int = DEFAULT_VALIDITY_SECONDS

    @classmethod
    def from_config(cls, config: ConfigLookup) -> AuthenticationSettings:
        """The settings from ``[falcon] authentication``, ``authentication_secret``,
        ``authentication_token_validity`` and Airflow's ``[api_auth] jwt_secret``."""
        chosen = (config("falcon", "authentication") or DEFAULT_SCHEME).strip().lower()
        if chosen not in SCHEMES:
            raise ValueError(f"[falcon] authentication must be one of {', '.join(SCHEMES)}, not '{chosen}'")
        raw_validity = (config("falcon", "authentication_token_validity") or "").strip()
        try:
            validity = int(raw_validity) if raw_validity else DEFAULT_VALIDITY_SECONDS
        except ValueError:
            raise ValueError("[falcon] authentication_token_validity must be a whole number of seconds, not "
                             f"'{raw_validity}'") from None
        if validity <= 0:
            raise ValueError("[falcon] authentication_token_validity must be positive")
        secret: bytes | None = None
        own = (config("falcon", "authentication_secret") or "").strip()
        if own:
            secret = own.encode()
        else:
            shared = (config("api_auth", "jwt_secret") or "").strip()
            if shared:
                secret = hmac.new(shared.encode(), SECRET_CONTEXT, hashlib.sha256).digest()
        scheme: Scheme = SIMPLE if chosen == SIMPLE else AIRFLOW
        if scheme == SIMPLE and secret is None:
            raise ValueError("the simple authentication scheme signs its cookies with [falcon] authentication_secret "
                             "or, when that is not set, a key derived from [api_auth] jwt_secret: neither is set")
        return cls(scheme, secret, validity)


# -- hadoop-auth's signed token ------------------------------------------------------------------------------------

def sign(secret: bytes, text: str) -> str:
    """``text&s=<signature>`` (hadoop-auth's ``Signer.sign``)."""
    digest = hmac.new(secret, text.encode("utf-8"), hashlib.sha256).digest()
    return text + SIGNATURE_SEPARATOR + base64.b64encode(digest).decode("ascii")


def verify(secret: bytes, signed: str) -> str:
    """The token text of a signed value; :class:`AuthenticationFailed` when it is not signed with ``secret``."""
    index = signed.rfind(SIGNATURE_SEPARATOR)
    if index == -1:
        raise AuthenticationFailed("Invalid signed text: the token carries no signature")
    text = signed[:index]
    expected = sign(secret, text)[index + len(SIGNATURE_SEPARATOR):]
    if not hmac.compare_digest(expected.encode("ascii"), signed[index + len(SIGNATURE_SEPARATOR):].encode("utf-8")):
        raise AuthenticationFailed("Invalid signature")
    return text


@dataclass(frozen=True)
class Token:
    """hadoop-auth's ``AuthToken``: user, principal, type and expiry (epoch milliseconds)."""

    user: str
    principal: str
    type: str
    expires: int

    def text(self) -> str:
        return f"u={self.user}&p={self.principal}&t={self.type}&e={self.expires}"

    @classmethod
    def parse(cls, text: str) -> Token:
        attributes: dict[str, str] = {}
        for part in (item for item in text.split("&") if item):
            key, separator, value = part.partition("=")
            if not separator:
                raise AuthenticationFailed("Invalid authentication token")
            attributes[key] = value
        if set(attributes) != TOKEN_ATTRIBUTES:
            raise AuthenticationFailed("Invalid token string, missing attributes")
        try:
            expires = int(attributes["e"])
        except ValueError:
            raise AuthenticationFailed("Invalid authentication token") from None
        return cls(attributes["u"], attributes["p"], attributes["t"], expires)

    def expired(self, now_ms: int) -> bool:
        return self.expires != -1 and now_ms > self.expires


def issue(settings: AuthenticationSettings, user: str, *, now: float | None = None) -> tuple[Token, str]:
    """A fresh token for ``user`` and its signed cookie value."""
    assert settings.secret is not None  # from_config refuses the simple scheme without one
    moment = time.time() if now is None else now
    token = Token(user, user, TOKEN_TYPE, int(moment * 1000) + settings.validity_seconds * 1000)
    return token, sign(settings.secret, token.text())


def read_cookie(settings: AuthenticationSettings, value: str, *, now: float | None = None) -> str:
    """The user a ``hadoop.auth`` cookie value names (quotes around it allowed, as clients send it back)."""
    if settings.secret is None:
        raise AuthenticationFailed("Invalid signature")
    if len(value) >= 2 and value[0] == value[-1] == '"':
        value = value[1:-1]
    token = Token.parse(verify(settings.secret, value))
    if token.type != TOKEN_TYPE:
        raise AuthenticationFailed("Invalid AuthenticationToken type")
    moment = time.time() if now is None else now
    if token.expired(int(moment * 1000)):
        raise AuthenticationFailed("AuthenticationToken expired")
    if not is_user_name(token.user):
        raise AuthenticationFailed("Invalid authentication token")
    return token.user


def cookie_header(signed: str | None, expires_ms: int, *, path: str, secure: bool) -> str:
    """A ``Set-Cookie`` value as hadoop-auth writes it (``AuthenticationFilter.createAuthCookie``): the token in
    quotes, ``Path``, ``Expires`` in ``EEE, dd-MMM-yyyy HH:mm:ss GMT``, ``HttpOnly``; an empty value clears it."""
    parts = [f'{AUTH_COOKIE}="{signed}"' if signed else f"{AUTH_COOKIE}=", f"Path={path}"]
    if expires_ms >= 0:
        moment = datetime.fromtimestamp(expires_ms / 1000, UTC)
        parts.append("Expires=" + moment.strftime("%a, %d-%b-%Y %H:%M:%S GMT"))
    if secure:
        parts.append("Secure")
    parts.append("HttpOnly")
    return "; ".join(parts)


def cookies_of(header: str) -> dict[str, str]:
    """The cookies of a ``Cookie`` header by name (the first of a name wins, as a servlet container reads them),
    values as sent (quotes kept)."""
    found: dict[str, str] = {}
    for chunk in header.split(";"):
        name, separator, value = chunk.strip().partition("=")
        if separator and name and name not in found:
            found[name] = value.strip()
    return found


# -- the request ---------------------------------------------------------------------------------------------------

TokenVerifier = Callable[[str], Awaitable[Caller]]
"""Turns an Airflow token into the caller it names; raises :class:`AuthenticationFailed`."""


async def airflow_token_caller(token: str) -> Caller:
    """The caller an Airflow token names, as the api-server's auth manager verifies it (signature, audience,
    expiry, revocation); the user's roles where the auth manager's user object has them."""
    from airflow.api_fastapi.app import get_auth_manager
    from jwt import ExpiredSignatureError, InvalidTokenError

    try:
        user = await get_auth_manager().get_user_from_token(token)
    except ExpiredSignatureError:
        raise AuthenticationFailed("Token Expired") from None
    except InvalidTokenError:
        raise AuthenticationFailed("Invalid JWT token") from None
    return Caller(str(user.get_name()), AIRFLOW, roles=roles_of(user), token=token)


def roles_of(user: object) -> frozenset[str]:
    """The role names of an auth manager's user: FAB's users have ``roles`` (objects with a ``name``), the simple
    auth manager's one ``role``."""
    roles: set[str] = set()
    for role in getattr(user, "roles", None) or ():
        name = getattr(role, "name", role)
        if name:
            roles.add(str(name))
    single = getattr(user, "role", None)
    if single:
        roles.add(str(getattr(single, "value", single)))
    return frozenset(roles)


@dataclass(frozen=True)
class Authenticator:
    settings: AuthenticationSettings
    verify_token: TokenVerifier = airflow_token_caller

    async def authenticate(self, request: Request) -> Caller:
        """The caller of ``request``; :class:`AuthenticationFailed` when it cannot be told."""
        header = request.headers.get("authorization", "")
        scheme_name, _, credentials = header.partition(" ")
        if scheme_name.lower() == "bearer" and credentials.strip():
            return await self.verify_token(credentials.strip())
        session = cookies_of(request.headers.get("cookie", "")).get(AIRFLOW_SESSION_COOKIE, "").strip('"')
        if session and request.method in SESSION_METHODS:
            # a browser signed in to Airflow's UI (the console's pages and their JSON): Airflow's own token, kept
            # in its cookie; only for reading, so that another site cannot make the browser change anything
            return await self.verify_token(session)
        if session:
            # a change with the session cookie: only with the console's write token, which the browser never sends
            # by itself (a request another site makes it send carries the cookie alone)
            found = await self.verify_token(session)
            try:
                check_write_token(session, found.user, request.headers.get(WRITE_TOKEN_HEADER))
            except WriteTokenRefused as refused:
                raise AuthenticationFailed(refused.message, status=403) from None
            return found
        if self.settings.scheme != SIMPLE:
            raise AuthenticationFailed("Authentication required: an Airflow token (Authorization: Bearer, from the "
                                       "api-server's /auth/token)")
        problem: AuthenticationFailed | None = None
        cookie = cookies_of(request.headers.get("cookie", "")).get(AUTH_COOKIE)
        if cookie and cookie not in ('""',):
            try:
                return Caller(read_cookie(self.settings, cookie), SIMPLE)
            except AuthenticationFailed as failure:
                problem = failure
        # hadoop-auth's pseudo handler reads user.name from the raw query string (the first one counts)
        names = [value for key, value in parse_qsl(request.url.query, keep_blank_values=True)
                 if key == USER_NAME_PARAMETER]
        if not names:
            raise problem or AuthenticationFailed("Authentication required")
        user = names[0]
        if not user:
            raise AuthenticationFailed("Param user.name can't be empty", status=400)
        if not is_user_name(user):
            raise AuthenticationFailed(f"Param user.name is not a user name: {user!r} (letters, digits and _ . @ -)",
                                       status=400)
        token, signed = issue(self.settings, user)
        secure = request.url.scheme == "https"
        path = request.scope.get("root_path") or "/"
        return Caller(user, SIMPLE, cookie=cookie_header(signed, token.expires, path=path, secure=secure))


FailureResponder = Callable[[Request, AuthenticationFailed], Awaitable[Any]]
"""Builds the response for a refused request (an ASGI app)."""


def route_path(scope: Scope) -> str:
    """The request's path inside the app (without the ``/falcon`` it is mounted at), as Starlette routes it."""
    path: str = scope.get("path", "")
    root = scope.get("root_path", "")
    if root and path.startswith(root) and path[len(root):len(root) + 1] in ("/", ""):
        return path[len(root):]
    return path


class AuthenticationMiddleware:
    """Authenticates every request of the Falcon app before routing (hadoop-auth's filter): keeps the caller in
    the request state (:func:`caller`), answers ``OPTIONS`` itself, adds the cookie of a new simple login to the
    response, and answers refused requests with ``respond``.

    ``own_check`` names the paths (exactly) whose routes authenticate their callers themselves and are not for users
    (the DAG bundle's store routes): those requests reach their route with no caller in the state, so a route that
    asks for :func:`caller` there would still refuse them."""

    def __init__(self, app: ASGIApp, *, authenticator: Authenticator, respond: FailureResponder,
                 on_refused: Callable[[Request, AuthenticationFailed], None] | None = None,
                 own_check: frozenset[str] = frozenset()) -> None:
        self.app = app
        self.authenticator = authenticator
        self.respond = respond
        self.on_refused = on_refused
        self.own_check = own_check

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or (scope["method"] == "GET" and route_path(scope) in self.own_check):
            await self.app(scope, receive, send)
            return
        request = Request(scope, receive)
        try:
            found = await self.authenticator.authenticate(request)
        except AuthenticationFailed as failure:
            if self.on_refused is not None:
                self.on_refused(request, failure)
            response = await self.respond(request, failure)
            await response(scope, receive, send)
            return
        scope.setdefault("state", {})[CALLER_STATE] = found
        extra: list[tuple[bytes, bytes]] = []
        if found.cookie:
            # spelled as Jetty spelled it: hadoop-auth's client looks the header up case-sensitively
            # (``HttpURLConnection.getHeaderFields().get("Set-Cookie")``) and finds no lower-case ``set-cookie``
            extra.append((b"Set-Cookie", found.cookie.encode("latin-1")))
        if scope["method"] == "OPTIONS":
            # the handshake: authenticated, nothing else to do (Falcon's filter hands it to an empty servlet)
            await send({"type": "http.response.start", "status": 200,
                        "headers": [(b"allow", b"GET, HEAD, POST, PUT, DELETE, OPTIONS"), (b"content-length", b"0"),
                                    *extra]})
            await send({"type": "http.response.body", "body": b""})
            return
        if not extra:
            await self.app(scope, receive, send)
            return

        async def send_with_cookie(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        await self.app(scope, receive, send_with_cookie)


def caller(request: Request) -> Caller:
    """FastAPI dependency: who is calling (authenticated by :class:`AuthenticationMiddleware`)."""
    state: Mapping[str, Any] = request.scope.get("state") or {}
    found = state.get(CALLER_STATE)
    if not isinstance(found, Caller):  # the app was built without the middleware: never serve anonymously
        raise AuthenticationFailed("Authentication required")
    return found


def authenticated_user(request: Request) -> str:
    """FastAPI dependency: the authenticated user name."""
    return caller(request).user
