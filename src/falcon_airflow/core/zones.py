"""Time-zone IDs as Java's ``TimeZone.getTimeZone`` reads them, which is how Falcon bound ``<timezone>``: the one
reading the Airflow side (validation, the compiler, the macros) and the jobs share.

Java accepts IANA IDs, a table of legacy three-letter IDs (``IST``, ``PST`` ...), and custom offsets such as
``GMT+05:30``. Anything else silently became GMT in Falcon; here it is ``known=False``, so that validation can warn
about the typo Falcon swallowed and a job can refuse it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, timedelta, timezone, tzinfo
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

# Java's legacy short IDs (java.time.ZoneId.SHORT_IDS plus the fixed-offset trio of java.util.TimeZone).
JAVA_SHORT_IDS = {
    "ACT": "Australia/Darwin", "AET": "Australia/Sydney", "AGT": "America/Argentina/Buenos_Aires",
    "ART": "Africa/Cairo", "AST": "America/Anchorage", "BET": "America/Sao_Paulo", "BST": "Asia/Dhaka",
    "CAT": "Africa/Harare", "CNT": "America/St_Johns", "CST": "America/Chicago", "CTT": "Asia/Shanghai",
    "EAT": "Africa/Addis_Ababa", "ECT": "Europe/Paris", "IET": "America/Indiana/Indianapolis",
    "IST": "Asia/Kolkata", "JST": "Asia/Tokyo", "MIT": "Pacific/Apia", "NET": "Asia/Yerevan",
    "NST": "Pacific/Auckland", "PLT": "Asia/Karachi", "PNT": "America/Phoenix", "PRT": "America/Puerto_Rico",
    "PST": "America/Los_Angeles", "SST": "Pacific/Guadalcanal", "VST": "Asia/Ho_Chi_Minh",
}
JAVA_FIXED_IDS = {"EST": -5 * 3600, "MST": -7 * 3600, "HST": -10 * 3600}
_CUSTOM_OFFSET = re.compile(r"GMT([+-])(\d{1,2})(?::?(\d{2}))?")
_IANA_ID = re.compile(r"[A-Za-z][A-Za-z0-9_+\-]*(?:/[A-Za-z0-9_+\-]+)*")


@dataclass(frozen=True, slots=True)
class ZoneId:
    """How Java reads a zone ID: ``utc``, a ``fixed`` offset (seconds east of UTC), an ``iana`` zone, or
    ``unknown`` (Falcon's silent GMT)."""

    kind: str
    name: str
    offset_seconds: int = 0
    iana: str | None = None


def read_zone_id(zone_id: str | None) -> ZoneId:
    """Java's reading of a ``<timezone>`` value, without building a zone."""
    text = (zone_id or "").strip()
    if text in ("UTC", "GMT", "Z"):
        return ZoneId("utc", text)
    if text in JAVA_FIXED_IDS:
        return ZoneId("fixed", text, JAVA_FIXED_IDS[text])
    custom = _CUSTOM_OFFSET.fullmatch(text)
    if custom:
        hours, minutes = int(custom[2]), int(custom[3] or 0)
        if hours <= 23 and minutes <= 59:
            return ZoneId("fixed", text, (hours * 3600 + minutes * 60) * (1 if custom[1] == "+" else -1))
        return ZoneId("unknown", text)
    iana = JAVA_SHORT_IDS.get(text, text)
    if _IANA_ID.fullmatch(iana):
        return ZoneId("iana", text, iana=iana)
    return ZoneId("unknown", text)


def zone_of(zone_id: str | None) -> tuple[tzinfo, bool]:
    """The standard-library zone of an ID and whether Java knew it (unknown IDs give UTC, ``False``)."""
    found = read_zone_id(zone_id)
    if found.kind == "fixed":
        return timezone(timedelta(seconds=found.offset_seconds), found.name), True
    if found.kind == "iana" and found.iana is not None:
        try:
            return ZoneInfo(found.iana), True
        except (ZoneInfoNotFoundError, ValueError):
            return UTC, False
    return UTC, found.kind == "utc"
