"""The import/export task: spark-submit of ``jobs/db_import.py`` / ``jobs/db_export.py`` with the run's secret
passed through a private file.

Where the password comes from (Falcon's credential kinds), within what the deployment allows (``[falcon]
datasource_connections`` and ``datasource_credential_roots``, see :mod:`falcon_airflow.core.databases.credentials`):

* ``password-text``: read from the datasource entity file when the task runs, so that it is never part of the
  DAG, its rendered templates or the command line;
* ``password-alias``: an Airflow connection whose id is the alias, when the id is one ``datasource_connections``
  allows for the datasource's owner and the connection exists (its login, if set, replaces the user name; a
  connection that names a host gives its password to that host only); else the job reads the alias from the
  Hadoop credential provider (``providerPath``), whose keystore must lie under ``datasource_credential_roots``;
* ``password-file``: the job reads the file, which must lie under ``datasource_credential_roots``.

The task judges the alias and the paths before anything is submitted (rules FA040, FA041: the message names the
datasource, the rule and the setting); the job judges the paths again with every symbolic link resolved, under
the roots the task passes in ``FALCON_JDBC_CREDENTIAL_ROOTS``.

A password the task holds is written as JSON to a file only its owner can read, named to the job by the
environment variable ``FALCON_JDBC_CREDENTIALS``, and deleted when spark-submit ends.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from falcon_airflow.core.databases.credentials import (
    ALIAS_RULE,
    FILE_RULE,
    ROOTS_ENV,
    CredentialPolicy,
    configured_policy,
)
from falcon_airflow.core.databases.urls import JdbcUrlError, parse_jdbc_url
from falcon_airflow.provider.operators.spark import FalconSparkSubmitOperator

CREDENTIALS_ENV = "FALCON_JDBC_CREDENTIALS"


class CredentialError(RuntimeError):
    """The run's password cannot be found or may not be used (the message never holds a secret)."""


def deployment_policy() -> CredentialPolicy:
    """The worker's ``[falcon]`` allow-lists, from Airflow's configuration (defaults: the provider's)."""
    from airflow.sdk import conf

    def lookup(key: str) -> str | None:
        try:
            value = conf.get("falcon", key, fallback=None)
        except Exception:  # an unreadable configuration: the defaults (the safe ones) apply
            return None
        return None if value is None else str(value)

    return configured_policy(lookup)


def password_text(datasource_file: str, datasource: str, interface: str) -> tuple[str | None, str | None]:
    """(user, password) of a ``password-text`` credential, read from the datasource entity file."""
    from falcon_airflow.entities import Datasource, DatasourceInterfaceType
    from falcon_airflow.parsing import parse_file

    parsed = parse_file(datasource_file)
    entity = parsed.entity
    if not isinstance(entity, Datasource) or entity.name != datasource:
        raise CredentialError(f"{datasource_file} no longer defines datasource '{datasource}'")
    chosen = entity.interface(DatasourceInterfaceType(interface))
    credential = (chosen.credential if chosen is not None else None) or entity.default_credential
    if credential is None or credential.password_text is None:
        raise CredentialError(f"datasource '{datasource}' in {datasource_file} has no password text for its "
                              f"{interface} interface")
    return credential.user_name.strip(), credential.password_text


def airflow_connection(conn_id: str) -> Any | None:
    """The Airflow connection ``conn_id``, ``None`` when there is none with that id."""
    try:
        from airflow.sdk import BaseHook

        return BaseHook.get_connection(conn_id)
    except Exception:
        return None


def _refused(database: dict[str, Any], rule: str, reason: str) -> CredentialError:
    return CredentialError(f"credential of the {database.get('interface')} interface of datasource "
                           f"'{database.get('datasource')}' ({database.get('datasource_file')}) is refused "
                           f"(rule {rule}): {reason}")


def _host_problem(connection: Any, url: str) -> str | None:
    """Why a connection's password may not go to ``url``: a connection that names a host is for that host (and
    port, when both name one) only."""
    host = (getattr(connection, "host", None) or "").strip().lower()
    if not host:
        return None
    try:
        parsed = parse_jdbc_url(url)
    except JdbcUrlError:
        parsed = None
    if parsed is None or parsed.host is None or parsed.host.lower() != host:
        return (f"Airflow connection '{connection.conn_id}' names host '{host}', and the endpoint does not "
                f"connect to it")
    port = getattr(connection, "port", None)
    if port and parsed.port and int(port) != parsed.port:
        return f"Airflow connection '{connection.conn_id}' names port {port}, and the endpoint uses {parsed.port}"
    return None


def resolve_secret(database: dict[str, Any],
                   policy: CredentialPolicy | None = None) -> tuple[str | None, str | None] | None:
    """(user, password) the task hands to the job, or ``None`` when the job finds the password itself (a file or
    a credential provider the policy lets it read). :class:`CredentialError` for a credential outside the
    deployment's allow-lists."""
    kind = database.get("credential_type")
    owner = database.get("owner")
    policy = policy or deployment_policy()
    if kind == "password-text":
        return password_text(database["datasource_file"], database["datasource"], database["interface"])
    if kind == "password-file":
        problem = policy.file_problem(database.get("password_file") or "", owner)
        if problem is not None:
            raise _refused(database, FILE_RULE, problem)
        return None
    if kind == "password-alias" and database.get("password_alias"):
        alias = str(database["password_alias"])
        if policy.connection_allowed(alias, owner):
            connection = airflow_connection(alias)
            if connection is not None:
                problem = _host_problem(connection, str(database.get("url") or ""))
                if problem is not None:
                    raise _refused(database, ALIAS_RULE, problem)
                return connection.login or database.get("user"), connection.password
        provider = database.get("credential_provider") or ""
        problem = policy.provider_problem(provider, owner)
        if problem is not None:
            allowed = "an Airflow connection it may use with no such connection" \
                if policy.connection_allowed(alias, owner) else \
                f"not an Airflow connection {policy.describe_connections()} allows"
            raise _refused(database, ALIAS_RULE, f"alias '{alias}' is {allowed}, and {problem}")
    return None


class DatabaseTransferOperator(FalconSparkSubmitOperator):
    """Imports or exports one feed instance; ``database`` is the spec's :class:`DatabaseSpec` as a dict."""

    template_fields: Sequence[str] = FalconSparkSubmitOperator.template_fields

    def __init__(self, *, database: dict[str, Any], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.database = database

    def execute(self, context: Any) -> Any:
        policy = deployment_policy()
        secret = resolve_secret(self.database, policy)
        previous = self.env_vars
        # The job reads password files and keystores under these roots only (it resolves links before judging).
        roots = json.dumps(policy.roots_for(self.database.get("owner")))
        self.env_vars = {**(previous or {}), ROOTS_ENV: roots}
        folder: Path | None = None
        try:
            if secret is not None:
                folder = Path(tempfile.mkdtemp(prefix="falcon-jdbc-"))  # mode 0700
                path = folder / "credentials.json"
                descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
                    json.dump({"user": secret[0], "password": secret[1]}, handle)
                self.env_vars = {**self.env_vars, CREDENTIALS_ENV: str(path)}
            return super().execute(context)
        finally:
            self.env_vars = previous
            if folder is not None:
                (folder / "credentials.json").unlink(missing_ok=True)
                folder.rmdir()
