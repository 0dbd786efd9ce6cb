"""Falcon's configuration of an Oozie workflow run: the example's Oozie process, resolved for one instance."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from types import SimpleNamespace

import pendulum

from falcon_airflow.compiler import compile_workspace
from falcon_airflow.compiler.specs import ProcessDagSpec
from falcon_airflow.provider import macros
from falcon_airflow.workspace import Workspace

EXAMPLES = Path(__file__).resolve().parents[3] / "entities"

STORAGE = "file:///tmp/falcon-airflow/primary"


def falcon_macro() -> dict[str, object]:
    compilation = compile_workspace(Workspace.load([str(EXAMPLES)]), entities_dir=EXAMPLES,
                                    now=datetime(2026, 3, 1, tzinfo=UTC))
    (spec,) = [item for item in compilation.specs if item.dag_id == "falcon.process.report-clicks.primary"]
    assert isinstance(spec, ProcessDagSpec) and spec.engine == "oozie" and spec.oozie is not None
    # as the DAG builder hands it to the templates
    return json.loads(json.dumps({
        "entity": spec.source.name, "cluster": spec.cluster, "timezone": spec.schedule.timezone,
        "inputs": {item.name: item.model_dump(mode="json") for item in spec.inputs},
        "outputs": {item.name: item.model_dump(mode="json") for item in spec.outputs},
        "properties": dict(spec.properties), "empty_dir": spec.empty_dir,
        "workflow": dict(spec.workflow_conf), "cluster_settings": dict(spec.cluster_conf)}))


def test_every_property_falcon_gave_its_workflows() -> None:
    run = SimpleNamespace(data_interval_start=pendulum.datetime(2026, 3, 1, 5, tz="UTC"), logical_date=None)
    conf = json.loads(macros.oozie_configuration(falcon_macro(), run))
    timestamp = conf.pop("timeStamp")
    assert len(timestamp) == len("2026-03-01-05-00")
    assert conf == {
        "counts": f"{STORAGE}/data/click-counts/2026-03-01/05",
        "report": f"{STORAGE}/data/click-reports/2026-03-01/05",
        "nominalTime": "2026-03-01-05-00",
        "falconInputFeeds": "click-counts", "falconInputNames": "counts",
        "falconInPaths": f"{STORAGE}/data/click-counts/2026-03-01/05", "falconInputFeedStorageTypes": "FILESYSTEM",
        "feedNames": "click-reports", "feedInstancePaths": f"{STORAGE}/data/click-reports/2026-03-01/05",
        "falconOutputFeeds": "click-reports", "falconOutputNames": "report",
        "falconOutPaths": f"{STORAGE}/data/click-reports/2026-03-01/05",
        "entityName": "report-clicks", "entityType": "PROCESS", "cluster": "primary", "srcClusterName": "NA",
        "falconDataOperation": "GENERATE", "datasource": "NA",
        "userWorkflowName": "report-clicks", "userWorkflowVersion": "1.0", "userWorkflowEngine": "oozie",
        "queueName": "default", "jobPriority": "NORMAL", "shouldRecord": "false",
        "logDir": f"{STORAGE}/falcon/staging/falcon/workflows/process/report-clicks/logs",
        "topPages": "10",  # the process's <properties>
        "colo.name": "local", "nameNode": STORAGE,  # the cluster's settings
    }


def test_without_inputs_or_outputs_falcon_says_none_and_ignore() -> None:
    falcon = falcon_macro()
    falcon.update(inputs={}, outputs={})
    run = pendulum.datetime(2026, 3, 1, 5, tz="UTC")
    conf = macros.falcon_workflow_conf(falcon, run)
    assert (conf["falconInputFeeds"], conf["falconInPaths"], conf["falconInputNames"]) == ("NONE", "IGNORE",
                                                                                           "IGNORE")
    assert (conf["feedNames"], conf["feedInstancePaths"]) == ("NONE", "IGNORE")
    assert "counts" not in conf and "report" not in conf
