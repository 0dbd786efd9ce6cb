"""Golden bodies: the exact bytes Falcon 0.9's server (JAXB 2.2 and Jersey 1.9) wrote for each result type.

Each golden string is written from the JAXB annotations of the Java class named beside it (its root element, field
order, which fields are primitives, the wrappers) and Jersey's two JSON notations: *natural* for the classes
Falcon's ``JAXBContextResolver`` lists (APIResult, InstancesResult, InstancesSummaryResult,
InstanceDependencyResult, TriageResult), *mapped* for the rest.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ElementTree
from datetime import UTC, datetime, timedelta, timezone

import pytest

from falcon_airflow.server.bodies import render
from falcon_airflow.server.bodies.results import (
    APIResult,
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
from falcon_airflow.server.bodies.wire import Node, to_mapped_json, to_natural_json, to_xml, xsd_datetime

DECLARATION = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
T0 = datetime(2026, 3, 1, 5, 0, 30, tzinfo=UTC)
T1 = datetime(2026, 3, 1, 5, 1, 30, 123000, tzinfo=UTC)


def xml(body: object) -> str:
    content, media_type = render(body, "xml")  # type: ignore[arg-type]
    assert media_type == "text/xml"
    return content.decode("utf-8")


def js(body: object) -> str:
    content, media_type = render(body, "json")  # type: ignore[arg-type]
    assert media_type == "application/json"
    return content.decode("utf-8")


# -- APIResult ------------------------------------------------------------------------------------------------------

def test_api_result() -> None:
    # org.apache.falcon.resource.APIResult: @XmlRootElement(name="result"), FIELD access: status, message, requestId
    body = APIResult(ResultStatus.SUCCEEDED, "falcon/default/Submit successful (cluster) primary\n",
                     "falcon/default/qtp-1 - 5e3c\n")
    assert xml(body) == (DECLARATION + "<result><status>SUCCEEDED</status><message>falcon/default/Submit successful "
                         "(cluster) primary\n</message><requestId>falcon/default/qtp-1 - 5e3c\n</requestId></result>")
    # natural notation (the resolver lists APIResult.class): the root unwrapped
    assert js(body) == ('{"status":"SUCCEEDED","message":"falcon/default/Submit successful (cluster) primary\\n",'
                        '"requestId":"falcon/default/qtp-1 - 5e3c\\n"}')


def test_api_result_null_and_empty_fields() -> None:
    # a null requestId is left out; an empty message is an empty element, not a missing one
    assert xml(APIResult(ResultStatus.FAILED, "", None)) == (
        DECLARATION + "<result><status>FAILED</status><message></message></result>")
    assert js(APIResult(ResultStatus.PARTIAL, "", None)) == '{"status":"PARTIAL","message":""}'
    assert js(APIResult(ResultStatus.FAILED, None, None)) == '{"status":"FAILED"}'


def test_escapes() -> None:
    # JAXB to an output stream: & < > " escaped, a carriage return as &#xD;, ' tab and newline as they are, UTF-8
    # raw; characters XML cannot hold (JAXB wrote them anyway) are left out
    body = APIResult(ResultStatus.FAILED, "a\rb\x01c q\" ap' t\t n\n g> <&> é 😀", None)
    assert xml(body) == (DECLARATION + "<result><status>FAILED</status><message>a&#xD;bc q&quot; ap' t\t n\n "
                         "g&gt; &lt;&amp;&gt; é 😀</message></result>")
    # Jersey's JSON: " \\ and control characters escaped (upper-case hex), / and non-ASCII as they are
    body = APIResult(ResultStatus.FAILED, 'b\bf\fu\x1fz\x00 q" s\\ /x é <&>', None)
    assert js(body) == '{"status":"FAILED","message":"b\\bf\\fu\\u001Fz\\u0000 q\\" s\\\\ /x é <&>"}'
    assert json.loads(js(body))["message"] == 'b\bf\fu\x1fz\x00 q" s\\ /x é <&>'


def test_dates_as_jaxb_printed_them() -> None:
    # java.util.Date as xsd:dateTime on a server in UTC: seconds always, milliseconds (3 digits) only when not 0
    assert xsd_datetime(datetime(2026, 3, 1, 5, 0, tzinfo=UTC)) == "2026-03-01T05:00:00Z"
    assert xsd_datetime(datetime(2026, 3, 1, 5, 0, 30, 100000, tzinfo=UTC)) == "2026-03-01T05:00:30.100Z"
    assert xsd_datetime(datetime(2026, 3, 1, 5, 0, 30, 5999, tzinfo=UTC)) == "2026-03-01T05:00:30.005Z"
    assert xsd_datetime(datetime(2026, 3, 1, 10, 30, tzinfo=timezone(timedelta(hours=5, minutes=30)))) == (
        "2026-03-01T05:00:00Z")
    assert xsd_datetime(datetime(2026, 3, 1, 5, 0)) == "2026-03-01T05:00:00Z"  # naive: UTC


# -- EntityList -----------------------------------------------------------------------------------------------------

def test_entity_list_several() -> None:
    # org.apache.falcon.resource.EntityList: @XmlRootElement(name="entities"), int totalResults, EntityElement[]
    # as "entity"; EntityElement: type, name, status, then @XmlElementWrapper tags/tag, pipelines/pipeline,
    # clusters/cluster
    body = EntityList(2, (EntityElement("PROCESS", "count-clicks", "RUNNING", ("owner=etl", "dept=web"), ("clicks",),
                                        ("primary",)),
                          EntityElement("CLUSTER", "primary")))
    assert xml(body) == (
        DECLARATION + "<entities><totalResults>2</totalResults><entity><type>PROCESS</type><name>count-clicks</name>"
        "<status>RUNNING</status><tags><tag>owner=etl</tag><tag>dept=web</tag></tags><pipelines><pipeline>clicks"
        "</pipeline></pipelines><clusters><cluster>primary</cluster></clusters></entity><entity><type>CLUSTER"
        "</type><name>primary</name></entity></entities>")
    # mapped notation (no resolver for EntityList): the int as a string, an array only for two or more
    assert js(body) == (
        '{"totalResults":"2","entity":[{"type":"PROCESS","name":"count-clicks","status":"RUNNING",'
        '"tags":{"tag":["owner=etl","dept=web"]},"pipelines":{"pipeline":"clicks"},'
        '"clusters":{"cluster":"primary"}},{"type":"CLUSTER","name":"primary"}]}')


def test_entity_list_one_empty_and_none() -> None:
    one = EntityList(1, (EntityElement("FEED", "raw", None, (), (), ()),))
    # empty lists: an empty wrapper element; in the mapped notation null
    assert xml(one) == (DECLARATION + "<entities><totalResults>1</totalResults><entity><type>FEED</type>"
                        "<name>raw</name><tags/><pipelines/><clusters/></entity></entities>")
    assert js(one) == ('{"totalResults":"1","entity":{"type":"FEED","name":"raw","tags":null,"pipelines":null,'
                       '"clusters":null}}')
    assert xml(EntityList(0)) == DECLARATION + "<entities><totalResults>0</totalResults></entities>"
    assert js(EntityList(0)) == '{"totalResults":"0"}'


# -- EntitySummaryResult --------------------------------------------------------------------------------------------

def test_entity_summary_result() -> None:
    # EntitySummaryResult extends APIResult (FIELD access inherited): root "entitySummaryResult", EntitySummary[]
    # entitySummaries (type, name, status, String[] tags, String[] pipelines, Instance[] instances); Instance:
    # instance, status, logFile, cluster, sourceCluster, Date startTime, Date endTime
    instance = SummaryInstance("2026-03-01T05:00Z", "SUCCEEDED", "http://x/y", "primary", None, T0, T1)
    body = EntitySummaryResult(ResultStatus.SUCCEEDED, "msg", "main", (
        EntitySummary("count-clicks", "PROCESS", "RUNNING", ("owner=etl",), ("clicks", "reports"),
                      (instance, instance)),))
    row = ("<instances><instance>2026-03-01T05:00Z</instance><status>SUCCEEDED</status><logFile>http://x/y"
           "</logFile><cluster>primary</cluster><startTime>2026-03-01T05:00:30Z</startTime><endTime>"
           "2026-03-01T05:01:30.123Z</endTime></instances>")
    assert xml(body) == (
        DECLARATION + "<entitySummaryResult><status>SUCCEEDED</status><message>msg</message><requestId>main"
        "</requestId><entitySummaries><type>PROCESS</type><name>count-clicks</name><status>RUNNING</status><tags>"
        "owner=etl</tags><pipelines>clicks</pipelines><pipelines>reports</pipelines>" + row + row +
        "</entitySummaries></entitySummaryResult>")
    row_json = ('{"instance":"2026-03-01T05:00Z","status":"SUCCEEDED","logFile":"http://x/y","cluster":"primary",'
                '"startTime":"2026-03-01T05:00:30Z","endTime":"2026-03-01T05:01:30.123Z"}')
    assert js(body) == (
        '{"status":"SUCCEEDED","message":"msg","requestId":"main","entitySummaries":{"type":"PROCESS",'
        '"name":"count-clicks","status":"RUNNING","tags":"owner=etl","pipelines":["clicks","reports"],'
        f'"instances":[{row_json},{row_json}]}}}}')


def test_summary_statuses_are_its_own_enum() -> None:
    # EntitySummaryResult.WorkflowStatus has neither SKIPPED nor UNDEFINED
    with pytest.raises(ValueError, match=r"EntitySummaryResult\.WorkflowStatus"):
        SummaryInstance("2026-03-01T05:00Z", "SKIPPED")


# -- InstancesResult ------------------------------------------------------------------------------------------------

def _instances() -> InstancesResult:
    first = Instance("2026-03-01T05:00Z", "SUCCEEDED", "http://localhost:8080/dags/x/runs/y", "primary", None, T0,
                     T1, 1, "", (InstanceAction("spark", "SUCCEEDED", "http://l/1"),),
                     (KeyValuePair("a", "1"), KeyValuePair("b", None)))
    second = Instance("2026-03-01T06:00Z", "WAITING", None, "backup")
    return InstancesResult(ResultStatus.SUCCEEDED, "default/STATUS\n", "default/abc\n", (first, second))


def test_instances_result_xml() -> None:
    # InstancesResult extends APIResult: root "instancesResult", Instance[] instances; Instance: instance, status,
    # logFile, cluster, sourceCluster, startTime, endTime, int runId (always written), details,
    # InstanceAction[] actions (action, status, logFile), KeyValuePair[] wfParams (key, value)
    assert xml(_instances()) == (
        DECLARATION + "<instancesResult><status>SUCCEEDED</status><message>default/STATUS\n</message><requestId>"
        "default/abc\n</requestId><instances><instance>2026-03-01T05:00Z</instance><status>SUCCEEDED</status>"
        "<logFile>http://localhost:8080/dags/x/runs/y</logFile><cluster>primary</cluster><startTime>"
        "2026-03-01T05:00:30Z</startTime><endTime>2026-03-01T05:01:30.123Z</endTime><runId>1</runId><details>"
        "</details><actions><action>spark</action><status>SUCCEEDED</status><logFile>http://l/1</logFile>"
        "</actions><wfParams><key>a</key><value>1</value></wfParams><wfParams><key>b</key></wfParams></instances>"
        "<instances><instance>2026-03-01T06:00Z</instance><status>WAITING</status><cluster>backup</cluster><runId>0"
        "</runId></instances></instancesResult>")


def test_instances_result_natural_json() -> None:
    # natural notation: runId a number, every array an array even with one item
    assert js(_instances()) == (
        '{"status":"SUCCEEDED","message":"default/STATUS\\n","requestId":"default/abc\\n","instances":['
        '{"instance":"2026-03-01T05:00Z","status":"SUCCEEDED","logFile":"http://localhost:8080/dags/x/runs/y",'
        '"cluster":"primary","startTime":"2026-03-01T05:00:30Z","endTime":"2026-03-01T05:01:30.123Z","runId":1,'
        '"details":"","actions":[{"action":"spark","status":"SUCCEEDED","logFile":"http://l/1"}],'
        '"wfParams":[{"key":"a","value":"1"},{"key":"b"}]},'
        '{"instance":"2026-03-01T06:00Z","status":"WAITING","cluster":"backup","runId":0}]}')
    one = InstancesResult(ResultStatus.SUCCEEDED, "m", "main", (Instance("2026-03-01T06:00Z", "WAITING", None,
                                                                         "backup"),))
    assert js(one) == ('{"status":"SUCCEEDED","message":"m","requestId":"main","instances":[{"instance":'
                       '"2026-03-01T06:00Z","status":"WAITING","cluster":"backup","runId":0}]}')
    assert js(InstancesResult(ResultStatus.SUCCEEDED, "m", "main")) == (
        '{"status":"SUCCEEDED","message":"m","requestId":"main"}')


def test_the_same_tree_in_the_mapped_notation() -> None:
    # what Jersey's default notation would have made of it: strings only, single items unwrapped
    assert to_mapped_json(_instances().element()).decode().endswith(
        '"runId":"1","details":"","actions":{"action":"spark","status":"SUCCEEDED","logFile":"http://l/1"},'
        '"wfParams":[{"key":"a","value":"1"},{"key":"b"}]},{"instance":"2026-03-01T06:00Z","status":"WAITING",'
        '"cluster":"backup","runId":"0"}]}')


def test_instance_statuses_are_the_09_enum() -> None:
    for status in ("KILLED_OR_IGNORED", "TIMEDOUT", "running"):
        with pytest.raises(ValueError, match=r"InstancesResult\.WorkflowStatus"):
            Instance("2026-03-01T05:00Z", status)


# -- InstancesSummaryResult -----------------------------------------------------------------------------------------

def test_instances_summary_result() -> None:
    # InstancesSummaryResult: root "instancesSummaryResult", InstanceSummary[] instancesSummary; InstanceSummary:
    # cluster, Map<String, Long> summaryMap under @XmlElementWrapper(name="map") -> <map><entry><key/><value/>
    body = InstancesSummaryResult(ResultStatus.SUCCEEDED, "m", "main", (
        InstanceSummary.of("primary", {"SUCCEEDED": 3, "RUNNING": 1}), InstanceSummary.of("backup", {"WAITING": 2})))
    assert xml(body) == (
        DECLARATION + "<instancesSummaryResult><status>SUCCEEDED</status><message>m</message><requestId>main"
        "</requestId><instancesSummary><cluster>primary</cluster><map><entry><key>SUCCEEDED</key><value>3</value>"
        "</entry><entry><key>RUNNING</key><value>1</value></entry></map></instancesSummary><instancesSummary>"
        "<cluster>backup</cluster><map><entry><key>WAITING</key><value>2</value></entry></map></instancesSummary>"
        "</instancesSummaryResult>")
    # natural notation does not know the map's entries as a collection: the key "entry" repeats, values are strings
    text = js(body)
    assert text == (
        '{"status":"SUCCEEDED","message":"m","requestId":"main","instancesSummary":[{"cluster":"primary","map":'
        '{"entry":{"key":"SUCCEEDED","value":"3"},"entry":{"key":"RUNNING","value":"1"}}},{"cluster":"backup",'
        '"map":{"entry":{"key":"WAITING","value":"2"}}}]}')
    pairs = json.loads(text, object_pairs_hook=list)
    assert [value for key, value in pairs[3][1][0][1][1] if key == "entry"] == [
        [("key", "SUCCEEDED"), ("value", "3")], [("key", "RUNNING"), ("value", "1")]]
    # an empty map is an empty wrapper: null in JSON
    empty = InstancesSummaryResult(ResultStatus.SUCCEEDED, "m", None, (InstanceSummary.of("primary", {}),
                                                                      InstanceSummary.of("backup", None)))
    assert js(empty) == ('{"status":"SUCCEEDED","message":"m","instancesSummary":[{"cluster":"primary","map":null},'
                         '{"cluster":"backup"}]}')


# -- FeedInstanceResult, FeedLookupResult ---------------------------------------------------------------------------

def test_feed_instance_result() -> None:
    # FeedInstanceResult: root "feedInstanceResult", Instance[] instances; Instance: cluster, instance, status, uri,
    # long creationTime and long size (always written), sizeH
    body = FeedInstanceResult(ResultStatus.SUCCEEDED, "m", "main", (
        FeedInstance("primary", "2026-03-01T05:00Z", "AVAILABLE", "file:/tmp/x", 1772341230000, 2048, "2 KB"),
        FeedInstance("primary", "2026-03-01T06:00Z", "MISSING")))
    assert xml(body) == (
        DECLARATION + "<feedInstanceResult><status>SUCCEEDED</status><message>m</message><requestId>main</requestId>"
        "<instances><cluster>primary</cluster><instance>2026-03-01T05:00Z</instance><status>AVAILABLE</status><uri>"
        "file:/tmp/x</uri><creationTime>1772341230000</creationTime><size>2048</size><sizeH>2 KB</sizeH></instances>"
        "<instances><cluster>primary</cluster><instance>2026-03-01T06:00Z</instance><status>MISSING</status>"
        "<creationTime>0</creationTime><size>0</size></instances></feedInstanceResult>")
    assert js(body) == (
        '{"status":"SUCCEEDED","message":"m","requestId":"main","instances":[{"cluster":"primary","instance":'
        '"2026-03-01T05:00Z","status":"AVAILABLE","uri":"file:/tmp/x","creationTime":"1772341230000","size":"2048",'
        '"sizeH":"2 KB"},{"cluster":"primary","instance":"2026-03-01T06:00Z","status":"MISSING","creationTime":"0",'
        '"size":"0"}]}')
    one = FeedInstanceResult(ResultStatus.SUCCEEDED, "m", None, (FeedInstance("primary", "x", "MISSING", size=-1),))
    assert js(one) == ('{"status":"SUCCEEDED","message":"m","instances":{"cluster":"primary","instance":"x",'
                       '"status":"MISSING","creationTime":"0","size":"-1"}}')


def test_feed_lookup_result() -> None:
    # FeedLookupResult: root "feeds", FeedProperties[] "elements" (feedName, locationType as its XmlEnumValue,
    # clusterName)
    body = FeedLookupResult(ResultStatus.SUCCEEDED, "m", "main", (FeedProperties("raw", "data", "primary"),
                                                                  FeedProperties("raw", "stats", "backup")))
    assert xml(body) == (
        DECLARATION + "<feeds><status>SUCCEEDED</status><message>m</message><requestId>main</requestId><elements>"
        "<feedName>raw</feedName><locationType>data</locationType><clusterName>primary</clusterName></elements>"
        "<elements><feedName>raw</feedName><locationType>stats</locationType><clusterName>backup</clusterName>"
        "</elements></feeds>")
    assert js(body) == (
        '{"status":"SUCCEEDED","message":"m","requestId":"main","elements":[{"feedName":"raw","locationType":"data",'
        '"clusterName":"primary"},{"feedName":"raw","locationType":"stats","clusterName":"backup"}]}')
    with pytest.raises(ValueError, match="LocationType"):
        FeedProperties("raw", "DATA", "primary")


# -- SchedulableEntityInstance results ------------------------------------------------------------------------------

def _scheduled() -> tuple[SchedulableEntityInstance, SchedulableEntityInstance]:
    return (SchedulableEntityInstance("raw", "primary", datetime(2026, 3, 1, 5, tzinfo=UTC), "FEED", "Input"),
            SchedulableEntityInstance("count", "primary", datetime(2026, 3, 1, 6, tzinfo=UTC), "PROCESS"))


def test_instance_dependency_result() -> None:
    # InstanceDependencyResult: root "dependents", SchedulableEntityInstance[] "dependencies"; SchedulableEntityInstance
    # has no accessor type: its getter/setter properties, alphabetically (cluster, entityName, entityType,
    # instanceTime, tags)
    body = InstanceDependencyResult(ResultStatus.SUCCEEDED, "Success!", "main", _scheduled())
    assert xml(body) == (
        DECLARATION + "<dependents><status>SUCCEEDED</status><message>Success!</message><requestId>main</requestId>"
        "<dependencies><cluster>primary</cluster><entityName>raw</entityName><entityType>FEED</entityType>"
        "<instanceTime>2026-03-01T05:00:00Z</instanceTime><tags>Input</tags></dependencies><dependencies><cluster>"
        "primary</cluster><entityName>count</entityName><entityType>PROCESS</entityType><instanceTime>"
        "2026-03-01T06:00:00Z</instanceTime></dependencies></dependents>")
    assert js(body) == (
        '{"status":"SUCCEEDED","message":"Success!","requestId":"main","dependencies":[{"cluster":"primary",'
        '"entityName":"raw","entityType":"FEED","instanceTime":"2026-03-01T05:00:00Z","tags":"Input"},'
        '{"cluster":"primary","entityName":"count","entityType":"PROCESS","instanceTime":"2026-03-01T06:00:00Z"}]}')


def test_schedulable_entity_instance_result() -> None:
    # SchedulableEntityInstanceResult: root "instances", SchedulableEntityInstance[] "instances"; mapped JSON
    body = SchedulableEntityInstanceResult(ResultStatus.SUCCEEDED, "m", "main", _scheduled()[:1])
    assert xml(body) == (
        DECLARATION + "<instances><status>SUCCEEDED</status><message>m</message><requestId>main</requestId>"
        "<instances><cluster>primary</cluster><entityName>raw</entityName><entityType>FEED</entityType>"
        "<instanceTime>2026-03-01T05:00:00Z</instanceTime><tags>Input</tags></instances></instances>")
    assert js(body) == (
        '{"status":"SUCCEEDED","message":"m","requestId":"main","instances":{"cluster":"primary","entityName":"raw",'
        '"entityType":"FEED","instanceTime":"2026-03-01T05:00:00Z","tags":"Input"}}')
    with pytest.raises(ValueError, match="EntityType"):
        SchedulableEntityInstance("raw", "primary", datetime(2026, 3, 1, 5, tzinfo=UTC), "feed")


# -- TriageResult, LineageGraphResult -------------------------------------------------------------------------------

def _graph() -> LineageGraphResult:
    return LineageGraphResult(("PROCESS/count@primary/2026-03-01T05:00Z[WAITING]",
                               "FEED/raw@primary/2026-03-01T05:00Z[MISSING]"),
                              (Edge("FEED/raw", "PROCESS/count", "consumed by"),))


def test_triage_result() -> None:
    # TriageResult: root "triage", LineageGraphResult[] "triageGraphs"; LineageGraphResult: String[] vertices,
    # Edge[] edges (from, to, label)
    body = TriageResult(ResultStatus.SUCCEEDED, "m", "main", (_graph(), LineageGraphResult(("FEED/x[AVAILABLE]",))))
    assert xml(body) == (
        DECLARATION + "<triage><status>SUCCEEDED</status><message>m</message><requestId>main</requestId>"
        "<triageGraphs><vertices>PROCESS/count@primary/2026-03-01T05:00Z[WAITING]</vertices><vertices>"
        "FEED/raw@primary/2026-03-01T05:00Z[MISSING]</vertices><edges><from>FEED/raw</from><to>PROCESS/count</to>"
        "<label>consumed by</label></edges></triageGraphs><triageGraphs><vertices>FEED/x[AVAILABLE]</vertices>"
        "</triageGraphs></triage>")
    assert js(body) == (
        '{"status":"SUCCEEDED","message":"m","requestId":"main","triageGraphs":[{"vertices":['
        '"PROCESS/count@primary/2026-03-01T05:00Z[WAITING]","FEED/raw@primary/2026-03-01T05:00Z[MISSING]"],'
        '"edges":[{"from":"FEED/raw","to":"PROCESS/count","label":"consumed by"}]},'
        '{"vertices":["FEED/x[AVAILABLE]"]}]}')


def test_lineage_graph_result() -> None:
    # LineageGraphResult alone (metadata -lineage): root "result", mapped JSON (not in the resolver's list)
    assert xml(_graph()) == (
        DECLARATION + "<result><vertices>PROCESS/count@primary/2026-03-01T05:00Z[WAITING]</vertices><vertices>"
        "FEED/raw@primary/2026-03-01T05:00Z[MISSING]</vertices><edges><from>FEED/raw</from><to>PROCESS/count</to>"
        "<label>consumed by</label></edges></result>")
    assert js(_graph()) == (
        '{"vertices":["PROCESS/count@primary/2026-03-01T05:00Z[WAITING]","FEED/raw@primary/2026-03-01T05:00Z'
        '[MISSING]"],"edges":{"from":"FEED/raw","to":"PROCESS/count","label":"consumed by"}}')
    assert xml(LineageGraphResult()) == DECLARATION + "<result/>"
    assert js(LineageGraphResult()) == "null"


# -- admin and extension lists --------------------------------------------------------------------------------------

def test_property_list() -> None:
    # AdminResource.PropertyList: root "properties", List<Property> properties (key, value), FIELD access
    body = PropertyList((("Version", "0.1.0"), ("Mode", "embedded")))
    assert xml(body) == (DECLARATION + "<properties><properties><key>Version</key><value>0.1.0</value></properties>"
                         "<properties><key>Mode</key><value>embedded</value></properties></properties>")
    assert js(body) == '{"properties":[{"key":"Version","value":"0.1.0"},{"key":"Mode","value":"embedded"}]}'
    assert js(PropertyList((("Version", "0.1.0"),))) == '{"properties":{"key":"Version","value":"0.1.0"}}'
    # an empty list is an empty root element, which Jersey's JSON writers give as null
    assert xml(PropertyList(())) == DECLARATION + "<properties/>"
    assert js(PropertyList(())) == "null"


def test_extension_job_list() -> None:
    # ExtensionJobList (0.10): root "extensionJobList", int numJobs, List<JobElement> under wrapper "jobs", each
    # "job" (jobName, EntityList jobEntities); Falcon started from an empty list, so no job is an empty <jobs/>
    body = ExtensionJobList((ExtensionJob("mirror-a", EntityList(1, (EntityElement("PROCESS", "p", "RUNNING"),))),
                             ExtensionJob("mirror-b")))
    assert xml(body) == (
        DECLARATION + "<extensionJobList><numJobs>2</numJobs><jobs><job><jobName>mirror-a</jobName><jobEntities>"
        "<totalResults>1</totalResults><entity><type>PROCESS</type><name>p</name><status>RUNNING</status></entity>"
        "</jobEntities></job><job><jobName>mirror-b</jobName><jobEntities><totalResults>0</totalResults>"
        "</jobEntities></job></jobs></extensionJobList>")
    assert js(body) == (
        '{"numJobs":"2","jobs":{"job":[{"jobName":"mirror-a","jobEntities":{"totalResults":"1","entity":{"type":'
        '"PROCESS","name":"p","status":"RUNNING"}}},{"jobName":"mirror-b","jobEntities":{"totalResults":"0"}}]}}')
    assert xml(ExtensionJobList()) == DECLARATION + "<extensionJobList><numJobs>0</numJobs><jobs/></extensionJobList>"
    assert js(ExtensionJobList()) == '{"numJobs":"0","jobs":null}'


def test_extension_instance_list() -> None:
    # ExtensionInstanceList (0.10): root "extensionInstanceList", int numEntities, wrapper "entitiesSummary" of
    # "entitySummary" (EntityElement entityProfile, InstancesResult.Instance[] instances)
    body = ExtensionInstanceList((ExtensionEntitySummary(
        EntityElement("hdfs-mirroring", "mirror-a", "RUNNING"),
        (Instance("2026-03-01T05:00Z", "RUNNING", cluster="primary"),)),))
    assert xml(body) == (
        DECLARATION + "<extensionInstanceList><numEntities>1</numEntities><entitiesSummary><entitySummary>"
        "<entityProfile><type>hdfs-mirroring</type><name>mirror-a</name><status>RUNNING</status></entityProfile>"
        "<instances><instance>2026-03-01T05:00Z</instance><status>RUNNING</status><cluster>primary</cluster><runId>0"
        "</runId></instances></entitySummary></entitiesSummary></extensionInstanceList>")
    assert js(body) == (
        '{"numEntities":"1","entitiesSummary":{"entitySummary":{"entityProfile":{"type":"hdfs-mirroring",'
        '"name":"mirror-a","status":"RUNNING"},"instances":{"instance":"2026-03-01T05:00Z","status":"RUNNING",'
        '"cluster":"primary","runId":"0"}}}}')


# -- the bodies that are not JAXB objects ---------------------------------------------------------------------------

def test_pass_through_bodies() -> None:
    definition = EntityDefinition('<?xml version="1.0"?>\n<feed name="raw" xmlns="uri:falcon:feed:0.1"/>\n')
    assert render(definition, "xml") == (definition.xml.encode(), "text/xml")
    assert render(definition, "json") == (definition.xml.encode(), "application/json")
    assert render(definition, "text") == (definition.xml.encode(), "text/plain")  # a String: as it is, any type
    assert render(PlainText("main\nState: RUNNABLE"), "text") == (b"main\nState: RUNNABLE", "text/plain")


def test_jettison_documents() -> None:
    # the metadata resources' JSONObject: insertion order, '/' escaped as '\/'
    body = JsonDocument({"results": ["raw-clicks", "a/b"], "totalSize": 2, "nested": {"ok": True, "none": None}})
    assert render(body, "json") == (
        b'{"results":["raw-clicks","a\\/b"],"totalSize":2,"nested":{"ok":true,"none":null}}', "application/json")


def test_a_jaxb_body_as_plain_text_is_its_xml() -> None:
    body = APIResult(ResultStatus.SUCCEEDED, "m", None)
    assert render(body, "text") == (render(body, "xml")[0], "text/plain")


# -- round trips ----------------------------------------------------------------------------------------------------

def _tree(element: ElementTree.Element) -> tuple[object, ...]:
    children = tuple(_tree(child) for child in element)
    return (element.tag, None if children else (element.text or ""), children)


def _node_tree(node: Node) -> tuple[object, ...]:
    children = tuple(_node_tree(child) for child in node.children)
    return (node.name, None if children else (node.text or ""), children)


@pytest.mark.parametrize("body", [
    _instances(), EntityList(1, (EntityElement("FEED", "raw", None, ("a=b",), (), None),)),
    TriageResult(ResultStatus.PARTIAL, "x\r\ny & <z>", None, (_graph(),)),
    InstancesSummaryResult(ResultStatus.SUCCEEDED, "m", None, (InstanceSummary.of("p", {"RUNNING": 2}),)),
    APIResult(ResultStatus.FAILED, "quote \" and é", "r")], ids=lambda body: type(body).__name__)
def test_xml_round_trip(body: object) -> None:
    parsed = ElementTree.fromstring(render(body, "xml")[0])  # type: ignore[arg-type]
    assert _tree(parsed) == _node_tree(body.element())  # type: ignore[attr-defined]


def test_json_round_trips() -> None:
    natural = json.loads(to_natural_json(_instances().element()))
    assert natural["instances"][0]["runId"] == 1
    assert natural["instances"][0]["actions"] == [{"action": "spark", "status": "SUCCEEDED", "logFile": "http://l/1"}]
    assert natural["instances"][1] == {"instance": "2026-03-01T06:00Z", "status": "WAITING", "cluster": "backup",
                                       "runId": 0}
    mapped = json.loads(to_mapped_json(_instances().element()))
    assert mapped["instances"][0]["runId"] == "1"
    assert mapped["instances"][0]["actions"] == {"action": "spark", "status": "SUCCEEDED", "logFile": "http://l/1"}
    assert to_xml(Node("a", children=(Node("b", "1"),))) == (DECLARATION + "<a><b>1</b></a>").encode()
