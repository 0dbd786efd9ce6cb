"""A cluster entity's client settings and metastore as the Spark conf of the jobs that run against it."""

from __future__ import annotations

from falcon_airflow.compiler.cluster_conf import METASTORE_CONF, cluster_spark_conf
from falcon_airflow.entities.base import Property, SourceRef
from falcon_airflow.entities.cluster import Cluster, Interface, InterfaceType


def cluster(name: str, registry: str | None, **properties: str) -> Cluster:
    interfaces = [Interface(type=InterfaceType.WRITE, endpoint=f"hdfs://{name}:8020", version="3")]
    if registry:
        interfaces.append(Interface(type=InterfaceType.REGISTRY, endpoint=registry, version="2"))
    return Cluster(name=name, colo="here", interfaces=tuple(interfaces), locations=(),
                   source=SourceRef(file=f"{name}.xml"),
                   properties=tuple(Property(name=key, value=value) for key, value in properties.items()))


def test_hadoop_and_spark_properties_reach_spark_and_others_stay_out() -> None:
    conf = cluster_spark_conf(cluster("a", None, **{"fs.s3a.endpoint": "http://127.0.0.1:9000",
                                                     "dfs.client.use.datanode.hostname": "true",
                                                     "spark.executor.memory": "1g", "region": "eu"}))
    assert conf == {"spark.hadoop.fs.s3a.endpoint": "http://127.0.0.1:9000",
                    "spark.hadoop.dfs.client.use.datanode.hostname": "true", "spark.executor.memory": "1g"}


def test_the_registry_is_the_metastore_of_jobs_on_tables_only() -> None:
    source = cluster("a", "thrift://meta-a:9083")
    target = cluster("b", "thrift://meta-b:9083", **{"hive.metastore.client.socket.timeout": "60"})
    assert METASTORE_CONF not in cluster_spark_conf(source)
    conf = cluster_spark_conf(source, target, metastore=True)
    assert conf[METASTORE_CONF] == "thrift://meta-b:9083"  # the target runs a replication
    assert conf["spark.hadoop.hive.metastore.client.socket.timeout"] == "60"
    assert METASTORE_CONF not in cluster_spark_conf(cluster("c", "hcat://old:9083"), metastore=True)
