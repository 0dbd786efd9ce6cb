"""Falcon's command-line options for ``entity``, ``instance`` and ``admin``, defined once for both front ends
(``falcon-airflow`` and ``airflow falcon``). Plain data: importing it costs nothing, so the command line starts
fast. Option names are Falcon's (``-type``, ``-name``, ``-file``, ``-filterBy`` ...): one dash, camel case.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass


@dataclass(frozen=True)
class Spec:
    """One option: ``metavar`` None means a switch (no value)."""

    flag: str
    dest: str
    help: str
    metavar: str | None = None


def _action(name: str, help_text: str) -> Spec:
    return Spec(f"-{name}", f"act_{name}", help_text)


ENTITY_ACTIONS = (
    _action("submit", "submit a definition (-type, -file): validated against the store, then written to it"),
    _action("schedule", "schedule a submitted feed or process (-type, -name): its DAGs are unpaused"),
    _action("submitAndSchedule", "submit and schedule in one atomic action (-type, -file)"),
    _action("suspend", "suspend a scheduled entity (-type, -name): its DAGs are paused"),
    _action("resume", "resume a suspended entity (-type, -name): its DAGs are unpaused"),
    _action("delete", "delete an entity nothing refers to (-type, -name): DAGs deleted, definition archived"),
    _action("update", "replace a definition (-type, -name, -file); applies to instances from now on"),
    _action("touch", "re-create the entity's DAGs from the same definition (-type, -name)"),
    _action("status", "SUBMITTED, RUNNING, SUSPENDED or COMPLETED (-type, -name)"),
    _action("definition", "print the stored definition (-type, -name)"),
    _action("list", "list entities (-type optional, comma-separated)"),
    _action("dependency", "what the entity refers to and what refers to it (-type, -name)"),
    _action("summary", "entities of a type on a cluster with their latest instances (-type, -cluster)"),
    _action("validate", "validate a definition against the store without submitting it (-type, -file)"),
    _action("lookup", "which feed, cluster and instance a path belongs to (-type feed, -path)"),
    _action("updateClusterDependents", "re-create the DAGs of every feed and process on a cluster (-cluster), "
                                       "after the cluster changed"),
    _action("slaAlert", "instances of a feed or process that missed their SLA (-type, -name, -start, -end)"),
)

INSTANCE_ACTIONS = (
    _action("running", "instances running now"),
    _action("list", "instances in a time window, with their task states"),
    _action("status", "instances in a time window"),
    _action("summary", "how many instances per status and cluster"),
    _action("kill", "kill instances (-start, -end): the runs are marked failed, running tasks stopped"),
    _action("suspend", "suspend instances (-start, -end)"),
    _action("resume", "resume suspended instances (-start, -end)"),
    _action("rerun", "rerun terminal instances (-start, -end; -force for any instance and every task)"),
    _action("logs", "log links (and with --text the log text) of instances"),
    _action("params", "the parameters an instance ran with (-start = the instance time)"),
    _action("listing", "feed instances and whether their data is available (feeds)"),
    _action("dependency", "the feed and process instances an instance depends on or feeds (-instanceTime)"),
    _action("search", "instances across entities (-type, -nameseq, -tagkeys, -start, -end, -instanceStatus)"),
    _action("triage", "why an instance waits or failed (-start = the instance time): missing inputs, their "
                      "producers and their states, down to the root cause"),
)

ADMIN_ACTIONS = (
    _action("status", "whether Airflow's API server and metadata database are up"),
    _action("version", "falcon-airflow's and Airflow's versions"),
    _action("stack", "what Airflow is doing: each component's health and every task instance at work"),
    Spec("-setsafemode", "setsafemode", "true|false: enter or leave safemode (persisted in the store)", "BOOL"),
    _action("audit", "the audit trail: every command with its user, -doAs user, target and result "
                     "(-start, -end, -user to narrow it)"),
)

ADMIN_OPTIONS = (
    Spec("-start", "start", "-audit: from this time, yyyy-MM-ddTHH:mmZ", "TIME"),
    Spec("-end", "end", "-audit: before this time, yyyy-MM-ddTHH:mmZ", "TIME"),
    Spec("-user", "user", "-audit: only commands by this user (acting or -doAs)", "USER"),
)

METADATA_ACTIONS = (
    _action("list", "the names of one dimension (-type feed|process|cluster|datasource|user|colo|tags|groups|"
                    "pipelines, or Falcon's FEED_ENTITY ...; -cluster: only what is on it)"),
    _action("relations", "a vertex's relations, each with its edge label (-type, -name)"),
    _action("lineage", "the processes of a pipeline and their feeds, as Graphviz DOT (-pipeline)"),
    _action("dimensions", "every dimension with how many vertices it has"),
)

METADATA_OPTIONS = (
    Spec("-type", "type", "the dimension: feed, process, cluster, datasource, user, colo, tags, groups, pipelines",
         "TYPE"),
    Spec("-name", "name", "-relations: the vertex's name", "NAME"),
    Spec("-cluster", "cluster", "-list: only what is on this cluster", "CLUSTER"),
    Spec("-pipeline", "pipeline", "-lineage: the pipeline", "PIPELINE"),
)

EXTENSION_ACTIONS = (
    _action("enumerate", "the extensions there are"),
    _action("describe", "an extension's properties (-extensionName)"),
    _action("definition", "an extension's properties as JSON (-extensionName), or a job's file (-jobName)"),
    _action("detail", "a job: its extension, state, DAG and archived versions (-jobName)"),
    _action("list", "the submitted jobs (-extensionName optional)"),
    _action("instances", "a job's runs with Falcon's instance states (-jobName; -start, -end, -instanceStatus)"),
    _action("validate", "validate a job's properties against the store (-extensionName, -file)"),
    _action("submit", "submit a job (-extensionName, -file): validated, then written to the store"),
    _action("submitAndSchedule", "submit and schedule a job in one atomic action (-extensionName, -file)"),
    _action("update", "replace a job's properties (-extensionName, -file); runs from now on use them"),
    _action("schedule", "schedule a submitted job (-jobName): its DAG is unpaused"),
    _action("suspend", "suspend a running job (-jobName): its DAG is paused"),
    _action("resume", "resume a suspended job (-jobName)"),
    _action("delete", "delete a job (-jobName): its DAG deleted, its properties archived"),
)

EXTENSION_OPTIONS = (
    Spec("-extensionName", "extension_name", "hdfs-mirroring, hdfs-snapshot-mirroring or hive-mirroring",
         "NAME"),
    Spec("-jobName", "job_name", "the job's name (its jobName property)", "NAME"),
    Spec("-file", "file", "the job's properties file", "FILE"),
    Spec("-start", "start", "-instances: first instance time, yyyy-MM-ddTHH:mmZ", "TIME"),
    Spec("-end", "end", "-instances: last instance time, yyyy-MM-ddTHH:mmZ (inclusive)", "TIME"),
    Spec("-instanceStatus", "instance_status", "-instances: only these states (comma-separated)", "STATES"),
    Spec("-offset", "offset", "-instances: skip this many instances", "N"),
    Spec("-numResults", "num_results", "-instances: at most this many instances", "N"),
)

COMMON = (
    Spec("-url", "url", "Airflow's URL (default: FALCON_AIRFLOW_URL, else http://127.0.0.1:8080)", "URL"),
    Spec("-doAs", "do_as", "act on behalf of this user; recorded as Spark's proxy user of the entity's jobs",
         "USER"),
    Spec("-debug", "debug", "print the REST calls made (method, URL, status; never credentials)"),
    Spec("-json", "json", "print the result as JSON (same as --format json)"),
    Spec("--format", "format", "text (default) or json", "FORMAT"),
    Spec("--entities", "entities", "the entities folder (the store; default: FALCON_ENTITIES_DIR, else "
                                   "entities/)", "DIR"),
)

ENTITY_OPTIONS = (
    Spec("-type", "type", "cluster, feed, process or datasource (-list: a comma-separated list)", "TYPE"),
    Spec("-name", "name", "the entity's name", "NAME"),
    Spec("-file", "file", "the entity XML file", "FILE"),
    Spec("-colo", "colo", "colo(s) of the clusters to act on (default *)", "COLO"),
    Spec("-cluster", "cluster", "a cluster (-summary, -updateClusterDependents)", "CLUSTER"),
    Spec("-path", "path", "-lookup: a path or URI of feed data", "PATH"),
    Spec("-start", "start", "start of the time window, yyyy-MM-ddTHH:mmZ", "TIME"),
    Spec("-end", "end", "end of the time window, yyyy-MM-ddTHH:mmZ", "TIME"),
    Spec("-fields", "fields", "extra fields to show: status, tags, pipelines, clusters", "FIELDS"),
    Spec("-filterBy", "filter_by", "FIELD:value,... with FIELD in TYPE, NAME, STATUS, PIPELINES, CLUSTER, TAGS",
         "FILTER"),
    Spec("-tags", "tags", "only entities with all these tags (key=value,...)", "TAGS"),
    Spec("-nameseq", "nameseq", "only entities whose name contains this subsequence", "SEQ"),
    Spec("-tagkeys", "tagkeys", "only entities whose tags contain all these keywords", "KEYWORDS"),
    Spec("-orderBy", "order_by", "type or name", "FIELD"),
    Spec("-sortOrder", "sort_order", "asc or desc", "ORDER"),
    Spec("-offset", "offset", "skip this many results", "N"),
    Spec("-numResults", "num_results", "show at most this many results", "N"),
    Spec("-numInstances", "num_instances", "instances per entity in -summary (default 7)", "N"),
    Spec("-skipDryRun", "skip_dry_run", "accepted for compatibility (Airflow has no dry run)"),
    Spec("-properties", "properties", "key:value,... (accepted and checked; no effect on Airflow)", "PROPS"),
    Spec("-showScheduler", "show_scheduler", "-status: also say which scheduler runs the entity"),
)

INSTANCE_OPTIONS = (
    Spec("-type", "type", "feed or process", "TYPE"),
    Spec("-name", "name", "the entity's name", "NAME"),
    Spec("-start", "start", "first instance time, yyyy-MM-ddTHH:mmZ", "TIME"),
    Spec("-end", "end", "last instance time, yyyy-MM-ddTHH:mmZ (inclusive)", "TIME"),
    Spec("-runid", "runid", "-logs: the run (0 = first run, then one per rerun or retry)", "N"),
    Spec("-clusters", "clusters", "only instances on these clusters (kill, suspend, resume, rerun)", "CLUSTERS"),
    Spec("-sourceClusters", "source_clusters", "feeds: only replication from these source clusters", "CLUSTERS"),
    Spec("-file", "file", "-rerun: properties overrides (not supported on Airflow)", "FILE"),
    Spec("-colo", "colo", "colo(s) of the clusters to act on (default *)", "COLO"),
    Spec("-lifecycle", "lifecycle", "EXECUTION (process), EVICTION and/or REPLICATION (feed), comma-separated",
         "LIFECYCLES"),
    Spec("-filterBy", "filter_by", "FIELD:value,... with FIELD in STATUS, CLUSTER, SOURCECLUSTER, STARTEDAFTER",
         "FILTER"),
    Spec("-orderBy", "order_by", "status, cluster, starttime or endtime", "FIELD"),
    Spec("-sortOrder", "sort_order", "asc or desc", "ORDER"),
    Spec("-offset", "offset", "skip this many instances", "N"),
    Spec("-numResults", "num_results", "at most this many instances (default 10)", "N"),
    Spec("-force", "force", "-rerun: rerun every task, and instances that are not in a terminal state"),
    Spec("-instanceTime", "instance_time", "-dependency: the instance, yyyy-MM-ddTHH:mmZ", "TIME"),
    Spec("-allAttempts", "all_attempts", "-status/-list: every run of each instance, not only the latest"),
    Spec("--text", "log_text", "-logs: include the log text of each task try"),
    Spec("-nameseq", "nameseq", "-search: entities whose name contains these characters in order", "SEQ"),
    Spec("-tagkeys", "tagkeys", "-search: entities whose tags contain all these keywords", "KEYWORDS"),
    Spec("-instanceStatus", "instance_status", "-search: only instances in these states (comma-separated)",
         "STATES"),
)

COMMANDS: dict[str, tuple[tuple[Spec, ...], tuple[Spec, ...]]] = {
    "entity": (ENTITY_ACTIONS, ENTITY_OPTIONS),
    "instance": (INSTANCE_ACTIONS, INSTANCE_OPTIONS),
    "admin": (ADMIN_ACTIONS, ADMIN_OPTIONS),
    "metadata": (METADATA_ACTIONS, METADATA_OPTIONS),
    "extension": (EXTENSION_ACTIONS, EXTENSION_OPTIONS),
}

SUPPORTED = {
    "entity": "submit, submitAndSchedule, schedule, suspend, resume, delete, update, touch, status, definition, "
              "list, dependency, summary, validate, lookup, updateClusterDependents, slaAlert",
    "instance": "running, list, status, summary, kill, suspend, resume, rerun, logs, params, listing, dependency, "
                "triage, search",
    "admin": "status, version, setsafemode, stack, audit",
    "metadata": "list, relations, lineage, dimensions",
    "extension": "enumerate, describe, definition, detail, list, instances, validate, submit, submitAndSchedule, "
                 "update, schedule, suspend, resume, delete",
}


def all_specs(command: str) -> tuple[Spec, ...]:
    actions, options = COMMANDS[command]
    return (*actions, *options, *COMMON)


def add_arguments(parser: argparse.ArgumentParser, command: str) -> None:
    for spec in all_specs(command):
        if spec.metavar is None:
            parser.add_argument(spec.flag, dest=spec.dest, action="store_true", help=spec.help)
        else:
            parser.add_argument(spec.flag, dest=spec.dest, metavar=spec.metavar, help=spec.help)
