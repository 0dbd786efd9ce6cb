"""PySpark applications (retention, replication, late-data fingerprint, lineage driver, Oozie actions, database
import/export), each a ``spark-submit`` application.

The modules here import only pyspark, the standard library, :mod:`falcon_airflow.core` (the rules shared with the
Airflow side) and each other. spark-submit gets the jobs and core packages as one zip with ``--py-files`` (built once,
named by its content: :mod:`falcon_airflow.provider.hooks.archives`) and runs a small entry script of ``entry/``.

What the jobs share: ``frame`` (errors, arguments, exit codes, the JSON summary and report, the Spark session),
``uris`` (URIs, safe paths, include globs), ``filesystem`` (Hadoop ``FileSystem`` through the Spark JVM),
``catalog`` (table URIs in SQL, ``DESCRIBE`` of tables and partitions), ``staging`` (staging that belongs to one run),
``jdbc`` (database connections and credentials).
"""
