"""Time-zone IDs as Java's ``TimeZone.getTimeZone`` reads them, which is how Falcon bound ``<timezone>``.

Java accepts IANA IDs, a table of legacy three-letter IDs (``IST``, ``PST`` ...), and custom offsets such as
``GMT+05:30``. Anything else silently became GMT in Falcon; we resolve it to UTC too, but say so, so that
validation can warn about the typo that Falcon swallowed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import tzinfo
from functools import lru_cache

import pendulum

# Java's legacy short IDs (java.time.ZoneId.SHORT_IDS plus the fixed-offset trio of java.util.TimeZone).
_JAVA_SHORT_IDS = {
    "ACT": "Australia/Darwin", "AET": "Australia/Sydney", "AGT": "America/Argentina/Buenos_Aires",
    "ART": "Africa/Cairo", "AST": "America/Anchorage", "BET": "America/Sao_Paulo", "BST": "Asia/Dhaka",
    "CAT": "Africa/Harare", "CNT": "America/St_Johns", "CST": "America/Chicago", "CTT": "Asia/Shanghai",
    "EAT": "Africa/Addis_Ababa", "ECT": "Europe/Paris", "IET": "America/Indiana/Indianapolis",
    "IST": "Asia/Kolkata", "JST": "Asia/Tokyo", "MIT": "Pacific/Apia", "NET": "Asia/Yerevan",
    "NST": "Pacific/Auckland", "PLT": "Asia/Karachi", "PNT": "America/Phoenix", "PRT": "America/Puerto_Rico",
    "PST": "America/Los_Angeles", "SST": "Pacific/Guadalcanal", "VST": "Asia/Ho_Chi_Minh",
}
_JAVA_FIXED_IDS = {"EST": -5 * 3600, "MST": -7 * 3600, "HST": -10 * 3600}
_CUSTOM_OFFSET = re.compile(r"GMT([+-])(\d{1,2})(?::?(\d{2}))?")
_IANA_ID = re.compile(r"[A-Za-z][A-Za-z0-9_+\-]*(?:/[A-Za-z0-9_+\-]+)*")


@dataclass(frozen=True, slots=True)
class ResolvedZone:
    """The zone to compute in, and whether the ID was understood (``False`` means it fell back to UTC)."""

    zone: tzinfo
    known: bool
    name: str


@lru_cache(maxsize=512)
def resolve_zone(zone_id: str) -> ResolvedZone:
    """Resolve a Falcon ``<timezone>`` value the way Java did; unknown IDs fall back to UTC with ``known=False``."""
    text = (zone_id or "").strip()
    if text in ("UTC", "GMT", "Z"):
        return ResolvedZone(pendulum.UTC, True, text)
    if text in _JAVA_FIXED_IDS:
        return ResolvedZone(pendulum.FixedTimezone(_JAVA_FIXED_IDS[text], name=text), True, text)
    custom = _CUSTOM_OFFSET.fullmatch(text)
    if custom:
        hours, minutes = int(custom[2]), int(custom[3] or 0)
        if hours <= 23 and minutes <= 59:
            offset = (hours * 3600 + minutes * 60) * (1 if custom[1] == "+" else -1)
            return ResolvedZone(pendulum.FixedTimezone(offset, name=text), True, text)
        return ResolvedZone(pendulum.UTC, False, text)
    iana = _JAVA_SHORT_IDS.get(text, text)
    if _IANA_ID.fullmatch(iana):
        try:
            return ResolvedZone(pendulum.timezone(iana), True, text)
        except Exception:  # zoneinfo raises several types for unknown keys; all mean "not a zone"
            pass
    return ResolvedZone(pendulum.UTC, False, text)
