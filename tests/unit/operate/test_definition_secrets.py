"""``entity -definition`` shows a stored definition to whoever may read it, with every secret it holds masked; the
stored file keeps them (the runs need them)."""

from __future__ import annotations

import pytest
from tests.builders import cluster, ops_process

from falcon_airflow.core.secrets import MASK
from falcon_airflow.parsing.redaction import redact_definition, redact_properties_file

from .helpers import Kit

SECRET = "Pa55word-4711"

DATASOURCE = """<datasource name="shop" colo="local" type="postgres" xmlns="uri:falcon:datasource:0.1">
  <interfaces>
    <interface type="readonly" endpoint="{url}">
      <credential type="password-text"><userName>reader</userName><passwordText>{text}</passwordText></credential>
    </interface>
  </interfaces>
  <driver><clazz>org.postgresql.Driver</clazz><jar>/lib/driver.jar</jar></driver>
  <properties><property name="{name}" value="{value}"/></properties>
  <ACL owner="ana" group="users" permission="*"/>
</datasource>
"""
PLAIN_URL = "jdbc:postgresql://db.example:5432/shop"


def datasource(url: str = PLAIN_URL, text: str = "x", name: str = "fetchSize", value: str = "10") -> str:
    return DATASOURCE.format(url=url, text=text, name=name, value=value)


def secret_cluster(name: str, value: str) -> str:
    return cluster("east", "file:///tmp/falcon-airflow-unit/east").replace(
        "</locations>", f'</locations>\n  <properties><property name="{name}" value="{value}"/></properties>')


CASES = [
    pytest.param("datasources/shop.xml", "datasource", "shop", datasource(text=SECRET), id="password-text"),
    pytest.param("datasources/shop.xml", "datasource", "shop",
                 datasource(url=f"{PLAIN_URL}?user=reader&amp;password={SECRET}"), id="password-in-the-url"),
    pytest.param("datasources/shop.xml", "datasource", "shop",
                 datasource(url=f"jdbc:postgresql://reader:{SECRET}@db.example/shop"), id="user-info-in-the-url"),
    pytest.param("datasources/shop.xml", "datasource", "shop", datasource(name="sslpassword", value=SECRET),
                 id="datasource-property"),
    pytest.param("clusters/east.xml", "cluster", "east", secret_cluster("fs.s3a.secret.key", SECRET),
                 id="cluster-s3a-secret"),
    pytest.param("clusters/east.xml", "cluster", "east", secret_cluster("fs.s3a.session.token", SECRET),
                 id="cluster-session-token"),
    pytest.param("processes/count.xml", "process", "count", ops_process("count").replace(
        "<jar>apps/job.py</jar>",
        f"<jar>apps/job.py</jar><spark-opts>--num-executors 2 --conf spark.hadoop.fs.s3a.access.key={SECRET}"
        "</spark-opts>"), id="process-spark-opts"),
]


@pytest.mark.parametrize(("relative", "kind", "name", "xml"), CASES)
def test_the_definition_is_shown_without_its_secrets(pipeline: Kit, relative: str, kind: str, name: str,
                                                     xml: str) -> None:
    stored = pipeline.write(relative, xml)
    before = stored.read_bytes()
    code, out, err = pipeline.run("entity", "-definition", "-type", kind, "-name", name)
    assert code == 0, err
    assert SECRET not in out and MASK in out
    assert f'name="{name}"' in out  # the rest is shown as written
    code, document = pipeline.json("entity", "-definition", "-type", kind, "-name", name)
    assert SECRET not in str(document)
    assert stored.read_bytes() == before and SECRET.encode() in before


@pytest.mark.parametrize("relative", ["clusters/east.xml", "feeds/logs.xml", "processes/count.xml"])
def test_a_definition_without_secrets_is_shown_byte_for_byte(pipeline: Kit, relative: str) -> None:
    folder, file = relative.split("/")
    kind, name = {"clusters": "cluster", "feeds": "feed", "processes": "process"}[folder], file.removesuffix(".xml")
    code, out, _ = pipeline.run("entity", "-definition", "-type", kind, "-name", name)
    assert (code, out) == (0, (pipeline.root / relative).read_text(encoding="utf-8").rstrip("\n") + "\n")


@pytest.mark.parametrize("xml", [
    pytest.param(f"<datasource><passwordText>{SECRET}</passwordText>", id="not-well-formed"),
    pytest.param(f'<cluster><property name="fs.s3a.secret.key" value="{SECRET}"/>', id="property-not-closed"),
    pytest.param(f'<x endpoint="jdbc:mysql://db/shop?password={SECRET}"', id="url-in-broken-xml"),
])
def test_a_definition_the_parser_refuses_is_masked_as_text(xml: str) -> None:
    shown = redact_definition(xml.encode())
    assert SECRET not in shown and MASK in shown


@pytest.mark.parametrize(("text", "kept"), [
    pytest.param(f"jobName=mirror\ntargetPassword={SECRET}\n", "jobName=mirror", id="password"),
    pytest.param(f"sourceCluster: east\nsource.s3a.secret.key : {SECRET}\n", "sourceCluster: east", id="colon"),
])
def test_an_extension_job_is_shown_without_its_secrets(text: str, kept: str) -> None:
    shown = redact_properties_file(text)
    assert SECRET not in shown and kept in shown and MASK in shown
