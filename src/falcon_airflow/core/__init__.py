"""The rules both sides need, with no third-party import: the Airflow side imports them and every Spark job gets
them shipped (the compiler lists this package in a job's ``--py-files``; the Spark hook sends it as a zip), so each
rule is written once. See docs/architecture.md.

``paths`` feed path templates; ``locations`` where one feed instance is; ``tables`` catalog table URIs; ``times``
instants, durations, time zones; ``naming`` OpenLineage dataset names; ``lineage`` the column-lineage vocabulary and
merge rule; ``partitions`` partition expressions; ``formats`` file formats; ``databases`` JDBC; ``errors`` what
they raise.
"""
