"""``metadata``: Falcon's discovery and lineage queries over the entity graph of the store."""

from __future__ import annotations

from falcon_airflow.operate.declarations import Action, CommandDeclaration, Option

ACTIONS_MODULE = "falcon_airflow.operate.metadata"

OPTIONS = (
    Option("type", "type", "the dimension: feed, process, cluster, datasource, user, colo, tags, groups, pipelines",
           "TYPE", audit="type"),
    Option("name", "name", "-relations: the vertex's name", "NAME", audit="name"),
    Option("cluster", "cluster", "-list: only what is on this cluster", "CLUSTER", audit="cluster"),
    Option("pipeline", "pipeline", "-lineage: the pipeline", "PIPELINE"),
)

ACTIONS = (
    Action("metadata", "list", "the names of one dimension (-type feed|process|cluster|datasource|user|colo|tags|"
           "groups|pipelines, or Falcon's FEED_ENTITY ...; -cluster: only what is on it)",
           f"{ACTIONS_MODULE}:list_dimension", "read", required=("type",), optional=("cluster",)),
    Action("metadata", "relations", "a vertex's relations, each with its edge label (-type, -name)",
           f"{ACTIONS_MODULE}:relations", "read", required=("type", "name")),
    Action("metadata", "lineage", "the processes of a pipeline and their feeds, as Graphviz DOT (-pipeline)",
           f"{ACTIONS_MODULE}:lineage", "read", required=("pipeline",)),
    Action("metadata", "dimensions", "every dimension with how many vertices it has", f"{ACTIONS_MODULE}:dimensions",
           "read"),
)

COMMAND = CommandDeclaration("metadata", ACTIONS, OPTIONS)
