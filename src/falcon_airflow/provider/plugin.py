"""The Airflow plugin of falcon-airflow: the Falcon-frequency timetable, the ``macros.falcon`` namespace, the
instance-order priority strategies, a listener that keeps one OpenLineage START per deferrable task run, and
Falcon's REST server, which the api-server serves at ``/falcon`` (built on its first request, see
:mod:`falcon_airflow.provider.server_app`).

Registered through the ``airflow.plugins`` entry point, so the scheduler, dag-processor and workers load it from
the installed package (a custom timetable must be registered for the scheduler to deserialize DAGs using it).
"""

from __future__ import annotations

from airflow.plugins_manager import AirflowPlugin

from falcon_airflow.provider.listeners import lineage_runs
from falcon_airflow.provider.macros import MACROS
from falcon_airflow.provider.preload import preload_task_modules
from falcon_airflow.provider.scheduling.priority import NewestInstanceFirst, OldestInstanceFirst
from falcon_airflow.provider.scheduling.timetables import FalconFrequencyTimetable
from falcon_airflow.provider.server_app import URL_PREFIX, LazyApp


class FalconPlugin(AirflowPlugin):
    # Airflow reads these class-level lists; AirflowPlugin declares them as plain ``list[Any]`` attributes, so a
    # ``ClassVar`` annotation here would conflict with the base class (mypy: cannot override with a class variable).
    name = "falcon"
    timetables = [FalconFrequencyTimetable]  # noqa: RUF012
    macros = MACROS
    priority_weight_strategies = [OldestInstanceFirst, NewestInstanceFirst]  # noqa: RUF012
    listeners = [lineage_runs]  # noqa: RUF012
    fastapi_apps = [{"app": LazyApp(), "url_prefix": URL_PREFIX, "name": "Falcon"}]  # noqa: RUF012
    # Falcon's console: an entry "Falcon" in Airflow's navigation, its page served by the app above and shown in
    # Airflow's iframe (docs/console.md)
    external_views = [{"name": "Falcon", "href": f"{URL_PREFIX}/console/", "destination": "nav",  # noqa: RUF012
                       "url_route": "falcon", "category": "Falcon", "nav_top_level": True}]

    @classmethod
    def on_load(cls, *args: object, **kwargs: object) -> None:
        # The LocalExecutor's workers are forked from the scheduler, and task processes from them: what the
        # scheduler imports here, each task has already (see falcon_airflow.provider.preload).
        preload_task_modules()
