"""``falcon-airflow lineage``: questions about what ran, what it read and wrote, and where a column came from.

The answers come from OpenLineage events - an event log (JSON lines, as the ``file`` transport writes it) or a
Marquez-compatible API (:mod:`~falcon_airflow.lineage.events`) - indexed by :class:`LineageIndex`:

* every run (Airflow task, Spark child run) with its job, states, nominal time, parent and datasets;
* every physical dataset that is a feed instance: its ``symlinks`` name the feed (``falcon://<cluster>`` /
  ``<feed>``), its ``subset`` partitions the instance. A dataset below an instance's folder (a file the Spark job
  read) belongs to that instance;
* every column edge of a ``columnLineage`` facet: output (dataset, field) <- input (dataset, field), with the
  transformations and the run that produced it. Edges join across runs through the physical dataset: the column
  a process wrote to instance *i* of feed *F* is the column the next process read from instance *i* of *F*.

Queries: :func:`column_lineage` (upstream / downstream / both, to a depth, per instance, for instances in a time
range), :func:`field_history` (every operation on a column across instances: written, read, copied, dropped),
:func:`process_instance` (what a process instance read and wrote, with its Spark runs). The entity graph is in
:mod:`falcon_airflow.lineage.graph`. Standard library only.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, NamedTuple

from falcon_airflow.core.naming import (
    FALCON_SCHEME,
    FEED_SYMLINK_TYPE,
    DatasetId,
    event_dataset,
    parse_dataset,
    parse_job_name,
)
from falcon_airflow.core.times import format_instant
from falcon_airflow.lineage.events import Event

TERMINAL = ("COMPLETE", "FAIL", "ABORT")


class QueryError(Exception):
    """The question names something the lineage does not know (exit code 1 on the command line)."""


class FeedInstance(NamedTuple):
    feed: str
    cluster: str
    instance: str | None
    """``yyyy-MM-ddTHH:mmZ``, or ``None`` when the events do not say."""


def parse_time(text: str) -> datetime:
    """``yyyy-MM-ddTHH:mmZ`` (Falcon) or any ISO 8601 time; a time without zone is UTC."""
    value = text.strip()
    if value.endswith("Z"):
        value = value[:-1] + "+00:00"
    moment = datetime.fromisoformat(value)
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def _time_or_none(text: Any) -> datetime | None:
    if not isinstance(text, str) or not text:
        return None
    try:
        return parse_time(text)
    except ValueError:
        return None


def dataset_of(data: Mapping[str, Any]) -> DatasetId | None:
    """The normalised identity of a dataset of an event (paths normalised as :mod:`naming` does)."""
    namespace, name = data.get("namespace"), data.get("name")
    if not isinstance(namespace, str) or not isinstance(name, str):
        return None
    return event_dataset(namespace, name)


def _facet(data: Mapping[str, Any], group: str, key: str) -> dict[str, Any]:
    value = (data.get(group) or {}).get(key)
    return value if isinstance(value, dict) else {}


def feed_links(data: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(cluster, feed) of a dataset's FEED symlinks."""
    links = []
    for item in _facet(data, "facets", "symlinks").get("identifiers") or []:
        if not isinstance(item, dict) or item.get("type") != FEED_SYMLINK_TYPE:
            continue
        namespace, name = str(item.get("namespace", "")), str(item.get("name", ""))
        if namespace.startswith(f"{FALCON_SCHEME}://") and name:
            links.append((namespace.removeprefix(f"{FALCON_SCHEME}://"), name))
    return links


def subset_partitions(data: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The dimensions of a dataset's subset partitions (input or output facet)."""
    found = []
    for group, key in (("inputFacets", "inputCondition"), ("outputFacets", "outputCondition")):
        condition = _facet(data, group, "subset").get(key) or {}
        if isinstance(condition, dict) and condition.get("type") == "partition":
            for partition in condition.get("partitions") or []:
                if isinstance(partition, dict) and isinstance(partition.get("dimensions"), dict):
                    found.append(partition["dimensions"])
    return found


@dataclass
class DatasetUse:
    """A dataset as one run saw it (its JSON, merged over the run's events)."""

    dataset: DatasetId
    data: dict[str, Any]
    instances: list[FeedInstance] = field(default_factory=list)


@dataclass
class Run:
    run_id: str
    job_namespace: str = ""
    job_name: str = ""
    states: list[str] = field(default_factory=list)
    first_time: str = ""
    last_time: str = ""
    nominal_start: str | None = None
    nominal_end: str | None = None
    parent_run_id: str | None = None
    parent_job: str | None = None
    inputs: dict[DatasetId, DatasetUse] = field(default_factory=dict)
    outputs: dict[DatasetId, DatasetUse] = field(default_factory=dict)
    run_facets: dict[str, Any] = field(default_factory=dict)
    job_facets: dict[str, Any] = field(default_factory=dict)

    @property
    def state(self) -> str:
        terminal = [state for state in self.states if state in TERMINAL]
        return terminal[-1] if terminal else (self.states[-1] if self.states else "UNKNOWN")

    @property
    def try_number(self) -> int | None:
        """The Airflow task try this run is, from the ``airflow`` run facet of Airflow's OpenLineage provider."""
        airflow = self.run_facets.get("airflow")
        task_instance = airflow.get("taskInstance") if isinstance(airflow, dict) else None
        value = task_instance.get("try_number") if isinstance(task_instance, dict) else None
        try:
            return int(value) if value is not None else None
        except (TypeError, ValueError):
            return None

    def summary(self) -> dict[str, Any]:
        return {"runId": self.run_id, "job": f"{self.job_namespace}/{self.job_name}", "state": self.state,
                "nominalTime": self.nominal_start, "eventTime": self.last_time, "try": self.try_number}


@dataclass(frozen=True)
class ColumnEdge:
    """``output`` field was derived from ``input`` field in ``run`` (``dataset_level``: an INDIRECT dependency of
    the whole output, such as a filter or a join, listed in the facet's ``dataset`` part)."""

    output: DatasetId
    output_field: str
    input: DatasetId
    input_field: str
    transformations: tuple[tuple[tuple[str, Any], ...], ...]
    run_id: str
    dataset_level: bool = False


@dataclass(frozen=True)
class LifecycleChange:
    dataset: DatasetId
    state: str
    previous: DatasetId | None
    run_id: str


class LineageIndex:
    """Runs, feed instances and column edges of a set of events."""

    def __init__(self, events: Iterable[Event]) -> None:
        self.runs: dict[str, Run] = {}
        self.instances: dict[DatasetId, list[FeedInstance]] = {}
        self.schemas: dict[DatasetId, list[str]] = {}
        self.owners: dict[tuple[str, str], set[str]] = {}
        self._edges: dict[ColumnEdge, None] = {}
        self._lifecycle: dict[LifecycleChange, None] = {}
        self.events = 0
        for event in sorted((item for item in events if isinstance(item, dict)),
                            key=lambda item: str(item.get("eventTime", ""))):
            self._add(event)
        self.edges = [self._canonical_edge(edge) for edge in self._edges]
        self.lifecycle = list(self._lifecycle)

    # -- building -------------------------------------------------------------------------------------------------

    def _add(self, event: Event) -> None:
        self.events += 1
        if isinstance(event.get("dataset"), dict):  # a DatasetEvent may name the feed of a dataset
            self._register(event["dataset"])
            return
        run_data = event.get("run")
        if not isinstance(run_data, dict) or not run_data.get("runId"):
            return
        run = self.runs.setdefault(str(run_data["runId"]), Run(str(run_data["runId"])))
        job = event.get("job") or {}
        run.job_namespace = str(job.get("namespace") or run.job_namespace)
        run.job_name = str(job.get("name") or run.job_name)
        if event.get("eventType"):
            run.states.append(str(event["eventType"]))
        moment = str(event.get("eventTime") or "")
        run.first_time = min(run.first_time, moment) if run.first_time else moment
        run.last_time = max(run.last_time, moment)
        run.run_facets.update(run_data.get("facets") or {})
        run.job_facets.update(job.get("facets") or {})
        nominal = _facet(run_data, "facets", "nominalTime")
        if nominal.get("nominalStartTime"):
            run.nominal_start, run.nominal_end = nominal["nominalStartTime"], nominal.get("nominalEndTime")
        parent = _facet(run_data, "facets", "parent")
        if parent:
            run.parent_run_id = (parent.get("run") or {}).get("runId") or run.parent_run_id
            parent_job = parent.get("job") or {}
            if parent_job.get("name"):
                run.parent_job = f"{parent_job.get('namespace', '')}/{parent_job['name']}"
        for side, uses in (("inputs", run.inputs), ("outputs", run.outputs)):
            for data in event.get(side) or []:
                if not isinstance(data, dict):
                    continue
                dataset = dataset_of(data)
                if dataset is None:
                    continue
                instances = self._register(data)
                use = uses.setdefault(dataset, DatasetUse(dataset, {}))
                for key in ("facets", "inputFacets", "outputFacets"):
                    if isinstance(data.get(key), dict):
                        use.data.setdefault(key, {}).update(data[key])
                use.instances = list(dict.fromkeys([*use.instances, *instances]))
                if side == "outputs":
                    self._column_edges(dataset, data, run.run_id)
                    change = _facet(data, "facets", "lifecycleStateChange")
                    if change.get("lifecycleStateChange"):
                        previous = change.get("previousIdentifier") or {}
                        self._lifecycle[LifecycleChange(
                            dataset, str(change["lifecycleStateChange"]),
                            dataset_of(previous) if previous.get("name") else None, run.run_id)] = None

    def _register(self, data: Mapping[str, Any]) -> list[FeedInstance]:
        dataset = dataset_of(data)
        if dataset is None:
            return []
        schema = _facet(data, "facets", "schema").get("fields")
        if isinstance(schema, list):
            self.schemas[dataset] = [str(item.get("name")) for item in schema if isinstance(item, dict)]
        links = feed_links(data)
        if not links:
            return []
        partitions = subset_partitions(data)
        found: list[FeedInstance] = []
        for cluster, feed in links:
            moments = [str(dims["instance"]) for dims in partitions
                       if dims.get("instance") and dims.get("feed", feed) == feed
                       and dims.get("cluster", cluster) == cluster]
            found += [FeedInstance(feed, cluster, moment) for moment in moments] or [FeedInstance(feed, cluster, None)]
        known = self.instances.setdefault(dataset, [])
        known.extend(item for item in dict.fromkeys(found) if item not in known)
        dated = {(item.feed, item.cluster) for item in known if item.instance}
        known[:] = [item for item in known if item.instance or (item.feed, item.cluster) not in dated]
        owners = _facet(data, "facets", "ownership").get("owners") or []
        for cluster, feed in links:
            self.owners.setdefault((cluster, feed), set()).update(
                str(owner.get("name")) for owner in owners if isinstance(owner, dict) and owner.get("name"))
        return found

    def _column_edges(self, output: DatasetId, data: Mapping[str, Any], run_id: str) -> None:
        facet = _facet(data, "facets", "columnLineage")
        fields = facet.get("fields") or {}
        if not isinstance(fields, dict):
            return
        for name, spec in fields.items():
            for source in (spec or {}).get("inputFields") or []:
                self._edge(output, str(name), source, run_id, False)
        for source in facet.get("dataset") or []:
            for name in fields or self.schemas.get(output, []):
                self._edge(output, str(name), source, run_id, True)

    def _edge(self, output: DatasetId, name: str, source: Any, run_id: str, dataset_level: bool) -> None:
        if not isinstance(source, dict) or not source.get("field"):
            return
        dataset = dataset_of(source)
        if dataset is None:
            return
        transformations = tuple(tuple(sorted((str(key), value) for key, value in item.items()
                                             if isinstance(value, str | bool | int | float)))
                                for item in source.get("transformations") or [] if isinstance(item, dict))
        self._edges[ColumnEdge(output, name, dataset, str(source["field"]), transformations, run_id,
                               dataset_level)] = None

    # -- resolving ------------------------------------------------------------------------------------------------

    def canonical(self, dataset: DatasetId) -> DatasetId:
        """The known feed-instance dataset ``dataset`` is (or is below: a file of an instance folder)."""
        if dataset in self.instances:
            return dataset
        name = dataset.name.rstrip("/")
        while "/" in name.strip("/"):
            name = name.rsplit("/", 1)[0]
            parent = DatasetId(dataset.namespace, name or "/")
            if parent in self.instances:
                return parent
        return dataset

    def _canonical_edge(self, edge: ColumnEdge) -> ColumnEdge:
        return ColumnEdge(self.canonical(edge.output), edge.output_field, self.canonical(edge.input),
                          edge.input_field, edge.transformations, edge.run_id, edge.dataset_level)

    def instances_of(self, dataset: DatasetId) -> list[FeedInstance]:
        return self.instances.get(self.canonical(dataset), [])

    def feed_datasets(self, feed: str, cluster: str | None = None) -> list[DatasetId]:
        return [dataset for dataset, items in self.instances.items()
                if any(item.feed == feed and (cluster is None or item.cluster == cluster) for item in items)]

    def resolve(self, text: str) -> list[DatasetId]:
        """The datasets a command-line DATASET names: ``FEED``, ``FEED@CLUSTER``, ``falcon://CLUSTER/FEED`` (every
        instance), or a dataset URI / absolute path (that dataset)."""
        parsed = parse_dataset(text)
        if parsed is not None and parsed.namespace.startswith(f"{FALCON_SCHEME}://"):
            return self.feed_datasets(parsed.name, parsed.namespace.removeprefix(f"{FALCON_SCHEME}://"))
        if parsed is not None:
            return [self.canonical(parsed)]
        feed, _, cluster = text.strip().partition("@")
        return self.feed_datasets(feed, cluster or None)

    def describe(self, dataset: DatasetId) -> dict[str, Any]:
        described: dict[str, Any] = {"dataset": dataset.uri, "namespace": dataset.namespace, "name": dataset.name}
        instances = self.instances_of(dataset)
        if instances:
            described["feed"] = sorted({f"{item.feed}@{item.cluster}" for item in instances})
            described["instances"] = sorted({item.instance for item in instances if item.instance})
        return described

    def run_summary(self, run_id: str) -> dict[str, Any]:
        run = self.runs.get(run_id)
        return run.summary() if run is not None else {"runId": run_id}


def _in_range(moments: Sequence[str | None], fallback: str | None, start: datetime | None,
              end: datetime | None) -> bool:
    """Whether an instance lies in ``start`` .. ``end``, both inclusive, as the instance commands read ``-start`` and
    ``-end``."""
    if start is None and end is None:
        return True
    times = [_time_or_none(item) for item in moments if item] or [_time_or_none(fallback)]
    for moment in times:
        if moment is None:
            continue
        if (start is None or moment >= start) and (end is None or moment <= end):
            return True
    return False


def _transformations(edge: ColumnEdge) -> list[dict[str, Any]]:
    return [dict(item) for item in edge.transformations]


def _starting_points(index: LineageIndex, dataset: str, start: datetime | None,
                     end: datetime | None) -> list[DatasetId]:
    found = index.resolve(dataset)
    if not found:
        raise QueryError(f"no dataset or feed '{dataset}' in the lineage")
    chosen = []
    for item in found:
        instances = [entry.instance for entry in index.instances_of(item)]
        times = [run.last_time for run in index.runs.values() if item in run.outputs or item in run.inputs]
        if _in_range(instances, min(times) if times else None, start, end):
            chosen.append(item)
    return sorted(chosen, key=lambda item: (sorted(i.instance or "" for i in index.instances_of(item)), item))


def column_lineage(index: LineageIndex, dataset: str, field_name: str, *, direction: str = "upstream",
                   depth: int = 10, start: datetime | None = None, end: datetime | None = None) -> dict[str, Any]:
    """Where a column of each instance came from (``upstream``), where it went (``downstream``) or both: every
    column edge within ``depth`` steps, following the columnLineage facets of every run."""
    if direction not in ("upstream", "downstream", "both"):
        raise ValueError(f"direction {direction!r} is not upstream, downstream or both")
    by_output: dict[tuple[DatasetId, str], list[ColumnEdge]] = {}
    by_input: dict[tuple[DatasetId, str], list[ColumnEdge]] = {}
    for edge in index.edges:
        by_output.setdefault((edge.output, edge.output_field), []).append(edge)
        by_input.setdefault((edge.input, edge.input_field), []).append(edge)
    answers = []
    for origin in _starting_points(index, dataset, start, end):
        answer = {**index.describe(origin), "field": field_name}
        for way in ("upstream", "downstream"):
            if direction not in (way, "both"):
                continue
            table = by_output if way == "upstream" else by_input
            answer[way] = _walk(index, table, (origin, field_name), way, depth)
        answers.append(answer)
    return {"query": {"dataset": dataset, "field": field_name, "direction": direction, "depth": depth,
                      "start": start.isoformat() if start else None, "end": end.isoformat() if end else None},
            "instances": answers}


def _walk(index: LineageIndex, table: Mapping[tuple[DatasetId, str], list[ColumnEdge]],
          origin: tuple[DatasetId, str], way: str, depth: int) -> list[dict[str, Any]]:
    steps: list[dict[str, Any]] = []
    seen = {origin}
    queue: deque[tuple[tuple[DatasetId, str], int]] = deque([(origin, 1)])
    while queue:
        node, level = queue.popleft()
        if level > depth:
            continue
        for edge in table.get(node, []):
            following = (edge.input, edge.input_field) if way == "upstream" else (edge.output, edge.output_field)
            steps.append({"depth": level,
                          "from": {**index.describe(edge.input), "field": edge.input_field},
                          "to": {**index.describe(edge.output), "field": edge.output_field},
                          "transformations": _transformations(edge), "datasetLevel": edge.dataset_level,
                          "run": index.run_summary(edge.run_id)})
            if following not in seen:
                seen.add(following)
                queue.append((following, level + 1))
    return steps


def field_history(index: LineageIndex, dataset: str, field_name: str, *, start: datetime | None = None,
                  end: datetime | None = None) -> dict[str, Any]:
    """Every operation on a column across the instances of a dataset or feed, oldest first: ``write`` (a run
    derived it, with its inputs), ``copy`` (an IDENTITY copy to another dataset), ``read`` (a run derived another
    column from it), ``drop`` / ``rename`` / ... (a lifecycle change of the instance that held it)."""
    targets = set(_starting_points(index, dataset, start, end))
    rows: list[dict[str, Any]] = []
    written: dict[tuple[DatasetId, str], list[ColumnEdge]] = {}
    for edge in _collapsed(index.edges):  # a filter on the column is one read, not one per output field
        if edge.output in targets and edge.output_field == field_name and not edge.dataset_level:
            written.setdefault((edge.output, edge.run_id), []).append(edge)
        if edge.input in targets and edge.input_field == field_name:
            copy = any(dict(item).get("subtype") == "IDENTITY" for item in edge.transformations)
            rows.append({"operation": "copy" if copy and edge.output_field == field_name else "read",
                         "dataset": index.describe(edge.input), "run": index.run_summary(edge.run_id),
                         "to": {**index.describe(edge.output), "field": edge.output_field},
                         "transformations": _transformations(edge), "datasetLevel": edge.dataset_level})
    for (output, run_id), edges in written.items():
        rows.append({"operation": "write", "dataset": index.describe(output), "run": index.run_summary(run_id),
                     "from": [{**index.describe(edge.input), "field": edge.input_field,
                               "transformations": _transformations(edge)} for edge in edges]})
    described = {(output, run_id) for output, run_id in written}
    for run in index.runs.values():
        for output in run.outputs:
            if output in targets and (output, run.run_id) not in described and field_name in _schema_fields(
                    run.outputs[output]):
                rows.append({"operation": "write", "dataset": index.describe(output), "run": run.summary(),
                             "from": []})
    for change in index.lifecycle:
        previous = index.canonical(change.previous) if change.previous is not None else None
        current = index.canonical(change.dataset)
        subject = previous if previous in targets else current if current in targets else None
        if subject is not None:
            rows.append({"operation": change.state.lower(), "dataset": index.describe(subject),
                         "run": index.run_summary(change.run_id),
                         **({"to": index.describe(current)} if subject == previous else {})})
    rows.sort(key=lambda row: (str(row["run"].get("eventTime") or ""), row["operation"]))
    return {"query": {"dataset": dataset, "field": field_name, "start": start.isoformat() if start else None,
                      "end": end.isoformat() if end else None}, "operations": rows}


def _schema_fields(use: DatasetUse) -> list[str]:
    fields = ((use.data.get("facets") or {}).get("schema") or {}).get("fields") or []
    return [str(item.get("name")) for item in fields if isinstance(item, dict)]


def _uses(index: LineageIndex, uses: Mapping[DatasetId, DatasetUse]) -> list[dict[str, Any]]:
    return [{**index.describe(dataset), "fields": _schema_fields(use)} for dataset, use in uses.items()]


def _collapsed(edges: Sequence[ColumnEdge]) -> list[ColumnEdge]:
    """Field edges as they are; a dependency of the whole dataset once, with output field ``*``."""
    seen: dict[ColumnEdge, None] = {}
    for edge in edges:
        if edge.dataset_level:
            edge = ColumnEdge(edge.output, "*", edge.input, edge.input_field, edge.transformations, edge.run_id, True)
        seen.setdefault(edge, None)
    return list(seen)


def process_instance(index: LineageIndex, process: str, at: datetime, cluster: str | None = None) -> dict[str, Any]:
    """What an instance of a process read and wrote: its workflow runs (every try) with their datasets, the Spark
    runs under them (with their column lineage), and the other tasks of the instance."""
    tasks = []
    for run in index.runs.values():
        name = parse_job_name(run.job_name)
        if name is None or name.kind != "process" or name.entity != process:
            continue
        if cluster is not None and name.clusters[0] != cluster:
            continue
        nominal = _time_or_none(run.nominal_start)
        if nominal is None or nominal != at:
            continue
        tasks.append((name, run))
    if not tasks:
        raise QueryError(f"no run of process '{process}' at {format_instant(at)} in the lineage")
    children: dict[str, list[Run]] = {}
    for run in index.runs.values():
        if run.parent_run_id:
            children.setdefault(run.parent_run_id, []).append(run)
    answer: dict[str, Any] = {"process": process, "instance": format_instant(at), "tasks": []}
    for name, run in sorted(tasks, key=lambda item: (item[1].first_time, item[1].try_number or 0, item[1].run_id)):
        entry: dict[str, Any] = {"task": name.task, "cluster": name.clusters[0], **run.summary(),
                                 "inputs": _uses(index, run.inputs), "outputs": _uses(index, run.outputs)}
        spark = []
        for child in sorted(children.get(run.run_id, []), key=lambda item: item.first_time):
            edges = _collapsed([edge for edge in index.edges if edge.run_id == child.run_id])
            spark.append({**child.summary(), "inputs": _uses(index, child.inputs),
                          "outputs": _uses(index, child.outputs),
                          "columns": [{"output": {**index.describe(edge.output), "field": edge.output_field},
                                       "input": {**index.describe(edge.input), "field": edge.input_field},
                                       "transformations": _transformations(edge),
                                       "datasetLevel": edge.dataset_level} for edge in edges]})
        if spark:
            entry["spark"] = spark
        answer["tasks"].append(entry)
    return answer


# -- text rendering ----------------------------------------------------------------------------------------------


def _where(item: Mapping[str, Any]) -> str:
    feed = ",".join(item.get("feed") or [])
    instances = ",".join(item.get("instances") or [])
    label = f"{feed} {instances}".strip()
    field_name = f".{item['field']}" if item.get("field") else ""
    return f"{item['dataset']}{field_name}" + (f"  [{label}]" if label else "")


def _how(transformations: Sequence[Mapping[str, Any]]) -> str:
    parts = []
    for item in transformations:
        kind = "/".join(str(item[key]) for key in ("type", "subtype") if item.get(key))
        if item.get("masking"):
            kind += " (masking)"
        parts.append(kind)
    return ", ".join(parts) or "unspecified"


def column_text(answer: Mapping[str, Any]) -> str:
    query = answer["query"]
    lines = []
    if not answer["instances"]:
        return f"no instance of {query['dataset']} in the time range\n"
    for item in answer["instances"]:
        lines.append(_where(item))
        for way in ("upstream", "downstream"):
            if way not in item:
                continue
            if not item[way]:
                lines.append(f"  {way}: nothing recorded")
                continue
            lines.append(f"  {way}:")
            for step in item[way]:
                other = step["from"] if way == "upstream" else step["to"]
                arrow = "<-" if way == "upstream" else "->"
                run = step["run"]
                lines.append(f"  {'  ' * step['depth']}{arrow} {_where(other)}  {_how(step['transformations'])}"
                             f"{' (whole dataset)' if step['datasetLevel'] else ''}  by {run.get('job', '?')} "
                             f"{run.get('state', '')} {run.get('nominalTime') or ''}".rstrip())
    return "\n".join(lines) + "\n"


def history_text(answer: Mapping[str, Any]) -> str:
    query = answer["query"]
    if not answer["operations"]:
        return f"no operation on {query['dataset']}.{query['field']} recorded\n"
    lines = []
    for row in answer["operations"]:
        run = row["run"]
        head = f"{run.get('eventTime') or '?'}  {row['operation']:<8} {_where(row['dataset'])}"
        lines.append(f"{head}  by {run.get('job', '?')} {run.get('state', '')}".rstrip())
        for source in row.get("from") or []:
            lines.append(f"    <- {_where(source)}  {_how(source.get('transformations') or [])}")
        if row.get("to"):
            lines.append(f"    -> {_where(row['to'])}" + (f"  {_how(row['transformations'])}"
                                                            if row.get("transformations") else ""))
    return "\n".join(lines) + "\n"


def instance_text(answer: Mapping[str, Any]) -> str:
    lines = [f"process {answer['process']} instance {answer['instance']}"]
    for task in answer["tasks"]:
        attempt = f" try {task['try']}" if task.get("try") else ""
        lines.append(f"  task {task['task']}{attempt} on {task['cluster']}: {task['state']}  run {task['runId']}")
        for label, key in (("read", "inputs"), ("wrote", "outputs")):
            for item in task[key]:
                lines.append(f"    {label} {_where(item)}")
        for child in task.get("spark", []):
            lines.append(f"    spark run {child['job']}: {child['state']}  run {child['runId']}")
            for label, key in (("read", "inputs"), ("wrote", "outputs")):
                for item in child[key]:
                    fields = f"  ({', '.join(item['fields'])})" if item.get("fields") else ""
                    lines.append(f"      {label} {_where(item)}{fields}")
            for column in child["columns"]:
                target = "(every field)" if column["datasetLevel"] else column["output"]["field"]
                lines.append(f"      {target} <- {_where(column['input'])}  {_how(column['transformations'])}")
    return "\n".join(lines) + "\n"
