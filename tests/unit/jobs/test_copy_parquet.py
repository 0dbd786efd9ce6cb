"""The direct Parquet import's conversion without a database or Spark: the type plan, and COPY's CSV streamed through
the pipe (the JVM side played by a thread writing bytes) into a Parquet file."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from falcon_airflow.jobs import copy_parquet
from falcon_airflow.jobs.frame import JobError

COLUMNS = [("id", "int8", 19, 0), ("amount", "numeric", 12, 2), ("at", "timestamp", 29, 6),
           ("name", "varchar", 40, 0), ("ok", "bool", 1, 0), ("day", "date", 13, 0)]


def spark_conf(**values: str) -> Any:
    return lambda key, default: values.get(key, default)


def test_plan_gives_the_types_of_sparks_jdbc_import() -> None:
    plan = copy_parquet.plan(COLUMNS, spark_conf())
    assert isinstance(plan, copy_parquet.Plan)
    assert plan.schema == pa.schema([pa.field("id", pa.int64()), pa.field("amount", pa.decimal128(12, 2)),
                                     pa.field("at", pa.timestamp("ns")), pa.field("name", pa.string()),
                                     pa.field("ok", pa.bool_()), pa.field("day", pa.date32())])
    assert plan.writer_options["use_deprecated_int96_timestamps"] is True  # Spark's default INT96
    assert plan.writer_options["use_dictionary"] == ["name", "ok", "day"]
    micros = copy_parquet.plan(COLUMNS, spark_conf(**{"spark.sql.parquet.outputTimestampType": "TIMESTAMP_MICROS"}))
    assert isinstance(micros, copy_parquet.Plan) and micros.schema.field("at").type == pa.timestamp("us", tz="UTC")


@pytest.mark.parametrize(("column", "reason"), [
    (("at", "timestamptz", 35, 6), "column at is timestamptz"),
    (("n", "numeric", 0, 0), "column n is numeric(0, 0)"),
    (("doc", "jsonb", 0, 0), "column doc is jsonb")])
def test_plan_refuses_a_type_it_does_not_convert_as_spark(column: tuple[str, str, int, int], reason: str) -> None:
    assert copy_parquet.plan([column], spark_conf()) == reason
    assert "codec" in str(copy_parquet.plan(COLUMNS, spark_conf(**{"spark.sql.parquet.compression.codec": "lzo"})))


class FakeStream:
    def __init__(self, path: str) -> None:
        self.handle = open(path, "wb")  # noqa: SIM115 - closed by close(), as the JVM stream is

    def write(self, data: bytes) -> None:
        self.handle.write(data)

    def close(self) -> None:
        self.handle.close()


def fake_connection(payload: bytes, fail: bool = False, rows: int | None = None) -> Any:
    """pgjdbc's copy API and java.io, in Python: copyOut writes ``payload`` to the stream and says it sent
    ``rows`` rows (default: its lines)."""
    def copy_out(statement: str, stream: FakeStream) -> int:
        stream.write(payload)
        if fail:
            raise RuntimeError("server closed the connection")
        return payload.count(b"\n") if rows is None else rows

    handle = SimpleNamespace(getCopyAPI=lambda: SimpleNamespace(copyOut=copy_out))
    io = SimpleNamespace(FileOutputStream=FakeStream, BufferedOutputStream=lambda stream, size: stream)
    jvm = SimpleNamespace(java=SimpleNamespace(io=io))

    @contextlib.contextmanager
    def opened() -> Iterator[tuple[Any, Any]]:
        yield handle, jvm

    return opened


class LocalFs:
    def is_local(self, uri: str) -> bool:
        return True

    def qualify(self, uri: str) -> Any:
        return SimpleNamespace(path=uri.removeprefix("file://"))


def test_copy_output_becomes_parquet_keeping_nulls_apart_from_empty_text(tmp_path: Path) -> None:
    plan = copy_parquet.plan(COLUMNS, spark_conf())
    assert isinstance(plan, copy_parquet.Plan)
    payload = (b'1,12.50,2026-03-01 05:00:00.123456,"a,""b""\nc",t,2026-03-01\n'
               b'2,,,,,\n'
               b'3,-0.01,1999-12-31 23:59:59,"",f,1970-01-01\n')
    target = tmp_path / "part-00000.parquet"
    rows = copy_parquet.copy_split(fake_connection(payload, rows=3), "COPY", plan, LocalFs(), f"file://{target}")
    assert rows == 3
    table = pq.read_table(target)
    assert table.schema.remove_metadata() == plan.schema
    assert table.column("name").to_pylist() == ['a,"b"\nc', None, ""]
    assert table.column("amount").to_pylist()[1] is None and str(table.column("amount")[2]) == "-0.01"
    assert table.column("at")[0].value == 1772341200123456000  # 2026-03-01T05:00:00.123456 in ns


def test_an_empty_split_is_an_empty_part_file(tmp_path: Path) -> None:
    plan = copy_parquet.plan(COLUMNS, spark_conf())
    assert isinstance(plan, copy_parquet.Plan)
    target = tmp_path / "part-00001.parquet"
    assert copy_parquet.copy_split(fake_connection(b""), "COPY", plan, LocalFs(), f"file://{target}") == 0
    assert pq.read_table(target).num_rows == 0


@pytest.mark.parametrize(("payload", "fail", "message"), [
    (b"1,not a number,2026-03-01 05:00:00,x,t,2026-03-01\n", False, "could not be converted"),
    (b"1,1.00,2026-03-01 05:00:00,x,t,2026-03-01\n", True, "COPY failed: server closed the connection"),
    (b"1,1.00,2026-03-01 05:00:00,x,t,2026-03-01\n", False, "COPY sent 2 rows but 1 were written")])
def test_a_failure_on_either_side_fails_the_split_without_hanging(
        tmp_path: Path, payload: bytes, fail: bool, message: str) -> None:
    plan = copy_parquet.plan(COLUMNS, spark_conf())
    assert isinstance(plan, copy_parquet.Plan)
    before = threading.active_count()
    with pytest.raises(JobError, match=message):
        copy_parquet.copy_split(fake_connection(payload, fail, rows=2 if "sent 2" in message else None), "COPY",
                                plan, LocalFs(), f"file://{tmp_path / 'part-00000.parquet'}")
    assert threading.active_count() == before
