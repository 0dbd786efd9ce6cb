"""What an operation works with: the settings, the store, its journals, the Airflow client and who acts."""

from __future__ import annotations

import getpass
import os
from dataclasses import dataclass, field
from datetime import UTC, datetime

from falcon_airflow.operate.airflow_api import AirflowClient
from falcon_airflow.operate.config_store import Store
from falcon_airflow.operate.journal import JournalBook
from falcon_airflow.operate.settings import Settings


def local_user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no passwd entry (containers)
        return os.environ.get("USER", "unknown")


@dataclass
class Context:
    settings: Settings
    store: Store
    user: str
    do_as: str | None = None
    debug: bool = False
    recovering: bool = False
    """True while interrupted actions are completed: steps do not wait for Airflow then."""
    warnings: list[str] = field(default_factory=list)
    _client: AirflowClient | None = field(default=None, repr=False)
    _book: JournalBook | None = field(default=None, repr=False)

    @classmethod
    def create(cls, settings: Settings, *, do_as: str | None = None, debug: bool = False) -> Context:
        return cls(settings=settings, store=Store(settings.entities, settings.state), user=do_as or local_user(),
                   do_as=do_as, debug=debug)

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
