"""The provider's metadata is valid for Airflow and tells the truth about the package: every module of
falcon_airflow that defines a hook, operator, sensor or trigger is listed, every listed module defines one, and the
plugin and asset URI scheme it declares are the ones Airflow registers."""

from __future__ import annotations

import importlib
import importlib.util
import json
import pkgutil
from importlib.metadata import distribution
from pathlib import Path
from types import ModuleType

import airflow
import jsonschema
import pytest
from airflow.sdk import BaseHook, BaseOperator, BaseSensorOperator
from airflow.triggers.base import BaseTrigger

import falcon_airflow
from falcon_airflow.provider.info import get_provider_info

PACKAGE_ROOT = Path(falcon_airflow.__file__).parent


def test_provider_info_matches_airflows_schema() -> None:
    schema = json.loads((Path(airflow.__file__).parent / "provider_info.schema.json").read_text())
    jsonschema.validate(get_provider_info(), schema)


def _runs_inside_another_program(info: pkgutil.ModuleInfo) -> bool:
    """A program's ``__main__``, or a module of an Alembic script folder (``env.py`` and the revisions, which
    Alembic loads itself): neither is a module of the library to import."""
    if info.name.rpartition(".")[2] == "__main__":
        return True
    folder = Path(getattr(info.module_finder, "path", PACKAGE_ROOT))
    return any((parent / "alembic.ini").exists() for parent in (folder, *folder.parents)
               if parent.is_relative_to(PACKAGE_ROOT))


@pytest.fixture(scope="module")
def package_modules() -> dict[str, ModuleType]:
    """Every module of falcon_airflow, imported."""
    modules: dict[str, ModuleType] = {}
    failed: dict[str, str] = {}
    for info in pkgutil.walk_packages([str(PACKAGE_ROOT)], "falcon_airflow.",
                                      onerror=lambda name: failed.setdefault(name, "cannot walk the package")):
        if _runs_inside_another_program(info):
            continue
        try:
            modules[info.name] = importlib.import_module(info.name)
        except Exception as error:
            failed[info.name] = repr(error)
    assert not failed, failed
    assert "falcon_airflow.provider.plugin" in modules and len(modules) > 100
    return modules


def _defines(module: ModuleType, base: type, *, unless: type | None = None) -> bool:
    return any(isinstance(value, type) and value.__module__ == module.__name__ and issubclass(value, base)
               and not (unless is not None and issubclass(value, unless)) for value in vars(module).values())


KINDS = {  # provider info key: (base class, except subclasses of)
    "hooks": (BaseHook, None),
    "operators": (BaseOperator, BaseSensorOperator),
    "sensors": (BaseSensorOperator, None),
    "triggers": (BaseTrigger, None),
}


@pytest.mark.parametrize("kind", KINDS)
def test_every_module_of_a_kind_is_listed_and_every_listed_module_is_one(
        kind: str, package_modules: dict[str, ModuleType]) -> None:
    base, unless = KINDS[kind]
    defining = {name for name, module in package_modules.items() if _defines(module, base, unless=unless)}
    entries = get_provider_info()[kind]
    listed = [name for entry in entries for name in entry["python-modules"]]
    assert len(listed) == len(set(listed)), f"{kind}: a module is listed twice"
    missing = [name for name in listed if importlib.util.find_spec(name) is None]
    assert not missing, f"{kind}: listed modules that do not exist: {missing}"
    assert sorted(defining - set(listed)) == [], f"modules defining {base.__name__}s missing from {kind!r}"
    assert sorted(set(listed) - defining) == [], f"modules in {kind!r} that define no {base.__name__}"
    assert {entry["integration-name"] for entry in entries} <= {
        item["integration-name"] for item in get_provider_info()["integrations"]}


def test_the_plugin_listed_is_the_one_airflow_loads() -> None:
    from airflow._shared.module_loading import import_string
    from airflow.plugins_manager import is_valid_plugin
    from airflow.providers_manager import ProvidersManager

    from falcon_airflow.provider.plugin import FalconPlugin

    [plugin] = get_provider_info()["plugins"]
    [entry_point] = [entry for entry in distribution("falcon-airflow").entry_points if entry.group == "airflow.plugins"]
    assert import_string(plugin["plugin-class"]) is entry_point.load() is FalconPlugin
    assert plugin["name"] == entry_point.name == FalconPlugin.name and is_valid_plugin(FalconPlugin)
    manager = ProvidersManager()
    manager.initialize_providers_plugins()
    assert [(found.name, found.plugin_class) for found in manager.plugins if found.provider_name == "falcon-airflow"
            ] == [(plugin["name"], plugin["plugin-class"])]


def test_airflow_registers_the_falcon_asset_scheme() -> None:
    """Where Airflow looks up the handler of an asset's scheme (``airflow.sdk.definitions.asset``)."""
    from airflow.sdk.providers_manager_runtime import ProvidersManagerTaskRuntime

    from falcon_airflow.provider.asset_uris import sanitize_uri

    [uris] = get_provider_info()["asset-uris"]
    assert uris["schemes"] == ["falcon"]
    assert ProvidersManagerTaskRuntime().asset_uri_handlers["falcon"] is sanitize_uri


def test_the_plugin_registers_its_parts() -> None:
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
                            "workflow_slot_poke_seconds",
                            "open_impersonation", "oozie_file_roots", "oozie_shell_environment",
                            "authentication", "authentication_secret", "authentication_token_validity",
                            "store", "store_url", "store_bundle_secret", "store_lease_seconds",
                            "mode", "colo", "prism_colos", "prism_timeout", "prism_ca_file",
                            "prism_client_cert", "prism_client_key", "prism_identity", "prism_secret",
                            "accept_writes_from"}
    assert options["authentication"]["default"] == "airflow"
    assert options["authentication_secret"]["sensitive"] is True
    assert options["store"]["default"] == "folder" and options["store_url"]["default"] == ""
    assert options["store_bundle_secret"]["sensitive"] is True
    assert options["prism_secret"]["sensitive"] is True and options["prism_identity"]["default"] == "prism"
