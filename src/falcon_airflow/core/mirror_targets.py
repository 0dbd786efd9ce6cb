"""Where a mirror may write.

A mirroring extension replaces its target folder: files the source does not hold are deleted from it. A target is
therefore only accepted when it is nobody else's data and nothing the file system or the clusters need:

* not at, inside or above a *zone*: a feed's location of any type (data, stats, meta, tmp), a cluster's staging,
  working or temp folder, a Hive warehouse (for folder mirrors: a warehouse holds tables);
* not at or above a *root*: the file system's root, ``/user``, ``/home``, ``/tmp``, ``/apps``, the cluster's
  storage root (going inside them is fine: ``/tmp/mirror``), nor a user's home folder itself (``/user/alice``);
* at least ``min_depth`` folders deep below the cluster's storage root (default :data:`DEFAULT_MIN_DEPTH`).

Paths are compared as storage may read them: scheme and host in any case, the scheme's default port written or
not, no user, trailing and repeated slashes, ``.`` and ``..``, ``\\`` as a separator, percent-encoding decoded once
or as often as it decodes. Every reading of the target is compared with every reading of a protected folder, and
any that conflicts refuses the target: a text that names a safe folder to one reader and a protected one to another
is not safe.

The validation rules (FA045, FA046), the compiler (which hands the zones and roots to the job) and the job itself,
before anything is deleted, use this module; it needs the standard library only.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass

from falcon_airflow.core.paths import UnsafePathError, decodings

SHARED_ROOTS = ("/", "/user", "/home", "/tmp", "/apps")
"""Folders every user and service of a cluster shares: never a mirror target, nor anything above them."""
HOME_ROOTS = ("/user", "/home")
"""Where users' home folders are: a home itself is never a mirror target (a folder inside one may be)."""
WAREHOUSE_ROOTS = ("/user/hive/warehouse", "/apps/hive/warehouse", "/warehouse/tablespace/managed/hive",
                   "/warehouse/tablespace/external/hive")
"""Hive's default warehouses (Apache Hive, HDP 2, HDP 3 managed and external)."""
WAREHOUSE_PROPERTIES = ("hive.metastore.warehouse.dir", "hive.metastore.warehouse.external.dir")
"""Cluster properties naming more warehouses."""
MIN_DEPTH_PROPERTY = "falcon.mirror.min.depth"
"""A cluster property: how many folders deep (below the cluster's storage root) a mirror target must be."""
DEFAULT_MIN_DEPTH = 2

_DEFAULT_PORTS = {"hdfs": 8020, "webhdfs": 9870, "swebhdfs": 9871, "http": 80, "https": 443}
"""A URI without a port names the scheme's default one (Hadoop 3's namenode RPC and HTTP ports): ``hdfs://nn`` and
``hdfs://nn:8020`` are one file system. Object stores (``s3a://bucket``) have no port."""
_SCHEME_ALIASES = {"s3a": "s3", "s3n": "s3"}
"""Connectors to one store: ``s3a://b/x`` and ``s3://b/x`` are the same objects."""
_LOCAL_HOSTS = ("", "localhost", "127.0.0.1")
_URI = re.compile(r"^(?P<scheme>[A-Za-z][A-Za-z0-9+.\-]*):(?://(?P<authority>[^/]*))?(?P<path>.*)$", re.S)
_HAS_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:")
UNKNOWN = ("", "")
"""The file system of a bare path with no storage to place it on: compared with any."""


@functools.lru_cache(maxsize=1024)  # a workspace names a few file systems for thousands of locations
def file_system(scheme: str, authority: str) -> tuple[str, str]:
    """One spelling per file system: scheme and host in lower case, no user, the scheme's default port written out,
    ``file://localhost`` as ``file://``, ``s3a``/``s3n`` as ``s3``."""
    scheme = _SCHEME_ALIASES.get(scheme.lower(), scheme.lower())
    host_port = authority.rpartition("@")[2]
    host, colon, port = host_port.rpartition(":") if not host_port.endswith("]") else (host_port, "", "")
    if not colon or not port.isdigit():
        host, port = host_port, ""
    host = host.lower()
    if scheme == "file" and host in _LOCAL_HOSTS:
        return scheme, ""
    number = int(port) if port else _DEFAULT_PORTS.get(scheme)
    return scheme, f"{host}:{number}" if number is not None else host


def on_storage(base: str | None, path: str) -> str:
    """A path of a job on a cluster: relative to the cluster's storage unless it is a full URI."""
    if _HAS_SCHEME.match(path) or not base:
        return path
    return base.rstrip("/") + "/" + path.lstrip("/")


def _resolved(parts: Iterable[str]) -> tuple[str, ...]:
    found: list[str] = []
    for part in parts:
        if part in ("", "."):
            continue
        if part == "..":
            if found:
                found.pop()
            continue
        found.append(part)
    return tuple(found)


@dataclass(frozen=True)
class Place:
    """One reading of a folder: its file system and its folders from the root."""

    file_system: tuple[str, str]
    components: tuple[str, ...]

    def same_file_system(self, other: Place) -> bool:
        return UNKNOWN in (self.file_system, other.file_system) or self.file_system == other.file_system

    def within(self, other: Place) -> bool:
        """This folder is ``other`` or inside it."""
        return self.same_file_system(other) and self.components[:len(other.components)] == other.components

    @property
    def path(self) -> str:
        return "/" + "/".join(self.components)


def readings(text: str, base: str | None = None) -> frozenset[Place]:
    """Every folder ``text`` (a full URI, or a path on the storage ``base``) may name to some reader."""
    joined = on_storage(base, text.strip())
    match = _URI.match(joined)
    if match and match["authority"] is not None:
        where, path = file_system(match["scheme"], match["authority"]), match["path"]
    elif match and match["scheme"].lower() == "file":
        where, path = file_system("file", ""), match["path"]
    else:
        where, path = UNKNOWN, joined
    try:
        forms = decodings(path)
    except UnsafePathError:
        forms = [path]
    return frozenset(Place(where, _resolved(form.replace("\\", "/").split("/") if backslash else form.split("/")))
                     for form in forms for backslash in (False, True))


@dataclass(frozen=True)
class Protected:
    """A folder a mirror target must keep away from."""

    where: str
    """As written: a full URI, or a path on ``base``."""
    what: str
    """What it is, for the message: ``feed clicks's data location on cluster backup``."""
    inside: bool
    """True: no target inside it either (a zone); False: a target may go inside it (a root)."""
    base: str | None = None
    feed: bool = False
    """A feed's location (rule FA045), else a folder of the file system or the clusters (FA046)."""


@dataclass(frozen=True)
class Refusal:
    message: str
    feed: bool
    rank: int
    """How directly it names the target: it is the folder (0), inside it (1), a home (2), too shallow (3), above
    it (4). :func:`refusals` gives the most direct first."""


def shared_folders(base: str | None, *, warehouses_inside: bool, warehouses: Iterable[str] = (),
                   storage: str = "cluster") -> list[Protected]:
    """The folders every file system and cluster protects, on the cluster storage ``base`` and at the root of its
    file system: the shared roots, the storage root itself and the Hive warehouses (zones for a folder mirror,
    roots for a table mirror, which writes table folders inside them)."""
    found: list[Protected] = []
    for root in SHARED_ROOTS:
        what = "the file system's root" if root == "/" else f"the {root} folder"
        found.append(Protected(root, what, inside=False))
        if base:
            found.append(Protected(root, what, inside=False, base=base))
    if base:
        found.append(Protected(base, f"the storage root of {storage}", inside=False))
    for warehouse in (*WAREHOUSE_ROOTS, *warehouses):
        found.append(Protected(warehouse, f"the Hive warehouse {warehouse}", inside=warehouses_inside))
        if base:
            found.append(Protected(warehouse, f"the Hive warehouse {warehouse}", inside=warehouses_inside, base=base))
    return found


def refusals(target: str, protected: Iterable[Protected], *, base: str | None = None,
             min_depth: int = DEFAULT_MIN_DEPTH) -> list[Refusal]:
    """Why ``target`` (a full URI, or a path on the storage ``base``) may not be a mirror's target; empty when it
    may. Each protected folder refuses once, with the first reading that conflicts."""
    targets = readings(target, base)
    found: list[Refusal] = []
    seen: set[str] = set()

    def refuse(rank: int, message: str, feed: bool = False) -> None:
        if message not in seen:
            seen.add(message)
            found.append(Refusal(message, feed, rank))

    roots = [place for place in (readings(base) if base else ()) if place.file_system != UNKNOWN]
    for place in sorted(targets, key=lambda item: (item.file_system, item.components)):
        below = next((len(place.components) - len(root.components) for root in roots if place.within(root)), None)
        depth = len(place.components) if below is None else below
        if depth < min_depth:
            refuse(3, f"is {depth} folder(s) deep below the storage root ({place.path}): a mirror target must be at "
                   f"least {min_depth} deep (cluster property {MIN_DEPTH_PROPERTY})")
        for home in HOME_ROOTS:
            for root in [*(Place(item.file_system, (*item.components, *home.strip("/").split("/")))
                           for item in roots), Place(place.file_system, tuple(home.strip("/").split("/")))]:
                if place.within(root) and len(place.components) == len(root.components) + 1:
                    refuse(2, f"is a user's home folder ({place.path})")
    for item in protected:
        for folder in readings(item.where, item.base):
            for place in targets:
                if place.components == folder.components and place.same_file_system(folder):
                    refuse(0, f"is {item.what} ({folder.path})", item.feed)
                elif folder.within(place):
                    refuse(4, f"holds {item.what} ({folder.path})", item.feed)
                elif item.inside and place.within(folder):
                    refuse(1, f"is inside {item.what} ({folder.path})", item.feed)
    return sorted(found, key=lambda refusal: refusal.rank)


def min_depth_of(properties: dict[str, str]) -> int:
    """A cluster's ``falcon.mirror.min.depth`` (at least 1), else :data:`DEFAULT_MIN_DEPTH`."""
    text = (properties.get(MIN_DEPTH_PROPERTY) or "").strip()
    return max(1, int(text)) if text.isdigit() else DEFAULT_MIN_DEPTH
