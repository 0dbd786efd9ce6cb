"""``entity``: Falcon's entity operations on the store and on Airflow's DAGs.

The actions are declared in :mod:`falcon_airflow.operate.declarations.entity`; they live by what they do:

* :mod:`~falcon_airflow.operate.entity_changes` - submit, validate, schedule, suspend, resume, delete, update, touch,
  updateClusterDependents;
* :mod:`~falcon_airflow.operate.entity_queries` - status, definition, list, dependency, summary
  (:mod:`~falcon_airflow.operate.lookup` and :mod:`~falcon_airflow.operate.sla_alert`: lookup and slaAlert);
* :mod:`~falcon_airflow.operate.entity_steps` - the journaled steps of the multi-step actions;
* :mod:`~falcon_airflow.operate.dag_control` - the entity's DAGs in Airflow.
"""

from __future__ import annotations

from falcon_airflow.operate.context import Context
from falcon_airflow.operate.entity_steps import ACTIONS
from falcon_airflow.operate.options import Options
from falcon_airflow.operate.outcomes import Outcome

__all__ = ["ACTIONS", "handle"]


def handle(context: Context, options: Options) -> Outcome:
    """Run the entity action ``options`` names (as the declarations dispatch it)."""
    from falcon_airflow.operate.execution import dispatch

    return dispatch(context, options)
