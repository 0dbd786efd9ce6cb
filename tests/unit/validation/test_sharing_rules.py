"""Sharing rules: two writers of one feed instance (FA008), feeds sharing a folder (FA009), unsafe locations (FA010).

Each case breaks the valid base workspace in one place; the near misses (disjoint validity, sibling folders,
a deliberate case accepted with ``airflow.accept-rules``) stay clean.
"""

from __future__ import annotations

import pytest

from falcon_airflow.validation.sharing_rules import location_danger

JOIN1_DATA = '<location type="data" path="/data/join1/${YEAR}-${MONTH}-${DAY}/${HOUR}"/>'
JOIN2_DATA = '<location type="data" path="/data/join2/${YEAR}-${MONTH}-${DAY}/${HOUR}"/>'
CLICKS_DATA = '<location type="data" path="/data/clicks/${YEAR}/${MONTH}/${DAY}/${HOUR}"/>'
IMPRESSIONS_DATA = '<location type="data" path="/data/impressions/${YEAR}/${MONTH}/${DAY}/${HOUR}"/>'
SAMPLE_JOIN2_OUTPUT = '<output name="clicksOutput" feed="imp-click-join2" instance="today(0,0)"/>'
SAMPLE_PROPERTIES = '<property name="name1" value="value1"/>'


def second_writer(name: str, validity: str = 'start="2011-11-05T00:00Z" end="2011-11-20T00:00Z"',
                  instance: str = "today(0,0)", properties: str = "") -> str:
    """A small process on the primary cluster that writes imp-click-join1."""
    return f"""\
<process name="{name}" xmlns="uri:falcon:process:0.1">
    <clusters>
        <cluster name="primary">
            <validity {validity}/>
        </cluster>
    </clusters>
    <parallel>1</parallel>
    <order>FIFO</order>
    <frequency>days(1)</frequency>
    <outputs>
        <output name="joined" feed="imp-click-join1" instance="{instance}"/>
    </outputs>
    {properties}
    <workflow engine="spark" path="/apps/{name}"/>
    <spark-attributes>
        <master>local</master>
        <name>{name}</name>
        <jar>/apps/{name}/job.py</jar>
    </spark-attributes>
</process>
"""


def test_two_processes_writing_one_feed_instance_are_both_reported(ws):
    report = ws.put("rewrite", second_writer("rewrite")).validate()
    assert ws.rules(report) == {"FA008"}, ws.describe(report)
    by_entity = {issue.entity: issue for issue in report.issues}
    assert set(by_entity) == {"sample", "rewrite"}
    assert by_entity["sample"].line == ws.line("sample", 'name="impOutput"')
    assert "process 'rewrite' (output 'joined')" in by_entity["sample"].message
    assert "feed 'imp-click-join1' on cluster 'primary'" in by_entity["sample"].message
    assert "airflow.accept-rules=FA008" in by_entity["rewrite"].message
    assert not report.valid


def test_one_process_writing_one_feed_through_two_outputs_is_reported(ws):
    report = ws.edit("sample", SAMPLE_JOIN2_OUTPUT,
                     '<output name="clicksOutput" feed="imp-click-join1" instance="yesterday(0,0)"/>').validate()
    issue = ws.assert_reported(report, "FA008", "sample", 'name="clicksOutput"', "that its output 'impOutput'")
    assert "2011-11-01T00:00Z" in issue.message


def test_writers_with_disjoint_instances_are_clean(ws):
    # sample writes from 2011-11-02; this one only the day before.
    validity = 'start="2011-11-01T00:00Z" end="2011-11-02T00:00Z"'
    report = ws.put("before", second_writer("before", validity)).validate()
    ws.assert_clean(report)


def test_a_deliberate_second_writer_is_accepted_when_every_writer_says_so(ws):
    accept = '<properties><property name="airflow.accept-rules" value="FA008"/></properties>'
    ws.put("rewrite", second_writer("rewrite", properties=accept))
    report = ws.validate()
    assert {issue.entity for issue in report.issues} == {"sample"}, "only the writer that did not accept it"
    both = '<property name="airflow.accept-rules" value="FA009, FA008"/>'
    ws.edit("sample", SAMPLE_PROPERTIES, SAMPLE_PROPERTIES + both)
    ws.assert_clean(ws.validate())


# F27 also fires where join2 stops using join1's path variables (they share feed groups).
@pytest.mark.parametrize(("path", "relation", "also"), [
    ("/data/join1", "a location that contains that of", ("F27",)),
    ("/data/join1/${YEAR}-${MONTH}-${DAY}/${HOUR}/part", "a location inside that of", ()),
    ("/data/join1/2011-11-02/${HOUR}", "the same location as", ("F27",)),  # one of its instances
])
def test_feeds_sharing_a_folder_are_reported(ws, path, relation, also):
    report = ws.edit("join2", JOIN2_DATA, f'<location type="data" path="{path}"/>').validate()
    ws.assert_reported(report, "FA009", "join2", 'type="data"', f"has {relation} feed 'imp-click-join1'",
                       also=also)
    assert {issue.entity for issue in report.issues} == {"imp-click-join1", "imp-click-join2"}


@pytest.mark.parametrize("path", [
    "/data/join1x/${YEAR}-${MONTH}-${DAY}/${HOUR}",  # a sibling whose name starts the same
    "/data/${YEAR}-${MONTH}-${DAY}/join1/${HOUR}",  # a dated folder cannot be named 'join1'
    "/data/join1-${YEAR}-${MONTH}-${DAY}/${HOUR}",
    "hdfs://nn.west.example:8020/data/join1/${YEAR}-${MONTH}-${DAY}/${HOUR}",  # another file system
])
def test_feeds_in_folders_of_their_own_are_clean(ws, path):
    ws.assert_clean(ws.edit("join2", JOIN2_DATA, f'<location type="data" path="{path}"/>').validate())


def test_one_location_kept_differently_by_two_feeds_is_reported(ws):
    ws.edit("join2", JOIN2_DATA, JOIN1_DATA)
    ws.assert_clean(ws.validate())  # kept alike (frequency, zone, retention): two names for the same data
    report = ws.edit("join2", '<retention limit="days(7)"', '<retention limit="days(2)"').validate()
    ws.assert_reported(report, "FA009", "join2", 'type="data"', "has the same location as feed 'imp-click-join1'")
    assert {issue.entity for issue in report.issues} == {"imp-click-join1", "imp-click-join2"}


def test_a_full_uri_on_the_clusters_own_storage_is_compared_with_plain_paths(ws):
    uri = "hdfs://nn.east.example:8020/data/join1/${YEAR}-${MONTH}-${DAY}/${HOUR}/part"
    report = ws.edit("join2", JOIN2_DATA, f'<location type="data" path="{uri}"/>').validate()
    ws.assert_reported(report, "FA009", "join2", 'type="data"', "a location inside that of feed 'imp-click-join1'")


# Every location type is evicted by retention when it is dated: all of them are compared, with every other feed's.
@pytest.mark.parametrize(("kind", "path", "relation"), [
    ("stats", "/data/join1/${YEAR}-${MONTH}-${DAY}/${HOUR}/stats", "a location inside that of"),
    ("meta", "/data/join1", "a location that contains that of"),
    ("tmp", "/data/join1/${YEAR}-${MONTH}-${DAY}/${HOUR}", "the same location as"),
    ("stats", "/data/join1/2011-11-02/${HOUR}", "the same location as"),
])
def test_every_location_type_is_compared_with_every_other_feeds(ws, kind, path, relation):
    marker = f'<location type="{kind}" path="{path}"/>'
    ws.edit("join2", '<retention limit="days(7)"', '<retention limit="days(2)"')  # not two names for one data
    report = ws.edit("join2", JOIN2_DATA, f"{JOIN2_DATA}\n        {marker}").validate()
    ws.assert_reported(report, "FA009", "join2", f'type="{kind}"', f"has {relation} feed 'imp-click-join1'")
    assert f"{kind} location '{path}'" in _issue_at(ws, report, "join2", f'type="{kind}"').message


def test_a_dated_location_inside_another_feeds_stats_folder_is_reported(ws):
    report = ws.edit("join2", JOIN2_DATA,
                     '<location type="data" path="/stats/impressions/${YEAR}-${MONTH}-${DAY}/${HOUR}"/>').validate()
    ws.assert_reported(report, "FA009", "join2", 'type="data"', "a location inside that of feed 'impressionFeed'")
    ws.assert_reported(report, "FA009", "impressions", 'type="stats"', "a location that contains that of feed "
                       "'imp-click-join2'")


@pytest.mark.parametrize("extra", [
    '<location type="stats" path="/stats/impressions"/>',  # Falcon's examples share a stats or meta folder
    '<location type="meta" path="/stats/impressions/meta"/>',
])
def test_undated_stats_and_meta_folders_may_be_shared(ws, extra):
    """Nothing evicts or clears an undated location, so two feeds sharing one lose nothing."""
    ws.assert_clean(ws.edit("join2", JOIN2_DATA, f"{JOIN2_DATA}\n        {extra}").validate())


# Locations are compared as the file system reads them: default ports, case of scheme and host, '//', '/./',
# percent-encoding, a relative path on the cluster's write interface.
@pytest.mark.parametrize("path", [
    "hdfs://nn.east.example/data/join1/${YEAR}-${MONTH}-${DAY}/${HOUR}",  # hdfs's default port is 8020
    "HDFS://NN.East.Example:8020/data/join1/${YEAR}-${MONTH}-${DAY}/${HOUR}",
    "/data/./join1/${YEAR}-${MONTH}-${DAY}/${HOUR}",
    "/data/%6Aoin1/${YEAR}-${MONTH}-${DAY}/${HOUR}",
    "hdfs://user@nn.east.example:8020/data/join1/${YEAR}-${MONTH}-${DAY}/${HOUR}",
])
def test_locations_are_compared_as_the_file_system_reads_them(ws, path):
    ws.edit("join2", '<retention limit="days(7)"', '<retention limit="days(2)"')  # not two names for one data
    report = ws.edit("join2", JOIN2_DATA, f'<location type="data" path="{path}"/>').validate()
    issue = _issue_at(ws, report, "join2", 'type="data"')
    assert "has the same location as feed 'imp-click-join1'" in issue.message, ws.describe(report)


def test_a_write_interface_without_its_port_is_the_same_file_system(ws):
    ws.edit("primary", 'type="write" endpoint="hdfs://nn.east.example:8020"',
            'type="write" endpoint="hdfs://nn.east.example"')
    uri = "hdfs://nn.east.example:8020/data/join1/${YEAR}-${MONTH}-${DAY}/${HOUR}/part"
    report = ws.edit("join2", JOIN2_DATA, f'<location type="data" path="{uri}"/>').validate()
    assert "a location inside that of feed 'imp-click-join1'" in _issue_at(ws, report, "join2", 'type="data"').message


def _table_feed(name: str, uri: str, retention: str = "days(3)") -> str:
    return f"""\
<feed name="{name}" xmlns="uri:falcon:feed:0.1">
    <frequency>hours(1)</frequency>
    <clusters>
        <cluster name="primary" type="source">
            <validity start="2011-11-01T00:00Z" end="2011-12-31T00:00Z"/>
            <retention limit="{retention}" action="delete"/>
        </cluster>
    </clusters>
    <table uri="{uri}"/>
    <ACL owner="falcon" group="users" permission="0755"/>
    <schema location="/schemas/clicks" provider="hcatalog"/>
</feed>
"""


# Table feeds share a table's partitions the way file feeds share folders (Hive names are case-insensitive).
@pytest.mark.parametrize(("uri", "relation"), [
    ("catalog:clicksdb:clicks#ds=${YEAR}-${MONTH}-${DAY}-${HOUR}", "the same location as"),
    ("catalog:ClicksDB:CLICKS#DS=${YEAR}-${MONTH}-${DAY}-${HOUR}", "the same location as"),
    (" catalog:clicksdb: clicks #ds= ${YEAR}-${MONTH}-${DAY}-${HOUR} ;", "the same location as"),
    ("catalog:clicksdb:clicks#ds=${YEAR}-${MONTH}-${DAY}-${HOUR};region=us", "a location inside that of"),
])
def test_table_feeds_on_one_tables_partitions_are_reported(ws, uri, relation):
    report = ws.put("copy", _table_feed("clicksTableCopy", uri)).validate()
    issue = _issue_at(ws, report, "copy", "<table uri=")
    assert f"has {relation} feed 'clicksTable'" in issue.message, ws.describe(report)
    assert any(i.rule == "FA009" and i.entity == "clicksTable" for i in report.issues)


@pytest.mark.parametrize(("uri", "retention"), [
    ("catalog:clicksdb:clicks_daily#ds=${YEAR}-${MONTH}-${DAY}-${HOUR}", "days(3)"),  # another table
    ("catalog:otherdb:clicks#ds=${YEAR}-${MONTH}-${DAY}-${HOUR}", "days(3)"),
    ("catalog:clicksdb:clicks#ds=${YEAR}-${MONTH}-${DAY}-${HOUR}", "days(2)"),  # two names, kept alike
])
def test_table_feeds_apart_or_kept_alike_are_clean(ws, uri, retention):
    report = ws.put("copy", _table_feed("clicksTableCopy", uri, retention)).validate()
    assert not [i for i in report.issues if i.rule == "FA009"], ws.describe(report)


def _issue_at(ws, report, key, marker):
    line = ws.line(key, marker)
    found = [i for i in report.issues if i.rule == "FA009" and i.file == ws.path(key) and i.line == line]
    assert found, f"no FA009 at {key}:{line}; got:\n{ws.describe(report)}"
    assert found[0].entity == ws.entity_name(key)
    return found[0]


def test_shared_folders_accepted_on_both_feeds_are_clean(ws):
    accept = '<properties><property name="airflow.accept-rules" value="FA009"/></properties>\n</feed>'
    ws.edit("join2", JOIN2_DATA, JOIN1_DATA.replace("${HOUR}", "${HOUR}/part")).edit("join2", "</feed>", accept)
    assert {issue.entity for issue in ws.validate().issues} == {"imp-click-join1"}
    ws.edit("join1", "</feed>", accept)
    ws.assert_clean(ws.validate())


@pytest.mark.parametrize(("path", "why"), [
    ("/", "the file system's root"),
    ("/tmp", "the top-level folder '/tmp'"),
    ("/${YEAR}/${MONTH}", "folders at the file system's root"),
    ("/data/../../etc/${YEAR}${MONTH}${DAY}${HOUR}${MINUTE}", "'..'"),
    ("file:///data/../${YEAR}", "'..'"),
])
def test_unsafe_locations_are_refused(ws, path, why):
    _assert_refused(ws, path, why)


# Storage reads a location percent-decoded (Hadoop's Path and Python's clients alike): the rule reads it that way.
@pytest.mark.parametrize(("path", "why"), [
    ("/data/%2e%2e/%2e%2e/etc/${YEAR}${MONTH}${DAY}", "'..'"),
    ("/data/.%2E/x/${YEAR}", "'..'"),
    ("/data/%252e%252e/x/${YEAR}", "'..'"),  # a second decoding gives '..'
    ("hdfs://nn.east.example:8020/data/%2e%2e/${YEAR}", "'..'"),
    ("/data\\..\\..\\etc/${YEAR}", "'..'"),  # '\' read as a separator
    ("/data/x%2F..%2F../${YEAR}", "'..'"),  # an encoded '/'
    ("/%2e/${YEAR}/${MONTH}", "'.'"),
    ("/data/x%255Cy/${YEAR}", "reads as other folders"),  # 'x%5Cy' to storage, 'x/y' decoded again
    ("/data/%25%32%35%32%65%25%32%35%32%65/${YEAR}", "'..'"),  # nested deeper
    ("/data/${YEAR}/?{MONTH}", "'?' or '#'"),  # a URI's path ends at '?': the year folder would be the instance
    ("hdfs://nn.east.example:8020/data/x#y/${YEAR}", "'?' or '#'"),
])
def test_locations_unsafe_once_read_as_storage_reads_them_are_refused(ws, path, why):
    _assert_refused(ws, path, why)


def _assert_refused(ws, path, why):
    report = ws.edit("clicks", CLICKS_DATA, f'<location type="data" path="{path}"/>').validate()
    issue = next((i for i in report.issues if i.rule == "FA010"), None)
    assert issue is not None, ws.describe(report)
    assert why in issue.message
    assert issue.entity == "clicksFeed"
    assert issue.line == ws.line("clicks", 'type="data"')
    assert not report.valid


def test_an_unsafe_location_cannot_be_accepted(ws):
    accept = '<properties><property name="airflow.accept-rules" value="FA010"/></properties>\n</feed>'
    report = ws.edit("clicks", CLICKS_DATA, '<location type="data" path="/tmp"/>').edit("clicks", "</feed>",
                                                                                         accept).validate()
    assert "FA010" in ws.rules(report)


@pytest.mark.parametrize("path", ["/data/clicks", "/stats/x", "/tmp/${YEAR}", "file:///srv/in/${YEAR}",
                                  "/data/in/x${YEAR}"])
def test_safe_locations(path):
    assert location_danger(path) is None
