"""The modules a task process of ours imports before it runs: the loader, the DAG builder and the operators its DAG
file needs (whose Spark operator brings the Spark and OpenLineage providers).

Long-lived Airflow processes import them once, ahead of the task processes they fork
(:mod:`falcon_airflow.provider.preload`, called by the plugin). The provider is a layer below this package, so it
never names these modules: it reads this list through the ``falcon_airflow.task_modules`` entry point
(pyproject.toml), which points here.
"""

from __future__ import annotations

TASK_MODULES = (
    "falcon_airflow.dags.loader",
    "falcon_airflow.dags.shards",
    "falcon_airflow.dags.store_loader",
    "falcon_airflow.dags.builder",
    "falcon_airflow.dags.oozie",
    "falcon_airflow.dags.sla",
    "falcon_airflow.dags.transfer",
    "falcon_airflow.provider.operators.report",
)
"""In import order; a name that fails to import is logged and skipped."""
