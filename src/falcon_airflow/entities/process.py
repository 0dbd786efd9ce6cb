"""The process entity: a job that runs on a schedule, consumes feed instances and produces new ones."""

from __future__ import annotations

from enum import StrEnum

from falcon_airflow.entities.base import (
    ACL,
    EntityType,
    Located,
    Notification,
    Property,
    Validity,
    ZonedEntity,
    properties_map,
)
from falcon_airflow.timekeeping import Frequency


class ExecutionOrder(StrEnum):
    FIFO = "FIFO"
    LIFO = "LIFO"
    LAST_ONLY = "LAST_ONLY"


class WorkflowEngine(StrEnum):
    OOZIE = "oozie"
    PIG = "pig"
    HIVE = "hive"
    SPARK = "spark"

    @property
    def runs_here(self) -> bool:
        """Spark jobs run as themselves, Hive scripts on Spark SQL, Oozie workflows node by node (docs/oozie.md);
        Pig has no engine here."""
        return self in (WorkflowEngine.SPARK, WorkflowEngine.HIVE, WorkflowEngine.OOZIE)


class PolicyType(StrEnum):
    PERIODIC = "periodic"
    EXP_BACKOFF = "exp-backoff"
    FINAL = "final"


class ProcessSLA(Located):
    should_start_in: Frequency | None = None
    should_end_in: Frequency | None = None


class ProcessCluster(Located):
    name: str
    version: int = 0
    validity: Validity
    sla: ProcessSLA | None = None


class Input(Located):
    name: str
    feed: str
    start: str
    end: str
    partition: str | None = None
    optional: bool = False


class Output(Located):
    name: str
    feed: str
    instance: str


class Workflow(Located):
    name: str | None = None
    version: str = "1.0"
    engine: WorkflowEngine = WorkflowEngine.OOZIE
    path: str
    lib: str | None = None

    @property
    def lib_paths(self) -> tuple[str, ...]:
        return tuple(part.strip() for part in (self.lib or "").split(",") if part.strip())


class SparkAttributes(Located):
    master: str | None = None
    mode: str | None = None
    name: str
    class_name: str | None = None
    jar: str
    spark_opts: str | None = None
    args: tuple[str, ...] = ()


class Retry(Located):
    policy: PolicyType
    delay: Frequency
    attempts: int
    on_timeout: bool = False


class LateInput(Located):
    input: str
    workflow_path: str


class LateProcess(Located):
    policy: PolicyType
    delay: Frequency
    late_inputs: tuple[LateInput, ...]


class Process(ZonedEntity):
    pipelines: tuple[str, ...] = ()
    clusters: tuple[ProcessCluster, ...]
    parallel: int
    order: ExecutionOrder
    timeout: Frequency | None = None
    frequency: Frequency
    sla: ProcessSLA | None = None
    inputs: tuple[Input, ...] = ()
    outputs: tuple[Output, ...] = ()
    properties: tuple[Property, ...] = ()
    workflow: Workflow
    spark_attributes: SparkAttributes | None = None
    retry: Retry | None = None
    late_process: LateProcess | None = None
    notification: Notification | None = None
    acl: ACL | None = None

    @property
    def entity_type(self) -> EntityType:
        return EntityType.PROCESS

    @property
    def property_map(self) -> dict[str, str]:
        return properties_map(self.properties)

    @property
    def workflow_name(self) -> str:
        return self.workflow.name or f"{self.name}-workflow"

    def cluster(self, name: str) -> ProcessCluster | None:
        return next((item for item in self.clusters if item.name == name), None)

    def input(self, name: str) -> Input | None:
        return next((item for item in self.inputs if item.name == name), None)

    @property
    def feed_names(self) -> tuple[str, ...]:
        """Every feed read or written, in order of appearance, without repeats."""
        names = [item.feed for item in self.inputs] + [item.feed for item in self.outputs]
        return tuple(dict.fromkeys(names))
