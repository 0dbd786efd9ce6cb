"""``api/extension/``: Falcon 0.10's extension resource for the three mirroring extensions and their jobs, one route
per call, made from the extension declarations (:mod:`falcon_airflow.operate.declarations.extension`,
:mod:`.declared`).

==================================================  ===============================================================
call                                                answer
==================================================  ===============================================================
``GET enumerate``                                   ``{"extensions": [{name, type, description}], "totalResults"}``
``GET describe/{extension}``                        the extension's properties, as text
``GET definition/{extension}``                      the extension's property document (JSON)
``GET list[/{extension}]``                          ``ExtensionJobList`` (XML or JSON)
``GET instances/{job}``                             ``ExtensionInstanceList``: the job's runs with Falcon's
                                                    instance states (``start``, ``end``, ``instanceStatus``,
                                                    ``offset``, ``numResults``)
``GET extensionJobDetails/{job}``                   the job: extension, state, DAG, archived versions (JSON)
``POST validate|submit|submitAndSchedule|update/    ``APIResult``; the job's properties are the request body
{extension}``
``POST schedule|suspend|resume|delete/{job}``       ``APIResult``
==================================================  ===============================================================

Every call takes ``doAs``; the changing calls are decided, journaled and audited on the server like the entity
calls, and the server never reads a file a caller names.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fastapi import APIRouter

from falcon_airflow.operate.options import Options
from falcon_airflow.operate.outcomes import Outcome
from falcon_airflow.server.resources.declared import AnswerContext
from falcon_airflow.server.resources.declared import router as declared_router


def _job(options: Options, outcome: Outcome) -> Mapping[str, Any]:
    """``-instances`` names the job in its answer (the entity profile of its one summary)."""
    return {"job_name": options.text("job_name") or ""}


ANSWERS: dict[str, AnswerContext] = {"extension.instances": _job}


def router() -> APIRouter:
    """The resource's routes, from the extension declarations as they are now."""
    return declared_router("extension", ANSWERS)
