"""Feed import vs PostgreSQL's own bulk export: 1,000,000 rows, in the same run.

A private PostgreSQL 15 server (tests/integration/databases/servers.py: 127.0.0.1, a free port, stopped at the end)
gets a table of 1,000,000 orders (5 columns). Baseline: ``COPY orders TO '<file>' (FORMAT csv)``, the server writing
the whole table to a local file. Import: ``jobs/db_import.py`` with ``--split-by id --num-mappers 4`` in a warm
SparkSession (local[2], the driver jar on its class path): bounds queried, 4 JDBC reads, Parquet written to staging,
counted, published, flag written; and the same import in direct mode (``--direct --format csv``, Sqoop's direct
connector: each of the 4 splits streamed by the server's ``COPY (...) TO STDOUT`` into a CSV part file, as COPY's
own output is CSV); and the direct import of the Parquet feed (``--direct``: the same 4 COPYs, each streamed
through a pipe into pyarrow's CSV reader and written as a Parquet part file by the driver's Python, jobs/
copy_parquet.py). Spark's start-up is timed and reported apart. Each side best of 3
(``FALCON_BENCH_REPEAT``); ``FALCON_BENCH_SCALE=0.1`` for a quick run. Goal: the import at least half COPY's
throughput (rows per second).

    python -m benchmarks db_import_bench
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from tests.integration.databases import servers

from falcon_airflow.core.databases.credentials import ROOTS_ENV
from falcon_airflow.core.databases.jars import driver_jar
from falcon_airflow.provider.hooks.spark import SPARK_CONF_DEFAULTS

ROWS = 1_000_000
MODES = (("parquet", []), ("direct", ["--direct", "--format", "csv"]), ("direct-parquet", ["--direct"]))
LABELS = {"parquet": "db_import, 4 Spark tasks (parquet", "direct": "db_import --direct, 4 COPYs (csv",
          "direct-parquet": "db_import --direct, 4 COPYs into pyarrow (parquet"}


def scale() -> float:
    return float(os.environ.get("FALCON_BENCH_SCALE", "1"))


def repeat() -> int:
    return int(os.environ.get("FALCON_BENCH_REPEAT", "3"))


def start_spark() -> tuple[Any, float]:
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    jar = str(driver_jar("org.postgresql.Driver"))
    started = time.perf_counter()
    from pyspark.sql import SparkSession

    builder = (SparkSession.builder.master("local[2]").appName("db-import-bench")
               .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
               .config("spark.jars", jar).config("spark.driver.extraClassPath", jar))
    for key, value in SPARK_CONF_DEFAULTS.items():
        builder = builder.config(key, value)
    session = builder.getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    return session, time.perf_counter() - started


def load_job() -> Any:
    from falcon_airflow.jobs import db_import

    return db_import


def best(seconds: list[float]) -> float:
    return min(seconds)


def main() -> int:
    rows = max(1000, int(ROWS * scale()))
    with servers.postgres() as server, tempfile.TemporaryDirectory(prefix="falcon-db-bench-") as scratch:
        server.sql("CREATE TABLE orders (id BIGINT PRIMARY KEY, customer VARCHAR(40) NOT NULL, "
                   "amount NUMERIC(12,2) NOT NULL, placed TIMESTAMP NOT NULL, note VARCHAR(40))")
        server.sql(f"INSERT INTO orders SELECT g, 'customer-' || (g % 997), (g % 100000) / 100.0, "
                   f"timestamp '2026-01-01' + g * interval '7 seconds', "
                   f"CASE WHEN g % 10 = 0 THEN NULL ELSE 'n' || (g % 13) END FROM generate_series(1, {rows}) g")
        server.sql("VACUUM ANALYZE orders")
        copy_file = server.folder / "orders.csv"  # written by the server process, in its own folder
        copy_seconds = []
        for _ in range(repeat()):
            started = time.perf_counter()
            server.sql(f"COPY orders TO '{copy_file}' (FORMAT csv)")
            copy_seconds.append(time.perf_counter() - started)
            copy_bytes = copy_file.stat().st_size
            copy_file.unlink()

        password = Path(scratch) / "password"
        password.write_text(server.password)
        password.chmod(0o600)
        os.environ[ROOTS_ENV] = json.dumps([scratch])  # as the task tells the job: the file's folder is allowed
        spark, startup = start_spark()
        job = load_job()
        root = Path(scratch) / "storage"
        arguments = ["--feed", "orders", "--cluster", "bench", "--instance", "2026-02-01T00:00Z",
                     "--location", f"file://{root}/orders/${{YEAR}}-${{MONTH}}-${{DAY}}", "--url", server.url,
                     "--driver", server.driver, "--dialect", "postgres", "--table", "orders",
                     "--user", server.user, "--password-file", str(password), "--split-by", "id",
                     "--num-mappers", "4"]
        timings: dict[str, list[float]] = {}
        written: dict[str, int] = {}
        for mode, extra in MODES:
            timings[mode] = []
            for _ in range(repeat()):
                started = time.perf_counter()
                with contextlib.redirect_stdout(io.StringIO()):
                    code = job.main([*arguments, *extra], spark)
                timings[mode].append(time.perf_counter() - started)
                if code != 0:
                    print(f"the {mode} import failed", file=sys.stderr)
                    return 1
            written[mode] = sum(path.stat().st_size for path in (root / "orders" / "2026-02-01").glob("part-*"))
        spark.stop()
        shutil.rmtree(root, ignore_errors=True)

    copy_rate = rows / best(copy_seconds)
    print(f"rows: {rows:,}; Spark start-up {startup:.1f} s (not counted)")
    print(f"COPY ... TO (csv, {copy_bytes / 1e6:.1f} MB): best {best(copy_seconds):.2f} s of "
          f"{', '.join(f'{s:.2f}' for s in copy_seconds)} -> {copy_rate:,.0f} rows/s")
    for mode, _ in MODES:
        label = LABELS[mode]
        rate = rows / best(timings[mode])
        print(f"{label}, {written[mode] / 1e6:.1f} MB): best {best(timings[mode]):.2f} s of "
              f"{', '.join(f'{s:.2f}' for s in timings[mode])} -> {rate:,.0f} rows/s; "
              f"import / COPY throughput: {rate / copy_rate:.2f} (goal >= 0.50)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
