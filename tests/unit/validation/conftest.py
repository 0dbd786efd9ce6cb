"""A valid workspace of Falcon entities that each validation test breaks in one place.

The base workspace is modelled on the data of Falcon's own parser tests: a process ``sample`` valid from
2011-11-02 that reads ``impressionFeed`` (retention hours(48)) and ``clicksFeed`` and writes two feeds valid
2011-11-01..2011-12-31. Around it: a second cluster for replication, a catalog-table feed, an import/export feed and
its datasource. Every file is written under ``tmp_path/entities`` and validated as one workspace with a fixed "now".

Tests name files by short keys (``primary``, ``clicks``, ``sample`` ...) and describe a change as edits
``(key, old, new)``: ``old`` must occur exactly once in the file (so a typo in a
test cannot silently leave the workspace valid), and ``old=None`` adds a new file with ``new`` as its content.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from pathlib import Path

import pytest

from falcon_airflow.issues import Issue, Level
from falcon_airflow.validation import Report, validate_paths
from falcon_airflow.validation.coverage import UNUSED_RULE

# Wall-clock "now" for every run, so that P10 (input start within retention, evaluated now) is deterministic.
NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def without_unused(report: Report) -> Report:
    """The report without FA080 warnings: the base workspace, like Falcon's test data, uses elements FA080 names as
    not applied (a temp location, datasource properties, a MySQL connector jar where MariaDB's driver runs);
    test_elements_not_applied.py shows them, tests/unit/parsing/test_schema_coverage.py tests the rule."""
    return Report(report.files, tuple(issue for issue in report.issues if issue.rule != UNUSED_RULE))

CLUSTER_PRIMARY = """\
<cluster name="primary" colo="east" description="main cluster" xmlns="uri:falcon:cluster:0.1">
    <interfaces>
        <interface type="readonly" endpoint="hftp://nn.east.example:50070" version="2.2.0"/>
        <interface type="write" endpoint="hdfs://nn.east.example:8020" version="2.2.0"/>
        <interface type="execute" endpoint="rm.east.example:8050" version="2.2.0"/>
        <interface type="workflow" endpoint="http://oozie.east.example:11000/oozie/" version="4.0.0"/>
        <interface type="messaging" endpoint="tcp://mq.east.example:61616?daemon=true" version="5.1.6"/>
        <interface type="registry" endpoint="thrift://hive.east.example:9083" version="0.13.0"/>
        <interface type="spark" endpoint="yarn-cluster" version="2.0.0"/>
    </interfaces>
    <locations>
        <location name="staging" path="/projects/falcon/staging"/>
        <location name="working" path="/projects/falcon/working"/>
        <location name="temp" path="/tmp"/>
    </locations>
    <ACL owner="falcon" group="users" permission="0755"/>
    <properties>
        <property name="region" value="us-east"/>
    </properties>
</cluster>
"""

CLUSTER_BACKUP = """\
<cluster name="backup" colo="west" xmlns="uri:falcon:cluster:0.1">
    <interfaces>
        <interface type="readonly" endpoint="hftp://nn.west.example:50070" version="2.2.0"/>
        <interface type="write" endpoint="hdfs://nn.west.example:8020" version="2.2.0"/>
        <interface type="workflow" endpoint="localoozie" version="4.0.0"/>
        <interface type="registry" endpoint="thrift://hive.west.example:9083" version="0.13.0"/>
    </interfaces>
    <locations>
        <location name="staging" path="/projects/falcon/staging"/>
    </locations>
</cluster>
"""

FEED_IMPRESSIONS = """\
<feed name="impressionFeed" description="ad impressions" xmlns="uri:falcon:feed:0.1">
    <partitions>
        <partition name="fraud"/>
        <partition name="good"/>
    </partitions>
    <frequency>hours(1)</frequency>
    <timezone>UTC</timezone>
    <late-arrival cut-off="hours(6)"/>
    <clusters>
        <cluster name="primary" type="source">
            <validity start="2011-11-01T00:00Z" end="2011-12-31T00:00Z"/>
            <retention limit="hours(48)" action="delete"/>
        </cluster>
    </clusters>
    <locations>
        <location type="data" path="/data/impressions/${YEAR}/${MONTH}/${DAY}/${HOUR}"/>
        <location type="stats" path="/stats/impressions"/>
    </locations>
    <ACL owner="falcon" group="users" permission="0755"/>
    <schema location="/schemas/impressions" provider="protobuf"/>
    <properties>
        <property name="field1" value="value1"/>
    </properties>
    <lifecycle>
        <retention-stage>
            <frequency>hours(10)</frequency>
            <properties>
                <property name="retention.policy.agebaseddelete.limit" value="hours(48)"/>
            </properties>
        </retention-stage>
    </lifecycle>
</feed>
"""

FEED_CLICKS = """\
<feed name="clicksFeed" description="clicks, replicated east to west" xmlns="uri:falcon:feed:0.1">
    <partitions>
        <partition name="colo"/>
        <partition name="country"/>
    </partitions>
    <frequency>hours(1)</frequency>
    <sla slaLow="hours(1)" slaHigh="hours(3)"/>
    <late-arrival cut-off="hours(3)"/>
    <clusters>
        <cluster name="primary" type="source">
            <validity start="2011-11-01T00:00Z" end="2011-12-31T00:00Z"/>
            <retention limit="days(2)" action="delete"/>
        </cluster>
        <cluster name="backup" type="target" partition="${cluster.colo}">
            <validity start="2011-11-01T00:00Z" end="2012-12-31T00:00Z"/>
            <retention limit="days(7)" action="delete"/>
        </cluster>
    </clusters>
    <locations>
        <location type="data" path="/data/clicks/${YEAR}/${MONTH}/${DAY}/${HOUR}"/>
    </locations>
    <ACL owner="falcon" group="users" permission="0755"/>
    <schema location="/schemas/clicks" provider="protobuf"/>
</feed>
"""

FEED_CLICKS_TABLE = """\
<feed name="clicksTable" description="clicks as a catalog table" xmlns="uri:falcon:feed:0.1">
    <frequency>hours(1)</frequency>
    <clusters>
        <cluster name="primary" type="source">
            <validity start="2011-11-01T00:00Z" end="2011-12-31T00:00Z"/>
            <retention limit="days(2)" action="delete"/>
        </cluster>
    </clusters>
    <table uri="catalog:clicksdb:clicks#ds=${YEAR}-${MONTH}-${DAY}-${HOUR}"/>
    <ACL owner="falcon" group="users" permission="0755"/>
    <schema location="/schemas/clicks" provider="hcatalog"/>
</feed>
"""

FEED_CUSTOMERS = """\
<feed name="customers" description="imported from and exported to MySQL" xmlns="uri:falcon:feed:0.1">
    <frequency>days(1)</frequency>
    <clusters>
        <cluster name="primary" type="source">
            <validity start="2011-11-01T00:00Z" end="2011-12-31T00:00Z"/>
            <retention limit="days(90)" action="delete"/>
            <import>
                <source name="mysql-db" tableName="customers">
                    <extract type="full">
                        <mergepolicy>snapshot</mergepolicy>
                    </extract>
                    <fields>
                        <includes>
                            <field>id</field>
                            <field>name</field>
                        </includes>
                    </fields>
                </source>
                <arguments>
                    <argument name="--num-mappers" value="2"/>
                    <argument name="--split-by" value="id"/>
                </arguments>
            </import>
            <export>
                <target name="mysql-db" tableName="customer_summary">
                    <load type="updateonly"/>
                </target>
                <arguments>
                    <argument name="--update-key" value="id"/>
                </arguments>
            </export>
        </cluster>
    </clusters>
    <locations>
        <location type="data" path="/data/customers/${YEAR}/${MONTH}/${DAY}"/>
    </locations>
    <ACL owner="falcon" group="users" permission="0755"/>
    <schema location="/schemas/customers" provider="csv"/>
</feed>
"""


def _output_feed(name: str, directory: str) -> str:
    return f"""\
<feed name="{name}" description="joined impressions and clicks" xmlns="uri:falcon:feed:0.1">
    <groups>online,bi</groups>
    <frequency>hours(1)</frequency>
    <clusters>
        <cluster name="primary" type="source">
            <validity start="2011-11-01T00:00Z" end="2011-12-31T00:00Z"/>
            <retention limit="days(7)" action="delete"/>
        </cluster>
    </clusters>
    <locations>
        <location type="data" path="/data/{directory}/${{YEAR}}-${{MONTH}}-${{DAY}}/${{HOUR}}"/>
    </locations>
    <ACL owner="falcon" group="users" permission="0755"/>
    <schema location="/schemas/joined" provider="protobuf"/>
</feed>
"""


FEED_JOIN1 = _output_feed("imp-click-join1", "join1")
FEED_JOIN2 = _output_feed("imp-click-join2", "join2")

DATASOURCE_MYSQL = """\
<datasource name="mysql-db" colo="east" type="mysql" xmlns="uri:falcon:datasource:0.1">
    <interfaces>
        <interface type="readonly" endpoint="jdbc:mysql://db.east.example:3306/shop">
            <credential type="password-text">
                <userName>reader</userName>
                <passwordText>secret</passwordText>
            </credential>
        </interface>
        <interface type="write" endpoint="jdbc:mysql://db.east.example:3306/shop">
            <credential type="password-file">
                <userName>writer</userName>
                <passwordFile>/secure/writer.password</passwordFile>
            </credential>
            <properties>
                <property name="useSSL" value="true"/>
            </properties>
        </interface>
        <credential type="password-alias">
            <userName>admin</userName>
            <passwordAlias>
                <alias>shop.admin</alias>
                <providerPath>jceks://hdfs/secure/shop.jceks</providerPath>
            </passwordAlias>
        </credential>
    </interfaces>
    <driver>
        <clazz>com.mysql.jdbc.Driver</clazz>
        <jar>/libs/mysql-connector.jar</jar>
    </driver>
    <properties>
        <property name="fetchSize" value="1000"/>
    </properties>
</datasource>
"""

PROCESS_SAMPLE = """\
<process name="sample" xmlns="uri:falcon:process:0.1">
    <tags>owner=analytics</tags>
    <clusters>
        <cluster name="primary">
            <validity start="2011-11-02T00:00Z" end="2091-12-30T00:00Z"/>
        </cluster>
    </clusters>
    <parallel>1</parallel>
    <order>LIFO</order>
    <frequency>hours(1)</frequency>
    <sla shouldStartIn="hours(2)" shouldEndIn="hours(4)"/>
    <timezone>UTC</timezone>
    <inputs>
        <input name="impression" feed="impressionFeed" start="today(0,0)" end="today(2,0)" partition="*/US"/>
        <input name="clicks" feed="clicksFeed" start="yesterday(0,0)" end="yesterday(20,0)"/>
        <input name="clickRows" feed="clicksTable" start="today(0,0)" end="today(0,0)"/>
    </inputs>
    <outputs>
        <output name="impOutput" feed="imp-click-join1" instance="today(0,0)"/>
        <output name="clicksOutput" feed="imp-click-join2" instance="today(0,0)"/>
    </outputs>
    <properties>
        <property name="name1" value="value1"/>
        <property name="name2" value="value2"/>
    </properties>
    <workflow engine="spark" path="/apps/sample/workflow" lib="/apps/sample/lib/udfs.jar"/>
    <spark-attributes>
        <master>yarn-cluster</master>
        <name>sample</name>
        <class>org.example.Join</class>
        <jar>/apps/sample/lib/join.jar</jar>
        <spark-opts>--num-executors 2</spark-opts>
        <arg>--verbose</arg>
    </spark-attributes>
    <retry policy="periodic" delay="minutes(10)" attempts="3"/>
    <late-process policy="exp-backoff" delay="hours(1)">
        <late-input input="impression" workflow-path="/apps/sample/late"/>
        <late-input input="clicks" workflow-path="/apps/sample/late"/>
    </late-process>
</process>
"""

# Short names the tests use for the files, and where each file goes under entities/.
BASE_FILES: dict[str, tuple[str, str]] = {
    "primary": ("clusters/primary.xml", CLUSTER_PRIMARY),
    "backup": ("clusters/backup.xml", CLUSTER_BACKUP),
    "impressions": ("feeds/impressions.xml", FEED_IMPRESSIONS),
    "clicks": ("feeds/clicks.xml", FEED_CLICKS),
    "table": ("feeds/table.xml", FEED_CLICKS_TABLE),
    "customers": ("feeds/customers.xml", FEED_CUSTOMERS),
    "join1": ("feeds/join1.xml", FEED_JOIN1),
    "join2": ("feeds/join2.xml", FEED_JOIN2),
    "mysql": ("datasources/mysql.xml", DATASOURCE_MYSQL),
    "sample": ("processes/sample.xml", PROCESS_SAMPLE),
}

# Edits: (key, old, new); old=None adds (or replaces) the whole file.
Edit = tuple[str, str | None, str]
WriteEntity = Callable[[str, str], Path]
# A line marker: text on exactly one line of the file, or (text, n) for its n-th line.
Marker = str | tuple[str, int]


class EntityWorkspace:
    """The base files, edited by a test, written under ``tmp_path/entities`` and validated together."""

    now = NOW

    def __init__(self, write_entity: WriteEntity, tmp_path: Path) -> None:
        self._write = write_entity
        self.root = tmp_path / "entities"
        self.files: dict[str, str] = {key: xml for key, (_, xml) in BASE_FILES.items()}
        self.locations: dict[str, str] = {key: where for key, (where, _) in BASE_FILES.items()}

    # -- changing the workspace -----------------------------------------------------------------------------

    def edit(self, key: str, old: str, new: str) -> EntityWorkspace:
        text = self.files[key]
        assert text.count(old) == 1, f"{old!r} occurs {text.count(old)} times in {key}; a test edit needs one"
        self.files[key] = text.replace(old, new)
        return self

    def put(self, key: str, xml: str, where: str | None = None) -> EntityWorkspace:
        """Replace a file, or add one (at ``where`` under entities/, by default ``extra/<key>.xml``)."""
        self.files[key] = xml
        self.locations.setdefault(key, where or f"extra/{key}.xml")
        return self

    def apply(self, edits: Iterable[Edit]) -> EntityWorkspace:
        for key, old, new in edits:
            if old is None:
                self.put(key, new)
            else:
                self.edit(key, old, new)
        return self

    # -- running --------------------------------------------------------------------------------------------

    def validate(self, *, now: datetime = NOW, check_environment: bool = False) -> Report:
        """The report of the workspace, without its FA080 warnings (:func:`without_unused`)."""
        for key, xml in self.files.items():
            self._write(f"entities/{self.locations[key]}", xml)
        return without_unused(validate_paths([str(self.root)], now=now, check_environment=check_environment))

    # -- locating -------------------------------------------------------------------------------------------

    def path(self, key: str) -> str:
        return str(self.root / self.locations[key])

    def line(self, key: str, marker: Marker) -> int:
        """1-based line of a file holding ``marker``: the only such line, or the n-th for ``(marker, n)``."""
        text, nth = (marker, None) if isinstance(marker, str) else marker
        lines = textwrap.dedent(self.files[key]).lstrip().splitlines()
        found = [number for number, content in enumerate(lines, start=1) if text in content]
        if nth is None:
            assert len(found) == 1, f"marker {text!r} is on lines {found} of {key}; say which one"
            return found[0]
        return found[nth - 1]

    def entity_name(self, key: str) -> str:
        """The name on the root element of a file: the entity its issues belong to."""
        match = re.search(r'\bname="([^"]*)"', self.files[key])
        assert match is not None
        return match[1]

    # -- judging --------------------------------------------------------------------------------------------

    @staticmethod
    def rules(report: Report) -> set[str]:
        return {issue.rule for issue in report.issues}

    @staticmethod
    def describe(report: Report) -> str:
        return "\n".join(f"  {i.level} {i.rule} {i.file}:{i.line} {i.message}" for i in report.issues) or "  nothing"

    def assert_reported(self, report: Report, rule: str, key: str, marker: Marker, fragment: str, *,
                        also: Iterable[str] = (), level: Level = Level.ERROR) -> Issue:
        """``rule`` fired (besides it only the rules in ``also``) in file ``key`` on the marked line.

        The issue names the entity defined in that file, and its message contains ``fragment``.
        """
        assert self.rules(report) == {rule, *also}, \
            f"expected {rule} (and {sorted(also)}), got:\n{self.describe(report)}"
        expected_line = self.line(key, marker)
        matching = [issue for issue in report.issues
                    if issue.rule == rule and issue.file == self.path(key) and issue.line == expected_line
                    and fragment in issue.message]
        assert matching, f"no {rule} at {key}:{expected_line} saying {fragment!r}; got:\n{self.describe(report)}"
        issue = matching[0]
        assert issue.entity == self.entity_name(key)
        assert issue.level is level
        assert "could not be checked" not in issue.message, "the rule crashed instead of judging"
        return issue

    def assert_clean(self, report: Report) -> None:
        report = without_unused(report)
        assert report.issues == (), f"expected no issues, got:\n{self.describe(report)}"
        assert report.valid


CREDENTIAL_SETTINGS = {"AIRFLOW__FALCON__DATASOURCE_CREDENTIAL_ROOTS": "/secure",
                       "AIRFLOW__FALCON__DATASOURCE_CONNECTIONS": None}
"""The deployment the base workspace is valid in: its datasource reads a password file and a keystore under
/secure (rules FA040, FA041); connections keep the default allow-list."""


def _deployment(patch: pytest.MonkeyPatch) -> None:
    for name, value in CREDENTIAL_SETTINGS.items():
        if value is None:
            patch.delenv(name, raising=False)
        else:
            patch.setenv(name, value)


@pytest.fixture(autouse=True)
def credential_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    _deployment(monkeypatch)


@pytest.fixture
def ws(write_entity: WriteEntity, tmp_path: Path) -> EntityWorkspace:
    """A fresh copy of the valid base workspace."""
    return EntityWorkspace(write_entity, tmp_path)


@pytest.fixture(scope="session")
def base_report(tmp_path_factory: pytest.TempPathFactory) -> Report:
    """The base workspace validated once, with default options."""
    root = tmp_path_factory.mktemp("base")

    def write(relative: str, xml: str) -> Path:
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(xml).lstrip(), encoding="utf-8")
        return path

    with pytest.MonkeyPatch.context() as patch:
        _deployment(patch)
        return EntityWorkspace(write, root).validate()
