"""SASL's GSSAPI mechanism (RFC 4752), client side, over MIT Kerberos through ``gssapi``: what a Kerberized Hive
metastore (``hive.metastore.sasl.enabled=true``) asks of its thrift clients.

The object has the shape ``thrift_sasl``'s transport drives (``start``, ``step``, ``encode``, ``decode``,
``getError``). It authenticates and offers no security layer (the metastore's default quality of protection,
``auth``): once the handshake is done, thrift frames travel as they are.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from typing import Any, TypeVar

MECHANISM = "GSSAPI"
_NO_SECURITY_LAYER = 1
_Answer = TypeVar("_Answer")


def server_principal(principal: str, host: str) -> str:
    """``_HOST`` in a service principal turned into the metastore's host as its URI writes it, lower case, as Hive's
    own clients do (no name lookup: ``hive/_HOST@REALM`` for ``thrift://127.0.0.1:9083`` is
    ``hive/127.0.0.1@REALM``)."""
    return principal.replace("_HOST", host.lower(), 1)


class GssapiSaslClient:
    """One SASL GSSAPI exchange with the service ``principal``, with the caller's ``credentials``."""

    def __init__(self, principal: str, credentials: Any) -> None:
        import gssapi

        target = gssapi.Name(principal, gssapi.NameType.kerberos_principal)
        flags = gssapi.RequirementFlag.mutual_authentication | gssapi.RequirementFlag.integrity
        self._context = gssapi.SecurityContext(name=target, creds=credentials, usage="initiate", flags=flags)
        self._error = ""

    def start(self, mechanism: str) -> tuple[bool, str, bytes]:
        if mechanism != MECHANISM:
            self._error = f"mechanism {mechanism} is not {MECHANISM}"
            return False, mechanism, b""
        return self._guarded(lambda: (True, MECHANISM, self._context.step(b"") or b""),
                             (False, MECHANISM, b""))

    def step(self, challenge: bytes) -> tuple[bool, bytes]:
        if not self._context.complete:
            return self._guarded(lambda: (True, self._context.step(challenge) or b""), (False, b""))
        return self._guarded(lambda: self._choose_layer(challenge), (False, b""))

    def _choose_layer(self, challenge: bytes) -> tuple[bool, bytes]:
        """The server's last challenge offers security layers and a buffer size (wrapped); the answer takes none."""
        offer = self._context.unwrap(challenge).message
        if len(offer) != 4 or not offer[0] & _NO_SECURITY_LAYER:
            self._error = "the server insists on a SASL security layer (integrity or privacy), which is not supported"
            return False, b""
        return True, self._context.wrap(struct.pack(">I", _NO_SECURITY_LAYER << 24), False).message

    def _guarded(self, call: Callable[[], _Answer], failed: _Answer) -> _Answer:
        import gssapi.raw

        try:
            return call()
        except gssapi.raw.GSSError as problem:
            self._error = " ".join(str(problem).split())
            return failed

    def encode(self, data: bytes) -> tuple[bool, bytes]:
        return True, data

    def decode(self, data: bytes) -> tuple[bool, bytes]:
        return True, data

    def getError(self) -> str:  # the name thrift_sasl calls
        return self._error

    def dispose(self) -> None:
        """Nothing to release: the context goes with the object."""
