"""A rich synthetic Falcon estate for the validation benchmark: every element the cluster, feed, process and
datasource XSDs allow a real entity to have, in proportions like those of large deployments.

:mod:`tests.estate` writes the thin estate the loader and scheduler benchmarks share (one input per process, one
property); this one is what ``validate`` meets in a real repository, so each rule has something to read:

* 3 clusters (``primary``, ``backup``, ``archive``) with every interface type, staging and working locations,
  tags, ACL and properties; 10 datasources (PostgreSQL, MySQL, generic) with interface credentials, drivers and
  properties;
* ``count`` feeds in groups of 25 that share a frequency (70 % hourly, 20 % daily, 10 % every 30 minutes), every one
  with tags, description, availability flag, ACL, schema and 2-6 properties; 60 % with a late-arrival cut-off,
  a third with an SLA, a quarter with two partitions, a quarter with a notification, three in ten replicated to the
  backup or archive cluster (per-cluster locations, delay, SLA), one in twenty with a lifecycle retention stage,
  one in 25 stored in a catalog table, one in 50 imported from a datasource and one in 100 exported to one; data,
  stats and meta locations;
* ``count`` processes, process i writing feed i and reading 1-4 earlier feeds (one in three inputs optional,
  partition filters on partitioned feeds), with 3-8 properties (EL among them), tags, pipelines, timeout, SLA,
  retry, late-process for its late-arriving inputs, notification and ACL; Spark workflows with every Spark
  attribute.

Every file is valid (``validate`` reports no issue at all), so every rule runs to the end on every entity.
"""

from __future__ import annotations

from pathlib import Path
from xml.sax.saxutils import quoteattr

CLUSTERS = ("primary", "backup", "archive")
DATASOURCES = 10
GROUP_SIZE = 25
FEED_START = "2025-01-01T00:00Z"
PROCESS_START = "2026-01-01T00:00Z"
END = "2099-01-01T00:00Z"

# frequency, path variables, how a process of this frequency names "its" instance, how long instances are kept
_HOURLY = ("hours(1)", "${YEAR}/${MONTH}/${DAY}/${HOUR}", "now(0,0)", "days(7)")
_DAILY = ("days(1)", "${YEAR}/${MONTH}/${DAY}", "today(0,0)", "days(30)")
_HALF_HOURLY = ("minutes(30)", "${YEAR}/${MONTH}/${DAY}/${HOUR}/${MINUTE}", "now(0,0)", "days(3)")


_GROUP_OF = {"hours(1)": "hourly", "days(1)": "daily", "minutes(30)": "halfhourly"}


def _cadence(i: int) -> tuple[str, str, str, str]:
    """The frequency of feed i and of the process writing it: one per group of 25 feeds (7 : 2 : 1)."""
    group = i // GROUP_SIZE
    return (_HOURLY, _HOURLY, _DAILY, _HOURLY, _HOURLY, _HALF_HOURLY, _HOURLY, _DAILY, _HOURLY, _HOURLY)[group % 10]


def _attribute(value: str) -> str:
    return quoteattr(value)


def cluster_xml(name: str, index: int) -> str:
    root = f"hdfs://nn-{name}.example.com:8020"
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<cluster name="{name}" description="Cluster {name} of the estate" colo="colo-{name}" version="{index}"
         xmlns="uri:falcon:cluster:0.1">
    <tags>owner=platform,env=prod,region=r{index}</tags>
    <interfaces>
        <interface type="readonly" endpoint="hftp://nn-{name}.example.com:50070" version="2.7.3"/>
        <interface type="write" endpoint="{root}" version="2.7.3"/>
        <interface type="execute" endpoint="rm-{name}.example.com:8050" version="2.7.3"/>
        <interface type="workflow" endpoint="http://oozie-{name}.example.com:11000/oozie/" version="4.2.0"/>
        <interface type="messaging" endpoint="tcp://mq-{name}.example.com:61616?daemon=true" version="5.4.6"/>
        <interface type="registry" endpoint="thrift://hms-{name}.example.com:9083" version="1.2.1"/>
        <interface type="spark" endpoint="yarn" version="3.5.1"/>
    </interfaces>
    <locations>
        <location name="staging" path="/apps/falcon/{name}/staging"/>
        <location name="working" path="/apps/falcon/{name}/working"/>
    </locations>
    <ACL owner="falcon" group="hadoop" permission="0755"/>
    <properties>
        <property name="field1" value="value1"/>
        <property name="hive.metastore.client.socket.timeout" value="60"/>
        <property name="dfs.namenode.kerberos.principal" value="nn/_HOST@EXAMPLE.COM"/>
        <property name="hive.metastore.kerberos.principal" value="hive/_HOST@EXAMPLE.COM"/>
        <property name="hive.metastore.sasl.enabled" value="true"/>
    </properties>
</cluster>
"""


_DRIVERS = (
    ("postgres", "org.postgresql.Driver", "postgresql-42.7.3.jar", "jdbc:postgresql://db{k}.example.com:5432/shop{k}"),
    ("mysql", "com.mysql.jdbc.Driver", "mysql-connector-java-5.1.49.jar", "jdbc:mysql://db{k}.example.com:3306/shop{k}"),
)


def datasource_xml(k: int) -> str:
    kind, driver, jar, endpoint = _DRIVERS[k % len(_DRIVERS)]
    url = endpoint.format(k=k)
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<datasource name="db-{k}" colo="colo-primary" type="{kind}" description="Operational database {k}" version="1"
            xmlns="uri:falcon:datasource:0.1">
    <tags>owner=shop,db=shop{k}</tags>
    <interfaces>
        <interface type="readonly" endpoint="{url}">
            <credential type="password-text">
                <userName>reader{k}</userName>
                <passwordText>reader-secret-{k}</passwordText>
            </credential>
            <properties><property name="fetchSize" value="1000"/></properties>
        </interface>
        <interface type="write" endpoint="{url}">
            <credential type="password-text">
                <userName>writer{k}</userName>
                <passwordText>writer-secret-{k}</passwordText>
            </credential>
        </interface>
        <credential type="password-text">
            <userName>falcon{k}</userName>
            <passwordText>default-secret-{k}</passwordText>
        </credential>
    </interfaces>
    <driver>
        <clazz>{driver}</clazz>
        <jar>/apps/drivers/{jar}</jar>
    </driver>
    <properties>
        <property name="connectTimeout" value="30"/>
        <property name="ssl" value="false"/>
    </properties>
    <ACL owner="shop" group="analytics" permission="0750"/>
</datasource>
"""


def _partitioned(i: int) -> bool:
    return i % 4 == 1 and not _table(i)


def _table(i: int) -> bool:
    return i % 25 == 7


def _late(i: int) -> bool:
    return i % 5 in (0, 1, 3)


def _replica(i: int) -> str | None:
    """The cluster feed i is replicated to, if any: a fifth go to ``backup``, a tenth to ``archive``."""
    if _table(i) or i % 10 not in (2, 4, 6):
        return None
    return "archive" if i % 10 == 6 else "backup"


def _imported(i: int) -> bool:
    return i % 50 == 4


def _exported(i: int) -> bool:
    return i % 100 == 9


def feed_xml(i: int) -> str:
    frequency, variables, _, keep = _cadence(i)
    team = i % 40
    group = f"g{i // GROUP_SIZE}"
    lines = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<feed name="feed-{i}" description="Dataset {i} of team {team}" version="{i % 3}" '
        'xmlns="uri:falcon:feed:0.1">',
        f"    <tags>owner=team-{team},tier={('gold', 'silver', 'bronze')[i % 3]},format=parquet</tags>",
    ]
    if _partitioned(i):
        lines.append('    <partitions><partition name="country"/><partition name="device"/></partitions>')
    lines += [
        f"    <groups>{group},{_GROUP_OF[frequency]}</groups>",
        "    <availabilityFlag>_SUCCESS</availabilityFlag>",
        f"    <frequency>{frequency}</frequency>",
    ]
    if i % 3 == 0:
        lines.append('    <sla slaLow="hours(2)" slaHigh="hours(4)"/>')
    lines.append("    <timezone>UTC</timezone>")
    if _late(i):
        lines.append(f'    <late-arrival cut-off="hours({2 + i % 5})"/>')
    lines.append("    <clusters>")
    lines += _feed_source(i, keep)
    replica = _replica(i)
    if replica is not None:
        lines += [
            f'        <cluster name="{replica}" type="target" delay="minutes(30)">',
            f'            <validity start="{FEED_START}" end="{END}"/>',
            '            <retention limit="days(90)" action="delete"/>',
            '            <sla slaLow="hours(3)" slaHigh="hours(6)"/>',
            "            <locations>",
            f'                <location type="data" path="/{replica}/feed-{i}/{variables}"/>',
            f'                <location type="stats" path="/{replica}/stats/feed-{i}"/>',
            "            </locations>",
            "        </cluster>",
        ]
    lines.append("    </clusters>")
    if _table(i):
        lines.append(f'    <table uri="catalog:warehouse:table_{i}#ds={variables.replace("/", "-")}"/>')
    else:
        lines += [
            "    <locations>",
            f'        <location type="data" path="/data/team-{team}/feed-{i}/{variables}"/>',
            f'        <location type="stats" path="/stats/team-{team}/feed-{i}/{variables}"/>',
            f'        <location type="meta" path="/meta/team-{team}/feed-{i}"/>',
            "    </locations>",
        ]
    if i % 4 == 3:
        level = ' level="instance"' if i % 8 == 3 else ""
        lines.append(f'    <notification type="email"{level} to="team-{team}@example.com,oncall@example.com"/>')
    lines += [
        f'    <ACL owner="team{team}" group="analytics" permission="0755"/>',
        f'    <schema location="/schemas/feed-{i}.avsc" provider="avro"/>',
        "    <properties>",
    ]
    properties = [("jobPriority", ("NORMAL", "HIGH", "LOW")[i % 3]), ("maxMaps", str(2 + i % 6)),
                  ("mapBandwidth", "100"), ("parallel", str(1 + i % 4)), ("owner.team", f"team-{team}"),
                  ("description.short", f"dataset {i}")]
    lines += [f"        <property name={_attribute(name)} value={_attribute(value)}/>"
              for name, value in properties[: 2 + i % 5]]
    lines.append("    </properties>")
    if i % 20 == 11:
        lines += [
            "    <lifecycle>",
            "        <retention-stage>",
            "            <frequency>days(1)</frequency>",
            "            <queue>default</queue>",
            "            <priority>LOW</priority>",
            '            <properties><property name="retention.policy.agebaseddelete.limit" value="days(14)"/>'
            "</properties>",
            "        </retention-stage>",
            "    </lifecycle>",
        ]
    lines.append("</feed>")
    return "\n".join(lines) + "\n"


def _feed_source(i: int, keep: str) -> list[str]:
    lines = [
        '        <cluster name="primary" type="source">',
        f'            <validity start="{FEED_START}" end="{END}"/>',
        f'            <retention limit="{keep}" action="delete"/>',
    ]
    if _imported(i):
        lines += [
            "            <import>",
            f'                <source name="db-{i % DATASOURCES}" tableName="orders_{i}">',
            '                    <extract type="full"><mergepolicy>snapshot</mergepolicy></extract>',
            "                    <fields><includes><field>id</field><field>customer</field><field>amount</field>"
            "</includes></fields>",
            "                </source>",
            "                <arguments>",
            '                    <argument name="--split-by" value="id"/>',
            '                    <argument name="--num-mappers" value="4"/>',
            "                </arguments>",
            "            </import>",
        ]
    if _exported(i):
        lines += [
            "            <export>",
            f'                <target name="db-{(i + 1) % DATASOURCES}" tableName="summary_{i}">',
            '                    <load type="updateonly"/>',
            "                </target>",
            '                <arguments><argument name="--update-key" value="id"/></arguments>',
            "            </export>",
        ]
    if i % 20 == 11:
        lines += [
            "            <lifecycle>",
            "                <retention-stage>",
            "                    <frequency>days(1)</frequency>",
            "                    <queue>default</queue>",
            '                    <properties><property name="retention.policy.agebaseddelete.limit" '
            'value="days(7)"/></properties>',
            "                </retention-stage>",
            "            </lifecycle>",
        ]
    lines.append("        </cluster>")
    return lines


def _inputs(i: int) -> list[tuple[int, bool]]:
    """The earlier feeds process i reads (feed index, optional): 1-4 of them, none twice."""
    if i == 0:
        return []
    wanted = 1 + i % 4
    picked: list[tuple[int, bool]] = []
    for step in (1, 2, 7, 13, 29):
        source = i - step
        if source < 0 or any(source == seen for seen, _ in picked):
            continue
        picked.append((source, len(picked) > 0 and (i + step) % 3 == 0 and not _table(source)))
        if len(picked) == wanted:
            break
    return picked


def _input_range(source: int, process_frequency: str) -> tuple[str, str]:
    """An input window over feed ``source`` for a process of ``process_frequency``."""
    feed_frequency = _cadence(source)[0]
    if feed_frequency == "days(1)":
        return "today(-1,0)", "today(0,0)"
    if process_frequency == "days(1)":
        return "now(-24,0)", "now(-1,0)"
    return ("now(-2,0)", "now(0,0)") if source % 2 else ("now(-1,0)", "now(0,0)")


def process_xml(i: int) -> str:
    frequency, _, instance, _ = _cadence(i)
    team = i % 40
    lines = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<process name="process-{i}" version="{i % 2}" xmlns="uri:falcon:process:0.1">',
        f"    <tags>owner=team-{team},pipeline=p{i % 17},criticality={('high', 'low')[i % 2]}</tags>",
    ]
    if i % 2 == 0:
        lines.append(f"    <pipelines>pipeline_{i % 17},daily_reports</pipelines>")
    lines += [
        "    <clusters>",
        '        <cluster name="primary">',
        f'            <validity start="{PROCESS_START}" end="{END}"/>',
    ]
    if i % 5 == 0:
        lines.append('            <sla shouldStartIn="minutes(30)" shouldEndIn="hours(2)"/>')
    lines += [
        "        </cluster>",
        "    </clusters>",
        f"    <parallel>{1 + i % 3}</parallel>",
        f"    <order>{('FIFO', 'LIFO', 'LAST_ONLY')[i % 3]}</order>",
    ]
    if i % 3 == 0:
        lines.append("    <timeout>hours(6)</timeout>")
    lines.append(f"    <frequency>{frequency}</frequency>")
    if i % 7 == 0:
        lines.append('    <sla shouldStartIn="hours(1)" shouldEndIn="hours(3)"/>')
    lines.append("    <timezone>UTC</timezone>")
    inputs = _inputs(i)
    late_inputs: list[str] = []
    if inputs:
        lines.append("    <inputs>")
        for number, (source, optional) in enumerate(inputs):
            start, end = _input_range(source, frequency)
            name = f"in{number}"
            partition = ' partition="country=us"' if _partitioned(source) and number % 2 == 0 else ""
            flag = ' optional="true"' if optional else ""
            lines.append(f'        <input name="{name}" feed="feed-{source}" start="{start}" end="{end}"'
                         f"{partition}{flag}/>")
            if _late(source) and not optional:
                late_inputs.append(name)
        lines.append("    </inputs>")
    lines += [
        "    <outputs>",
        f'        <output name="out" feed="feed-{i}" instance="{instance}"/>',
        "    </outputs>",
        "    <properties>",
    ]
    properties = [
        ("day", "${formatTime(instanceTime(), 'yyyy-MM-dd')}"),
        ("queueName", "default"),
        ("jobPriority", ("NORMAL", "HIGH", "VERY_HIGH")[i % 3]),
        ("hour", "${formatTime(instanceTime(), 'HH')}"),
        ("previousDay", "${formatTime(dateOffset(instanceTime(), -1, 'DAY'), 'yyyy-MM-dd')}"),
        ("owner.team", f"team-{team}"),
        ("retries.note", "see runbook"),
        ("output.format", "parquet"),
    ]
    lines += [f"        <property name={_attribute(name)} value={_attribute(value)}/>"
              for name, value in properties[: 3 + i % 6]]
    lines += [
        "    </properties>",
        f'    <workflow name="job-{i}" version="{1 + i % 4}.0" engine="spark" path="/apps/team-{team}/job-{i}"'
        f' lib="/apps/team-{team}/lib"/>',
        "    <spark-attributes>",
        "        <master>yarn</master>",
        "        <mode>cluster</mode>",
        f"        <name>job-{i}</name>",
        f"        <class>com.example.team{team}.Job{i}</class>",
        f"        <jar>/apps/team-{team}/job-{i}.jar</jar>",
        "        <spark-opts>--num-executors 4 --executor-cores 2 --executor-memory 4g</spark-opts>",
        "        <arg>--date</arg>",
        "        <arg>${formatTime(instanceTime(), 'yyyy-MM-dd')}</arg>",
        "    </spark-attributes>",
        f'    <retry policy="{("periodic", "exp-backoff", "final")[i % 3]}" delay="minutes({5 + i % 10})" '
        f'attempts="{1 + i % 3}"' + (' onTimeout="true"' if i % 6 == 0 else "") + "/>",
    ]
    if late_inputs:
        lines.append(f'    <late-process policy="{("exp-backoff", "periodic")[i % 2]}" delay="hours(1)">')
        lines += [f'        <late-input input="{name}" workflow-path="/apps/team-{team}/late-{i}"/>'
                  for name in late_inputs]
        lines.append("    </late-process>")
    if i % 4 == 2:
        lines.append(f'    <notification type="email" level="attempt" to="team-{team}@example.com"/>')
    lines += [
        f'    <ACL owner="team{team}" group="analytics" permission="0755"/>',
        "</process>",
    ]
    return "\n".join(lines) + "\n"


def write_rich_estate(folder: Path, count: int) -> int:
    """Write the clusters, datasources, ``count`` feeds and ``count`` processes under ``folder`` (one file each, in
    ``clusters/``, ``datasources/``, ``feeds/``, ``processes/``); returns the number of files written."""
    written = 0
    documents: list[tuple[str, str, str]] = [("clusters", name, cluster_xml(name, index))
                                             for index, name in enumerate(CLUSTERS)]
    documents += [("datasources", f"db-{k}", datasource_xml(k)) for k in range(DATASOURCES)]
    for kind in ("clusters", "datasources", "feeds", "processes"):
        (folder / kind).mkdir(parents=True, exist_ok=True)
    for kind, name, text in documents:
        (folder / kind / f"{name}.xml").write_text(text, encoding="utf-8")
        written += 1
    for i in range(count):
        (folder / "feeds" / f"feed-{i}.xml").write_text(feed_xml(i), encoding="utf-8")
        (folder / "processes" / f"process-{i}.xml").write_text(process_xml(i), encoding="utf-8")
        written += 2
    return written
