"""What an operation works with: the settings, the store, its journals, the Airflow client and who acts."""

from __future__ import annotations

import base64
import getpass
import json
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TypeVar

from falcon_airflow.compiler.colo import in_colo
from falcon_airflow.entities import Entity
from falcon_airflow.operate.airflow_api import AirflowClient
from falcon_airflow.operate.config_store import ConfigStore, Store
from falcon_airflow.operate.journal import JournalBook
from falcon_airflow.operate.lifecycles import DagRef, Lifecycle, entity_dags
from falcon_airflow.operate.settings import Settings

E = TypeVar("E")


def airflow_user(settings: Settings) -> str | None:
    """The Airflow user the commands act as: the one they log in with, else the subject of the given token (read
    only to name who acted; Airflow verifies the token)."""
    if settings.user:
        return settings.user
    if not settings.token or settings.token.count(".") != 2:
        return None
    try:
        payload = settings.token.split(".")[1]
        claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    except (ValueError, UnicodeDecodeError):
        return None
    if not isinstance(claims, dict):
        return None
    name = claims.get("preferred_username") or claims.get("username") or claims.get("sub")
    return str(name) if name else None


def local_user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no passwd entry (containers)
        return os.environ.get("USER", "unknown")


@dataclass
class Context:
    settings: Settings
    store: ConfigStore
    user: str
    do_as: str | None = None
    debug: bool = False
    recovering: bool = False
    """True while interrupted actions are completed: steps do not wait for Airflow then."""
    warnings: list[str] = field(default_factory=list)
    may_read: Callable[[object], bool] | None = None
    """With authorization on, whether the acting user may read an entity: queries over many entities (list,
    summary, search) leave out the ones they may not, as Falcon did. ``None``: everything is visible."""
    _client: AirflowClient | None = field(default=None, repr=False)
    _book: JournalBook | None = field(default=None, repr=False)

    @classmethod
    def create(cls, settings: Settings, *, do_as: str | None = None, debug: bool = False,
               store: ConfigStore | None = None) -> Context:
        # Who acted, as recorded on kills, suspends, reruns and in the store: the -doAs user, else the Airflow
        # user the commands log in as, else (no Airflow login given) the local user.
        user = do_as or airflow_user(settings) or local_user()
        return cls(settings=settings, store=store if store is not None else Store(settings.entities, settings.state),
                   user=user, do_as=do_as, debug=debug)

    def visible(self, entities: Iterable[E]) -> list[E]:
        """The entities the acting user may see in a listing."""
        return [entity for entity in entities if self.may_read is None or self.may_read(entity)]

    def entity_dags(self, entity: Entity, lifecycles: frozenset[Lifecycle] | None = None) -> list[DagRef]:
        """The DAGs of ``entity`` (:func:`~falcon_airflow.operate.lifecycles.entity_dags`) this deployment runs:
        with a colo, those of its clusters only, as its loader builds them; a colo never waits for, pauses or
        reports the DAGs another colo's Airflow runs."""
        refs = entity_dags(entity, lifecycles)
        if self.settings.colo is None:
            return refs
        clusters = self.store.workspace().clusters
        return [ref for ref in refs if in_colo(ref.cluster, clusters, self.settings.colo)]

    def airflow(self) -> AirflowClient:
        if self._client is None:
            self._client = AirflowClient(self.settings, debug=self.debug)
        return self._client

    @property
    def book(self) -> JournalBook:
        if self._book is None:
            self._book = JournalBook(self.store)
        return self._book

    @property
    def wait_seconds(self) -> float:
        return 0.0 if self.recovering else self.settings.wait_seconds

    @staticmethod
    def now() -> datetime:
        return datetime.now(UTC)
