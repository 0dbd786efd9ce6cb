"""Where the commands find Airflow and the entity store, and how they authenticate.

* Airflow: ``-url``, else ``FALCON_AIRFLOW_URL``, else (inside ``airflow falcon``) ``[api] base_url``, else
  ``http://127.0.0.1:8080``. Credentials: ``FALCON_AIRFLOW_TOKEN`` (a JWT used as it is), else
  ``FALCON_AIRFLOW_USER`` and ``FALCON_AIRFLOW_PASSWORD`` exchanged for a JWT at the api-server's
  ``/auth/token``. Secrets are never printed: :meth:`Settings.__repr__` hides them and no message quotes them.
* The store (the entities folder): ``--entities``, else ``FALCON_ENTITIES_DIR``, else (inside ``airflow falcon``)
  ``[falcon] entities_dir``, else ``entities/`` in the current folder. The commands' state (schedule states,
  ``-doAs`` users, safemode, journal, archive): ``FALCON_STORE_DIR``, else ``[falcon] store_dir``, else under the
  Airflow home (``$AIRFLOW_HOME/falcon/store/...``, see :func:`falcon_airflow.compiler.store_state.state_folder`).
* ``FALCON_AIRFLOW_WAIT``: how long ``-schedule`` and ``-submitAndSchedule`` wait for Airflow to register the
  entity's DAGs (seconds, default 120); ``FALCON_AIRFLOW_HTTP_TIMEOUT``: one request's timeout (default 30).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from falcon_airflow.compiler.colo import normalized_colo
from falcon_airflow.compiler.store_state import state_folder
from falcon_airflow.operate.outcomes import usage_error

DEFAULT_URL = "http://127.0.0.1:8080"
DEFAULT_WAIT_SECONDS = 120.0
DEFAULT_HTTP_TIMEOUT = 30.0


def _seconds(name: str, default: float) -> float:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        raise usage_error(f"{name} must be a number of seconds, not '{raw}'") from None
    if value < 0:
        raise usage_error(f"{name} must not be negative")
    return value


@dataclass(frozen=True)
class Settings:
    url: str
    entities: Path
    state: Path | None = None
    token: str | None = field(default=None, repr=False)
    user: str | None = None
    password: str | None = field(default=None, repr=False)
    wait_seconds: float = DEFAULT_WAIT_SECONDS
    http_timeout: float = DEFAULT_HTTP_TIMEOUT
    colo: str | None = None
    client_cert: tuple[str, str] | None = None
    """Airflow's ``[api] client_ssl_cert`` and ``client_ssl_key``: the certificate this deployment's own parts
    present to its api-server, which with ``[api] ssl_cert_reqs = required`` takes no connection without one."""
    """The deployment's colo (``[falcon] colo``): its Airflow has only the DAGs of that colo's clusters, so the
    commands act on and answer for those (:mod:`falcon_airflow.compiler.colo`). ``None``: every colo's."""

    def __repr__(self) -> str:  # never show a secret, even in a traceback
        hidden = "set" if self.token or self.password else "none"
        return (f"Settings(url={self.url!r}, entities={str(self.entities)!r}, user={self.user!r}, "
                f"secret={hidden})")

    @classmethod
    def resolve(cls, *, url: str | None = None, entities: str | None = None,
                airflow_config: Callable[[str, str], str] | None = None) -> Settings:
        """Settings from the command line, the environment and (inside ``airflow falcon``) Airflow's config."""
        chosen_url = (url or os.environ.get("FALCON_AIRFLOW_URL") or "").strip()
        if not chosen_url and airflow_config is not None:
            chosen_url = airflow_config("api", "base_url").strip()
        chosen_url = (chosen_url or DEFAULT_URL).rstrip("/")
        if not chosen_url.startswith(("http://", "https://")):
            raise usage_error(f"the Airflow URL must start with http:// or https://, not '{chosen_url}'")
        folder = (entities or os.environ.get("FALCON_ENTITIES_DIR") or "").strip()
        if not folder and airflow_config is not None:
            folder = airflow_config("falcon", "entities_dir").strip()
        entities_dir = Path(folder or "entities").expanduser().resolve()
        configured = airflow_config("falcon", "store_dir").strip() if airflow_config is not None else None
        colo = airflow_config("falcon", "colo") if airflow_config is not None else \
            os.environ.get("AIRFLOW__FALCON__COLO")
        cert, key = ((airflow_config("api", name) or "").strip() if airflow_config is not None else ""
                     for name in ("client_ssl_cert", "client_ssl_key"))
        return cls(url=chosen_url, entities=entities_dir, state=state_folder(entities_dir, configured),
                   token=os.environ.get("FALCON_AIRFLOW_TOKEN") or None,
                   user=os.environ.get("FALCON_AIRFLOW_USER") or None,
                   password=os.environ.get("FALCON_AIRFLOW_PASSWORD") or None,
                   wait_seconds=_seconds("FALCON_AIRFLOW_WAIT", DEFAULT_WAIT_SECONDS),
                   http_timeout=_seconds("FALCON_AIRFLOW_HTTP_TIMEOUT", DEFAULT_HTTP_TIMEOUT) or DEFAULT_HTTP_TIMEOUT,
                   colo=normalized_colo(colo), client_cert=(cert, key) if cert and key else None)
