"""Entity XML builders and the standard cluster, feed and process used by unit, integration and golden tests and by
the benchmarks: only the parts a test is about vary."""

from __future__ import annotations

from pathlib import Path

from falcon_airflow.workspace import Workspace

CLUSTER = """<cluster name="{name}" colo="{colo}" xmlns="uri:falcon:cluster:0.1">
  <interfaces>
    <interface type="readonly" endpoint="{storage}" version="1"/>
    <interface type="write" endpoint="{storage}" version="1"/>
    <interface type="spark" endpoint="local[2]" version="4"/>{interfaces}
  </interfaces>
  <locations><location name="staging" path="/staging"/></locations>
</cluster>
"""

FEED = """<feed name="{name}" xmlns="uri:falcon:feed:0.1">
  {partitions}
  {flag}
  <frequency>{frequency}</frequency>
  <timezone>{timezone}</timezone>
  <clusters>
    {clusters}
  </clusters>
  {storage}
  <ACL owner="o" group="g" permission="*"/>
  <schema location="/s" provider="csv"/>
</feed>
"""

FEED_CLUSTER = """<cluster name="{name}" type="{type}">
      <validity start="{start}" end="{end}"/>
      <retention limit="{retention}" action="delete"/>
    </cluster>"""

PROCESS = """<process name="{name}" xmlns="uri:falcon:process:0.1">
  <clusters><cluster name="{cluster}"><validity start="{start}" end="{end}"/></cluster></clusters>
  <parallel>1</parallel>
  <order>FIFO</order>
  <frequency>{frequency}</frequency>
  <timezone>{timezone}</timezone>
  {inputs}
  {outputs}
  <workflow engine="spark" path="/app"/>
  <spark-attributes><name>job</name><jar>/app/job.py</jar></spark-attributes>
</process>
"""


def cluster(name: str = "c1", storage: str = "file:///srv/c1", *, colo: str = "local", interfaces: str = "") -> str:
    """The standard cluster: local storage at ``storage`` (a URI), Spark ``local[2]``, staging ``/staging``;
    ``interfaces`` adds more (a registry ...)."""
    return CLUSTER.format(name=name, storage=storage, colo=colo, interfaces=f"\n    {interfaces}" if interfaces else "")


def feed(name: str = "f", *, frequency: str = "hours(1)", start: str = "2010-01-01T00:00Z",
         end: str = "2099-01-01T00:00Z", path: str = "/data/${YEAR}/${MONTH}/${DAY}/${HOUR}/${MINUTE}",
         timezone: str = "UTC", clusters: tuple[tuple[str, str], ...] = (("c1", "source"),),
         retention: str = "days(1000)", flag: str | None = None, partitions: tuple[str, ...] = (),
         table: str | None = None) -> str:
    """A feed; ``table`` (a catalog URI) stores it in a table instead of at ``path``."""
    placements = "\n    ".join(FEED_CLUSTER.format(name=item, type=kind, start=start, end=end, retention=retention)
                               for item, kind in clusters)
    parts = ("<partitions>" + "".join(f'<partition name="{p}"/>' for p in partitions) + "</partitions>"
             if partitions else "")
    storage = (f'<table uri="{table}"/>' if table is not None
               else f'<locations><location type="data" path="{path}"/></locations>')
    return FEED.format(name=name, frequency=frequency, timezone=timezone, clusters=placements, storage=storage,
                       flag=f"<availabilityFlag>{flag}</availabilityFlag>" if flag else "", partitions=parts)


def process(name: str = "p", *, frequency: str = "hours(1)", start: str = "2010-01-01T00:00Z",
            end: str = "2099-01-01T00:00Z", timezone: str = "UTC", cluster_name: str = "c1",
            inputs: tuple[tuple[str, str, str, str], ...] = (), outputs: tuple[tuple[str, str, str], ...] = (),
            optional: tuple[str, ...] = (), partitions: dict[str, str] | None = None) -> str:
    partitions = partitions or {}

    def input_xml(name: str, feed_name: str, first: str, last: str) -> str:
        extra = ' optional="true"' if name in optional else ""
        if name in partitions:
            extra += f' partition="{partitions[name]}"'
        return f'<input name="{name}" feed="{feed_name}" start="{first}" end="{last}"{extra}/>'

    ins = "".join(input_xml(*item) for item in inputs)
    outs = "".join(f'<output name="{n}" feed="{f}" instance="{i}"/>' for n, f, i in outputs)
    return PROCESS.format(name=name, cluster=cluster_name, start=start, end=end, frequency=frequency,
                          timezone=timezone, inputs=f"<inputs>{ins}</inputs>" if ins else "",
                          outputs=f"<outputs>{outs}</outputs>" if outs else "")


def workspace(folder: Path, *documents: str) -> Workspace:
    """Write the documents into ``folder`` and load them as one workspace (failing loudly on bad XML)."""
    folder.mkdir(parents=True, exist_ok=True)
    for index, text in enumerate(documents):
        (folder / f"entity-{index}.xml").write_text(text, encoding="utf-8")
    loaded = Workspace.load([str(folder)])
    problems = [issue for parsed in loaded.files for issue in parsed.issues if issue.is_error]
    assert not problems, problems
    return loaded


# -- the operated pipeline: feeds on east (and west), a process on east; the entity/instance commands' tests -----

OPS_FEED = """<feed name="{name}" xmlns="uri:falcon:feed:0.1">
  <availabilityFlag>_DONE</availabilityFlag>
  <frequency>hours(1)</frequency>
  <clusters>
    <cluster name="east" type="source">
      <validity start="2026-01-01T00:00Z" end="2099-01-01T00:00Z"/>
      <retention limit="days({days})" action="delete"/>
    </cluster>{west}
  </clusters>
  <locations><location type="data" path="/{name}/${{YEAR}}/${{MONTH}}/${{DAY}}/${{HOUR}}"/></locations>
  <ACL owner="ops" group="users" permission="*"/>
  <schema location="/none" provider="text"/>
</feed>
"""

OPS_WEST = """
    <cluster name="west" type="target">
      <validity start="2026-01-01T00:00Z" end="2099-01-01T00:00Z"/>
      <retention limit="days(30)" action="delete"/>
    </cluster>"""

OPS_PROCESS = """<process name="{name}" xmlns="uri:falcon:process:0.1">
  <clusters>
    <cluster name="east"><validity start="2026-01-01T00:00Z" end="2099-01-01T00:00Z"/></cluster>
  </clusters>
  <parallel>1</parallel>
  <order>{order}</order>{timeout}
  <frequency>hours(1)</frequency>
  <inputs><input name="input" feed="{feed}" start="now(0,0)" end="now(0,0)"/></inputs>
  <outputs><output name="output" feed="{output}" instance="now(0,0)"/></outputs>
  <workflow engine="spark" path="apps"/>
  <spark-attributes><name>{name}</name><jar>apps/job.py</jar></spark-attributes>
  <ACL owner="analytics" group="users" permission="*"/>
</process>
"""


def ops_feed(name: str = "logs", *, days: int = 2, west: bool = False) -> str:
    """An hourly feed on ``east`` (source) and, with ``west``, replicated to ``west``; flag ``_DONE``."""
    return OPS_FEED.format(name=name, days=days, west=OPS_WEST if west else "")


def ops_process(name: str = "count", feed: str = "logs", output: str = "counts", *, order: str = "FIFO",
                timeout: str | None = None) -> str:
    """An hourly Spark process on ``east`` reading the current instance of ``feed`` and writing ``output``."""
    return OPS_PROCESS.format(name=name, feed=feed, output=output, order=order,
                              timeout=f"\n  <timeout>{timeout}</timeout>" if timeout else "")
