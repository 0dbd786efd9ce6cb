"""An SLA monitor DAG (:class:`~falcon_airflow.compiler.specs.SlaDagSpec`): per instance, the Low check and the
High check, each followed by its alert, which runs only when the check was skipped (missed)::

    low_check ──▶ missed_<low>
        └─(all done)─▶ high_check ──▶ missed_<high>

A declared SLA without the other (a process with only ``shouldEndIn``) has one check.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from airflow.sdk import DAG

from falcon_airflow.compiler.specs import SlaDagSpec
from falcon_airflow.provider.operators.sla import SlaMissOperator
from falcon_airflow.provider.scheduling.timetables import FalconFrequencyTimetable
from falcon_airflow.provider.sensors.sla import FeedSlaSensor, ProcessSlaSensor

POKE_SECONDS = 60
PROCESS_CHECKS = {"shouldStartIn": "start", "shouldEndIn": "end"}


def _limit(seconds: int) -> str:
    minutes = seconds // 60
    for unit, size in (("days", 1440), ("hours", 60)):
        if minutes and minutes % size == 0:
            return f"{unit}({minutes // size})"
    return f"minutes({minutes})"


def _deadline(seconds: int) -> str:
    """The check's deadline as a template: the run's instance (nominal time) + the SLA."""
    return f"{{{{ macros.falcon.nominal_deadline(dag_run, {seconds}) }}}}"


def build_sla_dag(spec: SlaDagSpec, *, timetable: FalconFrequencyTimetable, start_date: datetime,
                  default_args: dict[str, Any], options: dict[str, Any]) -> DAG:
    falcon = {"feed": spec.feed_binding.model_dump(mode="json")} if spec.feed_binding is not None else {}
    dag = DAG(spec.dag_id, schedule=timetable, start_date=start_date, catchup=False, max_active_runs=16,
              default_args=default_args, tags=list(spec.tags), doc_md=spec.doc_md,
              user_defined_macros={"falcon": falcon}, **options)
    checks = [(name, seconds) for name, seconds in ((spec.low, spec.low_seconds), (spec.high, spec.high_seconds))
              if name is not None and seconds is not None]
    entity_type = spec.source.type.upper()
    with dag:
        previous = None
        for name, seconds in checks:
            deadline = _deadline(seconds)
            check: Any
            if spec.feed_binding is not None:
                check = FeedSlaSensor(
                    task_id=f"within_{name}", input_name=name, feed=spec.source.name, sla=name, deadline=deadline,
                    markers="{{ macros.falcon.feed_marker(falcon.feed, macros.falcon.instance(dag_run)) }}",
                    timeout=seconds, poke_interval=POKE_SECONDS, retries=0,
                    doc_md=f"Is the instance available by nominal time + {name} {_limit(seconds)}?")
            else:
                assert spec.process_dag_id is not None
                check = ProcessSlaSensor(
                    task_id=f"within_{name}", process_dag_id=spec.process_dag_id, check=PROCESS_CHECKS[name],
                    sla=name, deadline=deadline, poke_interval=POKE_SECONDS, retries=0,
                    doc_md=f"Has the instance's work {PROCESS_CHECKS[name]}ed by nominal time + {name} "
                           f"{_limit(seconds)}?")
            alert = SlaMissOperator(
                task_id=f"missed_{name}", entity=spec.source.name, entity_type=entity_type, cluster=spec.cluster,
                sla=name, limit=_limit(seconds), deadline=deadline, owner_name=spec.owner, emails=spec.emails,
                broker_url=spec.messaging.broker_url if spec.messaging else "",
                broker_ttl_minutes=spec.messaging.ttl_minutes if spec.messaging else 0,
                trigger_rule="all_skipped", retries=0, execution_timeout=timedelta(minutes=5))
            check >> alert
            if previous is not None:
                check.trigger_rule = "all_done"
                previous >> check
            previous = check
    return dag
