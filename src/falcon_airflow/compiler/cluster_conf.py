"""What a cluster entity tells Spark: its metastore and its Hadoop/Hive client settings, as spark-submit conf.

A Falcon cluster carries its client configuration as properties; on Airflow they reach every job that runs
against the cluster:

* ``registry`` interface ``thrift://host:port`` -> ``spark.hadoop.hive.metastore.uris`` (jobs on table feeds);
* properties named like Hadoop or Hive settings (``fs.*``, ``dfs.*``, ``hadoop.*``, ``hive.*``, ``yarn.*``,
  ``mapreduce.*``, ``ipc.*``) -> ``spark.hadoop.<name>``, e.g. ``fs.s3a.endpoint`` for an S3-compatible store;
* properties named ``spark.*`` -> as they are.

Anything else (a property used in EL as ``${cluster.x}``) stays out of Spark. Settings a deployment keeps in its
own Hadoop configuration (``HADOOP_CONF_DIR``) need no property at all.
"""

from __future__ import annotations

from falcon_airflow.entities.cluster import Cluster, InterfaceType

HADOOP_PREFIXES = ("fs.", "dfs.", "hadoop.", "hive.", "yarn.", "mapreduce.", "ipc.")
METASTORE_CONF = "spark.hadoop.hive.metastore.uris"


def cluster_spark_conf(*clusters: Cluster | None, metastore: bool = False) -> dict[str, str]:
    """The Spark conf of the clusters a job touches, later ones winning (a replication's target runs it).
    ``metastore``: the job reads or writes catalog tables, so the cluster's registry becomes its metastore."""
    conf: dict[str, str] = {}
    for cluster in clusters:
        if cluster is None:
            continue
        for name, value in cluster.property_map.items():
            key = name.strip()
            if key.startswith("spark."):
                conf[key] = value
            elif key.startswith(HADOOP_PREFIXES):
                conf[f"spark.hadoop.{key}"] = value
        registry = cluster.interface(InterfaceType.REGISTRY)
        if metastore and registry is not None and registry.endpoint.strip().startswith("thrift://"):
            conf[METASTORE_CONF] = registry.endpoint.strip()
    return conf
