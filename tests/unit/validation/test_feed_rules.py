"""Feed rules (F1-F29 that need no outside world, FA004, FA005): broken feeds report the rule, near misses pass.

Includes the AgeBasedDelete data points of Falcon's FeedEntityParserTest (falcon-validation.md §3.6).
"""

from __future__ import annotations

import pytest
from tests.builders import cluster, interface

# A third cluster, for feeds with several sources or targets.
ARCHIVE_CLUSTER = cluster("archive", "hdfs://nn.north.example:8020", colo="north", spark=None,
                          readonly="hftp://nn.north.example:50070",
                          interfaces=interface("workflow", "localoozie", "4.0.0"),
                          locations={"staging": "/projects/falcon/staging"})


def archive_in_clicks(cluster_type: str, partition: str | None = None) -> list[tuple[str, str | None, str]]:
    """Edits adding the archive cluster to the workspace and to clicksFeed, after the backup target."""
    attribute = f' partition="{partition}"' if partition is not None else ""
    element = (f'<cluster name="archive" type="{cluster_type}"{attribute}>\n'
               '            <validity start="2011-11-01T00:00Z" end="2011-12-31T00:00Z"/>\n'
               '            <retention limit="days(7)" action="delete"/>\n'
               '        </cluster>\n'
               '    </clusters>')
    return [("archive", None, ARCHIVE_CLUSTER), ("clicks", "</clusters>", element)]


# Lines of the base files that the cases below edit (each occurs once in its file).
IMPRESSIONS_FREQUENCY = "<frequency>hours(1)</frequency>\n    <timezone>"
IMPRESSIONS_DATA = '/data/impressions/${YEAR}/${MONTH}/${DAY}/${HOUR}"'
BY_MINUTE = ("impressions", IMPRESSIONS_DATA, '/data/impressions/${YEAR}/${MONTH}/${DAY}/${HOUR}/${MINUTE}"')
"""A folder per instance of a feed under an hour (FA055)."""
STAGE_FREQUENCY = "<frequency>hours(10)</frequency>"
STAGE_LIMIT = '<property name="retention.policy.agebaseddelete.limit" value="hours(48)"/>'
CLICKS_PRIMARY = '<cluster name="primary" type="source">'
CLICKS_BACKUP = '<cluster name="backup" type="target" partition="${cluster.colo}">'
PRIMARY_BY_COLO = '<cluster name="primary" type="source" partition="${cluster.colo}">'
CLICKS_PRIMARY_RETENTION = '<retention limit="days(2)" action="delete"/>'
CLICKS_BACKUP_RETENTION = '<retention limit="days(7)" action="delete"/>'
CLICKS_BACKUP_VALIDITY = '<validity start="2011-11-01T00:00Z" end="2012-12-31T00:00Z"/>'
CLICKS_SLA = '<sla slaLow="hours(1)" slaHigh="hours(3)"/>'
CUSTOMERS_VALIDITY = '<validity start="2011-11-01T00:00Z" end="2011-12-31T00:00Z"/>'
CUSTOMERS_DATA = '<location type="data" path="/data/customers/${YEAR}/${MONTH}/${DAY}"/>'
CUSTOMERS_SCHEMA = '<schema location="/schemas/customers" provider="csv"/>'
SPLIT_BY = '<argument name="--split-by" value="id"/>'
NUM_MAPPERS = '<argument name="--num-mappers" value="2"/>'
TABLE_URI = '<table uri="catalog:clicksdb:clicks#ds=${YEAR}-${MONTH}-${DAY}-${HOUR}"/>'
TABLE_RETENTION = '<retention limit="days(2)" action="delete"/>\n        </cluster>'

FAILING = [
    # -- lifecycle --------------------------------------------------------------------------------------------
    pytest.param("F1", [("clicks", CLICKS_PRIMARY_RETENTION, CLICKS_PRIMARY_RETENTION + "\n            <lifecycle/>")],
                 "clicks", "<lifecycle/>", "feed 'clicksFeed' on cluster 'primary' has a lifecycle without a "
                 "retention-stage", (), id="F1-cluster-lifecycle-without-stage"),
    pytest.param("F1", [("customers", CUSTOMERS_SCHEMA, CUSTOMERS_SCHEMA + "\n    <lifecycle/>")],
                 "customers", "<lifecycle/>", "feed 'customers' on cluster 'primary' has a lifecycle", (),
                 id="F1-feed-lifecycle-without-stage"),
    # §3.6: feed hours(2) with a retention stage of minutes(60).
    pytest.param("F2", [("impressions", IMPRESSIONS_FREQUENCY, "<frequency>hours(2)</frequency>\n    <timezone>"),
                        ("impressions", STAGE_FREQUENCY, "<frequency>minutes(60)</frequency>")],
                 "impressions", "<retention-stage>",
                 "retention of feed 'impressionFeed' on cluster 'primary' runs every minutes(60), more often than "
                 "the data arrives (hours(2))", (), id="F2-stage-more-frequent-than-feed"),
    # §3.6: feed minutes(30) with a retention stage of minutes(59).
    pytest.param("F3", [("impressions", IMPRESSIONS_FREQUENCY, "<frequency>minutes(30)</frequency>\n    <timezone>"),
                        ("impressions", STAGE_FREQUENCY, "<frequency>minutes(59)</frequency>")],
                 "impressions", "<retention-stage>", "lifecycle retention of feed 'impressionFeed' on cluster "
                 "'primary' runs every minutes(59); it can not be more frequent than hours(1)", ("FA055",),
                 id="F3-stage-more-frequent-than-an-hour"),
    pytest.param("F3", [("impressions", STAGE_LIMIT, '<property name="other.limit" value="hours(48)"/>')],
                 "impressions", "<retention-stage>", "retention.policy.agebaseddelete.limit is required by the "
                 "AgeBasedDelete policy of feed 'impressionFeed'", (), id="F3-limit-missing"),
    pytest.param("F3", [("impressions", STAGE_LIMIT, STAGE_LIMIT.replace("hours(48)", "48 hours"))],
                 "impressions", "<retention-stage>", "of feed 'impressionFeed' on cluster 'primary' is '48 hours'; "
                 "it must be a frequency", (), id="F3-limit-not-a-frequency"),
    pytest.param("F3", [("impressions", STAGE_FREQUENCY, STAGE_FREQUENCY + "<policy>ArchiveOld</policy>")],
                 "impressions", "<retention-stage>", "lifecycle policy 'ArchiveOld' of feed 'impressionFeed'", (),
                 id="F3-unknown-policy"),
    pytest.param("F3", [("impressions", STAGE_LIMIT, STAGE_LIMIT.replace("hours(48)", "hours(5)"))],
                 "impressions", "<retention-stage>", "lifecycle retention limit hours(5) of feed 'impressionFeed' on "
                 "cluster 'primary' is shorter than the late-arrival cut-off hours(6)", (),
                 id="F3-limit-shorter-than-cut-off"),
    pytest.param("F3", [("impressions", STAGE_LIMIT, STAGE_LIMIT.replace("hours(48)", "hours(12)")),
                        ("impressions", IMPRESSIONS_FREQUENCY,
                         '<frequency>hours(1)</frequency>\n    <sla slaLow="hours(1)" slaHigh="hours(20)"/>\n'
                         '    <timezone>')],
                 "impressions", "<retention-stage>", "slaHigh hours(20) of feed 'impressionFeed' on cluster 'primary' "
                 "is longer than its lifecycle retention limit hours(12)", (), id="F3-sla-high-beyond-limit"),
    # -- references and validity -----------------------------------------------------------------------------
    pytest.param("F5", [("customers", CLICKS_PRIMARY, '<cluster name="nowhere" type="source">')],
                 "customers", '<cluster name="nowhere"', "feed 'customers' refers to cluster 'nowhere', which is not "
                 "defined", (), id="F5-undefined-cluster"),
    pytest.param("F6", [("customers", CLICKS_PRIMARY, '<cluster name="primary" type="source" version="1">')],
                 "customers", '<cluster name="primary"', "feed 'customers' asks for version 1 of cluster 'primary', "
                 "which is at version 0", (), id="F6-version-ahead"),
    pytest.param("F7", [("customers", CUSTOMERS_VALIDITY,
                         '<validity start="2012-01-01T00:00Z" end="2011-12-31T00:00Z"/>')],
                 "customers", "<validity", "validity of feed 'customers' on cluster 'primary' starts at "
                 "2012-01-01T00:00Z, after it ends at 2011-12-31T00:00Z", (), id="F7-start-after-end"),
    pytest.param("F8", [("primary", '<interface type="registry" endpoint="thrift://hive.east.example:9083" '
                                    'version="0.13.0"/>', "")],
                 "table", '<cluster name="primary"', "feed 'clicksTable' is stored in a catalog table, so cluster "
                 "'primary' needs a registry interface", (), id="F8-no-registry"),
    pytest.param("F9", [("clicks", '<late-arrival cut-off="hours(3)"/>', '<late-arrival cut-off="days(3)"/>')],
                 "clicks", CLICKS_PRIMARY_RETENTION, "retention limit days(2) of feed 'clicksFeed' on cluster "
                 "'primary' is shorter than the late-arrival cut-off days(3)", (), id="F9-retention-below-cut-off"),
    # -- import and export -----------------------------------------------------------------------------------
    pytest.param("F10", [("customers", '<source name="mysql-db"', '<source name="oracle-db"')],
                 "customers", "<source ", "import of feed 'customers' on cluster 'primary' refers to datasource "
                 "'oracle-db', which is not defined", (), id="F10-undefined-datasource"),
    pytest.param("F10", [("customers", '<extract type="full">', '<extract type="incremental">')],
                 "customers", "<extract", "import of feed 'customers' on cluster 'primary' uses the incremental "
                 "extract method", (), id="F10-incremental"),
    pytest.param("F10", [("customers", "<mergepolicy>snapshot</mergepolicy>",
                          "<deltacolumn>updated_at</deltacolumn><mergepolicy>snapshot</mergepolicy>")],
                 "customers", "<extract", "import of feed 'customers' on cluster 'primary' uses the full extract "
                 "method, which takes no deltacolumn", (), id="F10-full-with-deltacolumn"),
    pytest.param("F10", [("customers", "<mergepolicy>snapshot</mergepolicy>", "<mergepolicy>append</mergepolicy>")],
                 "customers", "<extract", "import of feed 'customers' on cluster 'primary' uses the full extract "
                 "method", (), id="F10-full-with-append"),
    pytest.param("F11", [("customers", SPLIT_BY, "")], "customers", "--num-mappers",
                 "import of feed 'customers' on cluster 'primary' runs 2 mappers, so it needs a --split-by column",
                 (), id="F11-no-split-by"),
    pytest.param("F11", [("customers", SPLIT_BY, ""),
                         ("customers", NUM_MAPPERS, '<argument name="--NUM-MAPPERS" value="4"/>')],
                 "customers", "--NUM-MAPPERS", "import of feed 'customers' on cluster 'primary' runs 4 mappers", (),
                 id="F11-argument-names-are-case-insensitive"),
    pytest.param("F11", [("customers", NUM_MAPPERS, '<argument name="--num-mappers" value="two"/>')],
                 "customers", "--num-mappers", "--num-mappers of the import of feed 'customers' on cluster 'primary' "
                 "is 'two', not a number", (), id="F11-not-a-number"),
    pytest.param("F12", [("customers", "<includes>", "<excludes>"), ("customers", "</includes>", "</excludes>")],
                 "customers", ("<fields>", 1), "import of feed 'customers' on cluster 'primary' excludes fields", (),
                 id="F12-excludes"),
    pytest.param("F13", [("customers", '<target name="mysql-db"', '<target name="oracle-db"')],
                 "customers", "<target ", "export of feed 'customers' on cluster 'primary' refers to datasource "
                 "'oracle-db', which is not defined", (), id="F13-undefined-datasource"),
    pytest.param("F13", [("customers", '<argument name="--update-key" value="id"/>',
                          '<argument name="--direct" value="true"/>')],
                 "customers", "--direct", "export argument '--direct' of feed 'customers' on cluster 'primary' is not "
                 "supported", (), id="F13-unsupported-argument"),
    pytest.param("F14", [("customers", '<load type="updateonly"/>',
                          '<load type="updateonly"/>\n<fields><includes><field>id</field></includes></fields>')],
                 "customers", "<fields><includes>", "export of feed 'customers' on cluster 'primary' declares "
                 "<fields>", (), id="F14-export-fields"),
    pytest.param("F20", [("customers", CUSTOMERS_DATA, '<location type="data" path="/data/customers/latest"/>')],
                 "customers", 'type="data"', "data path '/data/customers/latest' of feed 'customers' on cluster "
                 "'primary' has no time variable", (), id="F20-undated-import-path"),
    # -- storage ---------------------------------------------------------------------------------------------
    pytest.param("F15", [("table", TABLE_RETENTION, TABLE_RETENTION
                          + '\n        <cluster name="backup" type="source">'
                          + '\n            <validity start="2011-11-01T00:00Z" end="2011-12-31T00:00Z"/>'
                          + '\n            <retention limit="days(2)" action="delete"/>'
                          + "\n        </cluster>")],
                 "table", '<cluster name="backup"', "feed 'clicksTable' is stored in a catalog table and has 2 source "
                 "clusters", (), id="F15-table-with-two-sources"),
    pytest.param("F16", [("table", '<retention limit="days(2)" action="delete"/>',
                          '<retention limit="days(2)" action="delete"/>\n            <locations><location type="data" '
                          'path="/data/rows/${YEAR}-${MONTH}-${DAY}-${HOUR}"/></locations>')],
                 "table", '<cluster name="primary"', "cluster 'primary' stores feed 'clicksTable' as filesystem while "
                 "the feed is stored as table", (), id="F16-files-in-a-table-feed"),
    pytest.param("F16", [("clicks", CLICKS_BACKUP_RETENTION, CLICKS_BACKUP_RETENTION
                          + "\n            " + TABLE_URI.replace("clicks#", "clicks_west#"))],
                 "clicks", CLICKS_BACKUP, "cluster 'backup' stores feed 'clicksFeed' as table while the feed is "
                 "stored as filesystem", (), id="F16-table-in-a-file-feed"),
    pytest.param("F16", [("customers", CUSTOMERS_DATA, "")], "customers", '<feed name="customers"',
                 "feed 'customers' defines neither locations nor a table", ("F19",), id="F16-empty-locations"),
    pytest.param("F17", [("table", "<frequency>", '<partitions><partition name="region"/></partitions>\n'
                                                  "    <frequency>")],
                 "table", "<partition ", "feed 'clicksTable' is stored in a catalog table, so its partitions belong "
                 "in the table URI", (), id="F17-table-with-partitions"),
    pytest.param("F19", [("customers", CUSTOMERS_DATA, '<location type="stats" path="/stats/customers"/>')],
                 "customers", '<cluster name="primary"', "feed 'customers' on cluster 'primary' is stored in files but "
                 "has no location of type data", (), id="F19-no-data-location"),
    # A cluster's own locations replace the feed's as a whole (FeedHelper.getLocations).
    pytest.param("F19", [("clicks", CLICKS_BACKUP_RETENTION, CLICKS_BACKUP_RETENTION
                          + '\n            <locations><location type="stats" path="/stats/west"/></locations>')],
                 "clicks", CLICKS_BACKUP, "feed 'clicksFeed' on cluster 'backup' is stored in files but has no "
                 "location of type data", (), id="F19-cluster-locations-replace-the-feeds"),
    pytest.param("FA004", [("table", TABLE_URI, '<table uri="catalog:clicksdb#ds=${YEAR}"/>')],
                 "table", "<table ", "table URI 'catalog:clicksdb#ds=${YEAR}': the part before '#' must be "
                 "<database>:<table>", (), id="FA004-no-table-name"),
    pytest.param("FA004", [("table", TABLE_URI, '<table uri="catalog:default:clicks:ds=${YEAR}#region=us"/>')],
                 "table", "<table ", "table URI 'catalog:default:clicks:ds=${YEAR}#region=us'", (),
                 id="FA004-three-parts"),
    pytest.param("FA004", [("table", TABLE_URI, '<table uri="default:clicks:ds=${YEAR}#region=us"/>')],
                 "table", "<table ", "catalog scheme is missing", (), id="FA004-no-scheme"),
    pytest.param("FA004", [("table", TABLE_URI, '<table uri="catalog:clicksdb:clicks"/>')],
                 "table", "<table ", "partition details after '#' are missing", (), id="FA004-no-partitions"),
    pytest.param("FA004", [("table", TABLE_URI, '<table uri="catalog:clicksdb:clicks#ds=a=b"/>')],
                 "table", "<table ", "partition spec 'ds=a=b' is not a single key=value pair", (),
                 id="FA004-bad-partition-spec"),
    # -- replication topology --------------------------------------------------------------------------------
    pytest.param("F21", [("impressions", "</cluster>", "</cluster>\n        <cluster name=\"primary\" type=\"source\">"
                          '\n            <validity start="2011-11-01T00:00Z" end="2011-12-31T00:00Z"/>'
                          '\n            <retention limit="hours(48)" action="delete"/>'
                          "\n        </cluster>")],
                 "impressions", ('<cluster name="primary"', 2), "cluster 'primary' is listed more than once in feed "
                 "'impressionFeed'", (), id="F21-cluster-twice"),
    pytest.param("F22", [("clicks", CLICKS_PRIMARY, '<cluster name="primary" type="target">')],
                 "clicks", '<cluster name="primary"', "feed 'clicksFeed' has a target cluster but no source cluster",
                 (), id="F22-targets-only"),
    pytest.param("F23", [*archive_in_clicks("source"),
                         ("clicks", CLICKS_PRIMARY, PRIMARY_BY_COLO)],
                 "clicks", '<cluster name="archive"', "source cluster 'archive' of feed 'clicksFeed' needs a partition "
                 "expression, because the feed has more than one source", (), id="F23-source-without-partition"),
    pytest.param("F23", [*archive_in_clicks("source", "US"),
                         ("clicks", CLICKS_PRIMARY, PRIMARY_BY_COLO)],
                 "clicks", '<cluster name="archive"', "partition 'US' of cluster 'archive' in feed 'clicksFeed' must "
                 "use at least one cluster expression", (), id="F23-source-partition-without-cluster-expression"),
    pytest.param("F24", [("clicks", CLICKS_BACKUP, CLICKS_BACKUP.replace("${cluster.colo}", "${cluster.colo}/*/x"))],
                 "clicks", '<cluster name="backup"', "partition '${cluster.colo}/*/x' for source 'primary' and target "
                 "'backup' has 3 parts but feed 'clicksFeed' defines 2 partitions", (), id="F24-too-deep"),
    pytest.param("F24", [("clicks", '<partition name="colo"/>', ""), ("clicks", '<partition name="country"/>', "")],
                 "clicks", '<cluster name="backup"', "has 1 parts but feed 'clicksFeed' defines 0 partitions", (),
                 id="F24-feed-without-partitions"),
    pytest.param("F25", archive_in_clicks("target", "US"),
                 "clicks", '<cluster name="archive"', "partition 'US' of cluster 'archive' in feed 'clicksFeed' must "
                 "use at least one cluster expression", (), id="F25-second-target-literal-partition"),
    pytest.param("FA005", [("clicks", CLICKS_BACKUP_VALIDITY,
                            '<validity start="2012-01-01T00:00Z" end="2012-12-31T00:00Z"/>')],
                 "clicks", "2012-01-01T00:00Z", "source cluster 'primary' and target cluster 'backup' of feed "
                 "'clicksFeed' have no validity time in common", (), id="FA005-disjoint-windows"),
    pytest.param("FA005", [("clicks", CLICKS_PRIMARY, '<cluster name="primary" type="source" delay="days(61)">')],
                 "clicks", CLICKS_BACKUP_VALIDITY, "have no validity time in common", (),
                 id="FA005-delay-shifts-source-past-its-end"),
    # -- paths, groups, SLA, properties ----------------------------------------------------------------------
    pytest.param("F26", [("clicks", CLICKS_BACKUP_RETENTION, CLICKS_BACKUP_RETENTION
                          + '\n            <locations><location type="data" '
                          'path="/data/west/${YEAR}/${MONTH}/${DAY}"/></locations>')],
                 "clicks", CLICKS_BACKUP, "data path '/data/west/${YEAR}/${MONTH}/${DAY}' of feed 'clicksFeed' on "
                 "cluster 'backup' uses time variables", ("FA055",), id="F26-cluster-path-lacks-hour"),
    pytest.param("F27", [("join2", "<frequency>hours(1)</frequency>", "<frequency>hours(2)</frequency>")],
                 "join2", "<feed ", "feed 'imp-click-join2' (hours(2), path variables", (), id="F27-other-frequency"),
    # Falcon compares frequencies as written: minutes(60) is not hours(1).
    pytest.param("F27", [("join2", "<frequency>hours(1)</frequency>", "<frequency>minutes(60)</frequency>")],
                 "join2", "<feed ", "does not match group 'online' as defined by feed 'imp-click-join1'", (),
                 id="F27-same-length-other-unit"),
    pytest.param("F27", [("join2", '/${HOUR}"', '"')],
                 "join2", "<feed ", "does not match group 'bi' as defined by feed 'imp-click-join1'", ("FA055",),
                 id="F27-other-path-variables"),
    pytest.param("F28", [("clicks", CLICKS_SLA, '<sla slaLow="hours(4)" slaHigh="hours(3)"/>')],
                 "clicks", "<sla ", "slaLow hours(4) of feed 'clicksFeed' on cluster 'primary' is longer than slaHigh "
                 "hours(3)", (), id="F28-low-above-high"),
    pytest.param("F28", [("clicks", CLICKS_SLA, '<sla slaLow="hours(1)" slaHigh="days(3)"/>')],
                 "clicks", "<sla ", "slaHigh days(3) of feed 'clicksFeed' on cluster 'primary' is longer than the "
                 "retention limit days(2)", (), id="F28-high-above-retention"),
    pytest.param("F28", [("clicks", CLICKS_BACKUP_RETENTION,
                          CLICKS_BACKUP_RETENTION + '\n            <sla slaLow="hours(1)" slaHigh="days(8)"/>')],
                 "clicks", 'slaHigh="days(8)"', "slaHigh days(8) of feed 'clicksFeed' on cluster 'backup'", (),
                 id="F28-cluster-sla-overrides-feed-sla"),
    # Durations compare with a month of 31 days (Q1).
    pytest.param("F28", [("clicks", CLICKS_PRIMARY_RETENTION, '<retention limit="months(1)" action="delete"/>'),
                         ("clicks", CLICKS_SLA, '<sla slaLow="hours(1)" slaHigh="days(32)"/>')],
                 "clicks", "<sla ", "slaHigh days(32) of feed 'clicksFeed' on cluster 'primary' is longer than the "
                 "retention limit months(1)", (), id="F28-month-is-31-days"),
    pytest.param("F29", [("impressions", '<property name="field1" value="value1"/>',
                          '<property name="field1" value="value1"/>\n        <property name="field1" value="again"/>')],
                 "impressions", ('name="field1"', 2), "property 'field1' is defined more than once in feed "
                 "'impressionFeed'", (), id="F29-duplicate-name"),
    pytest.param("F29", [("impressions", '<property name="field1" value="value1"/>',
                          '<property name="" value="value1"/>')],
                 "impressions", 'name=""', "property name must not be blank in feed 'impressionFeed'", (),
                 id="F29-blank-name"),
]


@pytest.mark.parametrize(("rule", "edits", "key", "marker", "fragment", "also"), FAILING)
def test_broken_feed_reports_the_rule(ws, rule, edits, key, marker, fragment, also):
    report = ws.apply(edits).validate()
    ws.assert_reported(report, rule, key, marker, fragment, also=also)
    assert not report.valid


PASSING = [
    # §3.6 AgeBasedDelete data points that Falcon accepts.
    pytest.param("F2", [("impressions", IMPRESSIONS_FREQUENCY, "<frequency>minutes(30)</frequency>\n    <timezone>"),
                        ("impressions", STAGE_FREQUENCY, "<frequency>minutes(60)</frequency>"), BY_MINUTE],
                 id="F2-feed-30min-stage-60min"),
    pytest.param("F2", [("impressions", IMPRESSIONS_FREQUENCY, "<frequency>minutes(30)</frequency>\n    <timezone>"),
                        ("impressions", STAGE_FREQUENCY, "<frequency>hours(1)</frequency>"), BY_MINUTE],
                 id="F2-feed-30min-stage-1h"),
    *[pytest.param("F2", [("impressions", IMPRESSIONS_FREQUENCY, f"<frequency>{f}</frequency>\n    <timezone>"),
                          ("impressions", STAGE_FREQUENCY, ""), BY_MINUTE], id=f"F2-default-stage-frequency-feed-{f}")
      for f in ("minutes(10)", "hours(7)", "days(2)")],
    pytest.param("F2", [("impressions", STAGE_FREQUENCY, "<frequency>hours(1)</frequency>")],
                 id="F2-stage-as-frequent-as-feed"),
    pytest.param("F1", [("impressions", '<retention limit="hours(48)" action="delete"/>',
                         '<retention limit="hours(48)" action="delete"/>\n            <lifecycle/>')],
                 id="F1-cluster-lifecycle-takes-the-feeds-stage"),
    pytest.param("F3", [("impressions", STAGE_FREQUENCY, STAGE_FREQUENCY + "<policy>AgeBasedDelete</policy>")],
                 id="F3-explicit-default-policy"),
    pytest.param("F3", [("impressions", STAGE_LIMIT, STAGE_LIMIT.replace("hours(48)", "hours(6)"))],
                 id="F3-limit-equals-cut-off"),
    pytest.param("F5", [("archive", None, ARCHIVE_CLUSTER),
                        ("customers", CLICKS_PRIMARY, '<cluster name="archive" type="source">')],
                 id="F5-cluster-defined-in-a-later-file"),
    pytest.param("F6", [("primary", 'description="main cluster"', 'description="main cluster" version="2"'),
                        ("customers", CLICKS_PRIMARY, '<cluster name="primary" type="source" version="2">')],
                 id="F6-version-equal"),
    pytest.param("F7", [("customers", CUSTOMERS_VALIDITY,
                         '<validity start="2011-12-31T00:00Z" end="2011-12-31T00:00Z"/>')],
                 id="F7-start-equals-end"),
    pytest.param("F8", [("backup", '<interface type="registry" endpoint="thrift://hive.west.example:9083" '
                                   'version="0.13.0"/>', "")],
                 id="F8-file-feed-needs-no-registry"),
    pytest.param("F9", [("clicks", '<late-arrival cut-off="hours(3)"/>', '<late-arrival cut-off="days(2)"/>')],
                 id="F9-retention-equals-cut-off"),
    pytest.param("F11", [("customers", SPLIT_BY, ""),
                         ("customers", NUM_MAPPERS, '<argument name="--num-mappers" value="1"/>')],
                 id="F11-one-mapper-needs-no-split-by"),
    pytest.param("F13", [("customers", '<argument name="--update-key" value="id"/>',
                          '<argument name="--num-mappers" value="1"/><argument name="--update-key" value="id"/>'
                          '<argument name="--input-null-string" value=""/>'
                          '<argument name="--input-null-non-string" value="0"/>')],
                 id="F13-every-allowed-argument"),
    pytest.param("F15", [("table", TABLE_RETENTION, TABLE_RETENTION
                          + '\n        <cluster name="backup" type="target">'
                          + '\n            <validity start="2011-11-01T00:00Z" end="2011-12-31T00:00Z"/>'
                          + '\n            <retention limit="days(2)" action="delete"/>'
                          + "\n        </cluster>")],
                 id="F15-table-with-one-source-and-a-target"),
    pytest.param("F16", [("clicks", CLICKS_BACKUP_RETENTION, CLICKS_BACKUP_RETENTION
                          + '\n            <locations><location type="data" '
                          'path="/data/west/${HOUR}/${YEAR}-${MONTH}-${DAY}"/></locations>')],
                 id="F16-F26-cluster-overrides-path-with-same-variables"),
    pytest.param("F20", [("customers", CUSTOMERS_DATA, '<location type="data" path="/data/customers/${YEAR}"/>'),
                         ("customers", "<frequency>days(1)</frequency>", "<frequency>months(12)</frequency>")],
                 id="F20-one-time-variable-is-enough"),
    pytest.param("FA004", [("table", TABLE_URI, '<table uri="catalog:clicksdb:clicks#ds=${YEAR}-${MONTH}-${DAY}-'
                                                '${HOUR};region=us"/>')],
                 id="FA004-two-partition-keys"),
    pytest.param("F23", [*archive_in_clicks("source", "${cluster.name}"),
                         ("clicks", CLICKS_PRIMARY, PRIMARY_BY_COLO)],
                 id="F23-sources-with-cluster-expressions"),
    pytest.param("F24", [("clicks", CLICKS_BACKUP, '<cluster name="backup" type="target" partition=" /${cluster.colo}'
                                                   '//*/ ">')],
                 id="F24-normalised-expression-fits"),
    pytest.param("F25", archive_in_clicks("target", "${cluster.name}/*"), id="F25-targets-with-cluster-expressions"),
    pytest.param("F25", archive_in_clicks("target"), id="F25-target-without-partition"),
    pytest.param("FA005", [("clicks", CLICKS_BACKUP_VALIDITY,
                            '<validity start="2011-12-30T23:00Z" end="2012-12-31T00:00Z"/>')],
                 id="FA005-one-hour-in-common"),
    pytest.param("F27", [("join2", "<frequency>hours(1)</frequency>", "<frequency>hours(2)</frequency>"),
                         ("join2", "<groups>online,bi</groups>", "<groups>twohourly</groups>")],
                 id="F27-other-group"),
    pytest.param("F27", [("join2", "${YEAR}-${MONTH}-${DAY}/${HOUR}", "${HOUR}/${DAY}.${MONTH}.${YEAR}")],
                 id="F27-same-variables-other-layout"),
    pytest.param("F28", [("clicks", CLICKS_SLA, '<sla slaLow="days(2)" slaHigh="days(2)"/>')],
                 id="F28-low-equals-high-equals-retention"),
    pytest.param("F28", [("clicks", CLICKS_PRIMARY_RETENTION, '<retention limit="months(1)" action="delete"/>'),
                         ("clicks", CLICKS_BACKUP_RETENTION, '<retention limit="months(1)" action="delete"/>'),
                         ("clicks", CLICKS_SLA, '<sla slaLow="hours(1)" slaHigh="days(31)"/>')],
                 id="F28-month-is-31-days"),
    pytest.param("F29", [("impressions", '<property name="field1" value="value1"/>',
                          '<property name="field1" value=""/>')],
                 id="F29-empty-value"),
]


@pytest.mark.parametrize(("rule", "edits"), PASSING)
def test_near_miss_feed_is_clean(ws, rule, edits):
    report = ws.apply(edits).validate()
    assert rule not in ws.rules(report)
    ws.assert_clean(report)
