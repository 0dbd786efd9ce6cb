"""The server's settings: Airflow's configuration of the api-server process the server runs in, never the caller's.

Every decision the server makes (how callers authenticate, who may do what, where the store is) reads these, so a
client's environment changes none of them. :class:`AirflowConfig` reads Airflow's configuration (``airflow.cfg``,
``AIRFLOW__<SECTION>__<KEY>``, secrets backends, the providers' declared defaults); :class:`MappingConfig` holds
fixed values (tests, tools).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from falcon_airflow.server.authentication import AuthenticationSettings

if TYPE_CHECKING:
    from falcon_airflow.operate.config_store import ConfigStore

MASK = "********"
DEFAULT_LEASE_SECONDS = 120.0
_SECRET_NAME = re.compile(r"secret|password|passwd|private_key|(^|_)token$|credentials?$", re.IGNORECASE)


class ServerConfig(Protocol):
    def get(self, section: str, key: str) -> str | None:
        """The value, ``None`` when it is not set."""

    def section(self, name: str) -> dict[str, str]:
        """Every option of a section that has a value, by key."""

    def sensitive(self, section: str, key: str) -> bool:
        """Whether the value is a secret, never to be shown."""


class AirflowConfig:
    """Airflow's configuration, read when asked (it can change while the server runs, e.g. from a secrets
    backend)."""

    def _conf(self) -> Any:
        from airflow.configuration import conf

        return conf

    def get(self, section: str, key: str) -> str | None:
        value = self._conf().get(section, key, fallback=None)
        return None if value is None else str(value)

    def section(self, name: str) -> dict[str, str]:
        values = self._conf().getsection(name) or {}
        return {str(key): str(value) for key, value in values.items() if value is not None}

    def sensitive(self, section: str, key: str) -> bool:
        declared = (section.lower(), key.lower()) in getattr(self._conf(), "sensitive_config_values", set())
        return declared or _SECRET_NAME.search(key) is not None


@dataclass(frozen=True)
class MappingConfig:
    """Fixed settings by section and key."""

    values: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    secrets: frozenset[tuple[str, str]] = frozenset()

    def get(self, section: str, key: str) -> str | None:
        return self.values.get(section, {}).get(key)

    def section(self, name: str) -> dict[str, str]:
        return dict(self.values.get(name, {}))

    def sensitive(self, section: str, key: str) -> bool:
        return (section, key) in self.secrets or _SECRET_NAME.search(key) is not None


def masked_section(config: ServerConfig, name: str) -> dict[str, str]:
    """A section's options with every secret masked."""
    return {key: MASK if value and config.sensitive(name, key) else value
            for key, value in sorted(config.section(name).items())}


@dataclass(frozen=True)
class ServerContext:
    """What every request of one server shares."""

    config: ServerConfig
    authentication: AuthenticationSettings
    entities: Path
    """The entities folder the store serves (``[falcon] entities_dir`` / ``FALCON_ENTITIES_DIR``)."""
    state: Path
    """The store's state folder: schedule states, ``-doAs`` users, safemode, journal, audit trail (``[falcon]
    store = folder``)."""
    store_kind: str = "folder"
    """``[falcon] store``: ``database`` keeps the store in Airflow's metadata database, ``folder`` in the entities
    folder and :attr:`state`."""

    @classmethod
    def from_config(cls, config: ServerConfig) -> ServerContext:
        from falcon_airflow.operate.settings import Settings
        from falcon_airflow.server.store_access import store_kind

        store = Settings.resolve(airflow_config=lambda section, key: config.get(section, key) or "")
        assert store.state is not None  # Settings.resolve always names the state folder
        return cls(config, AuthenticationSettings.from_config(config.get), store.entities, store.state,
                   store_kind(config.get("falcon", "store")))

    @property
    def lease_seconds(self) -> float:
        """``[falcon] store_lease_seconds``: how long a server killed while changing the store keeps the others
        waiting (its lease's term) before the next one finishes or undoes its action."""
        given = (self.config.get("falcon", "store_lease_seconds") or "").strip()
        try:
            value = float(given) if given else DEFAULT_LEASE_SECONDS
        except ValueError:
            raise ValueError(f"[falcon] store_lease_seconds must be a number of seconds, not {given!r}") from None
        if not 1 <= value <= 86_400:
            raise ValueError(f"[falcon] store_lease_seconds must be between 1 and 86400, not {given}")
        return value

    def open_store(self) -> ConfigStore:
        """The configuration store, opened for one request."""
        if self.store_kind == "database":
            from falcon_airflow.operate.table_store import TableStore
            from falcon_airflow.server.store_access import database_store

            return TableStore(database_store(), self.entities, lease_seconds=self.lease_seconds)
        from falcon_airflow.operate.config_store import Store

        return Store(self.entities, self.state)

    def falcon(self, key: str) -> str | None:
        """A ``[falcon]`` setting (the shape :mod:`falcon_airflow.operate.authorization` reads)."""
        return self.config.get("falcon", key)
