"""Import and export DAGs from their :class:`TransferDagSpec`.

Import DAG: import   (the run's feed instance read from the table, published, flagged)
Export DAG: wait_for_instance -> export
"""

from __future__ import annotations

from typing import Any

from airflow.sdk import DAG

from falcon_airflow.compiler.specs import TransferDagSpec
from falcon_airflow.compiler.templating import literal
from falcon_airflow.compiler.transfer import INSTANCE
from falcon_airflow.dags.plain import plain
from falcon_airflow.provider.assets import distinct_assets
from falcon_airflow.provider.instance_end import announce_instance_ends
from falcon_airflow.provider.operators.database import DatabaseTransferOperator
from falcon_airflow.provider.sensors.feed import FeedInstanceSensor


def _driver_jar(spec: TransferDagSpec) -> str | None:
    """The pinned driver jar in the local cache, as template text (``jars`` and ``conf`` are rendered)."""
    if spec.database.driver_artifact is None:
        return None
    from falcon_airflow.core.databases.jars import jar_path

    return literal(str(jar_path(spec.database.driver_artifact)))


def _assets(spec: TransferDagSpec) -> dict[str, Any]:
    """An import makes an instance of the feed's asset (its event announced); an export reads one."""
    assets = distinct_assets([spec.feed_binding])
    if spec.kind == "import":
        return {"outlets": assets, "announced_feed": spec.feed_binding.model_dump(mode="json"),
                "announced_operation": "IMPORT"}
    return {"inlets": assets}


def build_transfer_dag(spec: TransferDagSpec, *, timetable: Any, start_date: Any, default_args: dict[str, Any],
                       options: dict[str, Any], poke_seconds: int) -> DAG:
    falcon = {"feed": spec.feed_binding.model_dump(mode="json"), "filter": spec.filter or "",
              "timezone": spec.schedule.timezone, "properties": {}}
    dag = DAG(spec.dag_id, schedule=timetable, start_date=start_date, catchup=spec.schedule.catchup,
              max_active_runs=spec.max_active_runs, default_args=default_args, tags=list(spec.tags),
              doc_md=spec.doc_md, user_defined_macros={"falcon": falcon}, **options)
    job = spec.job
    jar = _driver_jar(spec)
    conf = dict(job.conf)
    if jar is not None:  # the driver connects from the Spark driver JVM too (bounds, staging table, transaction)
        conf.setdefault("spark.driver.extraClassPath", jar)
    with dag:
        task = DatabaseTransferOperator(
            task_id=spec.kind, database=spec.database.model_dump(mode="json"), application=job.application,
            name=job.name, master=job.master, deploy_mode=job.deploy_mode, conn_id=job.connection, conf=plain(conf),
            application_args=plain(list(job.arguments)), py_files=job.py_files, jars=plain(jar),
            yarn_queue=job.queue, proxy_user=plain(job.proxy_user), env_vars=dict(job.env) or None,
            falcon_lineage=spec,
            lineage_instance=f"{{{{ {INSTANCE} }}}}", **_assets(spec))
        if spec.kind == "export":
            wait = FeedInstanceSensor(
                task_id="wait_for_instance", input_name="instance", feed=spec.feed,
                markers=f"{{{{ macros.falcon.feed_marker(falcon.feed, {INSTANCE}) }}}}",
                timeout=spec.wait_timeout_seconds, poke_interval=poke_seconds, retries=0)
            wait >> task
    announce_instance_ends(dag, spec, task)
    return dag
