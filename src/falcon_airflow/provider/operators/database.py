"""The import/export task: spark-submit of ``jobs/db_import.py`` / ``jobs/db_export.py`` with the run's secret
passed through a private file.

Where the password comes from (Falcon's credential kinds):

* ``password-text``: read from the datasource entity file when the task runs, so that it is never part of the
  DAG, its rendered templates or the command line;
* ``password-alias``: an Airflow connection whose id is the alias, when one exists (its login, if set, replaces the
  user name); else the job reads the alias from the Hadoop credential provider (``providerPath``);
* ``password-file``: the job reads the file (any Hadoop file system path).

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

from falcon_airflow.provider.operators.spark import FalconSparkSubmitOperator

CREDENTIALS_ENV = "FALCON_JDBC_CREDENTIALS"


class CredentialError(RuntimeError):
    """The run's password cannot be found (the message never holds a secret)."""


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


def airflow_connection(conn_id: str) -> tuple[str | None, str | None] | None:
    """(login, password) of an Airflow connection, ``None`` when there is none with that id."""
    try:
        from airflow.sdk import BaseHook

        connection = BaseHook.get_connection(conn_id)
    except Exception:
        return None
    return connection.login or None, connection.password


def resolve_secret(database: dict[str, Any]) -> tuple[str | None, str | None] | None:
    """(user, password) the task hands to the job, or ``None`` when the job finds the password itself."""
    kind = database.get("credential_type")
    if kind == "password-text":
        return password_text(database["datasource_file"], database["datasource"], database["interface"])
    if kind == "password-alias" and database.get("password_alias"):
        found = airflow_connection(database["password_alias"])
        if found is not None:
            return found[0] or database.get("user"), found[1]
    return None


class DatabaseTransferOperator(FalconSparkSubmitOperator):
    """Imports or exports one feed instance; ``database`` is the spec's :class:`DatabaseSpec` as a dict."""

    template_fields: Sequence[str] = FalconSparkSubmitOperator.template_fields

    def __init__(self, *, database: dict[str, Any], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.database = database

    def execute(self, context: Any) -> Any:
        secret = resolve_secret(self.database)
        if secret is None:
            return super().execute(context)
        folder = Path(tempfile.mkdtemp(prefix="falcon-jdbc-"))  # mode 0700
        path = folder / "credentials.json"
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            json.dump({"user": secret[0], "password": secret[1]}, handle)
        previous = self.env_vars
        self.env_vars = {**(previous or {}), CREDENTIALS_ENV: str(path)}
        try:
            return super().execute(context)
        finally:
            self.env_vars = previous
            path.unlink(missing_ok=True)
            folder.rmdir()
