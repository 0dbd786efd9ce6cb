"""Time-zone IDs as Java's ``TimeZone.getTimeZone`` reads them (:mod:`falcon_airflow.core.zones`), as pendulum zones.

Java accepts IANA IDs, a table of legacy three-letter IDs (``IST``, ``PST`` ...), and custom offsets such as
``GMT+05:30``. Anything else silently became GMT in Falcon; we resolve it to UTC too, but say so, so that
validation can warn about the typo that Falcon swallowed.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import tzinfo
from functools import lru_cache

import pendulum

from falcon_airflow.core.zones import read_zone_id


@dataclass(frozen=True, slots=True)
class ResolvedZone:
    """The zone to compute in, and whether the ID was understood (``False`` means it fell back to UTC)."""

    zone: tzinfo
    known: bool
    name: str


@lru_cache(maxsize=512)
def resolve_zone(zone_id: str) -> ResolvedZone:
    """Resolve a Falcon ``<timezone>`` value the way Java did; unknown IDs fall back to UTC with ``known=False``."""
    found = read_zone_id(zone_id)
    if found.kind == "utc":
        return ResolvedZone(pendulum.UTC, True, found.name)
    if found.kind == "fixed":
        return ResolvedZone(pendulum.FixedTimezone(found.offset_seconds, name=found.name), True, found.name)
    if found.kind == "iana" and found.iana is not None:
        try:
            return ResolvedZone(pendulum.timezone(found.iana), True, found.name)
        except Exception:  # zoneinfo raises several types for unknown keys; all mean "not a zone"
            pass
    return ResolvedZone(pendulum.UTC, False, found.name)
