"""Oozie's own cardinalities (E0701): what its workflow and action schemas refuse is refused here, in every schema
version, and what they accept is accepted - a fork needs two paths, a launcher may be empty, and the counts and
orders of the elements of the workflow, its control nodes and each action body."""

from __future__ import annotations

import pytest
from lxml import etree

from falcon_airflow.oozie.parse import parse_workflow_bytes
from falcon_airflow.oozie.schema import workflow_versions

ALL_VERSIONS = ("0.1", "0.2", "0.2.5", "0.3", "0.4", "0.4.5", "0.5", "1.0")
TAIL = '<kill name="fail"><message>failed</message></kill><end name="end"/>'


def workflow(body: str, version: str = "0.5") -> bytes:
    return f'<workflow-app xmlns="uri:oozie:workflow:{version}" name="wf">{body}</workflow-app>'.encode()


def action(inner: str, name: str = "a", ok: str = "end") -> str:
    return f'<action name="{name}">{inner}<ok to="{ok}"/><error to="fail"/></action>'


def schema_errors(data: bytes) -> list[str]:
    parsed = parse_workflow_bytes(data, "workflow.xml")
    return [issue.message for issue in parsed.issues if issue.rule == "E0701"]


def fork(paths: int, version: str) -> bytes:
    starts = "".join(f'<path start="p{index}"/>' for index in range(paths))
    branches = "".join(action("<fs/>", f"p{index}", "j") for index in range(paths))
    return workflow(f'<start to="f"/><fork name="f">{starts}</fork>{branches}<join name="j" to="end"/>{TAIL}',
                    version)


def test_every_version_is_covered() -> None:
    assert workflow_versions() == ALL_VERSIONS


@pytest.mark.parametrize("version", ALL_VERSIONS)
@pytest.mark.parametrize("paths", [0, 1])
def test_a_fork_needs_two_paths_in_every_version(version: str, paths: int) -> None:
    errors = schema_errors(fork(paths, version))

    assert errors and any("<fork>" in message or "<path>" in message for message in errors), errors


@pytest.mark.parametrize("version", ALL_VERSIONS)
@pytest.mark.parametrize("paths", [2, 3])
def test_a_fork_with_two_paths_or_more_is_accepted(version: str, paths: int) -> None:
    assert schema_errors(fork(paths, version)) == []


SPARK = ('<spark xmlns="uri:oozie:spark-action:1.0">{launcher}<master>local</master><name>n</name>'
         '<jar>/app/job.py</jar></spark>')
SHELL = '<shell xmlns="uri:oozie:shell-action:1.0">{launcher}<exec>run.sh</exec></shell>'
HIVE = '<hive xmlns="uri:oozie:hive-action:1.0">{launcher}<script>q.sql</script></hive>'
JAVA = "<java>{launcher}<main-class>Main</main-class></java>"


@pytest.mark.parametrize("where", [
    pytest.param("global", id="global"),
    pytest.param(SPARK, id="spark-action"),
    pytest.param(SHELL, id="shell-action"),
    pytest.param(HIVE, id="hive-action"),
    pytest.param(JAVA, id="java-action"),
])
@pytest.mark.parametrize("launcher", ["<launcher/>", "<launcher></launcher>"])
def test_an_empty_launcher_is_accepted_as_oozie_accepts_it(where: str, launcher: str) -> None:
    if where == "global":
        body = (f"<global><resource-manager>rm</resource-manager><name-node>nn</name-node>{launcher}</global>"
                f'<start to="a"/>{action("<fs/>")}{TAIL}')
    else:
        body = (f"<global><resource-manager>rm</resource-manager><name-node>nn</name-node></global>"
                f'<start to="a"/>{action(where.format(launcher=launcher))}{TAIL}')

    assert schema_errors(workflow(body, "1.0")) == []


# What Oozie's schemas refuse, one case per cardinality: (workflow version, body) - each must be refused.
REFUSED = {
    "two-starts": ("0.5", f'<start to="a"/><start to="a"/>{action("<fs/>")}{TAIL}'),
    "no-start": ("0.5", f'{action("<fs/>")}{TAIL}'),
    "two-ends": ("0.5", f'<start to="a"/>{action("<fs/>")}{TAIL}<end name="end2"/>'),
    "no-end": ("0.5", f'<start to="a"/>{action("<fs/>")}<kill name="fail"><message>m</message></kill>'),
    "start-after-an-action": ("0.4", f'{action("<fs/>")}<start to="a"/>{TAIL}'),
    "kill-after-end": ("0.3", f'<start to="a"/>{action("<fs/>")}<end name="end"/>'
                               '<kill name="fail"><message>m</message></kill>'),
    "kill-without-message": ("0.2", f'<start to="a"/>{action("<fs/>")}<kill name="fail"/><end name="end"/>'),
    "action-without-body": ("0.5", f'<start to="a"/><action name="a"><ok to="end"/><error to="fail"/></action>'
                                    f"{TAIL}"),
    "action-with-two-bodies": ("0.5", f'<start to="a"/>{action("<fs/><fs/>")}{TAIL}'),
    "action-with-two-bodies-of-other-namespaces": (
        "1.0", '<start to="a"/>' + action(SHELL.format(launcher="") * 2) + TAIL),
    "two-oks": ("0.5", '<start to="a"/><action name="a"><fs/><ok to="end"/><ok to="end"/><error to="fail"/>'
                       f"</action>{TAIL}"),
    "no-error": ("0.5", f'<start to="a"/><action name="a"><fs/><ok to="end"/></action>{TAIL}'),
    "error-before-ok": ("0.5", f'<start to="a"/><action name="a"><fs/><error to="fail"/><ok to="end"/></action>'
                               f"{TAIL}"),
    "decision-without-default": ("0.5", '<start to="d"/><decision name="d"><switch><case to="end">${true}</case>'
                                        f"</switch></decision>{TAIL}"),
    "decision-without-case": ("0.5", '<start to="d"/><decision name="d"><switch><default to="end"/></switch>'
                                     f"</decision>{TAIL}"),
    "two-globals": ("0.5", f'<global/><global/><start to="a"/>{action("<fs/>")}{TAIL}'),
    "hive-0.2-without-job-tracker": ("0.3", '<start to="a"/>' + action(
        '<hive xmlns="uri:oozie:hive-action:0.2"><name-node>nn</name-node><script>q.sql</script></hive>') + TAIL),
    "hive-without-script": ("0.5", '<start to="a"/>' + action(
        '<hive xmlns="uri:oozie:hive-action:0.5"><job-tracker>jt</job-tracker><name-node>nn</name-node></hive>')
        + TAIL),
    "hive-with-two-scripts": ("0.5", '<start to="a"/>' + action(
        '<hive xmlns="uri:oozie:hive-action:0.5"><script>a.sql</script><script>b.sql</script></hive>') + TAIL),
    "shell-without-exec": ("0.5", '<start to="a"/>' + action(
        '<shell xmlns="uri:oozie:shell-action:0.3"><job-tracker>jt</job-tracker></shell>') + TAIL),
    "shell-0.1-without-name-node": ("0.2", '<start to="a"/>' + action(
        '<shell xmlns="uri:oozie:shell-action:0.1"><job-tracker>jt</job-tracker><exec>e</exec></shell>') + TAIL),
    "email-without-to": ("0.5", '<start to="a"/>' + action(
        '<email xmlns="uri:oozie:email-action:0.2"><subject>s</subject><body>b</body></email>') + TAIL),
    "email-without-subject": ("0.5", '<start to="a"/>' + action(
        '<email xmlns="uri:oozie:email-action:0.1"><to>t</to><body>b</body></email>') + TAIL),
    "email-without-body": ("0.5", '<start to="a"/>' + action(
        '<email xmlns="uri:oozie:email-action:0.2"><to>t</to><subject>s</subject></email>') + TAIL),
    "email-with-two-subjects": ("0.5", '<start to="a"/>' + action(
        '<email xmlns="uri:oozie:email-action:0.2"><to>t</to><subject>s</subject><subject>s</subject>'
        "<body>b</body></email>") + TAIL),
    "spark-without-master": ("0.5", '<start to="a"/>' + action(
        '<spark xmlns="uri:oozie:spark-action:0.2"><name>n</name><jar>j</jar></spark>') + TAIL),
    "spark-without-name": ("0.5", '<start to="a"/>' + action(
        '<spark xmlns="uri:oozie:spark-action:0.1"><job-tracker>jt</job-tracker><name-node>nn</name-node>'
        "<master>m</master><jar>j</jar></spark>") + TAIL),
    "spark-without-jar": ("0.5", '<start to="a"/>' + action(
        '<spark xmlns="uri:oozie:spark-action:0.2"><master>m</master><name>n</name></spark>') + TAIL),
    "spark-name-before-master": ("0.5", '<start to="a"/>' + action(
        '<spark xmlns="uri:oozie:spark-action:0.2"><name>n</name><master>m</master><jar>j</jar></spark>') + TAIL),
    "spark-with-two-name-nodes": ("0.5", '<start to="a"/>' + action(
        '<spark xmlns="uri:oozie:spark-action:0.2"><name-node>a</name-node><name-node>b</name-node>'
        "<master>m</master><name>n</name><jar>j</jar></spark>") + TAIL),
    "distcp-with-two-job-trackers": ("0.5", '<start to="a"/>' + action(
        '<distcp xmlns="uri:oozie:distcp-action:0.2"><job-tracker>a</job-tracker><job-tracker>b</job-tracker>'
        "</distcp>") + TAIL),
    "sqoop-without-command-or-arg": ("0.5", '<start to="a"/>' + action(
        '<sqoop xmlns="uri:oozie:sqoop-action:0.4"><job-tracker>jt</job-tracker></sqoop>') + TAIL),
    "ssh-without-host": ("0.5", '<start to="a"/>' + action(
        '<ssh xmlns="uri:oozie:ssh-action:0.2"><command>ls</command></ssh>') + TAIL),
    "map-reduce-with-two-name-nodes": ("0.2", '<start to="a"/>' + action(
        "<map-reduce><job-tracker>a</job-tracker><name-node>b</name-node><name-node>c</name-node></map-reduce>")
        + TAIL),
    "pig-without-script": ("0.5", '<start to="a"/>' + action("<pig><job-tracker>jt</job-tracker></pig>") + TAIL),
    "java-without-main-class": ("0.4", '<start to="a"/>' + action("<java><job-tracker>jt</job-tracker></java>")
                                + TAIL),
    "sub-workflow-without-app-path": ("0.5", '<start to="a"/>' + action("<sub-workflow/>") + TAIL),
    "fs-name-node-after-an-operation": ("0.5", '<start to="a"/>' + action(
        '<fs><mkdir path="/x"/><name-node>nn</name-node></fs>') + TAIL),
}


@pytest.mark.parametrize("version,body", list(REFUSED.values()), ids=list(REFUSED))
def test_what_oozies_schemas_refuse_is_refused(version: str, body: str) -> None:
    etree.fromstring(workflow(body, version))  # well-formed: the schema, not the XML parser, refuses it

    assert schema_errors(workflow(body, version))
