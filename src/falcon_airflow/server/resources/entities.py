"""``api/entities/``: Falcon's entity resource, one route per call of Falcon's client, made from the entity
declarations (:mod:`falcon_airflow.operate.declarations.entity`, :mod:`.declared`).

=================================================  ==============================================================
call                                               answer
=================================================  ==============================================================
``POST validate/{type}`` (the definition as body)   ``APIResult``: ``default/Validated successfully (FEED) f\\n``
``POST submit/{type}`` (body)                       ``APIResult``: ``falcon/default/Submit successful (feed) f\\n\\n``
``POST update/{type}/{name}`` (body)                ``APIResult`` (``falcon/update/default/...``)
``POST updateClusterDependents/{cluster}``          ``APIResult``
``POST submitAndSchedule/{type}`` (body)            ``APIResult``: the schedule's and the submit's answers merged
``POST schedule|suspend|resume|touch/{type}/{name}``  ``APIResult`` (``default/...``)
``DELETE delete/{type}/{name}``                     ``APIResult`` (a missing entity: SUCCEEDED, nothing to do)
``GET status/{type}/{name}``                        ``APIResult``: ``default/RUNNING\\n``
``GET definition/{type}/{name}``                    the stored XML, secrets redacted
``GET list[/{type}]``                               ``EntityList`` (``fields``, ``nameseq``, ``tagkeys``,
                                                   ``filterBy``, ``tags``, ``orderBy``, ``sortOrder``, ``offset``,
                                                   ``numResults``)
``GET summary/{type}?cluster=``                     ``EntitySummaryResult``
``GET lookup/{type}?path=``                         ``FeedLookupResult``
``GET dependencies/{type}/{name}``                  ``EntityList`` with ``Input``/``Output`` tags
``GET sla-alert/{type}?start=``                     ``SchedulableEntityInstanceResult``
=================================================  ==============================================================

Every call takes ``doAs``. The definition of ``validate``, ``submit``, ``update`` and ``submitAndSchedule`` is the
request body (``text/xml``, as Falcon's client posts the file), at most
:data:`~falcon_airflow.server.resources.declared.MAX_BODY_BYTES`; the server never reads a file a caller names.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fastapi import APIRouter

from falcon_airflow.operate.options import Options
from falcon_airflow.operate.outcomes import Outcome
from falcon_airflow.server.resources.declared import AnswerContext
from falcon_airflow.server.resources.declared import router as declared_router


def _submitted(options: Options, outcome: Outcome) -> Mapping[str, Any]:
    """``submitAndSchedule``'s answer repeats the submit's, which names the entity: its type and name."""
    from falcon_airflow.parsing import parse_bytes

    data, shown = options.file_bytes()
    entity = parse_bytes(data, shown).entity
    kind = (options.text("type") or "").strip().lower()
    return {"entity_type": kind, "name": entity.name if entity is not None else None}


ANSWERS: dict[str, AnswerContext] = {"entity.submitAndSchedule": _submitted}


def router() -> APIRouter:
    """The resource's routes, from the entity declarations as they are now."""
    return declared_router("entity", ANSWERS)
