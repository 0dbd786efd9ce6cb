"""Import, once per long-lived Airflow process, the modules every task process of ours needs to build its DAG.

A task process parses its DAG file before it runs: the loader, the DAG builder and our operators, whose Spark
operator imports the Spark provider and, through it, the OpenLineage provider's listener with its SQLAlchemy models
and client (0.3-1 s of imports on a 2-core machine, more than most tasks run). Task processes are forked, without
a new interpreter, from the executor's workers, and the LocalExecutor's workers from the scheduler: modules the
scheduler already holds cost a task nothing. The plugin calls ``preload_task_modules`` when Airflow loads it, which
the scheduler does as it starts, before its executor forks the workers.

Which modules is not this layer's to say: most of them are the DAG builder's, a layer above the provider. The
list lives there (:mod:`falcon_airflow.dags.preload`) and reaches us as data, through the entry points of
:data:`ENTRY_POINT_GROUP` (pyproject.toml), each a sequence of module names.

``[falcon] preload_task_modules = False`` turns it off, for a process that must stay small.
"""

from __future__ import annotations

import importlib
import logging
import os
from importlib.metadata import entry_points

log = logging.getLogger(__name__)

ENTRY_POINT_GROUP = "falcon_airflow.task_modules"

_preloaded_in: int | None = None


def enabled() -> bool:
    from airflow.configuration import conf

    return conf.getboolean("falcon", "preload_task_modules", fallback=True)


def task_modules() -> tuple[str, ...]:
    """The module names the installed distributions register under :data:`ENTRY_POINT_GROUP`, in order, each once;
    an entry point that fails to load is logged and skipped."""
    names: list[str] = []
    for entry in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda item: item.name):
        try:
            names.extend(str(name) for name in entry.load())
        except Exception:  # preloading is an optimisation: never the reason a process fails to start
            log.warning("falcon-airflow: could not read the task modules of entry point %s", entry.value,
                        exc_info=True)
    return tuple(dict.fromkeys(names))


def preload_task_modules() -> bool:
    """Import :func:`task_modules` in this process, once; a module that fails to import is logged and left to the
    task that needs it (which then reports the error where it belongs). True when this call imported them."""
    global _preloaded_in
    if _preloaded_in == os.getpid() or not enabled():
        return False
    _preloaded_in = os.getpid()
    for name in task_modules():
        try:
            importlib.import_module(name)
        except Exception:  # preloading is an optimisation: never the reason a process fails to start
            log.warning("falcon-airflow: could not preload %s", name, exc_info=True)
    log.debug("falcon-airflow: task modules preloaded in process %d", os.getpid())
    return True
