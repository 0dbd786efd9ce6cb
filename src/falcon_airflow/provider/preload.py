"""Import, once per long-lived Airflow process, the modules every task process of ours needs to build its DAG.

A task process parses its DAG file before it runs: the loader, the DAG builder and our operators, whose Spark
operator imports the Spark provider and, through it, the OpenLineage provider's listener with its SQLAlchemy models
and client (0.3-1 s of imports on a 2-core machine, more than most tasks run). Task processes are forked, without
a new interpreter, from the executor's workers, and the LocalExecutor's workers from the scheduler: modules the
scheduler already holds cost a task nothing. The plugin calls ``preload_task_modules`` when Airflow loads it, which
the scheduler does as it starts, before its executor forks the workers.

``[falcon] preload_task_modules = False`` turns it off, for a process that must stay small.
"""

from __future__ import annotations

import importlib
import logging
import os

log = logging.getLogger(__name__)

TASK_MODULES = (
    "falcon_airflow.dags.loader",
    "falcon_airflow.dags.shards",
    "falcon_airflow.dags.builder",
    "falcon_airflow.dags.oozie",
    "falcon_airflow.dags.sla",
    "falcon_airflow.dags.transfer",
    "falcon_airflow.provider.operators.report",
)

_preloaded_in: int | None = None


def enabled() -> bool:
    from airflow.configuration import conf

    return conf.getboolean("falcon", "preload_task_modules", fallback=True)


def preload_task_modules() -> bool:
    """Import TASK_MODULES in this process, once; a module that fails to import is logged and left to the task
    that needs it (which then reports the error where it belongs). True when this call imported them."""
    global _preloaded_in
    if _preloaded_in == os.getpid() or not enabled():
        return False
    _preloaded_in = os.getpid()
    for name in TASK_MODULES:
        try:
            importlib.import_module(name)
        except Exception:  # preloading is an optimisation: never the reason a process fails to start
            log.warning("falcon-airflow: could not preload %s", name, exc_info=True)
    log.debug("falcon-airflow: task modules preloaded in process %d", os.getpid())
    return True
