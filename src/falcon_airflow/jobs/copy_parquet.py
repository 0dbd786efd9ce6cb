"""PostgreSQL's ``COPY ... TO STDOUT`` streamed into Parquet part files: the direct import of a Parquet feed.

Each split's ``COPY (SELECT ... WHERE <split range>) TO STDOUT (FORMAT csv)`` runs in the driver's JVM through
pgjdbc's copy API (the connection, credentials and TLS settings of every other JDBC call) and writes into a named
pipe (a FIFO in a private temporary folder); the driver's Python reads the pipe with pyarrow's streaming CSV reader,
with an explicit Arrow type per column, and writes each record batch into a ``ParquetWriter``. No Python database
client is needed and no row goes through Spark; the splits run side by side, two threads each (the JVM call, the
Arrow conversion), both waiting outside the GIL.

The Parquet reads back as the Spark JDBC import's does: the columns' Arrow types are the ones Spark gives the
table's SQL types (``plan``), every column nullable (Spark writes file sources nullable), timestamps stored as Spark
stores them (``spark.sql.parquet.outputTimestampType``, the wall-clock time taken in the session time zone) and
decimals as integers where they fit, compressed with Spark's codec. A column type outside ``plan``'s table makes
``plan`` return ``None``: the caller then imports through Spark.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from falcon_airflow.jobs.frame import JobError

BATCH_BYTES = 4 << 20
"""pyarrow's CSV block: the rows converted and written at a time (per split)."""

_SIMPLE = {"int4": "int32", "serial": "int32", "int8": "int64", "bigserial": "int64", "float4": "float32",
           "float8": "float64", "bool": "bool", "date": "date32", "varchar": "string", "text": "string"}
"""PostgreSQL column types (pgjdbc's names) and the Arrow type Spark's JDBC source gives them."""

_CODECS = {"snappy": "snappy", "gzip": "gzip", "zstd": "zstd", "lz4": "lz4", "lz4_raw": "lz4",
           "brotli": "brotli", "none": "none", "uncompressed": "none"}


@dataclass(frozen=True)
class Plan:
    """How the COPY output becomes Parquet: Arrow types to parse into, the Parquet schema, the writer's options."""

    names: tuple[str, ...]
    parse_types: tuple[Any, ...]
    schema: Any
    zone: str
    writer_options: dict[str, Any]


def available() -> str | None:
    """Why the direct Parquet path cannot run here (``None`` when it can)."""
    try:
        import pyarrow.csv
        import pyarrow.parquet  # noqa: F401
    except ImportError:
        return "pyarrow is not installed in the driver's Python"
    if not hasattr(os, "mkfifo"):
        return "this platform has no named pipes"
    return None


def column_types(handle: Any, relation: str) -> list[tuple[str, str, int, int]]:
    """(name, pgjdbc type name, precision, scale) of each column of a relation, without reading rows."""
    stmt = handle.createStatement()
    try:
        meta = stmt.executeQuery(f"SELECT * FROM {relation} WHERE 1 = 0").getMetaData()
        return [(str(meta.getColumnLabel(i)), str(meta.getColumnTypeName(i)).lower(), int(meta.getPrecision(i)),
                 int(meta.getScale(i))) for i in range(1, int(meta.getColumnCount()) + 1)]
    finally:
        stmt.close()


def arrow_type(kind: str, precision: int, scale: int) -> Any:
    """The Arrow type Spark's JDBC source gives a PostgreSQL column (``None``: not one this path handles)."""
    import pyarrow as pa

    if kind in _SIMPLE:
        return pa.type_for_alias(_SIMPLE[kind])
    if kind == "numeric" and 0 < precision <= 38 and 0 <= scale <= precision:
        return pa.decimal128(precision, scale)
    if kind == "timestamp":
        return pa.timestamp("us")
    return None


def plan(columns: Sequence[tuple[str, str, int, int]], conf: Callable[[str, str], str]) -> Plan | str:
    """The conversion of these columns under the Spark settings ``conf`` (key, default) -> value; a reason
    (text) when a column has a type this path does not convert as Spark does."""
    import pyarrow as pa

    parse_types, fields = [], []
    stamp_unit = conf("spark.sql.parquet.outputTimestampType", "INT96").upper()
    for name, kind, precision, scale in columns:
        parsed = arrow_type(kind, precision, scale)
        if parsed is None:
            return f"column {name} is {kind}({precision}, {scale})" if kind == "numeric" else f"column {name} is {kind}"
        stored = parsed
        if pa.types.is_timestamp(parsed):
            stored = {"TIMESTAMP_MICROS": pa.timestamp("us", tz="UTC"),
                      "TIMESTAMP_MILLIS": pa.timestamp("ms", tz="UTC")}.get(stamp_unit, pa.timestamp("ns"))
        parse_types.append(parsed)
        fields.append(pa.field(name, stored, nullable=True))
    codec = conf("spark.sql.parquet.compression.codec", "snappy").lower()
    if codec not in _CODECS:
        return f"Spark's Parquet codec {codec} is not one pyarrow writes"
    # dictionaries only where values repeat by nature (text, dates, booleans): on numbers and times, mostly
    # distinct, a dictionary per row group costs time and makes the file larger (measured: a third larger)
    repeating = [field.name for field in fields
                 if pa.types.is_string(field.type) or pa.types.is_date(field.type) or pa.types.is_boolean(field.type)]
    options: dict[str, Any] = {"compression": _CODECS[codec], "store_decimal_as_integer": True,
                               "use_deprecated_int96_timestamps": stamp_unit == "INT96", "use_dictionary": repeating}
    if stamp_unit == "TIMESTAMP_MILLIS":
        options["coerce_timestamps"] = "ms"
    return Plan(tuple(name for name, *_ in columns), tuple(parse_types), pa.schema(fields),
                conf("spark.sql.session.timeZone", "UTC"), options)


def _stored(batch: Any, plan: Plan) -> Any:
    """A parsed record batch in the stored schema: timestamps read as wall-clock times in the session zone."""
    import pyarrow as pa
    import pyarrow.compute as pc

    columns = []
    for column, field in zip(batch.columns, plan.schema, strict=True):
        if pa.types.is_timestamp(field.type):
            if plan.zone not in ("UTC", "Z", "+00:00", "GMT", "Etc/UTC"):
                column = pc.assume_timezone(column, plan.zone, ambiguous="earliest", nonexistent="earliest")
            column = column.cast(pa.timestamp(field.type.unit, tz="UTC")).cast(field.type)
        columns.append(column)
    return pa.RecordBatch.from_arrays(columns, schema=plan.schema)


def _convert(read_fd: int, plan: Plan, local_path: str) -> int:
    """Parse the CSV arriving on ``read_fd`` and write it to a Parquet file at ``local_path``. The rows written."""
    import pyarrow as pa
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    with os.fdopen(read_fd, "rb") as raw:
        if not raw.peek(1):  # a split without rows: an empty part file, as Spark writes one
            pq.ParquetWriter(local_path, plan.schema, **plan.writer_options).close()
            return 0
        reader = pacsv.open_csv(
            raw,
            read_options=pacsv.ReadOptions(column_names=list(plan.names), block_size=BATCH_BYTES, use_threads=False),
            parse_options=pacsv.ParseOptions(newlines_in_values=True),
            convert_options=pacsv.ConvertOptions(
                column_types=dict(zip(plan.names, plan.parse_types, strict=True)),
                strings_can_be_null=True, quoted_strings_can_be_null=False,  # NULL is unquoted, '' is ""
                null_values=[""], true_values=["t"], false_values=["f"]))
        written = 0
        with pq.ParquetWriter(local_path, plan.schema, **plan.writer_options) as writer:
            for batch in reader:
                writer.write_batch(_stored(batch, plan))
                written += batch.num_rows
    pa.default_memory_pool().release_unused()
    return written


def copy_split(open_connection: Callable[[], Any], statement: str, plan: Plan, fs: Any, target: str) -> int:
    """Stream one ``COPY ... TO STDOUT`` into the Parquet file ``target`` (a Hadoop URI). The rows COPY sent."""
    spool = tempfile.mkdtemp(prefix="falcon-copy-")
    try:
        pipe = os.path.join(spool, "rows.csv")
        os.mkfifo(pipe, 0o600)
        # both ends open before the JVM starts: its open never blocks, and the pipe's end of file comes only once
        # the JVM closed its stream and this side dropped its own writing end
        read_fd = os.open(pipe, os.O_RDONLY | os.O_NONBLOCK)
        os.set_blocking(read_fd, True)
        hold_fd = os.open(pipe, os.O_WRONLY)
        local = fs.is_local(target)
        output = fs.qualify(target).path if local else os.path.join(spool, "part.parquet")
        failure: list[BaseException] = []
        written: list[int] = []

        def convert() -> None:
            try:
                written.append(_convert(read_fd, plan, output))
            except BaseException as problem:  # reported below, once the JVM side ended too
                failure.append(problem)

        converter = threading.Thread(target=convert, name="falcon-copy-parquet", daemon=True)
        converter.start()
        copied: int | str = "not run"
        try:
            copied = _copy_out(open_connection, statement, pipe)
        finally:
            os.close(hold_fd)  # the reader sees the end of the rows (or of a failed COPY's) and stops
            converter.join()
        # one side failing breaks the other (a closed pipe, rows cut short): both causes are told
        problems = [f"COPY failed: {copied}"] if isinstance(copied, str) else []
        problems += [f"the rows could not be converted to Parquet: {problem}" for problem in failure]
        if problems:
            raise JobError("; ".join(problems))
        if written != [int(copied)]:  # the check the Spark import makes by counting the written files' rows
            raise JobError(f"COPY sent {copied} rows but {written[0] if written else 0} were written")
        if not local:
            fs.filesystem(target).copyFromLocalFile(False, True, fs.path(f"file://{output}"), fs.path(target))
        return int(copied)
    finally:
        shutil.rmtree(spool, ignore_errors=True)


def _copy_out(open_connection: Callable[[], Any], statement: str, pipe: str) -> int | str:
    """The JVM side: COPY into the pipe on a connection of its own. The rows sent, or why it failed."""
    from falcon_airflow.jobs import jdbc

    try:
        with open_connection() as (handle, jvm):
            stream = jvm.java.io.BufferedOutputStream(jvm.java.io.FileOutputStream(pipe), 1 << 20)
            try:
                rows = int(handle.getCopyAPI().copyOut(statement, stream))
            finally:
                stream.close()
            return rows
    except JobError as problem:
        return str(problem)
    except Exception as problem:
        return jdbc.java_message(problem)


def copy_splits(open_connection: Callable[[], Any], relation: str, clauses: Sequence[str], plan: Plan, fs: Any,
                staging: str) -> int:
    """Each split into its own ``part-NNNNN.parquet`` of ``staging``, side by side. The rows COPY sent."""
    fs.mkdirs(staging)

    def one(index: int, clause: str) -> int:
        statement = f"COPY (SELECT * FROM {relation} WHERE {clause}) TO STDOUT WITH (FORMAT csv)"
        try:
            return copy_split(open_connection, statement, plan, fs, f"{staging}/part-{index:05d}.parquet")
        except JobError as problem:
            raise JobError(f"split {index + 1}: {problem}") from None

    with ThreadPoolExecutor(max_workers=max(1, len(clauses)), thread_name_prefix="falcon-copy") as pool:
        counts = [pool.submit(one, index, clause) for index, clause in enumerate(clauses)]
        return sum(future.result() for future in counts)
