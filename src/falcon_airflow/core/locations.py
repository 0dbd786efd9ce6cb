"""Where one instance of a feed is: the single resolver the command line, ``explain``, the macros, the operators
and the jobs use, so that the same instance prints as the same string everywhere.

A feed location is a storage location template (``hdfs://nn:8020/data/in/${YEAR}/${MONTH}``, a plain path for the
local file system; data, stats, meta or tmp) or a catalog URI with partition templates
(``catalog:db:table#ds=${YEAR}${MONTH}${DAY}``). An instance's location is the template resolved in the feed's time
zone; a catalog URI comes back in its canonical form ``catalog:db:table#k=v;k2=v2`` (parts trimmed, empty specs
dropped) whatever spacing the definition used.
"""

from __future__ import annotations

from datetime import datetime, tzinfo

from falcon_airflow.core.paths import Template
from falcon_airflow.core.tables import TableUri

CATALOG_PREFIX = "catalog:"


def is_table(location: str) -> bool:
    return location.strip().startswith(CATALOG_PREFIX)


def instance_location(location: str, moment: datetime, zone: tzinfo) -> str:
    """The location of the instance at ``moment``: the template resolved, or the catalog URI of its partition."""
    if is_table(location):
        table = TableUri.parse(location)
        spec = ";".join(f"{key}={value}" for key, value in table.resolve(moment, zone).items())
        return f"{CATALOG_PREFIX}{table.database}:{table.table}#{spec}"
    return Template(location).resolve(moment, zone)


def availability_marker(folder: str, flag: str | None) -> str:
    """What must exist for an instance to be available: its flag file, else the instance folder itself."""
    return f"{folder.rstrip('/')}/{flag}" if flag else folder
