"""``entity``: Falcon's entity actions, with the routes of Falcon's ``api/entities/`` resource that run them.

Falcon's resource (0.9/0.10, ``SchedulableEntityManager`` and its proxy) reads ``colo`` on the calls that run on a
colo and ignores it on the others; the calls that bring a definition take it as the request body (``text/xml``).
The routes and their answer types are those of the proxy resources Falcon's embedded server served.
"""

from __future__ import annotations

from falcon_airflow.operate.declarations import (
    JSON_TEXT,
    JSON_XML,
    XML_JSON,
    Action,
    CommandDeclaration,
    Option,
    Route,
)

CHANGES = "falcon_airflow.operate.entity_changes"
QUERIES = "falcon_airflow.operate.entity_queries"

OPTIONS = (
    Option("type", "type", "cluster, feed, process or datasource (-list: a comma-separated list)", "TYPE",
           audit="type"),
    Option("name", "name", "the entity's name", "NAME", audit="name"),
    Option("file", "file", "the entity XML file", "FILE", audit="file"),
    Option("colo", "colo", "colo(s) of the clusters to act on (default *)", "COLO"),
    Option("cluster", "cluster", "a cluster (-summary, -updateClusterDependents)", "CLUSTER", audit="cluster"),
    Option("path", "path", "-lookup: a path or URI of feed data", "PATH", audit="path"),
    Option("start", "start", "start of the time window, yyyy-MM-ddTHH:mmZ", "TIME", audit="start"),
    Option("end", "end", "end of the time window, yyyy-MM-ddTHH:mmZ", "TIME", audit="end"),
    Option("fields", "fields", "extra fields to show: status, tags, pipelines, clusters", "FIELDS"),
    Option("filterBy", "filter_by", "FIELD:value,... with FIELD in TYPE, NAME, STATUS, PIPELINES, CLUSTER, TAGS",
           "FILTER"),
    Option("tags", "tags", "only entities with all these tags (key=value,...)", "TAGS"),
    Option("nameseq", "nameseq", "only entities whose name contains this subsequence", "SEQ"),
    Option("tagkeys", "tagkeys", "only entities whose tags contain all these keywords", "KEYWORDS"),
    Option("orderBy", "order_by", "type or name", "FIELD"),
    Option("sortOrder", "sort_order", "asc or desc", "ORDER"),
    Option("offset", "offset", "skip this many results", "N"),
    Option("numResults", "num_results", "show at most this many results", "N"),
    Option("numInstances", "num_instances", "instances per entity in -summary (default 7)", "N"),
    Option("skipDryRun", "skip_dry_run", "accepted for compatibility (Airflow has no dry run)"),
    Option("properties", "properties", "key:value,... (checked, and answered as not applied: Airflow schedules "
           "every entity and workflows get the entity's own <properties>)", "PROPS"),
    Option("showScheduler", "show_scheduler", "-status: also say which scheduler runs the entity"),
)

_NAMED = "{type}/{name}"
_LISTING = ("fields", "filter_by", "tags", "order_by", "sort_order", "offset", "num_results")


def _post(call: str, *, body: bool = False, named: bool = True) -> Route:
    return Route("POST", f"/api/entities/{call}/{_NAMED if named else '{type}'}", body="file" if body else None)


ACTIONS = (
    Action("entity", "submit", "submit a definition (-type, -file): validated against the store, then written to it",
           f"{CHANGES}:submit", "change", lock=True, required=("type", "file"), optional=("properties",),
           routes=(_post("submit", body=True, named=False),)),
    Action("entity", "schedule", "schedule a submitted feed or process (-type, -name): its DAGs are unpaused",
           f"{CHANGES}:schedule", "change", lock=True, required=("type", "name"),
           optional=("colo", "skip_dry_run", "properties"), routes=(_post("schedule"),)),
    Action("entity", "submitAndSchedule", "submit and schedule in one atomic action (-type, -file)",
           f"{CHANGES}:submit_and_schedule", "change", lock=True, required=("type", "file"),
           optional=("skip_dry_run", "properties"),
           routes=(_post("submitAndSchedule", body=True, named=False),)),
    Action("entity", "suspend", "suspend a scheduled entity (-type, -name): its DAGs are paused",
           f"{CHANGES}:suspend", "change", lock=True, required=("type", "name"), optional=("colo",),
           routes=(_post("suspend"),)),
    Action("entity", "resume", "resume a suspended entity (-type, -name): its DAGs are unpaused",
           f"{CHANGES}:resume", "change", lock=True, required=("type", "name"), optional=("colo",),
           routes=(_post("resume"),)),
    Action("entity", "delete", "delete an entity nothing refers to (-type, -name): DAGs deleted, definition archived",
           f"{CHANGES}:delete", "change", lock=True, required=("type", "name"),
           routes=(Route("DELETE", f"/api/entities/delete/{_NAMED}"),)),
    Action("entity", "update", "replace a definition (-type, -name, -file); applies to instances from now on",
           f"{CHANGES}:update", "change", lock=True, required=("type", "name", "file"), optional=("skip_dry_run",),
           routes=(_post("update", body=True),)),
    Action("entity", "touch", "re-create the entity's DAGs from the same definition (-type, -name)",
           f"{CHANGES}:touch", "change", lock=True, required=("type", "name"), optional=("colo", "skip_dry_run"),
           routes=(_post("touch"),)),
    Action("entity", "status", "SUBMITTED, RUNNING, SUSPENDED or COMPLETED (-type, -name)",
           f"{QUERIES}:status", "read", required=("type", "name"), optional=("colo", "show_scheduler"),
           routes=(Route("GET", f"/api/entities/status/{_NAMED}"),)),
    Action("entity", "definition", "print the stored definition (-type, -name)",
           f"{QUERIES}:definition", "read", required=("type", "name"),
           routes=(Route("GET", f"/api/entities/definition/{_NAMED}"),)),
    Action("entity", "list", "list entities (-type optional, comma-separated)",
           f"{QUERIES}:list_entities", "read", optional=("type", "nameseq", "tagkeys", *_LISTING),
           routes=(Route("GET", "/api/entities/list", produces=XML_JSON),
                   Route("GET", "/api/entities/list/{type}", produces=XML_JSON))),
    Action("entity", "dependency", "what the entity refers to and what refers to it (-type, -name)",
           f"{QUERIES}:dependency", "read", required=("type", "name"),
           routes=(Route("GET", f"/api/entities/dependencies/{_NAMED}", produces=XML_JSON),)),
    Action("entity", "summary", "entities of a type on a cluster with their latest instances (-type, -cluster)",
           f"{QUERIES}:summary", "read", required=("type", "cluster"),
           optional=("start", "end", *_LISTING, "num_instances"),
           routes=(Route("GET", "/api/entities/summary/{type}", produces=XML_JSON),)),
    Action("entity", "validate", "validate a definition against the store without submitting it (-type, -file)",
           f"{CHANGES}:validate", "read", required=("type", "file"), optional=("skip_dry_run",),
           routes=(_post("validate", body=True, named=False),)),
    Action("entity", "lookup", "which feed, cluster and instance a path belongs to (-type feed, -path)",
           "falcon_airflow.operate.lookup:lookup", "read", required=("type", "path"),
           routes=(Route("GET", "/api/entities/lookup/{type}", produces=JSON_TEXT),)),
    Action("entity", "updateClusterDependents", "re-create the DAGs of every feed and process on a cluster "
           "(-cluster), after the cluster changed",
           f"{CHANGES}:update_cluster_dependents", "change", required=("cluster",), optional=("skip_dry_run",),
           routes=(Route("POST", "/api/entities/updateClusterDependents/{cluster}"),)),
    Action("entity", "slaAlert", "instances of a feed or process that missed their SLA (-type, -start; -name for "
           "one entity, else every one of the type; -end)",
           "falcon_airflow.operate.sla_alert:sla_alert", "read", required=("type", "start"),
           optional=("name", "end", "colo"),
           routes=(Route("GET", "/api/entities/sla-alert/{type}", produces=JSON_XML),)),
)

COMMAND = CommandDeclaration("entity", ACTIONS, OPTIONS, guard="falcon_airflow.operate.entity_steps:guard",
                             journal="falcon_airflow.operate.entity_steps:ACTIONS")
