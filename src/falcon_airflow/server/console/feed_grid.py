"""The state of each cell of a feed's instance grid (instance time x cluster), from what Falcon's own actions
report: the storage listing (``instance -listing``), the runs of the feed's replication, import and export DAGs
(``instance -status -lifecycle ...``), the instances its retention runs evicted (each retention run's report, the
``evicted`` list its task returns) and the SLA misses (``entity -slaAlert``).

A cell's ``state`` is the one word the grid shows; ``facts`` are every state that holds (an instance replicated
into the cluster is also available there; a replicated one may have been evicted since). An instance a replication
copied is ``replicated`` on both clusters: its source's cell and its target's. Nothing is guessed: a
cell without a listing entry, run or eviction is not in the grid.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

ACTIVE_RUN = frozenset({"WAITING", "READY", "RUNNING", "SUSPENDED"})
FAILED_RUN = frozenset({"FAILED", "KILLED", "TIMEDOUT"})
AVAILABILITY = {"AVAILABLE": "available", "PARTIAL": "partial", "EMPTY": "empty", "MISSING": "missing",
                "UNKNOWN": "unknown"}
MOVES = {"REPLICATION": ("replicating", "replicated", "replication failed"),
         "IMPORT": ("importing", "imported", "import failed"),
         "EXPORT": ("exporting", "exported", "export failed")}
STATES = ("available", "missing", "late", "partial", "empty", "unknown", "replicating", "replicated",
          "replication failed", "importing", "imported", "import failed", "exporting", "exported", "export failed",
          "evicted")
"""Every state a cell may be in (the page's legend)."""


@dataclass(frozen=True)
class Eviction:
    """One instance a retention run evicted (or archived) on a cluster."""

    cluster: str
    instance: str
    path: str | None
    partition: str | None
    archived_to: str | None
    dag_run_id: str
    at: str | None
    """When the retention run ended."""
    url: str | None


@dataclass
class Cell:
    instance: str
    cluster: str
    availability: str | None = None
    path: str | None = None
    size: int | None = None
    details: str | None = None
    runs: list[dict[str, Any]] = field(default_factory=list)
    eviction: Eviction | None = None
    late: bool = False

    def facts(self) -> list[str]:
        found: list[str] = []
        if self.availability is not None:
            found.append(self.availability)
        for run in self.runs:
            active, done, failed = MOVES[run["lifecycle"]]
            status = run["status"]
            if run.get("direction") == "out":  # a copy of this cell's instance went to another cluster
                if status == "SUCCEEDED":
                    found.append(done)
                continue
            found.append(done if status == "SUCCEEDED" else active if status in ACTIVE_RUN
                         else failed if status in FAILED_RUN else status.lower())
        if self.eviction is not None:
            found.append("evicted")
        if self.late:
            found.append("late")
        return list(dict.fromkeys(found))

    def state(self) -> str:
        facts = self.facts()
        if self.eviction is not None and self.availability != "available":
            return "evicted"  # gone because retention removed it, whatever brought it there
        for word in ("replicating", "importing", "exporting", "replication failed", "import failed",
                     "export failed"):
            if word in facts and self.availability != "available":
                return word
        for word in ("replicated", "imported", "exported"):
            if word in facts and self.availability in ("available", None):
                return word
        if self.availability == "missing" and self.late:
            return "late"
        return self.availability or (facts[0] if facts else "unknown")

    def as_json(self) -> dict[str, Any]:
        document: dict[str, Any] = {"instance": self.instance, "cluster": self.cluster, "state": self.state(),
                                    "facts": self.facts(), "availability": self.availability, "path": self.path,
                                    "size": self.size, "details": self.details, "runs": self.runs}
        if self.eviction is not None:
            evicted = self.eviction
            document["path"] = self.path or evicted.path
            document["evicted"] = {"by": evicted.dag_run_id, "at": evicted.at, "path": evicted.path,
                                   "partition": evicted.partition, "archivedTo": evicted.archived_to,
                                   "url": evicted.url}
            if evicted.partition:
                document["partition"] = evicted.partition
        return document


def evictions(cluster: str, dag_run_id: str, at: str | None, url: str | None,
              report: Mapping[str, Any]) -> list[Eviction]:
    """The instances one retention run's report says it evicted (``{"evicted": [{"instance", "path",
    "partition", "archived_to"}]}``, :mod:`falcon_airflow.jobs.retention`)."""
    found = []
    for item in report.get("evicted") or []:
        if not isinstance(item, Mapping) or not item.get("instance"):
            continue
        partition = item.get("partition")
        found.append(Eviction(cluster, str(item["instance"]), str(item["path"]) if item.get("path") else None,
                              str(partition) if partition else None,
                              str(item["archived_to"]) if item.get("archived_to") else None, dag_run_id, at, url))
    return found


def build_grid(clusters: Sequence[str], listing: Iterable[Mapping[str, Any]], runs: Iterable[Mapping[str, Any]],
               evicted: Iterable[Eviction], late: Iterable[tuple[str, str]],
               window: tuple[str, str]) -> dict[str, Any]:
    """The grid of the instances in ``window`` (Falcon times, both inclusive), newest first.

    ``listing``: ``instance -listing``'s entries; ``runs``: ``instance -status``'s documents of the replication,
    import and export lifecycles (``cluster`` is where the instance went); ``late``: (cluster, instance) pairs that
    missed an SLA."""
    first, last = window
    cells: dict[tuple[str, str], Cell] = {}

    def cell(instance: str, cluster: str) -> Cell:
        return cells.setdefault((instance, cluster), Cell(instance, cluster))

    for entry in listing:
        if not entry.get("instance"):
            continue  # a whole cluster said once (a table feed): in the notes, not a cell
        found = cell(str(entry["instance"]), str(entry["cluster"]))
        found.availability = AVAILABILITY.get(str(entry.get("status")), str(entry.get("status")).lower())
        found.path = entry.get("uri")
        found.size = entry.get("size")
        found.details = entry.get("details")
    for run in runs:
        lifecycle = str(run.get("lifecycle") or "")
        if lifecycle not in MOVES:
            continue
        shown = {"lifecycle": lifecycle, "status": run.get("status"), "sourceCluster": run.get("sourceCluster"),
                 "targetCluster": run.get("cluster"), "dagId": run.get("dagId"), "dagRunId": run.get("dagRunId"),
                 "url": run.get("logFile"), "details": run.get("details")}
        cell(str(run["instance"]), str(run["cluster"])).runs.append({**shown, "direction": "in"})
        source = (str(run["instance"]), str(run.get("sourceCluster")))
        if run.get("sourceCluster") and source[1] != run.get("cluster") and (
                source in cells or run.get("status") == "SUCCEEDED"):
            # the source's cell says where its instance was replicated to
            cell(*source).runs.append({**shown, "direction": "out"})
    for item in evicted:
        if first <= item.instance <= last:
            cell(item.instance, item.cluster).eviction = item
    for cluster, instance in late:
        if (instance, cluster) in cells:
            cells[(instance, cluster)].late = True
        elif first <= instance <= last:
            cell(instance, cluster).late = True
    instances = sorted({instance for instance, _ in cells}, reverse=True)
    return {"start": first, "end": last, "clusters": list(clusters), "instances": instances,
            "states": list(STATES),
            "cells": [cells[key].as_json() for key in sorted(cells, key=lambda key: (key[0], key[1]), reverse=True)]}
