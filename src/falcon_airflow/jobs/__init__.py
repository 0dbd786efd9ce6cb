"""PySpark lifecycle jobs (retention, replication, late-data fingerprint), each a ``spark-submit`` application.

The modules here import only pyspark, the standard library and :mod:`falcon_airflow.jobs.common` (shipped with
``--py-files`` and imported as plain ``common`` when a job runs as a script).
"""
