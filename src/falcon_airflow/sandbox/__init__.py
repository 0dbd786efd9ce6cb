"""A local sandbox of the services Falcon users run on: two HDFS clusters, an S3-compatible store, a Hive
metastore and a Spark standalone cluster, all on 127.0.0.1 (``falcon-airflow sandbox up|down|status``).

It is what the integration tests and the DistCp benchmark run against; entities written against its endpoints
(``sandbox status``) run unchanged on a real estate with real endpoints.
"""

from __future__ import annotations

from falcon_airflow.sandbox.services import SandboxError
from falcon_airflow.sandbox.stack import Endpoints, HdfsEndpoint, S3Endpoint, Sandbox

__all__ = ["Endpoints", "HdfsEndpoint", "S3Endpoint", "Sandbox", "SandboxError"]
