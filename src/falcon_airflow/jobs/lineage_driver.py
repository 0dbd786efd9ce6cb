"""Give an unchanged PySpark script column lineage: run it under this driver with ``spark-submit``.

::

    spark-submit [spark options] --py-files <jobs zip> entry/lineage_driver.py \\
        --falcon-script USER_SCRIPT.py [--falcon-lineage-out PATH] -- [user args ...]

The driver hooks ``DataFrameWriter`` (``save``, ``parquet``, ``csv``, ``json``, ``orc``, ``text``, ``saveAsTable``,
``insertInto``), runs the script with :mod:`runpy` (``sys.argv`` is the script and its arguments, ``__name__`` is
``__main__``) and, at the end, emits one OpenLineage run: a ``START`` and a ``COMPLETE`` - or ``FAIL`` when the
script raised or exited non-zero, the exception being re-raised afterwards so the job keeps its own status.

Each hooked write computes, before the data is written, the column lineage of the DataFrame being written
(:func:`column_lineage`) and the identity of the output: a path is qualified by its Hadoop
filesystem and named as OpenLineage names files (``file`` + absolute path, ``hdfs://nn:8020`` + path,
``s3://bucket`` + key), normalised like a feed path; a table is ``<table namespace>`` + ``db.table``.

The run: job ``<spark.openlineage.parentJobName>.spark`` (else the application name) in namespace
``spark.openlineage.namespace`` (else the parent's namespace, else ``default``); a ``parent`` facet when
``spark.openlineage.parentJobNamespace``/``parentJobName``/``parentRunId`` are set (``root`` too when the three
``rootParent*`` keys are), ``processing_engine``, and ``errorMessage`` on ``FAIL``; inputs are every dataset the
written DataFrames read (with ``schema`` and, for tables, ``symlinks``); outputs every dataset written, with its
``schema`` and ``columnLineage`` facets.

Where the events go: JSON lines appended to ``--falcon-lineage-out`` (else the Spark conf
``spark.falcon.lineageOut``), and, when any ``spark.openlineage.transport.*`` conf is set, through
openlineage-python's transport built from those keys (``type``, ``url``, ``endpoint``, ``timeoutInMillis``,
``auth.*``, ``headers.*``, ``location`` for ``file``). Lineage never fails the user's job: every lineage step is
guarded and only logs a warning.

Scripts that prefer explicit control call :func:`record_write` and :func:`emit` (they work under this driver or
without it).
"""

from __future__ import annotations

import argparse
import functools
import json
import logging
import os
import runpy
import sys
import threading
import time
import traceback
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from falcon_airflow.core.lineage import PRODUCER
from falcon_airflow.core.naming import DatasetId, location_dataset
from falcon_airflow.jobs.lineage_plan.lineage import column_lineage
from falcon_airflow.jobs.lineage_plan.model import (
    VERSION,
    ColumnLineage,
    InputDataset,
    SchemaField,
    schema_facet,
    schema_fields,
)
from falcon_airflow.jobs.lineage_plan.naming import table_namespace

log = logging.getLogger("falcon_airflow.lineage_driver")


RUN_EVENT_SCHEMA_URL = "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent"
PARENT_SCHEMA_URL = "https://openlineage.io/spec/facets/1-2-0/ParentRunFacet.json#/$defs/ParentRunFacet"
ENGINE_SCHEMA_URL = (
    "https://openlineage.io/spec/facets/1-1-1/ProcessingEngineRunFacet.json#/$defs/ProcessingEngineRunFacet")
ERROR_SCHEMA_URL = "https://openlineage.io/spec/facets/1-0-1/ErrorMessageRunFacet.json#/$defs/ErrorMessageRunFacet"
JOB_TYPE_SCHEMA_URL = "https://openlineage.io/spec/facets/2-0-4/JobTypeJobFacet.json#/$defs/JobTypeJobFacet"

CONF_OUT = "spark.falcon.lineageOut"
CONF_NAMESPACE = "spark.openlineage.namespace"
CONF_PARENT_NAMESPACE = "spark.openlineage.parentJobNamespace"
CONF_PARENT_NAME = "spark.openlineage.parentJobName"
CONF_PARENT_RUN = "spark.openlineage.parentRunId"
CONF_ROOT_NAMESPACE = "spark.openlineage.rootParentJobNamespace"
CONF_ROOT_NAME = "spark.openlineage.rootParentJobName"
CONF_ROOT_RUN = "spark.openlineage.rootParentRunId"
CONF_TRANSPORT = "spark.openlineage.transport."

WRITER_METHODS = ("save", "parquet", "csv", "json", "orc", "text", "saveAsTable", "insertInto")
_TABLE_METHODS = ("saveAsTable", "insertInto")
_DRIVER_FILE = os.path.basename(__file__)


def uuid7() -> str:
    """A UUIDv7 (time-ordered) as a string, the kind of run id openlineage-python generates."""
    millis = time.time_ns() // 1_000_000
    random = int.from_bytes(os.urandom(10), "big")
    value = ((millis & ((1 << 48) - 1)) << 80) | (0x7 << 76) | (((random >> 62) & 0xFFF) << 64)
    value |= (0b10 << 62) | (random & ((1 << 62) - 1))
    return str(uuid.UUID(int=value))


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _warn(what: str, error: BaseException) -> None:
    log.warning("column lineage: %s failed (%s: %s); the job is not affected", what, type(error).__name__, error)


@dataclass
class Output:
    """One dataset written: its identity, how, its schema and the lineage of what was written (None when the
    lineage could not be computed: the dataset is still reported, without ``columnLineage``)."""

    dataset: DatasetId
    lineage: ColumnLineage | None
    method: str
    kind: str = "file"
    schema: tuple[SchemaField, ...] = ()
    seconds: float = 0.0

    def to_dict(self, producer: str = PRODUCER) -> dict[str, Any]:
        facets: dict[str, Any] = {}
        if self.schema:
            facets["schema"] = schema_facet(self.schema, producer)
        if self.lineage is not None:
            facets["columnLineage"] = self.lineage.to_facet(producer)
        return {"namespace": self.dataset.namespace, "name": self.dataset.name, "facets": facets}

    def merged(self, later: Output) -> Output:
        """The same dataset written again: lineages united, the later schema."""
        if self.lineage is None or later.lineage is None:
            lineage = later.lineage or self.lineage
        else:
            lineage = self.lineage.merged(later.lineage)
        return Output(later.dataset, lineage, later.method, later.kind, later.schema or self.schema,
                      self.seconds + later.seconds)


@dataclass
class Recorder:
    """The lineage of one run: writes recorded, Spark conf seen, events emitted (once)."""

    run_id: str = field(default_factory=uuid7)
    started: str = field(default_factory=_now)
    outputs: dict[DatasetId, Output] = field(default_factory=dict)
    conf: dict[str, str] = field(default_factory=dict)
    app_name: str | None = None
    spark_version: str | None = None
    script: str | None = None
    out: str | None = None
    emitted: bool = False
    lineage_seconds: float = 0.0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _context_seen: int = field(default=0, repr=False)

    # -- conf --------------------------------------------------------------------------------------------------

    def capture_conf(self, spark: Any = None) -> None:
        """Remember the Spark conf (parent ids, transport, output), the app name and the Spark version.

        Read from ``spark`` or the active session (once per SparkContext: these keys are fixed at start); before
        any session exists, from the JVM spark-submit started (``SparkConf()`` reads its system properties) -
        never by starting a JVM.
        """
        try:
            from pyspark import SparkConf, SparkContext
            from pyspark.sql import SparkSession

            session = spark or SparkSession.getActiveSession()
            if session is not None:
                context = session.sparkContext
                if self._context_seen == id(context):
                    return
                jconf: Any = context._conf._jconf
                self.app_name = context.appName or self.app_name
                self.spark_version = str(session.version)
                self._context_seen = id(context)
            elif SparkContext._gateway is not None or os.environ.get("PYSPARK_GATEWAY_PORT"):
                SparkContext._ensure_initialized()
                jconf = SparkConf()._jconf
            else:
                return
            for prefix in ("spark.openlineage.", "spark.falcon."):
                for pair in jconf.getAllWithPrefix(prefix):
                    self.conf[prefix + str(pair._1())] = str(pair._2())
            if jconf.contains("spark.app.name"):
                self.conf["spark.app.name"] = str(jconf.get("spark.app.name"))
        except Exception as error:
            _warn("reading the Spark conf", error)

    # -- writes ------------------------------------------------------------------------------------------------

    def prepare(self, df: Any, target: str, method: str) -> Output | None:
        """What writing ``df`` to ``target`` (a path or URI; a table name for the table methods) produces: the
        output dataset, its schema and column lineage. None only when not even the dataset is known."""
        started = time.perf_counter()
        try:
            try:
                spark = df.sparkSession
                self.capture_conf(spark)
                if method in _TABLE_METHODS:
                    dataset, names = _table_target(spark, target, method)
                    kind = "table"
                else:
                    dataset, names, kind = _path_target(spark, target), None, "file"
            except Exception as error:
                _warn(f"naming the output of {method}({target!r})", error)
                return None
            schema: tuple[SchemaField, ...] = ()
            computed: ColumnLineage | None = None
            try:
                computed = column_lineage(df)
                if names:
                    computed = _rename(computed, names)
                schema = computed.schema
            except Exception as error:
                _warn(f"column lineage of {method}({target!r})", error)
                try:
                    schema = schema_fields(df.schema)
                except Exception:
                    schema = ()
            return Output(dataset, computed, method, kind, schema, time.perf_counter() - started)
        finally:
            with self._lock:
                self.lineage_seconds += time.perf_counter() - started

    def commit(self, output: Output) -> None:
        with self._lock:
            known = self.outputs.get(output.dataset)
            self.outputs[output.dataset] = output if known is None else known.merged(output)

    def record(self, df: Any, target: str, method: str = "save") -> Output | None:
        output = self.prepare(df, target, method)
        if output is not None:
            self.commit(output)
        return output

    # -- events ------------------------------------------------------------------------------------------------

    def job_name(self) -> str:
        parent = self.conf.get(CONF_PARENT_NAME)
        if parent:
            return f"{parent}.spark"
        name = self.app_name or self.conf.get("spark.app.name") or ""
        if not name or name == _DRIVER_FILE:
            name = os.path.splitext(os.path.basename(self.script or "spark"))[0] or "spark"
        return name

    def job_namespace(self) -> str:
        return self.conf.get(CONF_NAMESPACE) or self.conf.get(CONF_PARENT_NAMESPACE) or "default"

    def run_facets(self, error: BaseException | str | None) -> dict[str, Any]:
        facets: dict[str, Any] = {}
        parent = (self.conf.get(CONF_PARENT_NAMESPACE), self.conf.get(CONF_PARENT_NAME),
                  self.conf.get(CONF_PARENT_RUN))
        if all(parent) and _is_uuid(parent[2]):
            facet: dict[str, Any] = {"_producer": PRODUCER, "_schemaURL": PARENT_SCHEMA_URL,
                                     "run": {"runId": parent[2]},
                                     "job": {"namespace": parent[0], "name": parent[1]}}
            root = (self.conf.get(CONF_ROOT_NAMESPACE), self.conf.get(CONF_ROOT_NAME), self.conf.get(CONF_ROOT_RUN))
            if all(root) and _is_uuid(root[2]):
                facet["root"] = {"run": {"runId": root[2]}, "job": {"namespace": root[0], "name": root[1]}}
            facets["parent"] = facet
        facets["processing_engine"] = {"_producer": PRODUCER, "_schemaURL": ENGINE_SCHEMA_URL,
                                       "version": self.spark_version or _pyspark_version(), "name": "spark",
                                       "openlineageAdapterVersion": VERSION}
        if error is not None:
            if isinstance(error, BaseException):
                message = f"{type(error).__name__}: {error}"
                stack = "".join(traceback.format_exception(type(error), error, error.__traceback__))
            else:
                message, stack = str(error), ""
            facets["errorMessage"] = {"_producer": PRODUCER, "_schemaURL": ERROR_SCHEMA_URL,
                                      "message": message, "programmingLanguage": "python"}
            if stack:
                facets["errorMessage"]["stackTrace"] = stack
        return facets

    def events(self, status: str = "COMPLETE", error: BaseException | str | None = None) -> list[dict[str, Any]]:
        """The START and the terminal event (``COMPLETE``, ``FAIL`` or ``ABORT``) of this run."""
        with self._lock:
            outputs = list(self.outputs.values())
        inputs: dict[DatasetId, InputDataset] = {}
        for output in outputs:
            for dataset in output.lineage.inputs if output.lineage is not None else ():
                inputs.setdefault(dataset.id, dataset)
        job = {"namespace": self.job_namespace(), "name": self.job_name(),
               "facets": {"jobType": {"_producer": PRODUCER, "_schemaURL": JOB_TYPE_SCHEMA_URL,
                                      "processingType": "BATCH", "integration": "SPARK", "jobType": "APPLICATION"}}}
        body = {"inputs": [dataset.to_dict() for dataset in inputs.values()],
                "outputs": [output.to_dict() for output in outputs]}
        events = []
        for event_type, moment, failure in (("START", self.started, None), (status, _now(), error)):
            events.append({"eventType": event_type, "eventTime": moment, "producer": PRODUCER,
                           "schemaURL": RUN_EVENT_SCHEMA_URL,
                           "run": {"runId": self.run_id, "facets": self.run_facets(failure)},
                           "job": job, **body})
        return events

    def emit(self, status: str = "COMPLETE", error: BaseException | str | None = None,
             out: str | None = None) -> list[dict[str, Any]]:
        """Write this run's START and terminal events (once; later calls return ``[]``)."""
        with self._lock:
            if self.emitted:
                return []
            self.emitted = True
        self.capture_conf()
        events = self.events(status, error)
        path = out or self.out or self.conf.get(CONF_OUT)
        if path:
            try:
                write_events(path, events)
            except Exception as failure:
                _warn(f"writing the lineage events to {path}", failure)
        transport = transport_config(self.conf)
        if transport is not None:
            try:
                send_events(transport, events)
            except Exception as failure:
                _warn("sending the lineage events through openlineage-python", failure)
        if not path and transport is None:
            log.info("column lineage: no --falcon-lineage-out, %s or %s* conf: events not written", CONF_OUT,
                     CONF_TRANSPORT)
        return events


def _is_uuid(value: str | None) -> bool:
    try:
        uuid.UUID(str(value))
    except ValueError:
        return False
    return True


def _pyspark_version() -> str:
    try:
        import pyspark

        return str(pyspark.__version__)
    except Exception:
        return "unknown"


def _path_target(spark: Any, path: str) -> DatasetId:
    """The dataset of a written path: qualified by its Hadoop filesystem (relative paths, default FS)."""
    text = str(path)
    if text.startswith("catalog:"):
        return _catalog_uri_target(spark, text)
    try:
        jvm = spark._jvm
        hadoop_path = jvm.org.apache.hadoop.fs.Path(text)
        filesystem = hadoop_path.getFileSystem(spark._jsc.hadoopConfiguration())
        text = str(filesystem.makeQualified(hadoop_path).toString())
    except Exception as error:  # keep the path as given
        log.debug("could not qualify %s: %s", text, error)
    return location_dataset(text)


def _catalog_uri_target(spark: Any, uri: str) -> DatasetId:
    """Falcon's ``catalog:db:table#partition`` URI: the table."""
    database, _, rest = uri.removeprefix("catalog:").partition(":")
    return DatasetId(table_namespace(spark), f"{database.strip()}.{rest.partition('#')[0]}")


def _table_target(spark: Any, name: str, method: str) -> tuple[DatasetId, list[str] | None]:
    """The dataset of a table written by name, and for ``insertInto`` (by position) the table's column names."""
    parts = [part.strip("`") for part in str(name).split(".")]
    table = parts[-1]
    database = parts[-2] if len(parts) >= 2 else spark.catalog.currentDatabase()
    names = None
    if method == "insertInto":
        try:
            names = list(spark.table(str(name)).columns)
        except Exception as error:
            log.debug("columns of %s unknown: %s", name, error)
    return DatasetId(table_namespace(spark), f"{database}.{table}"), names


def _rename(computed: ColumnLineage, names: list[str]) -> ColumnLineage:
    """``insertInto`` writes by position: the lineage of column *i* belongs to the table's column *i*."""
    if len(names) != len(computed.columns):
        return computed
    mapping = dict(zip(computed.columns, names, strict=True))
    fields = {mapping.get(column, column): inputs for column, inputs in computed.fields.items()}
    schema = tuple(SchemaField(mapping.get(item.name, item.name), item.type, item.fields)
                   for item in computed.schema)
    return ColumnLineage(fields, computed.dataset, computed.inputs, tuple(names), schema, computed.plan,
                                      computed.stats)


def write_events(path: str, events: Sequence[dict[str, Any]]) -> None:
    """Append ``events`` as JSON lines to the local file ``path`` (``file:`` URIs accepted)."""
    local = path.removeprefix("file://") if path.startswith("file://") else path.removeprefix("file:")
    folder = os.path.dirname(os.path.abspath(local))
    os.makedirs(folder, exist_ok=True)
    text = "".join(json.dumps(event, separators=(",", ":")) + "\n" for event in events)
    with open(local, "a", encoding="utf-8") as handle:
        handle.write(text)
        handle.flush()


def _snake(name: str) -> str:
    return "".join(f"_{char.lower()}" if char.isupper() else char for char in name).lstrip("_")


def transport_config(conf: dict[str, str]) -> dict[str, Any] | None:
    """openlineage-python transport config from ``spark.openlineage.transport.*`` (None when there is none)."""
    items = {key[len(CONF_TRANSPORT):]: value for key, value in conf.items() if key.startswith(CONF_TRANSPORT)}
    if not items:
        return None
    config: dict[str, Any] = {}
    for key, value in sorted(items.items()):
        head, _, rest = key.partition(".")
        if head == "headers" and rest:
            config.setdefault("custom_headers", {})[rest] = value
        elif head == "auth" and rest:
            config.setdefault("auth", {})[rest] = value
        elif key == "timeoutInMillis":
            config["timeout"] = float(value) / 1000.0
        elif key in ("location", "logFilePath", "log_file_path"):
            config["log_file_path"] = value
            config.setdefault("append", True)
        elif value.lower() in ("true", "false"):
            config[_snake(key)] = value.lower() == "true"
        else:
            config[_snake(key)] = value
    return config


def send_events(config: dict[str, Any], events: Sequence[dict[str, Any]]) -> None:
    """Send ``events`` (plain dicts) through the openlineage-python transport ``config`` describes."""
    from openlineage.client.transport import get_default_factory

    transport = get_default_factory().create(config)
    try:
        for event in events:
            transport.emit(event)  # type: ignore[arg-type]  # transports serialise dicts as they are
    finally:
        close = getattr(transport, "close", None)
        if callable(close):
            close()


# ----------------------------------------------------------------------------------------------------------------
# DataFrameWriter hooks

RECORDER = Recorder()
_originals: dict[str, Callable[..., Any]] = {}
_hooks_lock = threading.Lock()
_state = threading.local()


def _target(method: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> str | None:
    key = {"saveAsTable": "name", "insertInto": "tableName"}.get(method, "path")
    value = args[0] if args else kwargs.get(key)
    return None if value is None else str(value)


def _hook(method: str, original: Callable[..., Any], recorder: Recorder) -> Callable[..., Any]:
    @functools.wraps(original)
    def write(self: Any, *args: Any, **kwargs: Any) -> Any:
        if getattr(_state, "busy", False):  # a hooked method calling another one: record the outer write only
            return original(self, *args, **kwargs)
        output = None
        try:
            target = _target(method, args, kwargs)
            if target is None:
                log.warning("column lineage: %s() without a path or table: not recorded", method)
            else:
                output = recorder.prepare(self._df, target, method)
        except Exception as error:
            _warn(f"recording {method}()", error)
        _state.busy = True
        try:
            result = original(self, *args, **kwargs)
        finally:
            _state.busy = False
        if output is not None:
            try:
                recorder.commit(output)
            except Exception as error:
                _warn(f"recording {method}()", error)
        return result

    write.__falcon_lineage_hook__ = True  # type: ignore[attr-defined]
    return write


def install_hooks(recorder: Recorder | None = None) -> None:
    """Hook the write methods of ``DataFrameWriter`` so that each write records its lineage in ``recorder``."""
    from pyspark.sql.readwriter import DataFrameWriter

    with _hooks_lock:
        for method in WRITER_METHODS:
            current = getattr(DataFrameWriter, method, None)
            if current is None:
                continue
            original = _originals.setdefault(method, current)
            setattr(DataFrameWriter, method, _hook(method, original, recorder or RECORDER))


def uninstall_hooks() -> None:
    """Put the original ``DataFrameWriter`` methods back."""
    from pyspark.sql.readwriter import DataFrameWriter

    with _hooks_lock:
        for method, original in _originals.items():
            setattr(DataFrameWriter, method, original)
        _originals.clear()


@contextmanager
def hooks(recorder: Recorder | None = None) -> Iterator[Recorder]:
    """``with hooks() as recorder:`` - writes inside the block are recorded."""
    chosen = recorder or RECORDER
    install_hooks(chosen)
    try:
        yield chosen
    finally:
        uninstall_hooks()


# ----------------------------------------------------------------------------------------------------------------
# The explicit API


def record_write(df: Any, output_uri: str, *, method: str = "save") -> dict[str, Any] | None:
    """Record that ``df`` is (or was) written to ``output_uri`` - a path or URI, or ``catalog:db:table``.

    Returns the output dataset as it will appear in the events (``None`` when its lineage could not be computed;
    never raises).
    """
    try:
        output = RECORDER.record(df, output_uri, method)
        return output.to_dict() if output is not None else None
    except Exception as error:
        _warn(f"record_write({output_uri!r})", error)
        return None


def emit(status: str = "COMPLETE", error: BaseException | str | None = None,
         out: str | None = None) -> list[dict[str, Any]]:
    """Emit the run's START and ``status`` events now (once per run); returns them (``[]`` if already emitted)."""
    try:
        return RECORDER.emit(status, error, out)
    except Exception as failure:
        _warn("emitting the lineage events", failure)
        return []


def reset() -> Recorder:
    """Start a new run (a new run id, nothing recorded)."""
    global RECORDER
    RECORDER = Recorder()
    return RECORDER


# ----------------------------------------------------------------------------------------------------------------
# The driver


def parse_arguments(argv: Sequence[str]) -> tuple[argparse.Namespace, list[str]]:
    """Driver options before ``--``, the user script's arguments after it."""
    arguments = list(argv)
    if "--" in arguments:
        cut = arguments.index("--")
        own, user = arguments[:cut], arguments[cut + 1:]
    else:
        own, user = arguments, []
    parser = argparse.ArgumentParser(prog="lineage_driver.py", description="Run a PySpark script with column lineage.")
    parser.add_argument("--falcon-script", required=True, help="the user's PySpark script")
    parser.add_argument("--falcon-lineage-out", default=None, help="append the OpenLineage events to this file")
    options, extra = parser.parse_known_args(own)
    return options, extra + user


def _exit_status(code: Any) -> int:
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    return 1


def run(script: str, user_args: Sequence[str], out: str | None = None) -> int:
    """Run ``script`` with lineage hooks and emit its run's events; re-raises what the script raised."""
    recorder = reset()
    recorder.script = script
    recorder.out = out
    recorder.capture_conf()
    try:
        install_hooks(recorder)
    except Exception as error:
        _warn("installing the DataFrameWriter hooks", error)
    saved_argv, saved_path = sys.argv, list(sys.path)
    sys.argv = [script, *user_args]
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    failure: BaseException | None = None
    status = 0
    try:
        runpy.run_path(script, run_name="__main__")
    except SystemExit as exited:
        status = _exit_status(exited.code)
        if status:
            failure = exited
    except BaseException as error:
        status = 1
        failure = error
    finally:
        sys.argv, sys.path[:] = saved_argv, saved_path
        try:
            uninstall_hooks()
        except Exception as error:
            _warn("removing the DataFrameWriter hooks", error)
        try:
            if isinstance(failure, SystemExit):
                reason: BaseException | str | None = f"the script exited with status {status}"
            else:
                reason = failure
            recorder.emit("FAIL" if status else "COMPLETE", reason)
        except Exception as error:
            _warn("emitting the lineage events", error)
    if failure is not None:
        raise failure
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    options, user_args = parse_arguments(sys.argv[1:] if argv is None else argv)
    return run(options.falcon_script, user_args, options.falcon_lineage_out)

