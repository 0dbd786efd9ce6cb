"""DagSpec to Airflow DAG: mechanical, every decision is already in the spec.

Process DAG:   wait_for_<input>... -> [last_only] -> [workflow_slot] -> clear_outputs -> workflow
               -> mark_outputs_available -> [late_data]   (workflow_slot: before an Oozie workflow's task group)
Retention DAG: retention
Replication DAG: wait_for_source -> replicate
Import DAG: import; export DAG: wait_for_instance -> export (see dags/transfer.py)
Extension job DAG: mirror
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from itertools import pairwise
from typing import Any

from airflow.sdk import DAG

from falcon_airflow.compiler.specs import (
    DagSpec,
    ExtensionDagSpec,
    LateDataSpec,
    ProcessDagSpec,
    ReplicationDagSpec,
    RetentionDagSpec,
    SlaDagSpec,
    SparkJob,
    TransferDagSpec,
)
from falcon_airflow.compiler.templating import jinja_string
from falcon_airflow.dags.plain import plain
from falcon_airflow.provider.assets import distinct_assets
from falcon_airflow.provider.instance_end import announce_instance_ends
from falcon_airflow.provider.operators.late_data import LateDataOperator
from falcon_airflow.provider.operators.ordering import LastOnlyOperator
from falcon_airflow.provider.operators.outputs import ClearOutputsOperator, MarkOutputsAvailableOperator
from falcon_airflow.provider.operators.rerun import WorkflowRetryOperator
from falcon_airflow.provider.operators.spark import FalconSparkSubmitOperator
from falcon_airflow.provider.operators.workflow_slot import WorkflowSlotOperator
from falcon_airflow.provider.scheduling.priority import NewestInstanceFirst
from falcon_airflow.provider.scheduling.retry import FalconRetryPolicy
from falcon_airflow.provider.scheduling.timetables import FalconFrequencyTimetable
from falcon_airflow.provider.sensors.feed import FeedInstanceSensor
from falcon_airflow.timekeeping import Frequency, format_falcon_date, parse_falcon_date

POKE_SECONDS_MAX = 60
PROCESS_INSTANCE = "{{ macros.falcon.instance(dag_run).isoformat() }}"
"""The instance a process run works on, for its lineage."""


def _timetable(spec: DagSpec, entity: str) -> FalconFrequencyTimetable:
    schedule = spec.schedule
    return FalconFrequencyTimetable(start=schedule.start, end=schedule.end, frequency=schedule.frequency,
                                    timezone=schedule.timezone, entity=entity)


def _start_date(spec: DagSpec) -> datetime:
    """The validity start: Airflow wants it for catch-up; the timetable never runs before it anyway."""
    return parse_falcon_date(spec.schedule.start)


@dataclass(frozen=True)
class DeploymentSettings:
    """The configuration every DAG of a parse depends on, read once per parse. Airflow's DAG would read its three
    defaults from the configuration again for each DAG, which at 10,000 DAGs is a noticeable part of a parse; the
    values passed are the same ones it would read."""

    group_roles: bool
    keep_instances_beyond_validity: bool
    max_active_tasks: int
    max_consecutive_failed_dag_runs: int
    disable_bundle_versioning: bool
    default_job_user: str | None = None
    """``[falcon] default_job_user``: who the jobs of an entity with neither a recorded ``-doAs`` user nor an ACL
    owner run as (unset: the deployment's own identity)."""
    workflow_slot_poke_seconds: int = 10
    """``[falcon] workflow_slot_poke_seconds``: how often a waiting Oozie process instance asks for a slot."""

    @classmethod
    def from_config(cls) -> DeploymentSettings:
        from airflow.sdk.configuration import conf

        return cls(group_roles=_group_roles_enabled(), keep_instances_beyond_validity=keep_instances_beyond_validity(),
                   max_active_tasks=conf.getint("core", "max_active_tasks_per_dag"),
                   max_consecutive_failed_dag_runs=conf.getint("core", "max_consecutive_failed_dag_runs_per_dag"),
                   disable_bundle_versioning=conf.getboolean("dag_processor", "disable_bundle_versioning"),
                   default_job_user=default_job_user(),
                   workflow_slot_poke_seconds=max(1, conf.getint("falcon", "workflow_slot_poke_seconds",
                                                                 fallback=10)))


def default_job_user() -> str | None:
    """``[falcon] default_job_user``, when it names a user (anything else is ignored with a warning: the setting
    is the deployment's, and a name a job cannot run as must not reach spark-submit)."""
    from airflow.configuration import conf

    from falcon_airflow.core.identity import is_user_name

    value = (conf.get("falcon", "default_job_user", fallback="") or "").strip()
    if value and not is_user_name(value):
        import logging

        logging.getLogger("falcon_airflow.dags").warning("[falcon] default_job_user %r is not a user name; ignored",
                                                         value)
        return None
    return value or None


def _dag_options(spec: DagSpec, settings: DeploymentSettings) -> dict[str, Any]:
    """DAG arguments that depend on the store's records and on the deployment, not on the schedule."""
    options: dict[str, Any] = {"max_active_tasks": settings.max_active_tasks,
                               "max_consecutive_failed_dag_runs": settings.max_consecutive_failed_dag_runs,
                               "disable_bundle_versioning": settings.disable_bundle_versioning}
    # Only a recorded schedule state overrides [core] dags_are_paused_at_creation; it matters for new DAGs only
    # (a new cluster of a scheduled entity, or a store whose database was reset): existing DAGs keep their state.
    if spec.paused_upon_creation is not None:
        options["is_paused_upon_creation"] = spec.paused_upon_creation
    access = access_control(spec, enabled=settings.group_roles)
    if access is not None:
        options["access_control"] = access
    return options


def _group_roles_enabled() -> bool:
    # DAG-level access needs an auth manager with roles (FAB); it refuses a DAG that names a role it does not
    # have, so the mapping is switched on by [falcon] dag_access_control once the ACL groups exist as roles.
    try:
        from airflow.configuration import conf

        return (conf.getboolean("falcon", "dag_access_control", fallback=False)
                and "FabAuthManager" in conf.get("core", "auth_manager", fallback=""))
    except Exception:
        return False


def access_control(spec: DagSpec, *, enabled: bool | None = None) -> dict[str, dict[str, set[str]]] | None:
    """The entity ACL's group as an Airflow role with the DAG rights its permission grants (``None``: no mapping)."""
    if spec.group_access is None or not (_group_roles_enabled() if enabled is None else enabled):
        return None
    access = spec.group_access
    dags = ({"can_read"} if access.can_read else set()) | ({"can_edit"} if access.can_edit else set())
    # FAB takes no can_edit on a DAG's runs (it refuses the whole map): changing a run (mark failed, clear) is
    # allowed by can_edit on the DAG together with the role's global edit right on DAG Runs / Task Instances.
    runs = ({"can_read"} if access.can_read else set()) | ({"can_create", "can_delete"} if access.can_edit else set())
    rights = {resource: actions for resource, actions in (("DAGs", dags), ("DAG Runs", runs)) if actions}
    return {access.group: rights} if rights else None


def _default_args(spec: DagSpec) -> dict[str, Any]:
    arguments: dict[str, Any] = {"owner": spec.owner, "retries": 0}
    retry = getattr(spec, "retry", None)  # an SLA monitor does not retry: a miss is a miss
    if isinstance(spec, ProcessDagSpec) and spec.oozie is not None:
        retry = None  # an Oozie workflow is retried as a whole (workflow_retry), its actions by their retry-max
    if retry is not None:
        arguments.update(retries=retry.attempts, retry_delay=timedelta(seconds=retry.delay_seconds),
                         retry_policy=FalconRetryPolicy(retry.policy, retry.delay_seconds))
    if isinstance(spec, (ProcessDagSpec, ExtensionDagSpec)) and spec.emails:
        # The instance's own mail (provider.instance_end) tells of its failure; Airflow's mails only each retry.
        on_retry = spec.email_on_attempt if isinstance(spec, ProcessDagSpec) else False
        arguments.update(email=list(spec.emails), email_on_failure=False, email_on_retry=on_retry)
    return arguments


def _spark_task(task_id: str, job: SparkJob, **extra: Any) -> FalconSparkSubmitOperator:
    arguments = dict(
        task_id=task_id, application=job.application, java_class=job.java_class, name=job.name,
        master=job.master, deploy_mode=job.deploy_mode, conn_id=job.connection, conf=dict(job.conf),
        application_args=list(job.arguments), py_files=job.py_files, jars=job.jars, files=job.files,
        packages=job.packages, driver_memory=job.driver_memory, executor_memory=job.executor_memory,
        executor_cores=job.executor_cores, num_executors=job.num_executors,
        total_executor_cores=job.total_executor_cores, yarn_queue=job.queue, proxy_user=job.proxy_user,
        env_vars=dict(job.env) or None)
    return FalconSparkSubmitOperator(**plain(arguments), lineage_events=job.lineage_events, **extra)


def _late_data_task(late: LateDataSpec, outputs: list[dict[str, Any]], **extra: Any) -> LateDataOperator:
    """The ``late_data`` task: watches the inputs until the cut-off and reruns ``late.rerun`` when they change."""
    return LateDataOperator(
        task_id="late_data", inputs=[item.model_dump(mode="json") for item in late.inputs],
        cut_off_seconds=list(late.cut_off_seconds), policy=late.policy, delay_seconds=late.delay_seconds,
        rerun_job=plain(late.rerun.model_dump()) if late.rerun is not None else None, outputs=outputs, retries=0,
        **extra)


def _instance_order(order: str | None) -> dict[str, Any]:
    """The arguments that give a task of a ``parallel``-limited step Falcon's instance order. FIFO is Airflow's own:
    task instances of equal weight are queued oldest logical date first, and a run's logical date is its instance;
    a weight of our own there would also rank the step above every other task of the deployment. LIFO needs one."""
    return {"weight_rule": NewestInstanceFirst()} if order == "LIFO" else {}


def _input_markers(name: str) -> str:
    """The template of what an input waits for; its name goes in as a Jinja string literal."""
    return f"{{{{ macros.falcon.input_markers(falcon.inputs[{jinja_string(name)}], dag_run) }}}}"


def _poke_seconds(timeout: int) -> int:
    return max(5, min(POKE_SECONDS_MAX, timeout // 20))


def build_process_dag(spec: ProcessDagSpec, settings: DeploymentSettings | None = None) -> DAG:
    settings = settings or DeploymentSettings.from_config()
    falcon = {"entity": spec.source.name, "cluster": spec.cluster, "timezone": spec.schedule.timezone,
              "inputs": {item.name: item.model_dump(mode="json") for item in spec.inputs},
              "outputs": {item.name: item.model_dump(mode="json") for item in spec.outputs},
              "properties": dict(spec.properties), "empty_dir": spec.empty_dir,
              "workflow": dict(spec.workflow_conf), "cluster_settings": dict(spec.cluster_conf)}
    order = _instance_order(spec.order)
    dag = DAG(spec.dag_id, schedule=_timetable(spec, spec.source.name), start_date=_start_date(spec),
              catchup=spec.schedule.catchup, max_active_runs=spec.max_active_runs, default_args=_default_args(spec),
              tags=list(spec.tags), doc_md=spec.doc_md, user_defined_macros={"falcon": falcon},
              render_template_as_native_obj=False,
              **_dag_options(spec, settings))
    with dag:
        sensors = [
            FeedInstanceSensor(
                task_id=f"wait_for_{item.name}", input_name=item.name, feed=item.feed.feed,
                markers=_input_markers(item.name), storage_settings=item.feed.storage_settings,
                timeout=spec.input_timeout_seconds, poke_interval=_poke_seconds(spec.input_timeout_seconds),
                retry_on_timeout=bool(spec.retry and spec.retry.on_timeout),
                retries=spec.retry.attempts if spec.retry and spec.retry.on_timeout else 0, run_as=spec.run_as,
                doc_md=f"Waits for feed `{item.feed.feed}` instances {item.start} .. {item.end}.")
            for item in spec.inputs if not item.optional]
        chain: list[Any] = []
        if spec.order == "LAST_ONLY":
            chain.append(LastOnlyOperator(task_id="last_only", schedule=spec.schedule.model_dump(), retries=0))
        outputs = [item.model_dump(mode="json") for item in spec.outputs]
        if spec.oozie is not None:  # at most `parallel` runs inside the workflow group, taken in the entity's order
            from falcon_airflow.dags.oozie import end_task_id

            chain.append(WorkflowSlotOperator(
                task_id="workflow_slot", parallel=spec.parallel, order=spec.order, end_task_id=end_task_id(spec),
                poke_seconds=settings.workflow_slot_poke_seconds, retries=0, **order,
                doc_md=f"Waits until fewer than {spec.parallel} instance(s) run their workflow and no waiting "
                       f"instance goes first ({spec.order})."))
        if outputs:
            chain.append(ClearOutputsOperator(task_id="clear_outputs", outputs=outputs, run_as=spec.run_as,
                                              retries=0))
        if spec.oozie is not None:  # the Oozie workflow, node by node, in a task group
            from falcon_airflow.dags.oozie import build_workflow_group

            chain.append(build_workflow_group(spec))
        else:
            assert spec.job is not None
            chain.append(_spark_task("workflow", spec.job, max_active_tis_per_dag=spec.parallel,
                                     **order, falcon_lineage=spec, lineage_instance=PROCESS_INSTANCE,
                                     inlets=distinct_assets(item.feed for item in spec.inputs)))
        if outputs:
            chain.append(MarkOutputsAvailableOperator(
                task_id="mark_outputs_available", outputs=outputs, entity=spec.source.name, run_as=spec.run_as,
                outlets=distinct_assets(item.feed for item in spec.outputs)))
        if spec.late is not None:
            chain.append(_late_data_task(spec.late, outputs, falcon_lineage=spec))
        for upstream, downstream in pairwise(chain):
            _ends(upstream)[1] >> _ends(downstream)[0]
        for sensor in sensors:
            sensor >> _ends(chain[0])[0]
        if spec.oozie is not None and spec.retry is not None:
            from falcon_airflow.dags.oozie import exit_task_ids

            retry = WorkflowRetryOperator(task_id="workflow_retry", policy=spec.retry.policy,
                                          delay_seconds=spec.retry.delay_seconds, attempts=spec.retry.attempts,
                                          doc_md=f"Runs the instance again when its workflow failed: Falcon's "
                                                 f"{spec.retry.policy} retry, {spec.retry.attempts} time(s).")
            for task_id in exit_task_ids(spec):
                dag.get_task(task_id) >> retry
    announce_instance_ends(dag, spec, _ends(chain[-2] if spec.late is not None else chain[-1])[1])
    return dag


def _ends(step: Any) -> tuple[Any, Any]:
    """A step of the process chain: one task, or a (first, last) pair of a task group."""
    return step if isinstance(step, tuple) else (step, step)


def keep_instances_beyond_validity() -> bool:
    """``[falcon] retention_keep_instances_beyond_validity`` (Falcon's runtime property
    ``falcon.retention.keep.instances.beyond.validity``), default true."""
    try:
        from airflow.configuration import conf

        return bool(conf.getboolean("falcon", "retention_keep_instances_beyond_validity", fallback=True))
    except Exception:
        return True


def retention_timetable(spec: RetentionDagSpec, *, keep_beyond_validity: bool) -> FalconFrequencyTimetable:
    """Retention runs until the feed's validity end on the cluster, as Falcon's retention coordinator did, so the
    instances of the validity's last retention limit are kept for good; when they must not be, it runs on for one
    retention limit more (months counted as 31 days, as Falcon's limit in seconds did) and evicts them too."""
    schedule = spec.schedule
    end = schedule.end
    if not keep_beyond_validity:
        extra = timedelta(milliseconds=Frequency.parse(spec.limit).millis)
        end = format_falcon_date(parse_falcon_date(end) + extra)
    return FalconFrequencyTimetable(start=schedule.start, end=end, frequency=schedule.frequency,
                                    timezone=schedule.timezone, entity=spec.feed)


def build_retention_dag(spec: RetentionDagSpec, settings: DeploymentSettings | None = None) -> DAG:
    settings = settings or DeploymentSettings.from_config()
    timetable = retention_timetable(spec, keep_beyond_validity=settings.keep_instances_beyond_validity)
    dag = DAG(spec.dag_id, schedule=timetable, start_date=_start_date(spec), catchup=False,
              max_active_runs=1, default_args=_default_args(spec), tags=list(spec.tags), doc_md=spec.doc_md,
              **_dag_options(spec, settings))
    with dag:
        _spark_task("retention", spec.job, falcon_lineage=spec)
    announce_instance_ends(dag, spec, "retention")
    return dag


def build_replication_dag(spec: ReplicationDagSpec, settings: DeploymentSettings | None = None) -> DAG:
    settings = settings or DeploymentSettings.from_config()
    falcon = {"source": spec.source_feed.model_dump(mode="json"), "target": spec.target_feed.model_dump(mode="json")}
    order = _instance_order(spec.order)
    dag = DAG(spec.dag_id, schedule=_timetable(spec, spec.feed), start_date=_start_date(spec),
              catchup=spec.schedule.catchup, max_active_runs=spec.max_active_runs, default_args=_default_args(spec),
              tags=list(spec.tags), doc_md=spec.doc_md, user_defined_macros={"falcon": falcon},
              **_dag_options(spec, settings))
    instance = f"macros.falcon.replicated_instance(falcon.source, dag_run, {spec.delay_minutes})"
    with dag:
        wait = FeedInstanceSensor(
            task_id="wait_for_source", input_name="source", feed=spec.feed,
            markers=f"{{{{ macros.falcon.feed_marker(falcon.source, {instance}) }}}}",
            storage_settings=spec.source_feed.storage_settings, timeout=spec.wait_timeout_seconds,
            poke_interval=_poke_seconds(spec.wait_timeout_seconds), retries=0, run_as=spec.run_as)
        steps: list[Any] = [wait]
        if spec.order == "LAST_ONLY":
            steps.append(LastOnlyOperator(task_id="last_only", schedule=spec.schedule.model_dump(), retries=0))
        steps.append(_spark_task("replicate", spec.job, max_active_tis_per_dag=spec.parallel, **order,
                                 falcon_lineage=spec, lineage_instance=f"{{{{ {instance} }}}}",
                                 inlets=distinct_assets([spec.source_feed]),
                                 outlets=distinct_assets([spec.target_feed]),
                                 announced_feed=spec.target_feed.model_dump(mode="json")))
        if spec.late is not None:  # the source instance changed before the cut-off: replicate it again
            steps.append(_late_data_task(spec.late, []))
        for upstream, downstream in pairwise(steps):
            upstream >> downstream
    announce_instance_ends(dag, spec, "replicate")
    return dag


def build_extension_dag(spec: ExtensionDagSpec, settings: DeploymentSettings | None = None) -> DAG:
    """One run per job instance, one at a time and in order: a mirror run builds on the one before (the last
    replicated snapshot, the target's current state)."""
    settings = settings or DeploymentSettings.from_config()
    dag = DAG(spec.dag_id, schedule=_timetable(spec, spec.job_name), start_date=_start_date(spec),
              catchup=spec.schedule.catchup, max_active_runs=1, default_args=_default_args(spec),
              tags=list(spec.tags), doc_md=spec.doc_md, **_dag_options(spec, settings))
    with dag:
        _spark_task("mirror", spec.job, falcon_lineage=spec, lineage_instance=PROCESS_INSTANCE,
                    depends_on_past=spec.extension == "hdfs-snapshot-mirroring")
    announce_instance_ends(dag, spec, "mirror")
    return dag


def build_dag(spec: DagSpec, settings: DeploymentSettings | None = None) -> DAG:
    """The DAG of ``spec``; ``settings`` read from the configuration when not given (a parse reads them once)."""
    settings = settings or DeploymentSettings.from_config()
    if spec.run_as is None and settings.default_job_user:
        from falcon_airflow.compiler.identity import with_identity

        spec = with_identity(spec, settings.default_job_user)
    if isinstance(spec, ExtensionDagSpec):
        return build_extension_dag(spec, settings)
    if isinstance(spec, TransferDagSpec):
        from falcon_airflow.dags.transfer import build_transfer_dag

        return build_transfer_dag(spec, timetable=_timetable(spec, spec.feed), start_date=_start_date(spec),
                                  default_args=_default_args(spec), options=_dag_options(spec, settings),
                                  poke_seconds=_poke_seconds(spec.wait_timeout_seconds or 1800))
    if isinstance(spec, ProcessDagSpec):
        return build_process_dag(spec, settings)
    if isinstance(spec, RetentionDagSpec):
        return build_retention_dag(spec, settings)
    if isinstance(spec, SlaDagSpec):
        from falcon_airflow.dags.sla import build_sla_dag

        return build_sla_dag(spec, timetable=_timetable(spec, spec.source.name), start_date=_start_date(spec),
                             default_args=_default_args(spec), options=_dag_options(spec, settings))
    return build_replication_dag(spec, settings)
