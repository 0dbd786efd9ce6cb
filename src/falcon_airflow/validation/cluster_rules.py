"""Cluster rules (Falcon's C-rules that can be judged from the files)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from falcon_airflow.entities import Cluster, ClusterLocationName, EntityType, InterfaceType
from falcon_airflow.validation.coverage import UNUSED_RULE
from falcon_airflow.validation.helpers import has_uri_scheme, property_findings
from falcon_airflow.validation.registry import Finding, RuleContext, error, rule, warning

# Spark masters falcon-airflow can submit to (C15, adapted: Falcon accepted only yarn-cluster/yarn-client/local).
SPARK_MASTER = re.compile(
    r"local(\[(\*|[1-9]\d*)(,\s*[1-9]\d*)?\])?|yarn|yarn-client|yarn-cluster|spark://\S+|k8s://\S+",
    re.IGNORECASE,
)
SPARK_MASTER_HELP = "local, local[N], local[*], yarn, yarn-client, yarn-cluster, spark://host:port or k8s://host:port"


def is_supported_spark_master(master: str) -> bool:
    return bool(SPARK_MASTER.fullmatch(master.strip()))


@rule("C1", EntityType.CLUSTER, "interface endpoints are URIs with a scheme")
def interface_schemes(context: RuleContext, cluster: Cluster) -> Iterator[Finding]:
    for kind in (InterfaceType.READONLY, InterfaceType.WRITE):
        if cluster.interface(kind) is None:
            yield error(f"cluster '{cluster.name}' has no {kind.value} interface; feeds on it need one to "
                        f"{'read' if kind is InterfaceType.READONLY else 'write'} their data",
                        cluster.source.line)
    checked = (InterfaceType.READONLY, InterfaceType.WRITE, InterfaceType.WORKFLOW, InterfaceType.MESSAGING,
               InterfaceType.REGISTRY)
    for interface in cluster.interfaces:
        if interface.type not in checked:
            continue
        if interface.type is InterfaceType.WORKFLOW and interface.endpoint.strip() == "localoozie":
            continue
        if not has_uri_scheme(interface.endpoint):
            yield error(f"{interface.type.value} interface endpoint '{interface.endpoint}' of cluster "
                        f"'{cluster.name}' is not a URI with a scheme (e.g. hdfs://namenode:8020, file:///data)",
                        interface.line)


@rule("C9", EntityType.CLUSTER, "a staging location is defined")
def staging_location(context: RuleContext, cluster: Cluster) -> Iterator[Finding]:
    if cluster.location(ClusterLocationName.STAGING) is None:
        yield error(f"cluster '{cluster.name}' has no location named staging; it is mandatory",
                    cluster.source.line)


@rule("C12", EntityType.CLUSTER, "working and staging locations differ")
def working_differs_from_staging(context: RuleContext, cluster: Cluster) -> Iterator[Finding]:
    staging = cluster.location(ClusterLocationName.STAGING)
    working = cluster.location(ClusterLocationName.WORKING)
    if staging is not None and working is not None and \
            staging.path.rstrip("/") == working.path.rstrip("/"):
        yield error(f"locations staging and working of cluster '{cluster.name}' have the same path "
                    f"'{working.path}'; they must differ", working.line)


@rule("C14", EntityType.CLUSTER, "properties have names and values, each name once")
def cluster_properties(context: RuleContext, cluster: Cluster) -> Iterator[Finding]:
    yield from property_findings(cluster.properties, f"cluster '{cluster.name}'")


@rule("C15", EntityType.CLUSTER, "the spark interface names a Spark master falcon-airflow can use")
def spark_interface(context: RuleContext, cluster: Cluster) -> Iterator[Finding]:
    spark = cluster.interface(InterfaceType.SPARK)
    if spark is not None and not is_supported_spark_master(spark.endpoint):
        yield error(f"spark interface endpoint '{spark.endpoint}' of cluster '{cluster.name}' is not a Spark "
                    f"master falcon-airflow can submit to; use {SPARK_MASTER_HELP}", spark.line)


@rule(UNUSED_RULE, EntityType.CLUSTER, "an element falcon-airflow accepts but does not apply is named (warning)")
def cluster_elements_not_applied(context: RuleContext, cluster: Cluster) -> Iterator[Finding]:
    for location in cluster.locations:
        if location.name is ClusterLocationName.TEMP:
            yield warning("<location name=\"temp\"> is not applied: no falcon-airflow job reads or writes that "
                          "folder", location.line)
