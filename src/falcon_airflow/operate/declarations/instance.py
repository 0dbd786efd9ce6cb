"""``instance``: Falcon's instance actions (an instance is the DAG run of the instance time), with the routes of
Falcon's ``api/instance/`` resource that run them.

Every route answers JSON only, as Falcon's ``InstanceManager`` did. The four actions that change instances are
``POST`` and take the request body as Falcon's client sends it: a Java properties document in which
``falcon.instance.action.clusters`` and ``falcon.instance.source.clusters`` carry ``-clusters`` and
``-sourceClusters``, and whatever else it holds is a rerun's properties (``-file``).
"""

from __future__ import annotations

from falcon_airflow.operate.declarations import JSON, Action, CommandDeclaration, Option, Route

ACTIONS_MODULE = "falcon_airflow.operate.instance_actions"

OPTIONS = (
    Option("type", "type", "feed or process", "TYPE", audit="type"),
    Option("name", "name", "the entity's name", "NAME", audit="name"),
    Option("start", "start", "first instance time, yyyy-MM-ddTHH:mmZ", "TIME", audit="start"),
    Option("end", "end", "last instance time, yyyy-MM-ddTHH:mmZ (inclusive)", "TIME", audit="end"),
    Option("runid", "runid", "-logs: the run (0 = first run, then one per rerun or retry)", "N"),
    Option("clusters", "clusters", "only instances on these clusters (kill, suspend, resume, rerun)", "CLUSTERS",
           audit="clusters"),
    Option("sourceClusters", "source_clusters", "feeds: only replication from these source clusters", "CLUSTERS"),
    Option("file", "file", "-rerun: properties overrides (not supported on Airflow)", "FILE", audit="file"),
    Option("colo", "colo", "colo(s) of the clusters to act on (default *)", "COLO"),
    Option("lifecycle", "lifecycle", "EXECUTION (process), EVICTION and/or REPLICATION (feed), comma-separated",
           "LIFECYCLES"),
    Option("filterBy", "filter_by", "FIELD:value,... with FIELD in STATUS, CLUSTER, SOURCECLUSTER, STARTEDAFTER",
           "FILTER"),
    Option("orderBy", "order_by", "status, cluster, starttime or endtime", "FIELD"),
    Option("sortOrder", "sort_order", "asc or desc", "ORDER"),
    Option("offset", "offset", "skip this many instances", "N"),
    Option("numResults", "num_results", "at most this many instances (default 10)", "N"),
    Option("force", "force", "-rerun: rerun every task, and instances that are not in a terminal state"),
    Option("instanceTime", "instance_time", "-dependency: the instance, yyyy-MM-ddTHH:mmZ", "TIME"),
    Option("allAttempts", "all_attempts", "-status/-list: every run of each instance, not only the latest"),
    Option("text", "log_text", "-logs: include the log text of each task try", flag="--text"),
    Option("nameseq", "nameseq", "-search: entities whose name contains these characters in order", "SEQ"),
    Option("tagkeys", "tagkeys", "-search: entities whose tags contain all these keywords", "KEYWORDS"),
    Option("instanceStatus", "instance_status", "-search: only instances in these states (comma-separated)",
           "STATES"),
)

_ENTITY = ("type", "name")
_PAGE = ("filter_by", "order_by", "sort_order", "offset", "num_results")
_CHANGE = ("colo", "clusters", "source_clusters", "lifecycle")


BODY_PROPERTIES = (("falcon.instance.action.clusters", "clusters"),
                   ("falcon.instance.source.clusters", "source_clusters"))
"""The properties of a changing call's body that are options (Falcon's client puts ``-clusters`` and
``-sourceClusters`` there)."""


def _route(call: str, method: str = "GET", *, named: bool = True, body: str | None = None) -> Route:
    return Route("POST" if method == "POST" else "GET", f"/api/instance/{call}" + ("/{type}/{name}" if named else ""),
                 body=body, produces=JSON, properties=BODY_PROPERTIES if method == "POST" else ())


def _read(name: str, help_text: str, function: str, required: tuple[str, ...] = _ENTITY,
          optional: tuple[str, ...] = (), call: str = "") -> Action:
    handler = function if ":" in function else f"{ACTIONS_MODULE}:{function}"
    return Action("instance", name, help_text, handler, "read", required=required, optional=optional,
                  routes=(_route(call or name, named=bool(required)),))


def _change(name: str, help_text: str, optional: tuple[str, ...] = _CHANGE) -> Action:
    return Action("instance", name, help_text, f"{ACTIONS_MODULE}:{name}", "change",
                  required=(*_ENTITY, "start", "end"), optional=optional,
                  routes=(_route(name, "POST", body="file" if "file" in optional else None),))


ACTIONS = (
    _read("running", "instances running now", "running", optional=("colo", "lifecycle", *_PAGE)),
    _read("list", "instances in a time window, with their task states", "list_instances",
          optional=("start", "end", "colo", "lifecycle", *_PAGE, "all_attempts")),
    _read("status", "instances in a time window", "status",
          optional=("start", "end", "colo", "lifecycle", *_PAGE, "all_attempts")),
    _read("summary", "how many instances per status and cluster", "summary",
          optional=("start", "end", "colo", "lifecycle", "filter_by", "order_by", "sort_order")),
    _change("kill", "kill instances (-start, -end): the runs are marked failed, running tasks stopped"),
    _change("suspend", "suspend instances (-start, -end)"),
    _change("resume", "resume suspended instances (-start, -end)"),
    _change("rerun", "rerun terminal instances (-start, -end; -force for any instance and every task)",
            optional=(*_CHANGE, "file", "force")),
    _read("logs", "log links (and with --text the log text) of instances", "logs",
          optional=("start", "end", "runid", "colo", "lifecycle", *_PAGE, "log_text")),
    _read("params", "the parameters an instance ran with (-start = the instance time)", "params",
          required=(*_ENTITY, "start"), optional=("colo", "lifecycle")),
    _read("listing", "feed instances and whether their data is available (feeds)", "listing",
          optional=("start", "end", "colo")),
    _read("dependency", "the feed and process instances an instance depends on or feeds (-instanceTime)",
          "dependency", required=(*_ENTITY, "instance_time"), optional=("colo",), call="dependencies"),
    _read("search", "instances across entities (-type, -nameseq, -tagkeys, -start, -end, -instanceStatus)",
          "falcon_airflow.operate.search:search", required=(),
          optional=("type", "nameseq", "tagkeys", "start", "end", "instance_status", "order_by", "sort_order",
                    "offset", "num_results")),
    _read("triage", "why an instance waits or failed (-start = the instance time): missing inputs, their producers "
          "and their states, down to the root cause", "triage", required=(*_ENTITY, "start"), optional=("colo",)),
)

COMMAND = CommandDeclaration("instance", ACTIONS, OPTIONS)
