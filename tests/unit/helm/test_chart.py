"""The Helm chart in helm/falcon-airflow, rendered and linted offline with helm-python-sdk, and the Dockerfile.

Rendering needs no cluster and no network: the official Airflow chart is a dependency behind ``airflow.enabled``
(false by default), so these tests see only the chart's own objects. What they check is what a cluster would
need from them: the entity files, Spark's RBAC, consistent labels, the release's namespace everywhere, and that
the Airflow chart's values refer to the objects by the names they are rendered with.
"""

from __future__ import annotations

import base64
import datetime
import hashlib
import hmac
import importlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

helm = pytest.importorskip("helm_python")

REPOSITORY = Path(__file__).resolve().parents[3]
CHART = REPOSITORY / "helm" / "falcon-airflow"
EXAMPLE_ENTITIES = REPOSITORY / "entities"
RELEASE = "demo"
NAMESPACE = "team-a"

# What a Spark driver does in its namespace (Spark on Kubernetes): executor pods, the driver service, the
# ConfigMaps of spark.properties and pod templates, on-demand volume claims.
SPARK_NEEDS = {
    "pods": {"create", "get", "list", "watch", "delete", "deletecollection"},
    "services": {"create", "get", "delete"},
    "configmaps": {"create", "get", "list", "delete", "deletecollection"},
    "persistentvolumeclaims": {"create", "get", "list", "delete", "deletecollection"},
}

Manifest = dict[str, Any]


@pytest.fixture
def chart() -> Any:
    """A fresh load per test: rendering drops disabled dependencies from the loaded chart's metadata."""
    with helm.Chart.load(CHART) as loaded:
        yield loaded


def render(chart: Any, values: dict[str, Any] | None = None, *, namespace: str = NAMESPACE,
           name: str = RELEASE) -> list[Manifest]:
    """Every object the chart renders, parsed; each remembers its template under ``__template``."""
    objects: list[Manifest] = []
    for template, text in chart.render(values or {}, name=name, namespace=namespace).items():
        if template.endswith("NOTES.txt"):
            continue
        for document in yaml.safe_load_all(text):
            if document:
                document["__template"] = template
                objects.append(document)
    return objects


def one(objects: list[Manifest], kind: str, component: str | None = None) -> Manifest:
    found = [o for o in objects if o["kind"] == kind
             and (component is None or o["metadata"]["labels"].get("app.kubernetes.io/component") == component)]
    assert len(found) == 1, f"{kind}/{component}: {[o['metadata']['name'] for o in found]}"
    return found[0]


def spark_defaults(objects: list[Manifest]) -> dict[str, str]:
    text = one(objects, "ConfigMap", "spark")["data"]["spark-defaults.conf"]
    pairs = (line.split(None, 1) for line in text.splitlines() if line.strip() and not line.startswith("#"))
    return {key: value.strip() for key, value in pairs}


def default_values() -> dict[str, Any]:
    return yaml.safe_load((CHART / "values.yaml").read_text(encoding="utf-8"))


def example_entity_files() -> dict[str, str]:
    """The repository's example entities, as a ConfigMap holds them: one flat folder of file names."""
    paths = [path for path in sorted(EXAMPLE_ENTITIES.rglob("*.xml")) if "apps" not in path.parts]
    files = {path.name: path.read_text(encoding="utf-8") for path in paths}
    assert len(files) == len(paths), "example entity file names collide"
    return files


def pinned(package: str) -> str:
    for line in (REPOSITORY / "constraints.txt").read_text(encoding="utf-8").splitlines():
        if line.lower().startswith(f"{package.lower()}=="):
            return line.split("==", 1)[1].strip()
    raise AssertionError(f"{package} is not pinned in constraints.txt")


# -- rendering ------------------------------------------------------------------------------------------------


def test_default_values_render_the_chart_objects_as_yaml(chart: Any) -> None:
    objects = render(chart)
    kinds = sorted((o["kind"], o["metadata"]["name"]) for o in objects)
    assert kinds == [
        ("ConfigMap", "falcon-airflow-config"),
        ("ConfigMap", "falcon-airflow-entities"),
        ("ConfigMap", "falcon-airflow-spark"),
        ("Role", "falcon-airflow-spark"),
        ("RoleBinding", "falcon-airflow-spark"),
        ("Secret", "falcon-airflow-store"),
        ("ServiceAccount", "falcon-airflow-spark"),
    ]
    for o in objects:
        assert o["apiVersion"] in {"v1", "rbac.authorization.k8s.io/v1"}
        assert re.fullmatch(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?", o["metadata"]["name"]), o["metadata"]["name"]


def test_entities_configmap_holds_the_given_xml_files(chart: Any) -> None:
    files = example_entity_files()
    entities = one(render(chart, {"entities": {"files": files}}), "ConfigMap", "entities")
    assert entities["data"] == files
    for name, text in entities["data"].items():
        assert name.endswith(".xml") and text.startswith("<?xml"), name


def test_the_mounted_configmap_compiles_into_dags(chart: Any, tmp_path: Path) -> None:
    """The ConfigMap as the kubelet mounts it (files are links into a hidden ..data folder) is what the dags/
    loader reads: every example entity compiles but the Oozie process, whose workflow folder is not there."""
    from falcon_airflow.dags.loader import compile_folder

    data = one(render(chart, {"entities": {"files": example_entity_files()}}), "ConfigMap", "entities")["data"]
    snapshot = tmp_path / "..2026_01_01_00_00_00.000000001"
    snapshot.mkdir()
    for name, text in data.items():
        (snapshot / name).write_text(text, encoding="utf-8")
        os.symlink(f"..data/{name}", tmp_path / name)
    os.symlink(snapshot.name, tmp_path / "..data")

    specs, issues = compile_folder(tmp_path, catchup_default=False)
    # an Oozie process needs its workflow application folder, which a flat ConfigMap cannot hold (git-sync can)
    assert [issue.entity for issue in issues] == ["report-clicks"]
    assert {spec.dag_id for spec in specs} >= {
        "falcon.process.count-clicks.primary", "falcon.process.generate-clicks.primary",
        "falcon.feed.click-counts.replication.primary.backup", "falcon.feed.raw-clicks.retention.primary"}


def test_set_file_as_the_readme_shows_it_fills_the_configmap(chart: Any) -> None:
    path = EXAMPLE_ENTITIES / "clusters" / "primary.xml"
    values = helm.parse_set_file(rf"entities.files.primary\.xml={path}")
    entities = one(render(chart, values), "ConfigMap", "entities")
    assert entities["data"] == {"primary.xml": path.read_text(encoding="utf-8")}


@pytest.mark.parametrize("name", ["clusters/primary.xml", "primary xml", ""])
def test_entity_file_names_must_fit_a_flat_configmap(chart: Any, name: str) -> None:
    with pytest.raises(helm.HelmError, match=r"propertyName|pattern"):
        chart.render({"entities": {"files": {name: "<cluster/>"}}}, name=RELEASE, namespace=NAMESPACE)


def test_entities_beyond_a_configmaps_size_are_refused(chart: Any) -> None:
    too_big = {"a.xml": "x" * 600_000, "b.xml": "y" * 600_000}
    with pytest.raises(helm.HelmRenderError, match="1 MiB"):
        chart.render({"entities": {"files": too_big}}, name=RELEASE, namespace=NAMESPACE)


def test_settings_configmap_carries_falcon_and_openlineage_configuration(chart: Any) -> None:
    data = one(render(chart), "ConfigMap", "config")["data"]
    assert data["FALCON_ENTITIES_DIR"] == data["AIRFLOW__FALCON__ENTITIES_DIR"] == "/opt/airflow/entities"
    assert (data["AIRFLOW__FALCON__STRICT"], data["AIRFLOW__FALCON__CATCHUP"]) == ("False", "True")
    assert data["AIRFLOW__OPENLINEAGE__DISABLED"] == "False"
    assert data["AIRFLOW__OPENLINEAGE__NAMESPACE"] == "falcon"
    transport = json.loads(data["AIRFLOW__OPENLINEAGE__TRANSPORT"])
    assert transport["type"] == "file" and transport["log_file_path"].startswith("/opt/airflow/logs/")
    assert data["SPARK_CONF_DIR"] == "/opt/airflow/spark-conf"
    assert all(isinstance(value, str) for value in data.values())


def test_settings_overrides(chart: Any) -> None:
    http = {"url": "https://lineage.example", "endpoint": "api/v1/lineage", "timeout": 5}
    data = one(render(chart, {
        "falcon": {"strict": True, "catchup": False, "extraEnv": {"AIRFLOW__CORE__PARALLELISM": 8}},
        "openlineage": {"namespace": "clickstream", "transport": {"type": "http", "http": {"url": http["url"]}}},
    }), "ConfigMap", "config")["data"]
    assert (data["AIRFLOW__FALCON__STRICT"], data["AIRFLOW__FALCON__CATCHUP"]) == ("True", "False")
    # Only the chosen transport's settings: nothing of the default file transport leaks into the http one.
    assert json.loads(data["AIRFLOW__OPENLINEAGE__TRANSPORT"]) == {"type": "http", **http}
    assert data["AIRFLOW__OPENLINEAGE__NAMESPACE"] == "clickstream"
    assert data["AIRFLOW__CORE__PARALLELISM"] == "8"

    disabled = one(render(chart, {"openlineage": {"enabled": False}}), "ConfigMap", "config")["data"]
    assert disabled["AIRFLOW__OPENLINEAGE__DISABLED"] == "True"
    assert "AIRFLOW__OPENLINEAGE__TRANSPORT" not in disabled

    with pytest.raises(helm.HelmRenderError, match=r"openlineage\.transport\.kafka"):
        chart.render({"openlineage": {"transport": {"type": "kafka"}}}, name=RELEASE, namespace=NAMESPACE)


# -- Falcon's REST API on the api-server ---------------------------------------------------------------------

SECRET_VARIABLE = "AIRFLOW__FALCON__AUTHENTICATION_SECRET"

SERVER = {
    "authentication": {"type": "simple", "tokenValidity": 600},
    "airflowUser": "admin",
    "authorization": {
        "enabled": True, "superusers": ["root"], "superuserGroups": ["platform"], "adminUsers": ["ann", "bob"],
        "adminGroups": [], "proxyUsers": {"etl-scheduler": {"hosts": ["*"], "groups": ["etl", "ops"]}},
        "userGroups": {"carl": ["analysts"]}, "openImpersonation": False,
    },
}


def notes(chart: Any, values: dict[str, Any] | None = None) -> str:
    rendered = chart.render(values or {}, name=RELEASE, namespace=NAMESPACE)
    return next(text for template, text in rendered.items() if template.endswith("NOTES.txt"))


def test_settings_configmap_carries_the_servers_settings_under_the_names_the_code_reads(chart: Any) -> None:
    from falcon_airflow.operate.gate import OPEN_IMPERSONATION
    from falcon_airflow.server.airflow_access import AIRFLOW_USER

    data = one(render(chart), "ConfigMap", "config")["data"]
    server = {key: value for key, value in data.items() if key.startswith("AIRFLOW__FALCON__")
              and key not in {"AIRFLOW__FALCON__ENTITIES_DIR", "AIRFLOW__FALCON__STRICT", "AIRFLOW__FALCON__CATCHUP"}
              and not key.startswith("AIRFLOW__FALCON__STORE")}
    # the defaults: Airflow's tokens only, Falcon's cookie life, authorization off; the admin and superuser groups
    # are left unset, so that the code's default (Airflow's Admin role) applies
    assert server == {"AIRFLOW__FALCON__AUTHENTICATION": "airflow",
                      "AIRFLOW__FALCON__AUTHENTICATION_TOKEN_VALIDITY": "36000",
                      "AIRFLOW__FALCON__AUTHORIZATION_ENABLED": "False",
                      "AIRFLOW__FALCON__OPEN_IMPERSONATION": "False"}

    data = one(render(chart, {"server": SERVER}), "ConfigMap", "config")["data"]
    settings = {key.removeprefix("AIRFLOW__FALCON__").lower(): value for key, value in data.items()
                if key.startswith("AIRFLOW__FALCON__")}
    assert settings["authentication"] == "simple"
    assert settings["authentication_token_validity"] == "600"
    assert settings[AIRFLOW_USER] == "admin"
    assert settings["authorization_enabled"] == "True"
    assert settings["superusers"] == "root"
    assert settings["superusergroup"] == "platform"
    assert settings["admin.users"] == "ann,bob"
    assert settings["admin.groups"] == ""  # given empty: no admin group at all, not the default Admin
    assert settings["proxyuser.etl-scheduler.hosts"] == "*"
    assert settings["proxyuser.etl-scheduler.groups"] == "etl,ops"
    assert settings["groups.carl"] == "analysts"
    assert settings[OPEN_IMPERSONATION] == "False"
    assert "authentication_secret" not in settings
    # ConfigMap keys and, through extraEnvFrom, variable names: Kubernetes takes letters, digits, "-", "_", "."
    assert all(re.fullmatch(r"[-._a-zA-Z][-._a-zA-Z0-9]*", key) for key in data)


def test_the_rendered_settings_are_what_the_server_reads_in_the_api_server(chart: Any, tmp_path: Path) -> None:
    """The ConfigMap as the api-server's environment (through bash, as the Airflow chart runs `bash -c "exec airflow
    api-server"`, with the cookie key its Secret gives and the airflow: section's airflow.cfg settings): Airflow's
    configuration gives the server the settings of the values, and its plugins manager mounts Falcon's server at
    /falcon."""
    values = default_values()
    data = one(render(chart, {"server": SERVER}), "ConfigMap", "config")["data"]
    environment = {"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path), "AIRFLOW_HOME": str(tmp_path), **data}
    for section, options in values["airflow"]["config"].items():
        environment.update({f"AIRFLOW__{section.upper()}__{key.upper()}": str(v) for key, v in options.items()})
    (entry,) = [e for e in values["airflow"]["apiServer"]["env"] if e["name"] == SECRET_VARIABLE]
    environment[entry["name"]] = "key-from-the-secret"
    probe = """
import json
from falcon_airflow.operate.authorization import Policy
from falcon_airflow.server.authentication import AuthenticationSettings
from falcon_airflow.server.configuration import AirflowConfig
config = AirflowConfig()
authentication = AuthenticationSettings.from_config(config.get)
policy = Policy.load(lambda key: config.get("falcon", key))
from airflow import plugins_manager
apps, _ = plugins_manager.get_fastapi_plugins()
print(json.dumps({
    "scheme": authentication.scheme, "secret": authentication.secret.decode(),
    "validity": authentication.validity_seconds, "airflow_user": config.get("falcon", "airflow_user"),
    "enabled": policy.enabled, "superusers": sorted(policy.superusers),
    "superuser_groups": sorted(policy.superuser_groups), "admin_users": sorted(policy.admin_users),
    "admin_groups": sorted(policy.admin_groups),
    "proxy": [config.get("falcon", f"proxyuser.etl-scheduler.{kind}") for kind in ("hosts", "groups")],
    "carl": config.get("falcon", "groups.carl"), "mounts": sorted(app["url_prefix"] for app in apps)}))
"""
    done = subprocess.run(["bash", "-c", 'exec "$0" -c "$1"', sys.executable, probe], env=environment,
                          cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    read = json.loads(done.stdout.strip().splitlines()[-1])
    assert read == {"scheme": "simple", "secret": "key-from-the-secret", "validity": 600, "airflow_user": "admin",
                    "enabled": True, "superusers": ["root"], "superuser_groups": ["platform"],
                    "admin_users": ["ann", "bob"], "admin_groups": [], "proxy": ["*", "etl,ops"],
                    "carl": "analysts", "mounts": ["/falcon"]}


def test_the_cookie_key_comes_from_a_secret_to_the_api_server_never_from_a_configmap(chart: Any) -> None:
    values = default_values()
    authentication = values["server"]["authentication"]
    (entry,) = [e for e in values["airflow"]["apiServer"]["env"] if e["name"] == SECRET_VARIABLE]
    assert entry["valueFrom"]["secretKeyRef"] == {"name": authentication["secretName"],
                                                  "key": authentication["secretKey"], "optional": True}
    # no Airflow container but the api-server gets it, and no ConfigMap holds it
    assert SECRET_VARIABLE not in json.dumps({k: v for k, v in values["airflow"].items() if k != "apiServer"})
    for simple in ({}, {"server": {"authentication": {"type": "simple"}}}):
        for o in render(chart, simple):
            if o["kind"] == "ConfigMap":
                assert "authentication_secret" not in json.dumps(o).lower(), o["metadata"]["name"]

    # another Secret: the Airflow chart's values must name it too (they are not templated)
    mine = {"server": {"authentication": {"secretName": "falcon-cookies", "secretKey": "key"}}}
    with pytest.raises(helm.HelmRenderError, match=rf"airflow\.apiServer\.env must set {SECRET_VARIABLE}"):
        chart.render(mine, name=RELEASE, namespace=NAMESPACE)
    reference = {"name": SECRET_VARIABLE, "valueFrom": {"secretKeyRef": {"name": "falcon-cookies", "key": "key"}}}
    render(chart, {**mine, "airflow": {"apiServer": {"env": [reference]}}})
    render(chart, {**mine, "airflow": {"apiServer": {"env": []}, "secret": [
        *default_values()["airflow"]["secret"],
        {"envName": SECRET_VARIABLE, "secretName": "falcon-cookies", "secretKey": "key"}]}})
    with pytest.raises(helm.HelmRenderError, match="secretName is empty"):
        chart.render({"server": {"authentication": {"secretName": ""}}}, name=RELEASE, namespace=NAMESPACE)
    render(chart, {"server": {"authentication": {"secretName": ""}}, "airflow": {"apiServer": {"env": []}}})

    # the key as text, anywhere it would end in a ConfigMap or the release's values, is refused
    for text in ({"falcon": {"extraEnv": {SECRET_VARIABLE: "s3cret-s3cret"}}},
                 {"airflow": {"config": {"falcon": {"authentication_secret": "s3cret-s3cret"}}}},
                 {"airflow": {"env": [{"name": SECRET_VARIABLE, "value": "s3cret-s3cret"}]}},
                 {"airflow": {"apiServer": {"env": [{"name": SECRET_VARIABLE, "value": "s3cret-s3cret"}]}}}):
        with pytest.raises(helm.HelmRenderError, match="Secret"):
            chart.render(text, name=RELEASE, namespace=NAMESPACE)
    with pytest.raises(helm.HelmValuesError, match="secret"):
        chart.render({"server": {"authentication": {"secret": "s3cret-s3cret"}}}, name=RELEASE, namespace=NAMESPACE)


@pytest.mark.parametrize("scheme", ["kerberos", "", "pseudo", True])
def test_schema_refuses_an_unknown_authentication(chart: Any, scheme: Any) -> None:
    with pytest.raises(helm.HelmValuesError, match=r"authentication/type"):
        chart.render({"server": {"authentication": {"type": scheme}}}, name=RELEASE, namespace=NAMESPACE)


@pytest.mark.parametrize("server", [
    {"authorization": {"adminUsers": ["ann,bob"]}},  # a comma would split one name in two
    {"authorization": {"proxyUsers": {"etl@REALM": {"hosts": ["*"], "groups": ["etl"]}}}},  # not a variable name
    {"authorization": {"proxyUsers": {"etl": {"hosts": ["*"]}}}},  # Falcon's rule needs both
    {"authentication": {"tokenValidity": 0}},
    {"airflowUser": "two words"},
])
def test_schema_refuses_server_settings_the_code_would_misread(chart: Any, server: dict[str, Any]) -> None:
    with pytest.raises(helm.HelmValuesError):
        chart.render({"server": server}, name=RELEASE, namespace=NAMESPACE)


def test_notes_give_falcons_url_on_the_api_server(chart: Any) -> None:
    text = notes(chart, {"airflow": {"enabled": True}})
    url = f"http://{RELEASE}-api-server:8080/falcon"
    assert f"falcon admin -version -url {url}" in text
    assert f"http://{RELEASE}-api-server.{NAMESPACE}.svc:8080/falcon" in text
    assert f"kubectl port-forward --namespace {NAMESPACE} svc/{RELEASE}-api-server 8080:8080" in text
    assert "http://localhost:8080/falcon" in text
    assert "/auth/token" in text and "server.authentication.type=simple" in text
    assert "trusted network" in notes(chart, {"airflow": {"enabled": True},
                                              "server": {"authentication": {"type": "simple"}}})
    # the Airflow chart's own names and port
    assert (f"http://{RELEASE}-airflow-api-server:8080/falcon"
            in notes(chart, {"airflow": {"enabled": True, "useStandardNaming": True}}))
    assert "http://etl-api-server:9090/falcon" in notes(chart, {"airflow": {
        "enabled": True, "useStandardNaming": True, "fullnameOverride": "etl", "ports": {"apiServer": 9090}}})
    # Airflow deployed as another release: its name is not known here
    assert "http://<airflow-release>-api-server:8080/falcon" in notes(chart)


def test_the_api_server_serves_falcons_api_on_the_port_the_readme_gives(chart: Any) -> None:
    airflow = default_values()["airflow"]
    port = airflow["ports"]["apiServer"]
    assert port == 8080
    assert airflow.get("apiServer", {}).get("enabled", True) is True
    assert not {"args", "command"} & set(airflow["apiServer"])  # the Airflow chart's `airflow api-server`
    assert int(airflow["airflowVersion"].split(".")[0]) >= 3  # the chart renders the api-server from Airflow 3 on
    readme = (REPOSITORY / "helm" / "README.md").read_text(encoding="utf-8")
    assert f"-api-server.falcon.svc:{port}/falcon" in readme and f"8080:{port}" in readme
    assert f":{port}/falcon" in notes(chart, {"airflow": {"enabled": True}})
    # the plugin comes with the package the image installs, from its airflow.plugins entry point
    import tomllib

    project = tomllib.loads((REPOSITORY / "pyproject.toml").read_text(encoding="utf-8"))
    assert project["project"]["entry-points"]["airflow.plugins"] == {
        "falcon": "falcon_airflow.provider.plugin:FalconPlugin"}


def test_the_readmes_falcon_api_values_render(chart: Any) -> None:
    readme = (REPOSITORY / "helm" / "README.md").read_text(encoding="utf-8")
    (block,) = [b for b in re.findall(r"```yaml\n(.*?)```", readme, re.DOTALL) if "server:" in b]
    values = yaml.safe_load(block)
    data = one(render(chart, values), "ConfigMap", "config")["data"]
    assert data["AIRFLOW__FALCON__AUTHENTICATION"] == values["server"]["authentication"]["type"]
    assert values["airflow"]["ingress"]["apiServer"]["enabled"] is True


# -- Falcon's configuration store ---------------------------------------------------------------------------------

BUNDLE_SECRET_VARIABLE = "AIRFLOW__FALCON__STORE_BUNDLE_SECRET"
BUNDLE_LIST_VARIABLE = "AIRFLOW__DAG_PROCESSOR__DAG_BUNDLE_CONFIG_LIST"
WITH_AIRFLOW = {"airflow": {"enabled": True}}


def settings(objects: list[Manifest]) -> dict[str, str]:
    return one(objects, "ConfigMap", "config")["data"]


def bundle_secret_value(objects: list[Manifest]) -> str:
    secret = one(objects, "Secret", "store")
    key = default_values()["store"]["bundleSecret"]["secretKey"]
    return base64.b64decode(secret["data"][key]).decode()


def test_the_store_is_in_the_metadata_database_and_its_bundle_reaches_the_releases_api_server(chart: Any) -> None:
    data = settings(render(chart, WITH_AIRFLOW))
    assert data["AIRFLOW__FALCON__STORE"] == "database"
    url = f"http://{RELEASE}-api-server:8080/falcon"
    assert data["AIRFLOW__FALCON__STORE_URL"] == url
    assert data["AIRFLOW__FALCON__STORE_LEASE_SECONDS"] == "120"
    assert BUNDLE_SECRET_VARIABLE not in data
    # the URL NOTES give Falcon's clients, from the Airflow chart's names and port; store.url wins
    assert f"-url {url}" in notes(chart, WITH_AIRFLOW)
    standard = {"airflow": {"enabled": True, "useStandardNaming": True, "ports": {"apiServer": 9090}}}
    assert settings(render(chart, standard))["AIRFLOW__FALCON__STORE_URL"] == (
        f"http://{RELEASE}-airflow-api-server:9090/falcon")
    given = {**WITH_AIRFLOW, "store": {"url": "http://falcon-api.shared.svc:8080/falcon/"}}
    assert settings(render(chart, given))["AIRFLOW__FALCON__STORE_URL"] == "http://falcon-api.shared.svc:8080/falcon"
    # Airflow as another release: its Service is not known here, and NOTES say so rather than guess
    alone = settings(render(chart))
    assert "AIRFLOW__FALCON__STORE_URL" not in alone and alone["AIRFLOW__FALCON__STORE"] == "database"
    assert "store.url is NOT set" in notes(chart)
    assert "store.url is NOT set" not in notes(chart, {"store": {"url": "http://airflow-api-server:8080/falcon"}})

    text = notes(chart, WITH_AIRFLOW)
    assert "[falcon] store=database" in text and "airflow db migrate" in text
    assert (f"kubectl exec --namespace {NAMESPACE} deploy/{RELEASE}-scheduler -c scheduler -- airflow falcon store "
            "import --entities") in text


def test_the_dag_bundle_list_names_the_stores_bundle_and_the_dags_folder(chart: Any) -> None:
    from airflow.dag_processing.bundles.base import BaseDagBundle
    from airflow.dag_processing.bundles.local import LocalDagBundle

    from falcon_airflow.dags.store_bundle import FalconStoreBundle

    def import_string(classpath: str) -> Any:
        module, _, name = classpath.rpartition(".")
        return getattr(importlib.import_module(module), name)

    bundles = json.loads(settings(render(chart, WITH_AIRFLOW))[BUNDLE_LIST_VARIABLE])
    assert bundles == [
        {"name": "falcon-store", "classpath": "falcon_airflow.dags.store_bundle.FalconStoreBundle",
         "kwargs": {"refresh_interval": 30}},
        {"name": "dags-folder", "classpath": "airflow.dag_processing.bundles.local.LocalDagBundle", "kwargs": {}},
    ]
    assert import_string(bundles[0]["classpath"]) is FalconStoreBundle
    assert import_string(bundles[1]["classpath"]) is LocalDagBundle
    assert issubclass(FalconStoreBundle, BaseDagBundle) and FalconStoreBundle.supports_versioning

    custom = json.loads(settings(render(chart, {"store": {
        "bundle": {"refreshInterval": 120, "kwargs": {"timeout": 20, "keep_versions": 3}},
        "extraBundles": [{"name": "reports", "classpath": "airflow.providers.git.bundles.git.GitDagBundle",
                          "kwargs": {"tracking_ref": "main"}}],
    }}))[BUNDLE_LIST_VARIABLE])
    assert [b["name"] for b in custom] == ["falcon-store", "dags-folder", "reports"]
    assert custom[0]["kwargs"] == {"refresh_interval": 120, "timeout": 20, "keep_versions": 3}
    assert custom[2]["kwargs"] == {"tracking_ref": "main"}
    with pytest.raises(helm.HelmRenderError, match="twice"):
        chart.render({"store": {"extraBundles": [{"name": "dags-folder", "classpath": "a.B"}]}},
                     name=RELEASE, namespace=NAMESPACE)

    # the folder store: no store settings and no bundle list of ours (Airflow's, the dags folder, stays)
    folder = settings(render(chart, {**WITH_AIRFLOW, "store": {"backend": "folder"}}))
    assert folder["AIRFLOW__FALCON__STORE"] == "folder"
    assert [key for key in folder if key.startswith(("AIRFLOW__FALCON__STORE_", "AIRFLOW__DAG_PROCESSOR__"))] == []
    assert "one node only" in notes(chart, {"store": {"backend": "folder"}})


def test_the_rendered_store_settings_are_what_the_bundle_and_the_server_read(chart: Any, tmp_path: Path) -> None:
    """The settings ConfigMap and the bundle Secret as a pod's environment (through bash, as the Airflow chart runs its
    commands), with entities from git-sync: Airflow's bundle manager makes the store's bundle and the dags folder's
    (the checkout's dags folder, as the Airflow chart sets [core] dags_folder), the store's bundle goes to the
    release's api-server and compiles the checkout's entities folder, and its key, from the Secret, is the key the
    server derives though the api-server also has a JWT secret."""
    values = {"entities": {"source": "gitSync"},
              "airflow": {"enabled": True, "dags": {"gitSync": {"enabled": True, "repo": "https://git.example/p.git"}}}}
    objects = render(chart, values)
    data = settings(objects)
    secret = bundle_secret_value(objects)
    (entry,) = [e for e in default_values()["airflow"]["secret"] if e["envName"] == BUNDLE_SECRET_VARIABLE]
    environment = {
        "PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path), "AIRFLOW_HOME": str(tmp_path), **data,
        entry["envName"]: secret, "AIRFLOW__API_AUTH__JWT_SECRET": "the-api-servers-jwt-secret",
        "AIRFLOW__CORE__DAGS_FOLDER": "/opt/airflow/dags/repo/dags", "AIRFLOW__CORE__LOAD_EXAMPLES": "False",
        "AIRFLOW__DAG_PROCESSOR__DAG_BUNDLE_STORAGE_PATH": str(tmp_path / "bundles"),
    }
    probe = """
import json
from airflow.configuration import conf
from airflow.dag_processing.bundles.manager import DagBundlesManager
from falcon_airflow.dags.loader import _config_of
from falcon_airflow.dags.store_bundle import store_url
from falcon_airflow.dags.store_loader import store_entities_folder
from falcon_airflow.server.configuration import AirflowConfig
from falcon_airflow.store.bundle_token import bundle_key
bundles = {b.name: [f"{type(b).__module__}.{type(b).__qualname__}", str(b.path)]
           for b in DagBundlesManager().get_all_dag_bundles()}
print(json.dumps({
    "store": conf.get("falcon", "store"), "bundles": bundles, "url": store_url(),
    "entities": str(store_entities_folder()),
    "bundle_key": bundle_key(lambda section, option: _config_of(section, option, "")).hex(),
    "server_key": bundle_key(AirflowConfig().get).hex()}))
"""
    done = subprocess.run(["bash", "-c", 'exec "$0" -c "$1"', sys.executable, probe], env=environment,
                          cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    read = json.loads(done.stdout.strip().splitlines()[-1])
    from falcon_airflow.store.bundle_token import KEY_PURPOSE

    expected = hmac.new(secret.encode(), KEY_PURPOSE, hashlib.sha256).hexdigest()
    assert read == {
        "store": "database",
        "bundles": {
            "falcon-store": ["falcon_airflow.dags.store_bundle.FalconStoreBundle",
                             str(tmp_path / "bundles" / "falcon-store" / "current")],
            "dags-folder": ["airflow.dag_processing.bundles.local.LocalDagBundle", "/opt/airflow/dags/repo/dags"]},
        "url": f"http://{RELEASE}-api-server:8080/falcon",
        "entities": "/opt/airflow/dags/repo/entities",
        "bundle_key": expected, "server_key": expected}


def test_the_bundle_secret_comes_from_a_secret_to_every_airflow_container_never_from_a_configmap(chart: Any) -> None:
    values = default_values()
    bundle_secret = values["store"]["bundleSecret"]
    (entry,) = [e for e in values["airflow"]["secret"] if e["envName"] == BUNDLE_SECRET_VARIABLE]
    assert entry == {"envName": BUNDLE_SECRET_VARIABLE, "secretName": bundle_secret["secretName"],
                     "secretKey": bundle_secret["secretKey"]}
    # airflow.secret reaches every container of the Airflow chart (the KubernetesExecutor's pod template too);
    # nothing else in its values names the variable
    assert BUNDLE_SECRET_VARIABLE not in json.dumps({k: v for k, v in values["airflow"].items() if k != "secret"})

    objects = render(chart, WITH_AIRFLOW)
    secret = one(objects, "Secret", "store")
    assert (secret["metadata"]["name"], secret["type"]) == (bundle_secret["secretName"], "Opaque")
    assert list(secret["data"]) == [bundle_secret["secretKey"]]
    value = bundle_secret_value(objects)
    assert re.fullmatch(r"[A-Za-z0-9]{64}", value)
    for simple in ({}, WITH_AIRFLOW, {"store": {"backend": "folder"}}):
        for o in render(chart, simple):
            if o["kind"] == "ConfigMap":
                text = json.dumps(o)
                assert "STORE_BUNDLE_SECRET" not in text.upper(), o["metadata"]["name"]
        assert all(value not in json.dumps(o) for o in objects if o["kind"] == "ConfigMap")

    # a Secret of your own (rendered without a cluster, a random one per render would split the components)
    assert [o for o in render(chart, {"store": {"bundleSecret": {"create": False}}}) if o["kind"] == "Secret"] == []
    # another Secret: the Airflow chart's values must name it too, once
    mine = {"store": {"bundleSecret": {"secretName": "falcon-bundle", "secretKey": "key"}}}
    with pytest.raises(helm.HelmRenderError, match=rf"airflow\.secret must set {BUNDLE_SECRET_VARIABLE}"):
        chart.render(mine, name=RELEASE, namespace=NAMESPACE)
    reference = {"envName": BUNDLE_SECRET_VARIABLE, "secretName": "falcon-bundle", "secretKey": "key"}
    assert one(render(chart, {**mine, "airflow": {"secret": [reference]}}), "Secret", "store")["metadata"][
        "name"] == "falcon-bundle"
    with pytest.raises(helm.HelmRenderError, match="once"):
        chart.render({**mine, "airflow": {"secret": [reference, reference]}}, name=RELEASE, namespace=NAMESPACE)
    # no Secret at all ([api_auth] jwt_secret then): the entry must go too
    with pytest.raises(helm.HelmRenderError, match="secretName is empty"):
        chart.render({"store": {"bundleSecret": {"secretName": ""}}}, name=RELEASE, namespace=NAMESPACE)
    without = {"store": {"bundleSecret": {"secretName": ""}}, "airflow": {"secret": []}}
    assert [o for o in render(chart, without) if o["kind"] == "Secret"] == []
    assert "jwt_secret" in notes(chart, without)

    # as text, or for one component only, it is refused
    from_secret = {"valueFrom": {"secretKeyRef": {"name": "falcon-airflow-store", "key": "bundle-secret"}}}
    for text in ({"falcon": {"extraEnv": {BUNDLE_SECRET_VARIABLE: "s3cret-s3cret"}}},
                 {"airflow": {"config": {"falcon": {"store_bundle_secret": "s3cret-s3cret"}}}},
                 {"airflow": {"env": [{"name": BUNDLE_SECRET_VARIABLE, "value": "s3cret-s3cret"}]}},
                 {"airflow": {"dagProcessor": {"env": [{"name": BUNDLE_SECRET_VARIABLE, **from_secret}]}}},
                 {"airflow": {"extraEnv": f"- name: {BUNDLE_SECRET_VARIABLE}\n  value: s3cret-s3cret\n"}}):
        with pytest.raises(helm.HelmRenderError, match="Secret"):
            chart.render(text, name=RELEASE, namespace=NAMESPACE)
    with pytest.raises(helm.HelmValuesError, match="value"):
        chart.render({"store": {"bundleSecret": {"value": "s3cret-s3cret"}}}, name=RELEASE, namespace=NAMESPACE)


def test_the_readmes_store_secret_is_the_one_the_chart_refers_to(chart: Any) -> None:
    readme = (REPOSITORY / "helm" / "README.md").read_text(encoding="utf-8")
    bundle_secret = default_values()["store"]["bundleSecret"]
    assert (f"kubectl create secret generic {bundle_secret['secretName']} --namespace falcon \\\n"
            f"  --from-literal={bundle_secret['secretKey']}=") in readme
    (block,) = [b for b in re.findall(r"```yaml\n(.*?)```", readme, re.DOTALL) if "bundleSecret" in b]
    objects = render(chart, {**yaml.safe_load(block), **WITH_AIRFLOW})
    assert [o for o in objects if o["kind"] == "Secret"] == []  # made by hand; airflow.secret still names it
    assert settings(objects)["AIRFLOW__FALCON__STORE"] == "database"


@pytest.mark.parametrize("backend", ["sqlite", "", "Database", "files", True])
def test_schema_refuses_an_unknown_store_backend(chart: Any, backend: Any) -> None:
    with pytest.raises(helm.HelmValuesError, match=r"store/backend"):
        chart.render({"store": {"backend": backend}}, name=RELEASE, namespace=NAMESPACE)


@pytest.mark.parametrize(("store", "where"), [
    ({"url": "falcon-api-server:8080/falcon"}, "store/url"),  # no scheme: httpx would not know where to go
    ({"leaseSeconds": 0}, "store/leaseSeconds"),
    ({"bundle": {"refreshInterval": 0}}, "store/bundle/refreshInterval"),
    ({"bundle": {"kwargs": {"refresh_interval": 5}}}, "store/bundle/kwargs"),  # refreshInterval sets it
    # store.url sets it, for every component
    ({"bundle": {"kwargs": {"store_url": "http://elsewhere/falcon"}}}, "store/bundle/kwargs"),
    ({"extraBundles": [{"name": "mine", "classpath": "not a class path"}]}, "store/extraBundles/0/classpath"),
    ({"extraBundles": [{"classpath": "my.Bundle"}]}, "store/extraBundles/0"),
])
def test_schema_refuses_store_settings_the_bundle_would_misread(chart: Any, store: dict[str, Any],
                                                                 where: str) -> None:
    with pytest.raises(helm.HelmValuesError, match=where):
        chart.render({"store": store}, name=RELEASE, namespace=NAMESPACE)


def test_spark_role_has_what_spark_on_kubernetes_needs_and_is_bound_to_its_service_account(chart: Any) -> None:
    objects = render(chart)
    role, binding = one(objects, "Role"), one(objects, "RoleBinding")
    account = one(objects, "ServiceAccount")
    granted: dict[str, set[str]] = {}
    for rule in role["rules"]:
        assert rule["apiGroups"] == [""]
        for resource in rule["resources"]:
            granted.setdefault(resource, set()).update(rule["verbs"])
    for resource, verbs in SPARK_NEEDS.items():
        assert verbs <= granted.get(resource, set()), f"{resource}: missing {verbs - granted.get(resource, set())}"
    assert "*" not in {verb for verbs in granted.values() for verb in verbs}
    assert "secrets" not in granted

    assert binding["roleRef"] == {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role",
                                  "name": role["metadata"]["name"]}
    subjects = {(s["kind"], s["name"], s["namespace"]) for s in binding["subjects"]}
    assert ("ServiceAccount", account["metadata"]["name"], NAMESPACE) in subjects
    # The Airflow pods that run spark-submit (and client-mode drivers) get the role as well.
    airflow = default_values()["airflow"]
    for submitter in (airflow["workers"]["serviceAccount"]["name"], airflow["scheduler"]["serviceAccount"]["name"]):
        assert ("ServiceAccount", submitter, NAMESPACE) in subjects
    assert account["automountServiceAccountToken"] is True


def test_spark_defaults_point_spark_at_the_release(chart: Any) -> None:
    objects = render(chart)
    conf = spark_defaults(objects)
    account = one(objects, "ServiceAccount")["metadata"]["name"]
    airflow = default_values()["airflow"]
    assert conf["spark.kubernetes.namespace"] == NAMESPACE
    assert conf["spark.kubernetes.container.image"] == (
        f"{airflow['defaultAirflowRepository']}:{airflow['defaultAirflowTag']}")
    assert conf["spark.kubernetes.authenticate.driver.serviceAccountName"] == account
    assert conf["spark.kubernetes.authenticate.executor.serviceAccountName"] == account
    assert conf["spark.kubernetes.executor.podTemplateFile"] == "/opt/airflow/spark-conf/executor-pod-template.yaml"
    assert (conf["spark.executor.instances"], conf["spark.executor.memory"]) == ("2", "2g")

    custom = spark_defaults(render(chart, {"spark": {
        "image": {"repository": "registry.example/falcon-airflow", "tag": "1.2.3"},
        "executor": {"instances": 5, "memory": "4g"},
        "conf": {"spark.hadoop.fs.s3a.endpoint": "http://minio:9000"},
    }}))
    assert custom["spark.kubernetes.container.image"] == "registry.example/falcon-airflow:1.2.3"
    assert (custom["spark.executor.instances"], custom["spark.executor.memory"]) == ("5", "4g")
    assert custom["spark.hadoop.fs.s3a.endpoint"] == "http://minio:9000"


def test_executor_pod_template_runs_the_executor_backend_as_non_root(chart: Any) -> None:
    objects = render(chart)
    conf = spark_defaults(objects)
    pod = yaml.safe_load(one(objects, "ConfigMap", "spark")["data"]["executor-pod-template.yaml"])
    assert pod["kind"] == "Pod"
    assert pod["spec"]["securityContext"]["runAsNonRoot"] is True
    assert pod["spec"]["securityContext"]["runAsUser"] != 0
    assert pod["spec"]["serviceAccountName"] == conf["spark.kubernetes.authenticate.executor.serviceAccountName"]
    (container,) = pod["spec"]["containers"]
    assert container["name"] == conf["spark.kubernetes.executor.podTemplateContainerName"]
    assert container["securityContext"]["allowPrivilegeEscalation"] is False
    assert container["command"][:2] == ["/bin/bash", "-c"]
    assert "org.apache.spark.scheduler.cluster.k8s.KubernetesExecutorBackend" in container["command"][2]


# -- labels and namespaces ------------------------------------------------------------------------------------


def test_labels_are_consistent(chart: Any) -> None:
    objects = render(chart, {"entities": {"files": {"a.xml": "<x/>"}}, "commonLabels": {"team": "data"}})
    version = chart.metadata["version"]
    for o in objects:
        labels = o["metadata"]["labels"]
        assert labels["app.kubernetes.io/name"] == "falcon-airflow"
        assert labels["app.kubernetes.io/instance"] == RELEASE
        assert labels["app.kubernetes.io/managed-by"] == "Helm"
        assert labels["app.kubernetes.io/part-of"] == "falcon-airflow"
        assert labels["app.kubernetes.io/version"] == chart.metadata["appVersion"]
        assert labels["helm.sh/chart"] == f"falcon-airflow-{version}"
        assert labels["app.kubernetes.io/component"] in {"entities", "config", "spark", "store"}
        assert labels["team"] == "data"
        assert all(len(value) <= 63 for value in labels.values())
    pod = yaml.safe_load(one(objects, "ConfigMap", "spark")["data"]["executor-pod-template.yaml"])
    assert pod["metadata"]["labels"]["app.kubernetes.io/instance"] == RELEASE


@pytest.mark.parametrize("namespace", ["team-a", "lineage-prod"])
def test_everything_lands_in_the_release_namespace(chart: Any, namespace: str) -> None:
    objects = render(chart, {"entities": {"files": {"a.xml": "<x/>"}}}, namespace=namespace)
    for o in objects:
        assert o["metadata"]["namespace"] == namespace, o["__template"]
    for subject in one(objects, "RoleBinding")["subjects"]:
        assert subject["namespace"] == namespace
    assert spark_defaults(objects)["spark.kubernetes.namespace"] == namespace
    text = "\n".join(chart.render({}, name=RELEASE, namespace=namespace).values())
    assert not re.search(r"namespace\W+default\b", text)


# -- values overrides -----------------------------------------------------------------------------------------


def test_without_rbac_creation_there_is_no_role(chart: Any) -> None:
    kinds = {o["kind"] for o in render(chart, {"spark": {"rbac": {"create": False}}})}
    assert "Role" not in kinds and "RoleBinding" not in kinds
    assert "ServiceAccount" in kinds


def test_an_existing_service_account_is_used_not_created(chart: Any) -> None:
    objects = render(chart, {"spark": {"serviceAccount": {"create": False, "name": "spark-runner"}}})
    assert "ServiceAccount" not in {o["kind"] for o in objects}
    assert spark_defaults(objects)["spark.kubernetes.authenticate.executor.serviceAccountName"] == "spark-runner"
    subjects = one(objects, "RoleBinding")["subjects"]
    assert ("ServiceAccount", "spark-runner") in {(s["kind"], s["name"]) for s in subjects}


def test_without_spark_on_kubernetes_only_the_falcon_configmaps_and_the_store_secret_remain(chart: Any) -> None:
    objects = render(chart, {"spark": {"kubernetes": {"enabled": False}}})
    assert sorted(o["metadata"]["name"] for o in objects) == [
        "falcon-airflow-config", "falcon-airflow-entities", "falcon-airflow-store"]
    assert "SPARK_CONF_DIR" not in one(objects, "ConfigMap", "config")["data"]


def test_git_sync_mode_renders_no_entities_configmap(chart: Any) -> None:
    objects = render(chart, {"entities": {"source": "gitSync", "files": {"ignored.xml": "<x/>"}}})
    assert [o for o in objects if o["metadata"]["name"].endswith("-entities")] == []
    data = one(objects, "ConfigMap", "config")["data"]
    assert data["FALCON_ENTITIES_DIR"] == "/opt/airflow/dags/repo/entities"

    moved = one(render(chart, {"entities": {"source": "gitSync", "gitSync": {"subPath": "pipelines/falcon/"}}}),
                "ConfigMap", "config")["data"]
    assert moved["FALCON_ENTITIES_DIR"] == "/opt/airflow/dags/repo/pipelines/falcon"


def test_the_readmes_git_sync_values_render(chart: Any) -> None:
    readme = (REPOSITORY / "helm" / "README.md").read_text(encoding="utf-8")
    (block,) = [b for b in re.findall(r"```yaml\n(.*?)```", readme, re.DOTALL) if "gitSync" in b]
    data = one(render(chart, yaml.safe_load(block)), "ConfigMap", "config")["data"]
    assert data["FALCON_ENTITIES_DIR"] == "/opt/airflow/dags/repo/entities"


def test_git_sync_mode_with_airflow_needs_the_airflow_git_sync(chart: Any) -> None:
    values = {"entities": {"source": "gitSync"}, "airflow": {"enabled": True}}
    with pytest.raises(helm.HelmRenderError, match=r"gitSync\.enabled"):
        chart.render(values, name=RELEASE, namespace=NAMESPACE)


def test_unknown_entities_source_is_refused(chart: Any) -> None:
    with pytest.raises(helm.HelmValuesError, match="configMap"):
        chart.render({"entities": {"source": "s3"}}, name=RELEASE, namespace=NAMESPACE)


def test_names_follow_the_release_without_the_fixed_prefix(chart: Any) -> None:
    names = {o["metadata"]["name"] for o in render(chart, {"fullnameOverride": ""}, name="etl")}
    # the store's Secret is named by store.bundleSecret.secretName, which airflow.secret repeats
    assert names == {"etl-falcon-airflow-config", "etl-falcon-airflow-entities", "etl-falcon-airflow-spark",
                     "falcon-airflow-store"}


# -- the chart and the Airflow chart's values -----------------------------------------------------------------


def test_airflow_chart_is_an_optional_dependency_off_by_default(chart: Any) -> None:
    (dependency,) = chart.metadata["dependencies"]
    assert dependency["name"] == "airflow"
    assert dependency["repository"] == "https://airflow.apache.org"
    assert dependency["condition"] == "airflow.enabled"
    assert re.fullmatch(r">=1\.\d+\.\d+ <2\.0\.0", dependency["version"])
    assert chart.metadata["apiVersion"] == "v2" and chart.metadata["type"] == "application"
    assert chart.values["airflow"]["enabled"] is False
    assert chart.dependencies == []  # nothing vendored: the archive comes from `helm dependency build`
    assert [d["status"] for d in helm.dependency_list(CHART)] == ["missing"]


def test_airflow_values_refer_to_the_rendered_objects(chart: Any) -> None:
    values = default_values()
    airflow = values["airflow"]
    objects = render(chart)
    names = {o["metadata"]["labels"]["app.kubernetes.io/component"]: o["metadata"]["name"]
             for o in objects if o["kind"] == "ConfigMap"}

    volumes = {v["name"]: v["configMap"] for v in airflow["volumes"]}
    mounts = {m["name"]: m["mountPath"] for m in airflow["volumeMounts"]}
    assert volumes["falcon-entities"] == {"name": names["entities"], "optional": True}
    assert volumes["falcon-spark-conf"]["name"] == names["spark"]
    assert mounts["falcon-entities"] == values["entities"]["mountPath"]
    assert mounts["falcon-spark-conf"] == values["spark"]["confMountPath"]
    assert yaml.safe_load(airflow["extraEnvFrom"]) == [{"configMapRef": {"name": names["config"]}}]
    assert {e["name"] for e in yaml.safe_load(airflow["extraEnv"])} == {"SPARK_LOCAL_IP", "SPARK_LOCAL_HOSTNAME"}
    assert set(values["spark"]["rbac"]["submitterServiceAccounts"]) == {
        airflow["workers"]["serviceAccount"]["name"], airflow["scheduler"]["serviceAccount"]["name"]}

    # The image: ours, of this package's version, on the Airflow version the constraints pin.
    assert airflow["defaultAirflowTag"] == chart.metadata["appVersion"]
    assert airflow["airflowVersion"] == pinned("apache-airflow")
    assert airflow["securityContexts"]["pod"]["runAsNonRoot"] is True
    assert airflow["dags"]["gitSync"]["enabled"] is False


def test_lint_reports_no_errors(chart: Any) -> None:
    for values in (None, {"entities": {"source": "gitSync"}}, {"entities": {"files": example_entity_files()}},
                   {"store": {"backend": "folder"}}):
        report = helm.lint(CHART, values, namespace=NAMESPACE)
        assert report["errors"] == [], report
        assert [m for m in report["messages"] if m["severity"] >= 3] == [], report
        # The one warning allowed: the Airflow chart is declared but not downloaded (offline).
        warnings = [m["error"] for m in report["messages"] if m["severity"] == 2]
        assert all("missing these dependencies: airflow" in w for w in warnings), warnings


def test_notes_say_where_the_entities_come_from(chart: Any) -> None:
    notes = chart.render({"entities": {"files": {"a.xml": "<x/>"}}}, name=RELEASE, namespace=NAMESPACE)
    text = next(v for k, v in notes.items() if k.endswith("NOTES.txt"))
    assert "FALCON_ENTITIES_DIR=/opt/airflow/entities" in text and "holds 1 file(s)" in text
    assert NAMESPACE in text


# -- the image --------------------------------------------------------------------------------------------------


def test_dockerfile_builds_on_airflow_with_java_17_the_pinned_package_and_the_dags_file() -> None:
    text = (REPOSITORY / "Dockerfile").read_text(encoding="utf-8")
    instructions = [line.strip() for line in re.sub(r"\\\n", " ", text).splitlines()
                    if line.strip() and not line.lstrip().startswith("#")]
    assert instructions[0] == f"FROM apache/airflow:{pinned('apache-airflow')}-python3.11"

    def index(predicate: Any) -> int:
        return next(i for i, line in enumerate(instructions) if predicate(line))

    java = index(lambda line: "openjdk-17-jre-headless" in line)
    install = index(lambda line: "pip install" in line)
    assert index(lambda line: line == "USER root") < java < index(lambda line: line == "USER airflow") < install
    assert instructions[-1] != "USER root" and "USER root" not in instructions[java + 1:]
    assert "--constraint constraints.txt" in instructions[install]
    assert "'.[airflow,spark]'" in instructions[install]
    copies = [line for line in instructions if line.startswith("COPY")]
    assert any("constraints.txt" in c and "pyproject.toml" in c and "README.md" in c for c in copies)
    assert any(re.search(r"\bsrc/", c) for c in copies)
    assert any(re.search(r"\bdags/ /opt/airflow/dags/?$", c) for c in copies)
    assert f"ENV FALCON_ENTITIES_DIR={default_values()['entities']['mountPath']}" in instructions
    # the s3a and JDBC jars of the jar cache, resolved as root from the pinned poms, before the user switch
    jars = index(lambda line: "dependency:copy-dependencies" in line)
    assert java < jars < index(lambda line: line == "USER airflow")
    assert "--strict-checksums" in instructions[jars] and "for group in s3a jdbc" in instructions[jars]
    assert "apt-get purge -y --auto-remove maven" in instructions[jars]
    assert any("deps/maven/s3a.pom.xml" in c and "deps/maven/jdbc.pom.xml" in c for c in copies)
    assert "ENV FALCON_AIRFLOW_JARS=/opt/falcon-airflow/jars" in instructions


def test_dockerignore_keeps_the_build_context_to_the_package() -> None:
    patterns = {line.strip() for line in (REPOSITORY / ".dockerignore").read_text(encoding="utf-8").splitlines()
                if line.strip() and not line.startswith("#")}
    assert {".venv", ".venv-s3", "airflow-home", "tests", ".git"} <= patterns
    needed = {"src", "dags", "pyproject.toml", "constraints.txt", "README.md", "deps", "deps/maven"}
    assert not needed & {pattern.strip("/") for pattern in patterns}


# -- Falcon's distributed mode: colo releases and a Prism (docs/prism.md, "Deploying with Helm") -------------------

PRISM_SECRET_VARIABLE = "AIRFLOW__FALCON__PRISM_SECRET"


def api_server_env_with(*entries: dict[str, Any]) -> list[dict[str, Any]]:
    """airflow.apiServer.env of a release: the chart's entries (a values file's list replaces them) and more."""
    return [*default_values()["airflow"]["apiServer"]["env"], *entries]


def prism_secret_reference(name: str = "falcon-prism", key: str = "prism-secret") -> dict[str, Any]:
    return {"name": PRISM_SECRET_VARIABLE, "valueFrom": {"secretKeyRef": {"name": name, "key": key}}}


COLO_EAST = {
    "falcon": {"colo": {"name": "east", "acceptWritesFrom": "prism"},
               "prism": {"secret": {"secretName": "falcon-prism", "secretKey": "prism-secret"}}},
    "airflow": {"apiServer": {"env": api_server_env_with(prism_secret_reference())}},
}

PRISM = {
    "falcon": {"prism": {
        "enabled": True,
        "colos": {"east": "https://falcon-east.example.com/falcon/", "west": "https://falcon-west.example.com/falcon"},
        "timeout": 45,
        "secret": {"secretName": "falcon-prism", "secretKey": "prism-secret"},
        "tls": {"secretName": "falcon-prism-tls", "mountPath": "/etc/falcon/prism"},
    }},
    "airflow": {"apiServer": {
        "env": api_server_env_with(prism_secret_reference()),
        "extraVolumes": [{"name": "falcon-prism-tls", "secret": {"secretName": "falcon-prism-tls"}}],
        "extraVolumeMounts": [{"name": "falcon-prism-tls", "mountPath": "/etc/falcon/prism", "readOnly": True}],
    }},
}

DISTRIBUTED_KEYS = {"AIRFLOW__FALCON__MODE", "AIRFLOW__FALCON__COLO", "AIRFLOW__FALCON__ACCEPT_WRITES_FROM",
                    "AIRFLOW__FALCON__PRISM_COLOS", "AIRFLOW__FALCON__PRISM_TIMEOUT", "AIRFLOW__FALCON__PRISM_IDENTITY",
                    "AIRFLOW__FALCON__PRISM_CA_FILE", "AIRFLOW__FALCON__PRISM_CLIENT_CERT",
                    "AIRFLOW__FALCON__PRISM_CLIENT_KEY", PRISM_SECRET_VARIABLE}


def test_defaults_render_no_distributed_mode(chart: Any) -> None:
    data = settings(render(chart))
    assert not DISTRIBUTED_KEYS & set(data)
    assert "prism" not in json.dumps(data).lower()
    values = default_values()
    assert PRISM_SECRET_VARIABLE not in json.dumps(values["airflow"])
    assert values["falcon"]["prism"]["enabled"] is False and values["falcon"]["colo"]["name"] == ""


def test_a_colo_release_renders_its_colo_and_whom_it_accepts_writes_from(chart: Any) -> None:
    objects = render(chart, COLO_EAST)
    data = settings(objects)
    assert data["AIRFLOW__FALCON__COLO"] == "east"
    assert data["AIRFLOW__FALCON__ACCEPT_WRITES_FROM"] == "prism"
    assert not {"AIRFLOW__FALCON__MODE", "AIRFLOW__FALCON__PRISM_COLOS"} & set(data)
    # the shared secret comes from a secretKeyRef to the api-server, never from a ConfigMap
    (entry,) = [e for e in COLO_EAST["airflow"]["apiServer"]["env"] if e["name"] == PRISM_SECRET_VARIABLE]
    assert entry["valueFrom"]["secretKeyRef"] == {"name": "falcon-prism", "key": "prism-secret"}
    for o in objects:
        if o["kind"] == "ConfigMap":
            assert "prism_secret" not in json.dumps(o).lower(), o["metadata"]["name"]


PRISM_PROBE = """
import json, sys
from falcon_airflow.operate.settings import Settings
from falcon_airflow.server.configuration import AirflowConfig
from falcon_airflow.server.prism.colo_access import ColoAccess
from falcon_airflow.server.prism.colos import PrismSettings, server_mode
from falcon_airflow.server.prism_identity import prove, writes_refused
config = AirflowConfig()
read = {"mode": server_mode(config.get("falcon", "mode")),
        "colo": Settings.resolve(airflow_config=lambda section, key: config.get(section, key) or "").colo}
if read["mode"] == "prism":
    prism, access = PrismSettings.from_config(config.get), ColoAccess.from_config(config.get)
    read.update(colos=[[colo.name, colo.url] for colo in prism.colos], timeout=prism.timeout,
                identity=access.identity, tls=access.tls is not None, proof=prove(access.key, access.identity))
else:
    read.update(direct=writes_refused(config.get, "entity", "submit", None),
                through_prism=writes_refused(config.get, "entity", "submit", sys.argv[1]))
print(json.dumps(read))
"""


def read_as_the_server(data: dict[str, str], folder: Path, *argv: str) -> dict[str, Any]:
    """What the server reads from a release's ConfigMap as its api-server's environment, with the Prism's shared
    secret as its Secret gives it (the api-server's secretKeyRef)."""
    environment = {"PATH": os.environ.get("PATH", ""), "HOME": str(folder), "AIRFLOW_HOME": str(folder), **data,
                   PRISM_SECRET_VARIABLE: "the-shared-prism-secret"}
    done = subprocess.run(["bash", "-c", 'exec "$0" -c "$@"', sys.executable, PRISM_PROBE, *argv], env=environment,
                          cwd=folder, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_rendered_colo_and_prism_settings_are_what_the_server_reads(chart: Any, tmp_path: Path) -> None:
    """The Prism release's ConfigMap gives the Prism its colos, its timeout and its certificate (files of the
    mounted Secret, here a folder with a certificate made for the test); the colo release's gives the colo its
    name and takes a change only with the proof the Prism release makes. Only keys the provider declares are
    rendered for the distributed mode (the chart's authorization keys, read by the server too, are not declared
    options: the provider's list is no test of those)."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    from falcon_airflow.provider import info

    mounted = tmp_path / "prism-tls"
    mounted.mkdir()
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "prism")])
    now = datetime.datetime.now(datetime.UTC)
    certificate = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
                   .serial_number(x509.random_serial_number()).not_valid_before(now)
                   .not_valid_after(now + datetime.timedelta(days=1))
                   .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
                   .sign(key, hashes.SHA256()))
    for file in ("ca.crt", "tls.crt"):
        (mounted / file).write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    (mounted / "tls.key").write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                        serialization.NoEncryption()))
    api_server = PRISM["airflow"]["apiServer"]
    prism_values = {
        "falcon": {"prism": {**PRISM["falcon"]["prism"], "tls": {"secretName": "falcon-prism-tls",
                                                                 "mountPath": str(mounted)}}},
        "airflow": {"apiServer": {**api_server, "extraVolumeMounts": [
            {"name": "falcon-prism-tls", "mountPath": str(mounted), "readOnly": True}]}},
    }
    prism_data, colo_data = settings(render(chart, prism_values)), settings(render(chart, COLO_EAST))
    options = info.get_provider_info()["config"]["falcon"]["options"]
    for data in (prism_data, colo_data):
        for variable in DISTRIBUTED_KEYS & set(data):
            assert variable.removeprefix("AIRFLOW__FALCON__").lower() in options, variable

    (tmp_path / "prism").mkdir()
    prism = read_as_the_server(prism_data, tmp_path / "prism")
    assert {key: value for key, value in prism.items() if key != "proof"} == {
        "mode": "prism", "colo": None, "identity": "prism", "tls": True, "timeout": 45.0,
        "colos": [["east", "https://falcon-east.example.com/falcon"],
                  ["west", "https://falcon-west.example.com/falcon"]]}
    (tmp_path / "east").mkdir()
    east = read_as_the_server(colo_data, tmp_path / "east", prism["proof"])
    assert east["mode"] == "embedded" and east["colo"] == "east"
    assert east["through_prism"] is None, east
    assert "only from the Prism 'prism'" in east["direct"], east


def test_the_prisms_shared_secret_must_come_from_the_named_secret(chart: Any) -> None:
    colo = {"falcon": COLO_EAST["falcon"]}
    with pytest.raises(helm.HelmRenderError, match=rf"airflow\.apiServer\.env must set {PRISM_SECRET_VARIABLE}"):
        chart.render(colo, name=RELEASE, namespace=NAMESPACE)
    with pytest.raises(helm.HelmRenderError, match=rf"airflow\.apiServer\.env must set {PRISM_SECRET_VARIABLE}"):
        chart.render({**colo, "airflow": {"apiServer": {"env": api_server_env_with(
            prism_secret_reference(key="other"))}}}, name=RELEASE, namespace=NAMESPACE)
    with pytest.raises(helm.HelmRenderError, match=r"falcon\.prism\.secret\.secretName is empty"):
        chart.render({"airflow": COLO_EAST["airflow"]}, name=RELEASE, namespace=NAMESPACE)
    for text in ({"falcon": {"extraEnv": {PRISM_SECRET_VARIABLE: "s3cret-s3cret"}}},
                 {"airflow": {"config": {"falcon": {"prism_secret": "s3cret-s3cret"}}}},
                 {"airflow": {"env": [{"name": PRISM_SECRET_VARIABLE, "value": "s3cret-s3cret"}]}},
                 {"airflow": {"apiServer": {"env": api_server_env_with(
                     {"name": PRISM_SECRET_VARIABLE, "value": "s3cret-s3cret"})}}}):
        with pytest.raises(helm.HelmRenderError, match="Secret"):
            chart.render(text, name=RELEASE, namespace=NAMESPACE)


def test_a_prism_release_renders_mode_prism_its_colos_and_mounts_its_certificate_secret(chart: Any) -> None:
    objects = render(chart, PRISM)
    data = settings(objects)
    assert data["AIRFLOW__FALCON__MODE"] == "prism"
    assert data["AIRFLOW__FALCON__PRISM_COLOS"] == (
        "east=https://falcon-east.example.com/falcon,west=https://falcon-west.example.com/falcon")
    assert data["AIRFLOW__FALCON__PRISM_TIMEOUT"] == "45"
    assert data["AIRFLOW__FALCON__PRISM_IDENTITY"] == "prism"
    assert data["AIRFLOW__FALCON__PRISM_CA_FILE"] == "/etc/falcon/prism/ca.crt"
    assert data["AIRFLOW__FALCON__PRISM_CLIENT_CERT"] == "/etc/falcon/prism/tls.crt"
    assert data["AIRFLOW__FALCON__PRISM_CLIENT_KEY"] == "/etc/falcon/prism/tls.key"
    assert not {"AIRFLOW__FALCON__COLO", "AIRFLOW__FALCON__ACCEPT_WRITES_FROM"} & set(data)
    # the certificate and key are files of the Secret, mounted in the api-server where the settings point
    api_server = PRISM["airflow"]["apiServer"]
    (volume,) = api_server["extraVolumes"]
    assert volume["secret"]["secretName"] == PRISM["falcon"]["prism"]["tls"]["secretName"]
    (mount,) = api_server["extraVolumeMounts"]
    assert mount["name"] == volume["name"]
    assert os.path.dirname(data["AIRFLOW__FALCON__PRISM_CLIENT_CERT"]) == mount["mountPath"]
    for o in objects:
        if o["kind"] == "ConfigMap":
            assert "BEGIN" not in json.dumps(o), o["metadata"]["name"]

    # without the mount (the Airflow chart's values are not templated) the chart refuses to render
    unmounted = {"falcon": PRISM["falcon"], "airflow": {"apiServer": {"env": api_server["env"]}}}
    with pytest.raises(helm.HelmRenderError, match=r"airflow\.apiServer\.extraVolumes must hold a volume"):
        chart.render(unmounted, name=RELEASE, namespace=NAMESPACE)
    elsewhere = {"falcon": PRISM["falcon"], "airflow": {"apiServer": {
        **api_server, "extraVolumeMounts": [{"name": "falcon-prism-tls", "mountPath": "/etc/other"}]}}}
    with pytest.raises(helm.HelmRenderError, match="extraVolumeMounts must mount"):
        chart.render(elsewhere, name=RELEASE, namespace=NAMESPACE)


def test_a_release_is_a_colo_or_the_prism_and_a_prism_names_its_colos(chart: Any) -> None:
    both = {"falcon": {**PRISM["falcon"], "colo": {"name": "east"}}, "airflow": PRISM["airflow"]}
    with pytest.raises(helm.HelmRenderError, match="makes this release the Prism"):
        chart.render(both, name=RELEASE, namespace=NAMESPACE)
    with pytest.raises(helm.HelmRenderError, match=r"needs falcon\.prism\.colos"):
        chart.render({"falcon": {"prism": {"enabled": True}}}, name=RELEASE, namespace=NAMESPACE)
    with pytest.raises(helm.HelmValuesError):
        chart.render({"falcon": {"prism": {"colos": {"east": "falcon-east:8080"}}}}, name=RELEASE,
                     namespace=NAMESPACE)
    with pytest.raises(helm.HelmValuesError):
        chart.render({"falcon": {"colo": {"name": "east,west"}}}, name=RELEASE, namespace=NAMESPACE)


def prism_doc_values() -> dict[str, dict[str, Any]]:
    """The values files of docs/prism.md's Helm deployment: its yaml blocks whose first line names the file."""
    text = (REPOSITORY / "docs" / "prism.md").read_text(encoding="utf-8")
    found: dict[str, dict[str, Any]] = {}
    for block in re.findall(r"```yaml\n(.*?)```", text, re.DOTALL):
        named = re.match(r"# (values-[a-z]+\.yaml):", block)
        if named:
            found[named.group(1)] = yaml.safe_load(block)
    return found


def test_the_helm_deployment_of_docs_prism_renders_two_colos_and_their_prism(chart: Any) -> None:
    documented = prism_doc_values()
    assert set(documented) == {"values-east.yaml", "values-prism.yaml"}
    # values-west.yaml, as the page makes it: values-east.yaml with west for east
    west = yaml.safe_load(yaml.safe_dump(documented["values-east.yaml"]).replace("east", "west"))
    colos = {"east": documented["values-east.yaml"], "west": west}
    prism_values = documented["values-prism.yaml"]
    prism = settings(render(chart, prism_values, name="prism", namespace="falcon-prism"))
    assert prism["AIRFLOW__FALCON__MODE"] == "prism"
    urls = dict(part.split("=", 1) for part in prism["AIRFLOW__FALCON__PRISM_COLOS"].split(","))
    assert list(urls) == ["east", "west"]
    tls = prism_values["falcon"]["prism"]["tls"]
    assert [prism[f"AIRFLOW__FALCON__PRISM_{key}"] for key in ("CA_FILE", "CLIENT_CERT", "CLIENT_KEY")] == [
        f"{tls['mountPath']}/{name}" for name in ("ca.crt", "tls.crt", "tls.key")]
    # the chart's own api-server env entries stay (a values file's list replaces the chart's)
    chart_env = default_values()["airflow"]["apiServer"]["env"]
    for values in (prism_values, *colos.values()):
        assert all(entry in values["airflow"]["apiServer"]["env"] for entry in chart_env)
    for name, values in colos.items():
        namespace = f"falcon-{name}"
        data = settings(render(chart, values, name=name, namespace=namespace))
        assert data["AIRFLOW__FALCON__COLO"] == name
        assert data["AIRFLOW__FALCON__ACCEPT_WRITES_FROM"] == prism["AIRFLOW__FALCON__PRISM_IDENTITY"]
        # the Prism reaches the colo at the release's api-server Service (as NOTES.txt names it), over https
        rendered = chart.render(values, name=name, namespace=namespace)
        release_notes = next(text for template, text in rendered.items() if template.endswith("NOTES.txt"))
        (cluster_url,) = [line.split()[-1] for line in release_notes.splitlines()
                          if line.strip().startswith("From the cluster:")]
        assert urls[name] == cluster_url.replace("http://", "https://", 1) == \
            f"https://{name}-api-server.{namespace}.svc:8080/falcon"
        # the colo's api-server serves https with the files of its TLS Secret, mounted where [api] ssl_* point
        api = values["airflow"]["config"]["api"]
        (volume,) = values["airflow"]["apiServer"]["extraVolumes"]
        (mount,) = values["airflow"]["apiServer"]["extraVolumeMounts"]
        assert volume["secret"]["secretName"] == f"falcon-{name}-tls" and mount["name"] == volume["name"]
        assert {os.path.dirname(api[key]) for key in ("ssl_cert", "ssl_key", "ssl_ca_file")} == {mount["mountPath"]}
        # both ends take the shared secret from the same Secret and key
        assert values["falcon"]["prism"]["secret"] == prism_values["falcon"]["prism"]["secret"]


KERBEROS = {
    "falcon": {"kerberos": {"principal": "airflow@EXAMPLE.COM", "secretName": "falcon-kerberos",
                            "mountPath": "/etc/falcon/kerberos", "keytabKey": "airflow.keytab",
                            "krb5ConfKey": "krb5.conf"}},
    "airflow": {
        "volumes": [{"name": "falcon-kerberos", "secret": {"secretName": "falcon-kerberos"}}],
        "volumeMounts": [{"name": "falcon-kerberos", "mountPath": "/etc/falcon/kerberos", "readOnly": True}]},
}


def test_a_kerberized_release_mounts_the_keytab_secret_and_names_its_files(chart: Any) -> None:
    data = settings(render(chart, KERBEROS))
    assert data["AIRFLOW__KERBEROS__PRINCIPAL"] == "airflow@EXAMPLE.COM"
    assert data["AIRFLOW__KERBEROS__KEYTAB"] == "/etc/falcon/kerberos/airflow.keytab"
    assert data["KRB5_CONFIG"] == "/etc/falcon/kerberos/krb5.conf"
    assert not {"AIRFLOW__KERBEROS__PRINCIPAL", "KRB5_CONFIG"} & set(settings(render(chart)))  # off by default

    # the keytab's Secret must be mounted where the settings point, in every Airflow container (airflow.volumes)
    unmounted = {"falcon": KERBEROS["falcon"]}
    with pytest.raises(helm.HelmRenderError, match=r"airflow\.volumes must hold a volume of it"):
        chart.render(unmounted, name=RELEASE, namespace=NAMESPACE)
    elsewhere = {"falcon": KERBEROS["falcon"], "airflow": {**KERBEROS["airflow"], "volumeMounts": [
        {"name": "falcon-kerberos", "mountPath": "/etc/other"}]}}
    with pytest.raises(helm.HelmRenderError, match="must mount that volume at /etc/falcon/kerberos"):
        chart.render(elsewhere, name=RELEASE, namespace=NAMESPACE)
    without_secret = {"falcon": {"kerberos": {"principal": "airflow@EXAMPLE.COM"}}}
    with pytest.raises(helm.HelmRenderError, match=r"needs falcon\.kerberos\.secretName"):
        chart.render(without_secret, name=RELEASE, namespace=NAMESPACE)
    with pytest.raises(helm.HelmValuesError, match="/falcon/kerberos/principal"):
        chart.render({"falcon": {"kerberos": {"principal": "not a principal"}}}, name=RELEASE, namespace=NAMESPACE)
