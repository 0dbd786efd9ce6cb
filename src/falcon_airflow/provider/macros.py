"""Template macros: Falcon EL and feed instances resolved for a DAG run (``{{ macros.falcon.* }}``).

The compiler puts each input's and output's :mod:`binding <falcon_airflow.instances.bindings>` into the DAG's
params; templates hand them to these functions with the run, e.g.
``{{ macros.falcon.input_paths(params.falcon.inputs.clicks, dag_run) }}``. The instance is the run's data interval
start (our timetable makes it the Falcon nominal time), else its logical date, else when it was due to run - so
asset-triggered and manual runs resolve as well as scheduled ones; ``ds`` is never used.

No Airflow import here: the plugin registers these functions, and tests call them directly.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

import pendulum

from falcon_airflow.el import ELContext, evaluate, render
from falcon_airflow.instances import catalog_properties
from falcon_airflow.instances.bindings import FeedBinding, InputBinding, OutputBinding
from falcon_airflow.timekeeping import format_falcon_date, parse_falcon_date, resolve_zone


def instance(run: Any) -> pendulum.DateTime:
    """The Falcon instance (nominal) time of a run, a context dict, a datetime or a Falcon date, in UTC."""
    if isinstance(run, str):
        return pendulum.instance(parse_falcon_date(run))
    if isinstance(run, datetime):
        return pendulum.instance(run).in_timezone("UTC")
    if isinstance(run, dict):
        run = run.get("dag_run") or run.get("data_interval_start") or run.get("logical_date")
        return instance(run)
    for attribute in ("data_interval_start", "logical_date", "run_after"):
        moment: datetime | None = getattr(run, attribute, None)
        if moment is not None:
            return pendulum.instance(moment).in_timezone("UTC")
    raise ValueError(f"cannot tell the instance time of {run!r}: it has no data interval, logical date or run_after")


def _input(binding: dict[str, Any] | InputBinding) -> InputBinding:
    return binding if isinstance(binding, InputBinding) else InputBinding.model_validate(binding)


def _output(binding: dict[str, Any] | OutputBinding) -> OutputBinding:
    return binding if isinstance(binding, OutputBinding) else OutputBinding.model_validate(binding)


def input_instances(binding: dict[str, Any] | InputBinding, run: Any) -> str:
    """The input's feed instance times for the run, comma-separated (``yyyy-MM-ddTHH:mmZ``)."""
    return ",".join(format_falcon_date(moment) for moment in _input(binding).resolve(instance(run)).instances)


def input_markers(binding: dict[str, Any] | InputBinding, run: Any) -> str:
    """What must exist for each of the input's instances (flag files, else folders), comma-separated."""
    resolved = _input(binding)
    return ",".join(resolved.feed.marker(moment) for moment in resolved.resolve(instance(run)).instances)


def feed_marker(feed: dict[str, Any] | FeedBinding, moment: Any) -> str:
    """What must exist for one feed instance to be available (its flag file, else its folder)."""
    binding = feed if isinstance(feed, FeedBinding) else FeedBinding.model_validate(feed)
    return binding.marker(instance(moment))


def input_paths(binding: dict[str, Any] | InputBinding, run: Any) -> str:
    """The input's instance paths for the run, comma-separated, partition appended (Falcon's ``dataIn``)."""
    return ",".join(_input(binding).resolve(instance(run)).paths)


def output_instance(binding: dict[str, Any] | OutputBinding, run: Any) -> str:
    moment = _output(binding).time(instance(run))
    return format_falcon_date(moment) if moment is not None else ""


def output_path(binding: dict[str, Any] | OutputBinding, run: Any) -> str:
    """The output's instance path for the run (empty when the expression names no instance)."""
    return _output(binding).resolve(instance(run)).path or ""


def feed_path(feed: dict[str, Any] | FeedBinding, moment: Any) -> str:
    """A feed instance's path, for a time or a run."""
    binding = feed if isinstance(feed, FeedBinding) else FeedBinding.model_validate(feed)
    return binding.path(instance(moment))


def el(expression: str, run: Any, timezone: str = "UTC", user: str | None = None) -> str:
    """An EL expression in action context (process properties): ``${formatTime(instanceTime(), 'yyyy')}``."""
    context = ELContext(instance_time=instance(run), zone=resolve_zone(timezone).zone, user=user)
    return render(evaluate(expression, context))


def nominal_time(run: Any, timezone: str = "UTC") -> str:
    """Falcon's ``nominalTime`` workflow property: ``yyyy-MM-dd-HH-mm`` in the entity's zone."""
    return instance(run).in_timezone(resolve_zone(timezone).zone).format("YYYY-MM-DD-HH-mm")  # type: ignore[arg-type]


# -- the process workflow's view: the DAG's ``falcon`` user-defined macro plus the run -------------------------------
#
# ``falcon`` is a dict the DAG builder puts in ``user_defined_macros``: {"entity", "cluster", "timezone",
# "inputs": {name: InputBinding dict}, "outputs": {name: OutputBinding dict}, "properties": {name: text},
# "empty_dir": path or None}.


def _exists_on(feed: FeedBinding) -> Callable[[str], bool]:
    """Whether a location of ``feed`` exists, asked with its cluster's client settings (S3)."""
    from falcon_airflow.instances.storage import exists

    return lambda location: exists(location, feed.storage_settings)


def data_in(falcon: dict[str, Any], name: str, run: Any) -> str:
    """Falcon's ``dataIn``: an input's paths for the run. An optional input keeps only the instances that exist
    (checking the availability flag when the feed has one) and resolves to the empty folder when none does."""
    binding = _input(falcon["inputs"][name])
    present_on = _exists_on(binding.feed)
    resolved = binding.resolve(instance(run), present_on)
    if not binding.optional:
        return ",".join(resolved.paths)
    present = [path for moment, path in zip(resolved.instances, resolved.paths, strict=True)
               if present_on(binding.feed.marker(moment))]
    return ",".join(present) if present else (falcon.get("empty_dir") or "")


def _expand_text(falcon: dict[str, Any], text: str, run: Any, depth: int = 0) -> str:
    """``${name}`` of a workflow or entity property, else ``${EL}`` evaluated in action context; unknown names
    stay as they are (Falcon's substitution)."""
    from falcon_airflow.el import split_template

    pieces = []
    for part in split_template(text):
        if not part.is_expression:
            pieces.append(part.text)
            continue
        inner = part.text[2:-1].strip()
        properties = falcon.get("properties", {})
        if inner in properties and depth < 3:
            pieces.append(_expand_text(falcon, properties[inner], run, depth + 1))
        elif inner in WORKFLOW_PROPERTIES:
            pieces.append(workflow_property(falcon, inner, run))
        elif "(" in inner:
            pieces.append(el(inner, run, falcon.get("timezone", "UTC")))
        else:
            pieces.append(part.text)
    return "".join(pieces)


def expand(falcon: dict[str, Any], text: str, run: Any) -> str:
    return _expand_text(falcon, text, run)


def property(falcon: dict[str, Any], name: str, run: Any) -> str:
    """An entity property for the run, EL and references to other properties resolved."""
    return _expand_text(falcon, falcon["properties"][name], run)


WORKFLOW_PROPERTIES = ("nominalTime", "timeStamp", "falconInputFeeds", "falconInPaths", "falconInputNames",
                       "falconInputFeedStorageTypes", "falconOutputFeeds", "falconOutPaths", "falconOutputNames",
                       "entityName", "entityType", "cluster", "queueName", "jobPriority")


def workflow_property(falcon: dict[str, Any], name: str, run: Any) -> str:
    """The properties Falcon gave every workflow (``nominalTime``, ``falconInPaths`` ...), for the run."""
    inputs = [_input(item) for item in falcon.get("inputs", {}).values()]
    outputs = [_output(item) for item in falcon.get("outputs", {}).values()]
    if name == "nominalTime":
        return nominal_time(run, falcon.get("timezone", "UTC"))
    if name == "timeStamp":
        return pendulum.now("UTC").format("YYYY-MM-DD-HH-mm")
    if name == "falconInputFeeds":
        return "#".join(item.feed.feed for item in inputs) or "NONE"
    if name == "falconInPaths":
        return "#".join(data_in(falcon, item.name, run) for item in inputs) or "IGNORE"
    if name == "falconInputNames":
        return "#".join(item.name for item in inputs) or "NONE"
    if name == "falconInputFeedStorageTypes":
        return "#".join(item.feed.storage.upper() for item in inputs) or "NONE"
    if name == "falconOutputFeeds":
        return ",".join(item.feed.feed for item in outputs) or "NONE"
    if name == "falconOutPaths":
        return ",".join(output_path(item, run) for item in outputs) or "IGNORE"
    if name == "falconOutputNames":
        return ",".join(item.name for item in outputs) or "NONE"
    if name == "entityName":
        return str(falcon.get("entity", ""))
    if name == "entityType":
        return "PROCESS"
    if name == "cluster":
        return str(falcon.get("cluster", ""))
    defaults = {"queueName": "default", "jobPriority": "NORMAL"}
    if name in defaults:
        return str(falcon.get("properties", {}).get(name, defaults[name]))
    raise KeyError(f"unknown workflow property {name!r}")


def oozie_configuration(falcon: dict[str, Any], run: Any) -> str:
    """Falcon's configuration of an Oozie workflow for the run, as JSON (see :func:`falcon_workflow_conf`)."""
    import json

    return json.dumps(falcon_workflow_conf(falcon, run), sort_keys=True)


def falcon_workflow_conf(falcon: dict[str, Any], run: Any) -> dict[str, str]:
    """What Falcon put in the configuration of every Oozie workflow it ran for a process instance.

    Per instance: ``nominalTime``, ``timeStamp``, each filesystem input by name (its instance paths, comma
    separated) and each output by name (its instance path), ``falconInputFeeds``/``falconInPaths``/
    ``falconInputNames``/``falconInputFeedStorageTypes`` (``#``-joined; ``NONE``/``IGNORE`` without inputs),
    ``feedNames``/``feedInstancePaths`` (comma-joined; ``NONE``/``IGNORE`` without outputs), table inputs and
    outputs as their catalog properties ``falcon_<name>_database``/``_table``/``_partition_filter_hive``/
    ``_partitions_hive``... (:func:`table_properties`). The per-entity part (``entityName``,
    ``userWorkflowName``, ``logDir`` ...) comes from the compiler in ``falcon["workflow"]``; the process's
    properties override it and the cluster's settings (``falcon["cluster_settings"]``: ``nameNode``, ``jobTracker``,
    its properties) come last, in Falcon's order.
    """
    inputs = [_input(item) for item in falcon.get("inputs", {}).values()]
    outputs = [_output(item) for item in falcon.get("outputs", {}).values()]
    conf: dict[str, str] = {"nominalTime": workflow_property(falcon, "nominalTime", run),
                            "timeStamp": workflow_property(falcon, "timeStamp", run)}
    in_paths = []
    for item in inputs:
        if item.feed.storage == "table":
            path = f"${{coord:dataIn('{item.name}')}}"
            conf.update({f"falcon_{item.name}_{key}": value for key, value in table_properties(item, run).items()})
        else:
            path = data_in(falcon, item.name, run)
            conf[item.name] = path
        in_paths.append(path)
    if inputs:
        conf.update(falconInputFeeds="#".join(item.feed.feed for item in inputs),
                    falconInputNames="#".join(item.name for item in inputs), falconInPaths="#".join(in_paths),
                    falconInputFeedStorageTypes="#".join(item.feed.storage.upper() for item in inputs))
    else:
        conf.update(falconInputFeeds="NONE", falconInPaths="IGNORE", falconInputNames="IGNORE")
    out_paths = []
    for output in outputs:
        path = output_path(output, run)
        if output.feed.storage != "table":
            conf[output.name] = path
        else:
            conf.update({f"falcon_{output.name}_{key}": value for key, value in table_properties(output, run).items()})
        out_paths.append(path)
    conf.update(feedNames=",".join(output.feed.feed for output in outputs) or "NONE",
                feedInstancePaths=",".join(out_paths) or "IGNORE")
    for name in ("falconOutputFeeds", "falconOutPaths", "falconOutputNames"):  # as Spark and Hive processes get
        conf[name] = workflow_property(falcon, name, run)
    conf.update(falcon.get("workflow", {}))
    for name in falcon.get("properties", {}):
        conf[name] = property(falcon, name, run)
    conf.update(falcon.get("cluster_settings", {}))
    return conf


# -- table feeds -------------------------------------------------------------------------------------------------


def table_part(binding: dict[str, Any] | InputBinding, part: str) -> str:
    uri = catalog_properties.table_uri(_input(binding))
    return {"database": uri.database, "table": uri.table}[part]


def partition_filter(binding: dict[str, Any] | InputBinding, run: Any, engine: str = "hive") -> str:
    """Falcon's partition filter of a table input for the run: ``(ds='2026030105' AND region='us') OR ...``."""
    return catalog_properties.partition_filter(_input(binding), instance(run), engine)


def _table_binding(binding: dict[str, Any] | InputBinding | OutputBinding) -> InputBinding | OutputBinding:
    if isinstance(binding, (InputBinding, OutputBinding)):
        return binding
    return _output(binding) if "instance" in binding else _input(binding)  # only an output names its instance


def table_properties(binding: dict[str, Any] | InputBinding | OutputBinding, run: Any) -> dict[str, str]:
    """Falcon's catalog properties of a table input or output for the run (without ``falcon_<name>_``)."""
    return catalog_properties.catalog_properties(_table_binding(binding), instance(run))


def table_property(binding: dict[str, Any] | InputBinding | OutputBinding, name: str, run: Any) -> str:
    """One of :func:`table_properties`, for a template."""
    return catalog_properties.catalog_property(_table_binding(binding), instance(run), name)


# -- feed DAGs ---------------------------------------------------------------------------------------------------


def run_time(run: Any) -> str:
    """When the run was due (retention's "now"): its run_after, else its instance."""
    moment = getattr(run, "run_after", None)
    return format_falcon_date(moment) if moment is not None else format_falcon_date(instance(run))


def replicated_instance(feed: dict[str, Any] | FeedBinding, run: Any, delay_minutes: int = 0) -> str:
    """The source instance a replication run copies: ``now(0, -delay)`` snapped to the source feed's grid."""
    binding = feed if isinstance(feed, FeedBinding) else FeedBinding.model_validate(feed)
    moment = instance(run).subtract(minutes=delay_minutes)
    snapped = binding.grid.at_or_before(moment)
    if snapped is None:
        raise ValueError(f"{format_falcon_date(moment)} precedes the first instance of feed '{binding.feed}'")
    return format_falcon_date(snapped)


def report_path(run: Any, task_id: str) -> str:
    """Where a job writes its JSON report for the task to read back (under the Airflow home)."""
    from falcon_airflow.instances.storage import report_file

    return str(report_file(getattr(run, "dag_id", "dag"), getattr(run, "run_id", "run"), task_id))


def lineage_path(run: Any, task_id: str) -> str:
    """Where the lineage driver writes the OpenLineage events of a task's Spark run (under the Airflow home)."""
    from falcon_airflow.instances.storage import lineage_file

    return str(lineage_file(getattr(run, "dag_id", "dag"), getattr(run, "run_id", "run"), task_id))


def nominal_deadline(run: Any, seconds: int) -> str:
    """The instance's nominal time + ``seconds``, as a Falcon date: an SLA's deadline."""
    return format_falcon_date(instance(run) + timedelta(seconds=int(seconds)))


MACROS = [instance, nominal_deadline, input_instances, input_markers, feed_marker, input_paths, output_instance,
          output_path, feed_path, el, nominal_time, data_in, expand, property, workflow_property, table_part,
          partition_filter, table_property, run_time, replicated_instance, report_path, lineage_path,
          oozie_configuration]
