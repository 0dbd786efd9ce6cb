"""The provider's metadata is valid for Airflow, and everything it names imports."""

from __future__ import annotations

import importlib
import json
from pathlib import Path

import airflow
import jsonschema

from falcon_airflow.provider.info import get_provider_info


def test_provider_info_matches_airflows_schema() -> None:
    schema = json.loads((Path(airflow.__file__).parent / "provider_info.schema.json").read_text())
    jsonschema.validate(get_provider_info(), schema)


def test_every_named_module_imports_and_the_plugin_registers_its_parts() -> None:
    info = get_provider_info()
    for kind in ("hooks", "operators", "sensors", "triggers"):
        for entry in info[kind]:
            for module in entry["python-modules"]:
                importlib.import_module(module)
    from falcon_airflow.provider.plugin import FalconPlugin

    assert {function.__name__ for function in FalconPlugin.macros} >= {"input_paths", "output_path", "data_in"}
    assert [strategy.__name__ for strategy in FalconPlugin.priority_weight_strategies] == [
        "OldestInstanceFirst", "NewestInstanceFirst"]


def test_config_section_falcon() -> None:
    options = get_provider_info()["config"]["falcon"]["options"]
    assert set(options) == {"entities_dir", "strict", "catchup", "dag_access_control", "dag_shards", "store_dir",
                            "invalid_entities_as_import_errors", "asset_partition_keys", "broker_stomp_port",
                            "retention_keep_instances_beyond_validity", "preload_task_modules",
                            "datasource_connections", "datasource_credential_roots", "default_job_user",
                            "open_impersonation", "oozie_file_roots", "oozie_shell_environment",
                            "authentication", "authentication_secret", "authentication_token_validity"}
    assert options["authentication"]["default"] == "airflow"
    assert options["authentication_secret"]["sensitive"] is True
