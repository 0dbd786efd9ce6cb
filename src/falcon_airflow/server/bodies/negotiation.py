"""Which representation a request gets, the bytes of a body in it, and the HTTP status of each kind of answer.

Falcon's resources declared what they produce with ``@Produces`` and Jersey 1.9 picked the response type from the
request's ``Accept`` header: the acceptable ranges sorted by quality, then by how specific they are (a concrete type
before ``text/*`` before ``*/*``), header order otherwise; the first range that one of the resource's types matches
wins, and among the types the resource lists first. A missing header is ``*/*``, so the first type the resource lists
is what a bare ``curl`` got; nothing acceptable is 406.

The stock Falcon 0.9 client (``FalconClient``) sends one type per call: ``text/xml`` for the entity calls except
``-summary``, ``-lookup`` and ``-slaAlert`` (``application/json``), ``application/json`` for every instance, metadata
and ``admin -version`` call, ``text/plain`` for ``admin -stack``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from falcon_airflow.server.bodies import wire
from falcon_airflow.server.bodies.results import (
    APIResult,
    Body,
    EntityDefinition,
    JsonDocument,
    PlainText,
    ResultStatus,
)

Format = Literal["xml", "json", "text"]

MEDIA_TYPES: dict[str, str] = {"xml": "text/xml", "json": "application/json", "text": "text/plain"}

# The @Produces lists of Falcon's resources, in their order (the first one is what */* gets).
PRODUCES_ENTITY_ACTION: tuple[Format, ...] = ("xml", "text", "json")
"""submit, validate, update, schedule, suspend, resume, delete, touch, status, definition (and extension actions)."""
PRODUCES_XML_JSON: tuple[Format, ...] = ("xml", "json")
"""entities list, summary and dependencies; admin version and config; extension list."""
PRODUCES_JSON: tuple[Format, ...] = ("json",)
"""every instance resource, the metadata resources, extension instances and enumerate."""
PRODUCES_JSON_XML: tuple[Format, ...] = ("json", "xml")
"""entities sla-alert."""
PRODUCES_JSON_TEXT: tuple[Format, ...] = ("json", "text")
"""entities lookup."""
PRODUCES_TEXT: tuple[Format, ...] = ("text",)
"""admin stack, clearuser, getuser; extension describe."""


@dataclass(frozen=True, slots=True)
class _Range:
    kind: str
    subtype: str
    quality: float
    position: int

    @property
    def specificity(self) -> int:
        return 0 if self.kind == "*" else 1 if self.subtype == "*" else 2

    def matches(self, media_type: str) -> bool:
        kind, _, subtype = media_type.partition("/")
        return self.kind in ("*", kind) and self.subtype in ("*", subtype)


def _ranges(accept: str | None) -> list[_Range]:
    if accept is None or not accept.strip():
        return [_Range("*", "*", 1.0, 0)]
    ranges = []
    for position, item in enumerate(accept.split(",")):
        media, *parameters = (part.strip() for part in item.split(";"))
        kind, slash, subtype = media.lower().partition("/")
        if not slash or not kind or not subtype:
            continue  # not a media range
        quality = 1.0
        for parameter in parameters:
            name, _, value = parameter.partition("=")
            if name.strip().lower() == "q":
                try:
                    quality = float(value.strip())
                except ValueError:
                    quality = 0.0
        ranges.append(_Range(kind, subtype, quality, position))
    return sorted(ranges, key=lambda item: (-item.quality, -item.specificity, item.position))


def negotiate(accept_header: str | None, produces: Sequence[Format] = PRODUCES_XML_JSON) -> Format | None:
    """The format a resource producing ``produces`` answers a request with this ``Accept`` header in, or ``None``
    when it accepts none of them (Falcon's server answered 406 Not Acceptable)."""
    for wanted in _ranges(accept_header):
        if wanted.quality <= 0:
            continue
        for offered in produces:
            if wanted.matches(MEDIA_TYPES[offered]):
                return offered
    return None


def render(body: Body, fmt: Format) -> tuple[bytes, str]:
    """The bytes of ``body`` in ``fmt`` and the ``Content-Type`` Falcon's server sent with them.

    A JAXB result asked for as ``text/plain`` (a resource listing ``text/plain`` among its types) is sent as its XML
    under that type: Falcon's Jersey had no writer for it and failed with a 500."""
    media_type = MEDIA_TYPES[fmt]
    if isinstance(body, EntityDefinition):
        return body.xml.encode("utf-8"), media_type
    if isinstance(body, PlainText):
        return body.text.encode("utf-8"), media_type
    if isinstance(body, JsonDocument):
        return wire.to_jettison_json(body.members), MEDIA_TYPES["json"]
    root = body.element()
    if fmt == "json":
        writer = wire.to_natural_json if body.NOTATION == "natural" else wire.to_mapped_json
        return writer(root), media_type
    return wire.to_xml(root), media_type


# -- status codes -----------------------------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Answer:
    """One kind of answer Falcon's server gave: its HTTP status and what the body was."""

    status: int
    body: str


ANSWERS: dict[str, Answer] = {
    "succeeded": Answer(200, "the result, SUCCEEDED, in the negotiated type"),
    "partial": Answer(200, "the result, PARTIAL (some colos or instances failed), in the negotiated type"),
    "refused": Answer(400, "APIResult FAILED with the reason, always as text/xml whatever Accept asked "
                           "(FalconWebException); an invalid option, a failed validation, safemode, 'X (type) not "
                           "found' for an unknown entity"),
    "unknown-entity-authorizing": Answer(400, "with authorization on, the authorization filter's JSON "
                                              "{errorCode, errorMessage, requestId} (application/json) for an entity "
                                              "that does not exist; a DELETE of one goes through and SUCCEEDS"),
    "unauthenticated": Answer(401, "no valid user: the authentication filter's error (hadoop-auth)"),
    "denied": Answer(403, "the authorization filter's JSON {errorCode: 403, errorMessage, requestId} "
                          "(application/json); nothing is done"),
    "metadata-not-found": Answer(404, "a lineage vertex or edge that does not exist: the message as text/plain"),
    "metadata-invalid": Answer(400, "an invalid dimension type or name: the message as text/plain"),
    "not-acceptable": Answer(406, "the Accept header matches none of the resource's types"),
    "internal": Answer(500, "APIResult FAILED with the exception's message, as text/xml"),
}
"""How Falcon's server answered, by kind; the resources pick the row, :func:`failure` and :func:`denial` build the
bodies of the error rows."""


def failure(message: str, *, request_id: str | None = None, status: int = 400) -> tuple[int, bytes, str]:
    """A refused or failed request as ``FalconWebException`` sent it: ``APIResult`` FAILED as XML (every client
    reads it: the stock CLI parses a 400's body as an ``APIResult`` and prints its message)."""
    body = wire.to_xml(APIResult(ResultStatus.FAILED, message, request_id).element())
    return status, body, MEDIA_TYPES["xml"]


def denial(message: str, *, request_id: str | None = None, status: int = 403) -> tuple[int, bytes, str]:
    """A request the authorization filter stopped: 403 (or 400 for an unknown entity) with its JSON object."""
    members: dict[str, object] = {"errorCode": status, "errorMessage": message}
    if request_id is not None:
        members["requestId"] = request_id
    return status, wire.to_jettison_json(members), MEDIA_TYPES["json"]


def metadata_failure(message: str, *, status: int = 400) -> tuple[int, bytes, str]:
    """An error of the metadata resources: the message alone, as text/plain (Falcon kept them so for
    compatibility); a missing vertex or edge is a 404 whose message is a JSON-quoted string."""
    return status, message.encode("utf-8"), MEDIA_TYPES["text"]
