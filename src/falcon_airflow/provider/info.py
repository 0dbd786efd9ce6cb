"""Airflow provider metadata (``apache_airflow_provider`` entry point): what ``airflow providers get`` shows.

Kept free of Airflow imports so that reading it costs nothing; it is validated against Airflow's
``provider_info.schema.json`` in the tests.
"""

from __future__ import annotations

from typing import Any

from falcon_airflow import __version__

INTEGRATION = "Apache Falcon"


def _option(description: str, default: str, type_: str = "string", example: str | None = None) -> dict[str, Any]:
    return {"description": description, "version_added": "0.1.0", "type": type_, "example": example,
            "default": default}


def get_provider_info() -> dict[str, Any]:
    return {
        "package-name": "falcon-airflow",
        "name": "Falcon",
        "description": "Apache Falcon cluster, feed and process entities compiled into Airflow DAGs that run on "
                       "Apache Spark: data-availability sensors, late-data reprocessing, retention, replication.",
        "versions": [__version__],
        "integrations": [{"integration-name": INTEGRATION, "tags": ["software"],
                          "external-doc-url": "https://falcon.apache.org/EntitySpecification.html"}],
        "hooks": [{"integration-name": INTEGRATION, "python-modules": ["falcon_airflow.provider.hooks.spark"]}],
        "operators": [{"integration-name": INTEGRATION, "python-modules": [
            "falcon_airflow.provider.operators.spark", "falcon_airflow.provider.operators.outputs",
            "falcon_airflow.provider.operators.ordering",
            "falcon_airflow.provider.operators.late_data", "falcon_airflow.provider.operators.report"]}],
        "sensors": [{"integration-name": INTEGRATION, "python-modules": ["falcon_airflow.provider.sensors.feed"]}],
        "triggers": [{"integration-name": INTEGRATION, "python-modules": ["falcon_airflow.provider.triggers.feed"]}],
        "cli": ["falcon_airflow.cli.airflow.airflow_cli_commands"],
        "config": {
            "falcon": {
                "description": "Where falcon-airflow finds entity XML and how it compiles it.",
                "options": {
                    "entities_dir": _option(
                        "Folder of entity XML files the dags/ loader compiles; the environment variable "
                        "FALCON_ENTITIES_DIR wins over it. Empty: entities/ beside the dags folder.", "",
                        example="/opt/airflow/entities"),
                    "strict": _option(
                        "Fail the whole DAG file when any entity is invalid (for CI), instead of compiling the "
                        "valid entities and reporting the others as import errors.", "False", "boolean"),
                    "catchup": _option(
                        "Default for running past instances inside an entity's validity (Falcon did); an "
                        "entity property airflow.catchup overrides it.", "True", "boolean"),
                    "dag_access_control": _option(
                        "With the FAB auth manager: give the role named like an entity's ACL group the DAG "
                        "rights its ACL permission grants (read; edit and run when the group may write). The "
                        "roles must exist.", "False", "boolean"),
                },
            },
        },
    }
