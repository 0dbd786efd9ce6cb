"""From a schema-valid element tree to entity models.

The XSD has already checked structure, enumerations and formats, so the builders read without second-guessing.
What the XSD cannot check but Falcon's XML binding did is checked here and reported with the element's line:
impossible dates (``2011-02-30T00:00Z``) are schema errors, as they were for Falcon; an unknown time-zone ID is a
warning (Falcon silently used GMT).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import TypeVar, cast

from lxml import etree

from falcon_airflow.entities import (
    ACL,
    Argument,
    CatalogTable,
    Cluster,
    ClusterLocation,
    ClusterLocationName,
    Credential,
    CredentialType,
    Datasource,
    DatasourceInterface,
    DatasourceInterfaceType,
    DatasourceRef,
    DatasourceType,
    Driver,
    Entity,
    EntityType,
    ExecutionOrder,
    Extract,
    ExtractType,
    Feed,
    FeedCluster,
    FeedClusterType,
    FeedExport,
    FeedImport,
    FeedLocation,
    FeedSchema,
    FeedSLA,
    FieldSelection,
    Input,
    Interface,
    InterfaceType,
    LateArrival,
    LateInput,
    LateProcess,
    Lifecycle,
    Load,
    LoadType,
    LocationType,
    MergePolicy,
    Notification,
    NotificationLevel,
    Output,
    Partition,
    PasswordAlias,
    PolicyType,
    Process,
    ProcessCluster,
    ProcessSLA,
    Property,
    Retention,
    RetentionStage,
    Retry,
    SourceRef,
    SparkAttributes,
    Validity,
    Workflow,
    WorkflowEngine,
)
from falcon_airflow.errors import DateFormatError
from falcon_airflow.issues import Issue, Level
from falcon_airflow.timekeeping import Frequency, parse_falcon_date, resolve_zone

T = TypeVar("T")
_NONE: list[etree._Element] = []  # what _named gives for a missing child (never appended to)
_PLACEHOLDER_DATE = datetime(1970, 1, 1, tzinfo=UTC)


class _Node:
    """An element of one entity namespace, with short accessors for children, text and attributes."""

    __slots__ = ("_by_tag", "element", "prefix")

    def __init__(self, element: etree._Element, prefix: str) -> None:
        self.element = element
        self.prefix = prefix  # "{namespace}", which every child's tag starts with
        self._by_tag: dict[object, list[etree._Element]] | None = None

    @property
    def line(self) -> int | None:
        return cast("int | None", self.element.sourceline)  # as source_line() reads it, one call fewer

    def _named(self, name: str) -> list[etree._Element]:
        # The children are indexed by tag once per element: the builders ask for most children of every entity by
        # name, and a find() per name (ElementPath, a new proxy per call) was the largest cost of reading a file.
        by_tag = self._by_tag
        if by_tag is None:
            by_tag = self._by_tag = {}
            for item in self.element:
                tag = item.tag
                found = by_tag.get(tag)
                if found is None:
                    by_tag[tag] = [item]
                else:
                    found.append(item)
        return by_tag.get(self.prefix + name, _NONE)

    def child(self, name: str) -> _Node | None:
        found = self._named(name)
        return _Node(found[0], self.prefix) if found else None

    def children(self, name: str) -> list[_Node]:
        prefix = self.prefix
        return [_Node(item, prefix) for item in self._named(name)]

    def grandchildren(self, holder: str, name: str) -> list[_Node]:
        parent = self.child(holder)
        return parent.children(name) if parent is not None else []

    def text(self) -> str:
        return self.element.text or ""

    def child_text(self, name: str) -> str | None:
        found = self._named(name)
        return (found[0].text or "") if found else None

    def attr(self, name: str) -> str | None:
        value = self.element.get(name)
        return value if value is not None else None

    def required(self, name: str) -> str:
        value = self.element.get(name)
        return value if value is not None else ""


class _Builder:
    """Builds one entity; collects the issues found on the way instead of stopping at the first."""

    def __init__(self, root: etree._Element, entity_type: EntityType, display: str) -> None:
        self.root = _Node(root, f"{{{entity_type.namespace}}}")
        self.entity_type = entity_type
        self.display = display
        self.name = root.get("name")
        self.issues: list[Issue] = []

    def issue(self, level: Level, rule: str, message: str, line: int | None) -> None:
        self.issues.append(Issue(level, rule, message, file=self.display, line=line, entity=self.name,
                                 entity_type=self.entity_type.value))

    # -- typed readers ------------------------------------------------------------------------------------------

    def date(self, node: _Node, attribute: str) -> datetime:
        text = node.required(attribute)
        try:
            return parse_falcon_date(text)
        except DateFormatError as error:
            self.issue(Level.ERROR, "XSD", f"attribute '{attribute}' of <{_local(node)}>: {error.message}", node.line)
            return _PLACEHOLDER_DATE

    @staticmethod
    def frequency(text: str | None) -> Frequency | None:
        return Frequency.parse(text) if text is not None else None

    @staticmethod
    def integer(text: str | None, default: int) -> int:
        return int(text) if text is not None and text.strip() else default

    @staticmethod
    def boolean(text: str | None) -> bool:
        return (text or "").strip() in ("true", "1")

    def timezone(self) -> str:
        zone_node = self.root.child("timezone")
        if zone_node is None:
            return "UTC"
        zone_id = zone_node.text()
        if not resolve_zone(zone_id).known:
            self.issue(Level.WARNING, "FA003",
                       f"time zone '{zone_id}' is not a known zone ID; it is treated as UTC, as Falcon treated "
                       "unknown IDs as GMT (use an IANA ID such as Europe/Paris or a Java short ID such as IST)",
                       zone_node.line)
        return zone_id

    def source(self) -> SourceRef:
        return SourceRef(file=self.display, line=self.root.line)

    # -- pieces shared by several entity types -----------------------------------------------------------------

    @staticmethod
    def properties(holder: _Node | None) -> tuple[Property, ...]:
        if holder is None:
            return ()
        # read from the elements themselves: the most numerous element of an estate, so no node per property
        return tuple(Property(name=item.get("name") or "", value=item.get("value") or "",
                              line=cast("int | None", item.sourceline))
                     for item in holder._named("property"))

    @staticmethod
    def acl(node: _Node | None) -> ACL | None:
        if node is None:
            return None
        return ACL(owner=node.attr("owner"), group=node.attr("group"), permission=node.attr("permission") or "*",
                   line=node.line)

    @staticmethod
    def notification(node: _Node | None) -> Notification | None:
        if node is None:
            return None
        level = node.attr("level")
        return Notification(type=node.required("type"), level=NotificationLevel(level) if level else None,
                            to=node.required("to"), line=node.line)

    def validity(self, node: _Node) -> Validity:
        return Validity(start=self.date(node, "start"), end=self.date(node, "end"), line=node.line)

    # -- cluster -----------------------------------------------------------------------------------------------

    def cluster(self) -> Cluster:
        root = self.root
        return Cluster(
            name=root.required("name"),
            colo=root.required("colo"),
            description=root.attr("description"),
            version=self.integer(root.attr("version"), 0),
            tags=root.child_text("tags"),
            interfaces=tuple(
                Interface(type=InterfaceType(item.required("type")), endpoint=item.required("endpoint"),
                          version=item.required("version"), line=item.line)
                for item in root.grandchildren("interfaces", "interface")
            ),
            locations=tuple(
                ClusterLocation(name=ClusterLocationName(item.required("name")), path=item.required("path"),
                                line=item.line)
                for item in root.grandchildren("locations", "location")
            ),
            acl=self.acl(root.child("ACL")),
            properties=self.properties(root.child("properties")),
            source=self.source(),
        )

    # -- feed --------------------------------------------------------------------------------------------------

    @staticmethod
    def feed_locations(node: _Node | None) -> tuple[FeedLocation, ...] | None:
        if node is None:
            return None
        return tuple(FeedLocation(type=LocationType(item.required("type")), path=item.required("path"),
                                  line=item.line) for item in node.children("location"))

    @staticmethod
    def table(node: _Node | None) -> CatalogTable | None:
        return CatalogTable(uri=node.required("uri"), line=node.line) if node is not None else None

    def feed_sla(self, node: _Node | None) -> FeedSLA | None:
        if node is None:
            return None
        return FeedSLA(sla_low=Frequency.parse(node.required("slaLow")),
                       sla_high=Frequency.parse(node.required("slaHigh")), line=node.line)

    def lifecycle(self, node: _Node | None) -> Lifecycle | None:
        if node is None:
            return None
        stage_node = node.child("retention-stage")
        stage = None
        if stage_node is not None:
            stage = RetentionStage(
                policy=stage_node.child_text("policy"),
                frequency=self.frequency(stage_node.child_text("frequency")),
                queue=stage_node.child_text("queue"),
                priority=stage_node.child_text("priority"),
                properties=self.properties(stage_node.child("properties")),
                line=stage_node.line,
            )
        return Lifecycle(retention_stage=stage, line=node.line)

    @staticmethod
    def datasource_ref(node: _Node) -> DatasourceRef:
        extract_node, load_node, fields_node = node.child("extract"), node.child("load"), node.child("fields")
        extract = None
        if extract_node is not None:
            extract = Extract(type=ExtractType(extract_node.required("type")),
                              delta_column=extract_node.child_text("deltacolumn"),
                              merge_policy=MergePolicy(extract_node.child_text("mergepolicy") or "snapshot"),
                              line=extract_node.line)
        load = Load(type=LoadType(load_node.required("type")), line=load_node.line) if load_node is not None else None
        fields = None
        if fields_node is not None:
            includes = fields_node.child("includes")
            chosen = includes if includes is not None else fields_node.child("excludes")
            if chosen is not None:
                fields = FieldSelection(mode="includes" if includes is not None else "excludes",
                                        fields=tuple(item.text() for item in chosen.children("field")),
                                        line=fields_node.line)
        version = node.attr("version")
        return DatasourceRef(name=node.required("name"), table_name=node.required("tableName"),
                             version=int(version) if version else None, extract=extract, load=load, fields=fields,
                             line=node.line)

    @staticmethod
    def arguments(node: _Node | None) -> tuple[Argument, ...]:
        if node is None:
            return ()
        return tuple(Argument(name=item.required("name").lower(), value=item.required("value"), line=item.line)
                     for item in node.children("argument"))

    def feed_cluster(self, node: _Node) -> FeedCluster:
        import_node, export_node = node.child("import"), node.child("export")
        retention_node = node.child("retention")
        assert retention_node is not None  # required by the XSD
        validity_node = node.child("validity")
        assert validity_node is not None
        cluster_type = node.attr("type")
        return FeedCluster(
            name=node.required("name"),
            type=FeedClusterType(cluster_type) if cluster_type else None,
            partition=node.attr("partition"),
            delay=self.frequency(node.attr("delay")),
            version=self.integer(node.attr("version"), 0),
            validity=self.validity(validity_node),
            retention=Retention(limit=Frequency.parse(retention_node.required("limit")),
                                action="delete", type="instance", line=retention_node.line),
            sla=self.feed_sla(node.child("sla")),
            import_policy=_maybe(import_node, lambda n: FeedImport(
                source=self.datasource_ref(_must(n.child("source"))), arguments=self.arguments(n.child("arguments")),
                line=n.line)),
            export_policy=_maybe(export_node, lambda n: FeedExport(
                target=self.datasource_ref(_must(n.child("target"))), arguments=self.arguments(n.child("arguments")),
                line=n.line)),
            locations=self.feed_locations(node.child("locations")),
            table=self.table(node.child("table")),
            lifecycle=self.lifecycle(node.child("lifecycle")),
            line=node.line,
        )

    def feed(self) -> Feed:
        root = self.root
        late = root.child("late-arrival")
        schema_node = _must(root.child("schema"))
        groups = root.child_text("groups")
        return Feed(
            name=root.required("name"),
            description=root.attr("description"),
            version=self.integer(root.attr("version"), 0),
            tags=root.child_text("tags"),
            partitions=tuple(Partition(name=item.required("name"), line=item.line)
                             for item in root.grandchildren("partitions", "partition")),
            groups=tuple(groups.split(",")) if groups else (),
            availability_flag=root.child_text("availabilityFlag"),
            frequency=Frequency.parse(root.child_text("frequency") or ""),
            sla=self.feed_sla(root.child("sla")),
            timezone=self.timezone(),
            late_arrival=_maybe(late, lambda n: LateArrival(cut_off=Frequency.parse(n.required("cut-off")),
                                                            line=n.line)),
            clusters=tuple(self.feed_cluster(item) for item in root.grandchildren("clusters", "cluster")),
            locations=self.feed_locations(root.child("locations")),
            table=self.table(root.child("table")),
            notification=self.notification(root.child("notification")),
            acl=_must(self.acl(root.child("ACL"))),
            data_schema=FeedSchema(location=schema_node.required("location"), provider=schema_node.required("provider"),
                                   line=schema_node.line),
            properties=self.properties(root.child("properties")),
            lifecycle=self.lifecycle(root.child("lifecycle")),
            source=self.source(),
        )

    # -- process -----------------------------------------------------------------------------------------------

    def process_sla(self, node: _Node | None) -> ProcessSLA | None:
        if node is None:
            return None
        return ProcessSLA(should_start_in=self.frequency(node.attr("shouldStartIn")),
                          should_end_in=self.frequency(node.attr("shouldEndIn")), line=node.line)

    def process(self) -> Process:
        root = self.root
        workflow_node = _must(root.child("workflow"))
        spark_node = root.child("spark-attributes")
        retry_node = root.child("retry")
        late_node = root.child("late-process")
        pipelines = root.child_text("pipelines")
        engine = workflow_node.attr("engine")
        return Process(
            name=root.required("name"),
            version=self.integer(root.attr("version"), 0),
            tags=root.child_text("tags"),
            pipelines=tuple(item for item in _split_pipelines(pipelines)) if pipelines else (),
            clusters=tuple(
                ProcessCluster(name=item.required("name"), version=self.integer(item.attr("version"), 0),
                               validity=self.validity(_must(item.child("validity"))),
                               sla=self.process_sla(item.child("sla")), line=item.line)
                for item in root.grandchildren("clusters", "cluster")
            ),
            parallel=int((root.child_text("parallel") or "1").strip()),
            order=ExecutionOrder((root.child_text("order") or "FIFO").strip()),
            timeout=self.frequency(root.child_text("timeout")),
            frequency=Frequency.parse(root.child_text("frequency") or ""),
            sla=self.process_sla(root.child("sla")),
            timezone=self.timezone(),
            inputs=tuple(
                Input(name=item.required("name"), feed=item.required("feed"), start=item.required("start"),
                      end=item.required("end"), partition=item.attr("partition"),
                      optional=self.boolean(item.attr("optional")), line=item.line)
                for item in root.grandchildren("inputs", "input")
            ),
            outputs=tuple(
                Output(name=item.required("name"), feed=item.required("feed"), instance=item.required("instance"),
                       line=item.line)
                for item in root.grandchildren("outputs", "output")
            ),
            properties=self.properties(root.child("properties")),
            workflow=Workflow(name=workflow_node.attr("name"), version=workflow_node.attr("version") or "1.0",
                              engine=WorkflowEngine(engine) if engine else WorkflowEngine.OOZIE,
                              path=workflow_node.required("path"), lib=workflow_node.attr("lib"),
                              line=workflow_node.line),
            spark_attributes=_maybe(spark_node, lambda n: SparkAttributes(
                master=n.child_text("master"), mode=n.child_text("mode"), name=n.child_text("name") or "",
                class_name=n.child_text("class"), jar=n.child_text("jar") or "", spark_opts=n.child_text("spark-opts"),
                args=tuple(item.text() for item in n.children("arg")), line=n.line)),
            retry=_maybe(retry_node, lambda n: Retry(
                policy=PolicyType(n.required("policy")), delay=Frequency.parse(n.required("delay")),
                attempts=int(n.required("attempts")), on_timeout=self.boolean(n.attr("onTimeout")), line=n.line)),
            late_process=_maybe(late_node, lambda n: LateProcess(
                policy=PolicyType(n.required("policy")), delay=Frequency.parse(n.required("delay")),
                late_inputs=tuple(LateInput(input=item.required("input"), workflow_path=item.required("workflow-path"),
                                            line=item.line) for item in n.children("late-input")),
                line=n.line)),
            notification=self.notification(root.child("notification")),
            acl=self.acl(root.child("ACL")),
            source=self.source(),
        )

    # -- datasource --------------------------------------------------------------------------------------------

    @staticmethod
    def credential(node: _Node | None) -> Credential | None:
        if node is None:
            return None
        alias_node = node.child("passwordAlias")
        return Credential(
            type=CredentialType(node.required("type")),
            user_name=node.child_text("userName") or "",
            password_file=node.child_text("passwordFile"),
            password_text=node.child_text("passwordText"),
            password_alias=_maybe(alias_node, lambda n: PasswordAlias(
                alias=n.child_text("alias") or "", provider_path=n.child_text("providerPath") or "", line=n.line)),
            line=node.line,
        )

    @staticmethod
    def driver(node: _Node | None) -> Driver | None:
        if node is None:
            return None
        return Driver(clazz=(node.child_text("clazz") or "").strip(),
                      jars=tuple(item.text().strip() for item in node.children("jar")), line=node.line)

    def datasource(self) -> Datasource:
        root = self.root
        interfaces_node = _must(root.child("interfaces"))
        return Datasource(
            name=root.required("name"),
            colo=root.required("colo"),
            description=root.attr("description"),
            version=self.integer(root.attr("version"), 0),
            type=DatasourceType(root.required("type")),
            tags=root.child_text("tags"),
            interfaces=tuple(
                DatasourceInterface(type=DatasourceInterfaceType(item.required("type")),
                                    endpoint=item.required("endpoint"), driver=self.driver(item.child("driver")),
                                    credential=self.credential(item.child("credential")),
                                    properties=self.properties(item.child("properties")), line=item.line)
                for item in interfaces_node.children("interface")
            ),
            default_credential=self.credential(interfaces_node.child("credential")),
            driver=_must(self.driver(root.child("driver"))),
            properties=self.properties(root.child("properties")),
            acl=self.acl(root.child("ACL")),
            source=self.source(),
        )


def _local(node: _Node) -> str:
    return etree.QName(node.element).localname


def _must(value: T | None) -> T:
    assert value is not None, "required by the schema"
    return value


def _maybe(node: _Node | None, build: Callable[[_Node], T]) -> T | None:
    return build(node) if node is not None else None


def _split_pipelines(text: str) -> list[str]:
    return [token for token in text.replace(",", " ").split() if token]


_BUILDERS: dict[EntityType, Callable[[_Builder], Entity]] = {
    EntityType.CLUSTER: _Builder.cluster,
    EntityType.FEED: _Builder.feed,
    EntityType.PROCESS: _Builder.process,
    EntityType.DATASOURCE: _Builder.datasource,
}


def build_entity(root: etree._Element, entity_type: EntityType, display: str) -> tuple[Entity | None, list[Issue]]:
    """Build the model of a schema-valid document; ``None`` when a value the schema let through is unusable."""
    builder = _Builder(root, entity_type, display)
    entity = _BUILDERS[entity_type](builder)
    if any(issue.is_error for issue in builder.issues):
        return None, builder.issues
    return entity, builder.issues
