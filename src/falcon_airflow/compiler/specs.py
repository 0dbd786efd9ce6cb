"""DagSpecs: what the compiler produces and the DAG builder consumes - frozen, typed, JSON-serialisable.

A spec holds every decision the compiler made (ids, schedule, concurrency, retries, which job runs with which
arguments) as plain values; building the Airflow DAG from it is mechanical. Specs are the golden-test surface:
``spec.model_dump_json()`` of the example entities is checked in under tests/golden.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict

from falcon_airflow.instances.bindings import FeedBinding, InputBinding, OutputBinding

if TYPE_CHECKING:
    from falcon_airflow.compiler.oozie_spec import OozieWorkflowSpec


class Spec(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class EntitySource(Spec):
    type: Literal["cluster", "feed", "process", "datasource", "extension"]
    name: str
    file: str
    line: int | None = None


class Schedule(Spec):
    """A Falcon-frequency timetable: instances ``start + k * frequency`` in ``timezone`` until ``end``."""

    start: str
    end: str
    frequency: str
    timezone: str = "UTC"
    catchup: bool = True


class RetrySpec(Spec):
    """Falcon's retry: ``attempts`` retries after a failure, waits by ``policy`` from ``delay_seconds``."""

    policy: Literal["periodic", "exp-backoff", "final"]
    delay_seconds: int
    attempts: int
    on_timeout: bool = False


class SparkJob(Spec):
    """One spark-submit: where, what, with which conf and (templated) arguments.

    The fields named in :data:`SPARK_JOB_TEMPLATED` are Jinja text, rendered by Airflow for each run: the compiler
    builds them with :mod:`falcon_airflow.compiler.templating`, so entity text in them is escaped and renders as
    written. The other fields are plain values, never rendered."""

    connection: str
    """Airflow connection id that overrides ``master``/``deploy_mode`` when it exists (the cluster's name)."""
    master: str
    deploy_mode: str | None = None
    application: str
    java_class: str | None = None
    name: str
    conf: dict[str, str] = {}
    arguments: tuple[str, ...] = ()
    py_files: str | None = None
    jars: str | None = None
    files: str | None = None
    packages: str | None = None
    driver_memory: str | None = None
    executor_memory: str | None = None
    executor_cores: int | None = None
    num_executors: int | None = None
    total_executor_cores: int | None = None
    queue: str | None = None
    proxy_user: str | None = None
    env: dict[str, str] = {}
    lineage_events: str | None = None
    """Set when the application runs under ``jobs/lineage_driver.py``: the (templated) per-run file of OpenLineage
    events it writes, which the task forwards to the configured transport."""


SPARK_JOB_TEMPLATED = frozenset({"application", "name", "conf", "arguments", "py_files", "jars", "files", "packages",
                                 "proxy_user", "env", "lineage_events"})
"""The :class:`SparkJob` fields that reach templated operator fields (``SparkSubmitOperator.template_fields`` and
ours): Jinja text in the spec, rendered once per run. ``conf`` and ``env``: their values."""


class FeedFacts(Spec):
    """What lineage says of a feed besides its binding: its ACL owner, tags, groups and declared schema."""

    owner: str | None = None
    tags: tuple[tuple[str, str], ...] = ()
    groups: tuple[str, ...] = ()
    schema_location: str | None = None
    """``<schema location>``, resolved like a workflow path (entities folder, else the cluster's storage)."""
    schema_provider: str | None = None


class LineageSpec(Spec):
    """What the OpenLineage events of the DAG's tasks need besides the bindings (see docs/lineage.md)."""

    owner: str | None = None
    """The entity's ACL owner (``None`` when it declares none)."""
    tags: tuple[tuple[str, str], ...] = ()
    pipelines: tuple[str, ...] = ()
    groups: tuple[str, ...] = ()
    feeds: dict[str, FeedFacts] = {}
    """Every feed the DAG reads, writes, evicts or copies."""
    catalogs: dict[str, str] = {}
    """Cluster name to its ``registry`` (metastore) endpoint, which names its tables."""


class GroupAccess(Spec):
    """What the entity's ACL grants its group, for DAG-level access where the auth manager has roles."""

    group: str
    can_read: bool
    can_edit: bool


class LateDataSpec(Spec):
    """Falcon's late-process: after success, watch the late inputs until the cut-off and re-run on change."""

    policy: Literal["periodic", "exp-backoff", "final"]
    delay_seconds: int
    inputs: tuple[InputBinding, ...]
    cut_off_seconds: tuple[int, ...]
    """Per late input: the input feed's late-arrival cut-off, added to the input's end instance."""
    rerun: SparkJob | None = None
    """The late workflow of a Spark, PySpark or Hive process; ``None`` for an Oozie workflow, which runs again as the
    whole instance (see :mod:`falcon_airflow.provider.operators.rerun`)."""


class MessagingSpec(Spec):
    """Where an instance end is announced with Falcon's JMS messages: the cluster's ``messaging`` interface."""

    broker_url: str
    ttl_minutes: int
    """The entity's ``broker.ttl`` (minutes), else Falcon's three days."""


class SlaSpec(Spec):
    should_start_in_seconds: int | None = None
    should_end_in_seconds: int | None = None


class DagSpecBase(Spec):
    """What every DAG of an entity has: its id, where it comes from, its schedule, who owns it and who hears of its
    instances."""

    dag_id: str
    source: EntitySource
    schedule: Schedule
    owner: str = "falcon"
    tags: tuple[str, ...] = ()
    doc_md: str = ""
    messaging: MessagingSpec | None = None
    emails: tuple[str, ...] = ()
    """The entity's ``<notification type="email" to="...">``: mailed at every instance end."""
    paused_upon_creation: bool | None = None
    """``False`` when the entity was scheduled (RUNNING), ``True`` when suspended; ``None``: Airflow's default."""
    group_access: GroupAccess | None = None
    """The ACL group's rights, for the DAG's access control."""
    run_as: str | None = None
    """Who every job of the DAG runs as (Spark's ``--proxy-user``, each Oozie action's user): the entity's checked
    ``-doAs`` user, else its ACL owner, else the deployment's ``[falcon] default_job_user``; never entity text such
    as ``<spark-opts>`` (see :mod:`falcon_airflow.compiler.store_state`). ``None``: the deployment's own identity."""


class ProcessDagSpec(DagSpecBase):
    kind: Literal["process"] = "process"
    cluster: str
    parallel: int
    order: Literal["FIFO", "LIFO", "LAST_ONLY"]
    max_active_runs: int
    input_timeout_seconds: int
    retry: RetrySpec | None = None
    inputs: tuple[InputBinding, ...] = ()
    outputs: tuple[OutputBinding, ...] = ()
    properties: dict[str, str] = {}
    """The entity's properties as written (EL inside is resolved per run by the macros)."""
    engine: Literal["spark", "hive", "oozie"]
    job: SparkJob | None = None
    """The workflow's spark-submit (engines spark and hive); ``None`` for an Oozie workflow, which has ``oozie``."""
    oozie: OozieWorkflowSpec | None = None
    """The Oozie workflow compiled node by node (engine oozie)."""
    workflow_conf: dict[str, str] = {}
    """Engine oozie: Falcon's per-entity workflow properties (``entityName``, ``logDir``, ``userWorkflowName`` ...);
    the per-instance ones are added by each run."""
    cluster_conf: dict[str, str] = {}
    """Engine oozie: the cluster's settings (properties, ``nameNode``, ``jobTracker``), which win, as in Falcon."""
    late: LateDataSpec | None = None
    sla: SlaSpec | None = None
    email_on_attempt: bool = False
    empty_dir: str | None = None
    """``<staging>/EMPTY_DIR_DONT_DELETE``: what an optional input with no instance resolves to."""
    lineage: LineageSpec | None = None


class RetentionDagSpec(DagSpecBase):
    kind: Literal["retention"] = "retention"
    feed: str
    cluster: str
    locations: dict[str, str]
    """Location type to full URI template (storage base joined); empty for table feeds."""
    table: str | None = None
    timezone: str
    limit: str
    frequency: str
    action: Literal["delete", "archive"] = "delete"
    archive_root: str | None = None
    job: SparkJob
    retry: RetrySpec | None = None
    lineage: LineageSpec | None = None


class ReplicationDagSpec(DagSpecBase):
    kind: Literal["replication"] = "replication"
    feed: str
    source_cluster: str
    target_cluster: str
    delay_minutes: int = 0
    source_feed: FeedBinding
    """The feed on the source cluster, located on its readonly storage."""
    target_feed: FeedBinding
    include: str = ""
    parallel: int = 1
    max_active_runs: int
    order: Literal["FIFO", "LIFO", "LAST_ONLY"] = "FIFO"
    wait_timeout_seconds: int
    job: SparkJob
    late: LateDataSpec | None = None
    """Re-replication of an instance that changes at the source until the feed's late-arrival cut-off."""
    retry: RetrySpec | None = None
    lineage: LineageSpec | None = None


def resolve_forward_references() -> None:
    """Complete ``ProcessDagSpec`` with ``OozieWorkflowSpec``, whose module imports this one. Whichever of the two
    modules is imported first, this runs once both classes exist: here when this module comes first, at the end of
    :mod:`~falcon_airflow.compiler.oozie_spec` when that one does (it is still half made while it imports this)."""
    half_made = sys.modules.get("falcon_airflow.compiler.oozie_spec")
    if half_made is not None and not hasattr(half_made, "OozieWorkflowSpec"):
        return
    from falcon_airflow.compiler.oozie_spec import OozieWorkflowSpec

    ProcessDagSpec.model_rebuild(_types_namespace={"OozieWorkflowSpec": OozieWorkflowSpec})


resolve_forward_references()

class DatabaseSpec(Spec):
    """The database side of an import or export: the datasource interface, its driver and table."""

    datasource: str
    datasource_file: str
    """Where the datasource entity is read (by the task, for a password text): its file, or for a stored one its
    file in the store revision's layout (see ``dags.store_loader.with_laid_out_datasources``)."""
    interface: Literal["readonly", "write"]
    url: str
    """The endpoint, which carries no password (rule FA042 refuses one: it would be on the command line)."""
    driver: str
    """The class the job loads (a MySQL class is served by MariaDB Connector/J)."""
    dialect: Literal["postgres", "mysql", "sqlite", "derby", "hsql"]
    driver_artifact: str | None = None
    """``group:name:version`` of the pinned driver jar in the local cache; ``None`` when it ships with Spark."""
    table: str
    owner: str | None = None
    """The datasource's ACL owner: ``{owner}`` in the deployment's credential allow-lists stands for it."""
    credential_type: Literal["password-text", "password-file", "password-alias"] | None = None
    """Which secret the run needs; a password text itself never enters the spec (the task reads it from the
    datasource file when it runs)."""
    user: str | None = None
    password_file: str | None = None
    password_alias: str | None = None
    credential_provider: str | None = None


class TransferDagSpec(DagSpecBase):
    """A feed instance imported from (``import``) or exported to (``export``) a database table, one run per
    instance; an export waits for the instance first."""

    kind: Literal["import", "export"]
    feed: str
    cluster: str
    database: DatabaseSpec
    feed_binding: FeedBinding
    columns: tuple[str, ...] = ()
    """Falcon's ``<fields><includes>``: the table columns an import reads (empty: all)."""
    filter: str | None = None
    """The row filter (``--where``) or free-form query (``--query``) as written, EL resolved per run."""
    update_key: tuple[str, ...] = ()
    load: Literal["insert", "updateonly", "allowinsert"] = "insert"
    max_active_runs: int = 1
    wait_timeout_seconds: int = 0
    job: SparkJob
    retry: RetrySpec | None = None
    lineage: LineageSpec | None = None


class SlaDagSpec(DagSpecBase):
    """Falcon's SLA monitoring of a feed or a process on one cluster, one run per instance. Two checks, each by a
    deadline after the instance's nominal time: for a feed ``slaLow``/``slaHigh`` (the instance is available), for a
    process ``shouldStartIn`` (its run's work started) and ``shouldEndIn`` (its work ended). A check that does not
    hold by its deadline is a miss: mailed, sent as a Falcon message, logged, and kept as the run's record."""

    kind: Literal["sla"] = "sla"
    cluster: str
    low: str | None = None
    """The first check's Falcon name (``slaLow``, ``shouldStartIn``) and seconds; ``None``: not declared."""
    low_seconds: int | None = None
    high: str | None = None
    high_seconds: int | None = None
    feed_binding: FeedBinding | None = None
    """A feed's instances (their availability marker)."""
    process_dag_id: str | None = None
    """A process's DAG, whose run of the same instance is watched."""


class ExtensionDagSpec(DagSpecBase):
    """A job of one of Falcon's mirroring extensions (``hdfs-mirroring``, ``hdfs-snapshot-mirroring``,
    ``hive-mirroring``): one run per job instance, running ``jobs/mirroring.py``."""

    kind: Literal["extension"] = "extension"
    extension: Literal["hdfs-mirroring", "hdfs-snapshot-mirroring", "hive-mirroring"]
    job_name: str
    cluster: str
    """Where the job runs (``jobClusterName``)."""
    source_cluster: str
    target_cluster: str
    sources: tuple[str, ...] = ()
    """The folders mirrored (full URIs); Hive mirroring: the databases."""
    target: str | None = None
    """The mirror's folder; Hive mirroring: the target metastore."""
    tables: tuple[str, ...] = ()
    job: SparkJob
    retry: RetrySpec | None = None
    lineage: LineageSpec | None = None


DagSpec = ProcessDagSpec | RetentionDagSpec | ReplicationDagSpec | TransferDagSpec | SlaDagSpec | ExtensionDagSpec
