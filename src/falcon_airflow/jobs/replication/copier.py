"""Executor side of replication: the copy tasks. Self-contained (standard library and pyspark only, nothing else of
falcon_airflow) so that it pickles by value and needs nothing else on the executors. The Java copier each task
compiles in its JVM is ``FalconReplicationCopier.java``, shipped beside this module (read once by the driver).
"""

from __future__ import annotations

import os
import sys
import types
import zlib
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import suppress
from importlib import resources
from typing import Any

BUFFER_BYTES = 1 << 17  # copy buffer: small enough that the JVM's native copies of it stay in the CPU cache
COPY_THREADS = 4  # batches in flight per copy task
BATCH_FILES = 64  # files per py4j call
BATCH_BYTES = 8 << 20  # bytes per py4j call (a larger file is a batch alone)


_WORKER_STATE = "_falcon_airflow_jobs_worker_state"


def _worker_gateway(access: dict[str, Any]) -> Any:
    """A py4j gateway for this Python worker, kept for the worker's later tasks."""
    state = sys.modules.get(_WORKER_STATE)
    if state is None:
        state = sys.modules[_WORKER_STATE] = types.ModuleType(_WORKER_STATE)
    gateways: dict[str, Any] = state.__dict__.setdefault("gateways", {})
    key = f"{access['mode']}:{access.get('port')}"
    gateway = gateways.get(key)
    if gateway is not None:
        return gateway
    from pyspark.java_gateway import launch_gateway

    names = ("PYSPARK_GATEWAY_PORT", "PYSPARK_GATEWAY_SECRET", "PYSPARK_SUBMIT_ARGS")
    saved = {name: os.environ.get(name) for name in names}
    try:
        for name in names:
            os.environ.pop(name, None)
        if access["mode"] == "driver":  # local master: the executors run in the driver's JVM
            os.environ["PYSPARK_GATEWAY_PORT"] = str(access["port"])
            os.environ["PYSPARK_GATEWAY_SECRET"] = access["secret"]
        else:
            os.environ["PYSPARK_SUBMIT_ARGS"] = access["submit_args"]
        gateway = launch_gateway()  # type: ignore[no-untyped-call]
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
    gateways[key] = gateway
    return gateway


# The copy loops, compiled once per worker JVM connection by Janino (the Java compiler Spark itself uses for its
# generated code, so it is on every Spark classpath). A task then makes one py4j call per batch of files instead of
# about twenty per file, and every byte stays in the JVM. Plain Java 6 syntax: Janino compiles no lambdas.
_COPIER_CLASS = "FalconReplicationCopier"
_COPIER_SOURCE = resources.files(__package__).joinpath(f"{_COPIER_CLASS}.java").read_text(encoding="utf-8")


def _copier_class(access: dict[str, Any]) -> tuple[Any, Any]:
    """This worker's gateway and the copier class compiled in its JVM (compiled once, kept for later tasks)."""
    gateway = _worker_gateway(access)
    classes: dict[tuple[str, str], Any] = sys.modules[_WORKER_STATE].__dict__.setdefault("copier_classes", {})
    key = (f"{access['mode']}:{access.get('port')}", _COPIER_SOURCE)
    klass = classes.get(key)
    if klass is None:
        # The name carries a hash of the source: py4j caches methods by class name, and another version of this
        # job may have compiled its own copier in the same JVM (tasks of a local master share the driver's).
        name = f"{_COPIER_CLASS}{zlib.crc32(_COPIER_SOURCE.encode()):08x}"
        jvm = gateway.jvm
        compiler = jvm.org.codehaus.janino.SimpleCompiler()
        compiler.setParentClassLoader(jvm.java.lang.Thread.currentThread().getContextClassLoader())
        compiler.cook(_COPIER_SOURCE.replace(f"class {_COPIER_CLASS} ", f"class {name} "))
        klass = classes[key] = compiler.getClassLoader().loadClass(name)
    return gateway, klass


class _Copier:
    """One task's copier object in the JVM, shared by the task's threads (one py4j call per batch each)."""

    def __init__(self, task: dict[str, Any]) -> None:
        gateway, klass = _copier_class(task["jvm"])
        jvm = gateway.jvm
        self.task = task
        self.copier = klass.getConstructor(gateway.new_array(jvm.java.lang.Class, 0)).newInstance(
            gateway.new_array(jvm.java.lang.Object, 0))
        if task["conf"] is None:  # a local master: this JVM is the driver's, its Hadoop configuration is at hand
            self.copier.share(jvm.org.apache.spark.SparkContext.getOrCreate().hadoopConfiguration(), BUFFER_BYTES)
        else:
            self.copier.configure("\0".join(part for pair in task["conf"].items() for part in pair), BUFFER_BYTES)
        if task.get("bandwidth"):
            self.copier.limit(int(task["bandwidth"]))

    def run(self, batch: list[dict[str, Any]]) -> list[dict[str, Any]]:
        triples = "\0".join(f"{item['src']}\0{item['dst']}\0{int(item['length'])}" for item in batch)
        try:
            if self.task["op"] == "compare":
                text = str(self.copier.compare(triples))
            else:
                text = str(self.copier.copy(triples, self.task["preserve_times"], self.task["preserve_permissions"]))
            lines = text.split("\n")[:-1]
            if len(lines) != len(batch):
                lines = [f"!{len(lines)} results for {len(batch)} files"] * len(batch)
        except Exception as error:  # the call itself failed: every file of the batch is reported
            message = str(getattr(error, "java_exception", None) or error).strip().splitlines()
            lines = ["!" + (message[0] if message else type(error).__name__)] * len(batch)
        results = []
        for item, line in zip(batch, lines, strict=True):
            result: dict[str, Any] = {"rel": item["rel"], "length": item["length"], "origin": item["origin"]}
            if line.startswith("!"):
                result["error"] = line[1:] or "failed"
            else:
                copied, source_crc, read, copy_crc = (int(value) for value in line.split())
                result.update({"bytes": copied, "src_crc": source_crc, "read": read, "dst_crc": copy_crc})
            results.append(result)
        return results

    def close(self) -> None:
        with suppress(Exception):  # best effort: the copies are closed already
            self.copier.close()


def _batches(items: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """Consecutive items in batches of at most BATCH_FILES files and BATCH_BYTES bytes (a larger file alone)."""
    batches: list[list[dict[str, Any]]] = []
    size = 0
    for item in items:
        length = int(item["length"])
        if not batches or len(batches[-1]) >= BATCH_FILES or size + length > BATCH_BYTES:
            batches.append([])
            size = 0
        batches[-1].append(item)
        size += length
    return batches


def ship_by_value() -> None:
    """Pickle this module's task code by value, so executors need nothing of falcon_airflow."""
    module = sys.modules.get(__name__)
    if __name__ != "__main__" and module is not None:  # as __main__ cloudpickle ships it by value anyway
        from pyspark import cloudpickle

        cloudpickle.register_pickle_by_value(module)  # type: ignore[no-untyped-call]


def run_partition(task: dict[str, Any], slices: Iterable[list[dict[str, Any]]]) -> Iterator[dict[str, Any]]:
    """``mapPartitions`` body: copy (or compare) every item of this task's slice; one result per item.

    A few threads per task keep several batches in flight: each thread has its own py4j connection, so one batch's
    waits (a network round trip per file on HDFS or S3A, py4j calls) overlap the others' work.
    """
    items = [item for part in slices for item in part]
    batches = _batches(items)
    try:
        copier = _Copier(task)
    except Exception as error:  # no gateway or no copier: every file says why (Spark would say "Python worker")
        message = str(getattr(error, "java_exception", None) or error).strip().splitlines()
        reason = f"no copier in the task's JVM: {message[0] if message else type(error).__name__}"
        return iter([{"rel": item["rel"], "length": item["length"], "origin": item["origin"], "error": reason}
                     for item in items])
    try:
        with ThreadPoolExecutor(max(1, min(COPY_THREADS, len(batches)))) as pool:
            results = [result for done in pool.map(copier.run, batches) for result in done]
    finally:
        copier.close()
    return iter(results)
