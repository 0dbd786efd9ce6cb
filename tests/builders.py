"""Entity XML builders and the standard cluster, feed and process used by unit, integration and golden tests and by
the benchmarks: only the parts a test is about vary."""

from __future__ import annotations

from pathlib import Path
from xml.sax.saxutils import escape, quoteattr

from falcon_airflow.workspace import Workspace

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


def interface(kind: str, endpoint: str, version: str = "1") -> str:
    """One ``<interface>`` of a cluster, for :func:`cluster`'s ``interfaces``."""
    return f'<interface type="{kind}" endpoint="{endpoint}" version="{version}"/>'


def cluster(name: str = "c1", storage: str = "file:///srv/c1", *, colo: str = "local",
            interfaces: str | tuple[str, ...] = (), readonly: str | None = None, spark: str | None = "local[2]",
            locations: dict[str, str] | None = None, properties: dict[str, str] | None = None,
            description: str | None = None, tags: str | None = None, acl: tuple[str, str] | None = None) -> str:
    """The standard cluster: storage at ``storage`` (a URI; ``readonly`` another endpoint to read it), Spark
    ``local[2]`` (``spark`` another master, None none), staging ``/staging`` (``locations`` instead: name to path).
    ``interfaces`` adds more, a line each (:func:`interface`: a registry, messaging, workflow ...); ``properties``
    (values as they are, escaped here), ``description``, ``tags`` (``k=v,...``) and ``acl`` (owner, group)."""
    endpoints = [interface("readonly", readonly or storage), interface("write", storage)]
    if spark is not None:
        endpoints.append(interface("spark", spark, "4"))
    endpoints += [interfaces] if isinstance(interfaces, str) and interfaces else list(interfaces)
    places = "".join(f'<location name="{kind}" path="{path}"/>'
                     for kind, path in (locations or {"staging": "/staging"}).items())
    lines = [f'<cluster name="{name}"' + (f" description={quoteattr(description)}" if description else "")
             + f' colo="{colo}" xmlns="uri:falcon:cluster:0.1">']
    if tags:
        lines.append(f"  <tags>{escape(tags)}</tags>")
    lines += ["  <interfaces>", *(f"    {item}" for item in endpoints), "  </interfaces>",
              f"  <locations>{places}</locations>"]
    if acl:
        lines.append(f'  <ACL owner="{acl[0]}" group="{acl[1]}"/>')
    if properties:
        lines.append("  <properties>" + "".join(f'<property name="{key}" value={quoteattr(value)}/>'
                                                for key, value in properties.items()) + "</properties>")
    return "\n".join([*lines, "</cluster>"]) + "\n"


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


def ops_cluster(name: str = "east", *, colo: str = "local", storage: str | Path = "/tmp/falcon-airflow-unit") -> str:
    """The operated pipeline's cluster: the standard cluster with its data in the local folder ``storage/<name>``."""
    return cluster(name, f"file://{storage}/{name}", colo=colo)


def ops_feed(name: str = "logs", *, days: int = 2, west: bool = False) -> str:
    """An hourly feed on ``east`` (source) and, with ``west``, replicated to ``west``; flag ``_DONE``."""
    return OPS_FEED.format(name=name, days=days, west=OPS_WEST if west else "")


def ops_process(name: str = "count", feed: str = "logs", output: str = "counts", *, order: str = "FIFO",
                timeout: str | None = None) -> str:
    """An hourly Spark process on ``east`` reading the current instance of ``feed`` and writing ``output``."""
    return OPS_PROCESS.format(name=name, feed=feed, output=output, order=order,
                              timeout=f"\n  <timeout>{timeout}</timeout>" if timeout else "")


OPS_DATASOURCE = """<datasource name="{name}" colo="here" type="postgres" xmlns="uri:falcon:datasource:0.1">
  <interfaces>
    <interface type="readonly" endpoint="jdbc:postgresql://db.example:5432/shop">
      <credential type="password-text"><userName>reader</userName><passwordText>secret</passwordText></credential>
    </interface>
    <interface type="write" endpoint="jdbc:postgresql://db.example:5432/shop">
      <credential type="password-text"><userName>writer</userName><passwordText>secret</passwordText></credential>
    </interface>
  </interfaces>
  <driver><clazz>org.postgresql.Driver</clazz><jar>/lib/postgresql.jar</jar></driver>
</datasource>
"""

OPS_EXPORT = """
      <export>
        <target name="{datasource}" tableName="{name}_copy"><load type="allowinsert"/></target>
        <arguments><argument name="--num-mappers" value="1"/></arguments>
      </export>"""

OPS_TRANSFER_FEED = """<feed name="{name}" xmlns="uri:falcon:feed:0.1">
  <availabilityFlag>_DONE</availabilityFlag>
  <frequency>hours(1)</frequency>
  <clusters>
    <cluster name="east" type="source">
      <validity start="2026-01-01T00:00Z" end="2099-01-01T00:00Z"/>
      <retention limit="days(2)" action="delete"/>
      <import>
        <source name="{datasource}" tableName="{name}">
          <extract type="full"><mergepolicy>snapshot</mergepolicy></extract>
          <fields><includes><field>id</field><field>amount</field></includes></fields>
        </source>
        <arguments><argument name="--num-mappers" value="1"/></arguments>
      </import>{export}
    </cluster>
    <cluster name="west" type="target">
      <validity start="2026-01-01T00:00Z" end="2099-01-01T00:00Z"/>
      <retention limit="days(30)" action="delete"/>{export}
    </cluster>
  </clusters>
  <locations><location type="data" path="/{name}/${{YEAR}}/${{MONTH}}/${{DAY}}/${{HOUR}}"/></locations>
  <ACL owner="ops" group="users" permission="*"/>
  <schema location="/none" provider="parquet"/>
</feed>
"""


def ops_datasource(name: str = "shop") -> str:
    """A PostgreSQL datasource in colo ``here`` with a readonly and a write interface (password-text users)."""
    return OPS_DATASOURCE.format(name=name)


def ops_transfer_feed(name: str = "orders", *, datasource: str = "shop") -> str:
    """An hourly feed imported from ``datasource`` on ``east`` (source), exported to it on ``east`` and ``west``
    (target, replicated from east): DAGs ``falcon.feed.<name>.import.east``, ``.export.east``, ``.export.west``."""
    return OPS_TRANSFER_FEED.format(name=name, datasource=datasource,
                                    export=OPS_EXPORT.format(name=name, datasource=datasource))
