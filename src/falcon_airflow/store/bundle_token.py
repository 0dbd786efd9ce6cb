"""How the DAG bundle proves to Falcon's server that it may read the store's snapshots.

The dag-processor and the workers read the store through the server (``GET /falcon/api/store/...``, see
:mod:`falcon_airflow.server.resources.store` and :mod:`falcon_airflow.dags.store_bundle`), never as a user: the
bundle sends ``Authorization: FalconBundle <expiry>.<signature>``, where ``expiry`` is a time in epoch seconds a
minute ahead and ``signature`` the HMAC-SHA256 (hex) of ``FalconBundle:<expiry>`` under the bundle key.

The bundle key is derived (HMAC-SHA256 with a purpose label of its own, so it is never the secret itself nor the key
of Falcon's ``hadoop.auth`` cookies) from ``[falcon] store_bundle_secret``, else from Airflow's ``[api_auth]
jwt_secret``: every component that fetches or serves the store must hold the same one. With neither, nothing is
served.

The server accepts a token whose signature holds (compared in constant time) and whose expiry is neither past nor
further ahead than a fresh token's, each with :data:`CLOCK_SKEW_SECONDS` of tolerance for clocks that disagree.
Standard library only: the server and the bundle both use it.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import time
from collections.abc import Callable

SCHEME = "FalconBundle"
KEY_PURPOSE = b"falcon-airflow store bundle token key"
"""Mixed into the secret: the bundle key is neither the secret nor any other key derived from it."""
VALIDITY_SECONDS = 60
CLOCK_SKEW_SECONDS = 120
_EXPIRY = re.compile(r"[0-9]{1,12}")
_SIGNATURE = re.compile(r"[0-9a-f]{64}")

ConfigLookup = Callable[[str, str], str | None]
"""An Airflow setting by (section, key); ``None`` when it is not set."""


class BundleTokenError(Exception):
    """A request that does not prove it comes from the deployment's DAG bundle."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class BundleKeyMissing(BundleTokenError):
    """Neither ``[falcon] store_bundle_secret`` nor ``[api_auth] jwt_secret`` is set."""


def bundle_key(config: ConfigLookup) -> bytes:
    """The bundle key of this deployment; :class:`BundleKeyMissing` without a secret to derive it from."""
    secret = (config("falcon", "store_bundle_secret") or "").strip() or (config("api_auth", "jwt_secret") or "").strip()
    if not secret:
        raise BundleKeyMissing("the store's DAG bundle signs its requests with a key derived from [falcon] "
                               "store_bundle_secret or, when that is not set, [api_auth] jwt_secret: neither is set "
                               "(the api-server, the dag-processor and the workers must share one)")
    return hmac.new(secret.encode("utf-8"), KEY_PURPOSE, hashlib.sha256).digest()


def _signature(key: bytes, expiry: int) -> str:
    return hmac.new(key, f"{SCHEME}:{expiry}".encode("ascii"), hashlib.sha256).hexdigest()


def authorization(key: bytes, *, now: float | None = None, validity: int = VALIDITY_SECONDS) -> str:
    """The ``Authorization`` header value of one request: ``FalconBundle <expiry>.<signature>``."""
    expiry = int(time.time() if now is None else now) + validity
    return f"{SCHEME} {expiry}.{_signature(key, expiry)}"


def check_authorization(key: bytes, header: str | None, *, now: float | None = None) -> None:
    """Nothing when ``header`` carries a valid bundle token; :class:`BundleTokenError` saying why not."""
    scheme, _, token = (header or "").strip().partition(" ")
    if scheme != SCHEME or not token.strip():
        raise BundleTokenError(f"Authentication required: an {SCHEME} token")
    expiry_text, dot, signature = token.strip().partition(".")
    if not dot or not _EXPIRY.fullmatch(expiry_text) or not _SIGNATURE.fullmatch(signature):
        raise BundleTokenError(f"Invalid {SCHEME} token")
    expiry = int(expiry_text)
    if not hmac.compare_digest(_signature(key, expiry).encode("ascii"), signature.encode("ascii")):
        raise BundleTokenError(f"Invalid {SCHEME} token signature")
    moment = time.time() if now is None else now
    if expiry < moment - CLOCK_SKEW_SECONDS:
        raise BundleTokenError(f"{SCHEME} token expired")
    if expiry > moment + VALIDITY_SECONDS + CLOCK_SKEW_SECONDS:
        raise BundleTokenError(f"{SCHEME} token expires too far ahead")
