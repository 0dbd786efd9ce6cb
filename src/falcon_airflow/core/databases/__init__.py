"""Databases that feeds import from and export to: the JDBC drivers we ship, JDBC URLs, the driver jar cache.

Standard library only: the compiler, validation and the CLI use it without Airflow or Spark.
"""
