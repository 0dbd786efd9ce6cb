"""Airflow provider metadata (``apache_airflow_provider`` entry point): what ``airflow providers get`` shows, and
what Airflow registers from it (the plugin, the ``falcon`` asset URI scheme).

Kept free of Airflow imports so that reading it costs nothing; it is validated against Airflow's
``provider_info.schema.json`` in the tests, which also walk the package: every module defining a hook, operator,
sensor or trigger must be listed below, and every module listed must define one.

One constant per key: a new component is a line in its tuple, a new key (``db-managers``, ``bundles`` ...) a tuple
here and one line in :func:`get_provider_info`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from falcon_airflow import __version__

INTEGRATION = "Apache Falcon"

HOOK_MODULES = (
    "falcon_airflow.provider.hooks.oozie",
    "falcon_airflow.provider.hooks.spark",
)
OPERATOR_MODULES = (
    "falcon_airflow.provider.operators.database",
    "falcon_airflow.provider.operators.late_data",
    "falcon_airflow.provider.operators.oozie",
    "falcon_airflow.provider.operators.ordering",
    "falcon_airflow.provider.operators.outputs",
    "falcon_airflow.provider.operators.report",
    "falcon_airflow.provider.operators.rerun",
    "falcon_airflow.provider.operators.sla",
    "falcon_airflow.provider.operators.spark",
    "falcon_airflow.provider.operators.workflow_slot",
)
SENSOR_MODULES = (
    "falcon_airflow.provider.sensors.feed",
    "falcon_airflow.provider.sensors.sla",
)
TRIGGER_MODULES = (
    "falcon_airflow.provider.triggers.feed",
    "falcon_airflow.provider.triggers.slots",
)

PLUGINS: tuple[dict[str, str], ...] = (
    # The class the ``airflow.plugins`` entry point of pyproject.toml names too; Airflow loads it once, by its name.
    {"name": "falcon", "plugin-class": "falcon_airflow.provider.plugin.FalconPlugin"},
)

ASSET_URIS: tuple[dict[str, Any], ...] = (
    # Feeds as assets, falcon://<cluster>/<feed>. No to_openlineage_converter: the lineage of a feed instance is
    # its physical dataset, which names the feed in a ``symlinks`` facet (falcon_airflow.lineage.facets); an
    # instance-less falcon:// dataset in the events of tasks without an extractor would be a second identity.
    # No factory either: Airflow uses one only to turn hook lineage into such datasets.
    {"schemes": ("falcon",), "handler": "falcon_airflow.provider.asset_uris.sanitize_uri"},
)

CLI_COMMANDS = ("falcon_airflow.cli.airflow.airflow_cli_commands",)

DB_MANAGERS = (
    # The falcon_* tables of the configuration store, made and upgraded by ``airflow db migrate``.
    "falcon_airflow.provider.store_database.FalconStoreDBManager",
)


def _integration_modules(modules: Iterable[str]) -> list[dict[str, Any]]:
    return [{"integration-name": INTEGRATION, "python-modules": list(modules)}]


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
        "hooks": _integration_modules(HOOK_MODULES),
        "operators": _integration_modules(OPERATOR_MODULES),
        "sensors": _integration_modules(SENSOR_MODULES),
        "triggers": _integration_modules(TRIGGER_MODULES),
        "plugins": [dict(plugin) for plugin in PLUGINS],
        "asset-uris": [{**uris, "schemes": list(uris["schemes"])} for uris in ASSET_URIS],
        "cli": list(CLI_COMMANDS),
        "db-managers": list(DB_MANAGERS),
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
                    "default_job_user": _option(
                        "Who the jobs of an entity run as when it has neither a recorded -doAs user nor an ACL "
                        "owner (Spark's --proxy-user, each Oozie action's user). Empty: the deployment's own "
                        "identity. An entity never chooses its jobs' user (rule FA035).", "",
                        example="nobody"),
                    "workflow_slot_poke_seconds": _option(
                        "How often a waiting instance of an Oozie process asks whether it may start its "
                        "workflow (the process's parallel and order, checked by its workflow_slot task).", "10",
                        "integer"),
                    "open_impersonation": _option(
                        "With authorization_enabled off: let any user -doAs anybody. Off, -doAs follows the "
                        "proxyuser.<user>.hosts and .groups rules whether authorization is on or not.", "False",
                        "boolean"),
                    "oozie_file_roots": _option(
                        "Comma-separated local folders Oozie actions may also read files from and change on the "
                        "worker (<file>, <archive>, <script>, <jar>, attachments, file:// paths of fs, distcp and "
                        "<prepare>), besides the workflow application, the process's feeds and its cluster's "
                        "storage. A root must be two folders deep at least.", "",
                        example="/srv/shared/oozie-lib"),
                    "oozie_shell_environment": _option(
                        "Comma-separated names of worker environment variables an Oozie shell action's command "
                        "sees, besides paths, locale, time zone and the Java/Hadoop/Spark installation. Airflow's "
                        "own variables and names that look like secrets are never passed.", "",
                        example="PYTHONPATH"),
                    "dag_shards": _option(
                        "How many shard DAG files (dags/falcon_entities_<n>.py) the entities are spread over by a "
                        "stable hash of their DAG ids; a shard file beyond it loads nothing.", "4", "integer"),
                    "store_dir": _option(
                        "Where the falcon-airflow commands keep their state (config store, journal, history). "
                        "Empty: beside the entities folder.", ""),
                    "store": _option(
                        "Where Falcon's configuration store is: 'folder' (the entities folder and store_dir) or "
                        "'database' (Airflow's metadata database; the server writes it and the DAG bundle "
                        "falcon_airflow.dags.store_bundle.FalconStoreBundle lays it out for the dag-processor and "
                        "the workers). With 'database' the dags folder's falcon_entities*.py build no DAGs: the "
                        "store's bundle builds the entities folder's DAGs with the store's.", "folder",
                        example="database"),
                    "store_url": _option(
                        "Falcon's server as the store's DAG bundle reaches it from the dag-processor and the "
                        "workers. Empty: [api] base_url followed by /falcon.", "",
                        example="http://airflow-api-server:8080/falcon"),
                    "store_lease_seconds": _option(
                        "With store = database: how long a server that died while changing the store keeps the "
                        "others from changing it (the term of its lease), before the next one finishes or undoes "
                        "what it left half done.", "120", "float"),
                    "store_bundle_secret": {**_option(
                        "The secret the store's DAG bundle and the server derive the bundle key from (the "
                        "api-server, the dag-processor and the workers must have the same). Empty: derived from "
                        "[api_auth] jwt_secret.", ""), "sensitive": True},
                    "mode": _option(
                        "What the api-server's /falcon serves: 'embedded' - a Falcon server with its own store (one "
                        "colo); 'prism' - Falcon's Prism, which routes every request to the colos' servers of "
                        "prism_colos and merges their answers (docs/prism.md).", "embedded", example="prism"),
                    "colo": _option(
                        "The colo this deployment runs, when it is one colo of a distributed deployment behind a "
                        "Prism: only the DAGs of its colo's clusters are built (a feed's retention on a cluster of "
                        "the colo, a replication into one, a process on one), as Falcon's colo servers scheduled "
                        "them; the Falcon server's status and instance answers cover those DAGs. Unset: every DAG "
                        "of every colo.", "", example="east"),
                    "prism_colos": _option(
                        "With mode = prism: the colos and their Falcon servers' URLs, <colo>=<url>, "
                        "comma-separated.", "", example="east=http://east:8080/falcon,west=http://west:8080/falcon"),
                    "prism_timeout": _option(
                        "With mode = prism: seconds a colo's server has to answer one request before the colo "
                        "counts as failed (a colo's schedule or update may wait up to 120 s for its "
                        "dag-processor).", "150", "float"),
                    "prism_ca_file": _option(
                        "With mode = prism: the CA bundle (PEM) the colo servers' TLS certificates are checked "
                        "against (Falcon's Prism trust store). Empty: the default CA bundle.", "",
                        example="/etc/falcon/colos-ca.pem"),
                    "prism_client_cert": _option(
                        "With mode = prism: the client certificate (PEM) the Prism presents to the colos' "
                        "api-servers, which verify it with [api] ssl_ca_file and ssl_cert_reqs (docs/prism.md). Set "
                        "with prism_client_key.", "", example="/etc/falcon/prism.crt"),
                    "prism_client_key": _option(
                        "With mode = prism: the private key (PEM, unencrypted) of prism_client_cert.", "",
                        example="/etc/falcon/prism.key"),
                    "prism_identity": _option(
                        "With mode = prism: the name the Prism proves to its colo servers on every request, which "
                        "a colo server's accept_writes_from names.", "prism"),
                    "prism_secret": {**_option(
                        "The key that signs (on the Prism) and checks (on a colo server with accept_writes_from) "
                        "the Prism's proof; the Prism and its colos must have the same. Empty: derived from "
                        "[api_auth] jwt_secret.", ""), "sensitive": True},
                    "accept_writes_from": _option(
                        "On a colo server behind a Prism: the Prism (its prism_identity) whose requests alone may "
                        "submit, update, schedule, suspend, resume or delete entities here; any other is refused "
                        "with 403. Empty: any caller the server's authorization allows.", "", example="prism"),
                    "authentication": _option(
                        "How callers of Falcon's REST server (the api-server's /falcon/api/...) authenticate: "
                        "'airflow' - an Airflow token (Authorization: Bearer, from /auth/token) only; 'simple' - "
                        "also Falcon's pseudo authentication (user.name, then a signed hadoop.auth cookie), which "
                        "believes any name it is told: on a trusted network only. Kerberos is not offered.",
                        "airflow", example="simple"),
                    "authentication_secret": {**_option(
                        "The key that signs the simple scheme's hadoop.auth cookies; every api-server of a "
                        "deployment must have the same. Empty: derived from [api_auth] jwt_secret.", ""),
                        "sensitive": True},
                    "authentication_token_validity": _option(
                        "How long a hadoop.auth cookie of the simple scheme is valid, in seconds.", "36000",
                        "integer"),
                    "invalid_entities_as_import_errors": _option(
                        "Report every invalid entity as an import error of its own XML file (file, line, rule).",
                        "True", "boolean"),
                    "asset_partition_keys": _option(
                        "Feed asset events carry the instance as their partition key.", "True", "boolean"),
                    "broker_stomp_port": _option(
                        "STOMP port of the broker named by a cluster's messaging interface (Falcon's JMS "
                        "messages).", "61613", "integer"),
                    "retention_keep_instances_beyond_validity": _option(
                        "Retention stops at the feed's validity end, keeping the instances of its last retention "
                        "limit (Falcon's falcon.retention.keep.instances.beyond.validity).", "True", "boolean"),
                    "datasource_connections": _option(
                        "The Airflow connections a datasource's password-alias may resolve: comma-separated "
                        "fnmatch patterns of connection ids, {owner} standing for the datasource's ACL owner "
                        "(falcon_datasource_{owner}_* ties a connection to one owner). Any other alias is read "
                        "from the Hadoop credential provider only. Empty: no connection. A connection that names a "
                        "host gives its password to that host only (rule FA040).", "falcon_datasource_*",
                        example="falcon_datasource_{owner}_*"),
                    "datasource_credential_roots": _option(
                        "The folders under which a datasource's password-file and the keystore of a "
                        "password-alias's providerPath may lie: comma-separated paths or URIs, {owner} standing "
                        "for the datasource's ACL owner. Paths are decoded and normalised, '..' is refused and the "
                        "job resolves symbolic links before judging (rules FA040, FA041). Empty: none.", "",
                        example="/etc/falcon/datasource-secrets,hdfs:///secure/falcon/{owner}"),
                    "preload_task_modules": _option(
                        "Long-lived Airflow processes (the scheduler, whose executor forks the task processes) "
                        "import the loader, DAG builder and operators once when they load the plugin, so that no "
                        "task process pays those imports.", "True", "boolean"),
                },
            },
        },
    }
