"""Checks of the outside world (C4-C8, C10-C12, F30, P6, P19): run only with ``--check-environment``.

Falcon ran these against HDFS, Oozie, JMS, the Hive metastore and YARN when the server was responsible for the
cluster's colo. falcon-airflow adapts them to what it can see from where ``validate`` runs:

* a ``file://`` endpoint or path is checked on the local file system (exists, is a directory, is writable);
* any other endpoint with a host and port (``hdfs://``, ``thrift://``, ``tcp://``, ``http(s)://``) is checked by
  opening a TCP connection to it, with a short timeout; that proves the service listens, not that it works;
* YARN queue names are checked against the ResourceManager's scheduler REST API when the cluster names one.

Nothing here runs by default, so ``falcon-airflow validate`` in CI never depends on the network.
"""

from __future__ import annotations

import json
import os
import socket
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

from falcon_airflow.entities import (
    Cluster,
    ClusterLocationName,
    EntityType,
    Feed,
    InterfaceType,
    Process,
)
from falcon_airflow.validation.registry import Finding, RuleContext, error, rule, warning
from falcon_airflow.validation.workflow_paths import in_entities_folder, local_path

CONNECT_TIMEOUT_SECONDS = 3.0
_DEFAULT_PORTS = {"hdfs": 8020, "webhdfs": 50070, "hftp": 50070, "thrift": 9083, "tcp": 61616, "http": 80,
                  "https": 443}
_RM_ADDRESSES = ("yarn.resourcemanager.webapp.address", "yarn.resourcemanager.webapp.https.address")


def _reachable(endpoint: str) -> str | None:
    """``None`` when the endpoint answers, else why not. ``file:`` endpoints are checked on the local disk."""
    parts = urlsplit(endpoint.strip())
    if parts.scheme == "file":
        return None if Path(parts.path or "/").exists() else f"path {parts.path or '/'} does not exist"
    host = parts.hostname
    if not host:
        return "it names no host"
    try:
        port = parts.port or _DEFAULT_PORTS.get(parts.scheme)
    except ValueError:
        return "its port is not a number"
    if port is None:
        return "it names no port"
    try:
        with socket.create_connection((host, port), timeout=CONNECT_TIMEOUT_SECONDS):
            return None
    except OSError as problem:
        return f"cannot connect to {host}:{port} ({problem.strerror or problem})"


@rule("C4", EntityType.CLUSTER, "readonly and write file systems are reachable", environment=True)
def storage_reachable(context: RuleContext, cluster: Cluster) -> Iterator[Finding]:
    for kind in (InterfaceType.READONLY, InterfaceType.WRITE):
        interface = cluster.interface(kind)
        if interface is None:
            continue
        problem = _reachable(interface.endpoint)
        if problem:
            yield error(f"{kind.value} storage '{interface.endpoint}' of cluster '{cluster.name}' is not "
                        f"reachable: {problem}", interface.line)


_SERVICE_RULES = (
    ("C5", InterfaceType.EXECUTE, "execute (resource manager)"),
    ("C6", InterfaceType.WORKFLOW, "workflow"),
    ("C7", InterfaceType.MESSAGING, "messaging"),
    ("C8", InterfaceType.REGISTRY, "registry (metastore)"),
)


def _service_rule(rule_id: str, kind: InterfaceType, what: str) -> None:
    @rule(rule_id, EntityType.CLUSTER, f"the {what} endpoint is reachable", environment=True)
    def check(context: RuleContext, cluster: Cluster) -> Iterator[Finding]:
        interface = cluster.interface(kind)
        if interface is None or interface.endpoint.strip() == "localoozie":
            return
        endpoint = interface.endpoint.strip()
        if "://" not in endpoint:  # Falcon wrote execute endpoints as host:port
            endpoint = f"tcp://{endpoint}"
        problem = _reachable(endpoint)
        if problem:
            yield error(f"{what} endpoint '{interface.endpoint}' of cluster '{cluster.name}' is not reachable: "
                        f"{problem}", interface.line)


for _rule_id, _kind, _what in _SERVICE_RULES:
    _service_rule(_rule_id, _kind, _what)


@rule("C10", EntityType.CLUSTER, "the staging location exists and is writable", environment=True)
def staging_usable(context: RuleContext, cluster: Cluster) -> Iterator[Finding]:
    staging = cluster.location(ClusterLocationName.STAGING)
    if staging is None:
        return  # C9 reports it
    local = local_path(cluster, staging.path)
    if local is None:
        yield warning(f"staging location '{staging.path}' of cluster '{cluster.name}' is not on a local file "
                      "system; its permissions were not checked", staging.line)
    elif not local.is_dir():
        yield error(f"staging location {local} of cluster '{cluster.name}' must exist as a folder", staging.line)
    elif not os.access(local, os.W_OK | os.X_OK):
        yield error(f"staging location {local} of cluster '{cluster.name}' is not writable by this user",
                    staging.line)


@rule("C11", EntityType.CLUSTER, "the working location (default <staging>/working) is not a file", environment=True)
def working_usable(context: RuleContext, cluster: Cluster) -> Iterator[Finding]:
    working = cluster.location(ClusterLocationName.WORKING)
    if working is None:
        staging = cluster.location(ClusterLocationName.STAGING)
        base = local_path(cluster, staging.path) if staging is not None else None
        default = base / "working" if base is not None else None
        if staging is not None and default is not None and default.exists() and not default.is_dir():
            yield error(f"cluster '{cluster.name}' has no working location, so it uses {default}, which is a "
                        "file; it must be a folder", staging.line)
        return
    local = local_path(cluster, working.path)
    if local is not None and local.exists() and not local.is_dir():
        yield error(f"working location {local} of cluster '{cluster.name}' is a file; it must be a folder",
                    working.line)


def _yarn_queues(cluster: Cluster) -> tuple[str | None, set[str]] | None:
    """(address, queue names) from the cluster's ResourceManager, or ``None`` when it names none."""
    address = next((value for key, value in cluster.property_map.items() if key in _RM_ADDRESSES), None)
    if not address:
        return None
    url = address if "://" in address else f"http://{address}"
    import urllib.request  # only --check-environment asks: validate does not pay for importing HTTP and TLS

    try:
        with urllib.request.urlopen(f"{url.rstrip('/')}/ws/v1/cluster/scheduler",
                                    timeout=CONNECT_TIMEOUT_SECONDS) as response:
            document = json.load(response)
    except (OSError, ValueError):
        return address, set()
    names: set[str] = set()

    def walk(queue: dict[str, object]) -> None:
        if isinstance(queue.get("queueName"), str):
            names.add(str(queue["queueName"]))
        children = queue.get("queues")
        if isinstance(children, dict):
            for child in children.get("queue", []) or []:
                if isinstance(child, dict):
                    walk(child)

    info = document.get("scheduler", {}).get("schedulerInfo", {})
    if isinstance(info, dict):
        walk(info)
    return address, names


def _queue_findings(cluster: Cluster, queue: str, owner: str, line: int | None) -> Iterator[Finding]:
    found = _yarn_queues(cluster)
    if found is None:
        return
    address, names = found
    if not names:
        yield warning(f"could not read the YARN queues of cluster '{cluster.name}' from {address}; queue "
                      f"'{queue}' of {owner} was not checked", line)
    elif queue not in names:
        yield error(f"queue '{queue}' of {owner} is not a YARN queue of cluster '{cluster.name}' (known: "
                    f"{', '.join(sorted(names))})", line)


@rule("F30", EntityType.FEED, "the feed's queueName is a YARN queue of each cluster", environment=True)
def feed_queue(context: RuleContext, feed: Feed) -> Iterator[Finding]:
    queue = feed.property_map.get("queueName")
    if not queue:
        return
    for item in feed.clusters:
        cluster = context.workspace.clusters.get(item.name)
        if cluster is not None:
            yield from _queue_findings(cluster, queue, f"feed '{feed.name}'", item.line)


@rule("P19", EntityType.PROCESS, "the process's queueName is a YARN queue of each cluster", environment=True)
def process_queue(context: RuleContext, process: Process) -> Iterator[Finding]:
    queue = process.property_map.get("queueName")
    if not queue:
        return
    for item in process.clusters:
        cluster = context.workspace.clusters.get(item.name)
        if cluster is not None:
            yield from _queue_findings(cluster, queue, f"process '{process.name}'", item.line)


@rule("P6", EntityType.PROCESS, "the workflow path and lib paths exist where the runtime looks for them",
      environment=True)
def workflow_paths(context: RuleContext, process: Process) -> Iterator[Finding]:
    paths = [("workflow path", process.workflow.path, process.workflow.line)]
    paths += [("lib path", item, process.workflow.line) for item in process.workflow.lib_paths]
    if process.spark_attributes is not None:
        paths.append(("Spark application", process.spark_attributes.jar, process.spark_attributes.line))
    for item in process.clusters:
        cluster = context.workspace.clusters.get(item.name)
        if cluster is None:
            continue
        for what, path, line in paths:
            if in_entities_folder(context, process, path) is not None:
                continue
            local = local_path(cluster, path)
            if local is None:
                yield warning(f"{what} '{path}' of process '{process.name}' is not on a local file system of "
                              f"cluster '{cluster.name}'; it was not checked", line)
            elif not local.exists():
                where = "" if path.startswith("/") else "in the entities folder or "
                yield error(f"{what} '{path}' of process '{process.name}' does not exist {where}on cluster "
                            f"'{cluster.name}' (looked for {local})", line)
