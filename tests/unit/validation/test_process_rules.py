"""Process rules (P2-P20 that need no outside world, FA002, FA006): broken processes report the rule.

The base process mirrors ``process-0.1.xml`` of Falcon's ProcessEntityParserTest (validity from 2011-11-02, input
``impression`` = today(0,0)..today(2,0) of impressionFeed with retention hours(48), feeds valid 2011-11-01 to
2011-12-31), so that the test's data points (falcon-validation.md §3.3) can be replayed as they were.
"""

from __future__ import annotations

from datetime import timedelta

import pytest

from falcon_airflow.issues import Level

VALIDITY = '<validity start="2011-11-02T00:00Z" end="2091-12-30T00:00Z"/>'
IMPRESSION = '<input name="impression" feed="impressionFeed" start="today(0,0)" end="today(2,0)" partition="*/US"/>'
CLICKS = '<input name="clicks" feed="clicksFeed" start="yesterday(0,0)" end="yesterday(20,0)"/>'
ROWS = '<input name="clickRows" feed="clicksTable"'
IMP_OUTPUT = '<output name="impOutput" feed="imp-click-join1" instance="today(0,0)"/>'
SLA = '<sla shouldStartIn="hours(2)" shouldEndIn="hours(4)"/>'
FREQUENCY = "<frequency>hours(1)</frequency>"
WORKFLOW = '<workflow engine="spark"'
MASTER = "<master>yarn-cluster</master>"
JAR = "<jar>/apps/sample/lib/join.jar</jar>"
SPARK_ATTRIBUTES = """\
    <spark-attributes>
        <master>yarn-cluster</master>
        <name>sample</name>
        <class>org.example.Join</class>
        <jar>/apps/sample/lib/join.jar</jar>
        <spark-opts>--num-executors 2</spark-opts>
        <arg>--verbose</arg>
    </spark-attributes>
"""


IMP_LINE = '<input name="impression"'
# an Oozie process re-runs its own workflow on late data: late-inputs naming it keep it clean of FA070
LATE_PATHS = """<late-input input="impression" workflow-path="/apps/sample/late"/>
        <late-input input="clicks" workflow-path="/apps/sample/late"/>"""
OOZIE_LATE_PATHS = LATE_PATHS.replace("/apps/sample/late", "/apps/sample/workflow")


def impression(start: str = "today(0,0)", end: str = "today(2,0)", partition: str = "*/US") -> str:
    return f'<input name="impression" feed="impressionFeed" start="{start}" end="{end}" partition="{partition}"/>'


def starting(start: str) -> tuple[str, str, str]:
    """The edit moving the process validity start."""
    return ("sample", VALIDITY, f'<validity start="{start}" end="2091-12-30T00:00Z"/>')


# -- ProcessEntityParserTest data points (falcon-validation.md §3.3) ----------------------------------------------

FALCON_FAILING = [
    pytest.param("P11", [("sample", IMPRESSION, impression(start="lastMonth(0,0,0)"))], IMP_LINE,
                 "start 'lastMonth(0,0,0)' of input 'impression' is 2011-10-01T00:00Z at the process start, before "
                 "feed 'impressionFeed' starts on cluster 'primary' (2011-11-01T00:00Z)", ("P10",),
                 id="testELExpressions-start-lastMonth"),
    pytest.param("P11", [("sample", IMPRESSION, impression(end="lastMonth(0,0,0)"))], IMP_LINE,
                 "end 'lastMonth(0,0,0)' of input 'impression' (2011-10-01T00:00Z) is before its start 'today(0,0)'",
                 (), id="testELExpressions-end-lastMonth"),
    pytest.param("P11", [("sample", IMPRESSION, impression(start="today(2,0)", end="today(0,0)"))], IMP_LINE,
                 "end 'today(0,0)' of input 'impression' (2011-11-02T00:00Z) is before its start 'today(2,0)'", (),
                 id="testELExpressions-end-before-start"),
    # today(-48,0) reaches back beyond hours(48) now; at the process start it is also before the feed starts.
    pytest.param("P10", [("sample", IMPRESSION, impression(start="today(-48,0)"))], IMP_LINE,
                 "start 'today(-48,0)' of input 'impression' reaches back further than the retention limit hours(48) "
                 "of feed 'impressionFeed' on cluster 'primary'", ("P11",),
                 id="testInvalidDependentFeedsRetentionLimit"),
    pytest.param("P11", [starting("2011-10-31T00:00Z")], IMP_LINE,
                 "start 'today(0,0)' of input 'impression' is 2011-10-31T00:00Z at the process start, before feed "
                 "'impressionFeed' starts", ("P15",), id="testInstanceStartTimeBeforeFeedStartTimeForInput"),
    pytest.param("P11", [starting("2011-12-31T00:00Z")], IMP_LINE,
                 "end 'today(2,0)' of input 'impression' is 2011-12-31T02:00Z at the process start, after feed "
                 "'impressionFeed' ends on cluster 'primary' (2011-12-31T00:00Z)", (),
                 id="testInstanceEndTimeAfterFeedEndTimeForInput"),
    pytest.param("P15", [("sample", IMP_OUTPUT, IMP_OUTPUT.replace("today(0,0)", "yesterday(-60,0)"))], "impOutput",
                 "instance 'yesterday(-60,0)' of output 'impOutput' is 2011-10-29T12:00Z at the process start, before "
                 "feed 'imp-click-join1' starts on cluster 'primary'", (),
                 id="testInstanceTimeBeforeFeedStartTimeForOutput"),
    pytest.param("P15", [starting("2011-12-30T00:00Z"),
                         ("sample", IMP_OUTPUT, IMP_OUTPUT.replace("today(0,0)", "today(120,0)"))], "impOutput",
                 "instance 'today(120,0)' of output 'impOutput' is 2012-01-04T00:00Z at the process start, after feed "
                 "'imp-click-join1' ends on cluster 'primary'", (), id="testInstanceTimeAfterFeedEndTimeForOutput"),
    pytest.param("P5", [("sample", VALIDITY, '<validity start="2011-11-02T00:00Z" end="2010-12-31T00:00Z"/>')],
                 "<validity", "validity of process 'sample' on cluster 'primary' starts at 2011-11-02T00:00Z, which is "
                 "not before its end 2010-12-31T00:00Z", (), id="testEndTimeProcessBeforeStartTime"),
    pytest.param("P2", [("sample", "</cluster>", f'</cluster>\n        <cluster name="primary">{VALIDITY}</cluster>')],
                 ('<cluster name="primary"', 2), "cluster 'primary' is listed more than once in process 'sample'", (),
                 id="testDuplicateClusterName"),
    pytest.param("P16", [("sample", IMPRESSION, IMPRESSION.replace('name="impression"', 'name="duplicateName"')),
                         ("sample", IMP_OUTPUT, IMP_OUTPUT.replace('name="impOutput"', 'name="duplicateName"')),
                         ("sample", 'input="impression"', 'input="duplicateName"')],
                 '<output name="duplicateName"', "output name 'duplicateName' is already used in process 'sample'",
                 (), id="testDuplicateInputOutputNames"),
    pytest.param("P17", [("sample", 'input="impression"', 'input="invalidInput"')], "invalidInput",
                 "late-input 'invalidInput' of process 'sample' is not one of its inputs", (),
                 id="testInvalidLateInputs"),
    pytest.param("P18", [("sample", SLA, '<sla shouldStartIn="hours(4)" shouldEndIn="hours(2)"/>')], "<sla ",
                 "shouldStartIn hours(4) of process 'sample' is longer than shouldEndIn hours(2)", (),
                 id="testInvalidShouldStart"),
    pytest.param("P18", [("sample", FREQUENCY, f"<timeout>hours(1)</timeout>\n    {FREQUENCY}")], "<sla ",
                 "shouldStartIn hours(2) of process 'sample' is longer than the timeout hours(1)", (),
                 id="testShouldStartGreaterThanTimeout"),
]


@pytest.mark.parametrize(("rule", "edits", "marker", "fragment", "also"), FALCON_FAILING)
def test_falcon_parser_test_data_points_fail(ws, rule, edits, marker, fragment, also):
    report = ws.apply(edits).validate()
    ws.assert_reported(report, rule, "sample", marker, fragment, also=also)
    assert not report.valid


FALCON_PASSING = [
    pytest.param([("sample", IMPRESSION, impression(start="future(1,2)"))], id="testOozieFutureExpression"),
    pytest.param([("sample", IMPRESSION, impression(start="latest(-1)"))], id="testOozieLatestExpression"),
    # The XSD requires validity@end; Falcon filled a missing end with "NEVER", the far future.
    pytest.param([("sample", VALIDITY, '<validity start="2011-11-02T00:00Z" end="2999-12-31T00:00Z"/>')],
                 id="testProcessEndTimeOptional-far-future-end"),
    pytest.param([("sample", '<retry policy="periodic"', '<retry onTimeout="true" policy="periodic"')],
                 id="testRetryTimeout"),
]


@pytest.mark.parametrize("edits", FALCON_PASSING)
def test_falcon_parser_test_data_points_pass(ws, edits):
    ws.assert_clean(ws.apply(edits).validate())


@pytest.mark.parametrize("edits", [
    pytest.param([("sample", 'attempts="3"', 'attempts="-1"')], id="testInvalidRetryAttempt"),
    pytest.param([("sample", 'delay="minutes(10)"', 'delay="hours(0)"')], id="testInvalidRetryDelay"),
    pytest.param([("sample", 'name="sample"', 'name="name_with_underscore"')], id="testInvalidProcessName"),
    pytest.param([("sample", 'end="2091-12-30T00:00Z"', "")], id="missing-validity-end"),
])
def test_falcon_schema_data_points_are_schema_errors(ws, edits):
    """What Falcon's XSD refused never reaches the P-rules: the file gets an XSD issue and nothing else."""
    report = ws.apply(edits).validate()
    assert ws.rules(report) == {"XSD"}, ws.describe(report)
    assert {issue.file for issue in report.issues} == {ws.path("sample")}


# -- every other way to break a process ---------------------------------------------------------------------------

FAILING = [
    pytest.param("P2", [("sample", "</cluster>", f'</cluster>\n        <cluster name="primary">{VALIDITY}</cluster>')],
                 ('<cluster name="primary"', 2), "listed more than once in process 'sample'", (), id="P2-twice"),
    # An undefined cluster also has none of the feeds (P9), as Falcon would have said after registering it.
    pytest.param("P3", [("sample", '<cluster name="primary">', '<cluster name="nowhere">')], '<cluster name="nowhere"',
                 "process 'sample' refers to cluster 'nowhere', which is not defined", ("P9",), id="P3-undefined"),
    pytest.param("P4", [("sample", '<cluster name="primary">', '<cluster name="primary" version="1">')],
                 '<cluster name="primary"', "process 'sample' asks for version 1 of cluster 'primary', which is at "
                 "version 0", (), id="P4-version-ahead"),
    pytest.param("P5", [("sample", VALIDITY, '<validity start="2011-11-02T00:00Z" end="2011-11-02T00:00Z"/>')],
                 "<validity", "validity of process 'sample' on cluster 'primary' starts at 2011-11-02T00:00Z, which is "
                 "not before its end 2011-11-02T00:00Z", (), id="P5-start-equals-end"),
    pytest.param("P7", [("sample", '<property name="name2" value="value2"/>', '<property name="name1" value="v"/>')],
                 ('name="name1"', 2), "property 'name1' is defined more than once in process 'sample'", (),
                 id="P7-duplicate-name"),
    pytest.param("P7", [("sample", '<property name="name2" value="value2"/>', '<property name="  " value="v"/>')],
                 'name="  "', "property name must not be blank in process 'sample'", (), id="P7-blank-name"),
    pytest.param("P8", [("sample", IMP_OUTPUT, IMP_OUTPUT.replace("imp-click-join1", "nosuchFeed"))], "impOutput",
                 "output 'impOutput' of process 'sample' refers to feed 'nosuchFeed', which is not defined", (),
                 id="P8-undefined-output-feed"),
    pytest.param("P8", [("sample", CLICKS, CLICKS.replace("clicksFeed", "nosuchFeed"))], '<input name="clicks"',
                 "input 'clicks' of process 'sample' refers to feed 'nosuchFeed'", (), id="P8-undefined-input-feed"),
    pytest.param("P9", [("impressions", '<cluster name="primary" type="source">',
                         '<cluster name="backup" type="source">')], IMP_LINE,
                 "feed 'impressionFeed' (used by 'impression') is not defined on cluster 'primary', where process "
                 "'sample' runs", (), id="P9-feed-on-another-cluster"),
    pytest.param("P10", [("impressions", '<retention limit="hours(48)"', '<retention limit="hours(10)"')],
                 IMP_LINE, "start 'today(0,0)' of input 'impression' reaches back further than the retention "
                 "limit hours(10) of feed 'impressionFeed' on cluster 'primary': evaluated now it is "
                 "2026-03-01T00:00Z", (), id="P10-retention-shorter-than-the-input-window"),
    pytest.param("P12", [("sample", IMPRESSION, impression(partition="*/US/web"))], IMP_LINE,
                 "partition '*/US/web' of input 'impression' has 3 part(s) but feed 'impressionFeed' defines 2", (),
                 id="P12-too-many-parts"),
    pytest.param("P12", [("impressions", '<partition name="fraud"/>', ""),
                         ("impressions", '<partition name="good"/>', "")], IMP_LINE,
                 "partition '*/US' of input 'impression' has 2 part(s) but feed 'impressionFeed' defines 0", (),
                 id="P12-feed-without-partitions"),
    pytest.param("P13", [("sample", ROWS, ROWS + ' partition="region=usa"')], "clickRows",
                 "input 'clickRows' reads a catalog table feed, so it cannot select partition 'region=usa'", (),
                 id="P13-testValidateInputPartitionForTable"),
    pytest.param("P14", [("sample", ROWS, ROWS + ' optional="true"')], "clickRows",
                 "input 'clickRows' reads a catalog table feed and cannot be optional", (),
                 id="P14-testProcessForTableStorage-optional"),
    pytest.param("P16", [("sample", IMP_OUTPUT, IMP_OUTPUT.replace('name="impOutput"', 'name="clicks"'))],
                 '<output name="clicks"', "output name 'clicks' is already used in process 'sample'", (),
                 id="P16-output-named-like-an-input"),
    pytest.param("P17", [("clicks", '<late-arrival cut-off="hours(3)"/>', "")], 'input="clicks"',
                 "late-input 'clicks' reads feed 'clicksFeed', which has no late-arrival cut-off", (),
                 id="P17-feed-without-late-arrival"),
    pytest.param("P18", [("sample", VALIDITY, VALIDITY + '<sla shouldStartIn="hours(3)" shouldEndIn="hours(1)"/>')],
                 'shouldStartIn="hours(3)"', "shouldStartIn hours(3) of process 'sample' on cluster 'primary' is "
                 "longer than shouldEndIn hours(1)", (), id="P18-cluster-sla"),
    pytest.param("FA002", [("sample", WORKFLOW, '<workflow engine="pig"')], "<workflow",
                 "workflow engine 'pig' of process 'sample' cannot run on falcon-airflow", (), id="FA002-pig"),
    pytest.param("P20", [("sample", SPARK_ATTRIBUTES, "")], "<workflow",
                 "process 'sample' uses the spark engine, so it needs <spark-attributes>", (),
                 id="P20-no-spark-attributes"),
    pytest.param("P20", [("sample", JAR, "<jar> </jar>")], "<spark-attributes>",
                 "<spark-attributes> of process 'sample' name no application: <jar> is empty", (), id="P20-empty-jar"),
    pytest.param("P20", [("sample", MASTER, "<master>mesos://master.example:5050</master>")], "<spark-attributes>",
                 "Spark master 'mesos://master.example:5050' of process 'sample' is not one falcon-airflow can submit "
                 "to", (), id="P20-unsupported-master"),
    pytest.param("FA006", [("sample", IMPRESSION, impression(start="today(0"))], IMP_LINE,
                 "start of input 'impression': expected ')'", (), id="FA006-syntax"),
    pytest.param("FA006", [("sample", IMP_OUTPUT, IMP_OUTPUT.replace("today(0,0)", "bogus(1)"))], "impOutput",
                 "instance of output 'impOutput': unknown function 'bogus'", (), id="FA006-unknown-function"),
]


@pytest.mark.parametrize(("rule", "edits", "marker", "fragment", "also"), FAILING)
def test_broken_process_reports_the_rule(ws, rule, edits, marker, fragment, also):
    report = ws.apply(edits).validate()
    ws.assert_reported(report, rule, "sample", marker, fragment, also=also)
    assert not report.valid


def test_spark_without_any_master_is_a_warning(ws):
    """No master in the process and no spark interface on the cluster: falcon-airflow runs it on local[*]."""
    ws.edit("sample", MASTER, "").edit("primary", '<interface type="spark" endpoint="yarn-cluster" version="2.0.0"/>',
                                       "")
    report = ws.validate()
    issue = ws.assert_reported(report, "P20", "sample", "<spark-attributes>", "process 'sample' names no Spark "
                               "master and cluster 'primary' has no spark interface", level=Level.WARNING)
    assert report.valid
    # The cluster's execute interface is a YARN ResourceManager: that is where the job goes, as Falcon's did.
    assert issue.message.endswith("submits it to YARN (the execute interface rm.east.example:8050; the "
                                  "ResourceManager's settings come from HADOOP_CONF_DIR)")
    ws.edit("primary", '<interface type="execute" endpoint="rm.east.example:8050" version="2.2.0"/>', "")
    issue = ws.assert_reported(ws.validate(), "P20", "sample", "<spark-attributes>", "no spark interface",
                               level=Level.WARNING, also=ws.rules(ws.validate()) - {"P20"})
    assert issue.message.endswith("falcon-airflow runs it on local[*]")


def test_p10_depends_on_now(ws):
    """Q2: the same process passes P10 while its input window is within retention, and fails once "now" moves on."""
    ws.edit("impressions", '<retention limit="hours(48)"', '<retention limit="hours(10)"')
    early = ws.now.replace(hour=9)  # today(0,0) is 9 hours back: inside hours(10)
    ws.assert_clean(ws.validate(now=early))
    assert "P10" in ws.rules(ws.validate(now=early + timedelta(hours=2)))


PASSING = [
    pytest.param("P4", [("primary", 'description="main cluster"', 'description="main cluster" version="1"'),
                        ("sample", '<cluster name="primary">', '<cluster name="primary" version="1">')],
                 id="P4-version-equal"),
    pytest.param("P7", [("sample", '<property name="name2" value="value2"/>', '<property name="name2" value=""/>')],
                 id="P7-empty-value"),
    # retention hours(36) reaches exactly back to yesterday(0,0) at now (2026-02-28T00:00Z): not beyond it.
    pytest.param("P10", [("clicks", '<retention limit="days(2)"', '<retention limit="hours(36)"')],
                 id="P10-start-exactly-at-the-retention-limit"),
    # yesterday(0,0) at the process start is the feed's first instant (2011-11-01T00:00Z).
    pytest.param("P11", [("sample", CLICKS, CLICKS.replace('end="yesterday(20,0)"', 'end="yesterday(0,0)"'))],
                 id="P11-start-and-end-at-the-feed-start"),
    pytest.param("P12", [("sample", IMPRESSION, impression(partition="*/US/"))], id="P12-trailing-slash-not-a-part"),
    pytest.param("P14", [("sample", CLICKS, CLICKS.replace("/>", ' optional="true"/>'))],
                 id="P14-optional-file-input"),
    pytest.param("P15", [starting("2011-12-31T00:00Z"), ("sample", IMPRESSION, impression(end="today(0,0)"))],
                 id="P15-output-at-the-feed-end"),
    pytest.param("P18", [("sample", SLA, '<sla shouldStartIn="hours(2)" shouldEndIn="hours(2)"/>'),
                         ("sample", FREQUENCY, f"<timeout>hours(2)</timeout>\n    {FREQUENCY}")],
                 id="P18-start-equals-end-equals-timeout"),
    pytest.param("P18", [("sample", SLA, '<sla shouldEndIn="minutes(5)"/>'),
                         ("sample", FREQUENCY, f"<timeout>minutes(1)</timeout>\n    {FREQUENCY}")],
                 id="P18-no-should-start"),
    pytest.param("FA002", [("sample", WORKFLOW, '<workflow engine="hive"'), ("sample", SPARK_ATTRIBUTES, "")],
                 id="FA002-hive"),
    pytest.param("FA002", [("sample", WORKFLOW, '<workflow engine="oozie"'), ("sample", SPARK_ATTRIBUTES, ""),
                           ("sample", LATE_PATHS, OOZIE_LATE_PATHS)], id="FA002-oozie"),
    pytest.param("FA002", [("sample", WORKFLOW, "<workflow"), ("sample", SPARK_ATTRIBUTES, ""),
                           ("sample", LATE_PATHS, OOZIE_LATE_PATHS)], id="FA002-default-engine-is-oozie"),
    pytest.param("P20", [("sample", MASTER, "")], id="P20-master-from-the-cluster"),
    pytest.param("P20", [("sample", MASTER, "<master>local[4]</master>")], id="P20-local-master"),
]


@pytest.mark.parametrize(("rule", "edits"), PASSING)
def test_near_miss_process_is_clean(ws, rule, edits):
    report = ws.apply(edits).validate()
    assert rule not in ws.rules(report)
    ws.assert_clean(report)
