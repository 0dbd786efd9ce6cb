"""How the server's actions reach Airflow: its REST API on this api-server, as an Airflow user the auth manager
issues a token for.

Falcon decides on the server who may act (:mod:`falcon_airflow.operate.gate`, with the server's ``[falcon]``
settings); what an allowed action does in Airflow (pause a DAG, mark a run failed, clear tasks) it then does as one
Airflow user, as Falcon's server submitted to its workflow engine as its own user:

* ``[falcon] airflow_user``: the Airflow user the server acts as. Each action gets a fresh short-lived token for it
  from the api-server's own auth manager (the simple auth manager's configured users, FAB's user table);
* without it, a caller who brought an Airflow token acts with that token, so Airflow's auth manager decides too; a
  caller of the ``simple`` scheme then cannot reach Airflow, and the actions that need it say so.

A server acting as its own user reads the listings of runs and task instances of a window from the database
(:mod:`falcon_airflow.server.airflow_listings`); with a caller's token it reads everything through the REST API.

The API is the api-server's own: ``[api] base_url``, else ``http://localhost:<[api] port>``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any

from falcon_airflow.operate.airflow_api import AirflowClient, AirflowError
from falcon_airflow.operate.execution import ClientFactory
from falcon_airflow.operate.settings import Settings
from falcon_airflow.server import airflow_listings

TOKEN_SECONDS = 300
"""The life of a token the server issues itself: one action's calls."""

AIRFLOW_USER = "airflow_user"


class ServerAirflowClient(AirflowClient):
    """Airflow's REST API with the token ``obtain`` gives (asked for on the first call, and again when Airflow
    refuses an expired one)."""

    def __init__(self, settings: Settings, *, debug: bool, obtain: Callable[[], str]) -> None:
        super().__init__(replace(settings, token=None, user=None, password=None), debug=debug)
        self._obtain = obtain

    def _obtain_token(self) -> str:
        return self._obtain()


class ServiceAirflowClient(ServerAirflowClient):
    """The client of a server that acts in Airflow as its own user: the run and task-instance listings of a window
    and the DAGs of a prefix (whether each is paused: every entity's status) come from the metadata database it shares
    with the api-server (:mod:`falcon_airflow.server.airflow_listings`), everything else from the REST API."""

    def runs(self, dag_id: str, *, first: datetime | None = None, last: datetime | None = None,
             states: Sequence[str] | None = None) -> list[dict[str, Any]]:
        return airflow_listings.dag_runs(dag_id, first=first, last=last, states=states)

    def runs_task_instances(self, dag_id: str, *, first: datetime, last: datetime) -> list[dict[str, Any]]:
        return airflow_listings.runs_task_instances(dag_id, first=first, last=last)

    def dags(self, prefix: str) -> list[dict[str, Any]]:
        return airflow_listings.dags(prefix)


def issue_token(user_name: str) -> str:
    """A token for ``user_name`` from this api-server's auth manager."""
    from airflow.api_fastapi.app import get_auth_manager

    manager = get_auth_manager()
    found: object | None = None
    listed = getattr(manager, "get_users", None)
    if callable(listed):  # the simple auth manager: its configured users
        found = next((user for user in listed() if getattr(user, "username", None) == user_name), None)
    else:
        security = getattr(manager, "security_manager", None)
        if security is not None:  # FAB: its user table
            found = security.find_user(username=user_name)
    if found is None:
        raise AirflowError(f"[falcon] {AIRFLOW_USER} = {user_name}: Airflow's auth manager "
                           f"({type(manager).__name__}) knows no such user")
    return str(manager.generate_jwt(found, expiration_time_in_seconds=TOKEN_SECONDS))


def client_factory(service_user: str | None, caller_token: str | None,
                   issue: Callable[[str], str] = issue_token) -> ClientFactory:
    """The Airflow client of one request's actions."""

    def obtain() -> str:
        if service_user:
            return issue(service_user)
        if caller_token:
            return caller_token
        raise AirflowError(f"the Falcon server has no Airflow identity for this request: set [falcon] {AIRFLOW_USER} "
                           "(the Airflow user the server acts as in Airflow), or call with an Airflow token")

    def make(settings: Settings, debug: bool) -> AirflowClient:
        kind = ServiceAirflowClient if service_user else ServerAirflowClient
        return kind(settings, debug=debug, obtain=obtain)

    return make
