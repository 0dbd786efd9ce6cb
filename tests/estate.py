"""A synthetic Falcon estate of any size, for the scale benchmarks and the tests that compare whole estates.

The shape is the one large deployments had: one cluster, N hourly feeds and N hourly Spark processes, process i
reading feed i-1 (the last two hours) and writing feed i, so the estate is one long chain of dependencies. Every
file is valid unless ``broken`` asks for some entities to be wrong in known ways (see :func:`write_estate`).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from tests.builders import cluster

FEED_XML = """<feed name="feed-{i}" xmlns="uri:falcon:feed:0.1">
  <tags>team=t{team}</tags>
  <availabilityFlag>_SUCCESS</availabilityFlag>
  <frequency>hours(1)</frequency>
  <late-arrival cut-off="hours(2)"/>
  <clusters>
    <cluster name="primary" type="source">
      <validity start="{start}" end="2099-01-01T00:00Z"/><retention limit="{retention}" action="delete"/>
    </cluster>
  </clusters>
  <locations><location type="data" path="/data/feed-{i}/${{YEAR}}/${{MONTH}}/${{DAY}}/${{HOUR}}"/></locations>
  <ACL owner="o" group="g" permission="*"/>
  <schema location="/s" provider="csv"/>
</feed>
"""
PROCESS_XML = """<process name="process-{i}" xmlns="uri:falcon:process:0.1">
  <clusters><cluster name="primary"><validity start="{start}" end="2099-01-01T00:00Z"/></cluster></clusters>
  <parallel>2</parallel>
  <order>FIFO</order>
  <frequency>hours(1)</frequency>
  <inputs><input name="in" feed="{source}" start="now(-2,0)" end="now(0,0)"/></inputs>
  <outputs><output name="out" feed="feed-{i}" instance="now(0,0)"/></outputs>
  <properties><property name="day" value="${{formatTime(instanceTime(), 'yyyy-MM-dd')}}"/></properties>
  <workflow engine="spark" path="/apps"/>
  <spark-attributes><name>job-{i}</name><jar>{jar}</jar><spark-opts>--driver-memory 1g</spark-opts></spark-attributes>
  <retry policy="periodic" delay="minutes(5)" attempts="2"/>
</process>
"""


def estate_documents(count: int, *, broken: int = 0, data_root: str = "/tmp/falcon-airflow-estate",
                     feed_start: str = "2025-01-01T00:00Z", process_start: str = "2026-01-01T00:00Z",
                     jar: str = "/apps/job.py") -> Iterator[tuple[str, str, str]]:
    """The estate's definitions as ``(kind, name, xml)``: the cluster first, then feed i and process i for each i
    (what :func:`write_estate` writes to files; a store takes them as they are)."""
    yield "cluster", "primary", cluster("primary", f"file://{data_root}/primary", colo="primary")
    for i in range(count):
        bad_feed = broken > 0 and i % broken == 0
        bad_process = broken > 0 and i % broken == broken // 2
        retention = "hours(1)" if bad_feed else "days(7)"
        yield "feed", f"feed-{i}", FEED_XML.format(i=i, team=i % 10, start=feed_start, retention=retention)
        source = "no-such-feed" if bad_process else f"feed-{(i - 1) % count}"
        yield "process", f"process-{i}", PROCESS_XML.format(i=i, source=source, start=process_start, jar=jar)


def write_estate(folder: Path, count: int, *, broken: int = 0, data_root: str = "/tmp/falcon-airflow-estate",
                 feed_start: str = "2025-01-01T00:00Z", process_start: str = "2026-01-01T00:00Z",
                 jar: str = "/apps/job.py") -> int:
    """Write one cluster, ``count`` feeds and ``count`` processes under ``folder``; returns the number of files.

    ``broken`` > 0 makes every ``broken``-th feed invalid (a retention shorter than its late cut-off, rule F9, so
    the process writing it and the one reading it are left out too) and every ``broken``-th process (offset by
    half) read a feed that does not exist.
    """
    folders = {"cluster": folder / "clusters", "feed": folder / "feeds", "process": folder / "processes"}
    for path in folders.values():
        path.mkdir(parents=True, exist_ok=True)
    written = 0
    for kind, name, xml in estate_documents(count, broken=broken, data_root=data_root, feed_start=feed_start,
                                            process_start=process_start, jar=jar):
        (folders[kind] / f"{name}.xml").write_text(xml)
        written += 1
    return written
