"""falcon-airflow: Apache Falcon entities (cluster, feed, process, datasource) on Apache Airflow and Apache Spark.

The public facade is small on purpose:

* :func:`falcon_airflow.parsing.parse_file` turns one entity XML file into a typed entity;
* :func:`falcon_airflow.validation.validate_paths` validates a workspace of entity files and returns a report.

Nothing imported here pulls in Airflow or Spark.
"""

from __future__ import annotations

__version__ = "0.1.0"
