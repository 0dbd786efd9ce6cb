"""The main files spark-submit runs: one small script a job, which imports the job from the jobs package (the zip
of ``falcon_airflow.jobs`` and ``falcon_airflow.core`` that ``--py-files`` ships, see
:func:`falcon_airflow.compiler.common.job_py_files`). ``hive_script.py`` is whole here: it needs nothing but pyspark.
"""
