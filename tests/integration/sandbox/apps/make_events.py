"""Test job: write 1,000 event lines (text) to the output path given as the last argument."""

import sys

from pyspark.sql import SparkSession

spark = SparkSession.builder.appName("make-events").getOrCreate()
output = sys.argv[-1]
spark.createDataFrame([(f"event {n}",) for n in range(1000)], "value string").coalesce(2).write.mode(
    "overwrite").text(output)
spark.stop()
