"""Every command of ``falcon-airflow`` (and, marked ``airflow=True``, of ``airflow falcon``), in one table.

Adding a command is one entry in :data:`COMMANDS` plus the function it names (``"module:function"``, taking the
parsed ``argparse.Namespace`` and returning the exit code); see docs/architecture.md.
"""

from __future__ import annotations

from falcon_airflow.cli.registry import Command, Option, option
from falcon_airflow.operate.arguments import all_specs

VALIDATE = Command(
    "validate", help="validate entity XML files and folders as one workspace",
    description="Validate Falcon entity XML (cluster, feed, process, datasource) and Oozie workflow "
                "definitions (workflow.xml; their issues carry Oozie's error codes). Files and folders "
                "(searched recursively for *.xml) form one workspace in which references resolve; the "
                "workflow of an Oozie process is found and judged as the process runs it. "
                "Exit 0 when valid, 1 when any error is found, 2 for a wrong command line.",
    options=(
        option("paths", nargs="*", metavar="PATH", help="entity files or folders (default: entities/)"),
        option("--schema-only", switch=True,
               help="judge each file alone: well-formedness, schema and per-entity structure"),
        option("--strict", switch=True, help="treat warnings as errors"),
        option("--format", choices=("text", "json", "junit", "github"), default="text",
               help="output format (default: text)"),
        option("--check-environment", switch=True,
               help="also check the outside world: endpoints reachable, staging folders, YARN "
                    "queues, workflow paths (off by default)"),
        option("--now", metavar="T",
               help="the time rules that depend on 'now' use (P10), as yyyy-MM-ddTHH:mmZ; "
                    "default: the current time"),
    ),
    run="falcon_airflow.cli.validate:run")

EL = Command(
    "el", help="evaluate a Falcon EL expression",
    description="Evaluate a Falcon EL expression at an instance time. Without a feed it is evaluated in "
                "action context; with --feed-frequency and --feed-start the result is snapped to that "
                "feed's instances (dataset context). Prints the result alone: a time as yyyy-MM-ddTHH:mmZ, "
                "a text as it is, an empty line when it names no instance.",
    options=(
        option("expression", metavar="EXPR"),
        option("--at", required=True, metavar="T", help="instance time, yyyy-MM-ddTHH:mmZ (UTC)"),
        option("--timezone", default="UTC", metavar="TZ", help="the entity's time zone (default: UTC)"),
        option("--feed-frequency", metavar="F", help="the feed's frequency, e.g. hours(1)"),
        option("--feed-start", metavar="S", help="the feed's first instance (validity start on the cluster)"),
    ),
    run="falcon_airflow.cli.el:run")

EXPLAIN = Command(
    "explain", help="show what an instance of a process or feed reads, writes, keeps and copies",
    description="For a process instance: each input with its feed instances and concrete paths, each output "
                "with its instance and path. For a feed instance: its path on each cluster, the retention "
                "cut-off that applies at that time, and the replication copies.",
    options=(
        option("name", metavar="NAME", help="a process or feed name"),
        option("--at", required=True, metavar="T", help="the instance time, yyyy-MM-ddTHH:mmZ (UTC)"),
        option("--entities", default="entities", metavar="DIR", help="the entities folder (default: entities/)"),
        option("--cluster", metavar="C", help="the cluster (default: the process's first cluster; "
                                              "every cluster of a feed)"),
        option("--type", choices=("process", "feed"), help="when a process and a feed share NAME"),
        option("--format", choices=("text", "json"), default="text"),
    ),
    run="falcon_airflow.cli.explain:run")

_SOURCES = (
    option("--events", nargs="+", metavar="PATH", help="event logs (.jsonl, .json) or folders of them"),
    option("--marquez", metavar="URL", help="a Marquez-compatible server (its raw events)"),
    option("--timeout", type=float, default=30.0, metavar="S", help="HTTP timeout (default 30)"),
    option("--output", metavar="FILE", help="write the answer here instead of stdout"),
)
_COLUMN_OF = (option("dataset", metavar="DATASET"), option("field", metavar="FIELD"))
_INSTANCE_RANGE = (
    option("--start", metavar="T", help="first instance (inclusive)"),
    option("--end", metavar="T", help="last instance (inclusive, as for the instance commands)"),
)
_LINEAGE_RUN = "falcon_airflow.cli.lineage:run"

LINEAGE = Command(
    "lineage", help="query OpenLineage events: entity graph, column lineage, field history, process instances",
    description="Questions answered from OpenLineage events: an event log (JSON lines, as the file transport "
                "writes it; default airflow-home/lineage/events.jsonl, else $AIRFLOW_HOME/lineage/events.jsonl) "
                "and/or a Marquez-compatible API (--marquez). Times are yyyy-MM-ddTHH:mmZ or ISO 8601; ranges "
                "are [start, end). DATASET is a feed (FEED, FEED@CLUSTER, falcon://CLUSTER/FEED: every "
                "instance) or a dataset URI (file:///path, hdfs://nn:8020/path, s3://bucket/key, "
                "hive://host:port/db.table). Exit 0 answered, 1 unknown dataset or process, 2 wrong command line.",
    subcommand_dest="question", subcommand_metavar="QUESTION",
    subcommands=(
        Command(
            "graph", help="Falcon's entity graph: clusters, feeds, processes, owners, tags, groups, pipelines",
            description="The entity graph of an entities folder and/or the events, with Falcon's vertex types and "
                        "edge labels (stored-in, runs-on, input, output, owned-by, grouped-as, pipeline, "
                        "replicated-to ...).",
            options=(
                option("--entities", metavar="DIR", help="an entities folder"),
                option("--instances", switch=True, help="also the process and feed instances of the events"),
                option("--format", choices=("json", "dot", "svg"), default="json"),
                *_SOURCES,
            ),
            run=_LINEAGE_RUN),
        Command(
            "column", help="where a column came from or went, per instance, across runs",
            description="For each instance of DATASET (inside --start/--end), the column edges of the "
                        "columnLineage facets reached from FIELD within --depth steps, with their transformation "
                        "types and runs.",
            options=(
                *_COLUMN_OF,
                option("--direction", choices=("upstream", "downstream", "both"), default="upstream"),
                option("--depth", type=int, default=10, metavar="N", help="steps to follow (default 10)"),
                *_INSTANCE_RANGE,
                option("--format", choices=("text", "json"), default="text"),
                *_SOURCES,
            ),
            run=_LINEAGE_RUN),
        Command(
            "field-history", help="every operation on a column across instances",
            description="Every run that wrote, read, copied or dropped FIELD of DATASET's instances, oldest first.",
            options=(*_COLUMN_OF, *_INSTANCE_RANGE, option("--format", choices=("text", "json"), default="text"),
                     *_SOURCES),
            run=_LINEAGE_RUN),
        Command(
            "instance", help="what a process instance read and wrote",
            description="The tasks of the process instance at --at, every try, what each read and wrote, and the "
                        "Spark runs under them with their column lineage.",
            options=(
                option("process", metavar="PROCESS"),
                option("--at", required=True, metavar="T", help="the instance time"),
                option("--cluster", metavar="C", help="the cluster (default: every cluster)"),
                option("--format", choices=("text", "json"), default="text"),
                *_SOURCES,
            ),
            run=_LINEAGE_RUN),
    ))


OOZIE = Command(
    "oozie", help="Oozie workflows: the graph of a workflow.xml and which of its actions run here",
    description="Oozie workflow definitions for migration review (validate them with 'falcon-airflow validate "
                "workflow.xml').",
    subcommand_dest="question", subcommand_metavar="QUESTION",
    subcommands=(
        Command(
            "graph", help="the nodes and transitions of a workflow (JSON, DOT or SVG)",
            description="The workflow's graph: nodes (start, end, kill, decision, fork, join, action:<type>) and "
                        "edges (start, ok, error, case, default, fork, join). With --support: which actions run "
                        "on falcon-airflow, what each becomes, and what to port the others to. Exit 0 shown, 1 "
                        "the workflow cannot be read, 2 wrong command line.",
            options=(
                option("workflow", metavar="WORKFLOW", help="a workflow.xml, or the app folder holding it"),
                option("--format", choices=("json", "dot", "svg", "text"),
                       help="json (default), dot or svg; with --support: text (default) or json"),
                option("--support", switch=True, help="which actions run here and which cannot, and why"),
                option("--output", metavar="FILE", help="write the answer here instead of stdout"),
            ),
            run="falcon_airflow.cli.oozie:graph"),
    ))


OPERATE_HELP: dict[str, tuple[str, str]] = {
    "entity": (
        "Falcon entity operations: submit, schedule, suspend, resume, delete, update, status, list ...",
        "Falcon's entity command on Airflow: the entities folder is the configuration store, each feed and process "
        "runs as Airflow DAGs. Exactly one action option."),
    "instance": (
        "Falcon instance operations: status, list, running, kill, suspend, resume, rerun, logs ...",
        "Falcon's instance command on Airflow: an instance is the DAG run of the instance time. Exactly one action "
        "option."),
    "admin": (
        "Falcon admin operations: status, version, setsafemode, stack",
        "Falcon's admin command: Airflow's health and version, and safemode (persisted in the store)."),
    "metadata": (
        "Falcon metadata queries: list, relations, lineage, dimensions of the entity graph",
        "Falcon's metadata command: discovery and pipeline lineage over the entity graph of the entities folder "
        "(Falcon's vertex types and edge labels). Exactly one action option."),
    "extension": (
        "Falcon's mirroring extensions: submit, schedule, list, instances ... of their jobs",
        "Falcon's extension command: hdfs-mirroring, hdfs-snapshot-mirroring and hive-mirroring jobs, each a "
        "properties file with Falcon's property names, kept in the store and run as DAG falcon.extension.<jobName>. "
        "Exactly one action option."),
}
"""Falcon's commands (their actions and options are declared in :mod:`falcon_airflow.operate.declarations`)."""


def operate_command(name: str) -> Command:
    """Falcon's ``entity``, ``instance``, ``admin``, ``metadata`` or ``extension``, as its declaration has it:
    Falcon's option names (one dash, camel case), one action option each."""
    summary, description = OPERATE_HELP[name]
    options = tuple(Option(flags=(spec.flag,), dest=spec.dest, help=spec.help, metavar=spec.metavar,
                           switch=spec.switch) for spec in all_specs(name))
    return Command(name, help=summary, description=description, options=options, allow_abbrev=False,
                   run=f"falcon_airflow.operate.commands:run_{name}", airflow=True)


_STATE = (option("--state", metavar="DIR", help="the sandbox's state folder: data, logs, process ids "
                                             "(default: ~/.cache/falcon-airflow/sandbox)"),)
_SANDBOX_RUN = "falcon_airflow.cli.sandbox:run"
SANDBOX = Command(
    "sandbox", help="a local sandbox of real services: two HDFS clusters, S3, a Hive metastore, Spark standalone, "
                    "YARN",
    description="Start, stop or describe a sandbox on 127.0.0.1: two MiniDFS clusters (namenode and WebHDFS "
                "each), an S3-compatible server with a bucket, a Hive metastore, a Spark standalone master "
                "with two workers and a YARN ResourceManager with one NodeManager (its yarn-site.xml in the "
                "sandbox's Hadoop configuration folder, for spark-submit --master yarn). up and status print the "
                "endpoints as JSON, for cluster entities.",
    subcommands=(
        Command("up", help="start every service (or none: a failure says which service and why)",
                options=(*_STATE, option("--secure", switch=True,
                                         help="a Kerberos KDC and the two HDFS clusters with Kerberos on (SPNEGO "
                                              "WebHDFS, SASL data transfer), keytabs and krb5.conf in the state "
                                              "folder; no S3, metastore, Spark or YARN")),
                run=_SANDBOX_RUN),
        Command("down", help="stop every service of the sandbox", options=_STATE, run=_SANDBOX_RUN),
        Command("status", help="the endpoints as JSON; exit 1 when the sandbox is not (all) running",
                options=_STATE, run=_SANDBOX_RUN),
    ))

STORE = Command(
    "store", help="Falcon's configuration store in Airflow's metadata database ([falcon] store = database)",
    description="The store the server keeps in Airflow's metadata database (tables made by 'airflow db migrate').",
    subcommand_dest="question", subcommand_metavar="ACTION",
    subcommands=(
        Command(
            "import", help="copy an entities folder and its state into the store",
            description="Copy an entities folder (and the state an older version kept beside it: schedule states, "
                        "-doAs users, safemode, archive, audit log) into the store in Airflow's metadata database. "
                        "Copies, never moves or deletes; a definition already stored with other bytes is reported "
                        "and left alone. Exit 0 imported (or nothing to do), 1 something was left alone, 2 wrong "
                        "command line.",
            options=(
                option("--entities", metavar="DIR", required=True, help="the entities folder to import"),
                option("--state", metavar="DIR",
                       help="its state folder (default: the store_dir setting, else the one the folder's commands "
                            "used)"),
            ),
            run="falcon_airflow.server.store_import:run", airflow=True),
    ), airflow=True)


PRISM = Command(
    "prism", help="Falcon's Prism ([falcon] mode = prism): one Falcon API in front of a server per colo",
    description="Commands of a Prism, Falcon's distributed mode (docs/prism.md).",
    subcommand_dest="question", subcommand_metavar="ACTION",
    subcommands=(
        Command(
            "sync", help="bring every colo up to date with the Prism's record",
            description="Ask the Prism to send each colo what it missed (a colo that was down while entities were "
                        "submitted, updated, scheduled or suspended), as the user running the command: each colo "
                        "server decides what that user may change. Prints each colo's result under its name. "
                        "Exit 0 every colo is up to date, 1 some colo could not be brought up to date (PARTIAL, "
                        "FAILED), 2 wrong command line.",
            options=(
                option("--url", metavar="URL", help="the Prism, http://<prism>:8080/falcon (default: FALCON_URL)"),
                option("--colo", metavar="COLOS", help="only these colos, comma-separated (Falcon's -colo)"),
            ),
            run="falcon_airflow.server.prism.sync_command:run"),
    ))

def commands() -> tuple[Command, ...]:
    """Every command, in the order ``falcon-airflow --help`` lists them (Falcon's built from their declarations
    now)."""
    return (VALIDATE, EL, EXPLAIN, LINEAGE, OOZIE, *(operate_command(name) for name in OPERATE_HELP), STORE,
            PRISM, SANDBOX)


COMMANDS: tuple[Command, ...] = commands()
"""Every command, in the order ``falcon-airflow --help`` lists them."""
