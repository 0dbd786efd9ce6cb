"""Pieces shared by all four entity types, and the base every model derives from.

Models are frozen and strict (``extra="forbid"``): they are built once from validated XML and then only read.
Each entity knows the file and line it came from (:class:`SourceRef`); each element a rule may complain about
carries its own ``line`` so that an issue points at the element, not just the file.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field, field_validator
from pydantic_core import TzInfo

from falcon_airflow.timekeeping import ResolvedZone, resolve_zone

_NO_OFFSET = timedelta(0)


class FalconModel(BaseModel):
    """Base of every entity model: immutable, no unknown fields."""

    model_config = ConfigDict(frozen=True, extra="forbid")


class EntityType(StrEnum):
    CLUSTER = "cluster"
    FEED = "feed"
    PROCESS = "process"
    DATASOURCE = "datasource"

    @property
    def namespace(self) -> str:
        return f"uri:falcon:{self.value}:0.1"

    @property
    def schedulable(self) -> bool:
        return self in (EntityType.FEED, EntityType.PROCESS)


class SourceRef(FalconModel):
    """Where an entity was read from."""

    file: str
    line: int | None = None


class Located(FalconModel):
    """An element whose line a rule may point at; ``line`` is ``None`` for values built in code."""

    line: int | None = Field(default=None, repr=False)


class Property(Located):
    name: str
    value: str


class ACL(Located):
    owner: str | None = None
    group: str | None = None
    permission: str = "*"


class Validity(Located):
    """Validity window: start inclusive, end exclusive, both UTC."""

    start: datetime
    end: datetime

    @field_validator("start", "end")
    @classmethod
    def _builders_utc(cls, value: datetime) -> datetime:
        # Read back from JSON (an entity handed over by a parsing worker), pydantic gives UTC as its own TzInfo(0);
        # the builders' datetime.UTC is kept instead, so an entity read either way is the same to the last detail.
        if isinstance(value.tzinfo, TzInfo) and value.utcoffset() == _NO_OFFSET:
            return value.replace(tzinfo=UTC)
        return value


class NotificationLevel(StrEnum):
    ATTEMPT = "attempt"
    INSTANCE = "instance"


class Notification(Located):
    type: str = "email"
    level: NotificationLevel | None = None
    to: str

    @property
    def recipients(self) -> tuple[str, ...]:
        return tuple(address.strip() for address in self.to.split(",") if address.strip())


_TAG_SPLIT = re.compile(r",\s*")


class EntityBase(FalconModel):
    """Attributes every entity root has."""

    name: str
    version: int = 0
    tags: str | None = None
    source: SourceRef

    @property
    def entity_type(self) -> EntityType:
        raise NotImplementedError

    @property
    def tag_pairs(self) -> tuple[tuple[str, str], ...]:
        """``tags`` as (key, value) pairs, in order."""
        if not self.tags:
            return ()
        pairs = []
        for item in _TAG_SPLIT.split(self.tags.strip()):
            key, _, value = item.partition("=")
            if key:
                pairs.append((key.strip(), value))
        return tuple(pairs)

    @property
    def key(self) -> tuple[EntityType, str]:
        """Identity inside a workspace: type and name."""
        return (self.entity_type, self.name)

    def describe(self) -> str:
        return f"{self.entity_type.value} '{self.name}'"


class ZonedEntity(EntityBase):
    """Feeds and processes run in a time zone (``UTC`` when the XML says nothing)."""

    timezone: str = "UTC"

    @property
    def zone(self) -> ResolvedZone:
        return resolve_zone(self.timezone)


def properties_map(properties: tuple[Property, ...]) -> dict[str, str]:
    """Properties as a dict; the last definition of a repeated name wins (validation reports repeats)."""
    return {prop.name: prop.value for prop in properties}
