"""``api/instance/``: Falcon's instance resource, one route per call of Falcon's client, made from the instance
declarations (:mod:`falcon_airflow.operate.declarations.instance`, :mod:`.declared`).

===================================================  ===========================================================
call                                                 answer (JSON only, as Falcon's ``InstanceManager``)
===================================================  ===========================================================
``GET running/{type}/{name}``                        ``InstancesResult``: ``default/Running Instances\\n``
``GET status|list/{type}/{name}``                    ``InstancesResult``: ``default/STATUS\\n``, the tasks as the
                                                     workflow's actions
``GET summary/{type}/{name}``                        ``InstancesSummaryResult``: per cluster, a count per status
``GET logs/{type}/{name}``                           ``InstancesResult``: each task try's log link
``GET params/{type}/{name}?start=``                  ``InstancesResult``: the instance's parameters as
                                                     ``wfParams``
``GET listing/{type}/{name}``                        ``FeedInstanceResult``: a feed's instances and their data
``GET dependencies/{type}/{name}?instanceTime=``     ``InstanceDependencyResult``
``GET triage/{type}/{name}?start=``                  ``TriageResult``: one graph per walked instance
``GET search``                                       ``InstancesResult``: instances across entities
``POST kill|suspend|resume|rerun/{type}/{name}``     ``InstancesResult``: each instance in its new state, what was
                                                     done as its details
===================================================  ===========================================================

Query parameters are Falcon's: ``start``, ``end``, ``colo``, ``lifecycle`` (repeated, as Falcon's client sends
it), ``filterBy``, ``orderBy``, ``sortOrder``, ``offset``, ``numResults``, ``allAttempts``, ``runid``, ``force``,
``doAs``. A changing call's body is a Java properties document: ``falcon.instance.action.clusters`` and
``falcon.instance.source.clusters`` (the client's ``-clusters`` and ``-sourceClusters``); anything else in it is a
rerun's properties, which Airflow cannot apply (refused).

An instance call on an entity the store does not have is refused with Falcon's ``400`` and ``<name> (<type>) not
found``; with ``authorization_enabled`` a caller who may not act on the entity gets ``403``. What an action does in
Airflow it does through the api-server's own REST API (:mod:`falcon_airflow.server.airflow_access`).
"""

from __future__ import annotations

from fastapi import APIRouter

from falcon_airflow.server.resources.declared import router as declared_router


def router() -> APIRouter:
    """The resource's routes, from the instance declarations as they are now."""
    return declared_router("instance")
