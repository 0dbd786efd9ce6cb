"""Every element and attribute the schemas accept is applied or reported (issue 30).

The walk reads the four entity XSDs and Oozie's workflow, action and SLA XSDs with xmlschema and lists every
element and attribute path (``feed/late-arrival/@cut-off``), and the enumeration values of each (``...=temp``). The
table :mod:`falcon_airflow.validation.coverage` must cover each path exactly: a path it lacks, or an entry the XSDs
do not have, fails with its name. An applied entry names tests that must exist; a reported entry names the rule that
reports it, and a minimal entity or workflow that uses the element must get that rule with a message naming it.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from datetime import UTC, datetime
from functools import cache
from importlib import resources
from pathlib import Path

import pytest
import xmlschema
from tests import builders
from xmlschema.validators import XsdAnyElement, XsdElement

from falcon_airflow.issues import Issue
from falcon_airflow.oozie import parse_workflow_file
from falcon_airflow.oozie.validate import validate_workflow_file
from falcon_airflow.validation import validate_paths
from falcon_airflow.validation.coverage import (
    FALCON,
    OOZIE,
    Applied,
    Coverage,
    Reported,
    reported_markdown,
)

REPOSITORY = Path(__file__).resolve().parents[3]
SLA_NAMESPACES = {"uri:oozie:sla:0.1", "uri:oozie:sla:0.2"}
NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


# -- the walk ---------------------------------------------------------------------------------------------------------


def _enumerations(simple_type: object) -> list[str]:
    values = getattr(simple_type, "enumeration", None)
    return [str(value) for value in values] if values else []


def _walk(element: XsdElement, prefix: str, found: set[str]) -> None:
    path = f"{prefix}/{element.local_name}" if prefix else str(element.local_name)
    found.add(path)
    kind = element.type
    found.update(f"{path}={value}" for value in _enumerations(kind if kind.is_simple() else None))
    for attribute in getattr(kind, "attributes", {}).values():
        if attribute.local_name:
            found.add(f"{path}/@{attribute.local_name}")
            found.update(f"{path}/@{attribute.local_name}={value}" for value in _enumerations(attribute.type))
    content = getattr(kind, "content", None) if kind.is_complex() else None
    if content is None or not hasattr(content, "iter_elements"):
        return
    for child in content.iter_elements():
        if isinstance(child, XsdAnyElement):
            namespaces = {child.namespace} if isinstance(child.namespace, str) else set(child.namespace)
            found.add(f"{path}/sla:info" if namespaces <= SLA_NAMESPACES else f"{path}/*")
        elif child.local_name not in path.split("/"):  # a recursive type is walked once
            _walk(child, path, found)


@cache
def schema_paths(package: str, name: str, prefix: str = "") -> frozenset[str]:
    with resources.as_file(resources.files(package) / "schemas" / name) as path:
        schema = xmlschema.XMLSchema(str(path))
    found: set[str] = set()
    for element in schema.elements.values():
        _walk(element, prefix, found)
    return frozenset(found)


def falcon_paths(entity: str) -> frozenset[str]:
    return schema_paths("falcon_airflow.parsing", f"{entity}.xsd")


@cache
def oozie_paths() -> frozenset[str]:
    folder = resources.files("falcon_airflow.oozie") / "schemas"
    found: set[str] = set()
    for item in sorted(entry.name for entry in folder.iterdir() if entry.name.endswith(".xsd")):
        if item.startswith("workflow-"):
            found |= schema_paths("falcon_airflow.oozie", item)
        elif item.startswith("sla-"):
            found |= {path.replace("info", "sla:info", 1) for path in schema_paths("falcon_airflow.oozie", item)}
        elif "-action-" in item:
            found |= schema_paths("falcon_airflow.oozie", item, "workflow-app/action")
    return frozenset(found)


def covering(table: dict[str, Coverage], path: str) -> str | None:
    """The key of ``table`` that covers ``path``: itself, its closest ``/**``, else (for a value) its path's."""
    if path in table:
        return path
    parts = path.split("=", 1)[0].split("/")
    for end in range(len(parts), 0, -1):
        key = "/".join(parts[:end]) + "/**"
        if key in table:
            return key
    if "=" in path:
        return covering(table, path.split("=", 1)[0])
    return None


def coverage_problems(table: dict[str, Coverage], paths: frozenset[str], what: str) -> list[str]:
    problems = [f"{what}: {path} is in the schema but not in the coverage table"
                for path in sorted(paths) if "=" not in path and covering(table, path) is None]
    for key in sorted(table):
        base = key.removesuffix("/**")
        if base not in paths:
            problems.append(f"{what}: {key} is in the coverage table but not in the schema")
    return problems


@pytest.mark.parametrize("entity", sorted(FALCON))
def test_every_entity_path_is_applied_or_reported(entity: str) -> None:
    paths = falcon_paths(entity)
    assert len(paths) > 20, paths  # the walk found the schema
    assert coverage_problems(FALCON[entity], paths, f"{entity}.xsd") == []


def test_every_oozie_path_is_applied_or_reported() -> None:
    paths = oozie_paths()
    assert {"workflow-app/action/shell/exec", "workflow-app/credentials/credential/@type",
            "sla:info/nominal-time", "workflow-app/action/sla:info"} <= paths
    assert coverage_problems(OOZIE, paths, "oozie schemas") == []


def test_the_walk_reports_a_path_the_table_lacks_and_an_entry_the_schema_lacks() -> None:
    table = dict(FALCON["feed"])
    del table["feed/late-arrival/@cut-off"]
    table["feed/late-arrival/@grace"] = Reported("FA080", "no such attribute")
    assert coverage_problems(table, falcon_paths("feed"), "feed.xsd") == [
        "feed.xsd: feed/late-arrival/@cut-off is in the schema but not in the coverage table",
        "feed.xsd: feed/late-arrival/@grace is in the coverage table but not in the schema",
    ]


# -- applied: the tests named exist -----------------------------------------------------------------------------------


@cache
def _test_functions(relative: str) -> frozenset[str]:
    tree = ast.parse((REPOSITORY / relative).read_text(encoding="utf-8"))
    return frozenset(node.name for node in tree.body
                     if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test_"))


def _all_entries() -> Iterator[tuple[str, str, Coverage]]:
    for entity, table in FALCON.items():
        for key, entry in table.items():
            yield entity, key, entry
    for key, entry in OOZIE.items():
        yield "oozie", key, entry


def test_every_applied_entry_names_tests_that_exist() -> None:
    missing = []
    for where, key, entry in _all_entries():
        if not isinstance(entry, Applied):
            continue
        assert entry.tests, f"{where}: {key} is applied but names no test"
        for test in entry.tests:
            relative, _, function = test.partition("::")
            if not (REPOSITORY / relative).is_file() or function not in _test_functions(relative):
                missing.append(f"{where}: {key} names {test}, which does not exist")
    assert missing == []


# -- reported: a minimal entity or workflow that uses the element gets the rule ---------------------------------------


def _element_name(table: dict[str, Coverage], key: str) -> str:
    """What a message must name: the value, else the outermost element or attribute reported the same way
    (``<properties>`` for ``.../properties/property/@value``): ``append``, ``version``, ``jar``, ``temp``."""
    path = key.removesuffix("/**")
    if "=" in path:
        return path.split("=", 1)[1]
    parts = path.split("/")
    entry = table[key]
    for end in range(1, len(parts) + 1):
        if table.get("/".join(parts[:end])) == entry:
            return parts[end - 1].removeprefix("@")
    return parts[-1].removeprefix("@")


def _feed_with_cluster_part(part: str) -> str:
    """The standard feed with ``part`` (an import, an export, a lifecycle) in its cluster."""
    return builders.feed().replace('<retention limit="days(1000)" action="delete"/>',
                                   f'<retention limit="days(1000)" action="delete"/>{part}', 1)


_SOURCE = ('<import><source name="shop" tableName="t"{version}>{body}</source>'
           '<arguments><argument name="--num-mappers" value="1"/></arguments></import>')
_FULL = '<extract type="full"><mergepolicy>snapshot</mergepolicy></extract>'
_TARGET = '<export><target name="shop" tableName="t"{version}>{body}</target></export>'
_STAGE = "<lifecycle><retention-stage><frequency>hours(10)</frequency>{extra}</retention-stage></lifecycle>"


def _falcon_documents(key: str) -> list[str]:
    """A valid workspace but for the element ``key`` names, which it uses."""
    base = [builders.cluster(), builders.ops_datasource("shop")]
    feed_part: str | None = None
    datasource = None
    process = None
    cluster = None
    match key:
        case "cluster/locations/location/@name=temp":
            cluster = builders.cluster(locations={"staging": "/staging", "temp": "/tmp/falcon"})
        case "feed/clusters/cluster/import/source/@version":
            feed_part = _SOURCE.format(version=' version="2"', body=_FULL)
        case "feed/clusters/cluster/export/target/@version":
            feed_part = _TARGET.format(version=' version="2"', body='<load type="updateonly"/>')
        case "feed/clusters/cluster/import/source/extract/@type=incremental":
            feed_part = _SOURCE.format(version="", body='<extract type="incremental"><deltacolumn>id</deltacolumn>'
                                                        '<mergepolicy>append</mergepolicy></extract>')
        case "feed/clusters/cluster/import/source/extract/deltacolumn":
            feed_part = _SOURCE.format(version="", body='<extract type="full"><deltacolumn>id</deltacolumn>'
                                                        '<mergepolicy>snapshot</mergepolicy></extract>')
        case "feed/clusters/cluster/import/source/extract/mergepolicy=append":
            feed_part = _SOURCE.format(version="", body='<extract type="full"><mergepolicy>append</mergepolicy>'
                                                        '</extract>')
        case "feed/clusters/cluster/import/source/load" | "feed/clusters/cluster/import/source/load/@type":
            feed_part = _SOURCE.format(version="", body='<load type="updateonly"/>')
        case "feed/clusters/cluster/import/source/fields/excludes" | \
                "feed/clusters/cluster/import/source/fields/excludes/field":
            feed_part = _SOURCE.format(version="", body=_FULL + "<fields><excludes><field>id</field></excludes>"
                                                              "</fields>")
        case "feed/clusters/cluster/export/target/extract/**":
            feed_part = _TARGET.format(version="", body=_FULL)
        case "feed/clusters/cluster/export/target/fields/**":
            feed_part = _TARGET.format(version="", body='<load type="updateonly"/><fields><includes>'
                                                        '<field>id</field></includes></fields>')
        case "feed/clusters/cluster/lifecycle/retention-stage/priority":
            feed_part = _STAGE.format(extra="<priority>HIGH</priority>")
        case "feed/lifecycle/retention-stage/priority":
            text = builders.feed().replace("</feed>", _STAGE.format(extra="<priority>HIGH</priority>") + "</feed>")
            return [*base, text]
        case "feed/notification/@level=attempt":
            text = builders.feed().replace("<ACL ", '<notification type="email" level="attempt" to="a@b.c"/>\n  <ACL ')
            return [*base, text]
        case "process/workflow/@engine=pig":
            process = builders.process().replace('engine="spark"', 'engine="pig"')
        case "datasource/driver/jar":
            datasource = builders.ops_datasource("shop").replace("/lib/postgresql.jar", "/lib/pg-driver.jar")
        case "datasource/interfaces/interface/driver/jar":
            datasource = builders.ops_datasource("shop").replace(
                '<credential type="password-text"><userName>reader',
                "<driver><clazz>org.postgresql.Driver</clazz><jar>/lib/pg.jar</jar></driver>"
                '<credential type="password-text"><userName>reader', 1)
        case key if key.startswith("datasource/properties"):
            datasource = builders.ops_datasource("shop").replace(
                "</datasource>", '<properties><property name="ssl" value="true"/></properties></datasource>')
        case key if key.startswith("datasource/interfaces/interface/properties"):
            datasource = builders.ops_datasource("shop").replace(
                "<passwordText>secret</passwordText></credential>\n    </interface>",
                "<passwordText>secret</passwordText></credential>"
                '<properties><property name="ssl" value="true"/></properties>\n    </interface>', 1)
        case _:
            raise AssertionError(f"no entity written for the reported element {key}")
    documents = [cluster or base[0], datasource or base[1]]
    if feed_part is not None:
        documents.append(_feed_with_cluster_part(feed_part))
    if process is not None:
        documents.append(process)
    return documents


FALCON_REPORTED = sorted((entity, key) for entity, table in FALCON.items()
                         for key, entry in table.items() if isinstance(entry, Reported))


def _reported_issue(issues: tuple[Issue, ...] | list[Issue], rule: str, name: str) -> list[Issue]:
    return [issue for issue in issues if issue.rule == rule and name in issue.message]


@pytest.mark.parametrize(("entity", "key"), FALCON_REPORTED, ids=[key for _, key in FALCON_REPORTED])
def test_a_reported_entity_element_is_reported_when_used(tmp_path: Path, entity: str, key: str) -> None:
    entry = FALCON[entity][key]
    assert isinstance(entry, Reported)
    for index, text in enumerate(_falcon_documents(key)):
        (tmp_path / f"entity-{index}.xml").write_text(text, encoding="utf-8")
    report = validate_paths([str(tmp_path)], now=NOW)
    schema = [issue for issue in report.issues if issue.rule in ("XML", "XSD")]
    assert schema == []  # the element is accepted by the schema, so only the rule can speak of it
    name = _element_name(FALCON[entity], key)
    assert _reported_issue(report.issues, entry.rule, name), (
        f"{key}: no {entry.rule} naming {name!r} in {[(i.rule, i.message) for i in report.issues]}")


def test_elements_that_are_applied_are_not_reported(tmp_path: Path) -> None:
    """The warning rule stays quiet on the standard entities and on what the transfers do apply."""
    feed = _feed_with_cluster_part(_SOURCE.format(version="", body=_FULL))
    for index, text in enumerate([builders.cluster(), builders.ops_datasource("shop"), feed, builders.process()]):
        (tmp_path / f"entity-{index}.xml").write_text(text, encoding="utf-8")
    report = validate_paths([str(tmp_path)], now=NOW)
    assert [issue.message for issue in report.issues if issue.rule == "FA080"] == []


# -- reported Oozie elements ------------------------------------------------------------------------------------------

WORKFLOW = """<workflow-app xmlns="uri:oozie:workflow:{version}" name="wf">
  {head}
  <start to="a"/>
  <action name="a"{attributes}>
    {action}
    <ok to="end"/>
    <error to="fail"/>
  </action>
  <kill name="fail"><message>failed</message></kill>
  <end name="end"/>
</workflow-app>
"""

_HADOOP = "<resource-manager>${{jobTracker}}</resource-manager><name-node>${{nameNode}}</name-node>"
_SHELL = f'<shell xmlns="uri:oozie:shell-action:1.0">{_HADOOP}{{inner}}<exec>run.sh</exec></shell>'
_HIVE = f'<hive xmlns="uri:oozie:hive-action:1.0">{_HADOOP}<script>q.sql</script>{{inner}}</hive>'
_HIVE2 = (f'<hive2 xmlns="uri:oozie:hive2-action:1.0">{_HADOOP}<jdbc-url>jdbc:hive2://h:10000/d</jdbc-url>'
          "{inner}<script>q.sql</script></hive2>")
_SPARK = (f'<spark xmlns="uri:oozie:spark-action:1.0">{_HADOOP}<master>local</master><name>s</name>'
          "<jar>job.py</jar>{inner}</spark>")
_JAVA = f"<java>{_HADOOP}<main-class>a.B</main-class>{{inner}}</java>"
_DISTCP = f'<distcp xmlns="uri:oozie:distcp-action:1.0">{_HADOOP}{{inner}}<arg>/a</arg><arg>/b</arg></distcp>'
_SLA = ('<sla:info xmlns:sla="uri:oozie:sla:0.2"><sla:nominal-time>${{nominalTime}}</sla:nominal-time>'
        "<sla:should-end>${{10 * MINUTES}}</sla:should-end></sla:info>")
_LAUNCHER = "<launcher><memory.mb>1024</memory.mb></launcher>"


def _workflow(key: str) -> str:
    """A workflow (1.0 unless the element needs another version) that uses the element ``key`` names."""
    head, attributes, action = "", "", _SHELL.format(inner="")

    def shell(inner: str) -> str:
        return _SHELL.format(inner=inner)

    match key:
        case "workflow-app/sla:info" | "sla:info/**":
            return WORKFLOW.format(version="1.0", head="", attributes="", action=action).replace(
                '<start to="a"/>', '<start to="a"/>', 1).replace("</workflow-app>", _SLA.replace("{{", "{").replace(
                    "}}", "}") + "\n</workflow-app>")
        case "workflow-app/action/sla:info":
            action = action + "\n    <ok to=\"end\"/>\n    <error to=\"fail\"/>\n    " + _SLA.replace(
                "{{", "{").replace("}}", "}")
            text = WORKFLOW.format(version="1.0", head="", attributes="", action=action)
            return text.replace('<ok to="end"/>\n    <error to="fail"/>\n  </action>', "</action>", 1)
        case "workflow-app/global/job-xml":
            head = "<global><job-xml>site.xml</job-xml></global>"
        case "workflow-app/global/launcher/**":
            head = f"<global>{_LAUNCHER}</global>"
        case "workflow-app/credentials/**":
            head = ('<credentials><credential name="hcat" type="hcat"><property><name>a</name><value>b</value>'
                    "</property></credential></credentials>")
        case "workflow-app/action/@cred":
            head = '<credentials><credential name="hcat" type="hcat"></credential></credentials>'
            attributes = ' cred="hcat"'
        case "workflow-app/action/@retry-policy":
            attributes = ' retry-max="2" retry-interval="1" retry-policy="exponential"'
        case key if key.endswith("/job-xml"):
            action = {"shell": shell("<job-xml>site.xml</job-xml>"),
                      "fs": '<fs><job-xml>site.xml</job-xml><mkdir path="/tmp/x"/></fs>',
                      "hive": _HIVE.format(inner="").replace("<script>", "<job-xml>site.xml</job-xml><script>"),
                      "hive2": _HIVE2.format(inner="").replace("<jdbc-url>", "<job-xml>site.xml</job-xml><jdbc-url>"),
                      "spark": _SPARK.format(inner="").replace("<master>", "<job-xml>site.xml</job-xml><master>"),
                      "java": _JAVA.format(inner="").replace("<main-class>", "<job-xml>s.xml</job-xml><main-class>"),
                      "distcp": _DISTCP.format(inner="<job-xml>site.xml</job-xml>"),
                      }[key.split("/")[2]]
        case key if key.endswith("/launcher/**"):
            kind = key.split("/")[2]
            action = {"shell": shell(_LAUNCHER),
                      "hive": _HIVE.format(inner="").replace("<script>", _LAUNCHER + "<script>"),
                      "hive2": _HIVE2.format(inner="").replace("<jdbc-url>", _LAUNCHER + "<jdbc-url>"),
                      "spark": _SPARK.format(inner="").replace("<master>", _LAUNCHER + "<master>"),
                      "java": _JAVA.format(inner="").replace("<main-class>", _LAUNCHER + "<main-class>"),
                      "distcp": _DISTCP.format(inner=_LAUNCHER)}[kind]
        case "workflow-app/action/hive/file" | "workflow-app/action/hive/archive" | \
                "workflow-app/action/hive/argument":
            action = _HIVE.format(inner=f"<{key.rsplit('/', 1)[1]}>x</{key.rsplit('/', 1)[1]}>")
        case "workflow-app/action/hive2/file" | "workflow-app/action/hive2/archive" | \
                "workflow-app/action/hive2/argument":
            action = _HIVE2.format(inner="").replace(
                "</hive2>", f"<{key.rsplit('/', 1)[1]}>x</{key.rsplit('/', 1)[1]}></hive2>")
        case "workflow-app/action/hive2/jdbc-url":
            action = _HIVE2.format(inner="")
        case "workflow-app/action/hive2/password":
            action = _HIVE2.format(inner="<password>secret</password>")
        case "workflow-app/action/spark/archive":
            action = _SPARK.format(inner="<archive>a.zip</archive>")
        case "workflow-app/action/java/file" | "workflow-app/action/java/archive":
            action = _JAVA.format(inner=f"<{key.rsplit('/', 1)[1]}>x</{key.rsplit('/', 1)[1]}>")
        case "workflow-app/action/java/capture-output":
            action = _JAVA.format(inner="<capture-output/>")
        case "workflow-app/action/distcp/java-opts":
            action = _DISTCP.format(inner="<java-opts>-Xmx1g</java-opts>")
        case "workflow-app/action/fs/setrep/**":
            return WORKFLOW.format(version="0.5", head="", attributes="",
                                   action='<fs><setrep path="/tmp/x" replication-factor="2"/></fs>')
        case "workflow-app/action/*":
            action = '<acme xmlns="uri:acme:action:0.1"><run/></acme>'
        case "workflow-app/action/map-reduce/**":
            action = f"<map-reduce>{_HADOOP}</map-reduce>".replace("{{", "{").replace("}}", "}")
        case "workflow-app/action/pig/**":
            action = f"<pig>{_HADOOP}<script>p.pig</script></pig>".replace("{{", "{").replace("}}", "}")
        case "workflow-app/action/sqoop/**":
            action = (f'<sqoop xmlns="uri:oozie:sqoop-action:1.0">{_HADOOP}<command>import</command></sqoop>'
                      .replace("{{", "{").replace("}}", "}"))
        case "workflow-app/action/ssh/**":
            action = '<ssh xmlns="uri:oozie:ssh-action:0.2"><host>h</host><command>ls</command></ssh>'
        case "workflow-app/action/git/**":
            action = (f'<git xmlns="uri:oozie:git-action:1.0">{_HADOOP}<git-uri>https://g/r.git</git-uri>'
                      "<destination-uri>/tmp/r</destination-uri></git>").replace("{{", "{").replace("}}", "}")
        case "workflow-app/action/http/**":
            return WORKFLOW.format(version="0.1", head="", attributes="", action=(
                "<http><http-url>http://h/x</http-url><wait/><capture-output/></http>"))
        case _:
            raise AssertionError(f"no workflow written for the reported element {key}")
    return WORKFLOW.format(version="1.0", head=head, attributes=attributes,
                           action=action.replace("{{", "{").replace("}}", "}"))


OOZIE_REPORTED = sorted(key for key, entry in OOZIE.items() if isinstance(entry, Reported))

_OOZIE_NAMES: dict[str, str] = {
    "workflow-app/action/*": "acme",
    "workflow-app/action/fs/setrep/**": "setrep",
    "sla:info/**": "sla:info",
}


@pytest.mark.parametrize("key", OOZIE_REPORTED)
def test_a_reported_workflow_element_is_reported_when_used(tmp_path: Path, key: str) -> None:
    entry = OOZIE[key]
    assert isinstance(entry, Reported)
    path = tmp_path / "workflow.xml"
    path.write_text(_workflow(key), encoding="utf-8")
    report = validate_workflow_file(path)
    schema = [(issue.rule, issue.message) for issue in report.issues if issue.rule in ("E0701", "E0723")]
    if key not in ("workflow-app/action/*", "workflow-app/action/http/**"):
        assert schema == []
    name = _OOZIE_NAMES.get(key, _element_name(OOZIE, key))
    if key.endswith("/**") and key.startswith("workflow-app/action/") and entry.rule == "FA020":
        name = _OOZIE_NAMES.get(key, key.split("/")[2])
    assert _reported_issue(report.issues, entry.rule, name), (
        f"{key}: no {entry.rule} naming {name!r} in {[(i.rule, i.message) for i in report.issues]}")


def test_a_workflow_that_uses_only_applied_elements_has_no_fa025(tmp_path: Path) -> None:
    path = tmp_path / "workflow.xml"
    path.write_text(WORKFLOW.format(version="1.0", head="", attributes=' retry-max="2" retry-interval="1"',
                                    action=_SPARK.format(inner="<file>f.txt</file>").replace("{{", "{")
                                    .replace("}}", "}")), encoding="utf-8")
    report = validate_workflow_file(path)
    assert [issue.message for issue in report.issues if issue.rule == "FA025"] == []


def test_a_workflow_0_1_email_message_is_its_body(tmp_path: Path) -> None:
    path = tmp_path / "workflow.xml"
    path.write_text(WORKFLOW.format(version="0.1", head="", attributes="", action=(
        "<email><to>a@example.com</to><subject>s</subject><message>the text</message></email>")),
        encoding="utf-8")
    parsed = parse_workflow_file(path)
    assert parsed.workflow is not None
    [action] = parsed.workflow.actions
    assert getattr(action.config, "body", None) == "the text"


# -- docs/validation.md lists the reported elements from the table ----------------------------------------------------

BEGIN = "<!-- reported-not-applied: generated from falcon_airflow.validation.coverage -->"
END = "<!-- end reported-not-applied -->"


def test_the_documentation_lists_the_reported_elements_as_the_table_does() -> None:
    text = (REPOSITORY / "docs" / "validation.md").read_text(encoding="utf-8")
    found = re.search(re.escape(BEGIN) + r"\n(.*?)" + re.escape(END), text, re.DOTALL)
    assert found, f"docs/validation.md has no section between {BEGIN} and {END}"
    assert found.group(1) == reported_markdown(), (
        "docs/validation.md lists other reported elements than falcon_airflow.validation.coverage; paste "
        "reported_markdown() between the markers")

