"""``falcon-airflow entity|instance|admin|metadata|extension`` as a client of a Falcon server.

With ``FALCON_URL`` set, or ``-url`` naming a Falcon server (a URL whose path ends with ``/falcon``, the prefix
the provider's plugin serves the server under, e.g. ``http://host:8080/falcon``), or in a deployment whose store is
in the database (:func:`server_url`), a command runs on that server
(:mod:`falcon_airflow.server.resources.commands`): nothing is read from or written to this machine but the file
``-file`` names, whose content goes with the request. Who the caller is, what they may do, where the store is:
the server decides, with its own configuration. The outcome comes back and is printed as a command run here
prints it.

Authentication, as the server is configured: ``FALCON_AIRFLOW_TOKEN`` (an Airflow JWT), else
``FALCON_AIRFLOW_USER`` with ``FALCON_AIRFLOW_PASSWORD`` exchanged for one at the api-server's ``/auth/token``;
else Falcon's simple scheme with the user name (``FALCON_AIRFLOW_USER``, else this machine's user), which a server
with ``[falcon] authentication = simple`` believes (trusted networks only).
"""

from __future__ import annotations

import base64
import json
import os
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from falcon_airflow.operate.options import MAX_GIVEN_FILE_BYTES, Options
from falcon_airflow.operate.outcomes import Refused

FALCON_URL = "FALCON_URL"
SERVER_PREFIX = "/falcon"
TIMEOUT_SECONDS = 600.0
"""An action waits for Airflow at most ``FALCON_AIRFLOW_WAIT`` on the server; the answer comes within this."""
MAX_ANSWER_BYTES = 64 * 1024 * 1024


def server_url(given: str | None, airflow_config: Callable[[str, str], str] | None = None) -> str | None:
    """The Falcon server a command goes to: ``FALCON_URL``, else ``-url`` when it names a server (``.../falcon``),
    else - where the deployment keeps its store in the database (``[falcon] store = database`` in the environment,
    or in Airflow's configuration under ``airflow falcon``) - the server of the Airflow the command reaches
    (``-url``, ``FALCON_AIRFLOW_URL``, ``[api] base_url``), since only the server may change that store. ``None``:
    the command runs here, on the folder's store."""
    chosen = (os.environ.get(FALCON_URL) or "").strip()
    if chosen:
        return chosen.rstrip("/")
    if given and urllib.parse.urlsplit(given.strip()).path.rstrip("/").endswith(SERVER_PREFIX):
        return given.strip().rstrip("/")
    configured = os.environ.get("AIRFLOW__FALCON__STORE") or (airflow_config("falcon", "store")
                                                              if airflow_config is not None else "")
    if (configured or "").strip().lower() != "database":
        return None
    airflow = (given or os.environ.get("FALCON_AIRFLOW_URL")
               or (airflow_config("api", "base_url") if airflow_config is not None else "")
               or "http://127.0.0.1:8080").strip().rstrip("/")
    return f"{airflow}{SERVER_PREFIX}"


@dataclass(frozen=True)
class Answer:
    """What the server answered: the outcome (200) or a failure (``status`` FAILED)."""

    document: dict[str, Any]
    http_status: int

    @property
    def failed(self) -> bool:
        return self.http_status != 200


def _token(base: str) -> str | None:
    token = os.environ.get("FALCON_AIRFLOW_TOKEN")
    if token:
        return token
    user, password = os.environ.get("FALCON_AIRFLOW_USER"), os.environ.get("FALCON_AIRFLOW_PASSWORD")
    if not (user and password):
        return None
    airflow = base[: -len(SERVER_PREFIX)] if base.endswith(SERVER_PREFIX) else base
    request = urllib.request.Request(f"{airflow}/auth/token", method="POST",
                                     data=json.dumps({"username": user, "password": password}).encode(),
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return str(json.loads(response.read(1_000_000))["access_token"])
    except (urllib.error.URLError, ValueError, KeyError) as problem:
        raise Refused(f"cannot log in to {airflow} as {user}: {problem}") from None


def _user() -> str:
    from falcon_airflow.operate.context import local_user

    return os.environ.get("FALCON_AIRFLOW_USER") or local_user()


def send(base: str, command: str, action: str, options: Options) -> Answer:
    """Run ``command -action`` on the server at ``base``."""
    values = {key: value for key, value in options.values.items() if value not in (None, False)}
    document: dict[str, Any] = {"options": values, "file": None}
    given = options.text("file")
    if given:
        path = Path(given).expanduser()
        try:
            size = path.stat().st_size
            if size > MAX_GIVEN_FILE_BYTES:
                raise Refused(f"{given} is larger than {MAX_GIVEN_FILE_BYTES:,} bytes")
            data = path.read_bytes()
        except OSError as problem:
            raise Refused(f"cannot read {given}: {problem.strerror or problem}") from None
        document["file"] = {"name": given, "data": base64.b64encode(data).decode("ascii")}
    headers = {"Content-Type": "application/json", "Accept": "application/json"}
    url = f"{base}/api/falcon-airflow/{urllib.parse.quote(command)}/{urllib.parse.quote(action)}"
    token = _token(base)
    if token:
        headers["Authorization"] = f"Bearer {token}"
    else:
        url += "?" + urllib.parse.urlencode({"user.name": _user()})
    request = urllib.request.Request(url, data=json.dumps(document).encode(), headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_SECONDS) as response:
            return Answer(_read(response), response.status)
    except urllib.error.HTTPError as problem:
        try:
            answer = _read(problem)
        except Refused:
            answer = {"status": "FAILED", "message": f"the server at {base} answered {problem.code} {problem.reason}"}
        return Answer(answer, problem.code)
    except urllib.error.URLError as problem:
        raise Refused(f"cannot reach the Falcon server at {base}: {problem.reason}") from None


def _read(response: Any) -> dict[str, Any]:
    raw = response.read(MAX_ANSWER_BYTES + 1)
    if len(raw) > MAX_ANSWER_BYTES:
        raise Refused(f"the server's answer is larger than {MAX_ANSWER_BYTES:,} bytes")
    try:
        document = json.loads(raw)
    except ValueError:
        raise Refused("the server's answer is not JSON: is the URL a falcon-airflow server?") from None
    if not isinstance(document, dict):
        raise Refused("the server's answer is not a JSON object")
    return document
