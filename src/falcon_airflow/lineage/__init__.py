"""OpenLineage for Falcon entities: dataset names, facets, the events of our tasks and queries over them.

* :mod:`~falcon_airflow.core.naming` - OpenLineage dataset names of feed instances (``file``, ``hdfs://``,
  ``s3://``, ``hive://``) and the logical name of a feed (``falcon://<cluster>`` / ``<feed>``);
* :mod:`~falcon_airflow.lineage.facets` - builders of the facets our tasks report (openlineage-python classes);
* :mod:`~falcon_airflow.lineage.datasets` - the input and output datasets of a process instance, a retention and
  a replication run;
* :mod:`~falcon_airflow.lineage.schema` - a feed's declared schema, when it can be read;
* :mod:`~falcon_airflow.lineage.events` - reading event logs (JSON lines) and a Marquez-compatible API;
* :mod:`~falcon_airflow.lineage.query` and :mod:`~falcon_airflow.lineage.graph` - ``falcon-airflow lineage``.

Nothing here imports Airflow or Spark; the Airflow side is :mod:`falcon_airflow.provider.openlineage`. The naming,
schema, events, query and graph modules need only the standard library, so the queries run anywhere.
"""
