"""Entity XML used by the parsing tests: one small, schema-valid document per entity type.

The documents leave out every optional value whose default a test checks (time zone, workflow engine and
version, ACL permission, retention type, entity version), so that the defaults come from the builders.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

CLUSTER = """\
<?xml version="1.0" encoding="UTF-8"?>
<cluster name="primary" colo="local" description="Local storage" xmlns="uri:falcon:cluster:0.1">
    <tags>owner=data-platform,env=test</tags>
    <interfaces>
        <interface type="readonly" endpoint="file:///tmp/falcon-airflow/primary" version="1.0"/>
        <interface type="write" endpoint="file:///tmp/falcon-airflow/primary" version="1.0"/>
        <interface type="spark" endpoint="local[2]" version="4.0"/>
    </interfaces>
    <locations>
        <location name="staging" path="/falcon/staging"/>
        <location name="working" path="/falcon/working"/>
    </locations>
    <ACL owner="falcon" group="users"/>
    <properties>
        <property name="region" value="eu"/>
    </properties>
</cluster>
"""

FEED = """\
<?xml version="1.0" encoding="UTF-8"?>
<feed name="raw-clicks" description="Hourly click events" xmlns="uri:falcon:feed:0.1">
    <tags>source=web,format=csv</tags>
    <groups>clicks</groups>
    <availabilityFlag>_SUCCESS</availabilityFlag>
    <frequency>hours(1)</frequency>
    <late-arrival cut-off="hours(3)"/>
    <clusters>
        <cluster name="primary" type="source">
            <validity start="2026-01-01T00:00Z" end="2099-12-31T00:00Z"/>
            <retention limit="days(2)" action="delete"/>
        </cluster>
    </clusters>
    <locations>
        <location type="data" path="/data/raw-clicks/${YEAR}-${MONTH}-${DAY}/${HOUR}"/>
        <location type="stats" path="/stats/raw-clicks/${YEAR}-${MONTH}-${DAY}/${HOUR}"/>
    </locations>
    <ACL owner="falcon" group="users"/>
    <schema location="/schemas/clicks.csv" provider="csv"/>
</feed>
"""

PROCESS = """\
<?xml version="1.0" encoding="UTF-8"?>
<process name="count-clicks" xmlns="uri:falcon:process:0.1">
    <tags>team=analytics</tags>
    <pipelines>clickstream</pipelines>
    <clusters>
        <cluster name="primary">
            <validity start="2026-01-01T00:00Z" end="2099-12-31T00:00Z"/>
        </cluster>
    </clusters>
    <parallel>2</parallel>
    <order>FIFO</order>
    <frequency>hours(1)</frequency>
    <inputs>
        <input name="clicks" feed="raw-clicks" start="now(0,0)" end="now(0,0)"/>
    </inputs>
    <outputs>
        <output name="counts" feed="click-counts" instance="now(0,0)"/>
    </outputs>
    <workflow path="/apps/count-clicks/workflow.xml"/>
    <retry policy="periodic" delay="minutes(10)" attempts="3"/>
</process>
"""

DATASOURCE = """\
<?xml version="1.0" encoding="UTF-8"?>
<datasource name="orders-db" colo="local" type="mysql" xmlns="uri:falcon:datasource:0.1">
    <interfaces>
        <interface type="readonly" endpoint="jdbc:mysql://db.example.com:3306/orders">
            <credential type="password-text">
                <userName>reader</userName>
                <passwordText>not-a-secret</passwordText>
            </credential>
        </interface>
    </interfaces>
    <driver>
        <clazz>com.mysql.jdbc.Driver</clazz>
        <jar>/libs/mysql-connector-java.jar</jar>
    </driver>
</datasource>
"""

DOCUMENTS = {"cluster": CLUSTER, "feed": FEED, "process": PROCESS, "datasource": DATASOURCE}


@pytest.fixture
def documents() -> dict[str, str]:
    """A valid document per entity type, keyed by type name."""
    return dict(DOCUMENTS)


def _line_of(text: str, marker: str, occurrence: int = 1) -> int:
    """1-based line of the ``occurrence``-th appearance of ``marker`` in ``text``."""
    position = -1
    for _ in range(occurrence):
        position = text.index(marker, position + 1)
    return text.count("\n", 0, position) + 1


@pytest.fixture
def line_of() -> Callable[..., int]:
    """``line_of(text, marker, occurrence=1)``: the line a test expects an issue on."""
    return _line_of
