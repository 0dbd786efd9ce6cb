"""PySpark applications (retention, replication, late-data fingerprint, lineage driver, Oozie actions, database
import/export), each a ``spark-submit`` application.

The modules here import only pyspark, the standard library, :mod:`falcon_airflow.core` (the rules shared with the
Airflow side, shipped as a zip) and their siblings such as :mod:`falcon_airflow.jobs.common` (shipped with
``--py-files`` and imported as plain ``common`` when a job runs as a script).
"""
