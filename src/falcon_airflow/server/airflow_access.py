"""How the server's actions reach Airflow: its REST API on this api-server, as an Airflow user the auth manager
issues a token for.

Falcon decides on the server who may act (:mod:`falcon_airflow.operate.gate`, with the server's ``[falcon]``
settings); what an allowed action does in Airflow (pause a DAG, mark a run failed, clear tasks) it then does as one
Airflow user, as Falcon's server submitted to its workflow engine as its own user:

* ``[falcon] airflow_user``: the Airflow user the server acts as. Each action gets a fresh short-lived token for it
  from the api-server's own auth manager (the simple auth manager's configured users, FAB's user table);
* without it, a caller who brought an Airflow token acts with that token, so Airflow's auth manager decides too; a
  caller of the ``simple`` scheme then cannot reach Airflow, and the actions that need it say so.

The API is the api-server's own: ``[api] base_url``, else ``http://localhost:<[api] port>``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from falcon_airflow.operate.airflow_api import AirflowClient, AirflowError
from falcon_airflow.operate.execution import ClientFactory
from falcon_airflow.operate.settings import Settings

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
        return ServerAirflowClient(settings, debug=debug, obtain=obtain)

    return make
