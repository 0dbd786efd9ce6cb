"""The Airflow side of lineage: ``OperatorLineage`` for our tasks, the Spark events forwarded to the provider's
transport, the parent run given to Spark.

The OpenLineage provider calls ``get_openlineage_facets_on_start/complete/failure`` of our operators, which call
:func:`operator_lineage` here; the provider adds the job (``<dag_id>.<task_id>``), the run id, the DAG run as
parent, ``nominalTime`` from the data interval, the owner and the DAG tags. Imported only when lineage is asked
for, never while DAGs are built.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from airflow.providers.openlineage.extractors.base import OperatorLineage
from openlineage.client.serde import Serde

from falcon_airflow.compiler.specs import (
    DagSpec,
    ExtensionDagSpec,
    ProcessDagSpec,
    RetentionDagSpec,
    SlaDagSpec,
    TransferDagSpec,
)
from falcon_airflow.core.naming import DatasetId
from falcon_airflow.lineage.datasets import (
    TaskLineage,
    extension_lineage,
    process_lineage,
    replication_lineage,
    retention_lineage,
)
from falcon_airflow.lineage.events import KnownDataset, enrich, iter_lines

log = logging.getLogger(__name__)

FORWARDED_FACETS = ("symlinks", "ownership", "tags")
"""The feed facets a forwarded Spark event gains for a dataset under a known instance."""


def parse_instance(text: str | None) -> datetime | None:
    """The rendered ``lineage_instance`` of a task: ISO 8601 or Falcon's ``yyyy-MM-ddTHH:mmZ``."""
    if not text or not str(text).strip():
        return None
    value = str(text).strip()
    from falcon_airflow.timekeeping import parse_falcon_date

    try:
        return parse_falcon_date(value)
    except Exception:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
        if moment.tzinfo is None:
            from datetime import UTC

            moment = moment.replace(tzinfo=UTC)
        return moment


def _exists_in(spec: ProcessDagSpec) -> Callable[[str], bool]:
    """Whether a location of one of the process's inputs exists, asked with the client settings of the cluster whose
    storage it is on (S3: the bucket's; every input of a process is on the process's cluster)."""
    from urllib.parse import urlsplit

    from falcon_airflow.instances.storage import exists_by_bucket

    return exists_by_bucket({urlsplit(item.feed.location).netloc: item.feed.storage_settings
                             for item in spec.inputs if item.feed.storage_settings})


def task_lineage(spec: DagSpec, *, instance: datetime | None, report: dict[str, Any] | None) -> TaskLineage:
    if isinstance(spec, ProcessDagSpec):
        if instance is None:
            return TaskLineage()
        return process_lineage(spec, instance, _exists_in(spec))
    if isinstance(spec, RetentionDagSpec):
        return retention_lineage(spec, report)
    if isinstance(spec, TransferDagSpec):
        from falcon_airflow.lineage.tables import transfer_lineage

        return transfer_lineage(spec, instance, report)
    if isinstance(spec, SlaDagSpec):
        return TaskLineage()  # an SLA monitor reads and writes no dataset
    if isinstance(spec, ExtensionDagSpec):
        return extension_lineage(spec, report)
    return replication_lineage(spec, instance, report)


def operator_lineage(spec: DagSpec, *, instance: datetime | None,
                     report: dict[str, Any] | None) -> OperatorLineage[Any, Any]:
    found = task_lineage(spec, instance=instance, report=report)
    return OperatorLineage(inputs=found.inputs, outputs=found.outputs, run_facets=found.run_facets,
                           job_facets=found.job_facets)


# -- Spark events of the lineage driver ------------------------------------------------------------------------------


def known_datasets(found: TaskLineage) -> tuple[list[KnownDataset], list[KnownDataset]]:
    """The task's feed instances, as JSON, to enrich the Spark events with."""

    def known(dataset: Any, side: str) -> KnownDataset:
        data = Serde.to_dict(dataset)
        facets = {key: value for key, value in (data.get("facets") or {}).items() if key in FORWARDED_FACETS}
        return KnownDataset(DatasetId(data["namespace"], data["name"]), facets, data.get(side) or {})

    return ([known(item, "inputFacets") for item in found.inputs],
            [known(item, "outputFacets") for item in found.outputs])


def openlineage_enabled() -> bool:
    try:
        from airflow.providers.openlineage import conf

        return not conf.is_disabled()
    except Exception:  # no provider: nothing to forward to
        return False


def _client() -> Any:
    """A client with the provider's configuration ([openlineage] transport / config_path / connection, else the
    OPENLINEAGE_* environment). A fresh one: the listener's own client is left alone."""
    from airflow.providers.openlineage.plugins.listener import get_openlineage_listener
    from openlineage.client import OpenLineageClient

    config = get_openlineage_listener().adapter.get_openlineage_config()
    return OpenLineageClient(config=config) if config else OpenLineageClient()


def forward_events(path: Path, found: TaskLineage | None = None, client: Any = None) -> int:
    """Send the events the lineage driver wrote to ``path`` through the configured transport, each enriched with
    the feed facets of the task's instances; returns how many were sent. Never raises."""
    try:
        if not path.is_file():
            return 0
        if client is None:
            if not openlineage_enabled():
                log.info("OpenLineage is disabled: the Spark lineage events stay in %s", path)
                return 0
            client = _client()
        inputs, outputs = known_datasets(found) if found is not None else ([], [])
        sent = 0
        for event in iter_lines(path):
            try:
                client.transport.emit(enrich(event, inputs, outputs))
                sent += 1
            except Exception:
                log.warning("could not forward an OpenLineage event of %s", path, exc_info=True)
        log.info("forwarded %d OpenLineage event(s) of the Spark run from %s", sent, path)
        return sent
    except Exception:
        log.warning("could not forward the OpenLineage events of %s", path, exc_info=True)
        return 0


def parent_job_conf(conf: dict[str, Any], context: Any) -> dict[str, Any]:
    """``conf`` plus the ``spark.openlineage.parent*``/``rootParent*`` keys of the running task (the provider's
    injection), unless some are already there. Never raises."""
    try:
        from airflow.providers.common.compat.openlineage.utils.spark import (
            inject_parent_job_information_into_spark_properties,
        )

        return dict(inject_parent_job_information_into_spark_properties(dict(conf), context))
    except Exception:
        log.warning("could not add the OpenLineage parent job to the Spark conf", exc_info=True)
        return dict(conf)
