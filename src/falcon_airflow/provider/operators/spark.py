"""Running a Falcon workflow or one of our lifecycle jobs with spark-submit, and reporting its lineage."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from airflow.providers.apache.spark.operators.spark_submit import SparkSubmitOperator

from falcon_airflow.compiler.specs import DagSpec
from falcon_airflow.provider.hooks.spark import FalconSparkSubmitHook


class FalconSparkSubmitOperator(SparkSubmitOperator):
    """``SparkSubmitOperator`` with the entity's master as default (see :class:`FalconSparkSubmitHook`).

    When the application is given ``--report PATH`` (our lifecycle jobs), the JSON report it writes is read back
    and returned, so it lands in XCom and lineage can use it.

    Lineage (OpenLineage provider): ``falcon_lineage`` is the DagSpec of the task's DAG; with it the task reports
    the feed instances it reads and writes (a process instance, a replication) or evicts (retention), see
    :mod:`falcon_airflow.lineage.datasets`. ``lineage_instance`` (templated) is the instance the run works on.
    ``lineage_events`` (templated) is set when the application runs under the column-lineage driver: the file of
    OpenLineage events it writes, which the task then forwards to the provider's transport; the Spark run gets
    the task as its parent (``spark.openlineage.parent*`` conf). Lineage never fails the task.
    """

    template_fields: Sequence[str] = (*SparkSubmitOperator.template_fields, "lineage_instance", "lineage_events")

    def __init__(self, *, master: str, deploy_mode: str | None = None, falcon_lineage: DagSpec | None = None,
                 lineage_instance: str | None = None, lineage_events: str | None = None,
                 announced_feed: dict[str, Any] | None = None, announced_operation: str = "REPLICATE",
                 **kwargs: Any) -> None:
        if lineage_events:  # the Spark run is the task's child; its events reach the transport through the task
            kwargs.setdefault("openlineage_inject_parent_job_info", True)
            kwargs["openlineage_inject_transport_info"] = False
        super().__init__(**kwargs)
        self.master = master
        self.falcon_deploy_mode = deploy_mode
        self.falcon_lineage = falcon_lineage
        self.lineage_instance = lineage_instance
        self.lineage_events = lineage_events
        self.announced_feed = announced_feed
        """The feed binding whose instance ``lineage_instance`` the job makes (a replica, an import): announced as
        the event of the task's outlet asset, with Falcon's ``announced_operation``."""
        self.announced_operation = announced_operation
        self._falcon_report: dict[str, Any] | None = None

    def _get_hook(self) -> FalconSparkSubmitHook:
        hook = self._build_hook()
        if hook._is_yarn_cluster_mode:
            self._track_yarn_cluster_mode(hook)
        return hook

    def _track_yarn_cluster_mode(self, hook: FalconSparkSubmitHook) -> None:
        """YARN cluster mode, where the driver runs in YARN. With the ResourceManager's web address in the
        cluster's Spark connection (extra ``yarn_resourcemanager_webapp_address``) the task follows the application
        through the ResourceManager's REST API and a retried task finds the application again instead of
        submitting it twice; without it, spark-submit waits for the application to end, as Falcon's Spark
        action did, and a retry submits it again."""
        try:
            hook._get_yarn_rm_base_url()
        except ValueError:
            self.durable = False
            self.log.info("YARN cluster mode without the ResourceManager's web address in connection %r: "
                          "spark-submit waits for the application", self._conn_id)
            return
        self._yarn_track_via_rm_api = hook._yarn_track_via_rm_api = True

    def _build_hook(self) -> FalconSparkSubmitHook:
        return FalconSparkSubmitHook(
            default_master=self.master, default_deploy_mode=self.falcon_deploy_mode, conf=self.conf,
            conn_id=self._conn_id, files=self.files, py_files=self.py_files, archives=self._archives,
            driver_class_path=self.driver_class_path, jars=self.jars, java_class=self._java_class,
            packages=self.packages, exclude_packages=self.exclude_packages, repositories=self._repositories,
            total_executor_cores=self._total_executor_cores, executor_cores=self._executor_cores,
            executor_memory=self._executor_memory, driver_memory=self._driver_memory, keytab=self.keytab,
            principal=self.principal, proxy_user=self.proxy_user, name=self.name,
            num_executors=self._num_executors, status_poll_interval=self._status_poll_interval,
            application_args=self.application_args, env_vars=self.env_vars, verbose=self._verbose,
            spark_binary=self._spark_binary, properties_file=self.properties_file, yarn_queue=self._yarn_queue,
            deploy_mode=self._deploy_mode, use_krb5ccache=self._use_krb5ccache,
            post_submit_commands=self.post_submit_commands,
        )

    def execute(self, context: Any) -> Any:
        events = Path(self.lineage_events) if self.lineage_events else None
        if events is not None:
            events.unlink(missing_ok=True)  # a retry's events, not the previous try's
        try:
            super().execute(context)
        finally:
            if events is not None:
                self._forward_lineage_events(events)
        self._falcon_report = self.read_report()
        if self.announced_feed is not None and self.lineage_instance:
            self._announce_instance(context)
        return self._falcon_report

    def _announce_instance(self, context: Any) -> None:
        from falcon_airflow.instances.bindings import FeedBinding
        from falcon_airflow.provider.assets import announce_instances
        from falcon_airflow.provider.macros import instance

        target = FeedBinding.model_validate(self.announced_feed)
        moment = instance(str(self.lineage_instance))
        announce_instances(context, [(target, moment, target.path(moment))], operation=self.announced_operation,
                           entity=target.feed, entity_type="FEED", log=self.log)

    def read_report(self) -> dict[str, Any] | None:
        arguments = [str(item) for item in self.application_args or []]
        if "--report" not in arguments:
            return None
        path = Path(arguments[arguments.index("--report") + 1])
        if not path.exists():
            self.log.warning("the job wrote no report at %s", path)
            return None
        report: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        self.log.info("job report: %s", json.dumps(report)[:4000])
        return report

    # -- OpenLineage -------------------------------------------------------------------------------------------

    def _forward_lineage_events(self, events: Path) -> None:
        try:
            from falcon_airflow.provider.openlineage import forward_events, parse_instance, task_lineage

            found = None
            if self.falcon_lineage is not None:
                found = task_lineage(self.falcon_lineage, instance=parse_instance(self.lineage_instance),
                                     report=None)
            forward_events(events, found)
        except Exception:
            self.log.warning("could not forward the Spark run's OpenLineage events", exc_info=True)

    def _openlineage(self, finished: bool) -> Any:
        if self.falcon_lineage is None:
            return None
        try:
            from falcon_airflow.provider.openlineage import operator_lineage, parse_instance

            report = None
            if finished:
                report = self._falcon_report if self._falcon_report is not None else self.read_report()
            return operator_lineage(self.falcon_lineage, instance=parse_instance(self.lineage_instance),
                                    report=report)
        except Exception:
            self.log.warning("could not compute the OpenLineage facets of %s", self.task_id, exc_info=True)
            return None

    def get_openlineage_facets_on_start(self) -> Any:
        return self._openlineage(finished=False)

    def get_openlineage_facets_on_complete(self, task_instance: Any) -> Any:
        return self._openlineage(finished=True)

    def get_openlineage_facets_on_failure(self, task_instance: Any) -> Any:
        return self._openlineage(finished=True)
