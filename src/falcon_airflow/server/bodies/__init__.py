"""Falcon's result types on the wire: what Falcon 0.9/0.10's server sent, byte for byte, for each REST call.

* :mod:`.results` - the result types (``APIResult``, ``EntityList``, ``InstancesResult`` ...) as frozen dataclasses;
* :mod:`.wire` - their XML and the two JSON notations of Falcon's Jersey (natural for a few classes, mapped for the
  rest), and the hand-built JSON of the metadata resources;
* :mod:`.negotiation` - the representation a request's ``Accept`` gets (:func:`negotiate`), the bytes and type of a
  body (:func:`render`), the HTTP status of each kind of answer (:data:`ANSWERS`) and the error bodies;
* :mod:`.conversion` - each operate action's outcome as the body of its call (:func:`from_outcome`).

A resource does::

    fmt = negotiate(request.headers.get("accept"), PRODUCES_JSON)       # None: answer 406
    content, media_type = render(from_outcome("instance.status", outcome, request_id=rid), fmt)

Importing this package costs the standard library and :mod:`falcon_airflow.operate.outcomes`, nothing more.
"""

from __future__ import annotations

from falcon_airflow.server.bodies.conversion import (
    CONVERTERS,
    consolidated,
    from_outcome,
    refusal_message,
)
from falcon_airflow.server.bodies.negotiation import (
    ANSWERS,
    MEDIA_TYPES,
    PRODUCES_ENTITY_ACTION,
    PRODUCES_JSON,
    PRODUCES_JSON_TEXT,
    PRODUCES_JSON_XML,
    PRODUCES_TEXT,
    PRODUCES_XML_JSON,
    Answer,
    Format,
    denial,
    failure,
    metadata_failure,
    negotiate,
    render,
)
from falcon_airflow.server.bodies.results import (
    APIResult,
    Body,
    EntityDefinition,
    EntityList,
    EntitySummaryResult,
    FeedInstanceResult,
    FeedLookupResult,
    InstanceDependencyResult,
    InstancesResult,
    InstancesSummaryResult,
    JsonDocument,
    LineageGraphResult,
    PlainText,
    PropertyList,
    ResultStatus,
    SchedulableEntityInstanceResult,
    TriageResult,
)

__all__ = [
    "ANSWERS",
    "CONVERTERS",
    "MEDIA_TYPES",
    "PRODUCES_ENTITY_ACTION",
    "PRODUCES_JSON",
    "PRODUCES_JSON_TEXT",
    "PRODUCES_JSON_XML",
    "PRODUCES_TEXT",
    "PRODUCES_XML_JSON",
    "APIResult",
    "Answer",
    "Body",
    "EntityDefinition",
    "EntityList",
    "EntitySummaryResult",
    "FeedInstanceResult",
    "FeedLookupResult",
    "Format",
    "InstanceDependencyResult",
    "InstancesResult",
    "InstancesSummaryResult",
    "JsonDocument",
    "LineageGraphResult",
    "PlainText",
    "PropertyList",
    "ResultStatus",
    "SchedulableEntityInstanceResult",
    "TriageResult",
    "consolidated",
    "denial",
    "failure",
    "from_outcome",
    "metadata_failure",
    "negotiate",
    "refusal_message",
    "render",
]
