"""From a schema-valid element tree to entity models.

The XSD has already checked structure, enumerations and formats, so the builders read without second-guessing.
What the XSD cannot check but Falcon's XML binding did is checked here and reported with the element's line:
impossible dates (``2011-02-30T00:00Z``) are schema errors, as they were for Falcon; an unknown time-zone ID is a
warning (Falcon silently used GMT).

How: each element is read once into plain values (dicts, tuples, strings, the shared ``Frequency`` and ``datetime``
values), and the entity is made by one ``model_validate`` of the whole dict. Pydantic then builds every nested
model in compiled code, still checking every type, so the models are exactly those that constructing them one by
one gives (the same fields, every one set) at a third of the cost; reading a large estate was mostly this.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, cast

from lxml import etree

from falcon_airflow.entities import Cluster, Datasource, Entity, EntityType, Feed, Process
from falcon_airflow.errors import DateFormatError
from falcon_airflow.issues import Issue, Level
from falcon_airflow.timekeeping import Frequency, parse_falcon_date, resolve_zone

_PLACEHOLDER_DATE = datetime(1970, 1, 1, tzinfo=UTC)
_NO_CHILDREN: dict[str, etree._Element] = {}

Values = dict[str, Any]


def _line(element: etree._Element) -> int | None:
    return cast("int | None", element.sourceline)


def _text(element: etree._Element | None) -> str | None:
    """The text of an optional element: ``None`` when it is absent, ``""`` when it is empty."""
    return None if element is None else (element.text or "")


def _frequency(text: str | None) -> Frequency | None:
    return Frequency.parse(text) if text is not None else None


def _integer(text: str | None, default: int) -> int:
    return int(text) if text is not None and text.strip() else default


def _boolean(text: str | None) -> bool:
    return (text or "").strip() in ("true", "1")


class _Builder:
    """Reads one entity into plain values; collects the issues found on the way instead of stopping at the first."""

    def __init__(self, root: etree._Element, entity_type: EntityType, display: str) -> None:
        self.root = root
        self.prefix = f"{{{entity_type.namespace}}}"  # every element of the document is in this namespace
        self.entity_type = entity_type
        self.display = display
        self.name = root.get("name")
        self.issues: list[Issue] = []

    def issue(self, level: Level, rule: str, message: str, line: int | None) -> None:
        self.issues.append(Issue(level, rule, message, file=self.display, line=line, entity=self.name,
                                 entity_type=self.entity_type.value))

    # -- children ----------------------------------------------------------------------------------------------

    def kids(self, element: etree._Element | None) -> dict[str, etree._Element]:
        """The element's children by local name, the first of each name (each is read once, by name)."""
        if element is None:
            return _NO_CHILDREN
        found: dict[str, etree._Element] = {}
        size = len(self.prefix)
        for item in element.iterchildren(f"{self.prefix}*"):  # elements of the namespace: no comments
            found.setdefault(item.tag[size:], item)
        return found

    def each(self, element: etree._Element | None, name: str) -> list[etree._Element]:
        """The element's children called ``name``, in order (none when the element is absent)."""
        return [] if element is None else list(element.iterchildren(self.prefix + name))

    def each_in(self, kids: dict[str, etree._Element], holder: str, name: str) -> list[etree._Element]:
        return self.each(kids.get(holder), name)

    # -- typed readers ------------------------------------------------------------------------------------------

    def date(self, element: etree._Element, attribute: str) -> datetime:
        text = element.get(attribute) or ""
        try:
            return parse_falcon_date(text)
        except DateFormatError as error:
            self.issue(Level.ERROR, "XSD", f"attribute '{attribute}' of <{etree.QName(element).localname}>: "
                       f"{error.message}", _line(element))
            return _PLACEHOLDER_DATE

    def timezone(self, element: etree._Element | None) -> str:
        if element is None:
            return "UTC"
        zone_id = element.text or ""
        if not resolve_zone(zone_id).known:
            self.issue(Level.WARNING, "FA003",
                       f"time zone '{zone_id}' is not a known zone ID; it is treated as UTC, as Falcon treated "
                       "unknown IDs as GMT (use an IANA ID such as Europe/Paris or a Java short ID such as IST)",
                       _line(element))
        return zone_id

    def source(self) -> Values:
        return {"file": self.display, "line": _line(self.root)}

    # -- pieces shared by several entity types -----------------------------------------------------------------

    def properties(self, holder: etree._Element | None) -> tuple[Values, ...]:
        return tuple({"name": item.get("name") or "", "value": item.get("value") or "", "line": item.sourceline}
                     for item in self.each(holder, "property"))

    @staticmethod
    def acl(element: etree._Element | None) -> Values | None:
        if element is None:
            return None
        return {"owner": element.get("owner"), "group": element.get("group"),
                "permission": element.get("permission") or "*", "line": element.sourceline}

    @staticmethod
    def notification(element: etree._Element | None) -> Values | None:
        if element is None:
            return None
        return {"type": element.get("type") or "", "level": element.get("level") or None,
                "to": element.get("to") or "", "line": element.sourceline}

    def validity(self, element: etree._Element) -> Values:
        return {"start": self.date(element, "start"), "end": self.date(element, "end"), "line": element.sourceline}

    # -- cluster -----------------------------------------------------------------------------------------------

    def cluster(self) -> Values:
        root = self.root
        kids = self.kids(root)
        return {
            "name": root.get("name") or "",
            "colo": root.get("colo") or "",
            "description": root.get("description"),
            "version": _integer(root.get("version"), 0),
            "tags": _text(kids.get("tags")),
            "interfaces": tuple({"type": item.get("type") or "", "endpoint": item.get("endpoint") or "",
                                 "version": item.get("version") or "", "line": item.sourceline}
                                for item in self.each_in(kids, "interfaces", "interface")),
            "locations": tuple({"name": item.get("name") or "", "path": item.get("path") or "",
                                "line": item.sourceline}
                               for item in self.each_in(kids, "locations", "location")),
            "acl": self.acl(kids.get("ACL")),
            "properties": self.properties(kids.get("properties")),
            "source": self.source(),
        }

    # -- feed --------------------------------------------------------------------------------------------------

    def feed_locations(self, holder: etree._Element | None) -> tuple[Values, ...] | None:
        if holder is None:
            return None
        return tuple({"type": item.get("type") or "", "path": item.get("path") or "", "line": item.sourceline}
                     for item in self.each(holder, "location"))

    @staticmethod
    def table(element: etree._Element | None) -> Values | None:
        return {"uri": element.get("uri") or "", "line": element.sourceline} if element is not None else None

    @staticmethod
    def feed_sla(element: etree._Element | None) -> Values | None:
        if element is None:
            return None
        return {"sla_low": Frequency.parse(element.get("slaLow") or ""),
                "sla_high": Frequency.parse(element.get("slaHigh") or ""), "line": element.sourceline}

    def lifecycle(self, element: etree._Element | None) -> Values | None:
        if element is None:
            return None
        stage_element = self.kids(element).get("retention-stage")
        stage = None
        if stage_element is not None:
            kids = self.kids(stage_element)
            stage = {
                "policy": _text(kids.get("policy")),
                "frequency": _frequency(_text(kids.get("frequency"))),
                "queue": _text(kids.get("queue")),
                "priority": _text(kids.get("priority")),
                "properties": self.properties(kids.get("properties")),
                "line": stage_element.sourceline,
            }
        return {"retention_stage": stage, "line": element.sourceline}

    def datasource_ref(self, element: etree._Element) -> Values:
        kids = self.kids(element)
        extract_element, load_element, fields_element = kids.get("extract"), kids.get("load"), kids.get("fields")
        extract = None
        if extract_element is not None:
            extract_kids = self.kids(extract_element)
            extract = {"type": extract_element.get("type") or "",
                       "delta_column": _text(extract_kids.get("deltacolumn")),
                       "merge_policy": _text(extract_kids.get("mergepolicy")) or "snapshot",
                       "line": extract_element.sourceline}
        load = None
        if load_element is not None:
            load = {"type": load_element.get("type") or "", "line": load_element.sourceline}
        fields = None
        if fields_element is not None:
            field_kids = self.kids(fields_element)
            includes = field_kids.get("includes")
            chosen = includes if includes is not None else field_kids.get("excludes")
            if chosen is not None:
                fields = {"mode": "includes" if includes is not None else "excludes",
                          "fields": tuple(item.text or "" for item in self.each(chosen, "field")),
                          "line": fields_element.sourceline}
        version = element.get("version")
        return {"name": element.get("name") or "", "table_name": element.get("tableName") or "",
                "version": int(version) if version else None, "extract": extract, "load": load, "fields": fields,
                "line": element.sourceline}

    def arguments(self, holder: etree._Element | None) -> tuple[Values, ...]:
        return tuple({"name": (item.get("name") or "").lower(), "value": item.get("value") or "",
                      "line": item.sourceline} for item in self.each(holder, "argument"))

    def transfer(self, element: etree._Element | None, side: str) -> Values | None:
        """An ``<import>`` (``side`` "source") or ``<export>`` ("target") of a feed's cluster."""
        if element is None:
            return None
        kids = self.kids(element)
        reference = kids.get(side)
        assert reference is not None, "required by the schema"
        return {side: self.datasource_ref(reference), "arguments": self.arguments(kids.get("arguments")),
                "line": element.sourceline}

    def feed_cluster(self, element: etree._Element) -> Values:
        kids = self.kids(element)
        retention, validity = kids.get("retention"), kids.get("validity")
        assert retention is not None and validity is not None, "required by the schema"
        cluster_type = element.get("type")
        return {
            "name": element.get("name") or "",
            "type": cluster_type or None,
            "partition": element.get("partition"),
            "delay": _frequency(element.get("delay")),
            "version": _integer(element.get("version"), 0),
            "validity": self.validity(validity),
            "retention": {"limit": Frequency.parse(retention.get("limit") or ""), "action": "delete",
                          "type": "instance", "line": retention.sourceline},
            "sla": self.feed_sla(kids.get("sla")),
            "import_policy": self.transfer(kids.get("import"), "source"),
            "export_policy": self.transfer(kids.get("export"), "target"),
            "locations": self.feed_locations(kids.get("locations")),
            "table": self.table(kids.get("table")),
            "lifecycle": self.lifecycle(kids.get("lifecycle")),
            "line": element.sourceline,
        }

    def feed(self) -> Values:
        root = self.root
        kids = self.kids(root)
        late, schema = kids.get("late-arrival"), kids.get("schema")
        assert schema is not None, "required by the schema"
        groups = _text(kids.get("groups"))
        acl = self.acl(kids.get("ACL"))
        assert acl is not None, "required by the schema"
        return {
            "name": root.get("name") or "",
            "description": root.get("description"),
            "version": _integer(root.get("version"), 0),
            "tags": _text(kids.get("tags")),
            "partitions": tuple({"name": item.get("name") or "", "line": item.sourceline}
                                for item in self.each_in(kids, "partitions", "partition")),
            "groups": tuple(groups.split(",")) if groups else (),
            "availability_flag": _text(kids.get("availabilityFlag")),
            "frequency": Frequency.parse(_text(kids.get("frequency")) or ""),
            "sla": self.feed_sla(kids.get("sla")),
            "timezone": self.timezone(kids.get("timezone")),
            "late_arrival": None if late is None else {"cut_off": Frequency.parse(late.get("cut-off") or ""),
                                                       "line": late.sourceline},
            "clusters": tuple(self.feed_cluster(item) for item in self.each_in(kids, "clusters", "cluster")),
            "locations": self.feed_locations(kids.get("locations")),
            "table": self.table(kids.get("table")),
            "notification": self.notification(kids.get("notification")),
            "acl": acl,
            "data_schema": {"location": schema.get("location") or "", "provider": schema.get("provider") or "",
                            "line": schema.sourceline},
            "properties": self.properties(kids.get("properties")),
            "lifecycle": self.lifecycle(kids.get("lifecycle")),
            "source": self.source(),
        }

    # -- process -----------------------------------------------------------------------------------------------

    @staticmethod
    def process_sla(element: etree._Element | None) -> Values | None:
        if element is None:
            return None
        return {"should_start_in": _frequency(element.get("shouldStartIn")),
                "should_end_in": _frequency(element.get("shouldEndIn")), "line": element.sourceline}

    def process_cluster(self, element: etree._Element) -> Values:
        kids = self.kids(element)
        validity = kids.get("validity")
        assert validity is not None, "required by the schema"
        return {"name": element.get("name") or "", "version": _integer(element.get("version"), 0),
                "validity": self.validity(validity), "sla": self.process_sla(kids.get("sla")),
                "line": element.sourceline}

    def spark_attributes(self, element: etree._Element | None) -> Values | None:
        if element is None:
            return None
        kids = self.kids(element)
        return {"master": _text(kids.get("master")), "mode": _text(kids.get("mode")),
                "name": _text(kids.get("name")) or "", "class_name": _text(kids.get("class")),
                "jar": _text(kids.get("jar")) or "", "spark_opts": _text(kids.get("spark-opts")),
                "args": tuple(item.text or "" for item in self.each(element, "arg")), "line": element.sourceline}

    @staticmethod
    def retry(element: etree._Element | None) -> Values | None:
        if element is None:
            return None
        return {"policy": element.get("policy") or "", "delay": Frequency.parse(element.get("delay") or ""),
                "attempts": int(element.get("attempts") or ""), "on_timeout": _boolean(element.get("onTimeout")),
                "line": element.sourceline}

    def late_process(self, element: etree._Element | None) -> Values | None:
        if element is None:
            return None
        return {"policy": element.get("policy") or "", "delay": Frequency.parse(element.get("delay") or ""),
                "late_inputs": tuple({"input": item.get("input") or "",
                                      "workflow_path": item.get("workflow-path") or "", "line": item.sourceline}
                                     for item in self.each(element, "late-input")),
                "line": element.sourceline}

    def process(self) -> Values:
        root = self.root
        kids = self.kids(root)
        workflow = kids.get("workflow")
        assert workflow is not None, "required by the schema"
        pipelines = _text(kids.get("pipelines"))
        return {
            "name": root.get("name") or "",
            "version": _integer(root.get("version"), 0),
            "tags": _text(kids.get("tags")),
            "pipelines": tuple(_split_pipelines(pipelines)) if pipelines else (),
            "clusters": tuple(self.process_cluster(item) for item in self.each_in(kids, "clusters", "cluster")),
            "parallel": int((_text(kids.get("parallel")) or "1").strip()),
            "order": (_text(kids.get("order")) or "FIFO").strip(),
            "timeout": _frequency(_text(kids.get("timeout"))),
            "frequency": Frequency.parse(_text(kids.get("frequency")) or ""),
            "sla": self.process_sla(kids.get("sla")),
            "timezone": self.timezone(kids.get("timezone")),
            "inputs": tuple({"name": item.get("name") or "", "feed": item.get("feed") or "",
                             "start": item.get("start") or "", "end": item.get("end") or "",
                             "partition": item.get("partition"), "optional": _boolean(item.get("optional")),
                             "line": item.sourceline}
                            for item in self.each_in(kids, "inputs", "input")),
            "outputs": tuple({"name": item.get("name") or "", "feed": item.get("feed") or "",
                              "instance": item.get("instance") or "", "line": item.sourceline}
                             for item in self.each_in(kids, "outputs", "output")),
            "properties": self.properties(kids.get("properties")),
            "workflow": {"name": workflow.get("name"), "version": workflow.get("version") or "1.0",
                         "engine": workflow.get("engine") or "oozie", "path": workflow.get("path") or "",
                         "lib": workflow.get("lib"), "line": workflow.sourceline},
            "spark_attributes": self.spark_attributes(kids.get("spark-attributes")),
            "retry": self.retry(kids.get("retry")),
            "late_process": self.late_process(kids.get("late-process")),
            "notification": self.notification(kids.get("notification")),
            "acl": self.acl(kids.get("ACL")),
            "source": self.source(),
        }

    # -- datasource --------------------------------------------------------------------------------------------

    def credential(self, element: etree._Element | None) -> Values | None:
        if element is None:
            return None
        kids = self.kids(element)
        alias = kids.get("passwordAlias")
        password_alias = None
        if alias is not None:
            alias_kids = self.kids(alias)
            password_alias = {"alias": _text(alias_kids.get("alias")) or "",
                              "provider_path": _text(alias_kids.get("providerPath")) or "", "line": alias.sourceline}
        return {"type": element.get("type") or "", "user_name": _text(kids.get("userName")) or "",
                "password_file": _text(kids.get("passwordFile")), "password_text": _text(kids.get("passwordText")),
                "password_alias": password_alias, "line": element.sourceline}

    def driver(self, element: etree._Element | None) -> Values | None:
        if element is None:
            return None
        return {"clazz": (_text(self.kids(element).get("clazz")) or "").strip(),
                "jars": tuple((item.text or "").strip() for item in self.each(element, "jar")),
                "line": element.sourceline}

    def datasource(self) -> Values:
        root = self.root
        kids = self.kids(root)
        interfaces = kids.get("interfaces")
        assert interfaces is not None, "required by the schema"
        interface_kids = self.kids(interfaces)
        driver = self.driver(kids.get("driver"))
        assert driver is not None, "required by the schema"
        return {
            "name": root.get("name") or "",
            "colo": root.get("colo") or "",
            "description": root.get("description"),
            "version": _integer(root.get("version"), 0),
            "type": root.get("type") or "",
            "tags": _text(kids.get("tags")),
            "interfaces": tuple(self.datasource_interface(item) for item in self.each(interfaces, "interface")),
            "default_credential": self.credential(interface_kids.get("credential")),
            "driver": driver,
            "properties": self.properties(kids.get("properties")),
            "acl": self.acl(kids.get("ACL")),
            "source": self.source(),
        }

    def datasource_interface(self, element: etree._Element) -> Values:
        kids = self.kids(element)
        return {"type": element.get("type") or "", "endpoint": element.get("endpoint") or "",
                "driver": self.driver(kids.get("driver")), "credential": self.credential(kids.get("credential")),
                "properties": self.properties(kids.get("properties")), "line": element.sourceline}


def _split_pipelines(text: str) -> list[str]:
    return [token for token in text.replace(",", " ").split() if token]


_BUILDERS: dict[EntityType, tuple[Callable[[_Builder], Values], type[Entity]]] = {
    EntityType.CLUSTER: (_Builder.cluster, Cluster),
    EntityType.FEED: (_Builder.feed, Feed),
    EntityType.PROCESS: (_Builder.process, Process),
    EntityType.DATASOURCE: (_Builder.datasource, Datasource),
}


def read_entity(root: etree._Element, entity_type: EntityType, display: str) -> tuple[Values | None, list[Issue]]:
    """The plain values of a schema-valid document's entity (what :func:`build_entity` validates into its model),
    with the issues found; ``None`` when a value the schema let through is unusable."""
    builder = _Builder(root, entity_type, display)
    values = _BUILDERS[entity_type][0](builder)
    if any(issue.is_error for issue in builder.issues):
        return None, builder.issues
    return values, builder.issues


def entity_from_values(values: Values, entity_type: EntityType) -> Entity:
    """The model of values :func:`read_entity` gave: one validation of the whole entity. Every type is still
    checked (enumerations from their text, the shared Frequency and datetime values as they are), in compiled code
    instead of one constructor call per element."""
    return _BUILDERS[entity_type][1].model_validate(values)


def build_entity(root: etree._Element, entity_type: EntityType, display: str) -> tuple[Entity | None, list[Issue]]:
    """Build the model of a schema-valid document; ``None`` when a value the schema let through is unusable."""
    values, issues = read_entity(root, entity_type, display)
    return (entity_from_values(values, entity_type) if values is not None else None), issues
