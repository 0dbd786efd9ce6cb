"""FA035: an entity never chooses whom its jobs run as.

Every job of an entity runs as the entity's checked ``-doAs`` user, else its ACL owner (``docs/security.md``).
Spark-submit options, Spark conf, JVM options and environment variables that would choose another user or login
(:mod:`falcon_airflow.core.identity`) are refused where an entity can write them: a process's ``<spark-opts>``
(its Spark or Hive job and its late-data re-run) and a cluster's properties, which reach the Spark conf of every
job on the cluster. Oozie workflows are judged by the same rule in :mod:`falcon_airflow.oozie.identity`.

FA037: the ACL owner of a feed or a process, which its jobs run as when no ``-doAs`` user is recorded, is a user
name (letters, digits, ``_ . @ -``): anything else could be neither a Hadoop user nor a Kerberos short name.
"""

from __future__ import annotations

from collections.abc import Iterator

from falcon_airflow.core.identity import identity_setting, is_user_name, spark_opts_identity_problems
from falcon_airflow.entities import Cluster, EntityType, Feed, Process
from falcon_airflow.validation.registry import Finding, RuleContext, error, rule

IDENTITY_RULE = "FA035"
OWNER_RULE = "FA037"
_WHO = "its jobs run as the entity's -doAs user, else its ACL owner"


@rule(IDENTITY_RULE, EntityType.PROCESS, "spark-opts never choose whom the jobs run as")
def process_spark_identity(context: RuleContext, process: Process) -> Iterator[Finding]:
    attributes = process.spark_attributes
    if attributes is None:
        return
    for reason in spark_opts_identity_problems(attributes.spark_opts):
        yield error(f"process '{process.name}' <spark-opts>: {reason}; {_WHO}", attributes.line)


def _as_spark_conf(name: str) -> str:
    """The Spark conf a cluster property would become: ``spark.*`` as it is, anything else as Hadoop conf."""
    key = name.strip()
    return key if key.startswith("spark.") else f"spark.hadoop.{key}"


@rule(IDENTITY_RULE, EntityType.CLUSTER, "cluster properties never choose whom the jobs run as")
def cluster_spark_identity(context: RuleContext, cluster: Cluster) -> Iterator[Finding]:
    for item in cluster.properties:
        reason = identity_setting(_as_spark_conf(item.name), item.value)
        if reason is not None:
            yield error(f"cluster '{cluster.name}' property '{item.name}': {reason}; every job on the cluster runs "
                        "as its entity's -doAs user, else its ACL owner", item.line)


def _owner_findings(entity: Feed | Process) -> Iterator[Finding]:
    acl = entity.acl
    owner = acl.owner if acl is not None else None
    if owner is not None and owner.strip() and not is_user_name(owner.strip()):
        yield error(f"{entity.entity_type.value} '{entity.name}': its ACL owner '{owner}' is not a user name its jobs "
                    "could run as (letters, digits and _ . @ -)", acl.line if acl is not None else None)


@rule(OWNER_RULE, EntityType.FEED, "the ACL owner, which the jobs run as, is a user name")
def feed_owner_is_a_user(context: RuleContext, feed: Feed) -> Iterator[Finding]:
    yield from _owner_findings(feed)


@rule(OWNER_RULE, EntityType.PROCESS, "the ACL owner, which the jobs run as, is a user name")
def process_owner_is_a_user(context: RuleContext, process: Process) -> Iterator[Finding]:
    yield from _owner_findings(process)
