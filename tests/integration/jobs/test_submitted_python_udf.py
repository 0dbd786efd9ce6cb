"""A PySpark job with a plain Python UDF over a Parquet read finishes when our hook submits it.

With the pyspark 4.2.0 we install, such a job hangs for ever unless Spark's columnar input to Arrow UDFs is off;
the hook turns it off for every job (``SPARK_CONF_DEFAULTS``), and this runs the real spark-submit to prove it.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from falcon_airflow.provider.hooks.spark import FalconSparkSubmitHook, local_spark_environment

pytestmark = pytest.mark.xdist_group("spark-jobs")
TIMEOUT = 300  # seconds; the job itself takes about 30 s

SCRIPT = """
import sys
from pyspark.sql import SparkSession, functions as F
from pyspark.sql.types import IntegerType

spark = SparkSession.builder.getOrCreate()
source, target = sys.argv[1], sys.argv[2]
spark.createDataFrame([(i, f"page-{i % 7}") for i in range(500)], "clicks int, page string") \\
    .repartition(2).write.parquet(source)
spread = F.udf(lambda value: None if value is None else (value % 7) * 3 + value // 10, IntegerType())
spark.read.parquet(source).select(spread("clicks").alias("score"), "page").write.parquet(target)
print("rows", spark.read.parquet(target).count())
spark.stop()
"""


def test_a_udf_over_parquet_runs_to_the_end(tmp_path: Path) -> None:
    script = tmp_path / "udf_job.py"
    script.write_text(SCRIPT)
    hook = FalconSparkSubmitHook(default_master="local[2]", conn_id="falcon_no_such_connection",
                                 conf={"spark.ui.enabled": "false", "spark.ui.showConsoleProgress": "false"})
    command = hook._build_spark_submit_command(str(script))
    command += [str(tmp_path / "source"), str(tmp_path / "target")]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT, cwd=tmp_path, check=False,
                              env={**os.environ, **local_spark_environment()}, start_new_session=True)
    except subprocess.TimeoutExpired as expired:
        pytest.fail(f"the job did not finish in {TIMEOUT} s: {(expired.stdout or b'')[-2000:]!r}")
    assert done.returncode == 0, done.stderr[-3000:]
    assert "rows 500" in done.stdout
