"""The colos' answers as one, as Falcon's Prism consolidated them (``AbstractEntityManager.consolidateResult``):

* the status: SUCCEEDED when every colo succeeded, FAILED when every colo failed, PARTIAL otherwise;
* the message and the request id: each colo's, under its name, one a line (``east/<message>\\n``);
* a result's collection (an ``InstancesResult``'s instances, an SLA alert's): every colo's, one after the other;
  a feed lookup's places once each (every colo that holds a feed finds the same places).

An entity list, which Falcon's Prism answered from its own store, is merged here from the colos' lists: one element
per entity, its status labelled by colo (``east/RUNNING,west/SUBMITTED``; the colos holding it, ``east,west``,
when the list was asked without its status). An entity's dependencies are such a list too. An entity summary keeps
each colo's entities one after the other, as Falcon's Prism did, each instance naming its cluster.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from falcon_airflow.operate.runs import descending
from falcon_airflow.parsing.secure import parse_xml_bytes
from falcon_airflow.server.bodies import APIResult, EntityList, ResultStatus
from falcon_airflow.server.bodies.results import (
    EntityElement,
    EntitySummary,
    EntitySummaryResult,
    FeedLookupResult,
    FeedProperties,
    SchedulableEntityInstance,
    SchedulableEntityInstanceResult,
    SummaryInstance,
)

_WEIGHT = {ResultStatus.SUCCEEDED: 0, ResultStatus.PARTIAL: 1, ResultStatus.FAILED: 2}
_HEADER_KEYS = ("status", "message", "requestId")


@dataclass(frozen=True)
class ColoResult:
    """One colo's ``APIResult``, or what went wrong reaching it."""

    colo: str
    status: ResultStatus
    message: str
    request_id: str | None = None


def merged_status(statuses: Iterable[ResultStatus]) -> ResultStatus:
    weights = [_WEIGHT[ResultStatus(status)] for status in statuses]
    if not weights or sum(weights) == 0:
        return ResultStatus.SUCCEEDED
    if sum(weights) == 2 * len(weights):
        return ResultStatus.FAILED
    return ResultStatus.PARTIAL


def merge_results(results: Sequence[ColoResult]) -> APIResult:
    """One ``APIResult`` of the colos' (in the order given: the Prism's colo order)."""
    message = "".join(f"{result.colo}/{result.message}\n" for result in results)
    request_ids = "".join(f"{result.colo}/{result.request_id}\n" for result in results)
    return APIResult(merged_status(result.status for result in results), message, request_ids or None)


def _local(tag: object) -> str:
    return str(tag).rsplit("}", 1)[-1]


def _text(element: Any, name: str) -> str | None:
    for child in element:
        if _local(child.tag) == name:
            return str(child.text or "")
    return None


def read_api_result(colo: str, content: bytes) -> ColoResult:
    """A colo's ``APIResult`` XML (``<result><status>...``); an answer that is not one is that colo's failure."""
    loaded = parse_xml_bytes(content, f"colo {colo}'s answer")
    root = loaded.root
    if root is None or _local(root.tag) != "result":
        return ColoResult(colo, ResultStatus.FAILED, f"unreadable answer: {content[:200]!r}")
    return _header(colo, root)


def _header(colo: str, root: Any) -> ColoResult:
    """The ``APIResult`` fields of a result element (every result extends ``APIResult``)."""
    status = _text(root, "status") or "FAILED"
    try:
        parsed = ResultStatus(status)
    except ValueError:
        parsed = ResultStatus.FAILED
    return ColoResult(colo, parsed, (_text(root, "message") or "").rstrip("\n"), _text(root, "requestId"))


def read_entity_list(content: bytes) -> list[EntityElement]:
    """A colo's ``EntityList`` XML."""
    loaded = parse_xml_bytes(content, "an entity list")
    root = loaded.root
    if root is None or _local(root.tag) != "entities":
        raise ValueError(f"not an entity list: {content[:200]!r}")
    found: list[EntityElement] = []
    for item in root:
        if _local(item.tag) != "entity":
            continue

        def listed(wrapper: str, _item: Any = item) -> tuple[str, ...] | None:
            for child in _item:
                if _local(child.tag) == wrapper:
                    return tuple(str(value.text or "") for value in child)
            return None

        found.append(EntityElement(_text(item, "type") or "", _text(item, "name") or "", _text(item, "status"),
                                   listed("tags"), listed("pipelines"), listed("clusters")))
    return found


def merge_entity_lists(lists: Sequence[tuple[str, Sequence[EntityElement]]], *, offset: int = 0,
                       limit: int | None = None) -> EntityList:
    """One element per (type, name), in the first colo's order then the next ones'; ``status`` labelled by colo.
    ``offset`` and ``limit`` page the merged list (each colo was asked for all of its list)."""
    order: list[tuple[str, str]] = []
    first: dict[tuple[str, str], EntityElement] = {}
    labels: dict[tuple[str, str], list[str]] = {}
    for colo, elements in lists:
        for element in elements:
            key = (element.type, element.name)
            if key not in first:
                order.append(key)
                first[key] = element
                labels[key] = []
            labels[key].append(f"{colo}/{element.status}" if element.status else colo)
    merged = [EntityElement(first[key].type, first[key].name, ",".join(labels[key]), first[key].tags,
                            first[key].pipelines, first[key].clusters) for key in order]
    page = merged[offset:] if limit is None else merged[offset:offset + limit]
    return EntityList(len(merged), tuple(page))


def _texts(element: Any, name: str) -> tuple[str, ...]:
    return tuple(str(child.text or "") for child in element if _local(child.tag) == name)


def _time(element: Any, name: str) -> datetime | None:
    given = _text(element, name)
    return datetime.fromisoformat(given) if given else None


def read_entity_summary(colo: str, content: bytes) -> tuple[ColoResult, tuple[EntitySummary, ...]]:
    """A colo's ``EntitySummaryResult`` XML (JAXB's: an ``entitySummaries`` element per entity, an ``instances``
    element per instance); an answer that is not one is that colo's failure."""
    root = parse_xml_bytes(content, f"colo {colo}'s answer").root
    if root is None or _local(root.tag) not in ("entitySummaryResult", "result"):
        return ColoResult(colo, ResultStatus.FAILED, f"unreadable answer: {content[:200]!r}"), ()
    header = _header(colo, root)
    summaries: list[EntitySummary] = []
    try:
        for item in (child for child in root if _local(child.tag) == "entitySummaries"):
            instances = tuple(
                SummaryInstance(_text(one, "instance"), _text(one, "status"), _text(one, "logFile"),
                                _text(one, "cluster"), _text(one, "sourceCluster"), _time(one, "startTime"),
                                _time(one, "endTime"))
                for one in item if _local(one.tag) == "instances")
            summaries.append(EntitySummary(_text(item, "name") or "", _text(item, "type") or "",
                                           _text(item, "status"), _texts(item, "tags"), _texts(item, "pipelines"),
                                           instances))
    except ValueError as problem:  # a date or a status Falcon's client would not read
        return ColoResult(colo, ResultStatus.FAILED, f"unreadable entity summary: {problem}"), ()
    return header, tuple(summaries)


def merge_entity_summaries(answers: Sequence[tuple[ColoResult, Sequence[EntitySummary]]]) -> EntitySummaryResult:
    """One ``EntitySummaryResult``: the header merged as an ``APIResult``'s, every colo's entities in colo order."""
    header = merge_results([result for result, _ in answers])
    return EntitySummaryResult(header.status, header.message, header.request_id,
                               tuple(summary for _, summaries in answers for summary in summaries))


def merge_json_results(answers: Sequence[tuple[str, Mapping[str, Any] | None, str | None]]) -> dict[str, Any]:
    """Instance results (JSON, Jersey's natural notation: lists stay lists) merged: ``answers`` are
    (colo, the colo's document or None, the failure when there is none)."""
    results: list[ColoResult] = []
    collections: dict[str, list[Any]] = {}
    for colo, document, problem in answers:
        if document is None:
            results.append(ColoResult(colo, ResultStatus.FAILED, problem or "no answer"))
            continue
        try:
            status = ResultStatus(str(document.get("status") or "FAILED"))
        except ValueError:
            status = ResultStatus.FAILED
        results.append(ColoResult(colo, status, str(document.get("message") or "").rstrip("\n"),
                                  None if document.get("requestId") is None else str(document["requestId"])))
        for key, value in document.items():
            if key in _HEADER_KEYS:
                continue
            collections.setdefault(key, []).extend(value if isinstance(value, list) else [value])
    header = merge_results(results)
    merged: dict[str, Any] = {"status": header.status.value, "message": header.message,
                              "requestId": header.request_id}
    merged.update(collections)
    return merged


def json_bytes(document: Mapping[str, Any]) -> bytes:
    return json.dumps(document, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def _unreadable(colo: str, what: str, content: bytes) -> ColoResult:
    return ColoResult(colo, ResultStatus.FAILED, f"unreadable {what}: {content[:200]!r}")


def read_feed_lookup(colo: str, content: bytes) -> tuple[ColoResult, tuple[FeedProperties, ...]]:
    """A colo's ``FeedLookupResult`` in Jersey's mapped JSON (the only structured form the lookup has: one place is
    an object, several an array); an answer that is not one is that colo's failure."""
    try:
        document = json.loads(content)
        if not isinstance(document, dict) or "status" not in document:
            raise ValueError("no status")
        given = document.get("elements") or []
        items = given if isinstance(given, list) else [given]
        places = tuple(FeedProperties(str(item["feedName"]), str(item["locationType"]), str(item["clusterName"]))
                       for item in items)
        status = ResultStatus(str(document["status"]))
    except (ValueError, KeyError, TypeError):
        return _unreadable(colo, "feed lookup", content), ()
    request_id = document.get("requestId")
    return ColoResult(colo, status, str(document.get("message") or "").rstrip("\n"),
                      None if request_id is None else str(request_id)), places


def merge_feed_lookups(answers: Sequence[tuple[ColoResult, Sequence[FeedProperties]]]) -> FeedLookupResult:
    """One ``FeedLookupResult``: the header merged as an ``APIResult``'s, each place once, in colo order."""
    header = merge_results([result for result, _ in answers])
    places = dict.fromkeys(place for _, found in answers for place in found)
    return FeedLookupResult(header.status, header.message, header.request_id, tuple(places))


def read_sla_alert(colo: str, content: bytes) -> tuple[ColoResult, tuple[SchedulableEntityInstance, ...]]:
    """A colo's ``SchedulableEntityInstanceResult`` XML (root ``instances``, an ``instances`` element per
    instance); an answer that is not one is that colo's failure."""
    root = parse_xml_bytes(content, f"colo {colo}'s answer").root
    if root is None or _local(root.tag) not in ("instances", "result"):
        return _unreadable(colo, "SLA alert", content), ()
    header = _header(colo, root)
    try:
        missed = []
        for item in (child for child in root if _local(child.tag) == "instances"):
            when = _time(item, "instanceTime")
            if when is None:
                raise ValueError("an instance without its time")
            missed.append(SchedulableEntityInstance(_text(item, "entityName") or "", _text(item, "cluster") or "",
                                                    when, _text(item, "entityType") or "", _text(item, "tags")))
    except ValueError as problem:  # a date or a type Falcon's client would not read
        return ColoResult(colo, ResultStatus.FAILED, f"unreadable SLA alert: {problem}"), ()
    return header, tuple(missed)


def merge_sla_alerts(answers: Sequence[tuple[ColoResult, Sequence[SchedulableEntityInstance]]]
                     ) -> SchedulableEntityInstanceResult:
    """One ``SchedulableEntityInstanceResult``: every colo's instances (each names its cluster), in colo order."""
    header = merge_results([result for result, _ in answers])
    return SchedulableEntityInstanceResult(header.status, header.message, header.request_id,
                                           tuple(item for _, found in answers for item in found))


_SEARCH_KEYS = {"status": "status", "cluster": "cluster", "starttime": "startTime", "endtime": "endTime"}


def order_search(instances: Sequence[Mapping[str, Any]], order: str | None, direction: str | None,
                 start_given: bool) -> list[Mapping[str, Any]]:
    """The colos' search results in one order, as one server orders its own (:func:`~falcon_airflow.operate.runs.
    descending`): by ``order`` (an instance that has not started or ended sorts as the earliest), else by instance
    time. Equal keys keep the colos' order."""
    backwards = descending(order, direction, start_given)
    if order is None:  # "name/2026-05-01T04:00Z": the time is the last part
        return sorted(instances, key=lambda item: str(item.get("instance") or "").rsplit("/", 1)[-1],
                      reverse=backwards)
    key = _SEARCH_KEYS[order]
    return sorted(instances, key=lambda item: str(item.get(key) or ""), reverse=backwards)
