"""Falcon's late-data handling for a process instance, as one deferrable task after the workflow.

Right after the workflow succeeds, the task records the late inputs' size (Falcon's metric: bytes under each
input's instance paths). It then sleeps in the triggerer until each check the policy schedules (periodic,
exp-backoff, final), up to the cut-off: the latest of each late input's end instance plus its feed's late-arrival
cut-off. When a size changed, it clears the outputs, re-runs the late workflow with spark-submit, marks the outputs
available again and keeps watching with the new sizes. All of it shows in the Airflow UI as part of the instance.
An Oozie workflow (several tasks) is re-run as the whole instance instead (:mod:`.rerun`); this task is then cleared
with the others and, in the new pass, records the sizes the re-run read and watches on until the same cut-off.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from pathlib import Path
from typing import Any

import pendulum
from airflow.sdk import BaseOperator
from airflow.sdk.exceptions import AirflowException

from falcon_airflow.compiler.specs import SPARK_JOB_TEMPLATED, ProcessDagSpec
from falcon_airflow.instances.bindings import InputBinding
from falcon_airflow.provider.hooks.spark import FalconSparkSubmitHook
from falcon_airflow.provider.macros import instance
from falcon_airflow.provider.operators.outputs import ClearOutputsOperator, MarkOutputsAvailableOperator
from falcon_airflow.provider.operators.rerun import deferred_in, run_instance_again, stale_resume
from falcon_airflow.provider.triggers.feed import LateDataTrigger, measure
from falcon_airflow.timekeeping import format_falcon_date
from falcon_airflow.timekeeping.policies import next_late_check

_SPARK_OPTIONS = ("conf", "py_files", "jars", "files", "packages", "java_class", "driver_memory", "executor_memory",
                  "executor_cores", "num_executors", "total_executor_cores", "proxy_user")


class LateDataOperator(BaseOperator):
    """``rerun_job`` is the late workflow's :class:`~falcon_airflow.compiler.specs.SparkJob` as a dict. Only its
    templated fields are rendered (``rerun_job``), as the workflow task renders them; its plain settings (master,
    connection, queue, memory ...) are kept apart in ``rerun_settings``, which Jinja never reads."""

    template_fields: Sequence[str] = ("rerun_job",)
    ui_color = "#fdf8e8"

    def __init__(self, *, inputs: list[dict[str, Any]], cut_off_seconds: list[int], policy: str,
                 delay_seconds: int, rerun_job: dict[str, Any] | None, outputs: list[dict[str, Any]],
                 falcon_lineage: ProcessDagSpec | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.falcon_lineage = falcon_lineage
        self.inputs = inputs
        self.cut_off_seconds = cut_off_seconds
        self.policy = policy
        self.delay_seconds = delay_seconds
        # No job: an Oozie workflow, which runs again as the whole instance (operators.rerun).
        self.rerun_job = {key: value for key, value in (rerun_job or {}).items() if key in SPARK_JOB_TEMPLATED}
        self.rerun_settings = {key: value for key, value in (rerun_job or {}).items()
                               if key not in SPARK_JOB_TEMPLATED}
        self.outputs = outputs

    # -- what to watch -----------------------------------------------------------------------------------------

    def _storage_settings(self) -> dict[str, dict[str, str]]:
        """Each late input's client settings of its cluster (S3), by input name."""
        found = {}
        for item in self.inputs:
            binding = InputBinding.model_validate(item)
            if binding.feed.storage_settings:
                found[binding.name] = dict(binding.feed.storage_settings)
        return found

    def _watch(self, context: Any) -> tuple[dict[str, list[str]], pendulum.DateTime, pendulum.DateTime]:
        nominal = instance(context["dag_run"])
        patterns: dict[str, list[str]] = {}
        cut_off = nominal
        for item, extra in zip(self.inputs, self.cut_off_seconds, strict=True):
            binding = InputBinding.model_validate(item)
            resolved = binding.resolve(nominal)
            patterns[binding.name] = list(resolved.paths)
            end = resolved.end or nominal
            cut_off = max(cut_off, pendulum.instance(end).add(seconds=extra))
        return patterns, nominal, cut_off

    def _wait_or_finish(self, context: Any, recorded: dict[str, int], reruns: int) -> dict[str, Any]:
        patterns, nominal, cut_off = self._watch(context)
        now = pendulum.now("UTC")
        if now >= cut_off:
            self.log.info("late-data cut-off %s has passed; %d late re-run(s) for instance %s",
                          format_falcon_date(cut_off), reruns, format_falcon_date(nominal))
            return {"reruns": reruns, "cut_off": format_falcon_date(cut_off), "metrics": recorded}
        check_at = next_late_check(self.policy, timedelta(seconds=self.delay_seconds), nominal, now, cut_off)
        self.log.info("next late-data check at %s (cut-off %s), recorded %s", check_at.isoformat(),
                      format_falcon_date(cut_off), recorded)
        self.defer(trigger=LateDataTrigger(patterns, recorded, check_at.isoformat(), reruns,
                                           self._storage_settings() or None),
                   method_name="execute_complete", kwargs=deferred_in(context))
        raise AssertionError("unreachable: defer() raises")  # pragma: no cover

    def execute(self, context: Any) -> dict[str, Any]:
        patterns, _, _ = self._watch(context)
        recorded = measure(patterns, self._storage_settings())
        self.log.info("recorded late-data metrics after the run: %s", recorded)
        return self._wait_or_finish(context, recorded, 0)

    def execute_complete(self, context: Any, event: dict[str, Any], for_pass: int | None = None) -> dict[str, Any]:
        if stale_resume(context, for_pass):  # the instance ran again since: watch afresh
            return self.execute(context)
        status = event.get("status")
        reruns = int(event.get("reruns", 0))
        if status == "error":
            raise AirflowException(f"late-data check failed: {event.get('message')}")
        metrics = {name: int(value) for name, value in event.get("metrics", {}).items()}
        if status == "changed":
            if not self.rerun_settings:
                self.log.info("late data arrived (%s): running the instance again", metrics)
                raise run_instance_again(context, "late data arrived before the cut-off")
            self.log.info("late data arrived (%s): re-running the late workflow", metrics)
            self._rerun(context)
            reruns += 1
        return self._wait_or_finish(context, metrics, reruns)

    # -- the re-run --------------------------------------------------------------------------------------------

    def _rerun(self, context: Any) -> None:
        ClearOutputsOperator(task_id=f"{self.task_id}.clear", outputs=self.outputs).execute(context)
        job = {**self.rerun_settings, **self.rerun_job}
        options = {key: job[key] for key in _SPARK_OPTIONS if job.get(key) not in (None, {}, "")}
        events = Path(job["lineage_events"]) if job.get("lineage_events") else None
        if events is not None:  # the re-run under the lineage driver is a child run of this task
            from falcon_airflow.provider.openlineage import parent_job_conf

            options["conf"] = parent_job_conf(options.get("conf") or {}, context)
            events.unlink(missing_ok=True)
        hook = FalconSparkSubmitHook(default_master=job["master"], default_deploy_mode=job.get("deploy_mode"),
                                     conn_id=job["connection"], name=f"{job['name']}-late",
                                     application_args=list(job.get("arguments", [])),
                                     yarn_queue=job.get("queue"), env_vars=job.get("env") or None, **options)
        try:
            hook.submit(job["application"])
        finally:
            if events is not None:
                self._forward_lineage_events(events, context)
        MarkOutputsAvailableOperator(task_id=f"{self.task_id}.mark", outputs=self.outputs).execute(context)

    def _forward_lineage_events(self, events: Path, context: Any) -> None:
        try:
            from falcon_airflow.provider.openlineage import forward_events, task_lineage

            found = None
            if self.falcon_lineage is not None:
                found = task_lineage(self.falcon_lineage, instance=instance(context["dag_run"]), report=None)
            forward_events(events, found)
        except Exception:
            self.log.warning("could not forward the late re-run's OpenLineage events", exc_info=True)
