"""``api/metadata/``: Falcon's metadata resources - discovery (``MetadataDiscoveryResource``) and lineage
(``LineageMetadataResource``) - over the entity graph of the store, one route per call, made from the metadata
declarations (:mod:`falcon_airflow.operate.declarations.metadata`, :mod:`.declared`).

==============================================  =================================================================
call                                            answer (JSON only)
==============================================  =================================================================
``GET discovery/{type}/list[?cluster=]``        ``{"results": [names], "totalSize": n}``
``GET discovery/{type}/{name}/relations``       the vertex, its ``inVertices`` and ``outVertices`` (``name``,
                                                ``type``, ``label``); a vertex the graph does not have: ``{}``
``GET lineage/entities?pipeline=``              ``LineageGraphResult``: the pipeline's processes and the feeds
                                                between them
``GET lineage/vertices/all``                    ``{"results": [vertices], "totalSize": n}``
``GET lineage/vertices?key=&value=``            the vertices whose property ``key`` is ``value``
``GET lineage/vertices/{id}``                   ``{"results": vertex}``
``GET lineage/vertices/{id}/{direction}``       neighbours, edges, their number or their ids
``GET lineage/edges/all``, ``edges/{id}``       every edge, one edge
==============================================  =================================================================

Errors as Falcon's metadata resources sent them: an invalid dimension type or name ``400`` with the message as
``text/plain``; a vertex or edge that does not exist ``404``, and a direction Falcon did not know ``400``, each with
the message as a quoted JSON string in ``text/plain``; ``lineage/entities`` refuses as the other resources do
(``400``, ``APIResult`` ``FAILED``: "No processes belonging to pipeline ...").

``discovery/{name}/replication-metrics/list`` is not served: replication runs report to Airflow and OpenLineage,
not to a metrics graph.
"""

from __future__ import annotations

import json

from fastapi import APIRouter, Request
from fastapi.responses import Response

from falcon_airflow.operate.outcomes import Refused
from falcon_airflow.server import bodies
from falcon_airflow.server.resources.declared import Refusal
from falcon_airflow.server.resources.declared import router as declared_router


def _text(message: str, status: int) -> Response:
    code, content, media_type = bodies.metadata_failure(message, status=status)
    return Response(content, status_code=code, media_type=media_type)


def _discovery(request: Request, refused: Refused) -> Response | None:
    """An invalid dimension type or name: the message, as text."""
    return _text("\n".join([refused.message, *refused.details]), 400)


def _relations(request: Request, refused: Refused) -> Response | None:
    """Falcon answered a relations query on a vertex it did not have with an empty object."""
    if refused.usage:
        return _discovery(request, refused)
    return Response(b"{}", media_type=bodies.MEDIA_TYPES["json"])


def _graph(request: Request, refused: Refused) -> Response | None:
    """A missing vertex or edge (404) or an unknown direction (400): the message as a quoted JSON string; a missing
    key or value: the message as it is."""
    from falcon_airflow.operate.graph_queries import InvalidSegment, NotFound

    if isinstance(refused, NotFound):
        return _text(json.dumps(refused.message, ensure_ascii=False), 404)
    if isinstance(refused, InvalidSegment):
        return _text(json.dumps(refused.message, ensure_ascii=False), 400)
    return _text(refused.message, 400)


REFUSALS: dict[str, Refusal] = {
    "metadata.list": _discovery,
    "metadata.relations": _relations,
    **{f"metadata.{action}": _graph for action in ("vertex", "vertices", "edges", "edge")},
}
"""How each call answers a refusal, where Falcon's metadata resources did not answer with an ``APIResult``."""


def router() -> APIRouter:
    """The resources' routes, from the metadata declarations as they are now."""
    return declared_router("metadata", refusals=REFUSALS)
