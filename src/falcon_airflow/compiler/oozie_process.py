"""A process with ``engine="oozie"``: its workflow application read and compiled, and Falcon's per-entity workflow
properties (the per-instance ones are computed by each run, see ``macros.falcon_workflow_conf``).

The workflow ``path`` resolves like a Spark application: below the entities folder when it is there, else on the
cluster's storage; it names the application folder (holding ``workflow.xml``) or the ``workflow.xml`` itself. The
definition must be readable where the DAG is built, as the DAG is built from it.
"""

from __future__ import annotations

from pathlib import Path

from falcon_airflow.compiler.common import resolve_application, spark_master, storage_base
from falcon_airflow.compiler.oozie import OozieCompileError, app_folder, compile_workflow, workflow_file
from falcon_airflow.compiler.oozie_spec import OozieWorkflowSpec
from falcon_airflow.core.paths import join_storage
from falcon_airflow.entities import Cluster, InterfaceType, Process
from falcon_airflow.entities.cluster import ClusterLocationName
from falcon_airflow.oozie import parse_workflow_file


def compile_process_workflow(process: Process, cluster: Cluster | None,
                             entities_dir: Path | None) -> OozieWorkflowSpec:
    location = resolve_application(process.workflow.path.strip(), entities_dir, cluster)
    app_path = app_folder(location)
    if "://" in location and not location.startswith("file://"):
        raise OozieCompileError(f"the Oozie workflow of process '{process.name}' is at {location}, which the DAG "
                                "builder cannot read: keep it in the entities folder or on a file:// storage",
                                file=process.source.file, line=process.workflow.line)
    definition = workflow_file(location)
    if not definition.is_file():
        raise OozieCompileError(f"the Oozie workflow of process '{process.name}' was not found at {definition}",
                                file=process.source.file, line=process.workflow.line)
    parsed = parse_workflow_file(definition)
    if parsed.workflow is None or parsed.has_errors:
        first = next((issue for issue in parsed.issues if issue.is_error), None)
        raise OozieCompileError(f"the Oozie workflow of process '{process.name}' ({definition}) is not valid"
                                + (f": {first.message}" if first is not None else ""),
                                file=process.source.file, line=process.workflow.line)
    master, deploy_mode = spark_master(cluster, None)
    compiled = compile_workflow(parsed.workflow, app_path, name_node=storage_base(cluster))
    return compiled.model_copy(update={"spark_master": master, "spark_deploy_mode": deploy_mode})


def static_workflow_conf(process: Process, cluster_name: str,
                         cluster: Cluster | None) -> tuple[dict[str, str], dict[str, str]]:
    """The properties Falcon gave every run of the process's workflow that do not depend on the instance, and the
    cluster's settings (its properties, ``nameNode``, ``jobTracker``, ``colo.name``), which Falcon set last."""
    workflow = process.workflow
    base = storage_base(cluster)
    staging = cluster.location(ClusterLocationName.STAGING) if cluster is not None else None
    conf: dict[str, str] = {
        "entityName": process.name, "entityType": "PROCESS", "cluster": cluster_name, "srcClusterName": "NA",
        "falconDataOperation": "GENERATE", "datasource": "NA",
        "userWorkflowName": workflow.name or f"{process.name}-workflow",
        "userWorkflowVersion": workflow.version, "userWorkflowEngine": workflow.engine.value,
        "queueName": "default", "jobPriority": "NORMAL",
        "shouldRecord": "true" if process.late_process is not None else "false",
    }
    if staging is not None:
        conf["logDir"] = join_storage(base, f"{staging.path.rstrip('/')}/falcon/workflows/process/{process.name}/logs")
    settings: dict[str, str] = {}
    if cluster is not None:
        engine = cluster.interface(InterfaceType.WORKFLOW)
        if engine is not None:
            conf["workflowEngineUrl"] = engine.endpoint.strip()
        settings.update(cluster.property_map)
        settings["colo.name"] = cluster.colo
        execute = cluster.interface(InterfaceType.EXECUTE)
        if execute is not None:
            settings["jobTracker"] = execute.endpoint.strip()
        if base:
            settings["nameNode"] = base
    return conf, settings
