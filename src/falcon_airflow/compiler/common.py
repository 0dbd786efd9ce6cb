"""Pieces every DagSpec needs: ids, ownership, tags, docs, retries, Spark placement, where job files live."""

from __future__ import annotations

import math
import re
from pathlib import Path

from falcon_airflow.compiler.spark_options import split_master
from falcon_airflow.compiler.specs import EntitySource, FeedFacts, GroupAccess, RetrySpec
from falcon_airflow.core.paths import join_storage
from falcon_airflow.entities import ACL, Cluster, Feed, InterfaceType, Process, Retry
from falcon_airflow.timekeeping import Frequency

JOBS_FOLDER = Path(__file__).resolve().parent.parent / "jobs"
CORE_FOLDER = JOBS_FOLDER.parent / "core"
ENTRY_FOLDER = JOBS_FOLDER / "entry"
DEFAULT_MASTER = "local[*]"
MINIMUM_TIMEOUT_SECONDS = 30 * 60
# Falcon's feed retry defaults (runtime properties feed.retry.*): 3 attempts, exp-backoff, minutes(5).
FEED_RETRY = RetrySpec(policy="exp-backoff", delay_seconds=300, attempts=3, on_timeout=False)


def process_dag_id(process: str, cluster: str) -> str:
    return f"falcon.process.{process}.{cluster}"


def retention_dag_id(feed: str, cluster: str) -> str:
    return f"falcon.feed.{feed}.retention.{cluster}"


def sla_dag_id(entity_type: str, name: str, cluster: str) -> str:
    return f"falcon.{entity_type}.{name}.sla.{cluster}"


def replication_dag_id(feed: str, source: str, target: str) -> str:
    return f"falcon.feed.{feed}.replication.{source}.{target}"


def source_of(entity: Feed | Process) -> EntitySource:
    return EntitySource(type=entity.entity_type.value, name=entity.name, file=entity.source.file,
                        line=entity.source.line)


def owner_of(acl: ACL | None) -> str:
    return acl.owner if acl is not None and acl.owner else "falcon"


def group_access_of(acl: ACL | None) -> GroupAccess | None:
    """The rights ``permission`` gives the ACL's group: ``*`` all; octal (``0755``, Falcon's ``0x755``) or symbolic
    (``rwxr-x---``) by the group's read and write bits. A form we cannot read grants reading only."""
    if acl is None or not acl.group:
        return None
    text = acl.permission.strip().lower()
    if text == "*":
        return GroupAccess(group=acl.group, can_read=True, can_edit=True)
    digits = text.removeprefix("0x")
    if re.fullmatch(r"[0-7]{3,4}", digits):
        bits = int(digits[-2])
        return GroupAccess(group=acl.group, can_read=bool(bits & 4), can_edit=bool(bits & 2))
    if re.fullmatch(r"[r-][w-][xs-][r-][w-][xs-][r-][w-][xt-]", text):
        return GroupAccess(group=acl.group, can_read=text[3] == "r", can_edit=text[4] == "w")
    return GroupAccess(group=acl.group, can_read=True, can_edit=False)


def seconds(frequency: Frequency) -> int:
    return frequency.millis // 1000


def default_timeout_seconds(frequency: Frequency) -> int:
    """Falcon's default wait for inputs: six instances of the frequency, at least 30 minutes."""
    return max(6 * seconds(frequency), MINIMUM_TIMEOUT_SECONDS)


def throttle(timeout_seconds: int, frequency: Frequency) -> int:
    """Falcon's coordinator throttle: how many instances may be materialised (waiting) at once."""
    return max(1, math.floor(timeout_seconds / seconds(frequency) * 2))


def retry_spec(retry: Retry | None) -> RetrySpec | None:
    if retry is None:
        return None
    return RetrySpec(policy=retry.policy.value, delay_seconds=seconds(retry.delay), attempts=retry.attempts,
                     on_timeout=retry.on_timeout)


def tags_of(tag_pairs: tuple[tuple[str, str], ...], *extra: str) -> tuple[str, ...]:
    """Entity tags (``key=value``), pipelines and groups as DAG tags, in order, without repeats."""
    tags = ["falcon", *extra, *(f"{key}={value}" for key, value in tag_pairs)]
    return tuple(dict.fromkeys(tag[:100] for tag in tags))


def spark_master(cluster: Cluster | None, declared: str | None) -> tuple[str, str | None]:
    """(master, deploy mode): the process's own master, else the cluster's spark interface, else local[*]."""
    if declared and declared.strip():
        return split_master(declared)
    if cluster is not None:
        spark = cluster.interface(InterfaceType.SPARK)
        if spark is not None and spark.endpoint.strip():
            return split_master(spark.endpoint)
        if cluster.interface(InterfaceType.EXECUTE) is not None:  # a YARN resource manager
            return "yarn", None
    return DEFAULT_MASTER, None


def storage_base(cluster: Cluster | None) -> str | None:
    if cluster is None:
        return None
    write = cluster.interface(InterfaceType.WRITE)
    return write.endpoint.strip() if write is not None else None


def resolve_application(path: str, entities_dir: Path | None, cluster: Cluster | None) -> str:
    """Where a workflow file lives: a path relative to the entities folder when it exists there (examples,
    repositories that keep jobs beside their entities), else on the cluster's storage, as Falcon resolved it."""
    if "://" in path:
        return path
    if entities_dir is not None and not path.startswith("/"):
        local = (entities_dir / path).resolve()
        if local.exists():
            return str(local)
    if path.startswith("/") and Path(path).exists():
        return path
    base = storage_base(cluster)
    if base is not None and base.startswith("file:"):
        return join_storage(base, path).removeprefix("file://")
    return join_storage(base, path)


def feed_facts(feed: Feed, entities_dir: Path | None, cluster: Cluster | None) -> FeedFacts:
    """A feed's owner, tags, groups and declared schema for its lineage (the schema located like a workflow)."""
    location = feed.data_schema.location.strip()
    return FeedFacts(owner=feed.acl.owner or None, tags=feed.tag_pairs, groups=feed.groups,
                     schema_location=resolve_application(location, entities_dir, cluster) if location else None,
                     schema_provider=feed.data_schema.provider.strip() or None)


def catalogs_of(*clusters: Cluster | None) -> dict[str, str]:
    """Cluster name to ``registry`` endpoint, for the clusters that have one."""
    catalogs = {}
    for cluster in clusters:
        registry = cluster.interface(InterfaceType.REGISTRY) if cluster is not None else None
        if cluster is not None and registry is not None and registry.endpoint.strip():
            catalogs[cluster.name] = registry.endpoint.strip()
    return catalogs


def job_file(name: str) -> str:
    """The main file spark-submit runs for one of our PySpark applications (``retention.py`` ...): a small entry
    script that imports its job from the jobs package, shipped with :func:`job_py_files`."""
    return str(ENTRY_FOLDER / name)


def job_py_files() -> str:
    """``--py-files`` of our jobs: the jobs package and the core package, whose rules they share with the Airflow
    side (the Spark hook ships the package folders together as one zip)."""
    return ",".join([str(JOBS_FOLDER), str(CORE_FOLDER)])


def doc_header(entity: Feed | Process, what: str) -> str:
    where = f"{entity.source.file}:{entity.source.line}" if entity.source.line else entity.source.file
    return f"### Falcon {entity.entity_type.value} `{entity.name}` — {what}\n\nDefined in `{where}`.\n"


CLUSTER_INTERFACES_NOTE = (
    "Cluster interfaces: `write` is the storage base of relative paths, `readonly` the replication source, "
    "`spark` (else `execute` for YARN) the Spark master, `registry` the metastore of table feeds; `workflow` and "
    "`messaging` (Oozie, JMS) do not apply on Airflow. An Airflow connection named after the cluster overrides "
    "the Spark master."
)
