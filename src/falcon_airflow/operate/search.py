"""``instance -search``: instances across entities, chosen by name pattern, tags, state and time window (Falcon's
``api/instance/search``). Each entity's default lifecycle is searched: a process's runs, a feed's replication."""

from __future__ import annotations

from typing import Any

from falcon_airflow.entities import Entity, EntityType, Feed, Process
from falcon_airflow.operate import options as rules
from falcon_airflow.operate.context import Context
from falcon_airflow.operate.lifecycles import DEFAULT_LIFECYCLE
from falcon_airflow.operate.options import Options
from falcon_airflow.operate.outcomes import Outcome, Refused, succeeded
from falcon_airflow.operate.runs import InstanceRecord, collect, page, sort_records, window
from falcon_airflow.operate.states import InstanceStatus
from falcon_airflow.timekeeping import format_falcon_date

ORDERS = ("status", "cluster", "starttime", "endtime")


def _subsequence(pattern: str, name: str) -> bool:
    """Falcon's -nameseq: the pattern's characters appear in the name in order (case-insensitive)."""
    position = 0
    pattern, name = pattern.lower(), name.lower()
    for char in name:
        if position < len(pattern) and char == pattern[position]:
            position += 1
    return position == len(pattern)


def _chosen(context: Context, options: Options) -> list[Entity]:
    given = options.text("type")
    types = rules.entity_types(given) if given else [EntityType.FEED, EntityType.PROCESS]
    if any(not kind.schedulable for kind in types):
        raise Refused(f"instance search applies to feeds and processes, not {given}", usage=True)
    nameseq = (options.text("nameseq") or "").strip()
    keywords = [word.strip().lower() for word in (options.text("tagkeys") or "").split(",") if word.strip()]
    chosen = []
    for entity in context.visible(context.store.workspace().entities()):
        if entity.entity_type not in types or (nameseq and not _subsequence(nameseq, entity.name)):
            continue
        tags = (getattr(entity, "tags", None) or "").lower()
        if all(word in tags for word in keywords):
            chosen.append(entity)
    return chosen


def _statuses(text: str | None) -> set[str]:
    wanted = {item.strip().upper() for item in (text or "").split(",") if item.strip()}
    known = {status.value for status in InstanceStatus}
    unknown = sorted(wanted - known)
    if unknown:
        raise Refused(f"Invalid instance status: {', '.join(unknown)} (known: {', '.join(sorted(known))})",
                      usage=True)
    return wanted


def search_order(text: str | None) -> str | None:
    """The search's -orderBy, checked (one of :data:`ORDERS`, any case); ``None`` when not given."""
    order = (text or "").strip().lower() or None
    if order is not None and order not in ORDERS:
        raise Refused(f"Invalid orderBy: {order} (use one of {', '.join(ORDERS)})", usage=True)
    return order


def search(context: Context, options: Options) -> Outcome:
    order = search_order(options.text("order_by"))
    direction = rules.sort_order(options.text("sort_order"))
    wanted = _statuses(options.text("instance_status"))
    offset = options.integer("offset", "offset", 0) or 0
    num_results = options.integer("num_results", "numResults", None)
    start, end = options.time("start"), options.time("end")
    records: list[tuple[Entity, InstanceRecord]] = []
    client = context.airflow()
    for entity in _chosen(context, options):
        assert isinstance(entity, (Feed, Process))
        try:
            first, last = window(entity, start, end, None, context.now())
        except Refused:
            continue  # the window lies outside this entity's validity
        refs = context.entity_dags(entity, frozenset({DEFAULT_LIFECYCLE[entity.entity_type]}))
        records += [(entity, record) for record in collect(client, refs, first, last)
                    if not wanted or record.status.value in wanted]
    by_record = {id(record): entity for entity, record in records}
    ordered = sort_records([record for _, record in records], order, direction, start is not None)
    shown = page(ordered, offset, num_results)
    documents: list[dict[str, Any]] = []
    for record in shown:
        entity = by_record[id(record)]
        documents.append({"entityType": entity.entity_type.value, "entityName": entity.name,
                          **record.as_json(client)})
    if not documents:
        return succeeded("No instances matched", text="No instances matched", instances=[])
    header = ("Entity", "Instance", "Cluster", "Status", "Start", "End")
    rows = [header] + [(f"({item['entityType']}) {item['entityName']}", item["instance"], item["cluster"],
                        item["status"], item.get("startTime") or "-", item.get("endTime") or "-")
                       for item in documents]
    widths = [max(len(row[column]) for row in rows) for column in range(len(header))]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
             for row in rows]
    lines.insert(1, "-" * len(lines[0]))
    return succeeded(f"{len(ordered)} instance(s) matched, {len(documents)} shown "
                     f"(searched up to {format_falcon_date(end or context.now())})",
                     text="\n".join(lines), instances=documents, totalResults=len(ordered))
