"""How the Prism reaches its colo servers beyond the caller's identity: TLS with its client certificate, and the
proof that a request comes from the Prism (:mod:`falcon_airflow.server.prism_identity`).

``[falcon] prism_ca_file`` is the CA bundle the colos' api-server certificates are checked against (Falcon's
Prism trust store; unset: httpx's default bundle); ``prism_client_cert`` and ``prism_client_key`` (PEM) the
certificate the Prism presents (Falcon's ``keystore.file``), which a colo api-server with ``[api] ssl_ca_file`` and
``ssl_cert_reqs = required`` demands of every connection. ``prism_identity`` is the name the Prism
proves to colos configured with ``accept_writes_from``.
"""

from __future__ import annotations

import ssl
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from falcon_airflow.server.prism.colos import PrismConfigurationError
from falcon_airflow.server.prism_identity import identity_key

DEFAULT_IDENTITY = "prism"


@dataclass(frozen=True)
class ColoAccess:
    tls: ssl.SSLContext | None = field(default=None, repr=False)
    """``None``: httpx's default verification and no client certificate."""
    identity: str = DEFAULT_IDENTITY
    key: bytes | None = field(default=None, repr=False)
    """The key of the Prism's proof; ``None``: no proof is sent (no secret configured)."""

    @classmethod
    def from_config(cls, get: Callable[[str, str], str | None]) -> ColoAccess:
        def setting(key: str) -> str:
            return (get("falcon", key) or "").strip()

        ca_file, cert, key = setting("prism_ca_file"), setting("prism_client_cert"), setting("prism_client_key")
        if bool(cert) != bool(key):
            raise PrismConfigurationError("[falcon] prism_client_cert and prism_client_key go together: set both "
                                          "or neither")
        for name, path in (("prism_ca_file", ca_file), ("prism_client_cert", cert), ("prism_client_key", key)):
            if path and not Path(path).is_file():
                raise PrismConfigurationError(f"[falcon] {name}: no file {path}")
        tls: ssl.SSLContext | None = None
        if ca_file or cert:
            try:
                tls = ssl.create_default_context(cafile=ca_file or None)
                if cert:
                    tls.load_cert_chain(cert, key)
            except (ssl.SSLError, OSError) as problem:
                raise PrismConfigurationError(f"[falcon] prism_ca_file, prism_client_cert, prism_client_key: "
                                              f"{problem}") from None
        return cls(tls, setting("prism_identity") or DEFAULT_IDENTITY, identity_key(get))
