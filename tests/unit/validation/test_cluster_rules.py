"""Cluster rules (C1, C9, C12, C14, C15): each fires on a broken cluster and stays silent on its near miss."""

from __future__ import annotations

import pytest

WRITE = 'endpoint="hdfs://nn.east.example:8020"'
READONLY = 'endpoint="hftp://nn.east.example:50070"'
WORKFLOW = 'endpoint="http://oozie.east.example:11000/oozie/"'
MESSAGING = 'endpoint="tcp://mq.east.example:61616?daemon=true"'
REGISTRY = 'endpoint="thrift://hive.east.example:9083"'
SPARK = 'endpoint="yarn-cluster"'
STAGING = '<location name="staging" path="/projects/falcon/staging"/>'
WORKING = '<location name="working" path="/projects/falcon/working"/>'
PROPERTY = '<property name="region" value="us-east"/>'
ROOT = '<cluster name="primary"'

FAILING = [
    pytest.param("C1", [("primary", WRITE, 'endpoint="nn.east.example/8020"')], 'type="write"',
                 "write interface endpoint 'nn.east.example/8020' of cluster 'primary'", id="C1-write-no-scheme"),
    # ClusterEntityValidationIT: an empty readonly endpoint must fail.
    pytest.param("C1", [("primary", READONLY, 'endpoint=""')], 'type="readonly"',
                 "readonly interface endpoint '' of cluster 'primary'", id="C1-readonly-empty"),
    pytest.param("C1", [("primary", WORKFLOW, 'endpoint="//oozie.east.example:11000/oozie/"')], 'type="workflow"',
                 "workflow interface endpoint '//oozie.east.example:11000/oozie/' of cluster 'primary'",
                 id="C1-workflow-no-scheme"),
    pytest.param("C1", [("primary", MESSAGING, 'endpoint="mq.east.example"')], 'type="messaging"',
                 "messaging interface endpoint 'mq.east.example' of cluster 'primary'", id="C1-messaging-no-scheme"),
    pytest.param("C1", [("primary", REGISTRY, 'endpoint="thrift://hive east:9083"')], 'type="registry"',
                 "registry interface endpoint 'thrift://hive east:9083' of cluster 'primary'",
                 id="C1-registry-not-a-uri"),
    pytest.param("C1", [("primary", f'<interface type="readonly" {READONLY} version="2.2.0"/>', "")], ROOT,
                 "cluster 'primary' has no readonly interface", id="C1-readonly-missing"),
    pytest.param("C9", [("primary", STAGING, "")], ROOT,
                 "cluster 'primary' has no location named staging", id="C9-no-staging"),
    pytest.param("C9", [("backup", STAGING, '<location name="temp" path="/tmp"/>')], '<cluster name="backup"',
                 "cluster 'backup' has no location named staging", id="C9-only-temp"),
    pytest.param("C12", [("primary", WORKING, '<location name="working" path="/projects/falcon/staging"/>')],
                 'name="working"', "of cluster 'primary' have the same path '/projects/falcon/staging'",
                 id="C12-same-path"),
    pytest.param("C12", [("primary", WORKING, '<location name="working" path="/projects/falcon/staging/"/>')],
                 'name="working"', "of cluster 'primary' have the same path", id="C12-same-path-trailing-slash"),
    pytest.param("C14", [("primary", PROPERTY, PROPERTY + '\n        <property name="region" value="us-west"/>')],
                 ('name="region"', 2), "property 'region' is defined more than once in cluster 'primary'",
                 id="C14-duplicate-name"),
    pytest.param("C14", [("primary", PROPERTY, '<property name=" " value="x"/>')], 'name=" "',
                 "property name must not be blank in cluster 'primary'", id="C14-blank-name"),
    pytest.param("C15", [("primary", SPARK, 'endpoint="mesos://master.example:5050"')], 'type="spark"',
                 "spark interface endpoint 'mesos://master.example:5050' of cluster 'primary'", id="C15-mesos"),
    pytest.param("C15", [("primary", SPARK, 'endpoint="yarn-cluster-mode"')], 'type="spark"',
                 "spark interface endpoint 'yarn-cluster-mode' of cluster 'primary'", id="C15-unknown"),
]


@pytest.mark.parametrize(("rule", "edits", "marker", "fragment"), FAILING)
def test_broken_cluster_reports_the_rule(ws, rule, edits, marker, fragment):
    report = ws.apply(edits).validate()
    key = edits[0][0]
    ws.assert_reported(report, rule, key, marker, fragment)
    assert not report.valid


PASSING = [
    pytest.param("C1", [("primary", WORKFLOW, 'endpoint="localoozie"')], id="C1-localoozie"),
    pytest.param("C1", [("primary", WRITE, 'endpoint="file:///data/falcon"')], id="C1-file-uri"),
    # Java's URI reads "localhost:41119" as scheme "localhost"; ClusterEntityValidationIT failed it only when the
    # server tried to reach it (C4 with --check-environment, see test_environment_rules).
    pytest.param("C1", [("primary", READONLY, 'endpoint="localhost:41119"')], id="C1-host-port-parses-as-scheme"),
    pytest.param("C1", [("primary", 'endpoint="rm.east.example:8050"', 'endpoint="rm.east.example 8050"')],
                 id="C1-execute-is-not-a-uri-check"),
    pytest.param("C9", [("primary", WORKING, ""), ("primary", '<location name="temp" path="/tmp"/>', "")],
                 id="C9-staging-alone"),
    pytest.param("C12", [("primary", WORKING, '<location name="working" path="/projects/falcon/staging/working"/>')],
                 id="C12-working-inside-staging"),
    pytest.param("C14", [("primary", PROPERTY, '<property name="region" value=""/>')], id="C14-empty-value"),
    pytest.param("C14", [("primary", PROPERTY, PROPERTY + '\n        <property name="Region" value="x"/>')],
                 id="C14-names-are-case-sensitive"),
    pytest.param("C15", [("primary", SPARK, 'endpoint="LOCAL"')], id="C15-case-insensitive"),
    pytest.param("C15", [("primary", SPARK, 'endpoint="yarn-client"')], id="C15-yarn-client"),
    pytest.param("C15", [("primary", SPARK, 'endpoint="local[*]"')], id="C15-local-star"),
    pytest.param("C15", [("primary", SPARK, 'endpoint="spark://master.example:7077"')], id="C15-standalone"),
    pytest.param("C15", [("primary", f'<interface type="spark" {SPARK} version="2.0.0"/>', "")],
                 id="C15-no-spark-interface"),
]


@pytest.mark.parametrize(("rule", "edits"), PASSING)
def test_near_miss_cluster_is_clean(ws, rule, edits):
    report = ws.apply(edits).validate()
    assert rule not in ws.rules(report)
    ws.assert_clean(report)
