"""Falcon's result types (``org.apache.falcon.resource.*`` in Falcon 0.9/0.10), as frozen dataclasses.

Each type knows its root element, its JSON notation and the element tree JAXB wrote for it (:meth:`element`);
:mod:`~falcon_airflow.server.bodies.wire` turns the tree into bytes. Field order, element names, which fields JAXB
always wrote (primitives) and which it left out when null follow the JAXB annotations of Falcon's classes: a
field-access class (``@XmlAccessorType(FIELD)``, inherited from ``APIResult`` by every result) writes its fields in
declaration order after ``status``, ``message`` and ``requestId``; a getter/setter-bound class
(``SchedulableEntityInstance``) writes its properties alphabetically.

Statuses are checked against the enum of the Falcon 0.9/0.10 class that carries them: Falcon's client reads a name
its enum does not have as ``null``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import ClassVar, Literal

from falcon_airflow.server.bodies.wire import Node, date, leaf, number, objects, strings, wrapped

Notation = Literal["natural", "mapped"]


class ResultStatus(StrEnum):
    """``APIResult.Status``."""

    SUCCEEDED = "SUCCEEDED"
    PARTIAL = "PARTIAL"
    FAILED = "FAILED"


INSTANCE_STATUSES = frozenset({"WAITING", "RUNNING", "SUSPENDED", "KILLED", "FAILED", "SUCCEEDED", "ERROR", "SKIPPED",
                               "UNDEFINED", "READY"})
"""``InstancesResult.WorkflowStatus`` in Falcon 0.9 and 0.10 (0.11 added KILLED_OR_IGNORED and TIMEDOUT)."""

SUMMARY_INSTANCE_STATUSES = frozenset({"WAITING", "RUNNING", "SUSPENDED", "KILLED", "FAILED", "SUCCEEDED", "ERROR",
                                       "READY"})
"""``EntitySummaryResult.WorkflowStatus``: no SKIPPED, no UNDEFINED."""

ENTITY_TYPES = frozenset({"FEED", "PROCESS", "CLUSTER", "DATASOURCE"})
"""``EntityType`` names, as a getter-bound enum property is written (``SchedulableEntityInstance.entityType``)."""

LOCATION_TYPES = frozenset({"data", "stats", "meta", "tmp"})
"""``feed.LocationType`` values (its ``@XmlEnumValue`` names)."""


def _checked(value: str | None, allowed: frozenset[str], what: str) -> str | None:
    if value is not None and value not in allowed:
        raise ValueError(f"{value!r} is not a {what} Falcon's client knows ({', '.join(sorted(allowed))})")
    return value


@dataclass(frozen=True, slots=True)
class APIResult:
    """``APIResult`` (root ``result``): every operation's answer; the other results extend it."""

    status: ResultStatus
    message: str | None
    request_id: str | None = None

    ROOT: ClassVar[str] = "result"
    NOTATION: ClassVar[Notation] = "natural"

    def header(self) -> tuple[Node, ...]:
        return (*leaf("status", ResultStatus(self.status).value), *leaf("message", self.message),
                *leaf("requestId", self.request_id))

    def fields(self) -> tuple[Node, ...]:
        return ()

    def element(self) -> Node:
        return Node(self.ROOT, children=(*self.header(), *self.fields()))


# -- entities -------------------------------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class EntityElement:
    """``EntityList.EntityElement``: ``None`` lists are left out, empty ones written as an empty wrapper."""

    type: str
    name: str
    status: str | None = None
    tags: tuple[str, ...] | None = None
    pipelines: tuple[str, ...] | None = None
    clusters: tuple[str, ...] | None = None

    def children(self) -> tuple[Node, ...]:
        return (*leaf("type", self.type), *leaf("name", self.name), *leaf("status", self.status),
                *wrapped("tags", "tag", self.tags), *wrapped("pipelines", "pipeline", self.pipelines),
                *wrapped("clusters", "cluster", self.clusters))


@dataclass(frozen=True, slots=True)
class EntityList:
    """``EntityList`` (root ``entities``): ``entity -list`` and ``entity -dependency``. Not an ``APIResult``."""

    total_results: int
    entities: tuple[EntityElement, ...] = ()

    ROOT: ClassVar[str] = "entities"
    NOTATION: ClassVar[Notation] = "mapped"

    def children(self) -> tuple[Node, ...]:
        return (*number("totalResults", self.total_results),
                *objects("entity", (item.children() for item in self.entities)))

    def element(self) -> Node:
        return Node(self.ROOT, children=self.children())


@dataclass(frozen=True, slots=True)
class SummaryInstance:
    """``EntitySummaryResult.Instance``."""

    instance: str | None
    status: str | None = None
    log_file: str | None = None
    cluster: str | None = None
    source_cluster: str | None = None
    start_time: datetime | None = None
    end_time: datetime | None = None

    def __post_init__(self) -> None:
        _checked(self.status, SUMMARY_INSTANCE_STATUSES, "EntitySummaryResult.WorkflowStatus")

    def children(self) -> tuple[Node, ...]:
        return (*leaf("instance", self.instance), *leaf("status", self.status), *leaf("logFile", self.log_file),
                *leaf("cluster", self.cluster), *leaf("sourceCluster", self.source_cluster),
                *date("startTime", self.start_time), *date("endTime", self.end_time))


@dataclass(frozen=True, slots=True)
class EntitySummary:
    """``EntitySummaryResult.EntitySummary``: tags and pipelines are unwrapped string arrays."""

    name: str
    type: str
    status: str | None = None
    tags: tuple[str, ...] = ()
    pipelines: tuple[str, ...] = ()
    instances: tuple[SummaryInstance, ...] = ()

    def children(self) -> tuple[Node, ...]:
        return (*leaf("type", self.type), *leaf("name", self.name), *leaf("status", self.status),
                *strings("tags", self.tags), *strings("pipelines", self.pipelines),
                *objects("instances", (item.children() for item in self.instances)))


@dataclass(frozen=True, slots=True)
class EntitySummaryResult(APIResult):
    """``EntitySummaryResult`` (root ``entitySummaryResult``): ``entity -summary``."""

    summaries: tuple[EntitySummary, ...] = ()

    ROOT: ClassVar[str] = "entitySummaryResult"
    NOTATION: ClassVar[Notation] = "mapped"

    def fields(self) -> tuple[Node, ...]:
        return objects("entitySummaries", (item.children() for item in self.summaries))


@dataclass(frozen=True, slots=True)
class FeedProperties:
    """``FeedLookupResult.FeedProperties``."""

    feed_name: str
    location_type: str
    cluster_name: str

    def __post_init__(self) -> None:
        _checked(self.location_type, LOCATION_TYPES, "feed LocationType")

    def children(self) -> tuple[Node, ...]:
        return (*leaf("feedName", self.feed_name), *leaf("locationType", self.location_type),
                *leaf("clusterName", self.cluster_name))


@dataclass(frozen=True, slots=True)
class FeedLookupResult(APIResult):
    """``FeedLookupResult`` (root ``feeds``): ``entity -lookup``."""

    elements: tuple[FeedProperties, ...] = ()

    ROOT: ClassVar[str] = "feeds"
    NOTATION: ClassVar[Notation] = "mapped"

    def fields(self) -> tuple[Node, ...]:
        return objects("elements", (item.children() for item in self.elements))


# -- instances ------------------------------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class InstanceAction:
    """``InstancesResult.InstanceAction``: one action (task) of an instance's workflow."""

    action: str | None
    status: str | None = None
    log_file: str | None = None

    def children(self) -> tuple[Node, ...]:
        return (*leaf("action", self.action), *leaf("status", self.status), *leaf("logFile", self.log_file))


@dataclass(frozen=True, slots=True)
class KeyValuePair:
    """``InstancesResult.KeyValuePair``: one workflow parameter."""

    key: str | None
    value: str | None

    def children(self) -> tuple[Node, ...]:
        return (*leaf("key", self.key), *leaf("value", self.value))


@dataclass(frozen=True, slots=True)
class Instance:
    """``InstancesResult.Instance``. ``run_id`` is a primitive: always written."""

    instance: str | None
    status: str | None = None
    log_file: str | None = None
    cluster: str | None = None
    source_cluster: str | None = None
    start_time: datetime | None = None
    end_time: datetime | None = None
    run_id: int = 0
    details: str | None = None
    actions: tuple[InstanceAction, ...] = ()
    wf_params: tuple[KeyValuePair, ...] = ()

    def __post_init__(self) -> None:
        _checked(self.status, INSTANCE_STATUSES, "InstancesResult.WorkflowStatus")

    def children(self) -> tuple[Node, ...]:
        return (*leaf("instance", self.instance), *leaf("status", self.status), *leaf("logFile", self.log_file),
                *leaf("cluster", self.cluster), *leaf("sourceCluster", self.source_cluster),
                *date("startTime", self.start_time), *date("endTime", self.end_time), *number("runId", self.run_id),
                *leaf("details", self.details),
                *objects("actions", (item.children() for item in self.actions)),
                *objects("wfParams", (item.children() for item in self.wf_params)))


@dataclass(frozen=True, slots=True)
class InstancesResult(APIResult):
    """``InstancesResult`` (root ``instancesResult``): instance -running, -status, -list, -kill, -suspend,
    -resume, -rerun, -logs, -params and -search."""

    instances: tuple[Instance, ...] = ()

    ROOT: ClassVar[str] = "instancesResult"
    NOTATION: ClassVar[Notation] = "natural"

    def fields(self) -> tuple[Node, ...]:
        return objects("instances", (item.children() for item in self.instances))


@dataclass(frozen=True, slots=True)
class InstanceSummary:
    """``InstancesSummaryResult.InstanceSummary``: a cluster and how many instances are in each status.

    The counts are a ``Map<String, Long>`` under ``@XmlElementWrapper(name="map")``: ``<map><entry><key>..</key>
    <value>..</value></entry>...</map>``, which the natural JSON notation writes with one ``"entry"`` key per entry
    (the object repeats the key)."""

    cluster: str | None
    counts: tuple[tuple[str, int], ...] | None = ()

    @classmethod
    def of(cls, cluster: str | None, counts: Mapping[str, int] | None) -> InstanceSummary:
        return cls(cluster, None if counts is None else tuple((key, int(value)) for key, value in counts.items()))

    def children(self) -> tuple[Node, ...]:
        entries = None if self.counts is None else tuple(
            Node("entry", children=(Node("key", key), Node("value", str(value)))) for key, value in self.counts)
        return (*leaf("cluster", self.cluster), *(() if entries is None else (Node("map", children=entries),)))


@dataclass(frozen=True, slots=True)
class InstancesSummaryResult(APIResult):
    """``InstancesSummaryResult`` (root ``instancesSummaryResult``): ``instance -summary``."""

    summaries: tuple[InstanceSummary, ...] = ()

    ROOT: ClassVar[str] = "instancesSummaryResult"
    NOTATION: ClassVar[Notation] = "natural"

    def fields(self) -> tuple[Node, ...]:
        return objects("instancesSummary", (item.children() for item in self.summaries))


@dataclass(frozen=True, slots=True)
class FeedInstance:
    """``FeedInstanceResult.Instance``: ``creationTime`` (epoch milliseconds) and ``size`` are primitives, always
    written; ``sizeH`` is the human-readable size (commons-io's ``byteCountToDisplaySize``)."""

    cluster: str | None
    instance: str | None
    status: str | None = None
    uri: str | None = None
    creation_time: int = 0
    size: int = 0
    size_h: str | None = None

    def children(self) -> tuple[Node, ...]:
        return (*leaf("cluster", self.cluster), *leaf("instance", self.instance), *leaf("status", self.status),
                *leaf("uri", self.uri), *number("creationTime", self.creation_time), *number("size", self.size),
                *leaf("sizeH", self.size_h))


@dataclass(frozen=True, slots=True)
class FeedInstanceResult(APIResult):
    """``FeedInstanceResult`` (root ``feedInstanceResult``): ``instance -listing``."""

    instances: tuple[FeedInstance, ...] = ()

    ROOT: ClassVar[str] = "feedInstanceResult"
    NOTATION: ClassVar[Notation] = "mapped"

    def fields(self) -> tuple[Node, ...]:
        return objects("instances", (item.children() for item in self.instances))


@dataclass(frozen=True, slots=True)
class SchedulableEntityInstance:
    """``SchedulableEntityInstance``: bound through its getters and setters, so its properties come in alphabetical
    order (cluster, entityName, entityType, instanceTime, tags); ``entityType`` is the enum name (``FEED``)."""

    entity_name: str
    cluster: str
    instance_time: datetime
    entity_type: str
    tags: str | None = None

    def __post_init__(self) -> None:
        _checked(self.entity_type, ENTITY_TYPES, "EntityType")

    def children(self) -> tuple[Node, ...]:
        return (*leaf("cluster", self.cluster), *leaf("entityName", self.entity_name),
                *leaf("entityType", self.entity_type), *date("instanceTime", self.instance_time),
                *leaf("tags", self.tags))


@dataclass(frozen=True, slots=True)
class InstanceDependencyResult(APIResult):
    """``InstanceDependencyResult`` (root ``dependents``): ``instance -dependency``."""

    dependencies: tuple[SchedulableEntityInstance, ...] = ()

    ROOT: ClassVar[str] = "dependents"
    NOTATION: ClassVar[Notation] = "natural"

    def fields(self) -> tuple[Node, ...]:
        return objects("dependencies", (item.children() for item in self.dependencies))


@dataclass(frozen=True, slots=True)
class SchedulableEntityInstanceResult(APIResult):
    """``SchedulableEntityInstanceResult`` (root ``instances``): ``entity -slaAlert``."""

    instances: tuple[SchedulableEntityInstance, ...] = ()

    ROOT: ClassVar[str] = "instances"
    NOTATION: ClassVar[Notation] = "mapped"

    def fields(self) -> tuple[Node, ...]:
        return objects("instances", (item.children() for item in self.instances))


@dataclass(frozen=True, slots=True)
class Edge:
    """``LineageGraphResult.Edge``."""

    source: str | None
    target: str | None
    label: str | None

    def children(self) -> tuple[Node, ...]:
        return (*leaf("from", self.source), *leaf("to", self.target), *leaf("label", self.label))


@dataclass(frozen=True, slots=True)
class LineageGraphResult:
    """``LineageGraphResult`` (root ``result``): a graph of vertex names and labelled edges; the body of
    ``metadata -lineage`` and each graph of a triage. Not an ``APIResult``."""

    vertices: tuple[str, ...] = ()
    edges: tuple[Edge, ...] = ()

    ROOT: ClassVar[str] = "result"
    NOTATION: ClassVar[Notation] = "mapped"

    def children(self) -> tuple[Node, ...]:
        return (*strings("vertices", self.vertices),
                *objects("edges", (item.children() for item in self.edges)))

    def element(self) -> Node:
        return Node(self.ROOT, children=self.children())


@dataclass(frozen=True, slots=True)
class TriageResult(APIResult):
    """``TriageResult`` (root ``triage``): ``instance -triage``, one graph per walked instance."""

    graphs: tuple[LineageGraphResult, ...] = ()

    ROOT: ClassVar[str] = "triage"
    NOTATION: ClassVar[Notation] = "natural"

    def fields(self) -> tuple[Node, ...]:
        return objects("triageGraphs", (item.children() for item in self.graphs))


# -- admin and extensions ---------------------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class PropertyList:
    """``AdminResource.PropertyList`` (root ``properties``): ``admin -version`` and ``api/admin/config/{type}``;
    each property is an element ``properties`` with ``key`` and ``value``."""

    properties: tuple[tuple[str, str | None], ...] = ()

    ROOT: ClassVar[str] = "properties"
    NOTATION: ClassVar[Notation] = "mapped"

    def element(self) -> Node:
        return Node(self.ROOT, children=tuple(
            Node("properties", children=(*leaf("key", key), *leaf("value", value)), many=True)
            for key, value in self.properties))


@dataclass(frozen=True, slots=True)
class ExtensionJob:
    """``ExtensionJobList.JobElement``: a job and the entities it made (an ``EntityList``)."""

    job_name: str
    entities: EntityList = field(default_factory=lambda: EntityList(0))

    def children(self) -> tuple[Node, ...]:
        return (*leaf("jobName", self.job_name), Node("jobEntities", children=self.entities.children()))


@dataclass(frozen=True, slots=True)
class ExtensionJobList:
    """``ExtensionJobList`` (root ``extensionJobList``, Falcon 0.10): ``extension -list``."""

    jobs: tuple[ExtensionJob, ...] = ()

    ROOT: ClassVar[str] = "extensionJobList"
    NOTATION: ClassVar[Notation] = "mapped"

    def element(self) -> Node:
        # Falcon built the list with an empty ArrayList: no job is an empty <jobs/>
        jobs = objects("job", (item.children() for item in self.jobs))
        return Node(self.ROOT, children=(*number("numJobs", len(self.jobs)), Node("jobs", children=jobs)))


@dataclass(frozen=True, slots=True)
class ExtensionEntitySummary:
    """``ExtensionInstanceList.EntitySummary``: an entity of a job and its instances."""

    profile: EntityElement
    instances: tuple[Instance, ...] = ()

    def children(self) -> tuple[Node, ...]:
        return (Node("entityProfile", children=self.profile.children()),
                *objects("instances", (item.children() for item in self.instances)))


@dataclass(frozen=True, slots=True)
class ExtensionInstanceList:
    """``ExtensionInstanceList`` (root ``extensionInstanceList``, Falcon 0.10): ``extension -instances``."""

    summaries: tuple[ExtensionEntitySummary, ...] = ()

    ROOT: ClassVar[str] = "extensionInstanceList"
    NOTATION: ClassVar[Notation] = "mapped"

    def element(self) -> Node:
        summaries = objects("entitySummary", (item.children() for item in self.summaries))
        return Node(self.ROOT, children=(*number("numEntities", len(self.summaries)),
                                         Node("entitiesSummary", children=summaries)))


# -- bodies that are not JAXB objects -------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class EntityDefinition:
    """``entity -definition``: the entity's XML, sent as it is whatever the negotiated type (Falcon's resource
    returned a ``String``). Falcon's 0.9 client reads it with its own schema-validating unmarshaller."""

    xml: str


@dataclass(frozen=True, slots=True)
class PlainText:
    """A ``String`` a resource returned: ``admin -stack``, ``api/admin/setSafeMode``, ``extension -describe``."""

    text: str


@dataclass(frozen=True, slots=True)
class JsonDocument:
    """A JSON object a resource built by hand (Jettison's ``JSONObject``): the metadata and extension catalogue
    answers. ``members`` keep their order."""

    members: Mapping[str, object]


JaxbBody = (APIResult | EntityList | LineageGraphResult | PropertyList | ExtensionJobList | ExtensionInstanceList)
Body = JaxbBody | EntityDefinition | PlainText | JsonDocument
