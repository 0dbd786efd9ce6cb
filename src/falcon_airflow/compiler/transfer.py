"""Feed import and export DAGs: a feed instance read from a datasource table, or written into one, per instance.

Falcon ran ``<import>`` and ``<export>`` as Sqoop actions of a coordinator per feed and cluster; here each becomes
a DAG ``falcon.feed.<feed>.import.<cluster>`` / ``falcon.feed.<feed>.export.<cluster>`` on the feed's grid within
the cluster's validity, running ``jobs/db_import.py`` / ``jobs/db_export.py`` (Spark's JDBC source) with the
datasource's JDBC URL and a pinned driver. Sqoop arguments map to the jobs' options (see docs/import-export.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Literal

from falcon_airflow.compiler.common import (
    FEED_RETRY,
    catalogs_of,
    default_timeout_seconds,
    doc_header,
    feed_facts,
    group_access_of,
    job_file,
    job_py_files,
    owner_of,
    source_of,
    spark_master,
    tags_of,
)
from falcon_airflow.compiler.messaging import messaging_of
from falcon_airflow.compiler.specs import DatabaseSpec, LineageSpec, Schedule, SparkJob, TransferDagSpec
from falcon_airflow.compiler.templating import jinja, literal, template_values
from falcon_airflow.core.databases.drivers import DRIVERS, driver_problem, runtime_class
from falcon_airflow.core.secrets import redact_url, url_secrets
from falcon_airflow.entities import (
    Cluster,
    Credential,
    Datasource,
    DatasourceInterfaceType,
    Feed,
    FeedCluster,
    StorageKind,
)
from falcon_airflow.entities.feed import Argument, DatasourceRef
from falcon_airflow.errors import FalconAirflowError
from falcon_airflow.instances.feeds import FeedOnCluster
from falcon_airflow.timekeeping import format_falcon_date

INSTANCE = "macros.falcon.replicated_instance(falcon.feed, dag_run, 0)"
"""The feed instance a run imports or exports: the run's time on the feed's grid."""
FILTER = jinja("{{ macros.falcon.expand(falcon, falcon.filter, dag_run) }}")
"""The row filter or query as written (``falcon.filter``, data of the DAG), its EL resolved for the run."""

IMPORT_ARGUMENTS = ("--split-by", "--num-mappers", "--where", "--query", "--boundary-query", "--fetch-size",
                    "--direct")
"""Sqoop import arguments the job honours; any other is an error rather than silently dropped."""

FORMATS = {"parquet": "parquet", "orc": "orc", "json": "json", "csv": "csv"}
"""Schema providers that name a storage format; any other provider (Falcon's ``none``, ``protobuf`` …) stores
Parquet."""


def import_dag_id(feed: str, cluster: str) -> str:
    return f"falcon.feed.{feed}.import.{cluster}"


def export_dag_id(feed: str, cluster: str) -> str:
    return f"falcon.feed.{feed}.export.{cluster}"


def storage_format(feed: Feed) -> str:
    return FORMATS.get(feed.data_schema.provider.strip().lower(), "parquet")


def _owner(datasource: Datasource) -> str | None:
    return ((datasource.acl.owner if datasource.acl else None) or "").strip() or None


def _database(datasource: Datasource, kind: DatasourceInterfaceType, table: str, where: str) -> DatabaseSpec:
    interface = datasource.interface(kind)
    if interface is None:
        raise FalconAirflowError(f"{where} uses datasource '{datasource.name}', which has no {kind.value} interface")
    driver = interface.driver or datasource.driver
    problem = driver_problem(driver.clazz, datasource.type.value, interface.endpoint)
    if problem is not None:
        raise FalconAirflowError(f"{where} cannot use datasource '{datasource.name}': {problem}")
    secrets = url_secrets(interface.endpoint)
    if secrets:  # on the job's command line and in the DAG it would be anybody's to read (rule FA042)
        raise FalconAirflowError(f"{where} cannot use datasource '{datasource.name}': its {kind.value} endpoint "
                                 f"'{redact_url(interface.endpoint.strip())}' carries {', '.join(secrets)}; give "
                                 "the password in a <credential> (rule FA042)")
    known = DRIVERS[driver.clazz.strip()]
    credential: Credential | None = interface.credential or datasource.default_credential
    values: dict[str, str | None] = {}
    if credential is not None:
        alias = credential.password_alias
        values = {"credential_type": credential.type.value, "user": credential.user_name.strip(),
                  "password_file": credential.password_file.strip() if credential.password_file else None,
                  "password_alias": alias.alias.strip() if alias else None,
                  "credential_provider": alias.provider_path.strip() if alias else None}
    return DatabaseSpec(datasource=datasource.name, datasource_file=datasource.source.file, interface=kind.value,
                        url=interface.endpoint.strip(), driver=runtime_class(driver.clazz),
                        dialect=known.dialect.value,
                        driver_artifact=known.artifact.coordinate if known.artifact else None,
                        table=table.strip(), owner=_owner(datasource),
                        **values)


def _credential_arguments(database: DatabaseSpec) -> list[str]:
    """What the job is told of the credential: names and paths, never a password (the task passes a password
    text through a file of its own, see operators/database.py)."""
    arguments: list[str] = []
    if database.user:
        arguments += ["--user", database.user]
    if database.credential_type == "password-file" and database.password_file:
        arguments += ["--password-file", database.password_file]
    elif database.credential_type == "password-alias" and database.password_alias:
        arguments += ["--password-alias", database.password_alias,
                      "--credential-provider", database.credential_provider or ""]
    return arguments


def _spark_job(kind: str, feed: Feed, placement: FeedCluster, side: FeedOnCluster, database: DatabaseSpec,
               arguments: list[str]) -> SparkJob:
    master, deploy_mode = spark_master(side.cluster, None)
    # The URL, the table, the location and the names are entity text: escaped into the templated fields.
    common = ["--feed", feed.name, "--cluster", placement.name, "--instance", jinja(f"{{{{ {INSTANCE} }}}}"),
              "--timezone", feed.timezone, "--location", side.binding().location,
              "--url", database.url, "--driver", database.driver, "--dialect", database.dialect,
              "--table", database.table, *_credential_arguments(database),
              "--format", storage_format(feed)]
    return SparkJob(connection=placement.name, master=master, deploy_mode=deploy_mode,
                    application=literal(job_file(f"db_{kind}.py")),
                    py_files=literal(job_py_files()),
                    name=literal(f"falcon-{kind}-{feed.name}-{placement.name}"),
                    arguments=template_values([*common, *arguments, "--report",
                                               jinja("{{ macros.falcon.report_path(dag_run, task.task_id) }}")]),
                    queue=feed.property_map.get("queueName"))


def _arguments(arguments: tuple[Argument, ...]) -> dict[str, str]:
    return {argument.name: argument.value.strip() for argument in arguments}


def _on_cluster(workspace_clusters: Mapping[str, Cluster], feed: Feed, placement: FeedCluster,
                what: str) -> FeedOnCluster:
    side = FeedOnCluster(feed, placement, workspace_clusters.get(placement.name))
    if side.storage is not StorageKind.FILESYSTEM:
        raise FalconAirflowError(f"{what} of feed '{feed.name}' on cluster '{placement.name}': only feeds stored "
                                 "in folders can be imported or exported (this one is a catalog table)")
    return side


def _lineage(feed: Feed, entities_dir: Path | None, cluster: Cluster | None) -> LineageSpec:
    return LineageSpec(owner=feed.acl.owner or None, tags=feed.tag_pairs, groups=feed.groups,
                       feeds={feed.name: feed_facts(feed, entities_dir, cluster)}, catalogs=catalogs_of(cluster))


def _spec(kind: Literal["import", "export"], feed: Feed, placement: FeedCluster, side: FeedOnCluster,
          database: DatabaseSpec, job: SparkJob, entities_dir: Path | None, doc: list[str],
          **extra: object) -> TransferDagSpec:
    dag_id = import_dag_id(feed.name, placement.name) if kind == "import" else export_dag_id(feed.name,
                                                                                              placement.name)
    return TransferDagSpec(
        kind=kind, dag_id=dag_id, source=source_of(feed), feed=feed.name, cluster=placement.name,
        schedule=Schedule(start=format_falcon_date(placement.validity.start),
                          end=format_falcon_date(placement.validity.end), frequency=str(feed.frequency),
                          timezone=feed.timezone, catchup=False),
        database=database, feed_binding=side.binding(), job=job, retry=FEED_RETRY, owner=owner_of(feed.acl),
        group_access=group_access_of(feed.acl),
        tags=tags_of(feed.tag_pairs, "feed", kind, *(f"group={group}" for group in feed.groups)),
        doc_md="\n".join(doc), lineage=_lineage(feed, entities_dir, side.cluster),
        messaging=messaging_of(side.cluster, feed.property_map),
        emails=feed.notification.recipients if feed.notification is not None else (), **extra)


def compile_import(workspace_clusters: Mapping[str, Cluster], datasources: Mapping[str, Datasource], feed: Feed,
                   placement: FeedCluster, *, entities_dir: Path | None = None) -> TransferDagSpec:
    policy = placement.import_policy
    assert policy is not None
    where = f"import of feed '{feed.name}' on cluster '{placement.name}'"
    side = _on_cluster(workspace_clusters, feed, placement, "import")
    ref: DatasourceRef = policy.source
    datasource = datasources.get(ref.name)
    if datasource is None:
        raise FalconAirflowError(f"{where} refers to datasource '{ref.name}', which is not defined")
    database = _database(datasource, DatasourceInterfaceType.READONLY, ref.table_name, where)
    given = _arguments(policy.arguments)
    unknown = sorted(set(given) - set(IMPORT_ARGUMENTS))
    if unknown:
        raise FalconAirflowError(f"{where}: argument(s) {', '.join(unknown)} are not supported; supported: "
                                 f"{', '.join(IMPORT_ARGUMENTS)}")
    columns = ref.fields.fields if ref.fields is not None and ref.fields.mode == "includes" else ()
    arguments: list[str] = []
    if columns:
        arguments += ["--columns", ",".join(name.strip() for name in columns)]
    for name in ("--split-by", "--num-mappers", "--boundary-query", "--fetch-size"):
        if name in given:
            arguments += [name, given[name]]
    if "--direct" in given and given["--direct"].lower() != "false":  # a flag: any value but false turns it on
        stored_as = storage_format(feed)
        # csv: the server's CSV as it comes; parquet: COPY's rows converted by pyarrow in the driver (the job
        # imports through Spark, saying why, when a column's type is not one it converts as Spark does)
        if database.dialect != "postgres" or stored_as not in ("csv", "parquet"):
            raise FalconAirflowError(
                f"{where}: --direct streams PostgreSQL's COPY output into CSV or Parquet, so it needs a PostgreSQL "
                f"datasource and a feed whose schema provider is csv or none (Parquet) "
                f"(here: {database.dialect}, {stored_as})")
        arguments.append("--direct")
    filter_text = given.get("--where") or given.get("--query")
    if "--where" in given:
        arguments += ["--where", FILTER]
    elif "--query" in given:
        arguments += ["--query", FILTER]
    if feed.availability_flag:
        arguments += ["--availability-flag", feed.availability_flag]
    job = _spark_job("import", feed, placement, side, database, arguments)
    binding = side.binding()
    doc = [doc_header(feed, f"import on cluster `{placement.name}`"),
           f"Every {feed.frequency}: table `{database.table}` of datasource `{datasource.name}` "
           f"(`{redact_url(database.url)}`) becomes the feed instance at `{binding.location}`"
           + (f", rows where `{filter_text}`" if filter_text else "") + ".",
           "Rows land in a staging folder and are published by rename, then the availability flag is written; "
           "a rerun replaces the instance."]
    return _spec("import", feed, placement, side, database, job, entities_dir, doc, columns=tuple(columns),
                 filter=filter_text)


def compile_export(workspace_clusters: Mapping[str, Cluster], datasources: Mapping[str, Datasource], feed: Feed,
                   placement: FeedCluster, *, entities_dir: Path | None = None) -> TransferDagSpec:
    policy = placement.export_policy
    assert policy is not None
    where = f"export of feed '{feed.name}' on cluster '{placement.name}'"
    side = _on_cluster(workspace_clusters, feed, placement, "export")
    ref = policy.target
    datasource = datasources.get(ref.name)
    if datasource is None:
        raise FalconAirflowError(f"{where} refers to datasource '{ref.name}', which is not defined")
    database = _database(datasource, DatasourceInterfaceType.WRITE, ref.table_name, where)
    given = _arguments(policy.arguments)
    keys = tuple(name.strip() for name in given.get("--update-key", "").split(",") if name.strip())
    load: Literal["insert", "updateonly", "allowinsert"] = "insert"
    arguments: list[str] = []
    if keys:
        load = ref.load.type.value if ref.load is not None else "updateonly"
        arguments += ["--update-key", ",".join(keys), "--update-mode", load]
    for name in ("--num-mappers", "--input-null-string", "--input-null-non-string"):
        if name in given:
            arguments += [name, given[name]]
    job = _spark_job("export", feed, placement, side, database, arguments)
    timeout = default_timeout_seconds(feed.frequency)
    binding = side.binding()
    verb = {"insert": "inserted into", "updateonly": "updated in", "allowinsert": "upserted into"}[load]
    doc = [doc_header(feed, f"export on cluster `{placement.name}`"),
           f"Every {feed.frequency}, once the instance at `{binding.location}` is available: its rows are {verb} "
           f"table `{database.table}` of datasource `{datasource.name}` (`{redact_url(database.url)}`)"
           + (f" matched on {', '.join(keys)}" if keys else "") + ".",
           "Rows go to a staging table first; one transaction moves them and records the instance, so a failed "
           "or repeated run never leaves half a batch or duplicates."]
    return _spec("export", feed, placement, side, database, job, entities_dir, doc, update_key=keys, load=load,
                 wait_timeout_seconds=timeout)
