"""A process on one cluster becomes a :class:`ProcessDagSpec`.

Templates in the spec are Jinja strings that call the ``macros.falcon`` functions with the DAG's ``falcon``
user-defined macro (inputs, outputs, properties, zone), so each run resolves its own feed instances and the
Rendered Template tab shows the real paths.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

from falcon_airflow.compiler.cluster_conf import cluster_spark_conf
from falcon_airflow.compiler.common import (
    CLUSTER_INTERFACES_NOTE,
    catalogs_of,
    default_timeout_seconds,
    doc_header,
    feed_facts,
    group_access_of,
    job_file,
    job_py_files,
    owner_of,
    process_dag_id,
    resolve_application,
    retry_spec,
    seconds,
    source_of,
    spark_master,
    tags_of,
    throttle,
)
from falcon_airflow.compiler.messaging import messaging_of
from falcon_airflow.compiler.spark_options import parse_spark_options
from falcon_airflow.compiler.specs import (
    SPARK_JOB_TEMPLATED,
    LateDataSpec,
    LineageSpec,
    ProcessDagSpec,
    Schedule,
    SlaSpec,
    SparkJob,
)
from falcon_airflow.compiler.templating import (
    JinjaText,
    jinja,
    jinja_string,
    literal,
    template_conf,
    template_text,
    template_values,
)
from falcon_airflow.core.naming import TABLE_NAMESPACE_CONF, metastore_namespace
from falcon_airflow.entities import InterfaceType, Process, ProcessCluster, WorkflowEngine
from falcon_airflow.instances.bindings import InputBinding, OutputBinding
from falcon_airflow.instances.catalog_properties import INPUT_PROPERTIES, OUTPUT_PROPERTIES, table_uri
from falcon_airflow.instances.process import ProcessOnCluster
from falcon_airflow.timekeeping import format_falcon_date
from falcon_airflow.workspace import Workspace

CATCHUP_PROPERTY = "airflow.catchup"
LINEAGE_PROPERTY = "airflow.lineage"
"""``false`` runs a Python workflow as it is, without the column-lineage driver."""
RESERVED_PREFIX = "airflow."
LINEAGE_EVENTS = jinja("{{ macros.falcon.lineage_path(dag_run, task.task_id) }}")
"""How the lineage driver names catalog tables: as the task's own lineage does (the cluster's metastore)."""


def input_argument(binding: InputBinding) -> list[JinjaText]:
    """Falcon's workflow arguments for one input: its paths, or (filter, table, database) for tables."""
    name = jinja_string(binding.name)
    if binding.feed.storage == "table":
        return [jinja(f"{{{{ macros.falcon.partition_filter(falcon.inputs[{name}], dag_run) }}}}"),
                jinja(f"{{{{ macros.falcon.table_part(falcon.inputs[{name}], 'table') }}}}"),
                jinja(f"{{{{ macros.falcon.table_part(falcon.inputs[{name}], 'database') }}}}")]
    return [jinja(f"{{{{ macros.falcon.data_in(falcon, {name}, dag_run) }}}}")]


def output_argument(name: str) -> JinjaText:
    return jinja(f"{{{{ macros.falcon.output_path(falcon.outputs[{jinja_string(name)}], dag_run) }}}}")


def table_property(kind: str, name: str, key: str) -> JinjaText:
    """A template of one of Falcon's catalog properties of a table input or output."""
    return jinja(f"{{{{ macros.falcon.table_property(falcon.{kind}[{jinja_string(name)}], {jinja_string(key)}, "
                 "dag_run) }}")


def output_arguments(binding: OutputBinding) -> list[JinjaText]:
    """Falcon's workflow arguments for one output: its path, or (partitions for Hive, table, database) for tables."""
    if binding.feed.storage == "table":
        return [table_property("outputs", binding.name, key) for key in ("partitions_hive", "table", "database")]
    return [output_argument(binding.name)]


def table_conf(binding: InputBinding | OutputBinding, engine: WorkflowEngine) -> dict[str, JinjaText]:
    """Falcon's catalog properties of a table input or output as ``falcon_<name>_<property>`` templates; a Hive
    script also gets the input's filter as ``falcon_<name>_filter`` and the output's partitions as
    ``falcon_<name>_partitions``, as Falcon's Hive action passed them."""
    prefix = f"falcon_{binding.name}"
    if isinstance(binding, InputBinding):
        conf = {f"{prefix}_{key}": table_property("inputs", binding.name, key) for key in INPUT_PROPERTIES}
        if engine is WorkflowEngine.HIVE:
            conf[f"{prefix}_filter"] = table_property("inputs", binding.name, "partition_filter_hive")
        return conf
    keys = [*OUTPUT_PROPERTIES, *(f"dated_partition_value_{key}" for key in table_uri(binding).dated_keys)]
    conf = {f"{prefix}_{key}": table_property("outputs", binding.name, key) for key in keys}
    if engine is WorkflowEngine.HIVE:
        conf[f"{prefix}_partitions"] = table_property("outputs", binding.name, "partitions_hive")
    return conf


def workflow_conf(process: Process, bindings: list[InputBinding],
                  outputs: list[OutputBinding]) -> dict[str, JinjaText]:
    """Falcon's workflow properties and the entity's properties, as ``spark.falcon.*`` conf (templated); entity
    text (a property's value) is resolved by the macros per run, never read by Jinja."""
    conf: dict[str, JinjaText] = {}
    for key in ("nominalTime", "timeStamp", "falconInputFeeds", "falconInPaths", "falconInputNames",
                "falconInputFeedStorageTypes", "falconOutputFeeds", "falconOutPaths", "falconOutputNames",
                "entityName", "entityType", "cluster", "queueName", "jobPriority"):
        conf[f"spark.falcon.{key}"] = jinja(
            f"{{{{ macros.falcon.workflow_property(falcon, {jinja_string(key)}, dag_run) }}}}")
    engine = process.workflow.engine
    for binding in bindings:
        conf[f"spark.falcon.{binding.name}"] = jinja(
            f"{{{{ macros.falcon.data_in(falcon, {jinja_string(binding.name)}, dag_run) }}}}")
        if binding.feed.storage == "table":
            conf.update({f"spark.falcon.{key}": value for key, value in table_conf(binding, engine).items()})
    for output in outputs:
        conf[f"spark.falcon.{output.name}"] = output_argument(output.name)
        if output.feed.storage == "table":
            conf.update({f"spark.falcon.{key}": value for key, value in table_conf(output, engine).items()})
    for name in process.property_map:
        if not name.startswith(RESERVED_PREFIX):
            conf[f"spark.falcon.{name}"] = jinja(
                f"{{{{ macros.falcon.property(falcon, {jinja_string(name)}, dag_run) }}}}")
    return conf


def _spark_job(runner: ProcessOnCluster, entities_dir: Path | None, bindings: list[InputBinding],
               application: str | None = None) -> tuple[str, SparkJob]:
    process = runner.process
    cluster = runner.cluster
    attributes = process.spark_attributes
    engine = process.workflow.engine
    outputs = [runner.output_binding(item) for item in process.outputs]
    storages = [binding.feed.storage for binding in bindings] + [binding.feed.storage for binding in outputs]
    tables = engine is WorkflowEngine.HIVE or "table" in storages
    # Every value below is template text: JinjaText the compiler wrote, or entity text that template_conf and
    # template_values escape when the job is made (see compiler/templating.py).
    conf: dict[str, str] = {**cluster_spark_conf(cluster, metastore=tables),
                            **workflow_conf(process, bindings, outputs)}
    arguments: list[str] = [argument for binding in bindings for argument in input_argument(binding)]
    arguments += [argument for binding in outputs for argument in output_arguments(binding)]
    master, deploy_mode = spark_master(cluster, attributes.master if attributes else None)
    if attributes is not None and attributes.mode:
        deploy_mode = attributes.mode.strip()
    options = parse_spark_options(attributes.spark_opts if attributes else None)
    conf.update(options.conf)
    lib = tuple(resolve_application(item, entities_dir, cluster) for item in process.workflow.lib_paths)
    queue = process.property_map.get("queueName")
    if engine is WorkflowEngine.HIVE:
        script = application or resolve_application(process.workflow.path, entities_dir, cluster)
        hive_arguments: list[str] = ["--script", script]
        for key in conf:
            if key.startswith("spark.falcon."):
                hive_arguments += ["--var", template_text(f"{key.removeprefix('spark.falcon.')}=", conf[key])]
        return "hive", SparkJob(connection=runner.cluster_name, master=master, deploy_mode=deploy_mode,
                                application=literal(job_file("hive_script.py")),
                                name=literal(f"falcon-{process.name}"), conf=template_conf(conf),
                                arguments=template_values(hive_arguments), queue=queue,
                                **_with_workflow_lib(_option_arguments(options.arguments), lib))
    assert attributes is not None  # P20 guarantees spark-attributes for the spark engine
    user_arguments = [jinja(f"{{{{ macros.falcon.expand(falcon, {jinja_string(text)}, dag_run) }}}}")
                      for text in attributes.args]
    app = application or resolve_application(attributes.jar, entities_dir, cluster)
    extra = _with_workflow_lib(_option_arguments(options.arguments), lib)
    if queue and "queue" not in extra:
        extra["queue"] = queue
    arguments += user_arguments
    events = None
    if _observed(process, app):
        # The user's script runs unchanged inside the lineage driver, which observes what it writes.
        arguments = ["--falcon-script", app, "--falcon-lineage-out", LINEAGE_EVENTS, "--", *arguments]
        app, events = job_file("lineage_driver.py"), LINEAGE_EVENTS
        registry = cluster.interface(InterfaceType.REGISTRY) if cluster is not None else None
        conf.setdefault(TABLE_NAMESPACE_CONF, metastore_namespace(registry.endpoint if registry else None,
                                                                  runner.cluster_name))  # tables named alike
        user_py_files = extra.get("py_files")  # escaped already: template_text keeps it as it is
        extra["py_files"] = template_text(job_py_files(),
                                          *([jinja(","), user_py_files] if isinstance(user_py_files, str) else []))
    return "spark", SparkJob(connection=runner.cluster_name, master=master, deploy_mode=deploy_mode,
                             application=literal(app), java_class=attributes.class_name,
                             name=literal(attributes.name or process.name), conf=template_conf(conf),
                             arguments=template_values(arguments), lineage_events=events, **extra)


def _option_arguments(arguments: dict[str, str | int]) -> dict[str, str | int]:
    """``<spark-opts>`` settings for the job: those the operator renders (``--jars``, ``--files`` ...) escaped as
    entity text, the others (memory, cores, queue) as they are."""
    return {key: literal(value) if key in SPARK_JOB_TEMPLATED and isinstance(value, str) else value
            for key, value in arguments.items()}


def _with_workflow_lib(extra: dict[str, str | int], lib_paths: tuple[str, ...]) -> dict[str, str | int]:
    """The job's settings with the workflow's ``lib`` added, as Falcon shipped it with the job (Oozie's libpath):
    jars to ``--jars``, Python files and archives to ``--py-files``, other files (native libraries) to ``--files``,
    and a folder as the jars in it (a glob, which spark-submit expands). What ``<spark-opts>`` gave comes first."""
    added: dict[str, list[str]] = {"jars": [], "py_files": [], "files": []}
    for item in lib_paths:
        last = item.rstrip("/").rsplit("/", 1)[-1].lower()
        if last.endswith(".jar"):
            added["jars"].append(item)
        elif last.endswith((".py", ".zip", ".egg")):
            added["py_files"].append(item)
        elif "." in last:
            added["files"].append(item)
        else:
            added["jars"].append(item.rstrip("/") + "/*.jar")
    combined = dict(extra)
    for key, items in added.items():
        if not items:
            continue
        given = combined.get(key)
        listed = ",".join(items)
        combined[key] = template_text(given, jinja(","), listed) if isinstance(given, str) else template_text(listed)
    return combined


def _observed(process: Process, application: str) -> bool:
    """Whether a workflow runs under the column-lineage driver: a Python application on the local file system
    (the driver runs it by path), unless the process sets ``airflow.lineage=false``."""
    if process.property_map.get(LINEAGE_PROPERTY, "").strip().lower() == "false":
        return False
    local = application.removeprefix("file://") if application.startswith("file:///") else application
    return local.endswith(".py") and local.startswith("/")


def _late_spec(runner: ProcessOnCluster, entities_dir: Path | None,
               bindings: list[InputBinding]) -> LateDataSpec | None:
    late = runner.process.late_process
    if late is None:
        return None
    late_bindings, cut_offs = [], []
    for item in late.late_inputs:
        binding = next((b for b in bindings if b.name == item.input), None)
        feed = runner.workspace.feeds.get(binding.feed.feed) if binding else None
        if binding is None or feed is None or feed.late_arrival is None:
            continue  # P17 reports it
        late_bindings.append(binding)
        cut_offs.append(seconds(feed.late_arrival.cut_off))
    if not late_bindings:
        return None
    job = None
    if runner.process.workflow.engine is not WorkflowEngine.OOZIE:
        # The late workflow: the late-input's workflow-path when it names another application, else the main one.
        # An Oozie process runs its own workflow again (rule FA070 reports a workflow-path there).
        path = late.late_inputs[0].workflow_path
        rerun_application = resolve_application(path, entities_dir, runner.cluster) if path else None
        _, job = _spark_job(runner, entities_dir, bindings, application=rerun_application)
    return LateDataSpec(policy=late.policy.value, delay_seconds=seconds(late.delay), inputs=tuple(late_bindings),
                        cut_off_seconds=tuple(cut_offs), rerun=job)


def _doc(runner: ProcessOnCluster, now: datetime, bindings: Sequence[InputBinding],
         outputs: Sequence[OutputBinding]) -> str:
    """The DAG's documentation: its schedule and what the instance due at compile time reads and writes (resolved
    through the bindings the spec is compiled from, so each feed is bound once)."""
    process, placement = runner.process, runner.placement
    lines = [doc_header(process, f"instances on cluster `{placement.name}`"),
             f"Every {process.frequency} ({process.timezone}) from {format_falcon_date(placement.validity.start)} "
             f"until {format_falcon_date(placement.validity.end)} (exclusive); order {process.order.value}, "
             f"{process.parallel} in parallel.", ""]
    try:
        # The docs are compiled once a day (the loader's cache), so the example says when it was the next one.
        upcoming, which = runner.grid.next_at_or_after(now), "the next one when these docs were compiled"
        if not runner.grid.contains(upcoming):
            upcoming, which = runner.grid.start, "the first one"
        lines.append(f"For example, instance {format_falcon_date(upcoming)} ({which}) resolves to:")
        for item in (binding.resolve(upcoming) for binding in bindings):
            flag = " (optional)" if item.optional else ""
            lines.append(f"- input `{item.name}` ← feed `{item.feed}`{flag}: "
                         + (", ".join(f"`{path}`" for path in item.paths) or "no instance"))
        for output in (binding.resolve(upcoming) for binding in outputs):
            lines.append(f"- output `{output.name}` → feed `{output.feed}`: `{output.path}`")
    except Exception as problem:  # documentation must never stop a DAG from loading
        lines.append(f"(example instance not resolved: {problem})")
    lines += ["", CLUSTER_INTERFACES_NOTE]
    return "\n".join(lines)


def compile_process(workspace: Workspace, process: Process, placement: ProcessCluster, *,
                    entities_dir: Path | None, catchup_default: bool, now: datetime) -> ProcessDagSpec:
    runner = ProcessOnCluster(workspace, process, placement)
    bindings = [runner.input_binding(item) for item in process.inputs]
    outputs = [runner.output_binding(item) for item in process.outputs]
    timeout = seconds(process.timeout) if process.timeout else default_timeout_seconds(process.frequency)
    oozie = None
    workflow_conf: dict[str, str] = {}
    cluster_conf: dict[str, str] = {}
    if process.workflow.engine is WorkflowEngine.OOZIE:
        from falcon_airflow.compiler.oozie_process import compile_process_workflow, static_workflow_conf

        engine, job = "oozie", None
        oozie = compile_process_workflow(process, runner.cluster, entities_dir)
        workflow_conf, cluster_conf = static_workflow_conf(process, placement.name, runner.cluster)
    else:
        engine, job = _spark_job(runner, entities_dir, bindings)
    late = _late_spec(runner, entities_dir, bindings)
    # Waiting instances hold no worker slot (deferrable sensors), so as many may be materialised as Falcon's
    # throttle allows; `parallel` bounds the running workflows. Late-data watches keep a run open until the cut-off.
    late_window = math.ceil(max(late.cut_off_seconds) / seconds(process.frequency)) if late else 0
    max_active_runs = max(process.parallel, throttle(timeout, process.frequency)) + late_window
    catchup_text = process.property_map.get(CATCHUP_PROPERTY)
    catchup = catchup_default if catchup_text is None else catchup_text.strip().lower() == "true"
    sla = process.sla if placement.sla is None else placement.sla
    notification = process.notification
    cluster = runner.cluster
    return ProcessDagSpec(
        dag_id=process_dag_id(process.name, placement.name),
        source=source_of(process),
        cluster=placement.name,
        schedule=Schedule(start=format_falcon_date(placement.validity.start),
                          end=format_falcon_date(placement.validity.end), frequency=str(process.frequency),
                          timezone=process.timezone, catchup=catchup),
        parallel=process.parallel,
        order=process.order.value,
        max_active_runs=max_active_runs,
        input_timeout_seconds=timeout,
        retry=retry_spec(process.retry),
        inputs=tuple(bindings),
        outputs=tuple(outputs),
        properties={name: value for name, value in process.property_map.items()
                    if not name.startswith(RESERVED_PREFIX)},
        engine=engine,
        job=job,
        oozie=oozie,
        workflow_conf=workflow_conf,
        cluster_conf=cluster_conf,
        late=late,
        sla=SlaSpec(should_start_in_seconds=seconds(sla.should_start_in) if sla.should_start_in else None,
                    should_end_in_seconds=seconds(sla.should_end_in) if sla.should_end_in else None)
        if sla is not None else None,
        emails=notification.recipients if notification is not None else (),
        email_on_attempt=bool(notification and notification.level and notification.level.value == "attempt"),
        owner=owner_of(process.acl), group_access=group_access_of(process.acl),
        tags=tags_of(process.tag_pairs, "process", *(f"pipeline={name}" for name in process.pipelines)),
        doc_md=_doc(runner, now, bindings, outputs),
        messaging=messaging_of(cluster, process.property_map),
        empty_dir=runner.feed(process.inputs[0].feed).empty_dir() if process.inputs and cluster else None,
        lineage=LineageSpec(owner=process.acl.owner if process.acl is not None and process.acl.owner else None,
                            tags=process.tag_pairs, pipelines=process.pipelines,
                            feeds={name: feed_facts(runner.workspace.feeds[name], entities_dir, cluster)
                                   for name in process.feed_names if name in runner.workspace.feeds},
                            catalogs=catalogs_of(cluster)),
    )
