"""``entity`` actions that read: status, definition, list, dependency and summary (lookup and slaAlert have their own
modules), and the store lookups the changing actions share."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import timedelta
from typing import Any

from falcon_airflow.entities import Entity, EntityType, Feed, Process
from falcon_airflow.issues import Issue
from falcon_airflow.operate import options as rules
from falcon_airflow.operate.config_store import StoredEntity
from falcon_airflow.operate.context import Context
from falcon_airflow.operate.dag_control import status_of
from falcon_airflow.operate.invalid import UnreadableEntity, invalid_entities, invalid_text, unreadable_entities
from falcon_airflow.operate.lifecycles import DEFAULT_LIFECYCLE
from falcon_airflow.operate.options import Options
from falcon_airflow.operate.outcomes import Outcome, Refused, succeeded
from falcon_airflow.operate.runs import collect, page
from falcon_airflow.operate.states import EntityStatus
from falcon_airflow.parsing.redaction import redact_definition
from falcon_airflow.timekeeping import format_falcon_date

SCHEDULER = "airflow"


def describe_issue(issue: Issue) -> str:
    return f"{issue.location()}: {issue.level.value} [{issue.rule}] {issue.message}"


def not_found(name: str, entity_type: EntityType) -> Refused:
    return Refused(f"{name} ({entity_type.value}) not found")


def require_stored(context: Context, entity_type: EntityType, name: str) -> StoredEntity:
    stored = context.store.get(entity_type, name)
    if stored is None:
        raise not_found(name, entity_type)
    return stored


def status(context: Context, options: Options) -> Outcome:
    entity_type = rules.entity_type(options.required("type", "type"))
    name = options.required("name", "name")
    unreadable = context.store.workspace().unreadable.get((entity_type, name))
    if unreadable is not None:  # in the store, but the schema refuses it: no DAG, and not "not found" either
        shown = UnreadableEntity.of(unreadable)
        return succeeded(invalid_text(list(shown.rules)),
                         text="\n".join([invalid_text(list(shown.rules)), *shown.messages]), dags=[],
                         entityStatus=EntityStatus.INVALID.value, rules=list(shown.rules), file=shown.file)
    stored = require_stored(context, entity_type, name)
    current, rows = status_of(context, stored.entity)
    broken = invalid_entities(context.store.workspace(), context.now(),
                              context.store.incumbents()).get((entity_type.value, name))
    if broken:
        return succeeded(invalid_text(broken), dags=rows, entityStatus=EntityStatus.INVALID.value, rules=broken,
                         scheduled=current.value)
    message = current.value
    if options.flag("show_scheduler") and current is not EntityStatus.SUBMITTED:
        message += f" (scheduled on {SCHEDULER})"
    return succeeded(message, dags=rows)


def definition(context: Context, options: Options) -> Outcome:
    entity_type = rules.entity_type(options.required("type", "type"))
    rules.check_colo_not_given(options)
    name = options.required("name", "name")
    stored = require_stored(context, entity_type, name)
    # Whoever may read the entity reads it without its secrets (a password text, a secret property); the stored
    # file keeps them for the runs that need them.
    text = redact_definition(stored.read_bytes())
    return succeeded(f"definition of ({entity_type.value}) {name}", text=text.rstrip("\n"), definition=text,
                     file=str(stored.path))


Listed = Entity | UnreadableEntity
"""What `entity -list` lists: the store's entities and the files naming one that the schema refuses."""


def _tags(entity: Listed) -> list[str]:
    return [f"{key}={value}" for key, value in entity.tag_pairs]


def _pipelines(entity: Listed) -> list[str]:
    return list(entity.pipelines) if isinstance(entity, Process) else []


def _clusters(entity: Listed) -> list[str]:
    if isinstance(entity, (Feed, Process)):
        return [item.name for item in entity.clusters]
    return []


def element_text(element: Mapping[str, Any]) -> str:
    """Falcon's ``EntityElement.toString``: ``(type) name(STATUS) - [tags] - [pipelines] - [clusters]``."""
    text = f"({element['type']}) {element['name']}"
    if element.get("status"):
        rules_broken = f": {', '.join(element['rules'])}" if element.get("rules") else ""
        text += f"({element['status']}{rules_broken})"
    for key in ("tag", "pipeline", "cluster"):
        if element.get(key):
            text += " - [" + ", ".join(element[key]) + "]"
    return text


def dependency(context: Context, options: Options) -> Outcome:
    entity_type = rules.entity_type(options.required("type", "type"))
    rules.check_colo_not_given(options)
    name = options.required("name", "name")
    stored = require_stored(context, entity_type, name)
    workspace = context.store.workspace()
    entity = stored.entity
    elements: list[dict[str, Any]] = []
    for kind, other in workspace.dependencies(entity):
        tags = []
        if isinstance(entity, Process) and kind is EntityType.FEED:
            tags = ["Input"] * any(item.feed == other for item in entity.inputs) \
                + ["Output"] * any(item.feed == other for item in entity.outputs)
        elements.append({"type": kind.value, "name": other, "tag": tags, "relation": "uses"})
    for other_entity in workspace.dependents(entity):
        tags = []
        if isinstance(other_entity, Process) and entity_type is EntityType.FEED:
            tags = ["Input"] * any(item.feed == name for item in other_entity.inputs) \
                + ["Output"] * any(item.feed == name for item in other_entity.outputs)
        elements.append({"type": other_entity.entity_type.value, "name": other_entity.name, "tag": tags,
                         "relation": "used by"})
    text = "\n".join(element_text(item) for item in elements) or f"({entity_type.value}) {name} has no dependencies"
    return succeeded(f"dependencies of ({entity_type.value}) {name}", text=text, entity=elements)


def _subsequence(pattern: str, name: str) -> bool:
    position = 0
    for char in name:
        if position < len(pattern) and char == pattern[position]:
            position += 1
    return position == len(pattern)


def _filtered(context: Context, candidates: Iterable[Listed], filters: Mapping[str, list[str]], tags: str | None,
              nameseq: str | None, tagkeys: str | None, statuses: Mapping[tuple[str, str], str]) -> list[Listed]:
    chosen = []
    exact_tags = {item.strip() for item in (tags or "").split(",") if item.strip()}
    keywords = [item.strip().lower() for item in (tagkeys or "").split(",") if item.strip()]
    for entity in candidates:
        own_tags = set(_tags(entity))
        keep = True
        for key, values in filters.items():
            lowered = {value.lower() for value in values}
            if key == "TYPE":
                keep = entity.entity_type.value in lowered
            elif key == "NAME":
                keep = entity.name.lower() in lowered
            elif key == "STATUS":
                keep = statuses[(entity.entity_type.value, entity.name)].lower() in lowered
            elif key == "PIPELINES":
                if entity.entity_type is not EntityType.PROCESS:
                    raise Refused(f"Invalid filterBy key for non process entities {key}")
                keep = bool(set(_pipelines(entity)) & set(values))
            elif key == "CLUSTER":
                keep = bool(set(_clusters(entity)) & set(values))
            elif key == "TAGS":
                wanted = {item.strip() for value in values for item in value.split(",") if item.strip()}
                keep = wanted <= own_tags
            if not keep:
                break
        if keep and exact_tags and not exact_tags <= own_tags:
            keep = False
        if keep and nameseq and not _subsequence(nameseq.lower(), entity.name.lower()):
            keep = False
        if keep and keywords and not all(word in (entity.tags or "").lower() for word in keywords):
            keep = False
        if keep:
            chosen.append(entity)
    return chosen


def _statuses(context: Context, entities: Sequence[Listed],
              broken: dict[tuple[str, str], list[str]]) -> dict[tuple[str, str], str]:
    """Each entity's status; ``broken``: the workspace's invalid entities (:func:`invalid_entities`)."""
    schedulable = any(entity.entity_type.schedulable for entity in entities)
    dags = {str(dag["dag_id"]): dag for dag in context.airflow().dags("falcon.")} if schedulable else {}
    states = context.store.schedule_states() if schedulable else {}  # one read for all, not one per entity
    return {(entity.entity_type.value, entity.name):
            EntityStatus.INVALID.value
            if (entity.entity_type.value, entity.name) in broken or isinstance(entity, UnreadableEntity)
            else status_of(context, entity, dags, states)[0].value
            for entity in entities}


def list_entities(context: Context, options: Options) -> Outcome:
    rules.check_colo_not_given(options)
    types = rules.entity_types(options.text("type"))
    chosen_fields = rules.fields(options.text("fields"))
    order = rules.order_by(options.text("order_by"), "entity")
    direction = rules.sort_order(options.text("sort_order"))
    filters = rules.filter_by(options.text("filter_by"), "entity")
    offset = options.integer("offset", "offset", 0) or 0
    num_results = options.integer("num_results", "numResults", None)
    stored: list[Entity | UnreadableEntity] = [*context.store.workspace().entities(),
                                               *unreadable_entities(context.store.workspace())]
    candidates = [entity for entity in context.visible(stored) if not types or entity.entity_type in types]
    need_status = "status" in chosen_fields or "STATUS" in filters
    # validating the whole workspace is the costly part of a status: once per listing
    broken_rules = (invalid_entities(context.store.workspace(), context.now(), context.store.incumbents())
                    if need_status else {})
    statuses = _statuses(context, candidates, broken_rules) if need_status else {}
    chosen = _filtered(context, candidates, filters, options.text("tags"), options.text("nameseq"),
                       options.text("tagkeys"), statuses)
    if order == "name":
        chosen.sort(key=lambda entity: entity.name, reverse=direction == "desc")
    total = len(chosen)
    shown = page(chosen, offset, num_results)
    elements = []
    for entity in shown:
        element: dict[str, Any] = {"type": entity.entity_type.value, "name": entity.name}
        if "status" in chosen_fields:
            element["status"] = statuses[(entity.entity_type.value, entity.name)]
            if element["status"] == EntityStatus.INVALID.value:
                element["rules"] = broken_rules.get((entity.entity_type.value, entity.name), [])
        if "tags" in chosen_fields:
            element["tag"] = _tags(entity)
        if "pipelines" in chosen_fields:
            element["pipeline"] = _pipelines(entity)
        if "clusters" in chosen_fields:
            element["cluster"] = _clusters(entity)
        elements.append(element)
    if not total:
        kind = options.text("type") or ""
        return succeeded(f"No entity of type ({kind}) found.", totalResults=0, entity=[])
    text = "\n".join([f"Total Results: {total}", *(element_text(item) for item in elements)])
    return succeeded(f"{total} entities", text=text, totalResults=total, entity=elements)


def summary(context: Context, options: Options) -> Outcome:
    given = options.required("type", "type")
    entity_type = rules.entity_type(given)
    if not entity_type.schedulable:
        raise Refused(f"Invalid entity type {entity_type.value.upper()} for EntitySummary API. Valid options are "
                      "feed or process")
    cluster = options.required("cluster", "cluster")
    chosen_fields = rules.fields(options.text("fields"))
    filters = rules.filter_by(options.text("filter_by"), "entity")
    order = rules.order_by(options.text("order_by"), "entity")
    direction = rules.sort_order(options.text("sort_order"))
    offset = options.integer("offset", "offset", 0) or 0
    num_results = options.integer("num_results", "numResults", None)
    num_instances = options.integer("num_instances", "numInstances", 7) or 7
    end = options.time("end") or context.now()
    start = options.time("start") or end - timedelta(days=2)
    candidates = [entity for entity in context.visible(context.store.workspace().entities())
                  if entity.entity_type is entity_type and cluster in _clusters(entity)]
    candidates = [entity for entity in candidates if isinstance(entity, (Feed, Process)) and any(
        item.name == cluster and item.validity.start <= end and item.validity.end >= start
        for item in entity.clusters)]
    statuses = _statuses(context, candidates,
                         invalid_entities(context.store.workspace(), context.now(), context.store.incumbents()))
    chosen = _filtered(context, candidates, filters, options.text("tags"), None, None, statuses)
    if order == "name":
        chosen.sort(key=lambda entity: entity.name, reverse=direction == "desc")
    summaries = []
    lines = []
    for entity in page(chosen, offset, num_results):
        refs = [ref for ref in context.entity_dags(entity, frozenset({DEFAULT_LIFECYCLE[entity_type]}))
                if ref.cluster == cluster]
        records = collect(context.airflow(), refs, start, end)[-num_instances:]
        instances = [{"instance": format_falcon_date(record.instance), "status": record.status.value,
                      "cluster": record.ref.cluster, "sourceCluster": record.ref.source_cluster,
                      "logFile": context.airflow().run_url(record.ref.dag_id, record.run_id)}
                     for record in reversed(records)]
        item: dict[str, Any] = {"name": entity.name, "type": entity_type.value,
                                "status": statuses[(entity_type.value, entity.name)], "instances": instances}
        if "tags" in chosen_fields:
            item["tags"] = _tags(entity)
        if "pipelines" in chosen_fields:
            item["pipelines"] = _pipelines(entity)
        summaries.append(item)
        lines.append(f"({entity_type.value}) {entity.name}({item['status']})")
        lines.extend(f"  {row['instance']}  {row['status']}" for row in instances)
    return succeeded(f"Entity Summary Result: {len(summaries)} {entity_type.value}(s) on {cluster}",
                     text="\n".join(lines) or "no entity", entitySummary=summaries)
