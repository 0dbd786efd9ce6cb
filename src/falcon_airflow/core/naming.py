"""OpenLineage names for Falcon data: physical datasets per the OpenLineage naming conventions, logical feeds.

Physical datasets (``website/docs/spec/naming.md``):

============================== =========================================== =====================================
storage                        namespace                                   name
============================== =========================================== =====================================
local file (``file:///p``, ``/p``) ``file``                                 ``/p`` (absolute path)
remote file (``file://host/p``) ``file://host``                            ``/p``
HDFS (``hdfs://nn:8020/p``)     ``hdfs://nn:8020``                          ``/p``
S3 (``s3a://``, ``s3n://``, ``s3://``) ``s3://<bucket>``                    ``<key>`` (no leading slash)
GCS (``gs://b/k``)              ``gs://b``                                  ``k``
other ``scheme://authority/p`` ``scheme://authority``                     ``/p``
catalog table                  ``hive://<metastore host:port>``            ``<database>.<table>``
============================== =========================================== =====================================

A table's metastore is the ``registry`` interface of the feed's cluster (``thrift://host:9083`` gives
``hive://host:9083``); a cluster without one gives ``hive://<cluster name>`` (:data:`DEFAULT_TABLE_NAMESPACE`), so
the tables of two clusters never merge. Paths are normalised: no ``//``, ``.`` or trailing ``/``.

Logical feeds: every instance of feed ``F`` on cluster ``C`` carries a ``symlinks`` identifier
``{namespace: "falcon://C", name: "F", type: "FEED"}``, so all instances of a feed form one logical dataset; the
instance itself is told by a ``subset`` facet (see :mod:`falcon_airflow.lineage.facets`).

Jobs are named as the Airflow provider names them, ``<dag_id>.<task_id>``; :func:`parse_job_name` reads our DAG ids
back (Falcon names hold no dots).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

from falcon_airflow.core.paths import resolve_dots
from falcon_airflow.core.secrets import redact_url

FALCON_SCHEME = "falcon"
FEED_SYMLINK_TYPE = "FEED"
TABLE_SYMLINK_TYPE = "TABLE"
TABLE_NAMESPACE_CONF = "spark.falcon.lineage.tableNamespace"
"""The Spark setting that names the table namespace of a job's lineage (set by the compiler per cluster)."""
DEFAULT_TABLE_NAMESPACE = "hive://{cluster}"
"""Namespace of the catalog tables of a cluster that declares no ``registry`` interface."""

_KEY_SCHEMES = {"s3": "s3", "s3a": "s3", "s3n": "s3", "gs": "gs", "gcs": "gs"}
"""Object stores: the bucket is the namespace, the key (without a leading slash) the name."""
_LOCAL_HOSTS = ("", "localhost", "127.0.0.1")


@dataclass(frozen=True, order=True)
class DatasetId:
    """An OpenLineage dataset identity."""

    namespace: str
    name: str

    @property
    def uri(self) -> str:
        """One string for people and command lines; :func:`parse_dataset` reads it back."""
        if self.namespace == "file":
            return f"file://{self.name}" if self.name.startswith("/") else f"file:{self.name}"
        if self.name.startswith("/"):
            return f"{self.namespace}{self.name}"
        return f"{self.namespace}/{self.name}"

    def as_dict(self) -> dict[str, str]:
        return {"namespace": self.namespace, "name": self.name}


def normalize_path(path: str) -> str:
    """``/a//b/./c/`` to ``/a/b/c`` (``..`` resolved lexically, never above the root)."""
    absolute = path.startswith("/")
    text = "/".join(resolve_dots(path.split("/")))
    return f"/{text}" if absolute else text


def location_dataset(location: str, *, table_namespace: str | None = None) -> DatasetId:
    """The dataset of a storage location: a URI (``hdfs://nn:8020/p``, ``s3a://b/k``, ``file:///p``), a plain path,
    or a catalog URI ``catalog:db:table#...`` (in ``table_namespace``, default ``hive://default``)."""
    text = location.strip()
    if text.startswith("catalog:"):
        database, _, rest = text.removeprefix("catalog:").partition(":")
        table = rest.partition("#")[0]
        return DatasetId(table_namespace or DEFAULT_TABLE_NAMESPACE.format(cluster="default"),
                         f"{database.strip()}.{table.strip()}")
    parts = urlsplit(text)
    scheme = parts.scheme.lower()
    if scheme in ("", "file"):
        path = unquote(parts.path if scheme == "file" else text)
        host = (parts.netloc or "").lower() if scheme == "file" else ""
        namespace = "file" if host in _LOCAL_HOSTS else f"file://{host}"
        return DatasetId(namespace, normalize_path(path) or "/")
    if scheme in _KEY_SCHEMES:
        return DatasetId(f"{_KEY_SCHEMES[scheme]}://{parts.netloc}", normalize_path(unquote(parts.path)).lstrip("/"))
    return DatasetId(f"{scheme}://{parts.netloc}", normalize_path(unquote(parts.path)) or "/")


def metastore_authority(uris: str | None) -> str | None:
    """``hive://host:port`` of the first of a metastore list (``thrift://host:9083,...``), ``None`` without one."""
    if not uris or not uris.strip():
        return None
    first = uris.split(",")[0].strip()  # a metastore list: the first one names it
    authority = urlsplit(first).netloc if "://" in first else first.split("/")[0]
    return f"hive://{authority}" if authority else None


def metastore_namespace(endpoint: str | None, cluster: str) -> str:
    """The table namespace of a cluster: its registry endpoint's (``thrift://host:9083`` gives
    ``hive://host:9083``), else ``hive://<cluster>``; a Spark job without a cluster uses ``hive://default``."""
    return metastore_authority(endpoint) or DEFAULT_TABLE_NAMESPACE.format(cluster=cluster)


def jdbc_dataset(url: str, table: str) -> DatasetId:
    """``jdbc:postgresql://host:5432/db`` + ``schema.table`` to (``postgres://host:5432``, ``db.schema.table``).

    Only the host, port and database name reach the identity, never a URL's credentials: user-info
    (``//user:password@``), options in any vendor's style (``?password=``, ``;password=``, DB2's ``:user=..;``,
    MySQL's ``address=(host=..)(password=..)``) and Oracle's ``user/password@`` are left out."""
    text = url.strip().removeprefix("jdbc:")
    vendor, _, rest = text.partition(":")
    vendor = vendor.lower()
    scheme = {"postgresql": "postgres", "sqlserver": "sqlserver"}.get(vendor, vendor)
    database = ""
    if vendor == "oracle":  # oracle:thin:[user/password]@host:port:sid, @//host:port/service
        target = rest.rpartition("@")[2] if "@" in rest else rest.partition(":")[2]
        target = target.removeprefix("//")
        if "/" in target:
            authority, _, database = target.partition("/")
        else:
            host, _, tail = target.partition(":")
            port, _, database = tail.partition(":")
            authority = f"{host}:{port}" if port else host
    elif rest.startswith("//"):
        body = rest[2:]
        cut = min((body.find(mark) for mark in "/?;#" if mark in body), default=len(body))
        authority, remainder = body[:cut], body[cut:]
        authority = authority.rpartition("@")[2]
        if "(" in authority:  # MySQL's address=(host=h)(port=p)(...) form
            found = dict(re.findall(r"\((\w+)=([^)]*)\)", authority))
            authority = found.get("host", "") + (f":{found['port']}" if found.get("port") else "")
        if remainder.startswith("/"):
            database = re.split(r"[;?#:]", remainder[1:], maxsplit=1)[0]
        elif vendor == "sqlserver":
            options = dict(re.findall(r";\s*(\w+)\s*=\s*([^;]*)", remainder))
            database = options.get("databaseName") or options.get("database") or ""
    else:
        parts = urlsplit(text)
        authority = parts.netloc.rpartition("@")[2]
        database = re.split(r"[;?#]", parts.path, maxsplit=1)[0].strip("/")
    if "=" in database:  # options where a database name would be (Teradata's /USER=..,PASSWORD=..)
        database = ""
    name = f"{database}.{table}" if database and table.count(".") < 2 else table
    return DatasetId(redact_url(f"{scheme}://{authority}"), redact_url(name))


def table_dataset(database: str, table: str, namespace: str) -> DatasetId:
    return DatasetId(namespace, f"{database}.{table}")


def feed_dataset(cluster: str, feed: str) -> DatasetId:
    """The logical dataset of every instance of ``feed`` on ``cluster``."""
    return DatasetId(f"{FALCON_SCHEME}://{cluster}", feed)


def parse_dataset(text: str) -> DatasetId | None:
    """A dataset URI as :attr:`DatasetId.uri` prints it (or a plain absolute path) back to its identity;
    ``None`` for anything else (a feed name)."""
    value = text.strip()
    if value.startswith("/"):
        return location_dataset(value)
    if "://" not in value and not value.startswith("file:"):
        return None
    scheme = value.split(":", 1)[0].lower()
    if scheme in ("file", *_KEY_SCHEMES):
        return location_dataset(value)
    parts = urlsplit(value)
    namespace = f"{scheme}://{parts.netloc}"
    if scheme in ("hive", FALCON_SCHEME):  # the name is one path element: db.table, a feed
        return DatasetId(namespace, parts.path.strip("/"))
    return DatasetId(namespace, normalize_path(unquote(parts.path)) or "/")


_PATH_NAMESPACES = ("file", "file://", "hdfs://", "s3://", "gs://", "abfs://", "abfss://", "wasb://", "wasbs://")


def event_dataset(namespace: str, name: str) -> DatasetId:
    """The identity of a dataset as an event names it, its path normalised as :func:`location_dataset` does (so a
    producer's ``/d/in/`` and ours ``/d/in`` meet); names in other namespaces (tables ...) are kept as they are."""
    if namespace == "file" or namespace.startswith(_PATH_NAMESPACES[1:]):
        joined = name if namespace == "file" else f"{namespace.rstrip('/')}/{name.lstrip('/')}"
        try:
            found = location_dataset(joined)
        except ValueError:
            return DatasetId(namespace, name)
        if found.namespace == namespace:
            return found
    return DatasetId(namespace, name)


def under(child: DatasetId, parent: DatasetId) -> bool:
    """Whether ``child`` is ``parent`` or a path below it (a file of an instance folder)."""
    if child.namespace != parent.namespace:
        return False
    if child.name == parent.name:
        return True
    prefix = parent.name.rstrip("/") + "/"
    return child.name.startswith(prefix) if parent.name else False


@dataclass(frozen=True)
class JobName:
    """What a job name of our DAGs says: ``kind`` process / retention / replication."""

    kind: str
    entity: str
    clusters: tuple[str, ...]
    task: str


_JOB_PATTERNS = (
    ("process", re.compile(r"falcon\.process\.(?P<entity>[^.]+)\.(?P<c1>[^.]+)\.(?P<task>.+)")),
    ("retention", re.compile(r"falcon\.feed\.(?P<entity>[^.]+)\.retention\.(?P<c1>[^.]+)\.(?P<task>.+)")),
    ("replication",
     re.compile(r"falcon\.feed\.(?P<entity>[^.]+)\.replication\.(?P<c1>[^.]+)\.(?P<c2>[^.]+)\.(?P<task>.+)")),
)


def parse_job_name(name: str) -> JobName | None:
    """``falcon.process.count.local.workflow`` to (process, count, (local,), workflow); ``None`` for other jobs."""
    for kind, pattern in _JOB_PATTERNS:
        match = pattern.fullmatch(name)
        if match:
            groups = match.groupdict()
            clusters = tuple(value for key, value in groups.items() if key.startswith("c") and value)
            return JobName(kind, groups["entity"], clusters, groups["task"])
    return None
