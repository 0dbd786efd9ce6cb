"""Running a Falcon workflow or one of our lifecycle jobs with spark-submit."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from airflow.providers.apache.spark.operators.spark_submit import SparkSubmitOperator

from falcon_airflow.hooks.spark import FalconSparkSubmitHook


class FalconSparkSubmitOperator(SparkSubmitOperator):
    """``SparkSubmitOperator`` with the entity's master as default (see :class:`FalconSparkSubmitHook`).

    When the application is given ``--report PATH`` (our lifecycle jobs), the JSON report it writes is read back
    and returned, so it lands in XCom and lineage can use it.
    """

    template_fields: Sequence[str] = (*SparkSubmitOperator.template_fields,)

    def __init__(self, *, master: str, deploy_mode: str | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.master = master
        self.falcon_deploy_mode = deploy_mode

    def _get_hook(self) -> FalconSparkSubmitHook:
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
        super().execute(context)
        return self.read_report()

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
