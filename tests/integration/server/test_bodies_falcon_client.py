"""The strongest check of the bodies: the stock Falcon 0.9 client's own classes read them.

``FalconBodies.java`` unmarshals every body as ``FalconClient`` does - XML with JAXB, JSON with Jersey 1.9's JSON
reader in its default configuration - with the result classes of ``org.apache.falcon:falcon-client:0.9``, and prints
every field it got and every validation event. The jars come from the ``falcon-cli`` group of the jar cache when it
was resolved (``make jars``), otherwise Maven resolves the few the check needs into a temporary folder.

``FalconWriters.java`` checks the other direction, byte for byte: it reads each XML body into Falcon's class and
writes it again with the writers of Falcon 0.9's server - JAXB 2.2.3 marshalling to Jersey's output stream, Jersey
1.9's JSON provider in the notation Falcon's ``JAXBContextResolver`` chose for the class - and the bytes must be the
ones :mod:`falcon_airflow.server.bodies` wrote.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections import defaultdict
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from falcon_airflow.jvm import jar_cache
from falcon_airflow.operate.outcomes import Outcome, Status
from falcon_airflow.parsing.redaction import redact_definition
from falcon_airflow.server.bodies import from_outcome, render
from falcon_airflow.server.bodies.results import (
    APIResult,
    Edge,
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
    KeyValuePair,
    LineageGraphResult,
    PropertyList,
    ResultStatus,
    SchedulableEntityInstance,
    SchedulableEntityInstanceResult,
    SummaryInstance,
    TriageResult,
)

HERE = Path(__file__).resolve().parent
REPOSITORY = HERE.parents[2]
PROGRAM = HERE / "FalconBodies.java"
WRITERS = HERE / "FalconWriters.java"

# What the check needs of the client when the jar cache has no falcon-cli group: the client's result classes, and
# the JAXB and Jersey JSON it reads them with (Java 17 has no JAXB of its own).
FALLBACK_POM = """<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>falcon-airflow.check</groupId>
  <artifactId>falcon-client-bodies</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency>
      <groupId>org.apache.falcon</groupId><artifactId>falcon-client</artifactId><version>0.9</version>
      <exclusions><exclusion><groupId>*</groupId><artifactId>*</artifactId></exclusion></exclusions>
    </dependency>
    <dependency><groupId>com.sun.jersey</groupId><artifactId>jersey-client</artifactId><version>1.9</version></dependency>
    <dependency><groupId>com.sun.jersey</groupId><artifactId>jersey-json</artifactId><version>1.9</version></dependency>
    <dependency><groupId>javax.xml.bind</groupId><artifactId>jaxb-api</artifactId><version>2.2.2</version></dependency>
    <dependency><groupId>javax.activation</groupId><artifactId>activation</artifactId><version>1.1</version></dependency>
    <dependency><groupId>commons-io</groupId><artifactId>commons-io</artifactId><version>2.4</version></dependency>
    <dependency>
      <groupId>org.apache.commons</groupId><artifactId>commons-lang3</artifactId><version>3.3.2</version>
    </dependency>
  </dependencies>
</project>
"""


@pytest.fixture(scope="module")
def client_classpath(tmp_path_factory: pytest.TempPathFactory) -> str:
    cached = sorted((jar_cache() / "falcon-cli").glob("*.jar"))
    if cached:
        return ":".join(str(jar) for jar in cached)
    if shutil.which("java") is None or shutil.which("mvn") is None:
        pytest.skip("java and mvn are needed to read the bodies with Falcon's client")
    folder = tmp_path_factory.mktemp("falcon-client")
    (folder / "pom.xml").write_text(FALLBACK_POM)
    done = subprocess.run(["mvn", "--batch-mode", "--quiet", "-Dstyle.color=never", "--strict-checksums",
                           "-f", str(folder / "pom.xml"), "dependency:copy-dependencies",
                           f"-DoutputDirectory={folder / 'lib'}"], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return ":".join(str(jar) for jar in sorted((folder / "lib").glob("*.jar")))


FOLDERS = {"clusters": "cluster", "feeds": "feed", "processes": "process", "datasources": "datasource"}
T0 = datetime(2026, 3, 1, 5, 0, 30, tzinfo=UTC)
T1 = datetime(2026, 3, 1, 5, 1, 30, 120000, tzinfo=UTC)


def _instances_outcome() -> Outcome:
    """``instance -status`` as the operate action returns it (InstanceRecord.as_json)."""
    return Outcome(Status.SUCCEEDED, "instances of (process) count-clicks", {"instances": [
        {"instance": "2026-03-01T05:00Z", "status": "SUCCEEDED", "cluster": "primary", "sourceCluster": None,
         "lifecycle": "EXECUTION", "startTime": "2026-03-01T05:00Z", "endTime": "2026-03-01T05:02Z", "runId": 1,
         "details": None, "logFile": "http://127.0.0.1:8080/dags/falcon.process.count-clicks/runs/r1",
         "dagId": "falcon.process.count-clicks", "dagRunId": "r1",
         "actions": [{"action": "count", "status": "SUCCESS", "logFile": "http://l/count/1"}]},
        {"instance": "2026-03-01T06:00Z", "status": "TIMEDOUT", "cluster": "primary", "sourceCluster": None,
         "startTime": None, "endTime": None, "runId": 0, "details": "inputs missing: raw-clicks <a&b> \"x\"",
         "logFile": None, "actions": []},
        {"instance": "2026-03-01T07:00Z", "status": "KILLED_OR_IGNORED", "cluster": "backup",
         "sourceCluster": "primary", "startTime": None, "endTime": None, "runId": 0, "details": "",
         "logFile": None, "actions": []},
    ]})


def cases() -> Iterator[tuple[str, str, object]]:
    """(case, Falcon class, body) for every result type the 0.9 client knows, in several shapes."""
    yield "result", "APIResult", from_outcome(
        "entity.submit", Outcome(Status.SUCCEEDED, "Submit successful (process) count-clicks"), request_id="r-1")
    yield "result-partial", "APIResult", APIResult(ResultStatus.PARTIAL, "é ü ß – ok\nsecond line", None)
    yield "list", "EntityList", from_outcome("entity.list", Outcome(Status.SUCCEEDED, "2 entities", {
        "totalResults": 2, "entity": [
            {"type": "process", "name": "count-clicks", "status": "RUNNING", "tag": ["owner=etl", "team=web"],
             "pipeline": ["clicks"], "cluster": ["primary"]},
            {"type": "cluster", "name": "primary", "status": "SUBMITTED", "tag": [], "pipeline": [],
             "cluster": []}]}))
    yield "list-one", "EntityList", EntityList(1, (EntityElement("FEED", "raw-clicks"),))
    yield "dependencies", "EntityList", from_outcome("entity.dependency", Outcome(
        Status.SUCCEEDED, "dependencies", {"entity": [
            {"type": "feed", "name": "raw-clicks", "tag": ["Input"], "relation": "uses"},
            {"type": "cluster", "name": "primary", "tag": [], "relation": "uses"}]}))
    yield "summary", "EntitySummaryResult", from_outcome("entity.summary", Outcome(
        Status.SUCCEEDED, "Entity Summary Result: 1 process(s) on primary", {"entitySummary": [
            {"name": "count-clicks", "type": "process", "status": "RUNNING", "tags": ["owner=etl"],
             "pipelines": ["clicks", "reports"], "instances": [
                 {"instance": "2026-03-01T05:00Z", "status": "SUCCEEDED", "cluster": "primary",
                  "sourceCluster": None, "logFile": "http://l/1"},
                 {"instance": "2026-03-01T06:00Z", "status": "SKIPPED", "cluster": "primary",
                  "sourceCluster": None, "logFile": None}]}]}), request_id="r-2")
    yield "instances", "InstancesResult", from_outcome("instance.status", _instances_outcome(), request_id="r-3")
    yield "instances-one", "InstancesResult", InstancesResult(ResultStatus.SUCCEEDED, "default/RUNNING\n", None, (
        Instance("2026-03-01T05:00Z", "RUNNING", cluster="primary", start_time=T0, end_time=T1, run_id=2,
                 actions=(InstanceAction("count", "RUNNING", None),)),))
    yield "instances-none", "InstancesResult", InstancesResult(ResultStatus.SUCCEEDED, "default/STATUS\n")
    yield "params", "InstancesResult", from_outcome("instance.params", Outcome(Status.SUCCEEDED, "parameters", {
        "instances": [{"instance": "2026-03-01T05:00Z", "cluster": "primary", "sourceCluster": None,
                       "status": "SUCCEEDED", "params": {"nominalTime": "2026-03-01T05:00Z",
                                                         "conf": {"queue": "default"}, "falcon": {}}}]}))
    yield "instance-summary", "InstancesSummaryResult", from_outcome("instance.summary", Outcome(
        Status.SUCCEEDED, "summary", {"instancesSummary": [
            {"cluster": "primary", "map": {"SUCCEEDED": 3, "RUNNING": 1}},
            {"cluster": "backup", "map": {"WAITING": 2}}]}))
    yield "instance-summary-empty", "InstancesSummaryResult", InstancesSummaryResult(
        ResultStatus.SUCCEEDED, "default/SUMMARY\n", None, (InstanceSummary.of("primary", {}),))
    yield "listing", "FeedInstanceResult", from_outcome("instance.listing", Outcome(Status.SUCCEEDED, "listing", {
        "instances": [
            {"instance": "2026-03-01T05:00Z", "cluster": "primary", "uri": "file:///tmp/raw/05", "status": "AVAILABLE",
             "size": 5000, "creationTime": "2026-03-01T05:10Z"},
            {"instance": "2026-03-01T06:00Z", "cluster": "primary", "uri": "file:///tmp/raw/06",
             "status": "MISSING"}]}))
    yield "lookup", "FeedLookupResult", from_outcome("entity.lookup", Outcome(Status.SUCCEEDED, "found", {
        "elements": [{"feedName": "raw-clicks", "clusterName": "primary", "type": "DATA", "location": "/x",
                      "instance": None}]}))
    yield "instance-dependencies", "InstanceDependencyResult", from_outcome("instance.dependency", Outcome(
        Status.SUCCEEDED, "Success!", {"dependencies": [
            {"entityName": "raw-clicks", "entityType": "feed", "cluster": "primary",
             "instanceTime": "2026-03-01T05:00Z", "tags": "Input"},
            {"entityName": "click-counts", "entityType": "feed", "cluster": "primary",
             "instanceTime": "2026-03-01T05:00Z", "tags": "Output"}]}))
    yield "sla", "SchedulableEntityInstanceResult", from_outcome("entity.slaAlert", Outcome(
        Status.SUCCEEDED, "1 instance", {"instances": [
            {"entityName": "raw-clicks", "entityType": "FEED", "cluster": "primary",
             "instanceTime": "2026-03-01T05:00Z", "tags": "Missed SLA High"}]}))
    yield "triage", "TriageResult", from_outcome("instance.triage", Outcome(Status.SUCCEEDED, "triage", {
        "triageGraphs": [{"vertices": ["PROCESS/count-clicks@primary/2026-03-01T05:00Z[WAITING]",
                                       "FEED/raw-clicks@primary/2026-03-01T05:00Z[MISSING]"],
                          "edges": [{"from": "FEED/raw-clicks@primary/2026-03-01T05:00Z[MISSING]",
                                     "to": "PROCESS/count-clicks@primary/2026-03-01T05:00Z[WAITING]",
                                     "label": "consumed by"}]},
                         {"vertices": ["FEED/raw-clicks@backup/2026-03-01T05:00Z[AVAILABLE]"], "edges": []}]}))
    yield "lineage", "LineageGraphResult", LineageGraphResult(
        ("generate-clicks", "count-clicks"), (Edge("generate-clicks", "count-clicks", "raw-clicks"),))
    yield "triage-empty", "TriageResult", TriageResult(ResultStatus.SUCCEEDED, "default/Success\n")


def _run(classpath: str, manifest: Path) -> dict[str, dict[str, str]]:
    done = subprocess.run(["java", "-Xmx256m", "--add-opens", "java.base/java.lang=ALL-UNNAMED", "-cp", classpath,
                           str(PROGRAM), str(manifest)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    read: dict[str, dict[str, str]] = defaultdict(dict)
    for line in done.stdout.splitlines():
        case, _, rest = line.partition(" ")
        if rest.startswith(("EVENT ", "ERROR ")):
            read[case].setdefault("!problems", "")
            read[case]["!problems"] += rest + "\n"
            continue
        key, _, value = rest.partition("=")
        read[case][key] = value
    return read


@pytest.fixture(scope="module")
def read(client_classpath: str, tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, str]]:
    """Every case read by the client's classes: ``<case>.xml`` and ``<case>.json`` -> {field path: value}."""
    folder = tmp_path_factory.mktemp("bodies")
    lines = []
    for case, java_class, body in cases():
        for fmt in ("xml", "json"):
            content, _ = render(body, fmt)  # type: ignore[arg-type]
            path = folder / f"{case}.{fmt}"
            path.write_bytes(content)
            lines.append(f"{case}.{fmt}\t{java_class}\t{fmt}\t{path}")
    for path in sorted((REPOSITORY / "entities").glob("*/*.xml")):
        kind = FOLDERS[path.parent.name]
        redacted = folder / f"definition-{kind}-{path.stem}.xml"
        redacted.write_text(redact_definition(path.read_bytes()), encoding="utf-8")
        lines.append(f"definition-{kind}-{path.stem}\t{kind}\tentity\t{redacted}")
    manifest = folder / "manifest.tsv"
    manifest.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return _run(client_classpath, manifest)


def _fields(read: dict[str, dict[str, str]], case: str) -> dict[str, str]:
    fields = read[case]
    assert "!problems" not in fields, f"{case}: {fields['!problems']}"
    return fields


@pytest.mark.parametrize("case", [case for case, _, _ in cases()])
def test_xml_and_json_read_alike_and_cleanly(read: dict[str, dict[str, str]], case: str) -> None:
    xml, json = _fields(read, f"{case}.xml"), _fields(read, f"{case}.json")
    # Jersey's JSON reader makes an empty list of an empty wrapper (XML) and nothing of a null (JSON): the only
    # difference allowed, and only where the body has an empty wrapper
    differing = {key for key in xml.keys() | json.keys() if xml.get(key) != json.get(key)}
    for key in differing:
        assert xml.get(key) in ("0", None) and key.endswith(".length"), (case, key, xml.get(key), json.get(key))
        assert json.get(key.removesuffix(".length")) == "null", (case, key)


def test_the_result_message_and_request_id(read: dict[str, dict[str, str]]) -> None:
    for fmt in ("xml", "json"):
        fields = _fields(read, f"result.{fmt}")
        assert fields["status"] == "SUCCEEDED"
        assert fields["message"] == "falcon/default/Submit successful (process) count-clicks\\n\\n"
        assert fields["requestId"] == "falcon/default/r-1\\n\\n"
        partial = _fields(read, f"result-partial.{fmt}")
        assert partial["status"] == "PARTIAL"
        assert partial["message"] == "é ü ß – ok\\nsecond line"
        assert partial["requestId"] == "null"


def test_the_entity_list(read: dict[str, dict[str, str]]) -> None:
    fields = _fields(read, "list.xml")
    assert fields["totalResults"] == "2"
    assert fields["elements.length"] == "2"
    assert (fields["elements[0].type"], fields["elements[0].name"], fields["elements[0].status"]) == (
        "PROCESS", "count-clicks", "RUNNING")
    assert (fields["elements[0].tag[0]"], fields["elements[0].tag[1]"]) == ("owner=etl", "team=web")
    assert fields["elements[0].pipeline[0]"] == "clicks"
    assert fields["elements[0].cluster[0]"] == "primary"
    assert fields["elements[1].tag.length"] == "0"
    one = _fields(read, "list-one.json")  # one entity: an object, not an array, in the mapped notation
    assert (one["totalResults"], one["elements.length"], one["elements[0].name"]) == ("1", "1", "raw-clicks")
    assert one["elements[0].tag"] == "null"
    dependencies = _fields(read, "dependencies.xml")
    assert (dependencies["elements[0].type"], dependencies["elements[0].tag[0]"]) == ("feed", "Input")
    assert (dependencies["elements[1].type"], dependencies["elements[1].tag.length"]) == ("cluster", "0")


def test_the_entity_summary(read: dict[str, dict[str, str]]) -> None:
    for fmt in ("xml", "json"):
        fields = _fields(read, f"summary.{fmt}")
        assert fields["message"] == "Entity Summary Result"
        assert fields["requestId"] == "r-2"
        assert (fields["entitySummaries[0].type"], fields["entitySummaries[0].status"]) == ("PROCESS", "RUNNING")
        assert fields["entitySummaries[0].tags.length"] == "1"
        assert fields["entitySummaries[0].pipelines[1]"] == "reports"
        assert fields["entitySummaries[0].instances[0].status"] == "SUCCEEDED"
        assert fields["entitySummaries[0].instances[0].logFile"] == "http://l/1"
        # SKIPPED is no EntitySummaryResult.WorkflowStatus: left out rather than read as an error
        assert fields["entitySummaries[0].instances[1].status"] == "null"


def test_the_instances(read: dict[str, dict[str, str]]) -> None:
    for fmt in ("xml", "json"):
        fields = _fields(read, f"instances.{fmt}")
        assert fields["message"] == "default/STATUS\\n"
        assert fields["requestId"] == "default/r-3\\n"
        assert fields["instances.length"] == "3"
        assert fields["instances[0].status"] == "SUCCEEDED"
        assert fields["instances[0].startTime"] == "2026-03-01T05:00:00.000Z"
        assert fields["instances[0].endTime"] == "2026-03-01T05:02:00.000Z"
        assert fields["instances[0].runId"] == "1"
        assert fields["instances[0].logFile"].endswith("/runs/r1")
        assert (fields["instances[0].actions[0].action"], fields["instances[0].actions[0].status"]) == (
            "count", "SUCCESS")
        assert fields["instances[1].status"] == "FAILED"  # TIMEDOUT, as Falcon 0.9 reported it
        assert fields["instances[1].details"] == 'inputs missing: raw-clicks <a&b> "x"'
        assert fields["instances[1].startTime"] == "null"
        assert (fields["instances[2].status"], fields["instances[2].sourceCluster"]) == ("KILLED", "primary")
        assert fields["instances[2].details"] == ""
        one = _fields(read, f"instances-one.{fmt}")
        assert one["instances.length"] == "1"
        assert one["instances[0].startTime"] == "2026-03-01T05:00:30.000Z"
        assert one["instances[0].endTime"] == "2026-03-01T05:01:30.120Z"
        assert one["instances[0].actions[0].logFile"] == "null"
        assert _fields(read, f"instances-none.{fmt}")["instances"] == "null"
        params = _fields(read, f"params.{fmt}")
        assert params["message"] == "default/PARAMS\\n"
        pairs = {params[f"instances[0].wfParams[{index}].key"]: params[f"instances[0].wfParams[{index}].value"]
                 for index in range(int(params["instances[0].wfParams.length"]))}
        assert pairs == {"nominalTime": "2026-03-01T05:00Z", "conf.queue": "default"}


def test_the_instance_summary(read: dict[str, dict[str, str]]) -> None:
    for fmt in ("xml", "json"):  # the JSON repeats the key "entry" (natural notation of a Map): all are read
        fields = _fields(read, f"instance-summary.{fmt}")
        assert fields["message"] == "default/SUMMARY\\n"
        assert fields["instancesSummary[0].cluster"] == "primary"
        assert fields["instancesSummary[0].summaryMap{SUCCEEDED}"] == "3"
        assert fields["instancesSummary[0].summaryMap{RUNNING}"] == "1"
        assert fields["instancesSummary[1].summaryMap{WAITING}"] == "2"
        # an empty map reads as an empty map, never null: the CLI iterates over it
        assert _fields(read, f"instance-summary-empty.{fmt}")["instancesSummary[0].summaryMap.size"] == "0"


def test_the_feed_listing_lookup_and_dependencies(read: dict[str, dict[str, str]]) -> None:
    for fmt in ("xml", "json"):
        listing = _fields(read, f"listing.{fmt}")
        assert listing["message"] == "default/Success\\n"
        assert (listing["instances[0].status"], listing["instances[0].size"], listing["instances[0].sizeH"]) == (
            "AVAILABLE", "5000", "4 KB")
        assert listing["instances[0].creationTime"] == str(int(datetime(2026, 3, 1, 5, 10, tzinfo=UTC)
                                                               .timestamp() * 1000))
        assert (listing["instances[1].size"], listing["instances[1].creationTime"]) == ("-1", "0")
        lookup = _fields(read, f"lookup.{fmt}")
        assert lookup["message"] == "default/SUCCESS\\n"
        assert (lookup["elements[0].feedName"], lookup["elements[0].locationType"],
                lookup["elements[0].clusterName"]) == ("raw-clicks", "DATA", "primary")
        dependencies = _fields(read, f"instance-dependencies.{fmt}")
        assert dependencies["message"] == "default/Success!\\n"
        assert (dependencies["dependencies[0].entityName"], dependencies["dependencies[0].entityType"],
                dependencies["dependencies[0].instanceTime"], dependencies["dependencies[0].tags"]) == (
            "raw-clicks", "FEED", "2026-03-01T05:00:00.000Z", "Input")
        assert dependencies["dependencies[1].tags"] == "Output"
        sla = _fields(read, f"sla.{fmt}")
        assert (sla["instances[0].entityType"], sla["instances[0].tags"]) == ("FEED", "Missed SLA High")


def test_the_triage_and_lineage_graphs(read: dict[str, dict[str, str]]) -> None:
    for fmt in ("xml", "json"):
        fields = _fields(read, f"triage.{fmt}")
        assert fields["triageGraphs.length"] == "2"
        assert fields["triageGraphs[0].vertices.length"] == "2"
        assert fields["triageGraphs[0].edges[0].label"] == "consumed by"
        assert fields["triageGraphs[1].vertices[0]"] == "FEED/raw-clicks@backup/2026-03-01T05:00Z[AVAILABLE]"
        lineage = _fields(read, f"lineage.{fmt}")
        assert (lineage["vertices[0]"], lineage["vertices[1]"]) == ("generate-clicks", "count-clicks")
        assert (lineage["edges[0].from"], lineage["edges[0].to"], lineage["edges[0].label"]) == (
            "generate-clicks", "count-clicks", "raw-clicks")
        assert _fields(read, f"triage-empty.{fmt}")["triageGraphs"] == "null"


def _newer_than_09(path: Path) -> str | None:
    """The value of an example entity that Falcon 0.9's schema does not have (0.10 added the spark interface and
    engine; the generic datasource type came later still), or ``None``."""
    import xml.etree.ElementTree as ElementTree

    root = ElementTree.parse(path).getroot()
    for element in root.iter():
        tag = element.tag.rsplit("}", 1)[-1]
        if tag == "interface" and element.get("type") == "spark":
            return "spark"
        if tag == "workflow" and element.get("engine") == "spark":
            return "spark"
        if tag == "datasource" and element.get("type") not in (None, "mysql", "oracle", "hsql"):
            return str(element.get("type"))
    return None


def test_example_definitions_and_the_09_clients_schema(read: dict[str, dict[str, str]]) -> None:
    """``entity -definition``: the 0.9 client validates the served XML against its own XSD before printing it. The
    definitions within 0.9's schema read back; those using a newer value (a Spark interface or engine, a generic
    datasource) are refused by the client, naming that value: such entities need a 0.10 client or later."""
    definitions = {case: fields for case, fields in read.items() if case.startswith("definition-")}
    paths = sorted((REPOSITORY / "entities").glob("*/*.xml"))
    assert len(definitions) == len(paths)
    newer = {path.stem: _newer_than_09(path) for path in paths}
    assert any(value is None for value in newer.values()), "no example entity is within Falcon 0.9's schema"
    for case, fields in definitions.items():
        name = case.split("-", 2)[2]
        if newer[name] is None:
            assert "!problems" not in fields, f"{case}: {fields['!problems']}"
            assert fields[""] == name  # the entity, read back by Falcon's unmarshaller
        else:
            assert "cvc-enumeration-valid" in fields.get("!problems", ""), (case, fields)
            assert f"'{newer[name]}'" in fields["!problems"], (case, fields)


# -- the other direction: the bytes Falcon's server wrote ----------------------------------------------------------

AWKWARD = 'say "hi" & <bye> \'now\'\r\nnext\ttab \\ / é € 𝄞'
"""Text that every escaping rule touches: quotes, markup, a carriage return, tab and line feed, a backslash, a
slash, non-ASCII and a character outside the BMP."""


def writer_cases() -> Iterator[tuple[str, str, object]]:
    """(case, Falcon class, body): every result type in its usual, empty, one-item and awkward shapes."""
    yield from cases()
    yield "awkward-result", "APIResult", APIResult(ResultStatus.FAILED, AWKWARD, AWKWARD)
    yield "empty-message", "APIResult", APIResult(ResultStatus.SUCCEEDED, "", None)
    yield "list-empty", "EntityList", EntityList(0)
    yield "list-awkward", "EntityList", EntityList(1, (EntityElement("PROCESS", "p", AWKWARD, (AWKWARD,), (), None),))
    yield "summary-empty", "EntitySummaryResult", EntitySummaryResult(ResultStatus.SUCCEEDED, "Entity Summary Result")
    yield "summary-one", "EntitySummaryResult", EntitySummaryResult(
        ResultStatus.SUCCEEDED, AWKWARD, "r", (EntitySummary("p", "PROCESS", "RUNNING", ("a=b",), (), (
            SummaryInstance("2026-03-01T05:00Z", "RUNNING", None, "primary", None, T0, T1),)),))
    yield "instances-awkward", "InstancesResult", InstancesResult(ResultStatus.PARTIAL, AWKWARD, None, (
        Instance("2026-03-01T05:00Z", "KILLED", AWKWARD, "primary", "backup", T0, None, 3, AWKWARD,
                 (InstanceAction("a", None, None), InstanceAction("b", "FAILED", "x")),
                 (KeyValuePair("k", AWKWARD), KeyValuePair("empty", ""), KeyValuePair("none", None))),
        Instance(None)))
    yield "summary-instances-empty", "InstancesSummaryResult", InstancesSummaryResult(ResultStatus.SUCCEEDED, "m")
    yield "listing-empty", "FeedInstanceResult", FeedInstanceResult(ResultStatus.SUCCEEDED, "default/Success\n")
    yield "listing-one", "FeedInstanceResult", FeedInstanceResult(ResultStatus.SUCCEEDED, "m", None, (
        FeedInstance("primary", "2026-03-01T05:00Z", "PARTIAL", AWKWARD, 1772341200000, 0, "0 bytes"),))
    yield "lookup-empty", "FeedLookupResult", FeedLookupResult(ResultStatus.SUCCEEDED, "m")
    yield "lookup-two", "FeedLookupResult", FeedLookupResult(ResultStatus.SUCCEEDED, "m", None, (
        FeedProperties("a", "data", "primary"), FeedProperties("b", "stats", "backup")))
    yield "dependencies-none", "InstanceDependencyResult", InstanceDependencyResult(ResultStatus.SUCCEEDED, "m")
    yield "dependencies-one", "InstanceDependencyResult", InstanceDependencyResult(ResultStatus.SUCCEEDED, "m", None, (
        SchedulableEntityInstance("p", "primary", T1, "PROCESS", None),))
    yield "sla-empty", "SchedulableEntityInstanceResult", SchedulableEntityInstanceResult(ResultStatus.SUCCEEDED, "m")
    yield "triage-bare", "TriageResult", TriageResult(ResultStatus.SUCCEEDED, "m", None, (LineageGraphResult(),))
    yield "lineage-empty", "LineageGraphResult", LineageGraphResult()
    yield "lineage-one", "LineageGraphResult", LineageGraphResult((AWKWARD,), (Edge("a", "b", None),))
    yield "properties", "PropertyList", PropertyList((("Version", "0.9"), ("empty", ""), ("none", None),
                                                      ("awkward", AWKWARD)))
    yield "properties-one", "PropertyList", PropertyList((("Version", "0.9"),))
    yield "properties-empty", "PropertyList", PropertyList(())
    yield "jobs-empty", "ExtensionJobList", ExtensionJobList()
    yield "jobs", "ExtensionJobList", ExtensionJobList((
        ExtensionJob("mirror-a", EntityList(1, (EntityElement("PROCESS", "p", "RUNNING"),))), ExtensionJob("b")))
    yield "extension-instances", "ExtensionInstanceList", ExtensionInstanceList((
        ExtensionEntitySummary(EntityElement("hdfs-mirroring", "mirror-a"),
                               (Instance("2026-03-01T05:00Z", "RUNNING", run_id=1),)),
        ExtensionEntitySummary(EntityElement("hdfs-mirroring", "mirror-b"))))
    yield "extension-instances-empty", "ExtensionInstanceList", ExtensionInstanceList()


_MAP = re.compile(rb"<map>(.*?)</map>|\"map\":\{(.*?)\}\}")
_ENTRY = re.compile(rb"<entry>.*?</entry>|\"entry\":\{.*?\}")


def _map_order_free(content: bytes) -> bytes:
    """The entries of each ``InstanceSummary`` map in a fixed order: Falcon's map was a ``HashMap``, whose order is
    its hash order, not a property of the body (a client reads the entries into a map)."""
    def ordered(match: re.Match[bytes]) -> bytes:
        whole = match.group(0)
        entries = _ENTRY.findall(whole)
        start = whole.find(entries[0]) if entries else 0
        rest = whole[start:]
        for entry in entries:
            rest = rest.replace(entry, b"\0", 1)
        return whole[:start] + rest.replace(b"\0", b"%s") % tuple(sorted(entries))
    return _MAP.sub(ordered, content)


@pytest.fixture(scope="module")
def written(client_classpath: str, tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, bytes]]:
    """Each writer case as bodies wrote it and as Falcon's server writers wrote it again, by case:
    {"xml", "json", "jaxb", "jersey"}."""
    folder = tmp_path_factory.mktemp("writers")
    lines, ours = [], {}
    for case, java_class, body in writer_cases():
        path = folder / f"{case}.xml"
        xml, _ = render(body, "xml")  # type: ignore[arg-type]
        json, _ = render(body, "json")  # type: ignore[arg-type]
        path.write_bytes(xml)
        ours[case] = {"xml": xml, "json": json}
        lines.append(f"{case}\t{java_class}\t{path}")
    manifest = folder / "manifest.tsv"
    manifest.write_text("\n".join(lines) + "\n", encoding="utf-8")
    done = subprocess.run(["java", "-Xmx256m", "--add-opens", "java.base/java.lang=ALL-UNNAMED", "-cp",
                           client_classpath, str(WRITERS), str(manifest)], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    problems = [line for line in done.stdout.splitlines() if not line.endswith(" OK")]
    assert not problems, "\n".join(problems)
    for case in ours:
        ours[case]["jaxb"] = (folder / f"{case}.xml.jaxb.xml").read_bytes()
        ours[case]["jersey"] = (folder / f"{case}.xml.jersey.json").read_bytes()
    return ours


@pytest.mark.parametrize("case", [case for case, _, _ in writer_cases()])
def test_the_bytes_falcons_server_wrote(written: dict[str, dict[str, bytes]], case: str) -> None:
    bodies = written[case]
    assert _map_order_free(bodies["xml"]) == _map_order_free(bodies["jaxb"])
    assert _map_order_free(bodies["json"]) == _map_order_free(bodies["jersey"])


def test_the_awkward_text_as_written(written: dict[str, dict[str, bytes]]) -> None:
    """What the writers did with each special character: in XML ``"`` is escaped in text too (JAXB 2.2.3's stream
    output), a carriage return is a character reference, tab and line feed stay; in JSON only ``"``, ``\\`` and
    control characters are escaped, ``/`` and non-ASCII stay."""
    jaxb, jersey = written["awkward-result"]["jaxb"].decode(), written["awkward-result"]["jersey"].decode()
    assert "<message>say &quot;hi&quot; &amp; &lt;bye&gt; 'now'&#xD;\nnext\ttab \\ / é € 𝄞</message>" in jaxb
    assert '"message":"say \\"hi\\" & <bye> \'now\'\\r\\nnext\\ttab \\\\ / é € 𝄞"' in jersey
    assert written["properties-empty"]["jersey"] == b"null"
    assert written["lineage-empty"]["jersey"] == b"null"
