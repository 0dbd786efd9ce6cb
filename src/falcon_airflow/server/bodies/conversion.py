"""From the operate actions' outcomes to the bodies Falcon's server sent for the same call.

Each REST resource runs an operate action and picks the converter of its call from :data:`CONVERTERS` (or calls
:func:`from_outcome`). The converters reshape the outcome's payload into Falcon's result type and give the answer
the message Falcon's server gave:

* Falcon ran as one colo, ``default`` (its embedded mode), and merged each colo's answer into one
  (``consolidateResult``): every call that went through that merge has its message and request id prefixed with
  the colo and ended with a line break, once per merge - ``default/RUNNING\\n`` for ``entity -status``,
  ``falcon/default/Submit successful (process) p\\n\\n`` for ``-submit`` (a second merge under ``falcon``). The
  stock CLI prints ``Response: <message>Request Id: <requestId>``, so the line break matters.
* Instance calls answered with fixed words, not sentences: ``STATUS``, ``KILL``, ``RERUN`` ... ``Running
  Instances``; the listing ``Success``, dependencies ``Success!``; ``entity -summary`` ``Entity Summary Result``.
* Statuses Falcon 0.9/0.10 did not have go out as Falcon then reported them: an ignored run as KILLED, a timed-out
  one as FAILED (0.11's KILLED_OR_IGNORED and TIMEDOUT are read as null by the older clients).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any

from falcon_airflow.operate.outcomes import Outcome, Refused
from falcon_airflow.server.bodies.results import (
    INSTANCE_STATUSES,
    SUMMARY_INSTANCE_STATUSES,
    APIResult,
    Body,
    Edge,
    EntityDefinition,
    EntityElement,
    EntityList,
    EntitySummary,
    EntitySummaryResult,
    ExtensionEntitySummary,
    ExtensionInstanceList,
    ExtensionJob,
    ExtensionJobList,
    FeedInstance,
    FeedInstanceResult,
    FeedLookupResult,
    FeedProperties,
    Instance,
    InstanceAction,
    InstanceDependencyResult,
    InstancesResult,
    InstancesSummaryResult,
    InstanceSummary,
    JsonDocument,
    KeyValuePair,
    LineageGraphResult,
    PlainText,
    PropertyList,
    ResultStatus,
    SchedulableEntityInstance,
    SchedulableEntityInstanceResult,
    SummaryInstance,
    TriageResult,
)

COLO = "default"
"""The colo of an embedded Falcon server: the only one here."""

MERGES: dict[str, tuple[str, ...]] = {
    "entity.submit": ("falcon", COLO),
    "entity.delete": ("falcon", COLO),
    "entity.update": ("falcon/update", COLO),
    "entity.updateClusterDependents": ("falcon/updateClusterDependents", COLO),
    "entity.validate": (COLO,),
    "entity.schedule": (COLO,),
    "entity.suspend": (COLO,),
    "entity.resume": (COLO,),
    "entity.touch": (COLO,),
    "entity.status": (COLO,),
    "entity.lookup": (COLO,),
    "entity.slaAlert": (COLO,),
    **{f"instance.{action}": (COLO,) for action in ("running", "status", "list", "kill", "suspend", "resume",
                                                    "rerun", "logs", "params", "summary", "listing", "dependency",
                                                    "triage")},
}
"""The merges each call's answer went through, outermost first; calls not listed answered directly (list,
summary, definition, dependencies, search, admin, metadata, extension)."""

INSTANCE_MESSAGES = {"running": "Running Instances", "status": "STATUS", "list": "STATUS", "logs": "STATUS",
                     "kill": "KILL", "suspend": "SUSPEND", "resume": "RESUME", "rerun": "RERUN", "params": "PARAMS",
                     "summary": "SUMMARY", "listing": "Success", "dependency": "Success!", "triage": "Success",
                     "search": "Instances Search Results"}
"""The message of each instance call (the workflow engine's job action, or the resource's fixed word)."""

OLDER_STATUS = {"KILLED_OR_IGNORED": "KILLED", "TIMEDOUT": "FAILED"}
"""Instance statuses Falcon 0.9/0.10 reported under another name (an Oozie IGNORED action was KILLED, a TIMEDOUT
one FAILED)."""


def consolidated(text: str, *merges: str) -> str:
    """``text`` after Falcon's ``consolidateResult`` merged it under each tag, outermost first:
    ``consolidated("m", "falcon", "default") == "falcon/default/m\\n\\n"``."""
    for tag in reversed(merges):
        text = f"{tag}/{text}\n"
    return text


def _message(action: str, message: str, request_id: str | None) -> tuple[str, str | None]:
    merges = MERGES.get(action, ())
    return consolidated(message, *merges), None if request_id is None else consolidated(request_id, *merges)


def _status(outcome: Outcome) -> ResultStatus:
    return ResultStatus(outcome.status.value)


def _text_with_warnings(outcome: Outcome) -> str:
    return "\n".join([outcome.message, *outcome.warnings])


def refusal_message(action: str, refused: Refused) -> str:
    """The message of the 400 a refused call got: the reason and its details, merged once under the colo when the
    call went through a colo proxy (the proxy turned the colo's failure into its own)."""
    text = "\n".join([refused.message, *refused.details])
    merges = MERGES.get(action, ())
    return consolidated(text, merges[-1]) if merges else text


# -- reading payload values -------------------------------------------------------------------------------------------

def moment(text: Any) -> datetime | None:
    """A Falcon date (``2026-03-01T05:00Z``) or an ISO-8601 time from Airflow, as an aware datetime."""
    if text is None or text == "":
        return None
    if isinstance(text, datetime):
        return text
    return datetime.fromisoformat(str(text))


def instance_status(value: Any, allowed: frozenset[str] = INSTANCE_STATUSES) -> str | None:
    """An operate instance status as the Falcon 0.9/0.10 enum ``allowed`` names it; ``None`` when it has no name
    for it (Falcon's client would have read ``null``)."""
    if value is None:
        return None
    name = OLDER_STATUS.get(str(value), str(value))
    return name if name in allowed else None


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


def _strings(values: Any) -> tuple[str, ...] | None:
    return None if values is None else tuple(str(value) for value in values)


def display_size(size: int) -> str:
    """commons-io's ``FileUtils.byteCountToDisplaySize``: the largest whole unit, rounded down (``2 KB``)."""
    for unit, scale in (("EB", 1 << 60), ("PB", 1 << 50), ("TB", 1 << 40), ("GB", 1 << 30), ("MB", 1 << 20),
                        ("KB", 1 << 10)):
        if size // scale > 0:
            return f"{size // scale} {unit}"
    return f"{size} bytes"


def _flatten(prefix: str, value: Any, out: list[KeyValuePair]) -> None:
    if isinstance(value, Mapping):
        for key, item in value.items():
            _flatten(f"{prefix}.{key}" if prefix else str(key), item, out)
    elif isinstance(value, (list, tuple)):
        import json

        out.append(KeyValuePair(prefix, json.dumps(value, default=str)))
    else:
        out.append(KeyValuePair(prefix, None if value is None else str(value)))


# -- entity calls -----------------------------------------------------------------------------------------------------

def api_result(action: str) -> Callable[[Outcome, str | None], APIResult]:
    """The converter of a call answered with a plain ``APIResult``: the outcome's message (and warnings, one per
    line) merged as the call's answer was."""
    def convert(outcome: Outcome, request_id: str | None = None) -> APIResult:
        message, merged_id = _message(action, _text_with_warnings(outcome), request_id)
        return APIResult(_status(outcome), message, merged_id)
    return convert


def submit_and_schedule(outcome: Outcome, request_id: str | None = None, *, entity_type: str | None = None,
                        name: str | None = None) -> APIResult:
    """``entity -submitAndSchedule``: Falcon merged a submit's answer and a schedule's, in that map's order
    (``schedule/default/p(process) scheduled successfully\n\nsubmit/falcon/default/Submit successful (process)
    p\n\n\n``). The submit's half is rebuilt from the entity's type and name when the resource gives them; without
    them, or when scheduling did not succeed, the outcome's message is merged once under the colo."""
    if entity_type is None or name is None or outcome.status.value != "SUCCEEDED":
        message, merged_id = _message("entity.schedule", _text_with_warnings(outcome), request_id)
        return APIResult(_status(outcome), message, merged_id)
    submitted = f"Submit successful ({entity_type}) {name}"
    message = (consolidated(_text_with_warnings(outcome), "schedule", COLO)
               + consolidated(submitted, "submit", "falcon", COLO))
    merged_id = None if request_id is None else (consolidated(request_id, "schedule", COLO)
                                                 + consolidated(request_id, "submit", "falcon", COLO))
    return APIResult(_status(outcome), message, merged_id)


def entity_list(outcome: Outcome, request_id: str | None = None) -> EntityList:
    """``entity -list``: each entity's type as the enum's name (``PROCESS``), the fields asked for."""
    elements = tuple(
        EntityElement(str(item["type"]).upper(), str(item["name"]), _text(item.get("status")),
                      _strings(item.get("tag")), _strings(item.get("pipeline")), _strings(item.get("cluster")))
        for item in outcome.payload.get("entity", ()))
    return EntityList(int(outcome.payload.get("totalResults", len(elements))), elements)


def entity_dependencies(outcome: Outcome, request_id: str | None = None) -> EntityList:
    """``entity -dependency``: the type in lower case, the tags (``Input``/``Output``) always written."""
    elements = tuple(EntityElement(str(item["type"]).lower(), str(item["name"]), tags=tuple(item.get("tag") or ()))
                     for item in outcome.payload.get("entity", ()))
    return EntityList(len(elements), elements)


def entity_summary(outcome: Outcome, request_id: str | None = None) -> EntitySummaryResult:
    """``entity -summary``: Falcon answered with the words ``Entity Summary Result``, unmerged."""
    summaries = []
    for item in outcome.payload.get("entitySummary", ()):
        instances = tuple(
            SummaryInstance(_text(row.get("instance")),
                            instance_status(row.get("status"), SUMMARY_INSTANCE_STATUSES),
                            _text(row.get("logFile")), _text(row.get("cluster")), _text(row.get("sourceCluster")),
                            moment(row.get("startTime")), moment(row.get("endTime")))
            for row in item.get("instances", ()))
        summaries.append(EntitySummary(str(item["name"]), str(item["type"]).upper(), _text(item.get("status")),
                                       tuple(item.get("tags") or ()), tuple(item.get("pipelines") or ()),
                                       instances))
    return EntitySummaryResult(_status(outcome), "Entity Summary Result", request_id, tuple(summaries))


def entity_definition(outcome: Outcome, request_id: str | None = None) -> EntityDefinition:
    """``entity -definition``: the stored XML (secrets redacted by the action)."""
    return EntityDefinition(str(outcome.payload["definition"]))


def feed_lookup(outcome: Outcome, request_id: str | None = None) -> FeedLookupResult:
    """``entity -lookup``: Falcon answered ``SUCCESS``. Falcon's lookup knew only file-system locations (its
    ``LocationType``: data, stats, meta, tmp); a table feed's partition has no place in its answer."""
    message, merged_id = _message("entity.lookup", "SUCCESS", request_id)
    elements = tuple(FeedProperties(str(item["feedName"]), str(item["type"]).lower(), str(item["clusterName"]))
                     for item in outcome.payload.get("elements", ()) if str(item.get("type")).upper() != "TABLE")
    return FeedLookupResult(_status(outcome), message, merged_id, elements)


def _schedulable(item: Mapping[str, Any]) -> SchedulableEntityInstance:
    when = moment(item["instanceTime"])
    assert when is not None
    return SchedulableEntityInstance(str(item["entityName"]), str(item["cluster"]), when,
                                     str(item["entityType"]).upper(), _text(item.get("tags")))


def sla_alert(outcome: Outcome, request_id: str | None = None) -> SchedulableEntityInstanceResult:
    """``entity -slaAlert``: Falcon answered ``Success!``."""
    message, merged_id = _message("entity.slaAlert", "Success!", request_id)
    return SchedulableEntityInstanceResult(_status(outcome), message, merged_id,
                                           tuple(_schedulable(item) for item in outcome.payload.get("instances", ())))


# -- instance calls ---------------------------------------------------------------------------------------------------

def _instance(document: Mapping[str, Any], *, name: str | None = None, params: bool = False) -> Instance:
    actions = tuple(InstanceAction(_text(item.get("action")), _text(item.get("status")), _text(item.get("logFile")))
                    for item in document.get("actions") or ())
    wf_params: list[KeyValuePair] = []
    if params:
        _flatten("", document.get("params") or {}, wf_params)
    instance = _text(document.get("instance"))
    if name is not None and instance is not None:
        instance = f"{name}/{instance}"  # a search names the entity: Falcon's instance vertex, "name/time"
    return Instance(instance, instance_status(document.get("status")), _text(document.get("logFile")),
                    _text(document.get("cluster")), _text(document.get("sourceCluster")),
                    moment(document.get("startTime")), moment(document.get("endTime")),
                    int(document.get("runId") or 0), _text(document.get("details")), actions, tuple(wf_params))


def instances_result(action: str) -> Callable[[Outcome, str | None], InstancesResult]:
    """The converter of an instance call answered with an ``InstancesResult`` (running, status, list, kill,
    suspend, resume, rerun, logs, params, search)."""
    def convert(outcome: Outcome, request_id: str | None = None) -> InstancesResult:
        key = f"instance.{action}"
        message, merged_id = _message(key, INSTANCE_MESSAGES[action], request_id)
        instances = tuple(
            _instance(document, params=action == "params",
                      name=str(document["entityName"]) if action == "search" else None)
            for document in outcome.payload.get("instances", ()))
        return InstancesResult(_status(outcome), message, merged_id, instances)
    return convert


def instances_summary(outcome: Outcome, request_id: str | None = None) -> InstancesSummaryResult:
    """``instance -summary``: per cluster, how many instances are in each status."""
    message, merged_id = _message("instance.summary", INSTANCE_MESSAGES["summary"], request_id)
    summaries = tuple(InstanceSummary.of(_text(item.get("cluster")), item.get("map") or {})
                      for item in outcome.payload.get("instancesSummary", ()))
    return InstancesSummaryResult(_status(outcome), message, merged_id, summaries)


def feed_listing(outcome: Outcome, request_id: str | None = None) -> FeedInstanceResult:
    """``instance -listing``: a feed's instances and their availability; an unknown size is -1, as Falcon kept
    it, and has no readable form."""
    message, merged_id = _message("instance.listing", INSTANCE_MESSAGES["listing"], request_id)
    instances = []
    for item in outcome.payload.get("instances", ()):
        size = int(item["size"]) if item.get("size") is not None else -1
        created = moment(item.get("creationTime"))
        instances.append(FeedInstance(_text(item.get("cluster")), _text(item.get("instance")),
                                      _text(item.get("status")), _text(item.get("uri")),
                                      int(created.timestamp() * 1000) if created is not None else 0, size,
                                      display_size(size) if size >= 0 else None))
    return FeedInstanceResult(_status(outcome), message, merged_id, tuple(instances))


def instance_dependencies(outcome: Outcome, request_id: str | None = None) -> InstanceDependencyResult:
    """``instance -dependency``: the instances an instance reads, writes or is read by."""
    message, merged_id = _message("instance.dependency", INSTANCE_MESSAGES["dependency"], request_id)
    return InstanceDependencyResult(_status(outcome), message, merged_id,
                                    tuple(_schedulable(item) for item in outcome.payload.get("dependencies", ())))


def _graph(document: Mapping[str, Any]) -> LineageGraphResult:
    return LineageGraphResult(tuple(str(vertex) for vertex in document.get("vertices", ())),
                              tuple(Edge(_text(edge.get("from")), _text(edge.get("to")), _text(edge.get("label")))
                                    for edge in document.get("edges", ())))


def triage(outcome: Outcome, request_id: str | None = None) -> TriageResult:
    """``instance -triage``: one graph per walked instance."""
    message, merged_id = _message("instance.triage", INSTANCE_MESSAGES["triage"], request_id)
    return TriageResult(_status(outcome), message, merged_id,
                        tuple(_graph(item) for item in outcome.payload.get("triageGraphs", ())))


# -- admin, metadata, extensions --------------------------------------------------------------------------------------

def admin_version(outcome: Outcome, request_id: str | None = None, *, authentication: str = "simple"
                  ) -> PropertyList:
    """``admin -version``: Falcon's ``Version``, ``Mode`` (``embedded``: one server, no Prism) and
    ``authentication`` properties; Airflow's version where Falcon named Hadoop's."""
    properties = outcome.payload.get("properties") or {}
    return PropertyList((("Version", _text(properties.get("falcon-airflow"))), ("Mode", "embedded"),
                         ("Airflow", _text(properties.get("airflow"))), ("authentication", authentication)))


def property_list(properties: Mapping[str, Any]) -> PropertyList:
    """``api/admin/config/{type}``: a property list from any mapping."""
    return PropertyList(tuple((str(key), _text(value)) for key, value in properties.items()))


def plain_text(outcome: Outcome, request_id: str | None = None) -> PlainText:
    """A call Falcon answered with a string: the outcome's text (``admin -stack``, ``extension -describe``)."""
    return PlainText(outcome.text if outcome.text is not None else outcome.message)


def safemode(outcome: Outcome, request_id: str | None = None) -> PlainText:
    """``api/admin/setSafeMode/{mode}``: Falcon 0.10 answered the new value of its safemode property."""
    return PlainText("true" if outcome.payload.get("safemode") else "false")


def metadata_list(outcome: Outcome, request_id: str | None = None) -> JsonDocument:
    """``metadata -list``: the names of one dimension and how many there are."""
    names = [str(item["name"]) for item in outcome.payload.get("results", ())]
    return JsonDocument({"results": names, "totalSize": len(names)})


def metadata_relations(outcome: Outcome, request_id: str | None = None) -> JsonDocument:
    """``metadata -relations``: the vertex's properties, then its incoming and outgoing vertices with each edge's
    label."""
    payload = outcome.payload
    members: dict[str, Any] = {"name": payload.get("name"), "type": payload.get("type")}
    members.update(sorted((key, value) for key, value in payload.items()
                          if key not in ("name", "type", "inVertices", "outVertices")))
    for side in ("inVertices", "outVertices"):
        members[side] = [{"name": item.get("name"), "type": item.get("type"), "label": item.get("label")}
                         for item in payload.get(side, ())]
    return JsonDocument(members)


def metadata_lineage(outcome: Outcome, request_id: str | None = None) -> LineageGraphResult:
    """``metadata -lineage``: Falcon's pipeline graph - the processes as vertices and an edge from the process
    writing a feed to each process reading it, labelled with the feed's name."""
    nodes: Sequence[Mapping[str, Any]] = outcome.payload.get("nodes", ())
    names = {str(node["id"]): str(node["name"]) for node in nodes}
    processes = [str(node["name"]) for node in nodes if node.get("type") == "process"]
    producers: dict[str, list[str]] = {}
    consumers: dict[str, list[str]] = {}
    for edge in outcome.payload.get("edges", ()):
        source, target, label = str(edge["from"]), str(edge["to"]), edge.get("label")
        if label == "output" and source.startswith("process:"):
            producers.setdefault(names.get(target, target), []).append(names.get(source, source))
        elif label == "input" and target.startswith("process:"):
            consumers.setdefault(names.get(source, source), []).append(names.get(target, target))
    edges = tuple(Edge(producer, consumer, feed) for feed in sorted(set(producers) & set(consumers))
                  for producer in producers[feed] for consumer in consumers[feed])
    return LineageGraphResult(tuple(processes), edges)


def metadata_graph(outcome: Outcome, request_id: str | None = None) -> JsonDocument:
    """``metadata -vertex``, ``-vertices``, ``-edges``, ``-edge``: the lineage resource's JSON object as the action
    built it (``results`` - a GraphSON element or a list of them - and ``totalSize`` where Falcon gave one)."""
    return JsonDocument({key: outcome.payload[key] for key in ("results", "totalSize") if key in outcome.payload})


def extension_enumerate(outcome: Outcome, request_id: str | None = None) -> JsonDocument:
    """``extension -enumerate``: every extension with its kind and short description."""
    rows = [{"name": str(row["name"]), "type": "Trusted extension", "description": row.get("description")}
            for row in outcome.payload.get("extensions", ())]
    return JsonDocument({"extensions": rows, "totalResults": len(rows)})


def extension_definition(outcome: Outcome, request_id: str | None = None) -> JsonDocument | PlainText:
    """``extension -definition``: an extension's property document (JSON); a job's stored properties as text."""
    document = outcome.payload.get("definition")
    if isinstance(document, Mapping):
        return JsonDocument(document)
    return plain_text(outcome)


def extension_detail(outcome: Outcome, request_id: str | None = None) -> JsonDocument:
    """``extension -detail`` (Falcon 0.11's ``extensionJobDetails``): the job's properties as a JSON object."""
    return JsonDocument(dict(outcome.payload))


def extension_jobs(outcome: Outcome, request_id: str | None = None) -> ExtensionJobList:
    """``extension -list``: the jobs by name. A job here is one DAG, not a set of Falcon entities, so each job's
    entity list is empty."""
    return ExtensionJobList(tuple(ExtensionJob(str(row["jobName"])) for row in outcome.payload.get("jobs", ())))


def extension_instances(outcome: Outcome, request_id: str | None = None, *, job_name: str,
                        extension_name: str | None = None) -> ExtensionInstanceList:
    """``extension -instances``: the job (as the entity profile: its extension as type, its name) and its
    instances."""
    instances = tuple(_instance(document) for document in outcome.payload.get("instances", ()))
    profile = EntityElement(extension_name or "extension", job_name)
    return ExtensionInstanceList((ExtensionEntitySummary(profile, instances),))


Converter = Callable[..., Body]

CONVERTERS: dict[str, Converter] = {
    **{f"entity.{action}": api_result(f"entity.{action}") for action in (
        "submit", "validate", "update", "updateClusterDependents", "schedule", "suspend", "resume", "delete",
        "touch", "status")},
    "entity.submitAndSchedule": submit_and_schedule,
    "entity.list": entity_list,
    "entity.dependency": entity_dependencies,
    "entity.summary": entity_summary,
    "entity.definition": entity_definition,
    "entity.lookup": feed_lookup,
    "entity.slaAlert": sla_alert,
    **{f"instance.{action}": instances_result(action) for action in (
        "running", "status", "list", "kill", "suspend", "resume", "rerun", "logs", "params", "search")},
    "instance.summary": instances_summary,
    "instance.listing": feed_listing,
    "instance.dependency": instance_dependencies,
    "instance.triage": triage,
    "admin.version": admin_version,
    "admin.stack": plain_text,
    "admin.setsafemode": safemode,
    "metadata.list": metadata_list,
    "metadata.relations": metadata_relations,
    "metadata.lineage": metadata_lineage,
    **{f"metadata.{action}": metadata_graph for action in ("vertex", "vertices", "edges", "edge")},
    "extension.enumerate": extension_enumerate,
    "extension.describe": plain_text,
    "extension.definition": extension_definition,
    "extension.detail": extension_detail,
    "extension.list": extension_jobs,
    "extension.instances": extension_instances,
    **{f"extension.{action}": api_result(f"extension.{action}") for action in (
        "submit", "submitAndSchedule", "validate", "update", "schedule", "suspend", "resume", "delete")},
}
"""The converter of each call, by ``<command>.<action>`` as the operate commands name them."""


def from_outcome(action: str, outcome: Outcome, *, request_id: str | None = None, **context: Any) -> Body:
    """Falcon's body for the outcome of ``action`` (``"entity.list"``, ``"instance.status"`` ...); ``context``
    carries what a converter needs beyond the outcome (``job_name`` for ``extension.instances``, the server's
    ``authentication`` for ``admin.version``)."""
    try:
        converter = CONVERTERS[action]
    except KeyError:
        raise KeyError(f"no Falcon body for {action!r}") from None
    return converter(outcome, request_id, **context)
